#!/usr/bin/env python3
"""Runs the reproducers of the crashtrail bugs the fidelity tests found (docs/fidelity.md) and
says, for each, whether the bug is still there. Each reproducer's comment explains it.

  check.py --crashtrail-build BUILD [--work DIR] [--steptrace PATH] [--sources DIR]
Exit status: 0 when every bug is fixed, 1 when at least one is still there.
"""
import argparse
import bisect
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "test", "roundtrip"))
import oracle  # noqa: E402



def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, check=True, **kw)


def line_of(src, text):
    """The number of the first line of code (not of the opening comment) that contains text."""
    for n, line in enumerate(open(src), 1):
        if text in line and not line.lstrip().startswith(("/*", "*")):
            return n
    raise KeyError(text)


class Repro:
    def __init__(self, args, name, opt, tag="", flags=()):
        self.src = os.path.join(HERE, name + ".c")
        self.dir = os.path.join(args.work, name + tag)
        os.makedirs(self.dir, exist_ok=True)
        self.exe = os.path.join(self.dir, name)
        self.args = args
        # The reproducers were written against the code a record before every call gives
        # (their flushes before calls): that build, unless a check asks for deferred calls.
        if not any("defer-calls" in f for f in flags):
            flags = ["-fplugin-arg-crashtrail-defer-calls=0"] + list(flags)
        sh([os.path.join(args.crashtrail_build, "bin", "crashtrail-cc"), "-" + opt, "-gdwarf-4"] +
           list(flags) + [self.src, "-o", self.exe])

    def trace(self, *trace_args):
        """Runs the program under steptrace; the report's path. IndexError if no dump was
        written (the signal's instruction was not reached)."""
        for f in glob.glob(os.path.join(self.dir, "*.ctd")):
            os.unlink(f)
        rep = os.path.join(self.dir, "oracle")
        subprocess.run([self.args.steptrace, "-o", rep] + list(trace_args) + ["--", self.exe],
                       capture_output=True, cwd=self.dir, env=dict(os.environ, CRASHTRAIL_DIR=self.dir))
        self.dump = glob.glob(os.path.join(self.dir, "*.ctd"))[0]
        self.tl = self.show()
        return rep

    def run(self, *trace_args):
        """Oracle lines and timeline steps (line numbers) of one crashing run."""
        rep = self.trace(*trace_args)
        tl = self.tl
        report = oracle.read_report(rep)
        o, _ = oracle.oracle_lines(report, oracle.read_pcs(rep + ".pcs"), [self.exe],
                                   [oracle.runtime_dir(self.args.crashtrail_build)])
        t, _ = oracle.timeline_steps(tl)
        self.tl = tl
        self.uncertain = ["uncertain" in x[3] for x in t]
        return [x[1] for x in o], [x[1] for x in t]

    def show(self, *show_args):
        """The timeline of the last run's dump, as JSON."""
        return json.loads(sh([os.path.join(self.args.crashtrail_build, "bin", "crashtrail"), "show",
                              "--format=json"] + list(show_args) + [self.dump]).stdout)

    def steps(self, *show_args):
        """The timeline's steps (line numbers) of the last run's dump."""
        return [x[1] for x in oracle.timeline_steps(self.show(*show_args))[0]]

    def instructions(self, fn):
        """fn's instructions as [(address, text)] (objdump), and what to add to an address to
        name it for steptrace's -a (relative to the entry point)."""
        dis = sh(["objdump", "-d", "--no-show-raw-insn", self.exe]).stdout
        body = dis.split("<%s>:\n" % fn, 1)[1].split("\n\n", 1)[0].splitlines()
        ins = [(int(l.split(":")[0], 16), l.split(":", 1)[1].strip()) for l in body if ":" in l]
        return ins, self.symbol_delta(fn) - ins[0][0]

    def symbol_delta(self, symbol):
        entry = int(sh(["readelf", "-h", self.exe]).stdout.split("Entry point address:")[1].split()[0], 16)
        for line in sh(["llvm-nm-14", "--defined-only", self.exe]).stdout.splitlines():
            f = line.split()
            if len(f) == 3 and f[2] == symbol:
                return int(f[0], 16) - entry
        raise KeyError(symbol)


def after_last(seq, line):
    return seq[len(seq) - 1 - seq[::-1].index(line):]


