#!/usr/bin/env python3
"""The runtime's crash matrix (issue 4; docs/runtime.md): one ctest test per case.

    run_runtime_test.py --build BUILD --clang CLANG --case NAME

Each case builds small programs from programs/ with crashtrail-cc (and, to compare, with plain
clang), runs them in a scratch directory with a timeout, and checks two things:

  how the process ended, as the shell sees it: the raw wait status, so the signal AND the
      core-dump flag (RLIMIT_CORE is raised, so the flag means something) are compared with
      the same program built without crashtrail;
  the dump read back: how many there are, and what `crashtrail show --format=json` and
      ct-dumpcheck (the raw sections: thread flags, rings, modules, events) find in them.

Exit status: 0 pass, 1 fail (one "FAIL:" line says why), 77 skipped (ctest SKIP_RETURN_CODE).
CT_KEEP=1 keeps the scratch directory.
"""
import argparse
import glob
import json
import mmap
import os
import pwd
import re
import resource
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
# What the ring build writes (a record before every call), for the cases that check its rings,
# stamps and tables as such: with deferred calls a program may write no record before it dies.
# And for the on-demand dumps of four busy workers, decoded several times each: with deferred
# calls their 256 KiB rings hold some two million steps each, 60 times the ring build's.
RING_BUILD = ["-fplugin-arg-crashtrail-defer-calls=0"]
SKIP = 77

# dump_format.h
REASON_SIGNAL, REASON_REQUEST = 1, 2
THR_CRASHED, THR_EXITED, THR_PREFORK, THR_DUMPING = 1, 2, 4, 8
MOD_INSTRUMENTED, MOD_UNLOADED, MOD_MAIN = 1, 2, 4
EV_LOAD, EV_UNLOAD, EV_FORK, EV_THREAD_START, EV_THREAD_EXIT = 1, 2, 3, 4, 5
DEFAULT_RING_BYTES = 256 * 1024


class Fail(Exception):
    pass


class Skip(Exception):
    pass


def expect(cond, msg):
    if not cond:
        raise Fail(msg)


class Result:
    """How a run ended: the raw wait status, decoded, plus its output."""

    def __init__(self, status, out, err, secs):
        self.status, self.out, self.err, self.secs = status, out, err, secs
        self.sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
        self.core = bool(os.WIFSIGNALED(status) and os.WCOREDUMP(status))
        self.code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None

    def how(self):
        if self.sig:
            return "killed by %s%s" % (signal.Signals(self.sig).name,
                                       " (core dumped)" if self.core else "")
        return "exit %d" % self.code

    def crashtrail_lines(self):
        return [l for l in self.err.splitlines() if l.startswith("crashtrail: ")]


class Case:
    """A scratch directory, the tools, and helpers to build, run and read dumps."""

    def __init__(self, args):
        self.args = args
        self.work = tempfile.mkdtemp(prefix="ct-rt-")
        os.chmod(self.work, 0o755)
        self.bin = os.path.join(args.build, "bin")
        self.dumps = self.mkdir("dumps")
        self.fallback = self.mkdir("fallback")  # TMPDIR: where the fallback dumps go
        self.nrun = 0

    def mkdir(self, name):
        path = os.path.join(self.work, name)
        os.makedirs(path, exist_ok=True)
        return path

    # ---- building ------------------------------------------------------------------------
    def build(self, sources, out, plain=False, flags=(), plain_objects=()):
        """Builds sources (names in programs/) into work/out; plain: without crashtrail.
        plain_objects: sources compiled without the plugin even in the instrumented build."""
        cc = self.args.clang if plain else os.path.join(self.bin, "crashtrail-cc")
        exe = os.path.join(self.work, out)
        cmd = [cc, "-O1", "-pthread", "-Wall"] + list(flags)
        extra = []
        for src in plain_objects:
            obj = os.path.join(self.work, out + "." + os.path.basename(src) + ".o")
            r = subprocess.run([self.args.clang, "-O1", "-c", "-fPIC",
                                "-I" + os.path.join(self.args.source, "runtime"),
                                "-I" + os.path.join(self.args.source, "include"),
                                os.path.join(PROGRAMS, src), "-o", obj] +
                               (["-DCT_PLAIN"] if plain else []),
                               capture_output=True, text=True, timeout=120)
            if r.returncode:
                raise Fail("build of %s failed:\n%s" % (src, r.stderr))
            extra.append(obj)
        cmd += [os.path.join(PROGRAMS, s) for s in sources] + extra + ["-o", exe]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if r.returncode:
            raise Fail("build failed: %s\n%s" % (" ".join(cmd), r.stderr))
        return exe

    def build_pair(self, sources, out, **kw):
        """The program with crashtrail, and the same program without."""
        return self.build(sources, out, **kw), self.build(sources, out + "-plain", plain=True, **kw)

    # ---- running -------------------------------------------------------------------------
    def env(self, extra=None):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("CRASHTRAIL_") and k not in ("ASAN_OPTIONS", "TMPDIR")}
        env.update(CRASHTRAIL_DIR=self.dumps, TMPDIR=self.fallback)
        for k, v in (extra or {}).items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        return env

    def run(self, argv, env=None, timeout=20, core=True, fsize=None, user=None, stdin=None):
        """fork/exec argv in a fresh scratch cwd; returns a Result with the raw wait status.
        core: raise RLIMIT_CORE so the core flag of the status is meaningful (cores land in
        the scratch cwd and are deleted). fsize: RLIMIT_FSIZE in bytes. user: run as that uid
        and gid. A run that outlives `timeout` is killed and fails the test."""
        self.nrun += 1
        cwd = self.mkdir("run%d" % self.nrun)
        os.chmod(cwd, 0o777)
        out_path, err_path = os.path.join(cwd, ".stdout"), os.path.join(cwd, ".stderr")
        env = self.env(env)
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:
            try:
                # Python ignores SIGPIPE and SIGXFSZ, and exec keeps ignored signals ignored:
                # give the program the dispositions a shell would.
                for sig in (signal.SIGPIPE, signal.SIGXFSZ):
                    signal.signal(sig, signal.SIG_DFL)
                os.setpgid(0, 0)
                os.chdir(cwd)
                fd_in = os.open(stdin or os.devnull, os.O_RDONLY)
                fd_out = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                fd_err = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(fd_in, 0)
                os.dup2(fd_out, 1)
                os.dup2(fd_err, 2)
                lim = resource.RLIM_INFINITY if core else 0
                resource.setrlimit(resource.RLIMIT_CORE, (lim, lim))
                if fsize is not None:
                    resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
                if user is not None:
                    os.setgroups([])
                    os.setgid(user)
                    os.setuid(user)
                os.execve(argv[0], argv, env)
            except BaseException as e:  # noqa: BLE001 - the child must never return
                os.write(2, ("exec failed: %s\n" % e).encode())
            os._exit(127)
        status = None
        while status is None:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
            elif time.monotonic() - start > timeout:
                os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                raise Fail("%s did not end within %d s (hang)" % (" ".join(argv), timeout))
            else:
                time.sleep(0.005)
        secs = time.monotonic() - start
        for core_file in glob.glob(os.path.join(cwd, "core*")):
            os.unlink(core_file)
        out = open(out_path, errors="replace").read()
        err = open(err_path, errors="replace").read()
        return Result(status, out, err, secs)

    # ---- dumps ---------------------------------------------------------------------------
    def dump_files(self, where=None):
        return sorted(glob.glob(os.path.join(where or self.dumps, "crashtrail-*.ctd")))

    def one_dump(self, r, where=None):
        files = self.dump_files(where)
        expect(len(files) == 1, "expected exactly one dump in %s, found %d\nstderr:\n%s"
               % (where or self.dumps, len(files), r.err))
        return files[0]

    def show(self, dump):
        r = subprocess.run([os.path.join(self.bin, "crashtrail"), "show", "--format=json", dump],
                           capture_output=True, text=True, timeout=60)
        expect(r.returncode == 0, "crashtrail show failed on %s:\n%s" % (dump, r.stderr))
        return json.loads(r.stdout)

    def show_newest(self, dump, steps):
        """`crashtrail show --format=json --steps=N`: each thread's newest N steps (windowed
        decoding, which makes only those)."""
        r = subprocess.run([os.path.join(self.bin, "crashtrail"), "show", "--format=json",
                            "--steps=%d" % steps, dump], capture_output=True, text=True, timeout=60)
        expect(r.returncode == 0, "crashtrail show --steps failed on %s:\n%s" % (dump, r.stderr))
        return json.loads(r.stdout)

    def raw(self, dump):
        """The dump's raw sections (ct-dumpcheck); {"ok": False, "error": ...} if refused."""
        r = subprocess.run([self.args.dumpcheck, dump], capture_output=True, text=True,
                           timeout=60)
        return json.loads(r.stdout)

    def cleanup(self):
        if os.environ.get("CT_KEEP"):
            print("kept " + self.work)
        else:
            shutil.rmtree(self.work, ignore_errors=True)


# ---- shared checks ---------------------------------------------------------------------------
def same_death(r, plain, signo):
    """r died exactly like the program without crashtrail: signal signo, same core flag."""
    expect(r.sig == signo, "with crashtrail: %s, expected death by %s\nstderr:\n%s"
           % (r.how(), signal.Signals(signo).name, r.err))
    expect(r.status == plain.status, "with crashtrail: %s; without: %s (raw %#x vs %#x)"
           % (r.how(), plain.how(), r.status, plain.status))


def announced(r, dump):
    expect("dump written to " + dump in r.err, "stderr does not name the dump %s:\n%s"
           % (dump, r.err))


def crashed_thread(tl, name=None, tid=None):
    """The timeline's crashed thread: exactly one, with the given name/tid, with steps."""
    crashed = [t for t in tl["threads"] if t["crashed"]]
    expect(len(crashed) == 1, "%d threads marked crashed, expected 1" % len(crashed))
    th = crashed[0]
    expect(th["tid"] == tl["crashed_thread"], "crashed_thread does not name the crashed thread")
    if name is not None:
        expect(th["name"] == name, "crashed thread is named %r, expected %r" % (th["name"], name))
    if tid is not None:
        expect(th["tid"] == tid, "crashed thread is %d, expected %d" % (th["tid"], tid))
    expect(th["steps"], "the crashed thread has no steps")
    return th


def functions(th):
    return [s["function"] for s in th["steps"]]


def check_signal_dump(c, r, signo, code=None, name="ct-main"):
    """One dump, announced on stderr, of signal signo (and si_code), whose crashed thread is
    the main thread (tid == pid) named `name`."""
    dump = c.one_dump(r)
    announced(r, dump)
    tl = c.show(dump)
    raw = c.raw(dump)
    expect(raw["ok"], "ct-dumpcheck refuses the dump: %s" % raw.get("error"))
    expect(tl["signal"]["number"] == signo, "dump says signal %s, expected %s"
           % (tl["signal"]["name"], signal.Signals(signo).name))
    expect(raw["reason"] == REASON_SIGNAL, "reason %d, expected signal" % raw["reason"])
    if code is not None:
        expect(tl["signal"]["code"] == code, "signal code %s, expected %s"
               % (tl["signal"]["code"], code))
    th = crashed_thread(tl, name=name, tid=raw["pid"])
    flags = {t["tid"]: t["flags"] for t in raw["threads"]}
    expect(flags.get(th["tid"], 0) & THR_CRASHED and flags[th["tid"]] & THR_DUMPING,
           "the crashed thread's section lacks CT_THR_CRASHED or CT_THR_DUMPING")
    expect(raw["has_regs"] and raw["regs_tid"] == th["tid"], "no registers for the crashed thread")
    vdso = raw.get("vdso")
    expect(vdso and vdso["bytes"] >= 4096 and vdso["elf"] and vdso["in_maps"],
           "the dump's vDSO image is missing or not the mapped one: %s" % vdso)
    mode = stat.S_IMODE(os.stat(dump).st_mode)
    expect(mode == 0o600, "the dump's mode is %o, expected 600" % mode)
    return dump, tl, raw, th


