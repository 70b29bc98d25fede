#!/usr/bin/env python3
"""Round trip on real programs, whole runs block for block: SQLite (the Debian amalgamation)
running the fidelity tests' workload reduced tenfold; the Lua 5.4 interpreter (Debian's
source) running the fidelity tests' workload and Inputs/unwind.lua (every way Lua leaves C
frames by longjmp: errors in coroutines, parser and metamethod errors, sort comparators,
C stack overflows; and its C-to-Lua callbacks); SQLite as an instrumented shared library
under the benchmark's 4-thread driver (sqlite-threads: five threads, two modules' rings); or
jsoncpp (C++) as an instrumented shared library under its unit tests and its reader/writer
runner (exceptions thrown in one module and caught in the other, static initialisers); or GNU
awk built from Debian's source as its users build it (configure, make, its extensions), whose
own test suite is the workload: every process of `make check` that ran gawk leaves a trace and
a dump, and each pair must agree (processes whose rings wrapped are counted, not compared); or
xz the same way, liblzma an instrumented shared library, its `make check` and then its
multi-threaded encoder and decoder (four threads); or GNU sed, its scripts (three under
valgrind) and gnulib's unit tests; or GNU bash's suite. A suite's pairs are compared while it
runs.

Every block a run executes is traced independently (-crashtrail-block-trace, block_trace.c) and
must equal, thread by thread and block for block, what `crashtrail show --format=blocks`
decodes from the dump written at exit; the decoding must warn of nothing, also windowed
(--steps). Lua and sqlite-threads are also built plain: each run's output and exit status must
be the plain build's. With --tables the build records
the last/first tables too, and every block's entries must match the trace's times. With
--pass-option the build uses that pass option too: with -crashtrail-carry-acc this is what
found where a carried record may start and a flush whose "holds bits" test misread a record
started elsewhere (docs/fidelity.md, AE).

  real_roundtrip.py --program sqlite|lua|sqlite-threads|jsoncpp|gawk|xz|sed|bash --build BUILD --work DIR
                    [--sources DIR]
                    [--opt O0|O2]... [--tables] [--pass-option OPT]...
"""
import argparse
import collections
import concurrent.futures
import glob
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "test", "fidelity"))
import fidelity  # noqa: E402  (its Debian source fetching and amalgamation build)

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
RING_KB = {"sqlite": "1048576", "lua": "1048576", "sqlite-threads": "16384",
           "jsoncpp": "1048576", "gawk": "4096", "xz": "1024",
           "sed": "1024", "bash": "1024"}
# Programs whose workload is their own test suite (AUTOTOOLS_SUITES), many processes
# (check_suite): at least SUITE_MIN_COMPARED of them compared, and the suite stopped while the
# pairs not yet compared take more than SUITE_BACKLOG bytes.
SUITE_MIN_COMPARED = 100
SUITE_BACKLOG = 2 << 30
# Events a suite's process traces at most: more than its rings hold (a longer run's trace is
# left out, its rings wrapped; if they did not, it fails).
SUITE_TRACE_MAX = 8 << 20


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


def first_difference(trace_path, decoded, biases, work, quiet=False):
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
    if not quiet:
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


