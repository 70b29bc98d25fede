#!/usr/bin/env python3
"""Fidelity on real programs (issue 8): the crash timeline is what really ran.

For each case: build the program with crashtrail-cc (-gdwarf-4), run it under steptrace (a
ptrace single-stepper: the oracle, see steptrace.c) until it crashes, read the dump crashtrail's
runtime wrote in that same run with `crashtrail show --format=json`, and compare the crashed
thread's steps with the lines the oracle saw executed (oracle.py): last step is the faulting line,
exact common suffix, LCS(last 200 oracle lines, timeline)/200, first difference side by side. Every
line on which they differ is classified (classify.py).

Programs, all built by this script from Debian source packages (apt-get source):
  sqlite-shell  the SQLite 3.40 shell running programs/workload.sql       (crash: kill)
  sqlite-api    programs/sqlite_misuse.c: NULL sqlite3_value* to the API  (crash: real)
  lua           the Lua 5.4 interpreter running programs/workload.lua     (crash: kill)
  lua-api       programs/lua_misuse.c: lua_pushstring(NULL, ...)           (crash: real)
  threads       programs/threads.c: worker threads; one dereferences NULL (crash: real, kill)
  jsoncpp       programs/jsoncpp_misuse.cpp (C++): jsoncpp 1.9.5 (libjsoncpp) writing, parsing and
                converting documents, with exceptions thrown in the library and caught in the
                driver every round; a NULL document to Json::Reader::parse (crash: real, kill)
  csmith        csmith programs with a NULL store injected after a random statement (crash: real)
A "kill" crash is SIGSEGV sent with kill(2) by steptrace, an outside process, at a random moment
chosen by the seed: the program runs natively up to the H-th call of a hot function (H uniform over
all its calls in the run, counted once per binary), then K single steps (20000-60000), then the
signal. The moment is random but reproducible.

  fidelity.py --crashtrail-build BUILD --work DIR --set ci|full [--jobs N] [--only REGEX]
              [--steptrace PATH] [--table FILE] [--details FILE] [--json FILE]
              [--pass-option=-crashtrail-...] [--sources DIR]
Exit status 0 when every run meets the targets: last step is the faulting line, LCS/200 >= 0.99
at -O0 and >= 0.97 at -O2 (skipped runs do not count). docs/fidelity.md has the latest figures
and the cause of every difference.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import random
import re
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import classify  # noqa: E402
import oracle  # noqa: E402
import window_check  # noqa: E402

CC = "clang-14"
TARGET_LCS = {"O0": 0.99, "O2": 0.97}
CSMITH_INC = "/usr/include/csmith"
CSMITH_MAX_STEPS = 1500000
KILL_AT = {"sqlite-shell": "sqlite3VdbeExec", "lua": "luaV_execute", "threads": "round_of_work",
           "jsoncpp": "_ZN4Json9OurReader9readValueEv"}
CSMITH_MIN_PROGRESS, CSMITH_MAX_PROGRESS = 300, 20000

# (program, opt, crash kind, seed); the CI set is small and fixed, the full set is the matrix.
# The CI set: runs that meet the targets today (a regression guard); the full matrix shows where
# crashtrail misses them and docs/fidelity.md says why.
CI_SET = [("sqlite-api", "O2", "real", 0), ("lua-api", "O2", "real", 0), ("threads", "O2", "real", 0),
          ("csmith", "O0", "real", 1), ("csmith", "O2", "real", 1), ("csmith", "O2", "real", 14),
          ("jsoncpp", "O0", "kill", 5), ("jsoncpp", "O2", "kill", 1)]


def full_set():
    cases = []
    for opt in ("O0", "O2"):
        for prog in ("sqlite-shell", "lua", "threads", "jsoncpp"):
            cases += [(prog, opt, "kill", s) for s in range(1, 6)]
        for prog in ("sqlite-api", "lua-api", "threads", "jsoncpp"):
            cases.append((prog, opt, "real", 0))
        cases += [("csmith", opt, "real", s) for s in range(1, 16)]
    return cases


def log(msg):
    print("fidelity: " + msg, flush=True)


def run(cmd, **kw):
    kw.setdefault("check", True)
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    try:
        return subprocess.run(cmd, **kw)
    except subprocess.CalledProcessError as e:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(map(str, cmd[:6])), e.returncode,
                                                   (e.stderr or e.stdout or "")[-2000:]))


def sudo():
    return [] if os.geteuid() == 0 else ["sudo"]


def newer(target, *sources):
    """True when target is missing or older than any source."""
    if not os.path.exists(target):
        return True
    t = os.path.getmtime(target)
    return any(os.path.getmtime(s) > t for s in sources if os.path.exists(s))


# ---- sources ----------------------------------------------------------------------------------
class Env:
    def __init__(self, args):
        self.ct = os.path.abspath(args.crashtrail_build)
        self.work = os.path.abspath(args.work)
        self.src = os.path.abspath(args.sources) if args.sources else os.path.join(self.work, "src")
        self.bin = os.path.join(self.work, "bin")
        self.runs = os.path.join(self.work, "runs")
        self.ctcc = os.path.join(self.ct, "bin", "crashtrail-cc")
        self.crashtrail = os.path.join(self.ct, "bin", "crashtrail")
        self.runtime = oracle.runtime_dir(self.ct)
        # Everything crashtrail puts into a program: a new pass or runtime rebuilds the programs.
        self.ct_inputs = [os.path.join(self.ct, "lib", "crashtrail-pass.so"),
                          os.path.join(self.ct, "lib", "libcrashtrail-rt.a"), self.ctcc]
        self.steptrace = args.steptrace or os.path.join(self.bin, "steptrace")
        self.jobs = args.jobs
        # crashtrail-cc only: the pass's options under test (-mllvm -crashtrail-carry-acc)
        self.pass_flags = [f for o in args.pass_option or [] for f in ("-mllvm", o)]
        for d in (self.src, self.bin, self.runs):
            os.makedirs(d, exist_ok=True)


def ensure_deb_src():
    have = run(["apt-get", "indextargets", "--format", "$(CREATED_BY)"], check=False).stdout
    if "Sources" in have:
        return
    stanzas = []
    for f in glob.glob("/etc/apt/sources.list.d/*.sources"):
        for st in open(f).read().split("\n\n"):
            if re.search(r"^Types:.*\bdeb\b", st, re.M) and "deb-src" not in st:
                stanzas.append(re.sub(r"^Types:.*$", "Types: deb-src", st, flags=re.M))
    if not stanzas:
        raise RuntimeError("no deb-src entry in apt's sources and none to derive; add one")
    path = "/etc/apt/sources.list.d/crashtrail-fidelity-src.sources"
    log("apt has no deb-src entries; adding " + path)
    run(sudo() + ["tee", path], input="\n\n".join(stanzas) + "\n")
    run(sudo() + ["apt-get", "update", "-qq"])


def apt_install(pkgs):
    log("apt-get install " + " ".join(pkgs))
    run(sudo() + ["apt-get", "update", "-qq"])
    run(sudo() + ["apt-get", "install", "-y", "-qq", "--no-install-recommends"] + pkgs,
        env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))


def source_root(env, pkg, pattern):
    dirs = [d for d in glob.glob(os.path.join(env.src, pattern)) if os.path.isdir(d)]
    if not dirs:
        ensure_deb_src()
        log("apt-get source " + pkg)
        run(["apt-get", "source", "-qq", pkg], cwd=env.src)
        dirs = [d for d in glob.glob(os.path.join(env.src, pattern)) if os.path.isdir(d)]
    return sorted(dirs)[-1]


def sqlite_amalgamation(env):
    root = source_root(env, "sqlite3", "sqlite3-3.*")
    amalg = os.path.join(env.src, "sqlite-amalgamation")
    if not (os.path.exists(os.path.join(amalg, "sqlite3.c")) and
            os.path.exists(os.path.join(amalg, "shell.c"))):
        if not shutil.which("tclsh"):
            apt_install(["tcl"])  # SQLite's amalgamation and shell.c are made by Tcl scripts
        log("generating the SQLite amalgamation and shell.c (configure; make sqlite3.c shell.c)")
        os.makedirs(amalg, exist_ok=True)
        run([os.path.join(root, "configure"), "--disable-tcl"], cwd=amalg)
        run(["make", "-j%d" % env.jobs, "sqlite3.c", "shell.c"], cwd=amalg)
    return amalg


def lua_root(env):
    root = source_root(env, "lua5.4", "lua5.4-5.4.*")
    gen = os.path.join(env.src, "lua-gen")  # Debian's luaconf.h includes a header its rules make
    os.makedirs(gen, exist_ok=True)
    h = os.path.join(gen, "lua5.4-deb-multiarch.h")
    if not os.path.exists(h):
        with open(h, "w") as fh:
            fh.write('#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"\n')
    return os.path.join(root, "src"), gen


# ---- builds -----------------------------------------------------------------------------------
# Every program is also built "plain" (clang-14, no crashtrail) into a parallel directory: only
# to tell which lines have code of their own without crashtrail (classify.py).
def compiler(env, plain):
    return CC if plain else env.ctcc


def build_step(out, cmd, inputs):
    """Runs cmd (which writes out + ".tmp") when out is missing, older than an input, or was made
    by another command (kept in out + ".cmd")."""
    line = " ".join(cmd)
    try:
        same = open(out + ".cmd").read() == line
    except OSError:
        same = False
    if same and not newer(out, *inputs):
        return out
    run(cmd)
    os.replace(out + ".tmp", out)
    with open(out + ".cmd", "w") as fh:
        fh.write(line)
    return out


def compile_obj(env, src, obj, opt, flags, plain=False):
    flags = flags + ([] if plain else env.pass_flags)
    return build_step(obj, [compiler(env, plain), "-" + opt, "-gdwarf-4", "-w"] + flags +
                      ["-c", src, "-o", obj + ".tmp"], [src] + env.ct_inputs)


def link(env, out, objs, opt, libs, plain=False):
    return build_step(out, [compiler(env, plain), "-" + opt, "-gdwarf-4"] + objs +
                      ["-o", out + ".tmp"] + libs, objs + env.ct_inputs)


def out_dir(env, name, opt, plain):
    d = os.path.join(env.bin, "%s-%s%s" % (name, opt, "-plain" if plain else ""))
    os.makedirs(d, exist_ok=True)
    return d


def build_sqlite(env, opt, what, plain=False):
    a = sqlite_amalgamation(env)
    d = out_dir(env, "sqlite", opt, plain)
    lib = compile_obj(env, os.path.join(a, "sqlite3.c"), os.path.join(d, "sqlite3.o"), opt,
                      ["-DSQLITE_THREADSAFE=1", "-I" + a], plain)
    libs = ["-lpthread", "-ldl", "-lm"]
    if what == "shell":
        sh = compile_obj(env, os.path.join(a, "shell.c"), os.path.join(d, "shell.o"), opt,
                         ["-I" + a], plain)
        return link(env, os.path.join(d, "sqlite3"), [lib, sh], opt, libs, plain)
    drv = compile_obj(env, os.path.join(HERE, "programs", "sqlite_misuse.c"),
                      os.path.join(d, "sqlite_misuse.o"), opt, ["-I" + a], plain)
    return link(env, os.path.join(d, "sqlite_misuse"), [lib, drv], opt, libs, plain)


def build_lua(env, opt, what, plain=False):
    src, gen = lua_root(env)
    d = out_dir(env, "lua", opt, plain)
    # A fixed string-hash seed (Lua seeds it from the time and addresses): the same run each time.
    flags = ["-DLUA_USE_LINUX", "-DLUA_COMPAT_5_3", "-Dluai_makeseed(L)=0u", "-I" + gen, "-I" + src]
    units = [c for c in sorted(glob.glob(os.path.join(src, "*.c")))
             if os.path.basename(c) not in ("lua.c", "luac.c")]
    with concurrent.futures.ThreadPoolExecutor(env.jobs) as pool:
        core = list(pool.map(lambda c: compile_obj(env, c, os.path.join(
            d, os.path.basename(c)[:-2] + ".o"), opt, flags, plain), units))
    if what == "interp":
        main = compile_obj(env, os.path.join(src, "lua.c"), os.path.join(d, "lua.o"), opt, flags,
                           plain)
        return link(env, os.path.join(d, "lua"), core + [main], opt, ["-lm", "-ldl"], plain)
    drv = compile_obj(env, os.path.join(HERE, "programs", "lua_misuse.c"),
                      os.path.join(d, "lua_misuse.o"), opt, flags, plain)
    return link(env, os.path.join(d, "lua_misuse"), core + [drv], opt, ["-lm", "-ldl"], plain)


def build_jsoncpp(env, opt, plain=False):
    """jsoncpp's three units and the driver, linked statically into one C++ program."""
    root = source_root(env, "libjsoncpp", "libjsoncpp-1.*")
    d = out_dir(env, "jsoncpp", opt, plain)
    flags = ["-I" + os.path.join(root, "include")]
    units = sorted(glob.glob(os.path.join(root, "src", "lib_json", "*.cpp")))
    units.append(os.path.join(HERE, "programs", "jsoncpp_misuse.cpp"))
    with concurrent.futures.ThreadPoolExecutor(env.jobs) as pool:
        objs = list(pool.map(lambda c: compile_obj(env, c, os.path.join(
            d, os.path.basename(c)[:-4] + ".o"), opt, flags, plain), units))
    return link(env, os.path.join(d, "jsoncpp_misuse"), objs, opt, ["-lstdc++", "-lm"], plain)