def decl_line(args):
    r = Repro(args, "decl_line", "O0")
    n = line_of(r.src, "int n;")
    plain = r.exe + ".plain"
    sh(["clang-14", "-O0", "-gdwarf-4", r.src, "-o", plain])
    count = lambda exe: len(re.findall(r"decl_line\.c:%d\n" % n, sh(["objdump", "-dl", exe]).stdout))
    ct, pl = count(r.exe), count(plain)
    return ct > pl, "instruction groups on line %d (`int n;`): %d with crashtrail, %d without" % (
        n, ct, pl)


def libc_call(args):
    """Both builds: with deferred calls main's path is read from its register up to the crash
    too, and the frame was once taken to be still inside note(), the deferred call before
    strlen (lines 22-24 missing, the crash line uncertain and one level too deep)."""
    bad, what = False, []
    for defer in (0, 1):
        r = Repro(args, "libc_call", "O0", tag="-defer%d" % defer,
                  flags=["-fplugin-arg-crashtrail-defer-calls=%d" % defer])
        o, t = r.run()
        callee = line_of(r.src, "return x * 2;")
        o, t = after_last(o, callee), after_last(t, callee)
        bad |= o != t
        what.append("defer-calls=%d: after note() (line %d): CPU %s, timeline %s" % (
            defer, callee, o, t))
    return bad, "; ".join(what)


def lifetime_lines(args):
    r = Repro(args, "lifetime_lines", "O2")
    o, t = r.run()
    decl, ret = line_of(r.src, "long v;"), line_of(r.src, "return v;")
    bad = decl in t or any(x == ret + 1 for x in t)
    return bad, "CPU %s, timeline %s (declaration %d, closing brace %d)" % (
        o[-8:], t[-10:], decl, ret + 1)


def crash_line_twice(args):
    r = Repro(args, "crash_line_twice", "O2")
    o, t = r.run()
    loop, cmp = line_of(r.src, "for (unsigned k = 0; k < 60; k++)"), line_of(r.src, "if (e->key == key)")
    # Steps the timeline flags uncertain are not claims that the line ran.
    t = [x for x, u in zip(t, r.uncertain) if not u]
    o, t = after_last(o, loop), after_last(t, loop)
    return t.count(cmp) != o.count(cmp), "after line %d: CPU %s, timeline (certain steps) %s" % (loop, o, t)


def line_order(args):
    r = Repro(args, "line_order", "O2")
    o, t = r.run()
    s = r.steps("--line-order=source")
    n = len(o)
    if s[-n:] == o:
        return True, "the reproducer no longer shows a difference: IR order matches the CPU too"
    bad = t[-n:] != o
    return bad, "the CPU's %d lines: timeline %s; in IR order (--line-order=source) %s" % (
        n, "equal" if not bad else "differs: CPU %s, timeline %s" % (o[-30:], t[-30:]),
        "differs" if s[-n:] != o else "equal")


def entry_hoist(args):
    # Built with the slow paths inline (the layout computed record ids still use): with them out
    # of line, codegen gives the hoisted move the function's opening line, no guest row.
    r = Repro(args, "entry_hoist", "O2", flags=["-mllvm", "-crashtrail-inline-slow-paths"])
    dis = sh(["objdump", "-dl", "--no-show-raw-insn", r.exe]).stdout
    body = dis.split("<grow>:\n", 1)[1].split("\n\n", 1)[0]
    test = line_of(r.src, "if (nsize == 0)")
    # the hoisted instruction: a row of another line before the first row of the entry's test
    head = body.split("entry_hoist.c:%d" % test, 1)[0]
    if not re.search(r"entry_hoist\.c:(?!%d\b)\d+ \(discriminator" % test, head):
        return True, "nothing is hoisted above grow()'s test: the reproducer tests nothing"
    o, t = r.run()
    n = len(o)
    bad = t[-n:] != o
    return bad, "the CPU's %d lines: timeline %s" % (
        n, "equal" if not bad else "differs: CPU %s, timeline %s" % (o[-30:], t[-30:]))


