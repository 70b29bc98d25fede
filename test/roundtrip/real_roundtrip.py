#!/usr/bin/env python3
"""Round trip on real programs, whole runs block for block: SQLite (the Debian amalgamation)
running the fidelity tests' workload reduced tenfold, or the Lua 5.4 interpreter (Debian's
source) running the fidelity tests' workload and Inputs/unwind.lua (every way Lua leaves C
frames by longjmp: errors in coroutines, parser and metamethod errors, sort comparators,
C stack overflows; and its C-to-Lua callbacks).

Every block a run executes is traced independently (-crashtrail-block-trace, block_trace.c) and
must equal, block for block, what `crashtrail show --format=blocks` decodes from the dump written
at exit; the decoding must warn of nothing, also windowed (--steps). Lua is also built plain:
each run's output and exit status must be the plain build's. With --tables the build records
the last/first tables too, and every block's entries must match the trace's times. With
--pass-option the build uses that pass option too: with -crashtrail-carry-acc this is what
found where a carried record may start and a flush whose "holds bits" test misread a record
started elsewhere (docs/fidelity.md, AE).

  real_roundtrip.py --program sqlite|lua --build BUILD --work DIR [--sources DIR]
                    [--opt O0|O2]... [--tables] [--pass-option OPT]...
"""
import argparse
import concurrent.futures
import glob
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
from run_roundtrip import compare_tables, read_trace  # noqa: E402

FID = os.path.join(REPO, "test", "fidelity", "programs")

# The SQLite workload's row counts, divided by ten: 5.2 M blocks, within block_trace.c's 64 M
# events.
SMALLER = [("i < 300)", "i < 30)"), ("i < 120)", "i < 24)"), ("i < 1500)", "i < 150)"),
           ("i < 4000)", "i < 400)"), ("% 300,", "% 30,"), ("% 1500,", "% 150,"),
           ("% 120,", "% 24,"), ("% 120)", "% 24)")]

# Lua's runs: (name, script, its argument); 2.5 M and 1.3 M blocks at -O2.
LUA_RUNS = [("workload", os.path.join(FID, "workload.lua"), "2"),
            ("unwind", os.path.join(HERE, "Inputs", "unwind.lua"), "3")]


def first_difference(trace_path, blocks_out):
    """None if the traced blocks equal the decoded ones, else a description of where not."""
    with open(trace_path) as tr:
        head = tr.readline()
        if not head.startswith("overflow 0"):
            return "the independent trace overflowed (%s)" % head.strip()
        decoded = (l.split() for l in blocks_out.splitlines()
                   if not l.startswith("thread") and not l.startswith("table "))
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


def instrumented_cc(args, opt):
    """crashtrail-cc with the independent trace and the requested options."""
    cmd = [os.path.join(args.build, "bin", "crashtrail-cc"), "-" + opt, "-gline-tables-only", "-w",
           "-mllvm", "-crashtrail-block-trace"]
    if args.tables:
        cmd.append("-fplugin-arg-crashtrail-mode=tables")
    return cmd + [f for o in args.pass_option for f in ("-mllvm", o)]


def build_sqlite(args, env, opt, work, bt):
    amalg = fidelity.sqlite_amalgamation(env)
    sql = open(os.path.join(FID, "workload.sql")).read()
    for a, b in SMALLER:
        sql = sql.replace(a, b)
    script = os.path.join(work, "workload-small.sql")
    with open(script, "w") as fh:
        fh.write(sql)
    exe = os.path.join(work, "sqlite_roundtrip")
    fidelity.run(instrumented_cc(args, opt) + [
        "-DCT_NO_MISUSE", "-I" + amalg, os.path.join(amalg, "sqlite3.c"),
        os.path.join(FID, "sqlite_misuse.c"), bt, "-o", exe, "-lpthread", "-ldl", "-lm"])
    return [("workload", [exe, script], None)]