def build_threads(env, opt, plain=False):
    d = out_dir(env, "threads", opt, plain)
    src = os.path.join(HERE, "programs", "threads.c")
    o = compile_obj(env, src, os.path.join(d, "threads.o"), opt, [], plain)
    return link(env, os.path.join(d, "threads"), [o], opt, ["-lpthread"], plain)


# ---- csmith -----------------------------------------------------------------------------------
class NoCrash(Exception):
    """A csmith program whose random code runs too little for a crash to be injected: skipped."""


def csmith_candidates(lines):
    """Indices of statement lines inside csmith's random functions (func_N; not main, which
    only hashes the globals) after which a statement may go: a line ending in ';' at brace depth
    >= 1, not a jump."""
    out, depth, in_func = [], 0, False
    for i, line in enumerate(lines):
        s = line.strip()
        if depth == 0 and s.startswith("{") and i > 0 and re.search(r"\bfunc_\d+\(", lines[i - 1]) \
                and not lines[i - 1].rstrip().endswith(";"):
            in_func = True
        opens, closes = line.count("{"), line.count("}")
        if in_func and depth >= 1 and s.endswith(";") and opens == closes and \
                not re.match(r"(return|break|continue|goto)\b", s) and not s.startswith("for"):
            out.append(i)
        depth += opens - closes
        if depth == 0:
            in_func = False
    return out


