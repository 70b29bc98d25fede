#!/usr/bin/env python3
"""A dump of format version 1 (runtime ABI 3, made 2026-11-22: records hold function addresses,
MODULE has no record base) still decodes: the timeline of its crashing thread and of a worker.
The files are copies, not the fuzz corpus's own, so regenerating that corpus leaves them old.
Usage: check.py CRASHTRAIL_BINARY"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
out = subprocess.run([sys.argv[1], "show", "--steps=8", "--binary", os.path.join(HERE, "target.bin"),
                      os.path.join(HERE, "segv-8.ctd")], capture_output=True, text=True, timeout=60)
want = ["main                 target.c:42  | return *(volatile int *)(long)(argc - 2);  <== crash",
        "walk                 target.c:17  | case 1: seed ^= 7; break;",
        "worker               target.c:26  | for (int i = 0; i < n; i++) s += walk(8, i);",
        "3426 steps from 100 records"]
missing = [w for w in want if w not in out.stdout]
if out.returncode != 0 or missing:
    sys.exit("crashtrail show exit %d; missing %s\n%s%s" % (out.returncode, missing, out.stdout, out.stderr))
print("ok: the version 1 dump decodes (%d lines)" % len(out.stdout.splitlines()))
