#!/usr/bin/env python3
"""Corrupted dumps: the post-mortem reads them or refuses them, and never crashes or hangs.

A dump is written by a process that has just crashed, often of memory corruption: its rings,
tables and module list may hold anything. This test crashes two real programs (the calculator
example, and a two-thread program with -g so that variables are read too), then decodes a few
hundred copies of their dumps with bytes changed (seeded, so a failure can be replayed with
--seed and --case): bits flipped, a range overwritten with random bytes or zeros, 64-bit words
set to 0, -1 or random values, the file cut short. For each copy `crashtrail show` (text, and
JSON every fourth), and for every eighth copy each of `ingest` (into one store), `report`
(HTML) and `export` (Perfetto), must end with status 0, or status 1 and a message on stderr,
within the time limit, with no sanitizer report (run it with an ASan/UBSan build of the
post-mortem to look for those); the store must pass SQLite's integrity check and list its
crashes afterwards.

    test_corrupt_dumps.py --build BUILD --source SOURCE [--cases N] [--seed S] [--case K]

Exit status 0 pass, 1 fail (the failing copy is kept, its path printed).
"""
import argparse
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile

TIMEOUT = 30


def fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)


def run(cmd, timeout=TIMEOUT, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout, **kw)


def crash(cc, sources, work, name, flags=()):
    exe = os.path.join(work, name)
    r = run([cc, "-O1", "-pthread"] + list(flags) + sources + ["-o", exe], timeout=300)
    if r.returncode:
        fail("build of %s: %s" % (name, r.stderr))
    d = os.path.join(work, name + ".dumps")
    os.makedirs(d)
    run([exe], cwd=d)
    files = os.listdir(d)
    if len(files) != 1:
        fail("%s left %s, expected one dump" % (name, files))
    return os.path.join(d, files[0])


def mutate(raw, rng):
    d = bytearray(raw)
    kind = rng.choice(["flip", "range", "zeros", "words", "cut"])
    if kind == "flip":
        for _ in range(rng.randint(1, 24)):
            d[rng.randrange(len(d))] ^= 1 << rng.randrange(8)
    elif kind == "range":
        a, n = rng.randrange(len(d)), rng.randint(1, 4096)
        d[a:a + n] = bytes(rng.randrange(256) for _ in range(len(d[a:a + n])))
    elif kind == "zeros":
        a, n = rng.randrange(len(d)), rng.randint(1, 65536)
        d[a:a + n] = bytes(len(d[a:a + n]))
    elif kind == "words":
        # header and section tables first: the fields a reader trusts for sizes and offsets
        top = min(len(d) - 8, 4096) if rng.random() < 0.5 else len(d) - 8
        for _ in range(rng.randint(1, 6)):
            a = rng.randrange(0, top) & ~7
            d[a:a + 8] = rng.choice([b"\xff" * 8, bytes(8), rng.getrandbits(64).to_bytes(8, "little"),
                                     (0x7fffffff).to_bytes(8, "little"),
                                     rng.randrange(len(d) * 2).to_bytes(8, "little")])
    else:
        del d[rng.randrange(64, len(d)):]
    return kind, bytes(d)


def judge(r, what, path):
    if r is None:
        fail("%s did not finish in %d s: %s" % (what, TIMEOUT, path))
    if r.returncode < 0:
        fail("%s died of signal %d: %s\n%s" % (what, -r.returncode, path, r.stderr[-2000:]))
    if r.returncode not in (0, 1):
        fail("%s ended with status %d: %s\n%s" % (what, r.returncode, path, r.stderr[-2000:]))
    if r.returncode == 1 and "crashtrail" not in r.stderr:
        fail("%s refused the dump without saying why: %s\n%r" % (what, path, r.stderr[-500:]))
    if "Sanitizer" in r.stderr or "runtime error:" in r.stderr:
        fail("%s: sanitizer report on %s\n%s" % (what, path, r.stderr[-3000:]))
    return r.returncode


def timed(cmd):
    try:
        return run(cmd)
    except subprocess.TimeoutExpired:
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--cases", type=int, default=240)
    ap.add_argument("--seed", type=int, default=20261127)
    ap.add_argument("--case", type=int, help="run only this case (replay)")
    args = ap.parse_args()
    ct = os.path.join(args.build, "bin", "crashtrail")
    cc = os.path.join(args.build, "bin", "crashtrail-cc")
    work = tempfile.mkdtemp(prefix="ct-corrupt-")
    keep = False
    try:
        calc = [os.path.join(args.source, "examples", "calc", f)
                for f in ("main.c", "eval.c", "lexer.c", "vars.c")]
        dumps = [crash(cc, calc, work, "calc"),
                 crash(cc, [os.path.join(args.source, "test", "e2e", "programs", "thread_crash.c")],
                       work, "threads", flags=["-g"])]
        raws = [open(d, "rb").read() for d in dumps]
        for d in dumps:
            if judge(timed([ct, "show", d]), "show of the intact dump", d) != 0:
                fail("the intact dump %s does not decode" % d)
        db = os.path.join(work, "store.db")
        counts = {0: 0, 1: 0}
        kinds = {}
        cases = [args.case] if args.case is not None else range(args.cases)
        for i in cases:
            rng = random.Random(args.seed * 1000003 + i)
            src = i % len(raws)
            kind, data = mutate(raws[src], rng)
            kinds[kind] = kinds.get(kind, 0) + 1
            # the same directory as the original: the module paths it names are still there
            path = os.path.join(os.path.dirname(dumps[src]), "case%d.ctd" % i)
            with open(path, "wb") as f:
                f.write(data)
            keep = True
            counts[judge(timed([ct, "show", "--color=never", "--steps=300", path]),
                         "show (case %d, %s)" % (i, kind), path)] += 1
            if i % 4 == 0:
                judge(timed([ct, "show", "--format=json", path]), "show --format=json (case %d)" % i, path)
            if i % 8 == 0:
                judge(timed([ct, "ingest", "--db", db, path]), "ingest (case %d)" % i, path)
            if i % 8 == 1:
                judge(timed([ct, "report", path, "-o", path + ".html"]), "report (case %d)" % i, path)
            if i % 8 == 2:
                judge(timed([ct, "export", path, "-o", path + ".json"]), "export (case %d)" % i, path)
            for out in (path + ".html", path + ".json"):
                if os.path.exists(out):
                    os.unlink(out)
            os.unlink(path)
            keep = False
        if os.path.exists(db):
            con = sqlite3.connect(db)
            ok = con.execute("pragma integrity_check").fetchone()[0]
            con.close()
            if ok != "ok":
                fail("the store after the ingests: %s" % ok)
            judge(timed([ct, "list", "--db", db, "--crashes"]), "list of the store", db)
        print("ok: %d corrupted copies (%s): %d decoded, %d refused with a message; none crashed "
              "or hung" % (len(cases), ", ".join("%s %d" % kv for kv in sorted(kinds.items())),
                          counts[0], counts[1]))
    finally:
        if keep:
            print("kept " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