def line0_crash_step(args):
    r = Repro(args, "line0_crash_step", "O2")
    entry = int(sh(["readelf", "-h", r.exe]).stdout.split("Entry point address:")[1].split()[0], 16)
    syms = sorted(int(f[0], 16) for f in (l.split() for l in sh(["llvm-nm-14", r.exe]).stdout.splitlines())
                  if len(f) == 3)
    # (address, line) of every line-table row, in address order
    table = sorted((int(l.split()[0], 16), int(l.split()[1])) for l in
                   sh(["llvm-dwarfdump-14", "--debug-line", r.exe]).stdout.splitlines()
                   if l.startswith("0x") and "end_sequence" not in l)
    rows = [va for va, line in table if line == 0]
    zero = []
    for fn in ("work", "pick"):
        lo = r.symbol_delta(fn) + entry
        hi = min(a for a in syms if a > lo)
        zero += [va for va in rows if lo <= va < hi]
    lo = r.symbol_delta("work") + entry
    # A first run (stepping from work's entry) finds which line-0 instructions the loop runs.
    start = "%d:1" % (lo - entry)
    rep = os.path.join(r.dir, "probe")
    subprocess.run([args.steptrace, "-o", rep, "-b", start, "-k", "20000", "--", r.exe],
                   capture_output=True, cwd=r.dir, env=dict(os.environ, CRASHTRAIL_ENABLE="0"))
    report = oracle.read_report(rep)
    amap = oracle.AddressMap(report["maps"], [r.exe])
    ran = {amap.lookup(pc)[1] for pc in oracle.read_pcs(rep + ".pcs")}
    # Every line-0 instruction the loop runs, each interrupted once: after a call, in pick()'s
    # switch dispatch, in a switch edge's code, in a flush. The last step is never a line that
    # did not run (nor line 0), and it is the line the CPU ran last wherever the row before the
    # pc (in address order) is a line whose code has run: the switch line, before its dispatch.
    # Elsewhere the timeline may stop earlier, flagged uncertain (a switch edge's code laid out
    # after another block: the line table cannot tell that the switch ran).
    switch = line_of(r.src, "switch ((r >> 2) & 7)")
    bad, exact, dispatch, targets = [], 0, 0, sorted(va for va in zero if va in ran)
    for target in targets:
        before = [line for va, line in table if va <= target and line][-1]
        dispatch += before == switch
        o, t = r.run("-b", start, "-a", "%d:50" % (target - entry))
        if t[-1] == o[-1]:
            exact += 1
        elif t[-1] == 0 or t[-1] not in o[-20:] or not r.uncertain[-1] or before == switch:
            bad.append("0x%x (after line %d): CPU %d, timeline %d" % (target, before, o[-1], t[-1]))
    if not dispatch:
        bad.append("no line-0 instruction after the switch line: the dispatch is not tested")
    return bool(bad), "SIGSEGV before each of %d line-0 instructions (%d of the dispatch), 50th " \
        "time: %d exact%s" % (len(targets), dispatch, exact, "; " + "; ".join(bad) if bad else "")


def prologue_signal(args):
    r = Repro(args, "prologue_signal", "O0")
    o, t = r.run("-a", "%d:5" % r.symbol_delta("step"))
    call, first, ret = (line_of(r.src, x) for x in ("s += step(i)", "long r = i * 3", "return r;"))
    tail = after_last(t, call)
    ran = [x for x in tail[1:] if first <= x <= ret]
    return bool(ran), "CPU's last line %d; timeline after the last line %d: %s" % (o[-1], call, tail)


def refill_signal(args):
    r = Repro(args, "refill_signal", "O2")
    seen, bad = {"classify": [], "classify_leaf": []}, []
    # Entries 2-7: the oracle single-steps up to the entry, and since 16 KB chunks an entry
    # comes every 1022 records (2-11 took four minutes); 3-4 come from classify(), 5-6 from
    # classify_leaf().
    for n in range(2, 8):
        o, t = r.run("-a", "%d:%d" % (r.symbol_delta("__crashtrail_write_slow"), n))
        stack = [f["function"] for f in next(th for th in r.tl["threads"] if th["crashed"])["stack"]]
        if stack[:2] != ["__crashtrail_write_slow", "__crashtrail_write_here3"] or \
                len(stack) < 4 or stack[2] not in seen:
            continue  # the chunk boundary fell to main()'s records
        seen[stack[2]].append(n)
        lost = [w for w in r.tl["warnings"] if "not recoverable" in w]
        if lost or t[-1] != o[-1] or stack[3] != "main":
            bad.append("entry %d in %s: CPU's last line %d, timeline's %d; stack %s%s" % (
                n, stack[2], o[-1], t[-1], stack[:4], "; " + lost[0] if lost else ""))
    missing = [f for f, entries in seen.items() if not entries]
    if missing:
        return True, "no refill entry 2-7 came from %s: not tested" % " or ".join(missing)
    return bool(bad), "refill entries from classify(): %s, from classify_leaf(): %s; %s" % (
        seen["classify"], seen["classify_leaf"],
        "; ".join(bad) if bad else "every path recovered, last steps right, main() above")


