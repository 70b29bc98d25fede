#!/usr/bin/env python3
"""End-to-end test: build a program with crashtrail-cc, crash it, and check the timeline.

The expected timeline is written in the program's own header, by hand, from its source:

    crashtrail-e2e
    signal: SIGSEGV                  the signal it must die of (or "exit: N" for no crash)
    expect-O0: m1 m2 c1 ...          the crashed thread's steps, as //@markers in the source;
                                     m2*4: that step also counts 4 loop iterations (its
                                     "repeat"; without *N the count is not checked)
    expect-O2: ...
    stack: f g main                  the stack's outermost functions, innermost first
    stack-O2: f main                 the same for one optimisation level (tail calls leave frames)
    stack-contains: main             a function the stack must contain
    crashed-thread: NAME             the crashed thread's name
    library: shape.c                 built as lib<shape>.so and linked to the program
    plain-library: codec.c           the same, uninstrumented, stripped, its debug file by
                                     build-id under a --debug-dir (as a -dbgsym package's)
    locals: it=NULL                  variables the crash frame must show with these values
    locals-O0: ... / locals-O2: ...  (at one level only; "?" for "optimised out")
    warning: REGEX                   a warning of the timeline must match it
    scanned: f                       f's frame must be marked as found by scanning the stack
    frame-line: f c2                 f's (first) frame in the stack must show marker c2's line

Checks: the exit status is the signal's (as without crashtrail) and stdout is identical to an
uninstrumented build; exactly one dump is written; `crashtrail show --format=json` gives the
exact expected steps (file and line, consecutive repeats merged), the last one marked as the
crash; the text output renders; a program that does not crash writes no dump.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from window_check import check_windows  # noqa: E402


def parse_header(path):
    text = open(path).read()
    spec = {}
    for key in ("signal", "exit", "expect-O0", "expect-O2", "expect-O0@19", "expect-O2@19",
                "expect-O0@defer", "expect-O2@defer", "stack", "stack-O0", "stack-O2",
                "stack-contains", "crashed-thread", "library", "own-files-only", "crash-function",
                "inlined-crash", "strip", "other-thread", "locals", "locals-O0", "locals-O2",
                "warning", "scanned", "frame-line", "plain-library", "pass-option"):
        m = re.search(r"^\s*(?:\*|//)?\s*" + re.escape(key) + r":\s*(.+)$", text, re.M)
        if m:
            spec[key] = m.group(1).strip()
    return spec


def markers(paths):
    """marker name -> (basename, line) for every //@name in the sources."""
    out = {}
    for p in paths:
        for n, line in enumerate(open(p), 1):
            for name in re.findall(r"//@(\w+)", line):
                out[name] = (os.path.basename(p), n)
    return out


def llvm_major(clang):
    out = subprocess.run([clang, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"clang version (\d+)", out)
    return int(m.group(1)) if m else 0


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)