_CSMITH_LOCKS = {}
_CSMITH_LOCKS_GUARD = threading.Lock()


def csmith_program(env, seed, opt):
    """csmith_program_locked, one seed at a time (its -O0 and -O2 runs share the source)."""
    with _CSMITH_LOCKS_GUARD:
        lock = _CSMITH_LOCKS.setdefault(seed, threading.Lock())
    with lock:
        return csmith_program_locked(env, seed, opt)


def csmith_program_locked(env, seed, opt):
    """A csmith program with `if (++hits == K) *(volatile int *)0 = 0;` after a random statement
    of its random functions, at a point at least CSMITH_MIN_PROGRESS statements into the run (so
    the 200 lines before the crash are the random code, not csmith's CRC table set-up). A plain
    build with a counter after every candidate statement measures that. Returns (binary, line of
    the crash, attempts)."""
    d = os.path.join(env.bin, "csmith")
    os.makedirs(d, exist_ok=True)
    base = os.path.join(d, "s%d" % seed)
    if newer(base + ".orig.c"):
        out = run(["csmith", "--seed", str(seed), "--max-funcs", "6", "--max-block-depth", "4",
                   "--no-packed-struct"], cwd=d).stdout  # (it writes platform.info there)
        with open(base + ".orig.c", "w") as fh:
            fh.write(out)
    src = base + ".c"
    if newer(src, base + ".orig.c"):
        lines = open(base + ".orig.c").read().split("\n")
        head = lines.index('#include "csmith.h"') + 1
        lines[head:head] = ["static volatile int ct_fid_hits;", "static long ct_fid_progress;"]
        cands = csmith_candidates(lines)
        counted = list(lines)
        for i in reversed(cands):
            counted.insert(i + 1, "    ct_fid_progress++;")
        rng = random.Random(seed)
        best = None  # (progress, attempt, at, crash line): the deepest point, if none is deep enough
        for attempt in range(80):
            at = rng.choice(cands)
            k = rng.randint(1, 20)
            crash = "    if (++ct_fid_hits == %d) *(volatile int *)0 = 0;" % k
            probe = "    if (++ct_fid_hits == %d) { fprintf(stderr, \"progress %%ld\\n\", " \
                    "ct_fid_progress); *(volatile int *)0 = 0; }" % k
            pos = at + 1 + sum(1 for c in cands if c <= at)  # the same place in `counted`
            trial = counted[:pos] + [probe] + counted[pos:]
            with open(src + ".try.c", "w") as fh:
                fh.write("\n".join(trial))
            run([CC, "-O0", "-w", "-I" + CSMITH_INC, src + ".try.c", "-o", base + ".probe"])
            try:
                p = subprocess.run([base + ".probe"], capture_output=True, text=True, timeout=10)
            except subprocess.TimeoutExpired:
                continue
            m = re.search(r"progress (\d+)", p.stderr)
            if p.returncode != -11 or not m or int(m.group(1)) > CSMITH_MAX_PROGRESS:
                continue
            if not best or int(m.group(1)) > best[0]:
                best = (int(m.group(1)), attempt + 1, at, crash)
            if best[0] >= CSMITH_MIN_PROGRESS:
                break
        if not best:
            raise NoCrash("no injected crash is reached in 80 tries")
        progress, attempts, at, crash = best
        with open(src, "w") as fh:
            fh.write("\n".join(lines[:at + 1] + [crash] + lines[at + 1:]))
        with open(base + ".line", "w") as fh:
            fh.write("%d %d %d\n" % (at + 2, attempts, progress))
    line = int(open(base + ".line").read().split()[0])
    for plain in (False, True):
        exe = base + "." + opt + (".plain" if plain else "")
        if newer(exe, src, *env.ct_inputs):
            run([compiler(env, plain), "-" + opt, "-gdwarf-4", "-w", "-I" + CSMITH_INC, src,
                 "-o", exe + ".tmp"] + ([] if plain else env.pass_flags))
            os.replace(exe + ".tmp", exe)
    return base + "." + opt, line