def build_jsoncpp(args, env, opt, work, bt):
    """jsoncpp 1.9.5 (C++) as an instrumented shared library under its own unit tests
    (test_lib_json: some 150 tests, many of which make the library throw and catch what it
    threw) and its reader/writer runner on some of its test data, documents that parse and
    documents that do not: exceptions thrown in one module and caught in the other, their
    frames' paths in both modules' rings; the library's static initialisers run before the
    program's."""
    root = fidelity.source_root(env, "libjsoncpp", "libjsoncpp-1.*")
    inc = "-I" + os.path.join(root, "include")
    lib_units = sorted(glob.glob(os.path.join(root, "src", "lib_json", "*.cpp")))
    test_units = [os.path.join(root, "src", "test_lib_json", u)
                  for u in ("jsontest.cpp", "fuzz.cpp", "main.cpp")]
    runner = [os.path.join(root, "src", "jsontestrunner", "main.cpp")]
    exes = {}
    for kind, cxx in (("plain", ["clang++-14", "-" + opt, "-w"]),
                      ("ct", [os.path.join(args.build, "bin", "crashtrail-c++")] +
                       instrumented_cc(args, opt)[1:])):
        d = os.path.join(work, kind)
        os.makedirs(d, exist_ok=True)
        lib = os.path.join(d, "libjsoncpp.so")
        fidelity.run(cxx + ["-fPIC", "-shared", inc] + lib_units + ["-o", lib])
        # the library's trace calls resolve to the executable's block_trace.o
        extra = [bt, "-Wl,--export-dynamic-symbol=__crashtrail_test_block"] if kind == "ct" else []
        for name, units in (("jsoncpp_test", test_units), ("jsontestrunner", runner)):
            exes[kind, name] = os.path.join(d, name)
            fidelity.run(cxx + [inc] + units + extra + [
                "-o", exes[kind, name], lib, "-Wl,-rpath," + d])
    # The runner writes its results next to its input: copies of the inputs, in the work
    # directory. fail_test_stack_limit nests deeper than the reader allows: a throw from the
    # bottom of its recursion, caught in main.
    data = os.path.join(work, "data")
    os.makedirs(data, exist_ok=True)
    runs = [("unit", "jsoncpp_test", [])]
    for name in ("legacy_test_complex_01", "legacy_test_large_01", "fail_test_stack_limit",
                 "fail_test_array_02", "fail_invalid_quote"):
        shutil.copy(os.path.join(root, "test", "data", name + ".json"), data)
        runs.append((name, "jsontestrunner", [os.path.join(data, name + ".json")]))
    for name in ("fail1", "fail18", "fail33"):
        shutil.copy(os.path.join(root, "test", "jsonchecker", name + ".json"), data)
        runs.append((name, "jsontestrunner",
                     ["--json-checker", os.path.join(data, name + ".json")]))
    return [(name, [exes["ct", exe]] + a, [exes["plain", exe]] + a) for name, exe, a in runs]


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


class BinaryGone(Exception):
    """The post-mortem cannot open a module's binary: a process of a test suite ran a copy of
    the program that the suite deleted afterwards (bash's posixexp.tests)."""


def timeline(ct, dump, extra, path):
    """`crashtrail show --format=json`: the whole timeline when windowed (extra), else (every
    step of millions: gigabytes) only its modules and warnings, which end it."""
    with open(path, "w") as out:
        r = subprocess.run([ct, "show", "--format=json"] + extra + [dump], stdout=out,
                           stderr=subprocess.PIPE, text=True)
    if r.returncode:
        os.unlink(path)
        if "cannot open the binary" in r.stderr:
            raise BinaryGone(r.stderr.strip())
        sys.stderr.write(r.stderr)
        raise subprocess.CalledProcessError(r.returncode, r.args, stderr=r.stderr)
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
    if (r.returncode and not plain_argv) or len(files) != 1:  # else: the plain build's status
        return "exit %d, dumps %s\n%s" % (r.returncode, files, r.stderr[-2000:])
    if plain_argv:
        p = subprocess.run(plain_argv, capture_output=True, text=True, cwd=work, timeout=600)
        if (p.stdout, p.returncode) != (r.stdout, r.returncode):
            return "behaviour changed: %r/%d vs %r/%d" % (p.stdout[-300:], p.returncode,
                                                          r.stdout[-300:], r.returncode)
    bad = check_dump(args, work, name, trace, os.path.join(dumps, files[0]))
    if bad:
        return bad
    shutil.rmtree(dumps, ignore_errors=True)
    os.unlink(trace)
    return None


# What check_dump says of a run that cannot be compared: its rings wrapped, or other threads
# were still running when the process exited and dumped (block_trace.c waits 2 s for them).
WRAPPED = "rings too small for the run"
UNSETTLED = "threads still running at the dump"
GONE = "a module's binary was deleted after the run"
# Built with deferred calls, a thread other than the dumping one that waits with callers
# suspended in deferred calls has their paths since their last records in registers: the dump
# holds them when the runtime stopped the thread for it (CRASHTRAIL_CAPTURE_SIGNAL); one that
# did not stop in time loses them, and the post-mortem says so (docs/design.md, "Deferred calls").
IN_REGISTERS = "callers' paths in another thread's registers at the dump"
NOT_COMPARED = (WRAPPED, UNSETTLED, GONE, IN_REGISTERS)