# ---- the cases -------------------------------------------------------------------------------
CASES = {}


def case(name):
    def register(fn):
        CASES[name] = fn
        return fn
    return register


SIGNAL_CASES = {  # mode -> signal, si_code name in the timeline
    "segv": (signal.SIGSEGV, "SEGV_MAPERR"),
    "bus": (signal.SIGBUS, "BUS_ADRERR"),
    "ill": (signal.SIGILL, "ILL_ILLOPN"),
    "fpe": (signal.SIGFPE, "FPE_INTDIV"),
    "abort": (signal.SIGABRT, "SI_TKILL"),
    "assert": (signal.SIGABRT, "SI_TKILL"),
    "trap": (signal.SIGTRAP, "SI_KERNEL"),
    "sys": (signal.SIGSYS, "SYS_SECCOMP"),
}


def signal_case(mode):
    signo, code = SIGNAL_CASES[mode]

    def run_case(c):
        exe, plain = c.build_pair(["crash.c"], "crash")
        r, p = c.run([exe, mode]), c.run([plain, mode])
        same_death(r, p, signo)
        # The core flag is compared above; it only means something where cores are written.
        note = "" if p.core else " (this system writes no core dumps: only the signal compared)"
        expect(r.out == p.out, "stdout differs: %r vs %r" % (r.out, p.out))
        if mode == "assert":
            expect("Assertion" in r.err and "argc is never negative" in r.err,
                   "the assertion message is missing:\n" + r.err)
        _, _, _, th = check_signal_dump(c, r, signo, code)
        expect("step" in functions(th), "the crashed thread's steps lack step(): %s"
               % functions(th))
        return "%s, dump of %d steps, code %s%s" % (r.how(), len(th["steps"]), code, note)
    return run_case


for _mode in SIGNAL_CASES:
    case("signal." + _mode)(signal_case(_mode))


@case("stack_overflow")
def stack_overflow(c):
    """Deep recursion, in the main thread and in a second one: the handler runs on the
    thread's alternate stack and writes the dump, with a stack slice."""
    exe, plain = c.build_pair(["crash.c"], "crash")
    seen = []
    for mode, name in (("overflow", "ct-main"), ("overflow-thread", "ct-deep")):
        r, p = c.run([exe, mode]), c.run([plain, mode])
        same_death(r, p, signal.SIGSEGV)
        dump = c.one_dump(r)
        announced(r, dump)
        tl, raw = c.show(dump), c.raw(dump)
        th = crashed_thread(tl, name=name)
        expect(functions(th)[-1] == "recurse", "%s: the last step is %s, not recurse"
               % (mode, functions(th)[-1]))
        expect(raw["stack_bytes"] > 0, "%s: no stack slice" % mode)
        os.unlink(dump)
        seen.append("%s: %s, %d steps, %d stack bytes" % (name, r.how(), len(th["steps"]),
                                                          raw["stack_bytes"]))
    return "; ".join(seen)


@case("stack_overflow.unrecorded_thread")
def stack_overflow_unrecorded_thread(c):
    """A thread that overflows its stack before it ever records: its start routine runs no
    instrumented code (a library's worker), or, with deferred calls, its recursion writes no
    record on the way down. The runtime sets up every thread that instrumented code creates
    (runtime/thread_start.c), so the handler has its alternate stack, the dump is written,
    and the main thread's recorded steps are in it (without that set-up the kernel kills the
    process and every thread's history is lost)."""
    seen = []
    for variant, flags, mode, name in (
            ("ring", [], "overflow-quiet-thread", "ct-quiet"),
            ("defer", ["-fplugin-arg-crashtrail-defer-calls=1"], "overflow-quiet-thread", "ct-quiet"),
            ("defer", ["-fplugin-arg-crashtrail-defer-calls=1"], "overflow-thread", "ct-deep")):
        exe, plain = c.build_pair(["crash.c"], "crash_" + variant, flags=flags)
        r, p = c.run([exe, mode]), c.run([plain, mode])
        same_death(r, p, signal.SIGSEGV)
        dump = c.one_dump(r)
        announced(r, dump)
        tl, raw = c.show(dump), c.raw(dump)
        crashed = [t for t in tl["threads"] if t["crashed"]]
        expect(len(crashed) == 1 and crashed[0]["name"] == name,
               "%s %s: the crashed thread is %s, expected %s" % (
                   variant, mode, [t["name"] for t in crashed], name))
        expect(crashed[0]["tid"] == tl["crashed_thread"], "crashed_thread names another thread")
        main = [t for t in tl["threads"] if t["name"] == "ct-main"]
        expect(main and "step" in functions(main[0]),
               "%s %s: the main thread's recorded steps are missing: %s" % (
                   variant, mode, main and functions(main[0])))
        expect(raw["stack_bytes"] > 0, "%s %s: no stack slice" % (variant, mode))
        os.unlink(dump)
        seen.append("%s %s: %s, main %d steps" % (variant, mode, r.how(), len(main[0]["steps"])))
    return "; ".join(seen)


@case("stopped_threads.unrecorded")
def stopped_threads_unrecorded(c):
    """A thread that never ran instrumented code (programs/unrecorded_waiter.c: its start routine
    opted out) waits in pthread_cond_wait when the main thread crashes. It owns no ring, but the
    runtime stops every thread /proc/self/task lists, so the dump names it and holds its stack
    (waiter inside pthread_cond_wait), with no history. With CRASHTRAIL_CAPTURE_SIGNAL=0 it is
    not in the dump (nothing of it was recorded)."""
    exe = c.build(["unrecorded_waiter.c"], "unrecorded_waiter", flags=["-g"])
    r = c.run([exe])
    expect(r.sig == signal.SIGSEGV, r.how())
    dump = c.one_dump(r)
    raw, tl = c.raw(dump), c.show(dump)
    os.unlink(dump)
    byname = {th["name"]: th for th in tl["threads"]}
    expect("ct-waiter" in byname, "the waiter is not in the dump: %s" % sorted(byname))
    w = byname["ct-waiter"]
    expect(w["tid"] in [s["tid"] for s in raw["stopped"]], "the waiter was not stopped: %s"
           % raw["stopped"])
    expect(not [g for g in raw["rings"] if g["tid"] == w["tid"]], "the waiter owns a ring")
    fns = [f["function"] for f in w["stack"]]
    expect("waiter" in fns and any("cond_wait" in f for f in fns[:fns.index("waiter")]),
           "the waiter's stack is %s" % fns)
    expect(not [st for st in w["steps"] if st["function"] == "waiter"],
           "the waiter has steps of its own code: %s" % w["steps"])
    expect("main" in functions(crashed_thread(tl, name="ct-main")), "main's steps are missing")
    r = c.run([exe], env={"CRASHTRAIL_CAPTURE_SIGNAL": "0"})
    dump = c.one_dump(r)
    names = [th["name"] for th in c.show(dump)["threads"]]
    os.unlink(dump)
    expect("ct-waiter" not in names, "without capture the waiter is still dumped: %s" % names)
    return "waiter's stack %s" % " < ".join(fns[:fns.index("waiter") + 1])


@case("threads8")
def threads8(c):
    """Eight threads fault at the same moment: one dump, all eight threads in it."""
    exe, plain = c.build_pair(["threads8.c"], "threads8")
    r, p = c.run([exe]), c.run([plain])
    same_death(r, p, signal.SIGSEGV)
    dump = c.one_dump(r)
    announced(r, dump)
    expect(len([l for l in r.crashtrail_lines() if "dump written" in l]) == 1,
           "more than one dump announced:\n" + r.err)
    tl, raw = c.show(dump), c.raw(dump)
    names = sorted(t["name"] for t in tl["threads"])
    want = ["ct-w%d" % i for i in range(8)]
    expect(all(n in names for n in want), "threads in the dump: %s; expected %s" % (names, want))
    th = crashed_thread(tl)
    expect(th["name"] in want, "the crashed thread is %r" % th["name"])
    expect(r.secs < 10, "took %.1f s" % r.secs)
    rings = {g["tid"] for g in raw["rings"] if g["records"] > 0}
    workers = [t["tid"] for t in tl["threads"] if t["name"] in want]
    expect(all(w in rings for w in workers), "a worker's ring is missing or empty")
    return "%s in %.2f s; one dump with %s; crashed %s" % (r.how(), r.secs, " ".join(want),
                                                          th["name"])


@case("blocked_signals")
def blocked_signals(c):
    """A thread created with every signal blocked faults: the runtime unblocks the fault
    signals when the thread first records, so the handler runs (a blocked fault signal kills
    the process without any handler) and the dump names the thread."""
    exe, plain = c.build_pair(["blocked.c"], "blocked")
    r, p = c.run([exe]), c.run([plain])
    same_death(r, p, signal.SIGSEGV)
    dump = c.one_dump(r)
    announced(r, dump)
    th = crashed_thread(c.show(dump), name="ct-blocked")
    expect(functions(th)[-1] == "worker", "the last step is in %s, not worker" % functions(th)[-1])
    return "%s; one dump, crashed thread ct-blocked, %d steps" % (r.how(), len(th["steps"]))


@case("blocked_signals.later")
def blocked_signals_later(c):
    """Masks set after a thread's first record: the main thread blocks everything with
    sigprocmask, a worker with pthread_sigmask, a handler runs with a full sa_mask, an
    uninstrumented shared library blocks everything; each then faults and must dump
    (signal_mask.c). And what the program can observe of those functions is what it observes
    without crashtrail."""
    lib = c.build(["masks_lib.c"], "libmasks.so", plain=True, flags=["-shared", "-fPIC"])
    exe, plain = c.build_pair(["masks.c"], "masks", flags=[lib])
    out = []
    for mode, signo, thread, last in (("main", signal.SIGSEGV, "ct-main", "fault"),
                                      ("thread", signal.SIGSEGV, "ct-masked", "fault"),
                                      ("handler", signal.SIGFPE, "ct-main", "on_usr1"),
                                      ("lib", signal.SIGSEGV, "ct-main", "fault")):
        for f in c.dump_files():
            os.unlink(f)
        r, p = c.run([exe, mode]), c.run([plain, mode])
        same_death(r, p, signo)
        dump = c.one_dump(r)
        announced(r, dump)
        th = crashed_thread(c.show(dump), name=thread)
        expect(functions(th)[-1] == last, "%s: the last step is in %s, not %s"
               % (mode, functions(th)[-1], last))
        out.append("%s: %s, dump" % (mode, r.how()))
    for f in c.dump_files():
        os.unlink(f)
    r, p = c.run([exe, "api"]), c.run([plain, "api"])
    expect(r.status == 0 and p.status == 0, "api: %s / %s\n%s" % (r.how(), p.how(), r.err))
    expect(r.out == p.out, "api: the program sees other results with crashtrail:\n%s\nwithout:\n%s"
           % (r.out, p.out))
    expect(not c.dump_files(), "api: a dump was written")
    return "; ".join(out) + "; api output identical (%d lines)" % len(r.out.splitlines())


