#!/usr/bin/env python3
"""The crash store and the other outputs, from the command line.

- ingest stores a crash once: the same dump again is found, not duplicated;
- list shows groups (signature, count) and crashes; show --db prints exactly the JSON that
  show prints from the dump; export --format=chrome writes a well-formed, properly nested trace;
- an ingest killed at random moments leaves the store consistent (PRAGMA integrity_check, and
  every stored crash complete);
- bad input is an error message and exit status 1 (never a crash): a truncated dump, random
  bytes, a dump from a newer format version, a store that is not SQLite, a store with a newer
  schema; a wrong command line is status 2.
"""
import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def make_dump(cc, src, work, name, args=(), env=None, flags=()):
    exe = os.path.join(work, name)
    r = run([cc, "-O1", "-pthread"] + list(flags) + [src, "-o", exe])
    if r.returncode:
        fail("build: " + r.stderr)
    d = os.path.join(work, name + ".dumps")
    os.makedirs(d)
    run([exe] + list(args), cwd=d, env=dict(os.environ, **(env or {})))
    files = os.listdir(d)
    if len(files) != 1:
        fail("%s made %s" % (name, files))
    return os.path.join(d, files[0])


def expect_error(cmd, status, words):
    r = run(cmd)
    if r.returncode != status or not any(w in r.stderr for w in words):
        fail("%s: status %d, stderr %r (wanted %d and one of %s)" % (cmd, r.returncode, r.stderr, status, words))
    if r.returncode < 0:
        fail("%s crashed" % cmd)


