#!/usr/bin/env python3
"""Windowed decoding (`show --steps=N`) with carried accumulators (-crashtrail-carry-acc).

A thread's history that starts mid-way (its ring wrapped) starts with an empty call-stack model;
with carried accumulators its first records may start in a carried callee, which full decoding
finds (record_flow_fresh) and windowed decoding must find too, not take the record's summary:
before that was so, the four-thread fidelity program's windows counted 90828 steps not kept where
the full timeline has 92591, and Lua's were 22 levels deeper. The program is the fidelity tests'
threads.c (worker 2 crashes on its own), built at -O2 and -O0, rings of 32 KB so they wrap.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from window_check import check_windows  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: test_carried_windows.py BUILD_DIR SOURCE_DIR")
    build, source = sys.argv[1:]
    ct = os.path.join(build, "bin", "crashtrail")
    src = os.path.join(source, "test", "fidelity", "programs", "threads.c")
    bad = []
    with tempfile.TemporaryDirectory() as work:
        for opt in ("O2", "O0"):
            exe = os.path.join(work, "threads-" + opt)
            subprocess.run([os.path.join(build, "bin", "crashtrail-cc"), "-" + opt, "-g",
                            "-mllvm", "-crashtrail-carry-acc", src, "-o", exe, "-lpthread"],
                           check=True)
            dumps = os.path.join(work, "dumps-" + opt)
            os.makedirs(dumps)
            r = subprocess.run([exe, "crash"], capture_output=True, text=True, timeout=120,
                               env=dict(os.environ, CRASHTRAIL_DIR=dumps, CRASHTRAIL_RING_KB="32"))
            files = os.listdir(dumps)
            if r.returncode >= 0 or len(files) != 1:
                print("FAIL: %s: exit %d, dumps %s\n%s" % (opt, r.returncode, files, r.stderr))
                return 1
            dump = os.path.join(dumps, files[0])
            tl = json.loads(subprocess.run([ct, "show", "--format=json", dump], check=True,
                                           capture_output=True, text=True).stdout)
            if not any(t.get("history_lost") for t in tl["threads"]):
                print("FAIL: %s: no thread's ring wrapped: nothing tested" % opt)
                return 1
            problems = check_windows(ct, dump, tl)
            bad += ["%s: %s" % (opt, p) for p in problems[:5]]
            print("%s: %d threads, %d steps, windows %s" % (
                opt, len(tl["threads"]), sum(len(t["steps"]) for t in tl["threads"]),
                "differ" if problems else "equal the full timeline's tail"))
    if bad:
        print("FAIL: --steps=N differs from the full timeline:\n" + "\n".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
