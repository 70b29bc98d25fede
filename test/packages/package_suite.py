#!/usr/bin/env python3
"""package_suite.py - a Debian package built with crashtrail-cc passes its own test suite.

A real program nobody on the team wrote, built the way its users build it (./configure with
CC=crashtrail-cc, make), must behave as the same sources built with plain clang: its own test
suite gives what the plain build gives (this machine may lack a locale or a terminal, alike for
both), and a crash of the instrumented program leaves a dump whose timeline decodes.

Packages (`--package`):
  gawk  GNU awk 5.2: a byte-code interpreter with a big `switch`, setjmp/longjmp error recovery,
        its own fatal-signal handler (catchsig: prints and abort()s), dynamically loaded
        extensions (also built with crashtrail-cc: several instrumented modules in one process),
        some 900 tests (`make -C test check`), which must fail exactly what the plain build
        fails. Crash: SIGSEGV from outside while a recursive script runs; gawk's handler aborts;
        the stack must go through catchsig and the trampoline to r_interpret and main, and the
        timeline end at the abort().
  bash  GNU bash 5.2: forks for every pipeline and subshell (the runtime's fork handling, some
        thousands of times), longjmp out of errors, traps; `make tests` prints every test's
        differences, which must be the plain build's, line for line (paths and numbers aside),
        and no dump may be written. Crash: a background subshell's loop gets SIGSEGV; the shell
        must report status 139, and the child's dump (its own pid) decode through
        execute_command_internal to main.
  jsoncpp  jsoncpp 1.9.5 (libjsoncpp), C++: built with CMake as a shared library
        (CXX=crashtrail-c++), with its unit tests and reader/writer tests, whose every test
        (some 300: `Testing NAME: OK`, `TESTING: FILE OK`) must give the plain build's result.
        Exceptions are thrown inside libjsoncpp.so and caught in the test programs (two
        instrumented modules). Crash: test/fidelity/programs/jsoncpp_misuse.cpp, linked
        against the instrumented library, catches exceptions of the library on every round,
        then hands it a NULL document; the stack must go from the library's reader to
        final_phase and main, and the timeline show the library's throw and the driver's catch.

  xz  xz-utils 5.4.1: liblzma as a shared library (instrumented, like the xz executable: two
        modules) and its multi-threaded encoder; `make check` (18 tests: the library's unit
        tests, and xz compressing and decompressing files with every filter), whose every
        test must give the plain build's result, with no dump. Crash: `xz -T4` compresses
        generated text in 256 KiB blocks; one of its worker threads gets SIGSEGV (tgkill); the
        crashed thread's stack must go through the encoder to liblzma's worker_start, its
        timeline end in liblzma, and the dump hold the other threads' timelines too.

  sed  GNU sed 4.9: gnulib's DFA matcher (instrumented) in front of glibc's regex engine (not);
        `make check` (its testsuite and gnulib's tests), whose every test must give the plain
        build's result, with no dump. Crash: SIGSEGV from outside while sed rewrites 16 MB of
        text with a back-referencing substitution; the stack must go through process_files to
        main, and the timeline hold the matcher's steps (match_regex).

Steps: apt-get source (deb-src lines added if apt has none, as fidelity.py does); two builds in
WORK/PACKAGE (`plain`: clang-14 -O2 -g, `crashtrail`: crashtrail-cc -O2 -g; rebuilt when
crashtrail changes); both test suites; the crash.

Usage: package_suite.py --package gawk|bash|jsoncpp|sed|xz --crashtrail-build BUILD --work DIR
"""
import argparse
import ctypes
import difflib
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fidelity"))
from fidelity import ensure_deb_src  # noqa: E402  (adds deb-src lines when apt has none)


def log(msg):
    print("packages: " + msg, flush=True)


def fail(msg):
    print("packages: FAIL: " + msg, file=sys.stderr, flush=True)
    sys.exit(1)