def truncated_dump(c, r):
    """The nested fault stopped the writer: the file is there, and refused as truncated."""
    files = c.dump_files()
    expect(len(files) == 1, "expected the one interrupted dump, found %s" % files)
    expect("dump written" not in r.err, "the dump completed, so no fault was injected:\n"
           + r.err)
    raw = c.raw(files[0])
    expect(not raw["ok"] and "truncated" in raw["error"],
           "the interrupted dump is not reported as truncated: %s" % raw)


@case("nested_fault.corrupt")
def nested_corrupt(c):
    """The dump writer faults on runtime state the program corrupted: death by the ORIGINAL
    signal (SIGFPE), not SIGSEGV, and no hang."""
    exe = c.build(["nested.c"], "nested", plain_objects=["nested_corrupt.c"], flags=RING_BUILD)
    plain = c.build(["nested.c"], "nested-plain", plain=True, plain_objects=["nested_corrupt.c"])
    r, p = c.run([exe, "corrupt"], timeout=15), c.run([plain, "corrupt"])
    same_death(r, p, signal.SIGFPE)
    truncated_dump(c, r)
    return "%s in %.2f s; the cut dump is refused as truncated" % (r.how(), r.secs)


@case("nested_fault.kill")
def nested_kill(c):
    """SIGSEGV sent to the thread writing a (slow, 64 MiB ring) dump of a SIGABRT: death by
    SIGABRT, no hang."""
    exe = c.build(["nested.c"], "nested", plain_objects=["nested_corrupt.c"], flags=RING_BUILD)
    plain = c.build(["nested.c"], "nested-plain", plain=True, plain_objects=["nested_corrupt.c"])
    env = {"CRASHTRAIL_RING_KB": "65536"}
    p = c.run([plain, "kill"], env=env, core=False)  # first: its watcher must find no dump
    r = c.run([exe, "kill"], env=env, timeout=30, core=False)
    same_death(r, p, signal.SIGABRT)
    truncated_dump(c, r)
    return "%s in %.2f s; the cut dump is refused as truncated" % (r.how(), r.secs)


@case("nested_fault.ondemand")
def nested_ondemand(c):
    """The writer of an on-demand crashtrail_dump() faults (corrupted state): the crash handler
    must not wait for the dump its own thread holds; death by SIGSEGV, quickly."""
    exe = c.build(["nested.c"], "nested", plain_objects=["nested_corrupt.c"], flags=RING_BUILD)
    r = c.run([exe, "ondemand"], timeout=15)
    expect(r.sig == signal.SIGSEGV, "%s, expected SIGSEGV\n%s" % (r.how(), r.err))
    expect(r.secs < 5, "took %.1f s: the crash handler waited for its own thread" % r.secs)
    expect(any("no dump written" in l for l in r.crashtrail_lines()),
           "the crash handler did not say it wrote no dump:\n" + r.err)
    return "%s in %.2f s" % (r.how(), r.secs)


@case("crash_during_ondemand")
def crash_during_ondemand(c):
    """A thread crashes while another writes an on-demand dump (slow: 64 MiB ring): the crash
    waits for it and writes its own dump; two dumps, death by SIGSEGV, no long wait."""
    exe = c.build(["nested.c"], "nested", plain_objects=["nested_corrupt.c"])
    r = c.run([exe, "busy"], env={"CRASHTRAIL_RING_KB": "65536"}, timeout=30, core=False)
    expect(r.sig == signal.SIGSEGV, "%s, expected SIGSEGV\n%s" % (r.how(), r.err))
    expect(r.secs < 10, "took %.1f s" % r.secs)
    files = c.dump_files()
    expect(len(files) == 2, "expected the requested dump and the crash dump, found %s\n%s"
           % (files, r.err))
    reasons = sorted(c.raw(f)["reason"] for f in files)
    expect(reasons == [REASON_SIGNAL, REASON_REQUEST], "dump reasons %s" % reasons)
    return "%s in %.2f s; a requested dump and a crash dump" % (r.how(), r.secs)


@case("fork_child")
def fork_child(c):
    """The child of fork crashes: its dump is under its own pid with its own steps; the parent
    goes on and exits 0."""
    exe, plain = c.build_pair(["fork.c"], "fork")
    r, p = c.run([exe]), c.run([plain])
    expect(r.code == 0 and p.code == 0, "parent: %s (without crashtrail %s)\n%s"
           % (r.how(), p.how(), r.err))
    status = re.search(r"child-status (-?\d+) (\d)", r.out)
    expect(status and status.group(0) in p.out, "the child died differently: %r vs %r"
           % (r.out, p.out))
    expect(int(status.group(1)) == signal.SIGSEGV, "child: " + status.group(0))
    expect("parent done" in r.out, "the parent did not go on")
    child = int(re.search(r"child (\d+)", r.out).group(1))
    dump = c.one_dump(r)
    raw, tl = c.raw(dump), c.show(dump)
    expect(raw["pid"] == child, "dump pid %d, child %d" % (raw["pid"], child))
    expect("-%d-" % child in os.path.basename(dump), "the file name lacks the child's pid")
    th = crashed_thread(tl, name="ct-child", tid=child)
    fns = functions(th)
    expect("child_work" in fns and "parent_after" not in fns,
           "the child's steps: %s" % fns)
    prefork = [t for t in raw["threads"] if t["flags"] & THR_PREFORK]
    expect(prefork, "the parent's other thread is not in the dump as a pre-fork thread")
    expect(any(e["kind"] == EV_FORK for e in raw["events"]), "no fork event")
    return "parent exit 0, child %s; dump under pid %d with child_work, %d pre-fork thread(s)" \
        % (status.group(0), child, len(prefork))


@case("dlclose")
def dlclose_case(c):
    """A crash after dlclose of an instrumented library (loaded twice, after 600 threads have
    come and gone, so the event log has wrapped): the dump is readable, and both loads are in
    it, marked unloaded, with their rings and their load/unload events."""
    lib = c.build(["dl_lib.c"], "libct_dl.so", flags=["-shared", "-fPIC"])
    plain_lib = c.build(["dl_lib.c"], "libct_dl_plain.so", plain=True, flags=["-shared", "-fPIC"])
    exe, plain = c.build_pair(["dl_main.c"], "dl_main", flags=["-ldl"])
    r, p = c.run([exe, lib, "600"]), c.run([plain, plain_lib, "600"])
    same_death(r, p, signal.SIGSEGV)
    dump = c.one_dump(r)
    announced(r, dump)
    raw, tl = c.raw(dump), c.show(dump)
    main_mod = [m for m in raw["modules"] if m["path"] == exe]
    expect(main_mod and main_mod[0]["flags"] == MOD_INSTRUMENTED | MOD_MAIN,
           "the executable's module entry: %s" % main_mod)
    mods = [m for m in raw["modules"] if m["path"] == lib]
    expect(len(mods) == 2, "expected two loads of the library in the module list: %s"
           % raw["modules"])
    for m in mods:
        expect(m["flags"] & MOD_UNLOADED, "the library is not marked unloaded: %s" % m)
        expect(m["build_id_len"] > 0, "the library has no build-id")
        kinds = [e["kind"] for e in raw["events"] if e["module"] == m["id"]]
        expect(EV_LOAD in kinds and EV_UNLOAD in kinds, "load/unload events: %s" % kinds)
        rings = [g for g in raw["rings"] if g["module"] == m["id"]]
        expect(rings and sum(g["records"] for g in rings) > 0, "the library's ring is lost")
    th = crashed_thread(tl, tid=raw["pid"])
    fns = [(s["module"], s["function"]) for s in th["steps"]]
    expect(("libct_dl.so", "lib_work") in fns and ("libct_dl.so", "lib_step") in fns,
           "the unloaded library's steps are not decoded: %s" % fns)
    # main, the first load, main, the second load, main: the order survives both unloads
    runs = [k for i, k in enumerate(m for m, _ in fns) if i == 0 or fns[i - 1][0] != k]
    expect(runs == ["dl_main", "libct_dl.so", "dl_main", "libct_dl.so", "dl_main"],
           "module order of the steps: %s" % runs)
    return "%s; two loads, both unloaded, their steps decoded in order" % r.how()


@case("stamping")
def stamping(c):
    """Stamps cost only where they order something: a program with one instrumented module
    writes no stamped record at all; when an instrumented library is loaded, stamping turns
    on, the loading thread's existing ring gets one CUT marker, and from then on the records
    where control may change module are stamped (so the timeline keeps the module order)."""
    exe = c.build(["crash.c"], "crash", flags=RING_BUILD)
    r = c.run([exe, "segv"])
    expect(r.sig == signal.SIGSEGV, "crash segv: %s" % r.how())
    dump = c.one_dump(r)
    raw = c.raw(dump)
    single = sum(g["records"] for g in raw["rings"])
    os.unlink(dump)
    expect(raw["rings"] and all(g["records"] > 0 and g["stamped"] == 0 and g["cuts"] == 0
                                for g in raw["rings"]),
           "one module: no stamps and no cuts expected: %s" % raw["rings"])
    lib = c.build(["dl_lib.c"], "libct_dl.so", flags=["-shared", "-fPIC"] + RING_BUILD)
    exe2 = c.build(["dl_main.c"], "dl_main", flags=["-ldl"] + RING_BUILD)
    r = c.run([exe2, lib])
    expect(r.sig == signal.SIGSEGV, "dl_main: %s" % r.how())
    dump = c.one_dump(r)
    raw, tl = c.raw(dump), c.show(dump)
    main_id = [m["id"] for m in raw["modules"] if m["path"] == exe2][0]
    main_rings = [g for g in raw["rings"] if g["module"] == main_id]
    lib_rings = [g for g in raw["rings"] if g["module"] != main_id]
    expect(len(main_rings) == 1 and main_rings[0]["cuts"] == 1,
           "the executable's ring should hold exactly one CUT: %s" % main_rings)
    expect(main_rings[0]["stamped"] > 0 and lib_rings and all(g["stamped"] > 0 for g in lib_rings),
           "records after the library was loaded are not stamped: %s" % raw["rings"])
    expect(main_rings[0]["stamped"] < main_rings[0]["records"],
           "records before the library was loaded carry stamps: %s" % main_rings)
    th = crashed_thread(tl, tid=raw["pid"])
    mods = [s["module"] for s in th["steps"]]
    runs = [k for i, k in enumerate(mods) if i == 0 or mods[i - 1] != k]
    expect(runs == ["dl_main", "libct_dl.so", "dl_main", "libct_dl.so", "dl_main"],
           "module order of the steps: %s" % runs)
    # Enough cross-module calls to wrap the stamps' low 16 bits: every ring of the thread gets
    # a SEQ marker (written from a stamped flush's slow path, between its reading of the ring
    # position and its record), and the steps still alternate call by call: every lib_work(1)
    # in the window is one run of the library's steps, all of the same length.
    os.unlink(dump)
    r = c.run([exe2, lib, "0", "40000"])
    expect(r.sig == signal.SIGSEGV, "dl_main with 40000 calls: %s" % r.how())
    dump = c.one_dump(r)
    raw, tl = c.raw(dump), c.show(dump)
    lib2 = [g for g in raw["rings"] if g["module"] != main_id and g["records"] > 1000]
    expect(lib2 and all(g["seqs"] >= 1 for g in raw["rings"] if g["module"] == main_id) and
           all(g["seqs"] >= 1 for g in lib2), "a SEQ marker in every ring expected: %s" % raw["rings"])
    th = crashed_thread(tl, tid=raw["pid"])
    lens, k = [], 0
    for i, st in enumerate(th["steps"]):
        if st["module"] == "libct_dl.so": k += 1
        elif k: lens, k = lens + [k], 0
    expect(len(lens) > 1000 and len(set(lens[1:-1])) == 1,
           "lib_work(1) runs of different lengths (records out of order): %s" %
           sorted(set(lens))[:10])
    return ("one module: %d records, none stamped; two: one cut, %d of %d stamped, order kept; "
            "stamps wrapped %d times, %d calls in order" % (
                single, main_rings[0]["stamped"], main_rings[0]["records"],
                max(g["seqs"] for g in raw["rings"]), len(lens)))