def edge_store_signal(args):
    r = Repro(args, "edge_store_signal", "O0")
    ins, rel = r.instructions("scan")
    # The accumulator's updates: a load of its slot, one operation, a store back to it.
    stores = []
    for (_, i1), (_, i2), (a, i3) in zip(ins, ins[1:], ins[2:]):
        slot = re.match(r"mov\s+(-0x[0-9a-f]+\(%rbp\)),%rax$", i1)
        if slot and i3 == "mov    %rax," + slot.group(1) and not i2.startswith("mov"):
            stores.append(a)
    bad = []
    for a in stores:
        o, t = r.run("-a", "%d:3" % (rel + a))
        if o[-8:] != t[-8:]:
            bad.append("store at scan+%#x: CPU %s, timeline %s" % (a - ins[0][0], o[-8:], t[-8:]))
    if not stores:
        return True, "no accumulator store found in scan(): nothing tested"
    return bool(bad), "%d accumulator stores; %s" % (
        len(stores), "; ".join(bad) if bad else "every last 8 lines right")


def line0_runs(r, fn, joins=False):
    """Every instruction of fn whose line-table row has line 0 (the row's first instruction;
    joins: instead each instruction such a row covers that a jump goes to), interrupted on its
    5th run: (address, the CPU's lines, the timeline's lines); instructions not run 5 times
    left out. (Each run single-steps the program: some ten seconds.)"""
    entry = int(sh(["readelf", "-h", r.exe]).stdout.split("Entry point address:")[1].split()[0], 16)
    ins, rel = r.instructions(fn)
    lo, hi = ins[0][0], ins[-1][0]
    rows = sorted((int(l.split()[0], 16), int(l.split()[1])) for l in
                  sh(["llvm-dwarfdump-14", "--debug-line", r.exe]).stdout.splitlines()
                  if l.startswith("0x") and "end_sequence" not in l)
    addrs = {va for va, line in rows if line == 0 and lo <= va <= hi}
    if joins:
        starts = [va for va, _ in rows]
        targets = {int(m.group(1), 16) for _, t in ins
                   for m in [re.match(r"j\w+\s+([0-9a-f]+) <", t)] if m}
        addrs = {a for a, _ in ins
                 if a in targets and rows[bisect.bisect_right(starts, a) - 1][1] == 0}
    runs = []
    for va in sorted(addrs):
        try:
            o, t = r.run("-a", "%d:5" % (va - entry))
        except IndexError:  # not run 5 times (a cold path)
            continue
        runs.append((va - lo, o, t))
    return runs


def line0_block_start(args):
    bad, tested = [], 0
    for opt, fn in (("O2", "cell_info"), ("O0", "unlink_node")):
        r = Repro(args, "line0_block_start", opt, "." + opt)
        for off, o, t in line0_runs(r, fn):
            tested += 1
            # Each is at a block's start, before its first line (a register copy, a jump to
            # the next block): the timeline's last step is the CPU's last line.
            if t[-1] != o[-1]:
                bad.append("%s %s+%#x: CPU's last line %d, timeline's %d" %
                           (opt, fn, off, o[-1], t[-1]))
    if not tested:
        return True, "no line-0 instruction of cell_info() or unlink_node() ran: nothing tested"
    return bool(bad), "%d line-0 instructions interrupted; %s" % (
        tested, "; ".join(bad) if bad else "the last line right at each")


def last_lines_verdict(runs, fn, what):
    """line0_runs' runs of fn judged: the timeline's last line must be the CPU's at each."""
    bad = ["%s+%#x: CPU's last line %d, timeline's %d" % (fn, off, o[-1], t[-1])
           for off, o, t in runs if t[-1] != o[-1]]
    if not runs:
        return True, "no %s of %s() ran: nothing tested" % (what, fn)
    return bool(bad), "%d %s interrupted; %s" % (
        len(runs), what, "; ".join(bad) if bad else "the last line right at each")


