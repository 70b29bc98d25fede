#!/usr/bin/env python3
"""The oracle checked against an independent one: valgrind's lackey (issue 8's first suggestion).

programs/selfcheck.c is built with crashtrail-cc at -O0 and -O2, as a non-PIE executable (so both
tools see the same addresses), and the same file without debug sections (valgrind 3.19 gives up
on the DWARF 5 of crashtrail's runtime: "debuginfo reader: Possibly corrupted debuginfo file";
removing debug sections changes no code and no address) runs to its crash twice, with the same
path and dump directory: under steptrace, and under `valgrind --tool=lackey --trace-mem=yes`.
Checks:

  1. the instructions of the program's own code (the executable's, with a line, not crashtrail's
     runtime, whose start-up reads /proc/self/maps and so runs differently under valgrind), in
     order, from the first one to the crash, are the same in both streams, except that lackey
     may lack the last few: it records an instruction's memory events in a buffer that a fault
     can cut short, so the faulting instruction (and any before it in the same superblock) can
     be missing (at -O0 here: the faulting one); then lackey goes on with crashtrail's signal
     handler, where its stream is cut;
  2. valgrind delivers the fatal signal to the program's handler: crashtrail's runtime writes its
     dump under valgrind too, and `crashtrail show` decodes it (with --binary, the original file).

  lackey_check.py --crashtrail-build BUILD --work DIR [--steptrace PATH]
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import oracle  # noqa: E402

MAX_MISSING = 64  # lackey's missing tail: the faulting superblock, at most


def sh(cmd, **kw):
    kw.setdefault("check", True)
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def text_range(exe):
    """[lo, hi) of the executable's code: its executable PT_LOAD segment (non-PIE: as loaded)."""
    for line in sh(["readelf", "-lW", exe]).stdout.splitlines():
        f = line.split()
        if f and f[0] == "LOAD" and "E" in f[6:-1]:
            lo = int(f[2], 16)
            return lo, lo + int(f[5], 16)
    raise RuntimeError("no executable segment in " + exe)


def symbol(exe, name):
    for line in sh(["llvm-nm-14", "--defined-only", exe]).stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[2] == name:
            return int(f[0], 16)
    raise KeyError(name)


def check(args, opt):
    work = os.path.join(args.work, opt)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    exe = os.path.join(work, "selfcheck")
    sh([os.path.join(args.crashtrail_build, "bin", "crashtrail-cc"), "-" + opt, "-gdwarf-4",
        "-fno-pie", "-no-pie", os.path.join(HERE, "programs", "selfcheck.c"), "-o", exe])
    bare = exe + ".nodebug"
    sh(["objcopy", "--strip-debug", exe, bare])
    lo, hi = text_range(exe)
    handler = symbol(exe, "ct_crash_handler")
    dumps = os.path.join(work, "dumps")

    # steptrace, from the first instruction after exec.
    os.makedirs(dumps)
    t0 = time.time()
    sh([args.steptrace, "-o", os.path.join(work, "oracle"), "--", bare], check=False,
       env=dict(os.environ, CRASHTRAIL_DIR=dumps))
    t_step = time.time() - t0
    rep = oracle.read_report(os.path.join(work, "oracle"))
    pcs = oracle.read_pcs(os.path.join(work, "oracle.pcs"))
    if rep.get("lost") != "0":
        return "the oracle's ring overflowed"
    shutil.rmtree(dumps)

    # lackey.
    os.makedirs(dumps)
    log = os.path.join(work, "lackey.log")
    t0 = time.time()
    sh(["valgrind", "--tool=lackey", "--trace-mem=yes", "--log-file=" + log, bare], check=False,
       env=dict(os.environ, CRASHTRAIL_DIR=dumps))
    t_vg = time.time() - t0
    lackey = []
    with open(log) as fh:
        for line in fh:
            if line.startswith("I  "):
                pc = int(line[3:].split(",")[0], 16)
                if pc == handler:
                    break  # valgrind has delivered the signal: the handler runs
                if lo <= pc < hi:
                    lackey.append(pc)

    # The program's own instructions: a line, and not in crashtrail's runtime.
    runtime = oracle.runtime_dir(args.crashtrail_build) + os.sep
    syms = oracle.symbolize(exe, [pc for pc in set(pcs) | set(lackey) if lo <= pc < hi])
    own = {va for va, (f, ln, _, _) in syms.items() if f and ln and not f.startswith(runtime)}
    ours = [pc for pc in pcs if pc in own]
    theirs = [pc for pc in lackey if pc in own]

    problems = []
    missing = len(ours) - len(theirs)
    if ours[:len(theirs)] != theirs:
        i = next(i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b)
        problems.append("the streams differ at the executable's instruction %d of %d: steptrace "
                        "0x%x, lackey 0x%x" % (i, len(ours), ours[i], theirs[i]))
    elif not 0 <= missing <= MAX_MISSING:
        problems.append("lackey lacks %d of steptrace's %d instructions at the end (expected "
                        "0-%d)" % (missing, len(ours), MAX_MISSING))
    dumps = glob.glob(os.path.join(dumps, "*.ctd"))
    if len(dumps) != 1:
        problems.append("no dump was written under valgrind")
    else:
        show = sh([os.path.join(args.crashtrail_build, "bin", "crashtrail"), "show",
                   "--format=json", "--binary", exe, dumps[0]], check=False)
        steps = oracle.timeline_steps(json.loads(show.stdout))[0] if show.returncode == 0 else []
        if not steps:
            problems.append("the dump written under valgrind does not decode: " + show.stderr[-300:])
    print("lackey_check -%s: %d instructions of the program's code; lackey lacks the last %d "
          "(from 0x%x); steptrace %.1f s for %d instructions (%.0f/s), valgrind %.1f s; %s" % (
              opt, len(ours), missing, ours[len(theirs)] if missing > 0 else 0, t_step, len(pcs),
              len(pcs) / max(t_step, 1e-3), t_vg, "; ".join(problems) or "ok"))
    return "; ".join(problems)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--crashtrail-build", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--steptrace")
    args = ap.parse_args()
    args.crashtrail_build = os.path.abspath(args.crashtrail_build)
    os.makedirs(args.work, exist_ok=True)
    if not shutil.which("valgrind"):
        print("lackey_check: valgrind is not installed (scripts/setup.sh test installs it)")
        return 1
    if not args.steptrace:
        args.steptrace = os.path.join(args.work, "steptrace")
        sh(["clang-14", "-O2", "-o", args.steptrace, os.path.join(HERE, "steptrace.c")])
    failed = [opt for opt in ("O0", "O2") if check(args, opt)]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