def check_dump(args, work, name, trace, dump, quiet=False):
    """A run's trace against its dump: None if they agree, else what went wrong."""
    ct = os.path.join(args.build, "bin", "crashtrail")
    bad, in_registers = None, []
    for extra in ([], ["--steps=200"]):
        try:
            tl = timeline(ct, dump, extra, os.path.join(work, name + ".json"))
        except BinaryGone:
            return GONE
        in_registers += [w for w in tl["warnings"] if "it was not stopped for the dump" in w]
        warnings = [w for w in tl["warnings"] if w not in in_registers]
        if warnings:
            bad = (bad + "; " if bad else "") + "warnings%s: %s" % (
                " " + extra[0] if extra else "", "; ".join(warnings[:5]))
    if any(t.get("history_lost") for t in tl["threads"]):
        return WRAPPED
    if in_registers and not bad:
        return IN_REGISTERS
    with open(trace) as tr:
        if tr.readline().startswith("unsettled"):
            return UNSETTLED
    biases = {m["name"]: int(m["load_bias"], 16) for m in tl["modules"]}
    blocks_cmd = [ct, "show", "--format=blocks", dump]
    if args.tables:  # the table lines are checked too: kept (one thread)
        blocks = fidelity.run(blocks_cmd).stdout
        diff = first_difference(trace, blocks.splitlines(), biases, work, quiet)
    else:
        with subprocess.Popen(blocks_cmd, stdout=subprocess.PIPE, text=True) as show:
            diff = first_difference(trace, show.stdout, biases, work, quiet)
            show.stdout.close()  # a difference leaves the rest unread
        if not diff and show.returncode:
            diff = "crashtrail show --format=blocks failed (%d)" % show.returncode
    bad = diff + ("; " + bad if bad else "") if diff else bad
    if not bad and args.tables:
        bad = compare_module_tables(trace, blocks, biases)
    return bad


def compare_module_tables(trace_path, blocks_out, biases):
    """Each block's table entry against the coarse times of its first and last traced event,
    blocks named by module, function and index, the function at its link-time address as the
    decoder prints it (its address less the module's load bias). With several threads, each
    keeps its own coarse time and a block's entry is a plain store: the entry holds the last
    time of the thread whose store came last, and the first time of a thread that ran it first
    (two threads running one block at once race for both, and the trace's order of their
    events need not be that of their stores), so it must be one of the threads' last and first
    times. None if they agree."""
    seen = {}  # block -> {thread: (first, last)}
    with open(trace_path) as tr:
        tr.readline()
        for line in tr:
            addr, block, now, tid, mod, _ = line.split()
            per_thread = seen.setdefault((mod, int(addr, 16) - biases[mod], int(block)), {})
            first_last = per_thread.get(tid)
            per_thread[tid] = (first_last[0] if first_last else int(now), int(now))
    entries = 0
    for line in blocks_out.splitlines():
        if not line.startswith("table "):
            continue
        _, mod, fn, block, last, first = line.split()
        key = (mod, int(fn, 16), int(block))
        times = seen.get(key, {None: (0, 0)}).values()
        if int(last) not in {l for _, l in times} or int(first) not in {f for f, _ in times}:
            return "table entry of block %s: last %s, first %s; traced (first, last) by thread %s" % (
                key, last, first, sorted(times))
        entries += 1
    return None if entries else "no table entries in the dump"


# Autotools packages whose own test suite is the workload: the Debian source package, its
# directory's pattern, configure's options, what must have been built, the suite's command,
# whether it must pass (gawk's fails three locale tests on a machine without those locales,
# sed's a test of permissions when run as root, as plain builds do: test/packages compares the
# suites' results with a plain build's), and compiler options besides the trace's.
AUTOTOOLS_SUITES = {
    "gawk": dict(source="gawk", pattern="gawk-5.*", configure=["--disable-nls"],
                 built=["gawk", "extension/.libs/*.so"], suite=["make", "-C", "test", "check"],
                 must_pass=False, cflags=[]),
    # the suite runs xz single-threaded: then liblzma's multi-threaded encoder and decoder, four
    # threads on eight blocks
    "xz": dict(source="xz-utils", pattern="xz-utils-5.*", configure=["--disable-nls", "--disable-doc"],
               built=["src/xz/xz", "src/liblzma/.libs/liblzma.so"],
               suite=["sh", "-ec", "make -C tests check; head -c 60000 tests/compress_generated_text"
                      " > mt.in; src/xz/xz -T4 -1 --block-size=8KiB -c mt.in > mt.xz;"
                      " src/xz/xz -T4 -dc mt.xz | cmp - mt.in"],
               must_pass=True, cflags=[]),
    # sed's scripts and gnulib's unit tests (c-stack's stack overflow on an alternate signal
    # stack, sigsegv, regex); DWARF 4: three of its tests run sed under valgrind, whose 3.19
    # cannot read clang 14's DWARF 5
    "sed": dict(source="sed", pattern="sed-4.*", configure=["--disable-nls"], built=["sed/sed"],
                suite=["make", "check"], must_pass=False, cflags=["-gdwarf-4"]),
    # bash's tests run it thousands of times (subshells, forks without exec: no trace of their
    # own); posixexp.tests runs a copy it deletes afterwards
    "bash": dict(source="bash", pattern="bash-5.*", configure=["--without-bash-malloc"],
                 built=["bash"], suite=["make", "check"], must_pass=False, cflags=[]),
}


