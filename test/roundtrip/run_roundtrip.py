#!/usr/bin/env python3
"""Round trip of the path encoding on random programs (csmith) and on the project's own tests.

For each program, at -O0 and -O2:
  1. build it plain and with crashtrail (+ the independent per-block trace of
     -mllvm -crashtrail-block-trace, test/roundtrip/block_trace.c);
  2. run both: stdout and exit status must be identical (instrumentation never changes
     behaviour);
  3. at exit the instrumented run writes the independent trace and an on-demand dump with rings
     large enough for the whole run;
  4. the blocks decoded from the dump (`crashtrail show --format=blocks`) must equal the trace,
     block for block;
  5. with --tables (a build with -fplugin-arg-crashtrail-mode=tables), every block's dumped
     last/first table entry must equal the thread's coarse time at the block's last and first
     event in the trace, and blocks the trace never saw must have empty entries.
Programs that do not finish in time without crashtrail are skipped and do not count.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from window_check import check_windows  # noqa: E402

CSMITH_INC = "/usr/include/csmith"


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def read_trace(trace_path, bias):
    """The independent trace: [(function, block, coarse time)], or None if it overflowed."""
    trace = open(trace_path).read().split("\n")
    if not trace[0].startswith("overflow 0"):
        return None
    return [(int(a, 16) - bias, int(b), int(n))
            for a, b, n in (l.split()[:3] for l in trace[1:] if l)]


def compare_tables(events, blocks_out):
    """Each block's table entry against the times of its last and first traced event."""
    seen = {}
    for fn, block, now in events:
        first_last = seen.get((fn, block))
        seen[(fn, block)] = (first_last[0] if first_last else now, now)
    entries = 0
    for line in blocks_out.splitlines():
        if not line.startswith("table "):
            continue
        _, _, fn, block, last, first = line.split()
        key, last, first = (int(fn, 16), int(block)), int(last), int(first)
        want_first, want_last = seen.get(key, (0, 0))
        if (last, first) != (want_last, want_first):
            return "table entry of block %s: last %d, first %d; traced last %d, first %d" % (
                key, last, first, want_last, want_first)
        entries += 1
    if not entries:
        return "no table entries in the dump"
    return None


def compare(events, blocks_out):
    want = [(fn, block) for fn, block, _ in events]
    got = []
    for line in blocks_out.splitlines():
        if line.startswith("thread") or line.startswith("table "):
            continue
        _, fn, block = line.split()
        got.append((int(fn, 16), int(block)))
    if got == want:
        return None
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            return "block %d of %d differs: decoded %s, traced %s" % (i, len(want), g, w)
    return "decoded %d blocks, traced %d" % (len(got), len(want))