# ---- one run ----------------------------------------------------------------------------------
def entry_delta(exe, symbol):
    """Link-time address of symbol minus the ELF entry point (steptrace -b)."""
    entry = int(run(["readelf", "-h", exe]).stdout.split("Entry point address:")[1].split()[0], 16)
    for line in run(["llvm-nm-14", "--defined-only", exe]).stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[2] == symbol:
            return int(f[0], 16) - entry
    raise RuntimeError("%s has no symbol %s" % (exe, symbol))


def plain_twin(env, prog, opt, kind, exe):
    """The same program built without crashtrail."""
    if prog == "csmith":
        return exe + ".plain"
    if prog.startswith("sqlite"):
        return build_sqlite(env, opt, "shell" if prog == "sqlite-shell" else "driver", True)
    if prog.startswith("lua"):
        return build_lua(env, opt, "interp" if prog == "lua" else "driver", True)
    if prog == "jsoncpp":
        return build_jsoncpp(env, opt, True)
    return build_threads(env, opt, True)


def case_spec(env, prog, opt, kind):
    """(binary, argv, stdin file, breakpoint (symbol, hits) or None)."""
    wl_sql = os.path.join(HERE, "programs", "workload.sql")
    wl_lua = os.path.join(HERE, "programs", "workload.lua")
    if prog == "sqlite-shell":
        exe = build_sqlite(env, opt, "shell")
        return exe, [exe, ":memory:"], wl_sql, None
    if prog == "sqlite-api":
        exe = build_sqlite(env, opt, "driver")
        return exe, [exe, wl_sql], None, ("label", 22)
    if prog == "lua":
        exe = build_lua(env, opt, "interp")
        return exe, [exe, wl_lua, "40"], None, None
    if prog == "lua-api":
        exe = build_lua(env, opt, "driver")
        return exe, [exe, wl_lua], None, ("send", 14)
    if prog == "jsoncpp":
        exe = build_jsoncpp(env, opt)
        # Real: the oracle starts at the last round (label's 30th call) and steps into the crash.
        return exe, [exe, "30"], None, (None if kind == "kill" else ("label", 30))
    if prog == "threads":
        exe = build_threads(env, opt)
        return exe, [exe, "kill" if kind == "kill" else "crash"], None, \
            (None if kind == "kill" else ("crash_soon", 1))
    raise KeyError(prog)