def build(args, src, out, opt, instrumented, work):
    """Builds the program (and its library); returns the path of the executable."""
    spec = parse_header(src)
    cxx = src.endswith(".cpp")
    if instrumented:
        cc = os.path.join(args.build, "bin", "crashtrail-c++" if cxx else "crashtrail-cc")
    else:
        cc = args.clang.replace("clang", "clang++") if cxx else args.clang
    srcdir = os.path.dirname(src)
    flags = ["-O" + opt[1:], "-pthread"]
    if any(k.startswith("locals") for k in spec):
        flags.append("-g")  # variables need full debug information, not only line tables
    elif not instrumented:
        flags.append("-gline-tables-only")
    if instrumented and "pass-option" in spec:
        flags += ["-mllvm", spec["pass-option"]]
    if instrumented:  # the ring build or deferred calls, whatever the pass's default
        flags += ["-fplugin-arg-crashtrail-defer-calls=%d" % args.defer]
    link = []
    if "library" in spec:
        lib = spec["library"]
        name = "lib" + os.path.splitext(lib)[0] + ".so"
        r = run([cc] + flags + ["-fPIC", "-shared", os.path.join(srcdir, lib), "-o",
                                os.path.join(work, name)])
        if r.returncode:
            sys.exit("library build failed:\n" + r.stderr)
        link = ["-L" + work, "-l" + os.path.splitext(lib)[0], "-Wl,-rpath," + work]
    if "plain-library" in spec:
        link += plain_library(args, os.path.join(srcdir, spec["plain-library"]), opt, work)
    r = run([cc] + flags + [src, "-o", out] + link)
    if r.returncode:
        sys.exit("build failed:\n" + " ".join([cc] + flags + [src]) + "\n" + r.stderr)
    return out


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check_steps(spec, opt, steps, marks, lib_module, exe_module, llvm, defer=False):
    key = "expect-%s@%d" % (opt, llvm)
    if defer and "expect-%s@defer" % opt in spec:
        key = "expect-%s@defer" % opt  # what the deferred-calls build records differently
    tokens = spec[key if key in spec else "expect-" + opt].split()
    want_names = [t.split("*")[0] for t in tokens]
    want_repeat = {i: int(t.split("*")[1]) for i, t in enumerate(tokens) if "*" in t}
    want = [marks[n] for n in want_names]
    if spec.get("own-files-only") == "yes":
        own = {f for f, _ in marks.values()}
        kept = []
        for s in steps:
            if os.path.basename(s["file"] or "?") not in own:
                continue
            if kept and (kept[-1]["file"], kept[-1]["line"]) == (s["file"], s["line"]):
                kept[-1] = dict(kept[-1], crash=kept[-1].get("crash") or s.get("crash"))
                continue
            kept.append(s)
        steps = kept
    got = [(os.path.basename(s["file"] or "?"), s["line"]) for s in steps]
    if got != want:
        rev = {v: k for k, v in marks.items()}
        lines = ["steps differ (want | got):"]
        for i in range(max(len(want), len(got))):
            w = "%s:%d (%s)" % (want[i] + (want_names[i],)) if i < len(want) else "-"
            g = "%s:%d (%s)" % (got[i] + (rev.get(got[i], "?"),)) if i < len(got) else "-"
            lines.append("  %-34s %s %s" % (w, "|" if w.split(" ")[0] == g.split(" ")[0] else "X", g))
        fail("\n".join(lines))
    for i, n in want_repeat.items():
        if steps[i].get("repeat", 0) != n:
            fail("step %d (%s) repeats %d times, expected %d" % (i, want_names[i],
                                                                  steps[i].get("repeat", 0), n))
    if not steps[-1].get("crash"):
        fail("the last step is not marked as the crash")
    for s in steps:
        expect = lib_module if lib_module and os.path.basename(s["file"]) == spec.get("library") else exe_module
        if s["module"] != expect:
            fail("step %s:%d is in module %s, expected %s" % (s["file"], s["line"], s["module"], expect))


def check_crash_step(spec, step, stack):
    if "crash-function" in spec and step["function"] != spec["crash-function"]:
        fail("the crash step is in %s, expected %s" % (step["function"], spec["crash-function"]))
    if spec.get("inlined-crash") == "yes":
        if not step.get("inlined_at"):
            fail("the crash step has no inline chain: %s" % step)
        if not stack or not stack[0]["inlined"] or stack[0]["function"] != step["function"]:
            fail("the stack does not start with the inlined frame: %s" % stack[:2])


def plain_library(args, src, opt, work):
    """Builds src uninstrumented as a shared library, keeps its debug information in
    work/debugroot/.build-id/ and strips it; returns the link flags. The debug file is laid out
    as distributions ship theirs (libc6-dbg, -dbgsym packages): compressed sections, units
    indexed by .debug_aranges, which the post-mortem reads lazily (dwarf_lazy.c)."""
    stem = os.path.splitext(os.path.basename(src))[0]
    lib = os.path.join(work, "lib%s.so" % stem)
    r = run([args.clang, "-O" + opt[1:], "-g", "-gdwarf-aranges", "-fPIC", "-shared", src, "-o",
             lib])
    if r.returncode:
        sys.exit("library build failed:\n" + r.stderr)
    bid = re.search(r"Build ID: ([0-9a-f]+)", run(["readelf", "-n", lib]).stdout).group(1)
    d = os.path.join(work, "debugroot", ".build-id", bid[:2])
    os.makedirs(d, exist_ok=True)
    for cmd in (["objcopy", "--only-keep-debug", "--compress-debug-sections=zlib", lib,
                 os.path.join(d, bid[2:] + ".debug")],
                ["strip", "--strip-all", lib]):
        r = run(cmd)
        if r.returncode:
            sys.exit("%s failed: %s" % (cmd, r.stderr))
    return ["-L" + work, "-l" + stem, "-Wl,-rpath," + work]