def check_chrome(path):
    d = json.load(open(path))
    stacks, last = {}, {}
    for e in d["traceEvents"]:
        if e["ph"] == "M":
            continue
        if e["ts"] < last.get(e["tid"], 0):
            fail("chrome trace time goes backwards on thread %d" % e["tid"])
        last[e["tid"]] = e["ts"]
        if e["ph"] == "B":
            stacks.setdefault(e["tid"], []).append(e["name"])
        elif e["ph"] == "E":
            if not stacks.get(e["tid"]) or stacks[e["tid"]].pop() != e["name"]:
                fail("chrome trace: unbalanced E %s" % e)
    if any(stacks.values()):
        fail("chrome trace: unclosed B events")
    if not any(e.get("cat") == "crash" for e in d["traceEvents"]):
        fail("chrome trace has no crash event")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", required=True)
    args = ap.parse_args()
    ct = os.path.join(args.build, "bin", "crashtrail")
    cc = os.path.join(args.build, "bin", "crashtrail-cc")
    work = tempfile.mkdtemp(prefix="ct-store-")
    try:
        db = os.path.join(work, "crashes.db")
        calc = [os.path.join(args.source, "examples/calc", f) for f in ("main.c", "eval.c", "lexer.c", "vars.c")]
        exe = os.path.join(work, "calc")
        if run([cc, "-O1"] + calc + ["-o", exe]).returncode:
            fail("calc build")
        dumps = []
        for i in range(2):
            d = os.path.join(work, "calc%d" % i)
            os.makedirs(d)
            run([exe], cwd=d)
            dumps.append(os.path.join(d, os.listdir(d)[0]))
        # with -g: its variables go into the store and must come back the same
        other = make_dump(cc, os.path.join(args.source, "test/e2e/programs/div_zero.c"), work, "divz",
                          flags=["-g"])
        r = run([ct, "ingest", "--db", db] + dumps + [other])
        if r.returncode or r.stdout.count("stored as crash") != 3:
            fail("ingest: %s %s" % (r.stdout, r.stderr))
        r = run([ct, "ingest", "--db", db, dumps[0]])
        if r.returncode or "already stored as crash 1" not in r.stdout:
            fail("second ingest of the same dump: %r" % r.stdout)
        con = sqlite3.connect(db)
        if con.execute("select count(*) from crashes").fetchone()[0] != 3:
            fail("duplicate crash rows")
        groups = con.execute("select signature, count from groups order by id").fetchall()
        if groups != [("SIGSEGV at factor < term < expr", 2), ("SIGFPE at average < main", 1)]:
            fail("groups: %s" % groups)
        con.close()
        r = run([ct, "list", "--db", db])
        if r.returncode or "SIGSEGV at factor < term < expr" not in r.stdout or "      2  " not in r.stdout:
            fail("list: " + r.stdout)
        r = run([ct, "list", "--db", db, "--crashes"])
        if r.returncode or r.stdout.count("\n") != 4:
            fail("list --crashes: " + r.stdout)
        for cid, dump in ((1, dumps[0]), (3, other)):
            a = run([ct, "show", "--db", db, str(cid), "--format=json"])
            b = run([ct, "show", dump, "--format=json"])
            if a.returncode or a.stdout != b.stdout:
                fail("show --db %d differs from show of its dump" % cid)
        if '"locals"' not in a.stdout:
            fail("the -g crash has no variables in the store")
        # --steps=N: the store keeps each thread's newest N steps, numbered as in the dump.
        wdb = os.path.join(work, "window.db")
        r = run([ct, "ingest", "--db", wdb, "--steps=5", dumps[0]])
        a = run([ct, "show", "--db", wdb, "1", "--format=json"])
        b = run([ct, "show", dumps[0], "--format=json", "--steps=5"])
        if r.returncode or a.returncode or a.stdout != b.stdout:
            fail("ingest --steps=5 differs from show --steps=5 of its dump")
        kept = json.loads(a.stdout)["threads"][0]
        if len(kept["steps"]) != 5 or kept["steps"][0]["seq"] != kept.get("steps_not_kept"):
            fail("ingest --steps=5 kept %d steps from seq %s" % (len(kept["steps"]), kept["steps"][0]))
        # Tables mode with two threads: the tables' resolution (1 ms once a second thread records)
        # is stored with the crash and comes back with its last/first-executed lines.
        tdump = make_dump(cc, os.path.join(args.source, "test/runtime/programs/tables_threads.c"),
                          work, "tabthr", args=("2", "20"), flags=["-fplugin-arg-crashtrail-mode=tables"])
        tdb = os.path.join(work, "tables.db")
        r = run([ct, "ingest", "--db", tdb, tdump])
        a = run([ct, "show", "--db", tdb, "1", "--format=json"])
        b = run([ct, "show", tdump, "--format=json"])
        if r.returncode or a.returncode or a.stdout != b.stdout:
            fail("tables crash: show --db differs from show of its dump")
        j = json.loads(a.stdout)
        if j.get("table_resolution_ns") != 1 << 20 or not j["last_executed"]:
            fail("tables crash: resolution %s, %d last-executed lines" % (
                j.get("table_resolution_ns"), len(j["last_executed"])))
        r = run([ct, "export", "--format=chrome", dumps[0], "-o", os.path.join(work, "t.json")])
        if r.returncode:
            fail("export: " + r.stderr)
        check_chrome(os.path.join(work, "t.json"))
        r = run([ct, "export", "--db", db, "2", "-o", os.path.join(work, "t2.json")])
        if r.returncode:
            fail("export --db: " + r.stderr)
        check_chrome(os.path.join(work, "t2.json"))

        # An ingest killed at random moments: the store stays consistent, crashes are whole.
        big = make_dump(cc, os.path.join(args.source, "test/viewer/programs/million.c"), work, "million",
                        ["100000"], {"CRASHTRAIL_RING_KB": "65536"})
        rng = random.Random(7)
        killed = 0
        for i in range(6):
            kdb = os.path.join(work, "killed.db")
            p = subprocess.Popen([ct, "ingest", "--db", kdb, big], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0.05, 1.5))
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
                killed += 1
            p.wait()
            if not os.path.exists(kdb):
                continue
            con = sqlite3.connect(kdb)
            if con.execute("pragma integrity_check").fetchone()[0] != "ok":
                fail("store corrupt after a killed ingest")
            n = con.execute("select count(*) from crashes").fetchone()[0]
            steps = con.execute("select count(*) from steps").fetchone()[0]
            con.close()
            if n > 1 or (n == 0) != (steps == 0):
                fail("a killed ingest left %d crashes and %d steps" % (n, steps))
        if killed == 0:
            fail("no ingest was killed mid-way (the test measures nothing)")
        r = run([ct, "ingest", "--db", os.path.join(work, "killed.db"), big])
        if r.returncode:
            fail("ingest after kills: " + r.stderr)

        # Bad input.
        raw = open(dumps[0], "rb").read()
        for name, data in (("truncated", raw[: len(raw) // 2]), ("random", bytes(rng.randrange(256) for _ in range(5000))),
                           ("newer", raw[:8] + (99).to_bytes(4, "little") + raw[12:]), ("empty", b"")):
            p = os.path.join(work, name + ".ctd")
            open(p, "wb").write(data)
            expect_error([ct, "show", p], 1, ["truncated", "not a crashtrail dump", "newer", "corrupt"])
            expect_error([ct, "ingest", "--db", db, p], 1, ["truncated", "not a crashtrail dump", "newer", "corrupt"])
        notdb = os.path.join(work, "notdb.db")
        open(notdb, "w").write("this is not a database\n" * 100)
        expect_error([ct, "list", "--db", notdb], 1, ["not a database", "not a crashtrail store"])
        newer = os.path.join(work, "newer.db")
        shutil.copy(db, newer)
        con = sqlite3.connect(newer)
        con.execute("pragma user_version = 99")
        con.commit()
        con.close()
        expect_error([ct, "list", "--db", newer], 1, ["newer than this crashtrail"])
        # A version-2 store (before the variables) is migrated in place, its crashes kept.
        older = os.path.join(work, "older.db")
        shutil.copy(db, older)
        con = sqlite3.connect(older)
        con.executescript("DROP TABLE locals; ALTER TABLE threads DROP COLUMN locals_function;"
                          "ALTER TABLE threads DROP COLUMN locals_file;"
                          "ALTER TABLE threads DROP COLUMN locals_line;"
                          "ALTER TABLE crashes DROP COLUMN table_resolution_ns;"
                          "ALTER TABLE frames DROP COLUMN scanned; PRAGMA user_version = 2;")
        con.close()
        r = run([ct, "show", "--db", older, "3", "--format=json"])
        if r.returncode or '"SIGFPE"' not in r.stdout or '"locals"' in r.stdout:
            fail("show of a migrated version-2 store: %s %s" % (r.stdout[:200], r.stderr))
        con = sqlite3.connect(older)
        if con.execute("pragma user_version").fetchone()[0] != 5:
            fail("the version-2 store was not migrated to 5")
        con.close()
        r = run([ct, "ingest", "--db", older, other])
        if r.returncode or "already stored as crash 3" not in r.stdout:
            fail("ingest into the migrated store: %r %r" % (r.stdout, r.stderr))
        expect_error([ct, "show", "--db", db, "77"], 1, ["no crash 77"])
        expect_error([ct, "show", "--db", db, "x1"], 1, ["crash number"])
        expect_error([ct, "show", "--bogus", dumps[0]], 2, ["unknown"])
        expect_error([ct, "frobnicate"], 2, ["unknown command"])
        expect_error([ct, "export", "--format=svg", dumps[0]], 2, ["unknown export format"])
        print("ok: store, outputs and bad input")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