def count_hits(env, exe, argv, stdin, symbol, cwd):
    """How often the run calls symbol (steptrace -c; cached next to the binary)."""
    cache = "%s.hits.%s" % (exe, symbol)
    if not newer(cache, exe):
        return int(open(cache).read())
    rep = os.path.join(cwd, "count")
    with open(stdin or os.devnull) as fin:
        run([env.steptrace, "-c", "-b", str(entry_delta(exe, symbol)), "-o", rep, "--"] + argv,
            stdin=fin, cwd=cwd, env=dict(os.environ, CRASHTRAIL_ENABLE="0"))
    hits = int(oracle.read_report(rep)["hits"])
    with open(cache, "w") as fh:
        fh.write("%d\n" % hits)
    return hits


def run_case(env, case):
    """One run: build, trace (unless env.reanalyse and the run's files are there), compare."""
    prog, opt, kind, seed = case
    name = "%s.%s.%s.%d" % case
    rdir = os.path.join(env.runs, name)
    res = {"program": prog, "opt": opt, "kind": kind, "seed": seed, "name": name}
    if prog == "csmith":
        try:
            exe, res["crash_line"] = csmith_program(env, seed, opt)
        except NoCrash as e:
            res["skip"] = str(e)
            return res
    else:
        exe = case_spec(env, prog, opt, kind)[0]
    done = os.path.join(rdir, "result.json")
    if env.reanalyse and os.path.exists(done):
        res.update({k: v for k, v in json.load(open(done)).items() if k in (
            "steps", "exit", "trace_s", "kill_at", "kill_after", "signal", "stderr")})
    else:
        shutil.rmtree(rdir, ignore_errors=True)
        os.makedirs(os.path.join(rdir, "dumps"))
        trace_case(env, case, exe, rdir, res)
        with open(done, "w") as fh:
            json.dump(res, fh)
    if "error" not in res:
        analyse_case(env, case, exe, rdir, res)
    return res