@case("defer_marks")
def defer_marks(c):
    """Deferred calls (the pass's experimental defer-calls): no record before a direct call, so
    the rings of two instrumented modules would lose the cut they are ordered by. While stamping
    is on, a deferred call to a function that may be in another module writes a stamped mark
    (its id plus CT_REC_DEFER_MARK) from a cold fragment, through the stamped trampoline; with
    one module, or for a hidden callee, it writes none. The post-mortem puts the post-order
    records back in call order (postorder.c): with one module and with two, the crashed
    thread's steps are those the ring build of the same program shows, line for line, the
    crash line last (main was inside no call: its unfinished path comes from its register)."""
    defer = ["-fplugin-arg-crashtrail-defer-calls=1"]

    def steps(dump):
        th = crashed_thread(c.show(dump))
        return [(st["function"], st["line"]) for st in th["steps"]]

    exe = c.build(["defer_main.c", "defer_lib.c"], "defer_one", flags=defer)
    r = c.run([exe, "300"])
    expect(r.sig == signal.SIGSEGV, "one module: %s" % r.how())
    dump = c.one_dump(r)
    raw = c.raw(dump)
    expect(raw["rings"] and all(g["marks"] == 0 and g["stamped"] == 0 for g in raw["rings"]),
           "one module: no marks and no stamps expected: %s" % raw["rings"])
    one = steps(dump)
    os.unlink(dump)
    lib = c.build(["defer_lib.c"], "libct_defer.so",
                  flags=defer + ["-shared", "-fPIC", "-DCT_SHARED",
                                 "-Wl,--version-script=" + os.path.join(PROGRAMS, "defer_lib.map")])
    exe2 = c.build(["defer_main.c"], "defer_two",
                   flags=defer + [lib, "-Wl,-rpath," + os.path.dirname(lib)])
    r = c.run([exe2, "300"])
    expect(r.sig == signal.SIGSEGV, "two modules: %s" % r.how())
    dump = c.one_dump(r)
    raw = c.raw(dump)
    main_id = [m["id"] for m in raw["modules"] if m["path"] == exe2][0]
    main_rings = [g for g in raw["rings"] if g["module"] == main_id]
    # 200 calls of lib_step (i % 3 != 0 of 300), 60 of lib_twice and one of fflush (a declared
    # function that may call back), all after stamping turned on at start-up; none of
    # local_step (hidden).
    expect(len(main_rings) == 1 and main_rings[0]["marks"] == 261,
           "the executable's ring should hold one mark per call of lib_step, lib_twice and "
           "fflush: %s" % main_rings)
    expect(all(g["marks"] == 0 for g in raw["rings"] if g["module"] != main_id),
           "the library wrote marks: %s" % raw["rings"])
    two = steps(dump)
    os.unlink(dump)
    # With two modules every record is stamped and ends a segment of the merge: 1,000,000
    # iterations leave some 2.3 M of them (besides 0.9 M marks) in 64 MB rings. When every
    # piece gathered took a chunk entry of its own, two per segment were reserved, more than
    # the 2^22 a record's 32-bit reference names (jsoncpp's unit tests: "out of memory").
    r = c.run([exe2, "1000000"], env={"CRASHTRAIL_RING_KB": "65536"}, timeout=60)
    expect(r.sig == signal.SIGSEGV, "two modules, 1,000,000 iterations: %s" % r.how())
    dump = c.one_dump(r)
    rings = c.raw(dump)["rings"]
    stamped, marks = sum(g["stamped"] for g in rings), sum(g["marks"] for g in rings)
    expect(stamped - marks > 2_200_000, "1,000,000 iterations should leave more than 2.2 M "
           "stamped records besides the marks, not %d" % (stamped - marks))
    p = subprocess.run([os.path.join(c.bin, "crashtrail"), "show", "--color=never", dump],
                       capture_output=True, text=True, timeout=120)
    expect(p.returncode == 0, "crashtrail show failed on %d stamped records:\n%s" % (
        stamped, p.stderr[-2000:]))
    decoded = sum(int(m) for m in re.findall(r"steps from (\d+) records", p.stdout))
    expect(decoded == stamped - marks, "%d records decoded of %d stamped, %d of them marks" % (
        decoded, stamped, marks))
    os.unlink(dump)
    # The same program built without the option: what the timelines must show.
    ring = c.build(["defer_main.c", "defer_lib.c"], "ring_one")
    r = c.run([ring, "300"])
    expect(r.sig == signal.SIGSEGV, "ring build: %s" % r.how())
    want = steps(c.one_dump(r))
    calls = sum(1 for f, _ in want if f == "lib_step")
    twice = sum(1 for f, _ in want if f == "lib_twice_v2")
    expect(calls == 200 and twice == 60 and sum(1 for f, _ in want if f == "local_step") == 300,
           "the ring build's timeline lacks calls: %d of lib_step, %d of lib_twice_v2" % (
               calls, twice))
    for name, got in (("one module", one), ("two modules", two)):
        first = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), None)
        expect(got == want, "%s: %d steps against the ring build's %d, first difference at %s: "
               "%s against %s" % (name, len(got), len(want), first,
                                  got[first] if first is not None else None,
                                  want[first] if first is not None else None))
    return ("one module: no mark; two: %d marks for 260 calls into the library and fflush; "
            "both timelines the ring build's, %d steps" % (main_rings[0]["marks"], len(want)))


@case("defer_interposed")
def defer_interposed(c):
    """A library calls its own exported function, which the program defines too
    (programs/interposed_lib.c, interposed_main.c): the dynamic linker binds the call to the
    executable's copy, so the callee's records are in the executable's ring. With deferred
    calls the post-mortem must pair them with the library's call (it bound the call to the
    library's own copy and left them fitting no call: jsoncpp's unit tests, where the library's
    std::deque members ran the test program's copies). The crashed thread's steps, with
    deferred calls and without, must be the same, line for line."""

    def steps(mode):
        flags = ["-fplugin-arg-crashtrail-defer-calls=%d" % mode]
        lib = c.build(["interposed_lib.c"], "libct_interposed%d.so" % mode,
                      flags=flags + ["-shared", "-fPIC"])
        exe = c.build(["interposed_main.c"], "interposed%d" % mode,
                      flags=flags + [lib, "-Wl,-rpath," + os.path.dirname(lib)])
        r = c.run([exe, "12"])
        expect(r.sig == signal.SIGSEGV, "defer-calls=%d: %s" % (mode, r.how()))
        dump = c.one_dump(r)
        tl = c.show(dump)
        os.unlink(dump)
        expect(not tl.get("warnings"), "defer-calls=%d: warnings: %s" % (mode, tl.get("warnings")))
        return [(re.sub(r"%d(\.so)?$" % mode, r"\1", st["module"]), st["function"], st["line"])
                for st in crashed_thread(tl)["steps"]]  # the module's name without the mode

    want, got = steps(0), steps(1)
    helper = sum(1 for m, f, _ in want if f == "shared_helper" and m.startswith("interposed"))
    expect(helper >= 13 and not any(f == "shared_helper" and m.startswith("libct")
                                    for m, f, _ in want),
           "the build with records before calls should show the executable's shared_helper for "
           "all 13 calls, not the library's: %s" % [s for s in want if s[1] == "shared_helper"])
    first = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), None)
    expect(got == want, "deferred calls: %d steps against %d, first difference at %s: %s "
           "against %s" % (len(got), len(want), first, got[first] if first is not None else None,
                           want[first] if first is not None else None))
    return "%d steps, the same with deferred calls, %d of them the executable's shared_helper " \
           "called from the library" % (len(want), helper)


@case("defer_crash")
def defer_crash(c):
    """A crash three deferred calls deep (programs/defer_crash.c), at -O0 and -O2: main, run and
    step were each inside a call, their paths since their last records in their frames; the
    post-mortem reads those accumulators through DWARF and the timeline equals the ring
    build's: the same lines of the same functions at the same depths, the crash line last."""
    got = []
    for opt in ("-O0", "-O2"):
        tl = {}
        for variant, flags in (("ring", []), ("defer", ["-fplugin-arg-crashtrail-defer-calls=1"])):
            exe = c.build(["defer_crash.c"], "defer_crash_%s%s" % (variant, opt), flags=[opt] + flags)
            r = c.run([exe, "7"])
            expect(r.sig == signal.SIGSEGV, "%s %s: %s" % (variant, opt, r.how()))
            dump = c.one_dump(r)
            th = crashed_thread(c.show(dump))
            base = min(st["depth"] for st in th["steps"])
            tl[variant] = [(st["function"], st["line"], st["depth"] - base, bool(st.get("crash")))
                           for st in th["steps"]]
            os.unlink(dump)
        want, have = tl["ring"], tl["defer"]
        expect(sum(1 for st in want if st[0] == "step") > 20 and want[-1][0] == "step" and
               want[-1][3], "%s: the ring build's timeline is not the expected one: %s" %
               (opt, want[-6:]))
        first = next((i for i, (g, w) in enumerate(zip(have, want)) if g != w), None)
        expect(have == want, "%s: %d steps against the ring build's %d, first difference at %s: "
               "%s against %s" % (opt, len(have), len(want), first,
                                  have[first] if first is not None else None,
                                  want[first] if first is not None else None))
        got.append("%s %d steps" % (opt, len(want)))
    return "the deferred build's timelines equal the ring build's: " + ", ".join(got)