def run(cmd, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    kw.setdefault("errors", "replace")  # bash's tests print bytes of other encodings
    return subprocess.run(cmd, **kw)


def fetch(src_dir, pkg, pattern):
    def found():
        return sorted(d for d in glob.glob(os.path.join(src_dir, pattern)) if os.path.isdir(d))
    if found():
        return found()[-1]
    os.makedirs(src_dir, exist_ok=True)
    ensure_deb_src()
    log("apt-get source " + pkg)
    p = run(["apt-get", "source", "-qq", pkg], cwd=src_dir)
    if p.returncode != 0 or not found():
        fail(f"apt-get source {pkg} failed:\n" + (p.stderr or p.stdout)[-2000:])
    return found()[-1]


def failed_targets(out):
    """Targets make reports failed, but the recursive ones above a failed directory."""
    return [m.group(1) for m in re.finditer(r"\*\*\* \[Makefile:\d+: ([^\]]+)\] Error", out)
            if m.group(1) not in ("all", "all-recursive", "all-am")]


def up_to_date(tree, stamp_inputs):
    """Whether tree was built (its stamp written) after every one of stamp_inputs changed."""
    stamp = os.path.join(tree, ".built")
    return os.path.exists(stamp) and all(os.path.getmtime(stamp) > os.path.getmtime(i)
                                         for i in stamp_inputs)


def build(pkg, src, tree, cc, stamp_inputs):
    """configure + make in a copy of the sources (cp -a: the autotools outputs must stay newer
    than their inputs). Rebuilt when the compiler or crashtrail changed."""
    binary = os.path.join(tree, pkg["binary"])
    if up_to_date(tree, stamp_inputs):
        return binary
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(os.path.dirname(tree), exist_ok=True)
    p = run(["cp", "-a", src, tree])
    if p.returncode != 0:
        fail(f"cannot copy {src} to {tree}: {p.stderr}")
    log(f"configure and make {os.path.basename(tree)} (CC={os.path.basename(cc)})")
    env = dict(os.environ, CC=cc, CFLAGS=pkg.get("cflags", "-O2 -g"))
    p = run(["./configure"] + pkg["configure"], cwd=tree, env=env)
    if p.returncode != 0:
        fail(f"configure with {cc} failed:\n{p.stdout[-3000:]}{p.stderr[-2000:]}")
    # -k: gawk's manual cannot be made (Debian's source lacks its texinfo input); any other
    # failed target (an object, a library) is a failed build
    p = run(["make", "-k", f"-j{os.cpu_count() or 1}"], cwd=tree, env=env)
    missing = [f for f in pkg["built"] if not glob.glob(os.path.join(tree, f))]
    errors = [t for t in failed_targets(p.stdout + p.stderr) if t not in pkg["may_fail"]]
    if missing or errors:
        fail(f"make with {cc} failed (missing {missing}, failed {errors}):\n"
             f"{p.stdout[-3000:]}{p.stderr[-3000:]}")
    with open(os.path.join(tree, ".built"), "w"):
        pass
    return binary


def build_cmake(pkg, src, tree, cxx, stamp_inputs):
    """cmake + build in tree (out of the source directory), C++ compiler cxx."""
    binary = os.path.join(tree, pkg["binary"])
    if up_to_date(tree, stamp_inputs):
        return binary
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(tree)
    log(f"cmake and build {os.path.basename(tree)} (CXX={os.path.basename(cxx)})")
    p = run(["cmake", "-S", src, "-B", tree, "-G", "Ninja", "-DCMAKE_CXX_COMPILER=" + cxx,
             "-DCMAKE_BUILD_TYPE=None", "-DCMAKE_CXX_FLAGS=-O2 -g"] + pkg["configure"])
    if p.returncode != 0:
        fail(f"cmake with {cxx} failed:\n{p.stdout[-3000:]}{p.stderr[-2000:]}")
    p = run(["cmake", "--build", tree, "-j", str(os.cpu_count() or 1)])
    missing = [f for f in pkg["built"] if not glob.glob(os.path.join(tree, f))]
    if p.returncode != 0 or missing:
        fail(f"the build with {cxx} failed (missing {missing}):\n{p.stdout[-4000:]}{p.stderr[-2000:]}")
    with open(os.path.join(tree, ".built"), "w"):
        pass
    return binary


# ---- gawk ---------------------------------------------------------------------------------
def gawk_failed(tree):
    """Runs the suite; the names of the tests that failed (gawk keeps `_NAME` for each)."""
    for f in glob.glob(os.path.join(tree, "test", "_*")):
        os.remove(f)
    t = time.time()
    p = run(["make", "-C", "test", "check"], cwd=tree)
    out = p.stdout + p.stderr
    names = sorted(os.path.basename(f)[1:] for f in glob.glob(os.path.join(tree, "test", "_*")))
    m = re.search(r"(\d+) TESTS? FAILED", out)
    if p.returncode != 0 and not names:
        fail(f"make check in {tree} failed without failed tests:\n{out[-3000:]}")
    if m and int(m.group(1)) != len(names):
        fail(f"{tree}: the suite says {m.group(1)} tests failed, {len(names)} left output")
    log(f"{os.path.basename(tree)}: {len(names)} failed ({', '.join(names) or 'none'}) "
        f"in {time.time() - t:.0f} s")
    return set(names)


def gawk_rerun(tree, name):
    """Runs one test alone; True when it passes (gawk leaves no `_NAME` then)."""
    out = os.path.join(tree, "test", "_" + name)
    if os.path.exists(out):
        os.remove(out)
    run(["make", "-C", "test", name], cwd=tree)
    return not os.path.exists(out)


def gawk_suites(plain, ct, work):
    plain_failed, ct_failed = gawk_failed(plain), gawk_failed(ct)
    only_ct = sorted(ct_failed - plain_failed)
    still = [n for n in only_ct if not (gawk_rerun(ct, n) or gawk_rerun(ct, n))]
    flakes = sorted(set(only_ct) - set(still))
    if flakes:
        log(f"failed once in the crashtrail build, passed alone: {', '.join(flakes)}")
    if still:
        fail(f"tests that fail only in the crashtrail build: {', '.join(still)} "
             f"(outputs in {ct}/test/_NAME)")
    log(f"test suite: the crashtrail build fails what the plain build fails "
        f"({', '.join(sorted(plain_failed)) or 'nothing'})")


def gawk_crash(gawk, dumps, **_):
    """SIGSEGV from outside while the interpreter recurses; gawk's handler aborts."""
    script = ("function f(n) { if (n < 2) return n; return f(n-1) + f(n-2) } "
              "BEGIN { while (1) { s = s + f(15); a[s % 100]++ } }")
    p = subprocess.Popen([gawk, script], env=dict(os.environ, CRASHTRAIL_DIR=dumps),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    p.send_signal(signal.SIGSEGV)
    _, err = p.communicate(timeout=60)
    if p.returncode not in (-signal.SIGABRT, -signal.SIGSEGV):
        fail(f"gawk ended with status {p.returncode}, not by SIGABRT or SIGSEGV:\n{err[-2000:]}")
    return err


# ---- bash ---------------------------------------------------------------------------------
def normalise(out, tree):
    """A test's output without what differs between two builds of one program: the build
    directory, numbers of 3+ digits (pids, times, sizes)."""
    return [re.sub(r"\d{3,}", "N", line) for line in out.replace(tree, "TREE").splitlines()]


def bash_suite(tree, dumps):
    """`make tests`: each test's differences from its expected output (run-all prints the test's
    name, then its diff), normalised."""
    t = time.time()
    p = run(["make", "tests"], cwd=tree, env=dict(os.environ, CRASHTRAIL_DIR=dumps), timeout=1800)
    tests, name = {}, None
    for line in normalise(p.stdout + p.stderr, tree):
        if re.fullmatch(r"run-[\w.+-]+", line):
            name = line
            tests[name] = []
        elif name:
            tests[name].append(line)
    if len(tests) < 50:
        fail(f"make tests in {tree} ran {len(tests)} tests:\n{(p.stdout + p.stderr)[-3000:]}")
    log(f"{os.path.basename(tree)}: make tests, {len(tests)} tests in {time.time() - t:.0f} s")
    return tests


def bash_one(tree, name, dumps):
    """One test alone, as run-all runs it."""
    env = dict(os.environ, CRASHTRAIL_DIR=dumps, BUILD_DIR=tree, THIS_SH=os.path.join(tree, "bash"),
               PATH=os.path.join(tree, "tests") + os.pathsep + os.environ.get("PATH", ""))
    p = run(["sh", "./" + name], cwd=os.path.join(tree, "tests"), env=env, timeout=600)
    return normalise(p.stdout + p.stderr, tree)


def both_suites(plain, ct, work, suite):
    """Runs suite (tree, dumps) -> {test: result} on both builds, writing dumps to one
    directory (none expected); the two results, which must name the same tests, and it."""
    dumps = os.path.join(work, "suite-dumps")
    shutil.rmtree(dumps, ignore_errors=True)
    os.makedirs(dumps)
    a, b = suite(plain, dumps), suite(ct, dumps)
    if sorted(a) != sorted(b):
        fail(f"the suites ran different tests: {sorted(set(a) ^ set(b))[:10]}")
    return a, b, dumps


def no_dumps(dumps):
    written = os.listdir(dumps)
    if written:
        fail(f"the test suite left {len(written)} dumps in {dumps}: {written[:5]}")


def bash_suites(plain, ct, work):
    a, b, dumps = both_suites(plain, ct, work, bash_suite)
    differ = [n for n in sorted(a) if a[n] != b[n]]
    flaky, still = [], []
    for n in differ:
        # Timing tests (`read -t`, `wait`, job control) vary from run to run in either build:
        # the test counts as passed when one of two more runs of each gives the same output.
        if any(bash_one(plain, n, dumps) == bash_one(ct, n, dumps) for _ in range(2)):
            flaky.append(n)
        else:
            still.append(n)
    if flaky:
        log(f"differed once, the same when run again: {', '.join(flaky)}")
    if still:
        n = still[0]
        diff = "\n".join(list(difflib.unified_diff(a[n], b[n], "plain", "crashtrail",
                                                    lineterm=""))[:60])
        fail(f"tests whose output differs from the plain build's: {', '.join(still)}\n"
             f"{n}:\n{diff}")
    no_dumps(dumps)
    failing = [n for n in sorted(a) if a[n]]
    log(f"test suite: each of {len(a)} tests gives the plain build's output "
        f"({len(failing)} differ from what bash expects on this machine, alike: "
        f"{', '.join(failing)}); no dump written")


def bash_crash(bash, dumps, **_):
    """A background subshell's loop gets SIGSEGV; the parent reports it."""
    script = ('f() { local i=0; while [ $i -lt 10000000 ]; do i=$((i+1)); x="$x."; '
              'x=${x#.}; done; }; f & p=$!; sleep 1; kill -SEGV $p; wait $p; echo "status=$?"')
    p = run([bash, "--norc", "-c", script], env=dict(os.environ, CRASHTRAIL_DIR=dumps),
            timeout=60)
    if "status=139" not in p.stdout:
        fail(f"the subshell's status was not 139:\n{p.stdout}{p.stderr[-2000:]}")
    return p.stderr


# ---- jsoncpp ------------------------------------------------------------------------------
def jsoncpp_results(tree, dumps):
    """ctest -V: every unit test's and every reader/writer test's result, by name."""
    t = time.time()
    p = run(["ctest", "-V"], cwd=tree, env=dict(os.environ, CRASHTRAIL_DIR=dumps), timeout=1200)
    out = p.stdout + p.stderr
    results, pending = {}, {}
    # the unit tests: "N: Testing NAME: OK"; the reader/writer tests: "N: TESTING: FILE CMD",
    # then (the command echoed to stderr in between) "N: OK" (N: ctest's test number)
    for line in out.splitlines():
        m = re.match(r"(\d+): Testing (\S+): (OK|FAILED)$", line)
        if m:
            results[m.group(2)] = m.group(3)
            continue
        m = re.match(r"(\d+): TESTING: (\S+)", line)
        if m:
            pending[m.group(1)] = "%s %s" % (m.group(1), os.path.basename(m.group(2)))
            continue
        m = re.match(r"(\d+): (OK|FAILED)$", line)
        if m and m.group(1) in pending:
            results[pending.pop(m.group(1))] = m.group(2)
    if len(results) < 100:
        fail(f"ctest in {tree} gave {len(results)} test results:\n{out[-3000:]}")
    failed = sorted(n for n, r in results.items() if r != "OK")
    log(f"{os.path.basename(tree)}: {len(results)} tests, {len(failed)} failed "
        f"({', '.join(failed[:5]) or 'none'}) in {time.time() - t:.0f} s")
    return results


def same_results(plain, ct, work, suite, log_of=lambda tree, name: None):
    """Every test of suite gives the plain build's result in the crashtrail build, and no dump
    is written. log_of(tree, name): a failed test's log, shown when results differ."""
    a, b, dumps = both_suites(plain, ct, work, suite)
    differ = [n for n in sorted(a) if a[n] != b[n]]
    if differ:
        logs = [log_of(ct, n) for n in differ[:2]]
        shown = "".join(open(f, errors="replace").read()[-800:] for f in logs
                        if f and os.path.exists(f))
        fail(f"tests whose result differs from the plain build's: "
             f"{', '.join(f'{n} ({a[n]} / {b[n]})' for n in differ[:10])}\n{shown}")
    no_dumps(dumps)
    log(f"test suite: each of {len(a)} tests gives the plain build's result; no dump written")


def jsoncpp_suites(plain, ct, work):
    same_results(plain, ct, work, jsoncpp_results)


def jsoncpp_crash(lib, dumps, ct, src):
    """The fidelity test's driver, built against the instrumented shared library."""
    driver = os.path.join(os.path.dirname(dumps), "jsoncpp_misuse")
    driver_src = os.path.join(HERE, "..", "fidelity", "programs", "jsoncpp_misuse.cpp")
    p = run([os.path.join(ct, "bin", "crashtrail-c++"), "-O2", "-g", "-I",
             os.path.join(src, "include"), driver_src, "-o", driver,
             "-L" + os.path.dirname(lib), "-ljsoncpp", "-Wl,-rpath," + os.path.dirname(lib)])
    if p.returncode != 0:
        fail(f"cannot build the driver against {lib}:\n{p.stderr[-3000:]}")
    p = run([driver, "30"], env=dict(os.environ, CRASHTRAIL_DIR=dumps), timeout=120)
    if p.returncode != -signal.SIGSEGV:
        fail(f"the driver ended with status {p.returncode}, not by SIGSEGV:\n{p.stderr[-2000:]}")
    return p.stderr


# ---- automake suites (xz, sed) -----------------------------------------------------------
def automake_results(tree, dumps):
    """`make check`: every test's automake result (PASS, FAIL, SKIP...), by name."""
    t = time.time()
    p = run(["make", "check", f"-j{os.cpu_count() or 1}"], cwd=tree,
            env=dict(os.environ, CRASHTRAIL_DIR=dumps), timeout=1200)
    out = p.stdout + p.stderr
    results = {m.group(2): m.group(1) for m in
               re.finditer(r"^(PASS|FAIL|SKIP|XFAIL|XPASS|ERROR): (\S+)$", out, re.M)}
    if len(results) < 10:
        fail(f"make check in {tree} gave {len(results)} test results:\n{out[-3000:]}")
    failed = sorted(n for n, r in results.items() if r not in ("PASS", "SKIP"))
    log(f"{os.path.basename(tree)}: {len(results)} tests, {len(failed)} failed "
        f"({', '.join(failed) or 'none'}) in {time.time() - t:.0f} s")
    return results


def automake_log(subdir):
    """Where automake's harness leaves a test's log: DIR/NAME.log, NAME without its suffix."""
    return lambda tree, name: os.path.join(tree, subdir, os.path.splitext(os.path.basename(name))[0]
                                           + ".log")


# ---- xz -----------------------------------------------------------------------------------
def xz_suites(plain, ct, work):
    same_results(plain, ct, work, automake_results, automake_log("tests"))


def xz_input(path, megabytes):
    """Text of pseudo-random words (deterministic), compressible but not trivially."""
    import random
    rng = random.Random(7)
    words = ["".join(rng.choice("etaoinshrdlucmfwyp") for _ in range(rng.randint(2, 9)))
             for _ in range(4000)]
    with open(path, "w") as f:
        while f.tell() < megabytes << 20:
            f.write(" ".join(rng.choice(words) for _ in range(4000)) + "\n")


def xz_crash(lib, dumps, **_):
    """xz -T4 compressing in small blocks; SIGSEGV to one of its worker threads."""
    tree = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(lib))))
    xz = os.path.join(tree, "src", "xz", ".libs", "xz")
    data = os.path.join(os.path.dirname(dumps), "input.txt")
    if not os.path.exists(data):
        xz_input(data, 48)
    env = dict(os.environ, CRASHTRAIL_DIR=dumps,
               LD_LIBRARY_PATH=os.path.join(tree, "src", "liblzma", ".libs"))
    p = subprocess.Popen([xz, "-T4", "-6", "--block-size=256KiB", "-c", data], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    task = f"/proc/{p.pid}/task"
    deadline = time.time() + 30
    workers = []
    while time.time() < deadline and p.poll() is None:
        workers = sorted(int(t) for t in os.listdir(task) if int(t) != p.pid) if os.path.isdir(task) else []
        if len(workers) >= 4:
            break
        time.sleep(0.05)
    if len(workers) < 4:
        p.kill()
        fail(f"xz -T4 did not start 4 worker threads (threads other than main: {workers})")
    time.sleep(1.0)  # the workers deep in their blocks
    libc = ctypes.CDLL(None, use_errno=True)
    SYS_tgkill = 234  # x86-64
    if libc.syscall(SYS_tgkill, p.pid, workers[1], signal.SIGSEGV) != 0:
        p.kill()
        fail(f"tgkill failed: errno {ctypes.get_errno()}")
    _, err = p.communicate(timeout=60)
    if p.returncode != -signal.SIGSEGV:
        fail(f"xz ended with status {p.returncode}, not by SIGSEGV:\n{err[-2000:]}")
    if f"in thread {workers[1]} " not in err:
        fail(f"the runtime did not report thread {workers[1]} as the crashed one:\n{err[-2000:]}")
    return err


# ---- sed ----------------------------------------------------------------------------------
def sed_suites(plain, ct, work):
    same_results(plain, ct, work, automake_results, automake_log("testsuite"))


def sed_crash(sed, dumps, **_):
    """SIGSEGV from outside while sed rewrites words around their first `o`."""
    data = os.path.join(os.path.dirname(dumps), "input.txt")
    if not os.path.exists(data):
        xz_input(data, 16)
    p = subprocess.Popen([sed, r"s/\([a-z]*\)o\([a-z]*\)/\2\1/g", data],
                         env=dict(os.environ, CRASHTRAIL_DIR=dumps),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    p.send_signal(signal.SIGSEGV)
    _, err = p.communicate(timeout=60)
    if p.returncode != -signal.SIGSEGV:
        fail(f"sed ended with status {p.returncode}, not by SIGSEGV:\n{err[-2000:]}")
    return err


PACKAGES = {
    "gawk": dict(pattern="gawk-5.*", binary="gawk", configure=["--disable-nls"],
                 built=["gawk", "extension/.libs/*.so"], may_fail=[], suites=gawk_suites,
                 crash=gawk_crash, stack=("catchsig", "r_interpret", "main"),
                 crash_line=r"catchsig\s+main\.c:\d+\s+\|.*abort\(\);\s+<== crash",
                 steps_in=r"r_interpret\s+interpret\.h:\d+", signal_frame=True),
    "bash": dict(pattern="bash-5.*", binary="bash", configure=["--without-bash-malloc"],
                 built=["bash"], may_fail=[], suites=bash_suites, crash=bash_crash,
                 stack=("execute_command_internal", "main"), crash_line=r"<== crash",
                 steps_in=r"execute_cmd\.c:\d+", signal_frame=False),
    "jsoncpp": dict(source="libjsoncpp", pattern="libjsoncpp-1.*", binary="lib/libjsoncpp.so", build=build_cmake,
                    cxx=True, configure=["-DBUILD_SHARED_LIBS=ON", "-DBUILD_STATIC_LIBS=OFF",
                                         "-DBUILD_OBJECT_LIBS=OFF",
                                         "-DJSONCPP_WITH_POST_BUILD_UNITTEST=OFF",
                                         "-DJSONCPP_WITH_PKGCONFIG_SUPPORT=OFF",
                                         "-DJSONCPP_WITH_CMAKE_PACKAGE=OFF"],
                    built=["lib/libjsoncpp.so", "bin/jsoncpp_test", "bin/jsontestrunner_exe"],
                    suites=jsoncpp_suites, crash=jsoncpp_crash,
                    stack=("readToken", "readValue", "parse", "final_phase", "main"),
                    steps=20000,  # the last round's exceptions are some 9000 steps back
                    crash_line=r"json_reader\.cpp:\d+\s+\|\s+Char c = \*current_;\s+<== crash",
                    # the library's throw (json_value.cpp, from operator>>) and the driver's
                    # catch (round_trip), in the library's module and the executable's
                    steps_in=(r"libjsoncpp\S*\s.*json_value\.cpp:\d+\s+\|\s+throw RuntimeError",
                              r"jsoncpp_m\S*\s.*jsoncpp_misuse\.cpp:\d+\s+\|\s+\+\+thrown;"),
                    signal_frame=False),
    # DWARF 4: three of sed's tests run it under valgrind, whose 3.19 gives up on some of clang
    # 14's DWARF 5 (in the plain build, not the crashtrail one: the results would differ)
    "sed": dict(pattern="sed-4.*", binary="sed/sed", configure=["--disable-nls"],
                cflags="-O2 -g -gdwarf-4",
                built=["sed/sed"], may_fail=[], suites=sed_suites, crash=sed_crash,
                stack=("process_files", "main"), crash_line=r"<== crash",
                steps_in=r"match_regex\s+regexp\.c:\d+", signal_frame=False),
    "xz": dict(source="xz-utils", pattern="xz-utils-5.*", binary="src/liblzma/.libs/liblzma.so",
               configure=["--disable-nls", "--disable-doc"],
               built=["src/xz/.libs/xz", "src/liblzma/.libs/liblzma.so"], may_fail=[],
               suites=xz_suites, crash=xz_crash, stack=("worker_start",),
               crash_line=r"liblzma\S*\s.*<== crash",
               # the worker's encoder (its range coder, match finder) in the library's module
               steps_in=(r"liblzma\S*\s.*lzma_encoder\S*\.c:\d+", r"liblzma\S*\s.*lz_encoder\S*\.[ch]:\d+"),
               threads=5, signal_frame=False),
}


def check_dump(ct, pkg, dumps, err):
    files = glob.glob(os.path.join(dumps, "*.ctd"))
    if len(files) != 1:
        fail(f"expected one dump in {dumps}, found {len(files)}:\n{err[-2000:]}")
    show = run([os.path.join(ct, "bin", "crashtrail"), "show", "--color=never",
                "--steps=%d" % pkg.get("steps", 4000), files[0]])
    if show.returncode != 0:
        fail(f"crashtrail show failed ({show.returncode}):\n{show.stderr[-2000:]}")
    text = show.stdout
    stack = text.split("Stack of thread", 1)[-1].split("\n\n", 1)[0]
    problems = [f"the stack does not name {fn}" for fn in pkg["stack"]
                if not re.search(r"#\d+\s+" + fn + r"\s", stack)]
    if pkg["signal_frame"] and "<signal handler called>" not in stack:
        problems.append("the stack has no <signal handler called>")
    m = re.search(r"crashed, (\d+) steps from (\d+) records", text)
    if not m or int(m.group(1)) < 1000:
        problems.append("the crashed thread's timeline has fewer than 1000 steps")
    if not re.search(pkg["crash_line"], text):
        problems.append("the timeline does not end where expected")
    steps_in = pkg["steps_in"] if isinstance(pkg["steps_in"], tuple) else (pkg["steps_in"],)
    problems += [f"no step matches {r}" for r in steps_in if not re.search(r, text)]
    timelines = len(re.findall(r"^Thread \d+ .*steps from \d+ records", text, re.M))
    if timelines < pkg.get("threads", 1):
        problems.append(f"{timelines} threads with a timeline, expected {pkg['threads']} or more")
    if problems:
        # The head shows the crash and the stack; the crashed thread's last steps are where a
        # wrong end of the timeline shows (CI prints only this message).
        tail = text.split(" crashed, ", 1)[-1].split("\n\n", 1)[0].splitlines()[-40:]
        fail("; ".join(problems) + "\n" + text[:2000] + "\n... the crashed thread's last steps:\n" +
             "\n".join(tail))
    log(f"crash: one dump, {m.group(1)} steps from {m.group(2)} records; stack names "
        f"{' > '.join(pkg['stack'])}; {timelines} threads with a timeline")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--package", choices=sorted(PACKAGES), default="gawk")
    ap.add_argument("--crashtrail-build", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    pkg = PACKAGES[args.package]
    ct = os.path.abspath(args.crashtrail_build)
    work = os.path.join(os.path.abspath(args.work), args.package)
    cxx = pkg.get("cxx", False)
    ctcc = os.path.join(ct, "bin", "crashtrail-c++" if cxx else "crashtrail-cc")
    src = fetch(os.path.join(os.path.abspath(args.work), "src"),
                pkg.get("source", args.package),
                pkg["pattern"])
    plain_cc = shutil.which("clang++-14" if cxx else "clang-14")
    if not plain_cc:
        fail("clang-14 not found (scripts/setup.sh installs it)")
    ct_inputs = [ctcc, os.path.join(ct, "lib", "crashtrail-pass.so"),
                 os.path.join(ct, "lib", "libcrashtrail-rt.a")]
    plain, instrumented = os.path.join(work, "plain"), os.path.join(work, "crashtrail")
    builder = pkg.get("build", build)
    builder(pkg, src, plain, plain_cc, [plain_cc])
    binary = builder(pkg, src, instrumented, ctcc, ct_inputs)
    if ".debug_crashtrail" not in run(["readelf", "-SW", binary]).stdout:
        fail(f"{binary} has no .debug_crashtrail section: the plugin did not run")
    pkg["suites"](plain, instrumented, work)
    dumps = os.path.join(work, "dumps")
    shutil.rmtree(dumps, ignore_errors=True)
    os.makedirs(dumps)
    check_dump(ct, pkg, dumps, pkg["crash"](binary, dumps, ct=ct, src=src))
    log("PASS")


if __name__ == "__main__":
    main()