def strip_binary(exe, mode, work):
    """Strips exe as a release would; returns extra `crashtrail show` arguments."""
    debug = exe + ".debug"
    for cmd in (["objcopy", "--only-keep-debug", exe, debug], ["strip", "--strip-all", exe],
                ["objcopy", "--add-gnu-debuglink=" + debug, exe]):
        r = run(cmd)
        if r.returncode:
            sys.exit("%s failed: %s" % (cmd, r.stderr))
    if run(["readelf", "-S", exe]).stdout.count(".debug_") != 0:
        fail("strip left debug sections in the binary")
    if mode == "debuglink":
        return []
    out = run(["readelf", "-n", exe]).stdout
    bid = re.search(r"Build ID: ([0-9a-f]+)", out).group(1)
    d = os.path.join(work, "debugroot", ".build-id", bid[:2])
    os.makedirs(d)
    os.rename(debug, os.path.join(d, bid[2:] + ".debug"))
    return ["--debug-dir", os.path.join(work, "debugroot")]


def check_locals(spec, opt, thread):
    want = (spec.get("locals", "") + " " + spec.get("locals-" + opt, "")).split()
    if not want:
        return
    got = {v["name"]: v["value"] for v in (thread.get("locals") or {}).get("variables", [])}
    for item in want:
        name, value = item.split("=", 1)
        value = None if value == "?" else value
        if name not in got or got[name] != value:
            fail("variable %s: want %r, the timeline says %r (all: %s)"
                 % (name, value, got.get(name, "<missing>"), got))


def check_frame_line(spec, stack, marks):
    if "frame-line" not in spec:
        return
    fn, mark = spec["frame-line"].split()
    frames = [f for f in stack if f["function"] == fn]
    if not frames:
        fail("no frame of %s in the stack" % fn)
    got = (os.path.basename(frames[0].get("file") or "?"), frames[0].get("line"))
    if got != marks[mark]:
        fail("%s's frame shows %s:%s, expected %s:%d (%s)" % (fn, got[0], got[1], marks[mark][0],
                                                              marks[mark][1], mark))