def build_lua(args, env, opt, work, bt):
    src, gen = fidelity.lua_root(env)
    flags = ["-DLUA_USE_LINUX", "-DLUA_COMPAT_5_3", "-Dluai_makeseed(L)=0u", "-I" + gen, "-I" + src]
    units = [c for c in sorted(glob.glob(os.path.join(src, "*.c")))
             if os.path.basename(c) != "luac.c"]
    exes = {}
    for kind, cc in (("plain", ["clang-14", "-" + opt, "-w"]), ("ct", instrumented_cc(args, opt))):
        d = os.path.join(work, kind)
        os.makedirs(d, exist_ok=True)
        objs = [os.path.join(d, os.path.basename(c)[:-2] + ".o") for c in units]
        with concurrent.futures.ThreadPoolExecutor(env.jobs) as pool:
            list(pool.map(lambda co: fidelity.run(cc + flags + ["-c", co[0], "-o", co[1]]),
                          zip(units, objs)))
        exes[kind] = os.path.join(d, "lua")
        fidelity.run(cc + objs + ([bt] if kind == "ct" else []) + ["-o", exes[kind], "-lm", "-ldl"])
    return [(name, [exes["ct"], script, arg], [exes["plain"], script, arg])
            for name, script, arg in LUA_RUNS]


def check_run(args, work, name, argv, plain_argv):
    """One run: None if it round-trips, else what went wrong."""
    dumps = os.path.join(work, name + ".dumps")
    shutil.rmtree(dumps, ignore_errors=True)
    os.makedirs(dumps)
    trace = os.path.join(work, name + ".trace")
    r = subprocess.run(argv, capture_output=True, text=True, cwd=work, timeout=600,
                       env=dict(os.environ, CRASHTRAIL_DIR=dumps, CRASHTRAIL_RING_KB="1048576",
                                CT_BLOCK_TRACE=trace))
    files = os.listdir(dumps)
    if r.returncode or len(files) != 1:
        return "exit %d, dumps %s\n%s" % (r.returncode, files, r.stderr[-2000:])
    if plain_argv:
        p = subprocess.run(plain_argv, capture_output=True, text=True, cwd=work, timeout=600)
        if (p.stdout, p.returncode) != (r.stdout, r.returncode):
            return "behaviour changed: %r/%d vs %r/%d" % (p.stdout[-300:], p.returncode,
                                                          r.stdout[-300:], r.returncode)
    dump = os.path.join(dumps, files[0])
    ct = os.path.join(args.build, "bin", "crashtrail")
    blocks = fidelity.run([ct, "show", "--format=blocks", dump]).stdout
    bad = first_difference(trace, blocks)
    for extra in ([], ["--steps=200"]):
        tl = json.loads(fidelity.run([ct, "show", "--format=json"] + extra + [dump]).stdout)
        if tl["warnings"]:
            bad = (bad + "; " if bad else "") + "warnings%s: %s" % (
                " " + extra[0] if extra else "", "; ".join(tl["warnings"][:5]))
    if not bad and args.tables:
        bad = compare_tables(read_trace(trace, int(tl["modules"][0]["load_bias"], 16)), blocks)
    if bad:
        return bad
    shutil.rmtree(dumps, ignore_errors=True)
    os.unlink(trace)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--program", choices=["sqlite", "lua"], default="sqlite")
    ap.add_argument("--build", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--sources", help="Debian sources (shared with the fidelity tests)")
    ap.add_argument("--opt", action="append", choices=["O0", "O1", "O2", "O3"],
                    help="optimisation levels (default O2)")
    ap.add_argument("--tables", action="store_true", help="record the last/first tables too")
    ap.add_argument("--pass-option", action="append", default=[])
    args = ap.parse_args()
    args.build, work = os.path.abspath(args.build), os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    env = types.SimpleNamespace(src=os.path.abspath(args.sources or os.path.join(work, "src")),
                                jobs=os.cpu_count() or 2)
    os.makedirs(env.src, exist_ok=True)
    bt = os.path.join(work, "block_trace.o")
    fidelity.run(["clang-14", "-O2", "-c", "-I" + os.path.join(args.build, "include"),
                  os.path.join(HERE, "block_trace.c"), "-o", bt])
    failed = 0
    for opt in args.opt or ["O2"]:
        owork = os.path.join(work, opt)
        os.makedirs(owork, exist_ok=True)
        build = build_lua if args.program == "lua" else build_sqlite
        for name, argv, plain_argv in build(args, env, opt, owork, bt):
            bad = check_run(args, owork, name, argv, plain_argv)
            print("%s -%s %s: %s" % (args.program, opt, name, "FAIL: " + bad if bad else "ok"))
            failed += bad is not None
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
