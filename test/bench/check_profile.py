#!/usr/bin/env python3
"""check_profile.py - fails when the decoder's clang profile no longer fits its hot code.

The `crashtrail` command is built with postmortem/pgo/decoder.proftext (profile-guided
optimisation, docs/performance.md section 6). Clang drops the counts of a function whose control
flow changed since the profile was made, silently: the decoder then loses its speed, not its
correctness. This compiles the decoder's hot files against the indexed profile, as the build
does, and fails if clang says the profile is out of date for any of them, or has nothing for
one, naming the remedy (test/bench/train_profile.py).

Usage: check_profile.py --cc CLANG --profdata FILE [-I DIR ...] SOURCE...
"""
import argparse
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cc", required=True)
    ap.add_argument("--profdata", required=True)
    ap.add_argument("-I", dest="incs", action="append", default=[])
    ap.add_argument("sources", nargs="+")
    a = ap.parse_args()
    stale = []
    for src in a.sources:
        cmd = [a.cc, "-O2", "-std=c11", "-D_GNU_SOURCE", "-c", "-o", "/dev/null",
               f"-fprofile-instr-use={a.profdata}", "-Wprofile-instr-out-of-date",
               "-Wprofile-instr-unprofiled"]
        cmd += [f"-I{d}" for d in a.incs] + [src]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            print(f"check_profile: {src} does not compile:\n{p.stderr}", file=sys.stderr)
            return 1
        notes = [l for l in p.stderr.splitlines() if "profile-instr" in l]
        print(f"{src}: {'; '.join(notes) if notes else 'profile current'}")
        if notes:
            stale.append(src)
    if stale:
        print(f"check_profile: the decoder's profile is out of date for {len(stale)} of "
              f"{len(a.sources)} hot files; make it again with test/bench/train_profile.py "
              "and commit postmortem/pgo/decoder.proftext", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