@case("lost_frame_calls")
def lost_frame_calls(c):
    """A crash after the ring wrapped (programs/lost_frame_calls.c, 64 KB of ring): outer's
    frame is suspended in mid with its path in its accumulator, and the records of its first
    deferred call's callee (first) were overwritten by burn's. The frame is still placed (its
    lost call walked past, the step after it flagged as a gap), so outer's lines before the
    call it is in come first, and no record "fits no call"; the newest steps equal the build's
    with a record before every call (at -O0 and -O2)."""
    src = open(os.path.join(PROGRAMS, "lost_frame_calls.c")).read().splitlines()
    line_of = lambda text: next(i + 1 for i, l in enumerate(src) if text in l)
    want_outer = [line_of("if (n > 5) sink++;"), line_of("first(n); /*"), line_of("  mid(n);")]
    got = []
    for opt in ("-O0", "-O2"):
        tails = {}
        for variant in ("calls", "defer"):
            exe = c.build(["lost_frame_calls.c"], "lost_frame_calls_%s%s" % (variant, opt),
                          flags=["-g", opt, "-fplugin-arg-crashtrail-defer-calls=%d" %
                                 (variant == "defer")])
            r = c.run([exe], env={"CRASHTRAIL_RING_KB": "64"})
            expect(r.sig == signal.SIGSEGV, "%s %s: %s" % (variant, opt, r.how()))
            dump = c.one_dump(r)
            t = c.show(dump)
            os.unlink(dump)
            th = crashed_thread(t)
            expect(th["steps"][0].get("gap") or variant == "defer",
                   "%s %s: the ring did not wrap" % (variant, opt))
            tails[variant] = [(st["function"], st["line"]) for st in th["steps"][-12:]]
            if variant != "defer":
                continue
            misfit = [w for w in t["warnings"] if "fit no call" in w]
            expect(not misfit, "%s: %s" % (opt, misfit))
            outer = [st for st in th["steps"] if st["function"] == "outer"]
            expect([st["line"] for st in outer[:3]] == want_outer,
                   "%s: outer's first steps are %s, not lines %s" % (
                       opt, [(st["line"], st.get("gap")) for st in outer[:4]], want_outer))
            expect(outer[2].get("gap") and not outer[1].get("gap"),
                   "%s: the step after the lost call is not a gap: %s" % (opt, outer[:3]))
            burn = next(i for i, st in enumerate(th["steps"]) if st["function"] == "burn")
            expect(th["steps"].index(outer[2]) < burn,
                   "%s: outer's steps come after burn's" % opt)
        expect(tails["defer"] == tails["calls"], "%s: the newest steps %s, with a record before "
               "every call %s" % (opt, tails["defer"], tails["calls"]))
        got.append(opt)
    return "outer's frame placed with its lost call walked past at " + " and ".join(got)


@case("stopped_threads")
def stopped_threads(c):
    """The main thread crashes while two workers wait inside calls (programs/stopped_threads.c):
    the runtime stops them for the dump, which holds their registers and stacks. Each worker's
    stack reads wait_job > serve, its last step is the line it waits on; with deferred calls,
    whose callers' paths since their last records were only in registers, every thread's
    timeline equals the ring build's (at -O0 and -O2). With CRASHTRAIL_CAPTURE_SIGNAL=0 the
    dump holds no other thread, and the reader's waiting line is missing (what capture adds)."""
    src = open(os.path.join(PROGRAMS, "stopped_threads.c")).read().splitlines()
    read_line = next(i + 1 for i, l in enumerate(src) if "never returns" in l)
    got = []

    def relative(th):
        base = min(st["depth"] for st in th["steps"])
        return [(st["function"], st["line"], st["depth"] - base) for st in th["steps"]]

    for opt in ("-O0", "-O2"):
        tl = {}
        for variant, flags in (("ring", []), ("defer", ["-fplugin-arg-crashtrail-defer-calls=1"])):
            exe = c.build(["stopped_threads.c"], "stopped_%s%s" % (variant, opt),
                          flags=["-g", opt] + flags)
            r = c.run([exe])
            expect(r.sig == signal.SIGSEGV, "%s %s: %s" % (variant, opt, r.how()))
            dump = c.one_dump(r)
            raw, t = c.raw(dump), c.show(dump)
            # Windowed decoding makes the newest steps alone (with deferred calls their times
            # are worked out at the end, for those steps only): the full decoding's, field for
            # field, times included.
            newest = {th["tid"]: th["steps"] for th in c.show_newest(dump, 12)["threads"]}
            for th in t["threads"]:
                want = th["steps"][-12:]
                have = newest.get(th["tid"], [])
                expect(have == want, "%s %s: thread %s's newest 12 steps windowed: %s, "
                       "in full: %s" % (variant, opt, th["name"], have, want))
            os.unlink(dump)
            byname = {th["name"]: th for th in t["threads"]}
            expect(sorted(s["tid"] for s in raw["stopped"]) ==
                   sorted(byname[n]["tid"] for n in ("ct-reader", "ct-spinner")),
                   "%s %s: threads stopped for the dump %s" % (variant, opt, raw["stopped"]))
            expect(all(s["stack_bytes"] > 0 for s in raw["stopped"]), "a stopped thread without stack")
            for name in ("ct-reader", "ct-spinner"):
                th = byname[name]
                fns = [f["function"] for f in th["stack"]]
                expect("wait_job" in fns and "serve" in fns[fns.index("wait_job"):],
                       "%s %s: %s's stack is %s" % (variant, opt, name, fns))
                last = th["steps"][-1]
                expect(last["function"] == "wait_job" and last.get("crash"),
                       "%s %s: %s's last step is %s" % (variant, opt, name, last))
            expect(byname["ct-reader"]["steps"][-1]["line"] == read_line,
                   "%s %s: the reader's last step is line %d, not the read on line %d"
                   % (variant, opt, byname["ct-reader"]["steps"][-1]["line"], read_line))
            lost = [w for w in t["warnings"] if "without their callers' steps" in w]
            expect(not lost, "%s %s: %s" % (variant, opt, lost))
            # A thread's step times never go back (with deferred calls a record is written
            # after its deferred callees' records, but its steps ran before theirs).
            for th in t["threads"]:
                times = [st["time_ns"] for st in th["steps"] if st.get("time_ns")]
                back = next((i for i in range(1, len(times)) if times[i] < times[i - 1]), None)
                expect(back is None, "%s %s: %s's step times go back at step %s" % (
                    variant, opt, th["name"], back))
            tl[variant] = {n: relative(byname[n]) for n in ("ct-reader", "ct-spinner")}
            tl[variant]["main"] = relative(crashed_thread(t))
        for name in ("main", "ct-reader", "ct-spinner"):
            want, have = tl["ring"][name], tl["defer"][name]
            if name == "ct-spinner":  # stopped anywhere in its loop: the last line only
                want, have = want[-1:], have[-1:]
            first = next((i for i, (g, w) in enumerate(zip(have, want)) if g != w), None)
            expect(have == want, "%s %s: the deferred build's %d steps against the ring build's "
                   "%d, first difference at %s: %s against %s" % (
                       opt, name, len(have), len(want), first,
                       have[first] if first is not None else None,
                       want[first] if first is not None else None))
        got.append("%s: main %d, reader %d steps" % (opt, len(tl["ring"]["main"]),
                                                     len(tl["ring"]["ct-reader"])))
    # Without capture, the deferred build's reader loses wait_job's steps (in its registers).
    exe = os.path.join(c.work, "stopped_defer-O2")
    r = c.run([exe], env={"CRASHTRAIL_CAPTURE_SIGNAL": "0"})
    dump = c.one_dump(r)
    raw, t = c.raw(dump), c.show(dump)
    os.unlink(dump)
    reader = next(th for th in t["threads"] if th["name"] == "ct-reader")
    expect(not raw["stopped"] and not reader["stack"] and reader["steps"][-1]["line"] != read_line,
           "with CRASHTRAIL_CAPTURE_SIGNAL=0: stopped %s, the reader's last line %d" %
           (raw["stopped"], reader["steps"][-1]["line"]))
    return ("every thread's timeline equals the ring build's, the workers stopped where they "
            "waited: " + "; ".join(got) + "; without capture the reader's last line is %d"
            % reader["steps"][-1]["line"])


@case("lazy_binding")
def lazy_binding(c):
    """The runtime's preserve_most entry points are never reached through a lazily bound PLT
    slot: the dynamic linker's resolver, run at a slot's first call, keeps the C convention's
    argument registers but not r10, which preserve_most callers keep values in (xz's
    lzma_decode lost one: packages.xz, e2e.shlib_regs). An instrumented shared object calls them
    through the GOT (GLOB_DAT, bound at load time); the shared runtime calls its own through
    hidden aliases (no relocation at all)."""
    entries = ("__crashtrail_ring_refill", "__crashtrail_stamped_slow", "__crashtrail_stamp_wrap",
               "__crashtrail_write_slow", "__crashtrail_stamped_write_slow")

    def slots(path, kind):
        out = subprocess.run(["readelf", "-rW", path], capture_output=True, text=True).stdout
        return sorted({e for line in out.splitlines() if kind in line
                       for e in entries if re.search(r"\s%s\b" % e, line)})

    rt = os.path.join(c.args.build, "lib", "libcrashtrail-rt.so")
    expect(os.path.exists(rt), "no shared runtime at %s" % rt)
    expect(not slots(rt, "JUMP_SLOT"), "the shared runtime calls %s through its PLT" % slots(rt, "JUMP_SLOT"))
    lib = c.build(["dl_lib.c"], "libct_dl.so", flags=["-shared", "-fPIC"])
    expect(not slots(lib, "JUMP_SLOT"), "an instrumented library calls %s through its PLT" %
           slots(lib, "JUMP_SLOT"))
    got = slots(lib, "GLOB_DAT")
    expect(any(e in got for e in entries),
           "an instrumented library does not call the runtime through its GOT: %s" % got)
    return "no PLT slot for %s; the library binds %s at load time" % (", ".join(entries), ", ".join(got))


@case("exited_thread")
def exited_thread(c):
    """A thread that exited before the crash: its ring is in the dump, marked exited."""
    exe, plain = c.build_pair(["exited.c"], "exited")
    r, p = c.run([exe]), c.run([plain])
    same_death(r, p, signal.SIGSEGV)
    gone = int(re.search(r"gone-tid (\d+)", r.out).group(1))
    dump = c.one_dump(r)
    raw, tl = c.raw(dump), c.show(dump)
    sections = [t for t in raw["threads"] if t["tid"] == gone]
    expect(sections and sections[0]["flags"] & THR_EXITED, "thread %d: %s" % (gone, sections))
    rings = [g for g in raw["rings"] if g["tid"] == gone]
    expect(rings and all(g["flags"] & THR_EXITED for g in rings) and rings[0]["records"] > 0,
           "the exited thread's ring: %s" % rings)
    th = [t for t in tl["threads"] if t["tid"] == gone]
    expect(th and th[0]["exited"] and "gone_work" in functions(th[0]),
           "the timeline of the exited thread: %s" % th)
    expect(th[0]["name"] == "ct-gone", "the exited thread's name is %r, expected 'ct-gone'"
           % th[0]["name"])
    for kind in (EV_THREAD_START, EV_THREAD_EXIT):
        expect(any(e["kind"] == kind and e["tid"] == gone for e in raw["events"]),
               "no thread start or exit event for the exited thread")
    crashed_thread(tl, name="ct-main")
    return "%s; exited thread %d decoded (%d steps)" % (r.how(), gone, len(th[0]["steps"]))