def line0_after_return(args):
    r = Repro(args, "line0_after_return", "O0")
    # After inner() returned and get()'s return block ran its test: get()'s line is the CPU's
    # last, and the timeline's.
    return last_lines_verdict(line0_runs(r, "get"), "get", "line-0 instructions")


def line0_join(args):
    r = Repro(args, "line0_join", "O2")
    # At a join's line-0 instructions, whichever way came in: the line before it on that way is
    # the CPU's last, and the timeline's.
    return last_lines_verdict(line0_runs(r, "column_type", joins=True), "column_type",
                              "line-0 joins")


def check_flush_signal(args):
    r = Repro(args, "check_flush_signal", "O2")
    ins, rel = r.instructions("work")
    # A check point: the accumulator compared with its limit, and a jump to the flush. The
    # limit is an immediate (`test $0xffffffff80000000`, budgets of 32 bits and more) or the
    # module's limit table (`cmp __crashtrail_check_limits+8*D(%rip)`).
    flushes = [int(j.split()[1], 16) for (_, t), (_, j) in zip(ins, ins[1:])
               if (re.match(r"test\s+\$0xffffffff[0-9a-f]+,%r", t) and j.startswith("jne")) or
               (re.match(r"cmp\s+\S+\(%rip\),%r", t) and "__crashtrail_check_limits" in t
                and j.startswith("ja "))]
    # Each check's flush at its start (the record not stored yet), and every flush of work()
    # (the checks', the return's) right after the store of the ring position (the record
    # stored, the accumulator not restarted yet); the 2nd arrival, else the 1st (the return).
    points = [(a, (2,)) for a in flushes]
    points += [(b, (2, 1)) for (_, t), (b, _) in zip(ins, ins[1:]) if re.match(r"mov\s+%\w+,%fs:", t)]
    call_line = line_of(r.src, "printf(\"%d\\n\", work(1000));")
    bad, reached = [], 0
    for a, arrivals in points:
        for arrival in arrivals:
            try:
                o, t = r.run("-a", "%d:%d" % (rel + a, arrival))
                break
            except IndexError:  # no dump: not reached that often (or a cold path's store)
                o = None
        if o is None:
            continue
        reached += 1
        # Every line since work() was called: its iterations repeat the same lines, so a short
        # tail would not see one go missing.
        o, t = after_last(o, call_line), after_last(t, call_line) if call_line in t else t
        if o != t:
            bad.append("signal at work+%#x: CPU %d lines, timeline %d; last CPU %s, timeline %s"
                       % (a - ins[0][0], len(o), len(t), o[-12:], t[-12:]))
    if not flushes:
        return True, "no check point found in work(): nothing tested"
    # the checks' flushes twice each, the return's once
    return bool(bad) or reached < 2 * len(flushes) + 1, "%d check flushes, %d signals; %s" % (
        len(flushes), reached, "; ".join(bad) if bad else "every line since work() was called right")


def signals_before_note_calls(r, window):
    """A signal at each instruction of visit() after a ring position's store (at most `window`
    instructions before a call of note()) up to that call, the call's included (their 2nd
    arrival); every line since visit() was called compared with the CPU's. The addresses
    tested, and what differed."""
    ins, rel = r.instructions("visit")
    calls = []
    for k, (_, t) in enumerate(ins):
        if t.startswith("call") and "<note>" in t:
            stores = [j for j in range(max(0, k - window), k) if re.match(r"mov\s+%\w+,%fs:", ins[j][1])]
            if stores:
                calls += [a for a, _ in ins[stores[-1] + 1:k + 1]]
    call_line = line_of(r.src, "printf(\"%d\\n\", visit(30));")
    bad = []
    for a in calls:
        o, t = r.run("-a", "%d:2" % (rel + a))
        o, t = after_last(o, call_line), after_last(t, call_line) if call_line in t else t
        if o != t:
            bad.append("signal at visit+%#x: CPU %s, timeline %s" % (a - ins[0][0], o[-8:], t[-8:]))
    return calls, bad