def one(args, src, opt, work, extra_flags=()):
    name = os.path.splitext(os.path.basename(src))[0] + "." + opt
    plain, inst = os.path.join(work, name + ".plain"), os.path.join(work, name + ".ct")
    flags = ["-" + opt, "-w", "-I" + CSMITH_INC] + list(extra_flags)
    lib = os.path.join(args.build, "lib")
    cc = args.clangxx if src.endswith(".cpp") else args.clang
    r = sh([cc] + flags + [src, "-o", plain])
    if r.returncode:
        return "skip", "does not build: " + r.stderr[:200]
    plugin = os.path.join(lib, "crashtrail-pass.so")
    # IR input skips the front end, where -fplugin adds the pass; -fplugin still loads the
    # library first, so that -mllvm knows its options.
    load = ["-fplugin=" + plugin] + (["-fpass-plugin=" + plugin] if src.endswith(".ll") else [])
    if args.tables:
        load.append("-fplugin-arg-crashtrail-mode=tables")
    for extra in getattr(args, "pass_option", []):
        load += ["-mllvm", extra]
    r = sh([cc] + flags + ["-gline-tables-only"] + load + [
                                   "-mllvm", "-crashtrail-block-trace", src, args.block_trace_obj,
                                   os.path.join(lib, "libcrashtrail-rt.a"), "-o", inst])
    if r.returncode:
        return "fail", "instrumented build failed: " + r.stderr[:2000]
    try:
        p = sh([plain], timeout=args.timeout, cwd=work)
    except subprocess.TimeoutExpired:
        return "skip", "runs too long"
    dumps = os.path.join(work, name + ".dumps")
    os.makedirs(dumps)
    env = dict(os.environ, CRASHTRAIL_DIR=dumps, CRASHTRAIL_RING_KB=str(args.ring_kb),
               CT_BLOCK_TRACE=os.path.join(work, name + ".trace"))
    try:
        q = sh([inst], timeout=args.timeout * 20 + 30, cwd=work, env=env)
    except subprocess.TimeoutExpired:
        return "fail", "the instrumented build hangs"
    if (p.stdout, p.returncode) != (q.stdout, q.returncode):
        return "fail", "behaviour changed: %r/%d vs %r/%d" % (p.stdout[-200:], p.returncode,
                                                              q.stdout[-200:], q.returncode)
    files = os.listdir(dumps)
    if len(files) != 1:
        return "fail", "expected one dump, got %s (%s)" % (files, q.stderr[-500:])
    dump = os.path.join(dumps, files[0])
    ct = os.path.join(args.build, "bin", "crashtrail")
    j = sh([ct, "show", "--format=json", dump])
    b = sh([ct, "show", "--format=blocks", dump])
    if j.returncode or b.returncode:
        return "fail", "crashtrail show failed: " + j.stderr + b.stderr
    tl = json.loads(j.stdout)
    if any(t.get("history_lost") for t in tl["threads"]):
        return "fail", "rings too small for the run (raise --ring-kb)"
    bias = int(tl["modules"][0]["load_bias"], 16)
    events = read_trace(env["CT_BLOCK_TRACE"], bias)
    if events is None:
        return "fail", "the independent trace overflowed"
    bad = compare(events, b.stdout) or (args.tables and compare_tables(events, b.stdout))
    if bad:
        return "fail", bad
    if tl["warnings"]:
        return "fail", "warnings: %s" % tl["warnings"]
    if getattr(args, "windows", False):
        # The whole run, then a run whose 32 KB rings wrapped: its history starts mid-way,
        # with an empty call-stack model, where a record may start in any carried callee.
        problems = check_windows(ct, dump, tl)
        small = os.path.join(work, name + ".small")
        os.makedirs(small)
        sh([inst], timeout=args.timeout * 20 + 30, cwd=work,
           env=dict(env, CRASHTRAIL_DIR=small, CRASHTRAIL_RING_KB="32"))
        for f in os.listdir(small):
            w = sh([ct, "show", "--format=json", os.path.join(small, f)])
            if w.returncode:
                return "fail", "crashtrail show failed (32 KB rings): " + w.stderr
            problems += check_windows(ct, os.path.join(small, f), json.loads(w.stdout))
        shutil.rmtree(small, ignore_errors=True)
        if problems:
            return "fail", "--steps=N differs from the full timeline: " + "; ".join(problems[:5])
    # A passed program's dump holds its whole rings (--ring-kb each): 200 seeds at two levels
    # kept until the end filled a 50 GB disk. Failures keep theirs, for CT_KEEP.
    shutil.rmtree(dumps, ignore_errors=True)
    for f in (env["CT_BLOCK_TRACE"], inst, plain):
        if os.path.exists(f):
            os.unlink(f)
    lines = b.stdout.splitlines()
    tables = sum(l.startswith("table ") for l in lines)
    blocks = len(lines) - tables - sum(l.startswith("thread") for l in lines)
    return "ok", "%d blocks" % blocks + (", %d table entries" % tables if args.tables else "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--clang", default="clang-14")
    ap.add_argument("--clangxx", default="clang++-14")
    ap.add_argument("--seeds", type=int, default=5, help="csmith programs that must complete")
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=3.0)
    ap.add_argument("--ring-kb", type=int, default=131072)
    ap.add_argument("--windows", action="store_true",
                    help="also check windowed decoding (--steps=N) against the full timeline")
    ap.add_argument("--pass-option", action="append", default=[],
                    help="an -mllvm option for the instrumented build (e.g. -crashtrail-carry-acc)")
    ap.add_argument("--tables", action="store_true",
                    help="build in tables mode and check the last/first entries too")
    ap.add_argument("--program", action="append", default=[],
                    help="also check this program (.c, .cpp, or .ll)")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="ct-roundtrip-")
    try:
        args.block_trace_obj = os.path.join(work, "block_trace.o")
        here = os.path.dirname(os.path.abspath(__file__))
        r = sh([args.clang, "-O2", "-c", "-I" + os.path.join(args.build, "include"),
                os.path.join(here, "block_trace.c"), "-o", args.block_trace_obj])
        if r.returncode:
            sys.exit(r.stderr)
        failures, done, seed = [], 0, args.first_seed
        programs = [(p, None) for p in args.program]
        while done < args.seeds + len(args.program):
            if programs:
                src, seed_used = programs.pop(0)
            else:
                if seed > args.first_seed + args.seeds * 10:
                    failures.append(("csmith", "too many skipped seeds"))
                    break
                src, seed_used = os.path.join(work, "csmith%d.c" % seed), seed
                g = sh(["csmith", "--seed", str(seed), "--output", src])
                seed += 1
                if g.returncode:
                    continue
            counted = False
            for opt in ("O0", "O2"):
                status, msg = one(args, src, opt, work)
                label = "%s %s" % (os.path.basename(src), opt)
                if status == "skip":
                    print("skip %s: %s" % (label, msg))
                    break
                counted = True
                print("%s %s: %s" % (status, label, msg), flush=True)
                if status == "fail":
                    failures.append((label, msg))
            done += counted
        print("%d programs checked, %d failures" % (done, len(failures)))
        for label, msg in failures:
            print("FAIL %s: %s" % (label, msg))
        sys.exit(1 if failures else 0)
    finally:
        if not os.environ.get("CT_KEEP"):
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
