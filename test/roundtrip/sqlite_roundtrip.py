#!/usr/bin/env python3
"""Round trip on a real program: SQLite (the Debian amalgamation) running the fidelity tests'
workload, reduced tenfold, to the end. Every block the run executes is traced independently
(-crashtrail-block-trace, block_trace.c) and must equal, block for block, what `crashtrail show
--format=blocks` decodes from the dump written at exit; the decoding must warn of nothing, also
windowed (--steps). With --pass-option the build uses that pass option too: with
-crashtrail-carry-acc this is what found where a carried record may start and a flush whose
"holds bits" test misread a record started elsewhere (docs/fidelity.md, AE).

  sqlite_roundtrip.py --build BUILD --work DIR [--sources DIR] [--pass-option OPT]...
"""
import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "test", "fidelity"))
import fidelity  # noqa: E402  (its Debian source fetching and amalgamation build)

# The workload's row counts, divided by ten: 5.2 M blocks, within block_trace.c's 64 M events.
SMALLER = [("i < 300)", "i < 30)"), ("i < 120)", "i < 24)"), ("i < 1500)", "i < 150)"),
           ("i < 4000)", "i < 400)"), ("% 300,", "% 30,"), ("% 1500,", "% 150,"),
           ("% 120,", "% 24,"), ("% 120)", "% 24)")]


def first_difference(trace_path, blocks_out):
    """None if the traced blocks equal the decoded ones, else a description of where not."""
    with open(trace_path) as tr:
        head = tr.readline()
        if not head.startswith("overflow 0"):
            return "the independent trace overflowed (%s)" % head.strip()
        decoded = (l.split() for l in blocks_out.splitlines() if not l.startswith("thread"))
        bias, i = None, 0
        for t, d in itertools.zip_longest(tr, decoded):
            if t is None or d is None:
                return "traced and decoded lengths differ at block %d" % i
            addr, block, _ = t.split()
            fn = int(d[1], 16)
            if bias is None:
                bias = int(addr, 16) - fn
            if (int(addr, 16) - bias, int(block)) != (fn, int(d[2])):
                return "block %d differs: traced %#x/%s, decoded %#x/%s" % (
                    i, int(addr, 16) - bias, block, fn, d[2])
            i += 1
    print("identical: %d blocks" % i)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--sources", help="Debian sources (shared with the fidelity tests)")
    ap.add_argument("--pass-option", action="append", default=[])
    args = ap.parse_args()
    build, work = os.path.abspath(args.build), os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    env = types.SimpleNamespace(src=os.path.abspath(args.sources or os.path.join(work, "src")),
                                jobs=os.cpu_count() or 2)
    os.makedirs(env.src, exist_ok=True)
    amalg = fidelity.sqlite_amalgamation(env)
    fid = os.path.join(REPO, "test", "fidelity", "programs")
    sql = open(os.path.join(fid, "workload.sql")).read()
    for a, b in SMALLER:
        sql = sql.replace(a, b)
    with open(os.path.join(work, "workload-small.sql"), "w") as fh:
        fh.write(sql)
    bt = os.path.join(work, "block_trace.o")
    fidelity.run(["clang-14", "-O2", "-c", "-I" + os.path.join(build, "include"),
                  os.path.join(HERE, "block_trace.c"), "-o", bt])
    exe = os.path.join(work, "sqlite_roundtrip")
    flags = [f for o in args.pass_option for f in ("-mllvm", o)]
    fidelity.run([os.path.join(build, "bin", "crashtrail-cc"), "-O2", "-gline-tables-only", "-w",
                  "-DCT_NO_MISUSE", "-I" + amalg, "-mllvm", "-crashtrail-block-trace"] + flags +
                 [os.path.join(amalg, "sqlite3.c"), os.path.join(fid, "sqlite_misuse.c"), bt,
                  "-o", exe, "-lpthread", "-ldl", "-lm"])
    dumps = os.path.join(work, "dumps")
    shutil.rmtree(dumps, ignore_errors=True)
    os.makedirs(dumps)
    trace = os.path.join(work, "trace.txt")
    r = subprocess.run([exe, os.path.join(work, "workload-small.sql")], capture_output=True,
                       text=True, cwd=work, timeout=600,
                       env=dict(os.environ, CRASHTRAIL_DIR=dumps, CRASHTRAIL_RING_KB="1048576",
                                CT_BLOCK_TRACE=trace))
    files = os.listdir(dumps)
    if r.returncode or len(files) != 1:
        print("FAIL: exit %d, dumps %s\n%s" % (r.returncode, files, r.stderr[-2000:]))
        return 1
    dump = os.path.join(dumps, files[0])
    ct = os.path.join(build, "bin", "crashtrail")
    bad = first_difference(trace, fidelity.run([ct, "show", "--format=blocks", dump]).stdout)
    for extra in ([], ["--steps=200"]):
        tl = json.loads(fidelity.run([ct, "show", "--format=json"] + extra + [dump]).stdout)
        if tl["warnings"]:
            bad = (bad + "; " if bad else "") + "warnings%s: %s" % (
                " " + extra[0] if extra else "", "; ".join(tl["warnings"][:5]))
    if bad:
        print("FAIL: " + bad)
        return 1
    shutil.rmtree(dumps, ignore_errors=True)
    os.unlink(trace)
    return 0


if __name__ == "__main__":
    sys.exit(main())