def build_autotools_suite(args, env, opt, work, bt):
    """A package from Debian's source, configured and built as its users build it (with its
    shared libraries or extensions), every block traced: its own test suite is the workload.
    GNU awk 5.2, its extensions dynamically loaded; xz 5.4, liblzma a shared library; GNU sed
    4.9 and gnulib's tests; GNU bash 5.2. Every process leaves a dump of its rings' whole size (xz's suite,
    with 4 MB rings, 60 GB of them): check_suite compares them while the suite runs."""
    pkg = AUTOTOOLS_SUITES[args.program]
    src = fidelity.source_root(env, pkg["source"], pkg["pattern"])
    tree = os.path.join(work, args.program)
    # The trace as a shared library: the executables, the libraries and configure's test
    # programs all call it, and one copy keeps one buffer.
    lib = os.path.join(work, "libctbt.so")
    fidelity.run(["clang-14", "-O2", "-fPIC", "-shared", "-I" + os.path.join(args.build, "include"),
                  os.path.join(HERE, "block_trace.c"), "-o", lib])
    if not os.path.exists(os.path.join(tree, ".built")):
        # in a copy of the sources (cp -a: the autotools outputs stay newer than their inputs)
        shutil.rmtree(tree, ignore_errors=True)
        fidelity.run(["cp", "-a", src, tree])
        cc = instrumented_cc(args, opt)
        # the compiler links the trace's library into everything it links, also what a test
        # suite compiles with $(CC) alone (gawk's makepmafile)
        wrapper = os.path.join(work, "cc-ctbt")
        with open(wrapper, "w") as w:
            w.write('#!/bin/sh\nfor a in "$@"; do case "$a" in -c|-S|-E|-M|-MM) exec %s "$@";; '
                    'esac; done\nexec %s "$@" -L%s -lctbt -Wl,-rpath,%s\n'
                    % ((" ".join(cc[:1] + cc[2:]),) * 2 + (work, work)))
        os.chmod(wrapper, 0o755)
        fidelity.run(["./configure"] + pkg["configure"] + [
            "CC=" + wrapper, "CFLAGS=" + " ".join([cc[1], "-gline-tables-only"] + pkg["cflags"])],
            cwd=tree)
        # -k: Debian's gawk source lacks the manual's texinfo input; what `built` names must be
        subprocess.run(["make", "-k", "-j%d" % env.jobs], cwd=tree, capture_output=True)
        missing = [b for b in pkg["built"] if not glob.glob(os.path.join(tree, b))]
        if missing:
            raise RuntimeError("%s failed to build in %s: %s" % (args.program, tree, missing))
        open(os.path.join(tree, ".built"), "w").close()
    return [("suite", pkg["suite"], tree)]