def call_signal(args):
    # A call after a flush: the ring position stored, at most two moves, the call.
    calls, bad = signals_before_note_calls(Repro(args, "call_signal", "O2"), 3)
    if not calls:
        return True, "no call after a flush in visit(): nothing tested"
    return bool(bad), "%d signals between a flush and its call; %s" % (
        len(calls), "; ".join(bad) if bad else "every line since visit() was called right")


def valgrind_dwarf5(args):
    """Any instrumented program, itself built with -gdwarf-4: valgrind 3.19 cannot read the DWARF 5
    of crashtrail's runtime objects and gives up before the program starts."""
    r = Repro(args, "decl_line", "O0")
    p = subprocess.run(["valgrind", "--tool=none", r.exe], capture_output=True, text=True)
    bad = "Giving up" in p.stderr
    return bad, "valgrind --tool=none: %s" % (
        "'" + p.stderr.strip().splitlines()[-2].split("== ", 1)[-1] + "'" if bad else "runs")


def lua_dispatch(args):
    import fidelity  # the Debian sources: apt-get source lua5.4, as the fidelity tests fetch them
    import run_roundtrip
    os.makedirs(args.sources, exist_ok=True)
    src, gen = fidelity.lua_root(types.SimpleNamespace(src=args.sources))
    work = os.path.join(args.work, "lua_dispatch")
    shutil.rmtree(work, ignore_errors=True)  # run_roundtrip wants fresh directories
    os.makedirs(work)
    rt = types.SimpleNamespace(build=args.crashtrail_build, clang="clang-14", clangxx="clang++-14",
                               timeout=30.0, ring_kb=131072, tables=False,
                               block_trace_obj=os.path.join(work, "block_trace.o"))
    sh(["clang-14", "-O2", "-c", "-I" + os.path.join(args.crashtrail_build, "include"),
        os.path.join(REPO, "test", "roundtrip", "block_trace.c"), "-o", rt.block_trace_obj])
    os.environ["CPATH"] = src + ":" + gen
    verdicts = {opt: run_roundtrip.one(rt, os.path.join(HERE, "lua_dispatch.c"), opt, work,
                                       ["-lm", "-ldl"]) for opt in ("O0", "O2")}
    return any(v[0] != "ok" for v in verdicts.values()), "round trip: %s" % "; ".join(
        "-%s %s %s" % (opt, v[0], v[1][:160]) for opt, v in verdicts.items())


def sunk_case_code(args):
    r = Repro(args, "sunk_case_code", "O2")
    entry = int(sh(["readelf", "-h", r.exe]).stdout.split("Entry point address:")[1].split()[0], 16)
    bad, tested = [], []
    for fn, switch_text in (("precall", "switch (func->tt & 0x3f)"),
                            ("precall_table", "switch (func->tt & 7)")):
        ins, rel = r.instructions(fn)
        # __crashtrail_path's location list in fn
        dump = sh(["llvm-dwarfdump-14", "--name=" + fn, "--show-children", r.exe]).stdout
        var = dump.split('"__crashtrail_path"')[0].rsplit("DW_TAG_variable", 1)[1]
        covered = [(int(a, 16), int(b, 16)) for a, b in re.findall(r"\[0x([0-9a-f]+), 0x([0-9a-f]+)\)", var)]
        cov = lambda a: any(lo <= a < hi for lo, hi in covered)
        # The case's code, sunk (`lea 0x4(,%rax,8),%rcx`), and the run of instructions around it
        # that no entry covers. (fn has other gaps: after a call, where the accumulator is a
        # constant whose register no entry names; not this reproducer's.)
        gap = []
        for k, (a, text) in enumerate(ins):
            if re.match(r"lea\s+0x[0-9a-f]+\(,%r\w+,[248]\),", text) and not cov(a):
                lo = k
                while lo > 0 and not cov(ins[lo - 1][0]):
                    lo -= 1
                hi = k
                while hi + 1 < len(ins) and not cov(ins[hi + 1][0]):
                    hi += 1
                # Its first instruction, the sunk code itself and its last: each run is single-
                # stepped, and every instruction of the gap failed the same way before the fix.
                gap = sorted({ins[lo][0], a, ins[hi][0]})
                break
        switch = line_of(r.src, switch_text)
        for va in gap:
            try:
                o, t = r.run("-a", "%d:5" % (va - entry))
            except (IndexError, ValueError):  # not run 5 times (a cold path)
                continue
            tested.append(va)
            # The lines since the switch of the call the signal stopped (the timeline may flag
            # the inferred ones uncertain; it must not leave them out or add any).
            if switch not in o or switch not in t or after_last(o, switch) != after_last(t, switch):
                bad.append("%s+%#x: CPU %s, timeline %s" % (fn, va - ins[0][0], o[-10:], t[-10:]))
        if not gap:
            bad.append("%s: no gap around the case's code: nothing tested" % fn)
    return bool(bad), "%d instructions of the cases' gaps interrupted; %s" % (
        len(tested), "; ".join(bad) if bad else "the lines since the switch are the CPU's")