@case("ring_laps")
def ring_laps(c):
    """Rings of two chunks (32 KiB) that wrap many times: the newest chunk of the live, crashed
    thread holds an earlier lap's records after its position (chunks are not cleared), and its
    timeline still ends with its own last calls; the exited thread's chunk tail was cleared at
    its exit, and its timeline ends with its last call too."""
    exe, plain = c.build_pair(["laps.c"], "laps")
    env = {"CRASHTRAIL_RING_KB": "32"}
    r, p = c.run([exe], env=env), c.run([plain])
    same_death(r, p, signal.SIGSEGV)
    dump = c.one_dump(r)
    raw, tl = c.raw(dump), c.show(dump)
    main = crashed_thread(tl, name="ct-main")
    ring = [g for g in raw["rings"] if g["tid"] == main["tid"]]
    expect(len(ring) == 1 and ring[0]["after_pos"] > 0,
           "the crashed thread's newest chunk has no earlier lap after its position "
           "(the case tests nothing): %s" % ring)
    fns = functions(main)
    expect("final_a" in fns and "lap_work" in fns, "main's steps: %s" % fns[-20:])
    last_a = len(fns) - 1 - fns[::-1].index("final_a")
    expect("lap_work" not in fns[last_a:] and "laps_end" in fns[last_a:],
           "main's timeline after final_a: %s" % fns[last_a:])
    gone = [t for t in tl["threads"] if t["name"] == "ct-laps"]
    expect(len(gone) == 1 and gone[0]["exited"], "the exited thread: %s" % gone)
    gfns = functions(gone[0])
    expect("laps_end" in gfns and "lap_work" not in gfns[gfns.index("laps_end"):],
           "ct-laps's timeline ends with: %s" % gfns[-10:])
    gring = [g for g in raw["rings"] if g["tid"] == gone[0]["tid"]]
    expect(gring and gring[0]["after_pos"] == 0,
           "the exited thread's chunk was not cleared after its position: %s" % gring)
    return "%s; %d stale slots after the crashed thread's position left out" % (
        r.how(), ring[0]["after_pos"])


@case("ring_reuse")
def ring_reuse(c):
    """CRASHTRAIL_KEEP_EXITED=2 and eight threads that exit one after the other: exited rings
    are reused, the most recent exited threads are still in the dump, by name."""
    exe, plain = c.build_pair(["exited.c"], "exited")
    r, p = c.run([exe, "many"], env={"CRASHTRAIL_KEEP_EXITED": "2"}), c.run([plain, "many"])
    same_death(r, p, signal.SIGSEGV)
    dump = c.one_dump(r)
    raw, tl = c.raw(dump), c.show(dump)
    exited = [g for g in raw["rings"] if g["flags"] & THR_EXITED]
    expect(len(raw["rings"]) <= 5, "%d rings for 9 threads: exited rings were not reused"
           % len(raw["rings"]))
    names = {t["name"] for t in tl["threads"] if t["exited"]}
    expect({"ct-t6", "ct-t7"} <= names, "the latest exited threads are missing: %s" % names)
    expect(all(g["records"] > 0 for g in exited), "an exited ring is empty")
    crashed_thread(tl, name="ct-main")
    return "%s; %d rings for 9 threads; exited kept: %s" % (r.how(), len(raw["rings"]),
                                                          " ".join(sorted(names)))


@case("file_safety")
def file_safety(c):
    """Symbolic links planted under every name the dump could take: O_EXCL|O_NOFOLLOW make
    crashtrail pick another name; the link targets are untouched; the dump is mode 0600."""
    exe = c.build(["ondemand.c"], "ondemand")
    target = os.path.join(c.work, "precious")
    with open(target, "w") as f:
        f.write("precious\n")
    r = c.run([exe, "plant"], env={"CT_PLANT_TARGET": target})
    expect(r.code == 0, "%s\n%s%s" % (r.how(), r.out, r.err))
    expect(open(target).read() == "precious\n", "a planted link was followed")
    m = re.search(r"dump rc 0 path (\S+)", r.out)
    expect(m, "crashtrail_dump failed:\n" + r.out + r.err)
    dump = m.group(1)
    expect(not os.path.islink(dump) and re.search(r"-\d+-\d{8}T\d{6}-\d+\.ctd$", dump),
           "the dump %s is not a fresh file with a numbered name" % dump)
    expect(stat.S_IMODE(os.stat(dump).st_mode) == 0o600, "the dump's mode is not 0600")
    links = [f for f in c.dump_files() if os.path.islink(f)]
    expect(len(links) == 5, "planted links: %d, expected 5 left as they were" % len(links))
    expect(c.raw(dump)["ok"], "the dump is unreadable")
    return "links left alone, target untouched; dump %s" % os.path.basename(dump)


def handler_case(mode, dump_expected, order):
    """order: the expected order of the two stderr lines, crashtrail's and the program's."""

    def run_case(c):
        exe, plain = c.build_pair(["handlers.c"], "handlers", plain_objects=["handlers_early.c"])
        env = {"CT_HANDLER_MODE": mode}
        r, p = c.run([exe, mode], env=env), c.run([plain, mode], env=env)
        same_death(r, p, signal.SIGSEGV)
        lines = [("crashtrail" if l.startswith("crashtrail: ") else "program")
                 for l in r.err.splitlines() if l.startswith(("crashtrail: ", "program handler"))]
        expect(lines == order, "stderr order %s, expected %s:\n%s" % (lines, order, r.err))
        if dump_expected:
            check_signal_dump(c, r, signal.SIGSEGV, name=os.path.basename(exe))
        else:
            expect(not c.dump_files(), "a dump was written although crashtrail was not called")
        return "%s; stderr order: %s" % (r.how(), " then ".join(order))
    return run_case


case("handler.before")(handler_case("before", True, ["crashtrail", "program"]))
case("handler.after_no_chain")(handler_case("after", False, ["program"]))
case("handler.after_chain")(handler_case("chain", True, ["program", "crashtrail"]))
case("handler.after_reinstall")(handler_case("reinstall", True, ["crashtrail", "program"]))


def fallback_run(c, exe, plain, bad_dir, why):
    r = c.run([exe, "segv"], env={"CRASHTRAIL_DIR": bad_dir})
    p = c.run([plain, "segv"])
    same_death(r, p, signal.SIGSEGV)
    lines = r.crashtrail_lines()
    want = "crashtrail: cannot write a dump in %s: %s" % (bad_dir, why)
    expect(len(lines) == 2 and lines[0].startswith(want) and
           lines[0].endswith("; trying the fallback directory"),
           "expected one line %r... then the announcement; got:\n%s" % (want, r.err))
    dump = c.one_dump(r, c.fallback)
    announced(r, dump)
    os.unlink(dump)
    return r


@case("dir_unwritable")
def dir_unwritable(c):
    """CRASHTRAIL_DIR cannot take the dump (root ignores permissions, so: a path through a
    regular file, a regular file, a missing directory): one line on stderr, the fallback
    directory ($TMPDIR) gets the dump."""
    exe, plain = c.build_pair(["crash.c"], "crash")
    afile = os.path.join(c.work, "afile")
    open(afile, "w").close()
    fallback_run(c, exe, plain, afile + "/dumps", "not a directory")
    fallback_run(c, exe, plain, afile, "not a directory")
    fallback_run(c, exe, plain, os.path.join(c.work, "missing"), "no such directory")
    return "three unusable directories: one line each, dump in the fallback"


@case("disk_full")
def disk_full(c):
    """A full file system (a 64 KiB tmpfs): one line, the dump goes to the fallback."""
    exe, plain = c.build_pair(["crash.c"], "crash", flags=RING_BUILD)
    full = c.mkdir("full")
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "ct-full", full],
                      capture_output=True).returncode:
        raise Skip("cannot mount a tmpfs here (the fsize_limit case covers a full disk)")
    try:
        fallback_run(c, exe, plain, full, "no space left on device")
        expect(not os.listdir(full), "the cut dump was left in the full directory: %s"
               % os.listdir(full))
    finally:
        subprocess.run(["umount", full])
    return "ENOSPC reported in one line; dump in the fallback; nothing left behind"


@case("fsize_limit")
def fsize_limit(c):
    """RLIMIT_FSIZE of 16 KiB: the dump fails in both directories, each said in one line; no
    cut file is left; the process dies of its own SIGSEGV, not SIGXFSZ."""
    exe, plain = c.build_pair(["crash.c"], "crash", flags=RING_BUILD)  # a dump over 16 KiB
    r = c.run([exe, "segv"], fsize=16384)
    p = c.run([plain, "segv"], fsize=16384)
    same_death(r, p, signal.SIGSEGV)
    lines = r.crashtrail_lines()
    expect(len(lines) == 3 and "file size limit exceeded" in lines[0] and
           "trying the fallback" in lines[0] and "file size limit exceeded" in lines[1] and
           "no dump was written" in lines[1] and "no dump written" in lines[2],
           "stderr:\n" + r.err)
    left = c.dump_files() + c.dump_files(c.fallback)
    expect(not left, "cut dumps were left behind: %s" % left)
    return "%s; %d lines explain it" % (r.how(), len(lines))


def ondemand_checks(c, files, reasons):
    names = ["ct-w%d" % i for i in range(4)]
    for f, reason in zip(files, reasons):
        raw, tl = c.raw(f), c.show(f)
        expect(raw["ok"] and raw["reason"] == REASON_REQUEST and raw["signal"] is None,
               "%s: not an on-demand dump: %s" % (f, raw))
        expect(raw["reason_text"] == reason,
               "reason %r, expected %r" % (raw["reason_text"], reason))
        got = [t["name"] for t in raw["threads"]]
        expect(all(n in got for n in names), "%s: threads %s, expected %s" % (f, got, names))
        busy = {t["tid"] for t in raw["threads"] if t["name"] in names}
        live = {g["tid"] for g in raw["rings"] if g["records"] > 0}
        expect(busy <= live, "a worker's ring is empty in %s" % f)
        expect(not any(t["crashed"] for t in tl["threads"]), "a thread is marked crashed")


@case("ondemand.api")
def ondemand_api(c):
    """crashtrail_dump() twice while four threads work: two dumps, the process goes on."""
    exe = c.build(["ondemand.c"], "ondemand", flags=RING_BUILD)
    r = c.run([exe, "api"])
    expect(r.code == 0 and "work continued" in r.out, "%s\n%s%s" % (r.how(), r.out, r.err))
    files = c.dump_files()
    expect(len(files) == 2, "expected 2 dumps, found %s" % files)
    for k in range(2):
        m = re.search(r"dump %d rc (-?\d+) path (\S+)" % k, r.out)
        expect(m and m.group(1) == "0" and m.group(2) in files, "dump %d: %r" % (k, r.out))
    paths = [re.search(r"dump %d rc 0 path (\S+)" % k, r.out).group(1) for k in range(2)]
    ondemand_checks(c, paths, ["first", "second"])
    # The dumping thread's stack starts at the program's call of crashtrail_dump, not in the
    # runtime writing the dump, whose locals are not shown; the text marks where it was taken.
    tl = c.show(paths[0])
    me = tl["threads"][0]  # the thread the dump is about comes first
    fns = [f["function"] for f in me["stack"]]
    expect(fns and fns[0] == "main" and not [f for f in fns if f.startswith("ct_") or
                                            f == "crashtrail_dump"],
           "the dumping thread's stack is %s" % fns)
    text = subprocess.run([os.path.join(c.bin, "crashtrail"), "show", "--color=never", paths[0]],
                          capture_output=True, text=True).stdout
    expect("Variables of ct_" not in text and "Variables of crashtrail_dump" not in text and
           "<== dumped here" in text and "<== crash" not in text,
           "the text output of an on-demand dump:\n" + text[:3000])
    return "exit 0; two dumps with all four workers; the stack from main's call"