def check_suite(args, work, name, argv, cwd):
    """Every process of a test suite that ran instrumented code: its trace against its dump,
    compared while the suite runs and deleted once they agree, so that the disk holds only the
    pairs not yet compared (a suite that runs a multi-threaded program thousands of times
    writes more dumps than a disk holds). block_trace.c names each trace after its process's
    dump and renames it into place once written: a trace present is a pair ready. The suite is
    stopped (SIGSTOP to its process group) while the pairs waiting take more than
    SUITE_BACKLOG bytes. Pairs that differ are kept in NAME.failed. None if all agree, else
    what went wrong."""
    traces, dumps, failed_dir = (os.path.join(work, name + s) for s in (".traces", ".dumps", ".failed"))
    for d in (traces, dumps, failed_dir):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    log = open(os.path.join(work, name + ".log"), "w")
    suite = subprocess.Popen(argv, cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True,
                             env=dict(os.environ, CRASHTRAIL_DIR=dumps,
                                      CRASHTRAIL_RING_KB=RING_KB[args.program],
                                      CT_BLOCK_TRACE=os.path.join(traces, "%D.trace"),
                                      CT_BLOCK_TRACE_MAX=str(SUITE_TRACE_MAX)))
    pool = concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2)
    # trace -> (future, bytes of the pair); (dump, bad); traces without dumps
    pending, results, unpaired = {}, [], []
    stopped = False

    def one(trace, dump):
        pwork = os.path.join(work, os.path.basename(trace) + ".check")
        os.makedirs(pwork, exist_ok=True)
        bad = check_dump(args, pwork, os.path.basename(dump), trace, dump, quiet=True)
        shutil.rmtree(pwork, ignore_errors=True)
        if bad and bad not in NOT_COMPARED:
            for f in (trace, dump):
                shutil.move(f, failed_dir)
        else:
            os.unlink(trace)
            os.unlink(dump)
        return os.path.basename(dump), bad

    def sweep():
        for t in os.listdir(traces):
            trace = os.path.join(traces, t)
            if not t.endswith(".trace") or trace in pending:
                continue
            dump = os.path.join(dumps, t[:-len(".trace")])
            if os.path.exists(dump):
                pending[trace] = (pool.submit(one, trace, dump),
                                  os.path.getsize(trace) + os.path.getsize(dump))
            else:  # "no-dump.trace": the dump failed
                unpaired.append(t)
                shutil.move(trace, os.path.join(failed_dir, t + "." + str(len(unpaired))))

    def terminated(signo, frame):
        raise SystemExit("terminated by signal %d" % signo)

    signal.signal(signal.SIGTERM, terminated)  # the suite, in a session of its own, killed too
    try:
        start = time.monotonic()
        while suite.poll() is None:
            if time.monotonic() - start > 3600:
                raise RuntimeError("the suite ran for more than an hour")
            sweep()
            for t in [t for t, (f, _) in pending.items() if f.done()]:
                results.append(pending.pop(t)[0].result())
            # only pairs count: a dump without a trace (a killed process) never goes away
            over = sum(size for _, size in pending.values()) > SUITE_BACKLOG
            if over != stopped:
                os.killpg(suite.pid, signal.SIGSTOP if over else signal.SIGCONT)
                stopped = over
            time.sleep(0.2)
        sweep()
        results += [f.result() for f, _ in pending.values()]
    finally:
        if suite.poll() is None:
            os.killpg(suite.pid, signal.SIGKILL)
            os.killpg(suite.pid, signal.SIGCONT)
        pool.shutdown(wait=True, cancel_futures=True)
    # dumps without a trace: processes that died without exiting (killed, or crashed)
    crashed = [f for f in os.listdir(dumps) if f.endswith(".ctd")]
    for f in crashed:
        os.unlink(os.path.join(dumps, f))
    why_not = collections.Counter(b for _, b in results if b in NOT_COMPARED)
    failed = [(p, b) for p, b in results if b and b not in NOT_COMPARED]
    compared = len(results) - sum(why_not.values())
    print("%s: %d processes, %d identical; not compared: %d with wrapped rings, %d with threads "
          "running at exit, %d whose binary was deleted, %d with other threads' callers "
          "suspended in deferred calls; %d dumps without a trace (killed)" % (
              name, len(results), compared - len(failed), why_not[WRAPPED], why_not[UNSETTLED],
              why_not[GONE], why_not[IN_REGISTERS], len(crashed)))
    if suite.returncode:
        print("%s: the suite's exit status %d (its output in %s)" % (name, suite.returncode, log.name))
    if suite.returncode and AUTOTOOLS_SUITES[args.program]["must_pass"]:
        return "the suite failed (exit %d; its output in %s)" % (suite.returncode, log.name)
    if unpaired:
        return "%d traces without a dump (kept in %s)" % (len(unpaired), failed_dir)
    if compared < SUITE_MIN_COMPARED:
        return "only %d processes compared" % compared
    if failed:
        return "%d processes differ (kept in %s); first: %s: %s" % (
            len(failed), failed_dir, failed[0][0], failed[0][1])
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--program", default="sqlite",
                    choices=["sqlite", "lua", "sqlite-threads", "jsoncpp"] + sorted(AUTOTOOLS_SUITES))
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
        build = {"sqlite": build_sqlite, "lua": build_lua, "sqlite-threads": build_sqlite_threads,
                 "jsoncpp": build_jsoncpp}.get(args.program, build_autotools_suite)
        for name, argv, plain_argv in build(args, env, opt, owork, bt):
            if args.program in AUTOTOOLS_SUITES:  # plain_argv: the directory the suite runs in
                bad = check_suite(args, owork, name, argv, plain_argv)
            else:
                bad = check_run(args, owork, name, argv, plain_argv)
            print("%s -%s %s: %s" % (args.program, opt, name, "FAIL: " + bad if bad else "ok"))
            failed += bad is not None
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