def call_result_spill(args):
    r = Repro(args, "call_result_spill", "O0")
    o, t = r.run()
    call = line_of(r.src, "return scale(x)")
    o, t = after_last(o, call - 4), after_last(t, call - 4)  # from scale()'s body on
    return o != t, "after scale()'s line %d: CPU %s, timeline %s" % (call - 4, o, t)


def return_flush_epilogue(args):
    r = Repro(args, "return_flush_epilogue", "O0")
    ins, rel = r.instructions("next_char")
    stores = [k for k, (_, t) in enumerate(ins) if re.match(r"mov\s+%\w+,%fs:", t)]
    rets = [k for k, (_, t) in enumerate(ins) if t.startswith("ret")]
    if not stores or not rets or stores[-1] > rets[-1]:
        return True, "no position store before next_char()'s ret: nothing tested"
    bad = []
    for a, _ in ins[stores[-1] + 1:rets[-1] + 1]:
        o, t = r.run("-a", "%d:3" % (rel + a))
        if o[-8:] != t[-8:]:
            bad.append("signal at next_char+%#x: CPU %s, timeline %s" % (a - ins[0][0], o[-8:], t[-8:]))
    return bool(bad), "%d signals between next_char()'s last position store and its ret; %s" % (
        rets[-1] - stores[-1], "; ".join(bad) if bad else "every last 8 lines right")

def call_args_after_flush(args):
    # -O0: the accumulator's restart and the arguments' moves between the store and the call.
    calls, bad = signals_before_note_calls(Repro(args, "call_args_after_flush", "O0"), 8)
    if not calls:
        return True, "no call of note() after a flush in visit(): nothing tested"
    return bool(bad), "%d signals between a flush and its call; %s" % (
        len(calls), "; ".join(bad) if bad else "every line since visit() was called right")


def fragments(exe):
    """The flushes' out-of-line fragments (pass/SlowPathAsm.cpp) in exe: for each, its
    instructions' addresses (lea, push, call, the jump to label 3 the trampoline returns to, and
    the cmp that carries the offset to label 2), the trampoline it calls and the function it
    goes back to (label 3, the jump's target)."""
    dis = sh(["objdump", "-d", "--no-show-raw-insn", exe]).stdout
    ins = []
    for line in dis.splitlines():
        m = re.match(r"\s+([0-9a-f]+):\s+(.*)$", line)
        if m:
            ins.append((int(m.group(1), 16), m.group(2).strip()))
    funcs = sorted((int(a, 16), n) for a, n in re.findall(r"^([0-9a-f]+) <([^>+]+)>:$", dis, re.M))
    out = []
    for i in range(len(ins) - 4):
        t = [x[1] for x in ins[i:i + 5]]
        call = re.match(r"call\s+[0-9a-f]+ <(__crashtrail_\w*write_here3)>$", t[2])
        jmp = re.match(r"jmp\s+([0-9a-f]+) ", t[3])
        if t[0] == "lea    -0x80(%rsp),%rsp" and t[1].startswith("push") and call and jmp and \
                t[4].startswith("cmp ") and t[4].endswith(",%eax"):
            label3 = int(jmp.group(1), 16)
            fn = [n for a, n in funcs if a <= label3][-1:]
            out.append(([x[0] for x in ins[i:i + 5]], call.group(1), fn[0] if fn else None))
    return out, ins