def trace_case(env, case, exe, rdir, res):
    """Runs the program under steptrace until it crashes; the dump lands in rdir/dumps."""
    prog, opt, kind, seed = case
    t0 = time.time()
    stdin, stop = None, []
    if prog == "csmith":
        argv, brk, stop = [exe], ("main", 1), ["-m", str(CSMITH_MAX_STEPS)]
    else:
        exe, argv, stdin, brk = case_spec(env, prog, opt, kind)
    if kind == "kill":
        rng = random.Random("%s/%s/%d" % (prog, opt, seed))
        total = count_hits(env, exe, argv, stdin, KILL_AT[prog], rdir)
        brk = (KILL_AT[prog], rng.randint(1, total))
        res["kill_at"] = "%s call %d of %d" % (brk[0], brk[1], total)
        res["kill_after"] = rng.randint(20000, 60000)
    rep_path = os.path.join(rdir, "oracle")
    for attempt in range(4):
        trace = [env.steptrace, "-o", rep_path]
        if kind == "kill":
            trace += ["-k", str(res["kill_after"])]
        if brk:
            trace += ["-b", "%d:%d" % (entry_delta(exe, brk[0]), brk[1])]
        trace += stop + ["--"] + argv
        env_vars = dict(os.environ, CRASHTRAIL_DIR=os.path.join(rdir, "dumps"))
        with open(stdin or os.devnull) as fin:
            p = subprocess.run(trace, stdin=fin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, cwd=rdir, env=env_vars, timeout=3600)
        if kind != "kill" or p.returncode != 0 or "crashed none" not in open(rep_path).read():
            break
        brk = (brk[0], max(1, brk[1] // 2))  # the run ended within K steps of that call: earlier
        res["kill_at"] += ", then call %d" % brk[1]
    res["trace_s"] = round(time.time() - t0, 1)
    res["stderr"] = p.stderr[-500:]
    if p.returncode != 0 or not os.path.exists(rep_path):
        res["error"] = "steptrace failed (%d): %s" % (p.returncode, p.stderr[-500:])
        return
    rep = oracle.read_report(rep_path)
    res["steps"] = int(rep["steps"])
    res["exit"] = rep["exit"]
    if rep.get("crashed", "none") == "none":
        res["error"] = "no crash (exit %s)" % rep["exit"]
    elif rep.get("before_stepping") == "1":
        res["error"] = "the crash came before the oracle started"
    else:
        res["signal"] = "%s/%s" % (rep["signal"], rep["code"])


def analyse_case(env, case, exe, rdir, res):
    """The oracle's lines against the timeline of the run's dump: the figures and the classes."""
    prog, opt, kind, seed = case
    rep_path = os.path.join(rdir, "oracle")
    rep = oracle.read_report(rep_path)
    dumps = glob.glob(os.path.join(rdir, "dumps", "*.ctd"))
    if len(dumps) != 1:
        res["error"] = "%d dumps written (stderr: %s)" % (len(dumps), res.get("stderr", "")[-300:])
        return
    show = run([env.crashtrail, "show", "--format=json", dumps[0]])
    tl_json = json.loads(show.stdout)
    with open(os.path.join(rdir, "timeline.json"), "w") as fh:
        fh.write(show.stdout)
    steps, thread = oracle.timeline_steps(tl_json)
    longest = max((len(t["steps"]) for t in tl_json["threads"]), default=0)
    problems = window_check.check_windows(env.crashtrail, dumps[0], tl_json,
                                          sizes=[1, 200, 5000, max(1, longest - 1)])
    if problems:
        res["error"] = "--steps=N differs from the full timeline: " + "; ".join(problems[:3])
        return
    if thread is None or thread["tid"] != int(rep["crashed"]):
        res["error"] = "the dump's crashed thread is not the oracle's (%s vs %s)" % (
            thread and thread["tid"], rep["crashed"])
        return
    pcs = oracle.read_pcs(rep_path + ".pcs")
    lines, info = oracle.oracle_lines(rep, pcs, [exe], [env.runtime])
    if not lines:
        res["skip"] = "the crashed thread ran no line of the program while it was stepped " \
                      "(%d instructions, all in libraries: a thread blocked in a call)" % len(pcs)
        return
    res.update(oracle.compare(lines, steps))
    res["oracle_info"] = info
    res["recovered"] = bool(tl_json.get("unfinished_path_recovered"))
    res["warnings"] = tl_json.get("warnings", [])
    res["mismatches"] = classify.classify(env, exe, plain_twin(env, prog, opt, kind, exe), lines,
                                          steps, res["recovered"])
    res["lcs_target"] = TARGET_LCS[opt]
    res["ok"] = res["last_ok"] and res["lcs"] >= TARGET_LCS[opt]


# ---- reports ----------------------------------------------------------------------------------
def table(results):
    rows = ["| program | opt | crash | seed | last step is the fault | common suffix | LCS/200 |"
            " oracle steps | notes |", "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        if "skip" in r:
            rows.append("| %s | -%s | %s | %d | skipped | | | | %s |" % (
                r["program"], r["opt"], r["kind"], r["seed"], r["skip"]))
            continue
        if "error" in r:
            rows.append("| %s | -%s | %s | %d | error | | | | %s |" % (
                r["program"], r["opt"], r["kind"], r["seed"], r["error"]))
            continue
        suffix = "%d%s" % (r["suffix"], " (all)" if r["suffix"] == r["oracle_lines"] else "")
        notes = ", ".join("%s %d" % (k, v) for k, v in sorted(classify.summary(r).items()))
        rows.append("| %s | -%s | %s | %d | %s | %s | %.3f%s | %d | %s |" % (
            r["program"], r["opt"], r["kind"], r["seed"], "yes" if r["last_ok"] else "**no**",
            suffix, r["lcs"], "" if r["lcs_n"] == 200 else " (of %d)" % r["lcs_n"], r["steps"],
            notes))
    return "\n".join(rows) + "\n"


def details(r):
    if "skip" in r:
        return "== %s: skipped (%s)\n" % (r["name"], r["skip"])
    out = ["== %s: %s" % (r["name"], "ok" if r.get("ok") else "MISS" if "error" not in r
                          else "ERROR " + r["error"])]
    if "error" in r:
        return "\n".join(out) + "\n"
    out.append("   last step is the fault: %s; common suffix %d of %d oracle lines / %d steps; "
               "LCS/%d %.3f; %d single steps in %.0f s" % (
                   r["last_ok"], r["suffix"], r["oracle_lines"], r["timeline_steps"], r["lcs_n"],
                   r["lcs"], r["steps"], r["trace_s"]))
    out.append("   oracle: " + json.dumps(r["oracle_info"]))
    if "first_diff" in r:
        fd = r["first_diff"]
        out.append("   first difference, %d steps before the crash (oracle | timeline):" %
                   fd["steps_before_crash"])
        out += ["     " + row for row in fd["side_by_side"]]
    for m in r["mismatches"]:
        out.append("   %-8s %-12s %-40s %s" % (m["side"], m["class"], m["line"], m.get("note", "")))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--crashtrail-build", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--set", choices=("ci", "full"), default="ci")
    ap.add_argument("--only", help="run the cases whose name matches this regex")
    ap.add_argument("--pass-option", action="append", help="a pass option (-crashtrail-...) for "
                    "every instrumented compile, passed with -mllvm; repeatable")
    ap.add_argument("--sources", help="where the Debian sources are fetched and kept (default "
                    "WORK/src): another run's, shared")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--steptrace", help="a built steptrace (default: build it into WORK/bin)")
    ap.add_argument("--table", help="write the results table (markdown) here")
    ap.add_argument("--details", help="write the per-run details here")
    ap.add_argument("--json", help="write the results as JSON here")
    ap.add_argument("--reanalyse", action="store_true",
                    help="compare the runs already in WORK/runs again, without running them")
    args = ap.parse_args()
    env = Env(args)
    env.reanalyse = args.reanalyse
    if not args.steptrace:
        src = os.path.join(HERE, "steptrace.c")
        if newer(env.steptrace, src):
            run([CC, "-O2", "-Wall", "-o", env.steptrace, src])
    cases = CI_SET if args.set == "ci" else full_set()
    if args.only:
        cases = [c for c in cases if re.search(args.only, "%s.%s.%s.%d" % c)]
    # Build first, one program at a time (the builds use every core themselves).
    for prog, opt, kind, _ in sorted(set((c[0], c[1], c[2], 0) for c in cases)):
        if prog != "csmith":
            plain_twin(env, prog, opt, kind, case_spec(env, prog, opt, kind)[0])
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futs = {pool.submit(run_case, env, c): c for c in cases}
        results = []
        for f in concurrent.futures.as_completed(futs):
            try:
                r = f.result()
            except Exception as e:  # a build or tool failure is a failed run, not a crash
                c = futs[f]
                r = {"program": c[0], "opt": c[1], "kind": c[2], "seed": c[3],
                     "name": "%s.%s.%s.%d" % c, "error": str(e)[:400]}
            results.append(r)
            log("%-28s %s" % (r["name"], "error: " + r["error"] if "error" in r else
                              "skipped: " + r["skip"] if "skip" in r else
                              "last %s, suffix %d, LCS %.3f, %d steps, %.0f s" % (
                                  r["last_ok"], r["suffix"], r["lcs"], r["steps"], r["trace_s"])))
    order = {c: i for i, c in enumerate(cases)}
    results.sort(key=lambda r: order[(r["program"], r["opt"], r["kind"], r["seed"])])
    text = table(results)
    print(text)
    det = "".join(details(r) for r in results)
    print(det)
    for path, content in ((args.table, text), (args.details, det)):
        if path:
            with open(path, "w") as fh:
                fh.write(content)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)
    bad = [r["name"] for r in results if not r.get("ok") and "skip" not in r]
    if bad:
        log("%d of %d runs miss the targets: %s" % (len(bad), len(results), " ".join(bad)))
        return 1
    log("all %d runs meet the targets" % len(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
