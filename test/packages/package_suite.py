#!/usr/bin/env python3
"""package_suite.py - a Debian package built with crashtrail-cc passes its own test suite.

A real program nobody on the team wrote, built the way its users build it (./configure with
CC=crashtrail-cc, make), must behave as the same sources built with plain clang: its own test
suite fails exactly the tests the plain build fails (this machine may lack a locale or two), and
a crash of the instrumented program leaves a dump whose timeline decodes.

Package: gawk (GNU awk 5.2, `apt-get source gawk`): a byte-code interpreter with a big `switch`,
setjmp/longjmp error recovery, its own fatal-signal handler (catchsig: prints and abort()s),
dynamically loaded extensions (also built with crashtrail-cc: several instrumented modules in one
process) and some 900 tests (`make -C test check`).

Steps:
  1. apt-get source gawk into WORK/src (deb-src lines added if apt has none, as fidelity.py does)
  2. two builds in WORK: `plain` (clang-14 -O2 -g) and `crashtrail` (crashtrail-cc -O2 -g);
     make -k, since the manual cannot be made (Debian's source lacks its texinfo input)
  3. both test suites; a test that fails only in the crashtrail build is run again up to twice
     alone (the suite has timing tests: `time` compares two clocks within one second); one that
     still fails fails this test
  4. gawk-crashtrail runs a recursive script, gets SIGSEGV from outside after a second; gawk's
     handler aborts; the one dump must decode: the stack names catchsig and the interpreter, the
     timeline ends at abort() with thousands of steps from the interpreter's source

Usage: package_suite.py --crashtrail-build BUILD --work DIR
"""
import argparse
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
    return subprocess.run(cmd, **kw)


def fetch(src_dir):
    dirs = sorted(d for d in glob.glob(os.path.join(src_dir, "gawk-5.*")) if os.path.isdir(d))
    if dirs:
        return dirs[-1]
    os.makedirs(src_dir, exist_ok=True)
    ensure_deb_src()
    log("apt-get source gawk")
    p = run(["apt-get", "source", "-qq", "gawk"], cwd=src_dir)
    dirs = sorted(d for d in glob.glob(os.path.join(src_dir, "gawk-5.*")) if os.path.isdir(d))
    if p.returncode != 0 or not dirs:
        fail("apt-get source gawk failed:\n" + (p.stderr or p.stdout)[-2000:])
    return dirs[-1]


def build(src, tree, cc, stamp_inputs):
    """configure + make in a copy of the sources (cp -a: the autotools outputs must stay newer
    than their inputs). Rebuilt when the compiler or crashtrail changed."""
    gawk = os.path.join(tree, "gawk")
    stamp = os.path.join(tree, ".built")
    if os.path.exists(stamp) and all(os.path.getmtime(stamp) > os.path.getmtime(i)
                                     for i in stamp_inputs):
        return gawk
    shutil.rmtree(tree, ignore_errors=True)
    run(["cp", "-a", src, tree], check=True)
    log(f"configure and make {os.path.basename(tree)} (CC={os.path.basename(cc)})")
    env = dict(os.environ, CC=cc, CFLAGS="-O2 -g")
    p = run(["./configure", "--disable-nls"], cwd=tree, env=env)
    if p.returncode != 0:
        fail(f"configure with {cc} failed:\n{p.stdout[-3000:]}{p.stderr[-2000:]}")
    # Debian's source has no doc/gawktexi.in, so the manual cannot be made: -k builds the rest
    p = run(["make", "-k", f"-j{os.cpu_count() or 1}"], cwd=tree, env=env)
    built = os.access(gawk, os.X_OK) and glob.glob(os.path.join(tree, "extension", ".libs",
                                                                "*.so"))
    # the manual's failure stops only doc/ and the recursive targets above it; any other
    # failed target (an object, a library) is a failed build
    errors = [m.group(1) for m in re.finditer(r"\*\*\* \[Makefile:\d+: ([^\]]+)\] Error",
                                              p.stdout + p.stderr)
              if m.group(1) not in ("all", "all-recursive", "all-am")]
    if not built or errors:
        fail(f"make with {cc} failed:\n{p.stdout[-3000:]}{p.stderr[-3000:]}")
    with open(stamp, "w"):
        pass
    return gawk


def failed_tests(tree):
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