@case("valgrind")
def valgrind_case(c):
    """crashtrail_dump() twice while four threads work, under valgrind's memcheck: the dumps are
    written and memcheck reports nothing (the stack copy reads until the kernel answers EFAULT,
    which memcheck would report as a write(2) from unaddressable memory)."""
    if not shutil.which("valgrind"):
        raise Skip("valgrind is not installed")
    exe = c.build(["ondemand.c"], "ondemand-vg", flags=["-gdwarf-4"])  # valgrind 3.19: no DWARF 5
    r = c.run([shutil.which("valgrind"), "--quiet", "--error-exitcode=99", exe, "api"], timeout=120)
    reports = [l for l in r.err.splitlines() if l.startswith("==")]
    expect(r.code == 0 and not reports, "%s under valgrind:\n%s" % (r.how(), "\n".join(reports[:30])))
    files = c.dump_files()
    expect(len(files) == 2, "expected 2 dumps, found %s" % files)
    ondemand_checks(c, [re.search(r"dump %d rc 0 path (\S+)" % k, r.out).group(1)
                        for k in range(2)], ["first", "second"])
    return "exit 0, two dumps, no memcheck report"


@case("ondemand.signal")
def ondemand_signal(c):
    """CRASHTRAIL_DUMP_SIGNAL=SIGUSR2 sent twice from outside while four threads work."""
    exe = c.build(["ondemand.c"], "ondemand", flags=RING_BUILD)
    env = c.env({"CRASHTRAIL_DUMP_SIGNAL": "SIGUSR2"})
    err_path = os.path.join(c.work, "ondemand.err")
    with open(err_path, "w") as err:
        proc = subprocess.Popen([exe, "signal"], env=env, cwd=c.work, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=err, text=True)
    def hung(signo, frame):
        raise Fail("the program stopped answering (hang)")
    signal.signal(signal.SIGALRM, hung)
    signal.alarm(40)  # the reads below block
    try:
        expect(proc.stdout.readline().strip() == "ready", "the program did not start")
        for k in range(1, 3):
            os.kill(proc.pid, signal.SIGUSR2)
            deadline = time.monotonic() + 15
            while (open(err_path).read().count("dump written to") < k and
                   time.monotonic() < deadline):
                time.sleep(0.01)
            expect(open(err_path).read().count("dump written to") == k,
                   "dump %d not announced:\n%s" % (k, open(err_path).read()))
            proc.stdin.write("go\n")
            proc.stdin.flush()
            expect(proc.stdout.readline().strip() == "working", "the workers stopped")
        proc.stdin.write("q\n")
        proc.stdin.flush()
        out, _ = proc.communicate(timeout=15)
    finally:
        signal.alarm(0)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    expect(proc.returncode == 0 and "work continued" in out, "exit %s: %r" % (proc.returncode, out))
    files = c.dump_files()
    expect(len(files) == 2, "expected 2 dumps, found %s" % files)
    ondemand_checks(c, files, ["SIGUSR2", "SIGUSR2"])
    return "exit 0; two SIGUSR2 dumps with all four workers"


@case("fsync")
def fsync_case(c):
    """CRASHTRAIL_FSYNC=1: the dump is fsync'ed before the process dies; by default it is not
    (a dump in the page cache outlives the process). Seen through strace."""
    if not shutil.which("strace"):
        raise Skip("strace is not installed")
    exe, plain = c.build_pair(["crash.c"], "crash")
    p = c.run([plain, "segv"])
    seen = {}
    for value in ("0", "1"):
        log = os.path.join(c.mkdir("strace" + value), "log")
        r = c.run([shutil.which("strace"), "-f", "-qq", "-e", "trace=fsync,fdatasync", "-o", log, exe, "segv"],
                  env={"CRASHTRAIL_FSYNC": value})
        expect(os.WIFSIGNALED(r.status) or os.WEXITSTATUS(r.status) != 0,
               "the program did not die:\n" + r.err)
        check_signal_dump(c, r, signal.SIGSEGV)
        os.unlink(c.one_dump(r))
        seen[value] = len([l for l in open(log) if "fsync(" in l and "= 0" in l])
    expect(seen["0"] == 0, "%d fsync calls without CRASHTRAIL_FSYNC" % seen["0"])
    expect(seen["1"] == 1, "%d fsync calls with CRASHTRAIL_FSYNC=1, expected 1" % seen["1"])
    del p
    return "fsync only with CRASHTRAIL_FSYNC=1"


def dump_sections(path):
    """(type, payload offset, payload length) of every section of a dump file."""
    data = open(path, "rb").read()
    out, off = [], 24
    while off + 16 <= len(data):
        kind, _, length = struct.unpack_from("<IIQ", data, off)
        out.append((kind, off + 16, length))
        off = (off + 16 + length + 7) & ~7
        if kind == 0xFFFF:
            break
    return out


def direct_io_works(where):
    """Whether the file system under `where` takes an O_DIRECT write of one page."""
    probe = os.path.join(where, ".direct-probe")
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_DIRECT, 0o600)
    except OSError:
        return False
    try:
        os.write(fd, mmap.mmap(-1, 4096))
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
        os.unlink(probe)


RING_HEADER_BYTES = 40  # struct ct_ds_ring


@case("direct_io")
def direct_io(c):
    """Ring bytes go out with O_DIRECT (a PAD section puts each ring's bytes at a multiple of
    4096 in the file); CRASHTRAIL_DIRECT_IO=0 writes them through the page cache, without PAD
    sections. Both dumps read the same way."""
    exe, plain = c.build_pair(["threads8.c"], "threads8")
    p = c.run([plain])
    direct = direct_io_works(c.dumps)
    strace = shutil.which("strace")
    for value in ("1", "0"):
        argv = [exe]
        log = os.path.join(c.mkdir("strace" + value), "log")
        if strace:
            argv = [strace, "-f", "-qq", "-e", "trace=fcntl", "-o", log] + argv
        r = c.run(argv, env={"CRASHTRAIL_DIRECT_IO": value})
        expect(r.sig == p.sig == signal.SIGSEGV, "with crashtrail under strace: %s; without: %s"
               % (r.how(), p.how()))  # strace dies of the signal too, but without a core
        dump = c.one_dump(r)
        crashed_thread(c.show(dump))
        sections = dump_sections(dump)
        rings = [s for s in sections if s[0] == 7]
        pads = [s for s in sections if s[0] == 11]
        expect(len(rings) >= 2, "%d RING sections" % len(rings))
        aligned = all((at + RING_HEADER_BYTES) % 4096 == 0 for _, at, _ in rings)
        if value == "0":
            expect(not pads, "PAD sections with CRASHTRAIL_DIRECT_IO=0")
        elif direct:
            expect(aligned and pads, "ring bytes not page-aligned in the file: %s" % sections)
        if strace:
            setfl = [l for l in open(log) if "F_SETFL" in l and "= 0" in l]
            sets = [l for l in setfl if "O_DIRECT" in l]
            want = len(rings) if (value == "1" and direct) else 0
            expect(len(sets) == want and len(setfl) == 2 * want,
                   "%d fcntl calls setting O_DIRECT and %d clearing it, expected %d each:\n%s"
                   % (len(sets), len(setfl) - len(sets), want, "".join(open(log))))
        os.unlink(dump)
    if not direct:
        return "the dump directory's file system refuses O_DIRECT: page cache both times"
    return "rings written with O_DIRECT at page-aligned offsets; page cache with =0"


@case("table_grain")
def table_grain(c):
    """The tables' time grain (docs/runtime.md, CRASHTRAIL_TABLE_GRAIN_US): one thread keeps the
    clock's unit (2^16 ns); once a second thread records, times are rounded down to the grain
    (1 ms by default, 16 units), so a shared hot entry changes hands between CPUs once per grain.
    The dump says which (the TABLE section's grain) and the timeline gives the resolution."""
    exe = c.build(["tables_threads.c"], "tables_threads",
                  flags=["-fplugin-arg-crashtrail-mode=tables"] + RING_BUILD)
    sym = subprocess.run(["nm", exe], capture_output=True, text=True).stdout
    hot = [int(l.split()[0], 16) for l in sym.splitlines() if l.split()[-1] == "hot"]
    expect(len(hot) == 1, "no symbol hot in the program")
    ct = os.path.join(c.bin, "crashtrail")
    seen = []
    for workers, env, grain in ((0, None, 0), (4, None, 4), (4, {"CRASHTRAIL_TABLE_GRAIN_US": "0"}, 0),
                                (3, {"CRASHTRAIL_TABLE_GRAIN_US": "4000"}, 6)):
        r = c.run([exe, str(workers), "40"], env=env)
        expect(r.sig == signal.SIGSEGV, "%d workers: %s" % (workers, r.how()))
        dump = c.one_dump(r)
        raw = c.raw(dump)
        expect(len(raw["tables"]) == 1 and raw["tables"][0]["grain"] == grain,
               "%d workers, %s: TABLE grain %s, expected %d" % (workers, env, raw["tables"], grain))
        blocks = subprocess.run([ct, "show", "--format=blocks", dump], capture_output=True, text=True)
        expect(blocks.returncode == 0, "crashtrail show --format=blocks: " + blocks.stderr)
        times = [int(x) for l in blocks.stdout.splitlines() if l.startswith("table ")
                 for x in l.split()[4:6] if int(l.split()[2], 16) == hot[0]]
        expect(len(times) >= 4 and all(times), "hot's table entries: %s" % times)
        now = raw["tables"][0]["now"]
        expect(all(now - 2 ** grain - 2000 < t <= now for t in times[0::2]),
               "hot's last times %s are not within the run before the dump at %d" % (times, now))
        unaligned = [t for t in times if t % 2 ** grain]
        if grain:
            expect(not unaligned, "times not rounded to 2^%d units: %s" % (grain, unaligned))
        elif workers == 0:
            expect([t for t in times if t % 16], "one thread: every time a multiple of 16 units (rounded?): %s" % times)
        tl = c.show(dump)
        want = 2 ** (16 + grain)
        expect(tl.get("table_resolution_ns") == want,
               "JSON table_resolution_ns %s, expected %d" % (tl.get("table_resolution_ns"), want))
        text = subprocess.run([ct, "show", dump], capture_output=True, text=True).stdout
        res = "%.1f ms" % (want / 1e6) if want >= 1e6 else "%.1f us" % (want / 1e3)
        expect("Last-executed lines (" in text and "times to %s;" % res in text,
               "the text output does not give the resolution %s" % res)
        seen.append("%d workers%s: grain %d (%s)" % (workers, " " + str(env) if env else "", grain, res))
        os.unlink(dump)
    return "; ".join(seen)