def check_stack(spec, opt, stack):
    names = [f["function"] for f in stack]
    key = "stack-" + opt if "stack-" + opt in spec else "stack"
    if key in spec:
        want = spec[key].split()
        ours = [n for n in names if n in want or n == "main"]
        if ours[:len(want)] != want:
            fail("stack %s does not start with %s" % (names, want))
    if "stack-contains" in spec and spec["stack-contains"] not in names:
        fail("stack %s lacks %s" % (names, spec["stack-contains"]))
    if "scanned" in spec:
        marked = [f["function"] for f in stack if f.get("scanned")]
        if marked != [spec["scanned"]]:
            fail("frames found by scanning the stack: %s, expected %s" % (marked, spec["scanned"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--clang", default="clang-14")
    ap.add_argument("--program", required=True)
    ap.add_argument("--opt", choices=["O0", "O2"], required=True)
    ap.add_argument("--strip", choices=["debuglink", "build-id"],
                    help="strip the binary as a release would, keeping a separate debug file")
    ap.add_argument("--defer", action="store_true",
                    help="build with deferred calls (-fplugin-arg-crashtrail-defer-calls=1; "
                         "without it, =0: the ring build); "
                         "an expect-OPT@defer line, if any, replaces expect-OPT")
    args = ap.parse_args()
    spec = parse_header(args.program)
    if args.strip:
        spec["strip"] = args.strip
    srcs = [args.program] + [os.path.join(os.path.dirname(args.program), spec[k])
                             for k in ("library", "plain-library") if k in spec]
    marks = markers(srcs)
    work = tempfile.mkdtemp(prefix="ct-e2e-")
    try:
        plain_dir, dumps = os.path.join(work, "plain"), os.path.join(work, "dumps")
        os.makedirs(plain_dir)
        os.makedirs(dumps)
        base = os.path.splitext(os.path.basename(args.program))[0]
        if base == "main":
            base = os.path.basename(os.path.dirname(args.program))
        exe = build(args, args.program, os.path.join(work, base), args.opt, True, work)
        plain = build(args, args.program, os.path.join(plain_dir, base), args.opt, False, plain_dir)
        show_args = strip_binary(exe, spec["strip"], work) if "strip" in spec else []
        if "plain-library" in spec:
            show_args += ["--debug-dir", os.path.join(work, "debugroot")]
        env = dict(os.environ, CRASHTRAIL_DIR=dumps)
        r = run([exe], env=env, cwd=work)
        p = run([plain], cwd=work)
        if r.stdout != p.stdout:
            fail("stdout differs with the plugin:\n%r\n%r" % (r.stdout, p.stdout))
        if r.returncode != p.returncode:
            fail("exit status %d with crashtrail, %d without" % (r.returncode, p.returncode))
        theirs = [l for l in r.stderr.splitlines() if not l.startswith("crashtrail: ")]
        if theirs != p.stderr.splitlines():
            fail("stderr differs beyond crashtrail's line:\n%r\n%r" % (r.stderr, p.stderr))
        files = os.listdir(dumps)
        if "exit" in spec:
            if r.returncode != int(spec["exit"]):
                fail("exit status %d, expected %s" % (r.returncode, spec["exit"]))
            if files:
                fail("a program that did not crash wrote %s" % files)
            print("ok: no crash, no dump, same output and status")
            return
        signo = getattr(signal, spec["signal"])
        if r.returncode != -signo:
            fail("exit status %d, expected death by %s\n%s" % (r.returncode, spec["signal"], r.stderr))
        if len(files) != 1:
            fail("expected one dump, found %s; stderr:\n%s" % (files, r.stderr))
        dump = os.path.join(dumps, files[0])
        if "dump written to " + dump not in r.stderr:
            fail("stderr does not name the dump:\n" + r.stderr)
        crashtrail = os.path.join(args.build, "bin", "crashtrail")
        j = run([crashtrail, "show", "--format=json", dump] + show_args)
        if j.returncode:
            fail("crashtrail show failed:\n" + j.stderr)
        tl = json.loads(j.stdout)
        if tl["format"] != "crashtrail-timeline" or tl["version"] != 1:
            fail("wrong format header")
        problems = check_windows(crashtrail, dump, tl, show_args)
        if problems:
            fail("--steps=N differs from the full timeline:\n" + "\n".join(problems[:10]))
        if tl["signal"]["name"] != spec["signal"]:
            fail("signal %s, expected %s" % (tl["signal"]["name"], spec["signal"]))
        crashed = [t for t in tl["threads"] if t["crashed"]]
        if len(crashed) != 1 or crashed[0]["tid"] != tl["crashed_thread"]:
            fail("crashed thread not named exactly once")
        th = crashed[0]
        if "crashed-thread" in spec and th["name"] != spec["crashed-thread"]:
            fail("crashed thread is %r, expected %r" % (th["name"], spec["crashed-thread"]))
        lib_module = "lib" + os.path.splitext(spec["library"])[0] + ".so" if "library" in spec else None
        check_steps(spec, args.opt, th["steps"], marks, lib_module, os.path.basename(exe), llvm_major(args.clang),
                    args.defer)
        check_stack(spec, args.opt, th["stack"])
        check_frame_line(spec, th["stack"], marks)
        check_locals(spec, args.opt, th)
        check_crash_step(spec, th["steps"][-1], th["stack"])
        if "warning" in spec and not any(re.search(spec["warning"], w) for w in tl["warnings"]):
            fail("no warning matches %r: %s" % (spec["warning"], tl["warnings"]))
        if "other-thread" in spec:
            others = [t for t in tl["threads"] if t["name"] == spec["other-thread"]]
            if len(others) != 1 or not others[0]["steps"] or others[0]["crashed"]:
                fail("thread %r missing, empty or marked crashed" % spec["other-thread"])
            if {s["module"] for s in others[0]["steps"]} != {os.path.basename(exe)}:
                fail("thread %r has steps outside the executable" % spec["other-thread"])
        t = run([crashtrail, "show", dump] + show_args)
        if t.returncode or "<== crash" not in t.stdout:
            fail("text output:\n" + t.stdout + t.stderr)
        print("ok: %d steps as expected, %s, stack %s" % (len(th["steps"]), spec["signal"],
              " ".join(f["function"] for f in th["stack"][:4])))
    finally:
        if os.environ.get("CT_KEEP"):
            print("kept " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