def rerun(tree, name):
    """Runs one test alone; True when it passes (gawk leaves no `_NAME` then)."""
    out = os.path.join(tree, "test", "_" + name)
    if os.path.exists(out):
        os.remove(out)
    run(["make", "-C", "test", name], cwd=tree)
    return not os.path.exists(out)


def crash(ct, gawk, work):
    """SIGSEGV from outside while the interpreter recurses; gawk's handler aborts."""
    dumps = os.path.join(work, "dumps")
    shutil.rmtree(dumps, ignore_errors=True)
    os.makedirs(dumps)
    script = ("function f(n) { if (n < 2) return n; return f(n-1) + f(n-2) } "
              "BEGIN { while (1) { s = s + f(15); a[s % 100]++ } }")
    p = subprocess.Popen([gawk, script], env=dict(os.environ, CRASHTRAIL_DIR=dumps),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    p.send_signal(signal.SIGSEGV)
    _, err = p.communicate(timeout=60)
    if p.returncode not in (-signal.SIGABRT, -signal.SIGSEGV):
        fail(f"gawk ended with status {p.returncode}, not by SIGABRT or SIGSEGV:\n{err[-2000:]}")
    files = glob.glob(os.path.join(dumps, "*.ctd"))
    if len(files) != 1:
        fail(f"expected one dump in {dumps}, found {len(files)}:\n{err[-2000:]}")
    show = run([os.path.join(ct, "bin", "crashtrail"), "show", "--color=never", files[0]])
    if show.returncode != 0:
        fail(f"crashtrail show failed ({show.returncode}):\n{show.stderr[-2000:]}")
    text = show.stdout
    stack = text.split("Stack of thread", 1)[-1].split("\n\n", 1)[0]
    problems = []
    for fn in ("catchsig", "r_interpret", "main"):
        if not re.search(r"#\d+\s+" + fn + r"\s", stack):
            problems.append(f"the stack does not name {fn}")
    m = re.search(r"crashed, (\d+) steps from (\d+) records", text)
    if not m or int(m.group(1)) < 1000:
        problems.append("the crashed thread's timeline has fewer than 1000 steps")
    if not re.search(r"catchsig\s+main\.c:\d+\s+\|.*abort\(\);\s+<== crash", text):
        problems.append("the timeline does not end at catchsig's abort()")
    if not re.search(r"r_interpret\s+interpret\.h:\d+", text):
        problems.append("no step in the interpreter (interpret.h)")
    if problems:
        fail("; ".join(problems) + "\n" + text[:3000])
    log(f"crash: SIGSEGV, gawk aborted, one dump, {m.group(1)} steps from {m.group(2)} records; "
        "timeline ends at catchsig's abort(), stack names catchsig > r_interpret > main")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--crashtrail-build", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    ct = os.path.abspath(args.crashtrail_build)
    work = os.path.abspath(args.work)
    ctcc = os.path.join(ct, "bin", "crashtrail-cc")
    src = fetch(os.path.join(work, "src"))
    plain_cc = shutil.which("clang-14")
    if not plain_cc:
        fail("clang-14 not found (scripts/setup.sh installs it)")
    ct_inputs = [ctcc, os.path.join(ct, "lib", "crashtrail-pass.so"),
                 os.path.join(ct, "lib", "libcrashtrail-rt.a")]
    plain_tree, ct_tree = os.path.join(work, "plain"), os.path.join(work, "crashtrail")
    build(src, plain_tree, plain_cc, [plain_cc])
    gawk_ct = build(src, ct_tree, ctcc, ct_inputs)
    sections = run(["readelf", "-SW", gawk_ct]).stdout
    if ".debug_crashtrail" not in sections:
        fail(f"{gawk_ct} has no .debug_crashtrail section: the plugin did not run")
    plain_failed = failed_tests(plain_tree)
    ct_failed = failed_tests(ct_tree)
    only_ct = sorted(ct_failed - plain_failed)
    still = [n for n in only_ct if not (rerun(ct_tree, n) or rerun(ct_tree, n))]
    flakes = sorted(set(only_ct) - set(still))
    if flakes:
        log(f"failed once in the crashtrail build, passed alone: {', '.join(flakes)}")
    if still:
        fail(f"tests that fail only in the crashtrail build: {', '.join(still)} "
             f"(outputs in {ct_tree}/test/_NAME)")
    log(f"test suite: the crashtrail build fails what the plain build fails "
        f"({', '.join(sorted(plain_failed)) or 'nothing'})")
    crash(ct, gawk_ct, work)
    log("PASS")


if __name__ == "__main__":
    main()