@case("table_maps")
def table_maps(c):
    """Tables mode in an executable: blocks mark a per-thread byte map, which the runtime folds
    into the table when the thread's clock moves (runtime/table_maps.c). A worker's last marks
    reach the table through its exit, the crashing thread's through the dump; the same entries
    as the per-block compare (-fplugin-arg-crashtrail-table-maps=0) writes."""
    ct = os.path.join(c.bin, "crashtrail")
    seen = []
    for maps in (True, False):
        flags = ["-fplugin-arg-crashtrail-mode=tables"] + RING_BUILD
        if not maps:
            flags.append("-fplugin-arg-crashtrail-table-maps=0")
        exe = c.build(["table_maps.c"], "table_maps" if maps else "table_maps_compare", flags=flags)
        sections = subprocess.run(["readelf", "-SW", exe], capture_output=True, text=True).stdout
        expect(("crashtrail_maps" in sections) == maps,
               "the section crashtrail_maps is %s" % ("missing" if maps else "there"))
        sym = subprocess.run(["nm", exe], capture_output=True, text=True).stdout
        addr = {l.split()[-1]: int(l.split()[0], 16) for l in sym.splitlines()
                if len(l.split()) == 3 and l.split()[-1] in ("once", "last", "warm")}
        expect(len(addr) == 3, "symbols once, last, warm: %s" % addr)
        r = c.run([exe])
        expect(r.sig == signal.SIGSEGV, "table_maps: %s" % r.how())
        dump = c.one_dump(r)
        blocks = subprocess.run([ct, "show", "--format=blocks", dump], capture_output=True, text=True)
        expect(blocks.returncode == 0, "crashtrail show --format=blocks: " + blocks.stderr)
        now = c.raw(dump)["tables"][0]["now"]
        last = {}
        for l in blocks.stdout.splitlines():
            f = l.split()
            if f[0] == "table" and int(f[2], 16) in addr.values():
                last.setdefault(int(f[2], 16), []).append(int(f[4]))
        for name in ("once", "last", "warm"):
            times = [t for t in last.get(addr[name], []) if t]
            expect(times and all(now - 16 * 2000 < t <= now for t in times),
                   "%s: %s's table entries %s (the dump's time %d)"
                   % ("maps" if maps else "compare", name, last.get(addr[name]), now))
        seen.append("%s: once, last, warm in the table" % ("maps" if maps else "compare"))
        os.unlink(dump)
    return "; ".join(seen)


@case("bad_env")
def bad_env(c):
    """Bad CRASHTRAIL_* values: one warning line each, naming the variable; defaults used;
    dumps still work."""
    exe, plain = c.build_pair(["crash.c"], "crash")
    p = c.run([plain, "segv"])
    r = c.run([exe, "segv"], env={"CRASHTRAIL_RING_KB": "abc"})
    same_death(r, p, signal.SIGSEGV)
    lines = r.crashtrail_lines()
    expect(len(lines) == 2 and lines[0].startswith("crashtrail: ignoring CRASHTRAIL_RING_KB=abc"),
           "expected one warning then the announcement:\n" + r.err)
    dump = c.one_dump(r)
    expect(all(g["size"] == DEFAULT_RING_BYTES for g in c.raw(dump)["rings"]),
           "the default ring size was not used")
    os.unlink(dump)
    bad = {"CRASHTRAIL_RING_KB": "-4", "CRASHTRAIL_STACK_KB": "lots",
           "CRASHTRAIL_KEEP_EXITED": "1e3", "CRASHTRAIL_ENABLE": "maybe",
           "CRASHTRAIL_DUMP_SIGNAL": "SIGFOO", "CRASHTRAIL_ALLOW_SETID": "2",
           "CRASHTRAIL_FSYNC": "sometimes", "CRASHTRAIL_DIRECT_IO": "perhaps",
           "CRASHTRAIL_TABLE_GRAIN_US": "1ms", "CRASHTRAIL_CAPTURE_SIGNAL": "SIGUSR1",
           "CRASHTRAIL_CAPTURE_MS": "soon"}
    r = c.run([exe, "segv"], env=bad)
    same_death(r, p, signal.SIGSEGV)
    lines = r.crashtrail_lines()
    for name in bad:
        n = len([l for l in lines if l.startswith("crashtrail: ignoring %s=" % name)])
        expect(n == 1, "%d warnings for %s:\n%s" % (n, name, r.err))
    expect(len(lines) == len(bad) + 1, "extra lines:\n" + r.err)
    check_signal_dump(c, r, signal.SIGSEGV)
    return "one warning per bad variable; defaults used; dump written"


@case("config")
def config_case(c):
    """CRASHTRAIL_ENABLE=0 (no dump, same death), CRASHTRAIL_STACK_KB=0 (no stack slice),
    CRASHTRAIL_RING_KB=8 (rounded up to the smallest ring, two 16 KiB chunks), and 40 (rounded
    up to a whole number of chunks, 48 KiB)."""
    exe, plain = c.build_pair(["crash.c"], "crash", flags=RING_BUILD)
    p = c.run([plain, "segv"])
    r = c.run([exe, "segv"], env={"CRASHTRAIL_ENABLE": "0"})
    same_death(r, p, signal.SIGSEGV)
    expect(not c.dump_files() and not r.crashtrail_lines(), "disabled, yet:\n" + r.err)
    r = c.run([exe, "segv"], env={"CRASHTRAIL_STACK_KB": "0", "CRASHTRAIL_RING_KB": "8"})
    same_death(r, p, signal.SIGSEGV)
    dump, _, raw, _ = check_signal_dump(c, r, signal.SIGSEGV)
    expect(raw["stack_bytes"] == 0, "a stack slice was written with CRASHTRAIL_STACK_KB=0")
    expect(raw["rings"] and all(g["size"] == 32768 for g in raw["rings"]),
           "CRASHTRAIL_RING_KB=8 did not give 32 KiB rings: %s" % raw["rings"])
    for f in c.dump_files():
        os.unlink(f)
    r = c.run([exe, "segv"], env={"CRASHTRAIL_RING_KB": "40"})
    same_death(r, p, signal.SIGSEGV)
    _, _, raw, _ = check_signal_dump(c, r, signal.SIGSEGV)
    expect(raw["rings"] and all(g["size"] == 49152 for g in raw["rings"]),
           "CRASHTRAIL_RING_KB=40 did not give 48 KiB rings: %s" % raw["rings"])
    return "disabled: no dump; no stack slice; 8 KiB asked, 32 KiB rings; 40 asked, 48 KiB"


@case("setuid")
def setuid_case(c):
    """A setuid-root copy run by nobody: no dump, unless CRASHTRAIL_ALLOW_SETID=1."""
    if os.geteuid() != 0:
        raise Skip("needs root to make a setuid-root program")
    try:
        nobody = pwd.getpwnam("nobody").pw_uid
    except KeyError:
        raise Skip("no user nobody")
    if os.statvfs(c.work).f_flag & os.ST_NOSUID:
        raise Skip("%s is on a nosuid file system" % c.work)
    if re.search(r"^NoNewPrivs:\s*1", open("/proc/self/status").read(), re.M):
        raise Skip("no_new_privs is set: a setuid program would not be set-id")
    exe, plain = c.build_pair(["crash.c"], "crash")
    for f in (exe, plain):
        os.chown(f, 0, 0)
        os.chmod(f, 0o4755)
    os.chmod(c.dumps, 0o1777)
    os.chmod(c.fallback, 0o1777)
    p = c.run([plain, "segv"], user=nobody)
    expect("crashing" in p.out, "the setuid program did not run as nobody: %s\n%s"
           % (p.how(), p.err))
    r = c.run([exe, "segv"], user=nobody)
    same_death(r, p, signal.SIGSEGV)
    expect(not c.dump_files() and not c.dump_files(c.fallback),
           "a set-id process wrote a dump:\n" + r.err)
    r = c.run([exe, "segv"], user=nobody, env={"CRASHTRAIL_ALLOW_SETID": "1"})
    same_death(r, p, signal.SIGSEGV)
    dump = c.one_dump(r)
    st = os.stat(dump)
    expect(stat.S_IMODE(st.st_mode) == 0o600, "dump mode %o, expected 600"
           % stat.S_IMODE(st.st_mode))
    return "%s; no dump; with CRASHTRAIL_ALLOW_SETID=1 one dump, mode 0600" % r.how()


@case("asan")
def asan_case(c):
    """An AddressSanitizer build: crashtrail chains to ASan's SEGV handler (same exit status
    as without crashtrail, a dump first); handle_segv=0; allow_user_segv_handler=0 (crashtrail
    says it gets no SEGV; no dump); abort_on_error=1 gives ASan's own reports a dump."""
    try:
        plain = c.build(["crash.c"], "crash-asan-plain", plain=True, flags=["-fsanitize=address"])
    except Fail as e:
        raise Skip("clang cannot build with -fsanitize=address here: %s" % str(e)[:200])
    exe = c.build(["crash.c"], "crash-asan", flags=["-fsanitize=address"])
    runs = [("", "segv", True, signal.SIGSEGV), ("handle_segv=0", "segv", True, signal.SIGSEGV),
            ("allow_user_segv_handler=0", "segv", False, None),
            ("abort_on_error=1", "heapoverflow", True, signal.SIGABRT),
            ("", "heapoverflow", False, None)]
    seen = []
    for opts, mode, dumps, signo in runs:
        env = {"ASAN_OPTIONS": opts + (":" if opts else "") + "detect_leaks=0"}
        r, p = c.run([exe, mode], env=env, core=False), c.run([plain, mode], env=env, core=False)
        expect(r.status == p.status, "ASAN_OPTIONS=%s %s: %s with crashtrail, %s without\n%s"
               % (opts, mode, r.how(), p.how(), r.err))
        expect("ERROR: AddressSanitizer" in r.err or opts == "handle_segv=0",
               "ASan did not report:\n" + r.err)
        files = c.dump_files()
        if dumps:
            expect(len(files) == 1, "ASAN_OPTIONS=%s %s: %d dumps\n%s"
                   % (opts, mode, len(files), r.err))
            announced(r, files[0])
            tl = c.show(files[0])
            expect(tl["signal"]["number"] == signo, "dump of %s" % tl["signal"]["name"])
            crashed_thread(tl, name="ct-main")
            if "ERROR: AddressSanitizer" in r.err:
                expect(r.err.index("dump written") < r.err.index("ERROR: AddressSanitizer") or
                       mode == "heapoverflow", "the dump did not come before ASan's report")
            os.unlink(files[0])
        else:
            expect(not files, "ASAN_OPTIONS=%s %s: unexpected dump" % (opts, mode))
            if "allow_user_segv_handler=0" in opts:
                expect(any("another runtime keeps the handler of SIGSEGV" in l
                           for l in r.crashtrail_lines()),
                       "crashtrail did not say it gets no SIGSEGV:\n" + r.err)
        seen.append("%s/%s: %s%s" % (opts or "default", mode, r.how(), ", dump" if dumps else ""))
    return "; ".join(seen)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", default=os.path.dirname(os.path.dirname(HERE)))
    ap.add_argument("--clang", default="clang-14")
    ap.add_argument("--dumpcheck", required=True)
    ap.add_argument("--case", required=True, choices=sorted(CASES))
    args = ap.parse_args()
    c = Case(args)
    try:
        print("ok: %s: %s" % (args.case, CASES[args.case](c)))
        return 0
    except Skip as e:
        print("skipped: %s" % e)
        return SKIP
    except Fail as e:
        print("FAIL: %s: %s" % (args.case, e))
        return 1
    finally:
        c.cleanup()


if __name__ == "__main__":
    sys.exit(main())
