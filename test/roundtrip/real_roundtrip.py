#!/usr/bin/env python3
"""Round trip on real programs, whole runs block for block: SQLite (the Debian amalgamation)
running the fidelity tests' workload reduced tenfold; the Lua 5.4 interpreter (Debian's
source) running the fidelity tests' workload and Inputs/unwind.lua (every way Lua leaves C
frames by longjmp: errors in coroutines, parser and metamethod errors, sort comparators,
C stack overflows; and its C-to-Lua callbacks); or SQLite as an instrumented shared library
under the benchmark's 4-thread driver (sqlite-threads: five threads, two modules' rings).

Every block a run executes is traced independently (-crashtrail-block-trace, block_trace.c) and
must equal, thread by thread and block for block, what `crashtrail show --format=blocks`
decodes from the dump written at exit; the decoding must warn of nothing, also windowed
(--steps). Lua and sqlite-threads are also built plain: each run's output and exit status must
be the plain build's. With --tables the build records
the last/first tables too, and every block's entries must match the trace's times. With
--pass-option the build uses that pass option too: with -crashtrail-carry-acc this is what
found where a carried record may start and a flush whose "holds bits" test misread a record
started elsewhere (docs/fidelity.md, AE).

  real_roundtrip.py --program sqlite|lua|sqlite-threads --build BUILD --work DIR [--sources DIR]
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


# Each thread's ring in each module, in KB: SQLite's threads write ten rings.
RING_KB = {"sqlite": "1048576", "lua": "1048576", "sqlite-threads": "16384"}


def split_trace(trace_path, biases, work):
    """The trace's events split by thread into files work/thread.TID, one "module fn block" per
    line with fn module-relative as the decoder prints it: {tid: path}, or a string saying why
    not."""
    files, out = {}, {}
    try:
        with open(trace_path) as tr:
            head = tr.readline()
            if not head.startswith("overflow 0"):
                return "the independent trace overflowed (%s)" % head.strip()
            for line in tr:
                addr, block, _, tid, mod, _ = line.split()
                if mod not in biases:
                    return "traced block in %s, a module the dump does not list" % mod
                if tid not in files:
                    out[tid] = os.path.join(work, "thread." + tid)
                    files[tid] = open(out[tid], "w")
                files[tid].write("%s %#x %s\n" % (mod, int(addr, 16) - biases[mod], block))
    finally:
        for f in files.values():
            f.close()
    return out


def first_difference(trace_path, decoded, biases, work):
    """None if each thread's traced blocks equal its decoded ones (`decoded`: the lines of
    `crashtrail show --format=blocks`, streamed), else where not."""
    traced = split_trace(trace_path, biases, work)
    if isinstance(traced, str):
        return traced
    seen, tr, tid, i, total = set(), None, None, 0, 0

    def thread_end():
        rest = tr.readline() if tr else ""
        if tr:
            tr.close()
        return "thread %s: traced and decoded lengths differ at block %d" % (tid, i) if rest \
            else None

    for line in decoded:
        f = line.split()
        if f[0] == "thread":
            bad = thread_end()
            if bad:
                return bad
            tid, i = f[1], 0
            if tid not in traced or tid in seen:
                return "thread %s decoded, not traced (traced: %s)" % (tid, sorted(traced))
            seen.add(tid)
            tr = open(traced[tid])
        elif f[0] != "table":
            t = tr.readline().rstrip("\n") if tr else ""
            d = "%s %#x %s" % (f[0], int(f[1], 16), f[2])
            if t != d:
                return "thread %s: block %d differs: traced %s, decoded %s" % (
                    tid, i, t or "nothing", d)
            i += 1
            total += 1
    bad = thread_end()
    if bad:
        return bad
    if seen != set(traced):
        return "threads traced %s, decoded %s" % (sorted(traced), sorted(seen))
    for path in traced.values():
        os.unlink(path)
    print("identical: %d blocks in %d threads" % (total, len(traced)))
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


def build_sqlite_threads(args, env, opt, work, bt):
    """SQLite as an instrumented shared library under the benchmark's 4-thread driver: each
    thread's records go to two modules' rings."""
    amalg = fidelity.sqlite_amalgamation(env)
    drv = os.path.join(REPO, "test", "bench", "workloads", "sqlite_threads.c")
    lib = os.path.join(work, "libsqlite3_ct.so")
    cc = instrumented_cc(args, opt)
    fidelity.run(cc + ["-fPIC", "-shared", "-DSQLITE_THREADSAFE=1", "-I" + amalg,
                       os.path.join(amalg, "sqlite3.c"), "-o", lib, "-lpthread", "-ldl", "-lm"])
    exe = os.path.join(work, "sqlite_threads")
    # the library's trace calls resolve to the executable's block_trace.o
    fidelity.run(cc + ["-I" + amalg, drv, bt, "-o", exe, "-Wl,--export-dynamic-symbol="
                       "__crashtrail_test_block", lib, "-Wl,-rpath," + work, "-lpthread"])
    plain = os.path.join(work, "sqlite_threads.plain")
    fidelity.run(["clang-14", "-" + opt, "-w", "-DSQLITE_THREADSAFE=1", "-I" + amalg,
                  os.path.join(amalg, "sqlite3.c"), drv, "-o", plain, "-lpthread", "-ldl", "-lm"])
    return [("4threads", [exe, "4", "40"], [plain, "4", "40"])]


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


def timeline(ct, dump, extra, path):
    """`crashtrail show --format=json`: the whole timeline when windowed (extra), else (every
    step of millions: gigabytes) only its modules and warnings, which end it."""
    with open(path, "w") as out:
        subprocess.run([ct, "show", "--format=json"] + extra + [dump], stdout=out, check=True)
    try:
        if extra:
            with open(path) as fh:
                return json.load(fh)
        with open(path, "rb") as fh:
            fh.seek(max(0, os.path.getsize(path) - (1 << 22)))
            tail = fh.read().decode()
        return json.loads("{" + tail[tail.rindex('"modules":['):])
    finally:
        os.unlink(path)


def check_run(args, work, name, argv, plain_argv):
    """One run: None if it round-trips, else what went wrong."""
    dumps = os.path.join(work, name + ".dumps")
    shutil.rmtree(dumps, ignore_errors=True)
    os.makedirs(dumps)
    trace = os.path.join(work, name + ".trace")
    r = subprocess.run(argv, capture_output=True, text=True, cwd=work, timeout=600,
                       env=dict(os.environ, CRASHTRAIL_DIR=dumps, CRASHTRAIL_RING_KB=RING_KB[args.program],
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
    bad = None
    for extra in ([], ["--steps=200"]):
        tl = timeline(ct, dump, extra, os.path.join(work, name + ".json"))
        if tl["warnings"]:
            bad = (bad + "; " if bad else "") + "warnings%s: %s" % (
                " " + extra[0] if extra else "", "; ".join(tl["warnings"][:5]))
    if any(t.get("history_lost") for t in tl["threads"]):
        return "rings too small for the run"
    biases = {m["name"]: int(m["load_bias"], 16) for m in tl["modules"]}
    blocks_cmd = [ct, "show", "--format=blocks", dump]
    if args.tables:  # the table lines are checked too: kept (one module, one thread)
        blocks = fidelity.run(blocks_cmd).stdout
        diff = first_difference(trace, blocks.splitlines(), biases, work)
    else:
        with subprocess.Popen(blocks_cmd, stdout=subprocess.PIPE, text=True) as show:
            diff = first_difference(trace, show.stdout, biases, work)
            show.stdout.close()  # a difference leaves the rest unread
        if not diff and show.returncode:
            diff = "crashtrail show --format=blocks failed (%d)" % show.returncode
    bad = diff + ("; " + bad if bad else "") if diff else bad
    if not bad and args.tables:
        bad = compare_tables(read_trace(trace, int(tl["modules"][0]["load_bias"], 16)), blocks)
    if bad:
        return bad
    shutil.rmtree(dumps, ignore_errors=True)
    os.unlink(trace)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--program", choices=["sqlite", "lua", "sqlite-threads"], default="sqlite")
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
        build = {"sqlite": build_sqlite, "lua": build_lua,
                 "sqlite-threads": build_sqlite_threads}[args.program]
        for name, argv, plain_argv in build(args, env, opt, owork, bt):
            bad = check_run(args, owork, name, argv, plain_argv)
            print("%s -%s %s: %s" % (args.program, opt, name, "FAIL: " + bad if bad else "ok"))
            failed += bad is not None
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