def flush_fragment_signal(args):
    r = Repro(args, "refill_signal", "O2", tag="_fragment")
    entry = int(sh(["readelf", "-h", r.exe]).stdout.split("Entry point address:")[1].split()[0], 16)
    frags, ins = fragments(r.exe)
    bad, tested = [], []
    for addrs, tramp, fn in frags:
        if fn not in ("classify", "classify_leaf"):
            continue
        start = addrs[0]
        rep = os.path.join(r.dir, "count")
        sh([args.steptrace, "-o", rep, "-b", "%d" % (start - entry), "-c", "--", r.exe], cwd=r.dir,
           env=dict(os.environ, CRASHTRAIL_DIR=r.dir))
        if int(oracle.read_report(rep)["hits"]) < 2:
            continue  # this flush never (or once) crossed a chunk boundary
        je = [a for a, t in ins if re.match(r"je\s+%x " % start, t)]
        if len(je) != 1:
            bad.append("%s: %d jumps to the fragment at %#x" % (fn, len(je), start))
            continue
        line = int(sh(["addr2line", "-e", r.exe, "%x" % je[0]]).stdout.strip().split(":")[-1].split()[0])
        t_delta = r.symbol_delta(tramp)
        # Each instruction the fragment runs (its start on the second arrival: stepping starts
        # at the first; the jump after the trampoline returned, the record written), and the
        # trampoline's first (the fragment's jump still the unwinders' return address).
        points = [("start", start, 2), ("push", addrs[1], 1), ("call", addrs[2], 1),
                  ("jump", addrs[3], 1)]
        # and its last (the fragment's jump the return address again).
        t_ret = next(a for a, t in ins if a >= entry + t_delta and t == "ret    $0x88")
        points += [(tramp + " entry", entry + t_delta, 1), (tramp + " ret", t_ret, 1)]
        for what, a, arrival in points:
            try:
                r.trace("-b", "%d" % (start - entry), "-a", "%d:%d" % (a - entry, arrival))
            except IndexError:
                bad.append("%s's fragment, %s: no dump" % (fn, what))
                continue
            th = next(x for x in r.tl["threads"] if x["crashed"])
            stack = [f["function"] for f in th["stack"]]
            want = ([tramp] if what.startswith(tramp) else []) + [fn, "main"]
            steps = oracle.timeline_steps(r.tl)[0]
            lost = [w for w in r.tl["warnings"] if "not recoverable" in w or "uncertain" in w]
            tested.append(what)
            if stack[:len(want)] != want or not steps or steps[-1][1] != line or lost:
                bad.append("%s's fragment, signal at %s: stack %s, last step %s (the flush's line "
                           "%d)%s" % (fn, what, stack[:4], steps[-1][1] if steps else None, line,
                                      "; " + lost[0] if lost else ""))
    if not tested:
        return True, "no fragment of classify() or classify_leaf() ran twice: nothing tested"
    return bool(bad), "%d signals in flush fragments; %s" % (
        len(tested), "; ".join(bad) if bad else "each frame back in its function at the flush's "
        "line, main() above, the path recovered")


CHECKS = [decl_line, libc_call, lifetime_lines, crash_line_twice, line0_crash_step, prologue_signal,
          refill_signal, edge_store_signal, valgrind_dwarf5, lua_dispatch, line_order, entry_hoist,
          check_flush_signal, call_signal, line0_block_start, sunk_case_code, call_result_spill,
          return_flush_epilogue, call_args_after_flush, flush_fragment_signal, line0_after_return,
          line0_join]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--crashtrail-build", required=True)
    ap.add_argument("--work", default="/tmp/crashtrail-fidelity-repro")
    ap.add_argument("--steptrace")
    ap.add_argument("--sources", help="where Debian sources are fetched (default: WORK/src; the "
                    "fidelity tests' WORK/src can be shared)")
    args = ap.parse_args()
    args.sources = os.path.abspath(args.sources or os.path.join(args.work, "src"))
    args.crashtrail_build = os.path.abspath(args.crashtrail_build)
    os.makedirs(args.work, exist_ok=True)
    if not args.steptrace:
        args.steptrace = os.path.join(args.work, "steptrace")
        sh(["clang-14", "-O2", "-o", args.steptrace, os.path.join(os.path.dirname(HERE), "steptrace.c")])
    present = 0
    for check in CHECKS:
        bad, why = check(args)
        present += bad
        print("%-18s %s: %s" % (check.__name__, "BUG" if bad else "fixed", why))
    return 1 if present else 0


if __name__ == "__main__":
    sys.exit(main())
