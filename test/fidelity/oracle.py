"""The fidelity oracle and the comparison (issue 8).

oracle_lines() turns a steptrace report (every instruction the crashed thread executed, up to the
faulting or interrupted instruction; see steptrace.c) into source lines: each address is mapped to
its ELF file through the memory map steptrace read from /proc/PID/maps at the crash (load bias of
a PIE, shared libraries), to a link-time address through the file's program headers, and to
file:line by llvm-symbolizer (the innermost frame: the line table's row). Only lines of the
instrumented program's own code are kept: addresses in the given modules, with a line, not in
crashtrail's runtime (linked into the executable but never instrumented), and not a function's
frame set-up before its prologue_end row (it carries the opening brace's line; the timeline, like
a debugger's breakpoint, starts a function at its first statement); consecutive repeats are
collapsed, as the timeline does.

compare() reports, against the crashed thread's steps of `crashtrail show --format=json`:
  last_ok    the timeline's last step is the oracle's last line (the faulting line, or the line of
             the instruction a signal from outside interrupted);
  suffix     the length of the exact common suffix;
  lcs        LCS(last 200 oracle lines, timeline) / 200 (over fewer lines if the oracle has fewer);
  first_diff the first difference walking back from the crash, both sides around it.
"""
import bisect
import functools
import json
import os
import struct
import subprocess

SYMBOLIZER = "llvm-symbolizer-14"
WINDOW = 200


def read_report(path):
    """steptrace's text report as a dict; 'maps' is a list of (start, end, offset, path)."""
    rep, maps, in_maps = {}, [], False
    with open(path) as fh:
        for line in fh:
            line = line.rstrip("\n")
            if in_maps:
                if line == "end-maps":
                    in_maps = False
                    continue
                f = line.split(None, 5)
                if len(f) == 6:
                    lo, hi = f[0].split("-")
                    maps.append((int(lo, 16), int(hi, 16), int(f[2], 16), f[5]))
                continue
            if line == "maps":
                in_maps = True
                continue
            key, _, val = line.partition(" ")
            rep[key] = val
    rep["maps"] = maps
    return rep


def read_pcs(path):
    data = open(path, "rb").read()
    return struct.unpack("<%dQ" % (len(data) // 8), data)


def load_segments(path):
    """PT_LOAD segments of an ELF file: list of (p_offset, p_vaddr, p_filesz)."""
    with open(path, "rb") as fh:
        hdr = fh.read(64)
        if hdr[:4] != b"\x7fELF" or hdr[4] != 2:
            return []
        phoff, = struct.unpack_from("<Q", hdr, 32)
        phentsize, phnum = struct.unpack_from("<HH", hdr, 54)
        fh.seek(phoff)
        ph = fh.read(phentsize * phnum)
    segs = []
    for i in range(phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", ph, i * phentsize)
        if p_type == 1:
            segs.append((p_offset, p_vaddr, p_filesz))
    return segs


class AddressMap:
    """Runtime address -> (module path, link-time address), from /proc/PID/maps + phdrs."""

    def __init__(self, maps, modules):
        self.ranges = []  # (start, end, path, delta): link address = runtime address - delta
        real = {os.path.realpath(m): m for m in modules}
        segs = {}
        for start, end, off, path in maps:
            if os.path.realpath(path) not in real:
                continue
            mod = real[os.path.realpath(path)]
            if mod not in segs:
                segs[mod] = load_segments(mod)
            for p_offset, p_vaddr, p_filesz in segs[mod]:
                if p_offset - (p_offset % 4096) == off:  # the segment this mapping came from
                    delta = start - (p_vaddr - (p_vaddr % 4096))
                    self.ranges.append((start, end, mod, delta))
                    break
        self.ranges.sort()

    def lookup(self, pc):
        for start, end, mod, delta in self.ranges:
            if start <= pc < end:
                return mod, pc - delta
        return None, None


def symbolize(module, addrs):
    """{link address: (file, line, function, declaration line)}: the innermost frame."""
    addrs = sorted(set(addrs))
    if not addrs:
        return {}
    p = subprocess.run([SYMBOLIZER, "--obj=" + module, "--output-style=JSON"],
                       input="".join("0x%x\n" % a for a in addrs), capture_output=True, text=True,
                       check=True)
    out = {}
    for line in p.stdout.splitlines():
        if line.startswith("{"):
            j = json.loads(line)
            top = (j.get("Symbol") or [{}])[0]
            f = top.get("FileName") or ""
            out[int(j["Address"], 16)] = (os.path.normpath(f) if f else "", top.get("Line", 0),
                                          top.get("FunctionName", ""), top.get("StartLine", 0))
    return out


@functools.lru_cache(maxsize=None)
def _prologues(module, stamp):
    return prologues_uncached(module)


def prologues(module):
    st = os.stat(module)
    return _prologues(module, (st.st_mtime_ns, st.st_size))


def prologues_uncached(module):
    """[(function start, prologue end)]: the frame set-up before the first row flagged
    prologue_end (where a debugger puts a breakpoint on the function), which DWARF gives to the
    line of the function's opening brace. Only functions whose prologue_end row comes before the
    next function."""
    nm = subprocess.run(["llvm-nm-14", "--defined-only", module], capture_output=True, text=True,
                        check=True).stdout
    starts = sorted({int(f[0], 16) for f in (l.split() for l in nm.splitlines())
                     if len(f) >= 3 and f[1] in "tTwW"})
    dd = subprocess.run(["llvm-dwarfdump-14", "--debug-line", module], capture_output=True,
                        text=True, check=True).stdout
    ends = sorted(int(l.split()[0], 16) for l in dd.splitlines()
                  if l.startswith("0x") and "prologue_end" in l)
    out = []
    for i, s in enumerate(starts):
        j = bisect.bisect_left(ends, s)
        nxt = starts[i + 1] if i + 1 < len(starts) else 1 << 64
        if j < len(ends) and ends[j] < nxt:
            out.append((s, ends[j]))
    return out


def in_prologue(pro, va):
    i = bisect.bisect_right(pro, (va, 1 << 64)) - 1
    return i >= 0 and pro[i][0] <= va < pro[i][1]


def runtime_dir(build):
    """The runtime sources of the crashtrail a build directory was made from (its lines are not
    the program's: the runtime is linked in but never instrumented)."""
    try:
        for line in open(os.path.join(build, "CMakeCache.txt")):
            if line.startswith("CMAKE_HOME_DIRECTORY:INTERNAL="):
                return os.path.join(line.split("=", 1)[1].strip(), "runtime")
    except OSError:
        pass
    return os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "runtime")


def collapse(seq):
    out = []
    for x in seq:
        if not out or out[-1] != x:
            out.append(x)
    return out


def oracle_lines(report, pcs, modules, exclude_dirs):
    """The crashed thread's executed program lines, oldest first, repeats collapsed.

    Returns (lines, info): lines a list of (file, line, function, pc, [link-time addresses of the
    line's instructions in this run of it]); info counts what was left out and says where the last
    instruction (faulting or interrupted) lies."""
    amap = AddressMap(report["maps"], modules)
    seq = list(pcs)
    if report.get("synchronous") == "0":
        seq.append(int(report["rip"], 16))  # the interrupted instruction: the line it belongs to
    mapped = [amap.lookup(pc) for pc in seq]
    by_mod = {}
    for mod, va in mapped:
        if mod:
            by_mod.setdefault(mod, set()).add(va)
    syms = {mod: symbolize(mod, vas) for mod, vas in by_mod.items()}
    pros = {mod: prologues(mod) for mod in by_mod}
    excl = tuple(os.path.normpath(d) + os.sep for d in exclude_dirs)
    info = {"instructions": len(seq), "outside": 0, "no_line": 0, "runtime": 0, "prologue": 0}

    def classify(mod, va):
        if not mod:
            return "outside", None
        f, ln, fn, decl = syms[mod].get(va, ("", 0, "", 0))
        if not f or not ln:
            return "no_line", None
        if f.startswith(excl):
            return "runtime", None
        # Frame set-up: not code of a source line (the timeline starts a function at its first
        # statement, as a debugger's breakpoint does).
        if in_prologue(pros[mod], va):
            return "prologue", None
        return "program", (f, ln, fn)

    lines = []
    for n, (pc, (mod, va)) in enumerate(zip(seq, mapped)):
        kind, row = classify(mod, va)
        if kind == "prologue" and n == len(seq) - 1:
            # The faulting or interrupted instruction itself: its line, even in a prologue.
            kind, row = "program", syms[mod][va][:3]
        if kind != "program":
            info[kind] += 1
            continue
        if lines and lines[-1][:2] == row[:2]:
            lines[-1][4].append(va)
            continue
        lines.append(row + (pc, [va]))
    info["last_pc"] = "0x%x" % seq[-1] if seq else None
    info["last_where"] = classify(*mapped[-1])[0] if seq else None
    return lines, info


def timeline_steps(dump_json):
    """The crashed thread's steps as (file, line, function, flags) and the thread."""
    flags = ("entry", "pending", "uncertain", "gap", "crash")
    for t in dump_json["threads"]:
        if t.get("crashed"):
            return [(os.path.normpath(s["file"]), s["line"], s.get("function", ""),
                     ",".join(f for f in flags if s.get(f))) for s in t["steps"]], t
    return [], None


def lcs_len(a, b):
    """Length of the longest common subsequence (a is short: <= 200)."""
    if not a or not b:
        return 0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0] * (len(b) + 1)
        for j, y in enumerate(b, 1):
            cur[j] = prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1])
        prev = cur
    return prev[-1]


def fmt(x):
    return "%s:%d %s" % (os.path.basename(x[0]), x[1], x[2]) if x else "-"


def compare(oracle, timeline, window=WINDOW, context=4):
    """The figures of issue 8 for one run."""
    o = [(f, l) for f, l, *_ in oracle]
    t = [(f, l) for f, l, *_ in timeline]
    res = {"oracle_lines": len(o), "timeline_steps": len(t)}
    res["last_ok"] = bool(o and t and o[-1] == t[-1])
    k = 0
    while k < len(o) and k < len(t) and o[-1 - k] == t[-1 - k]:
        k += 1
    res["suffix"] = k
    tail = o[-window:]
    # The timeline is compared over the part that can match: the window's length plus slack.
    ttail = t[-(len(tail) * 3 + 50):]
    res["lcs_n"] = len(tail)
    res["lcs"] = lcs_len(tail, ttail) / len(tail) if tail else 0.0
    if k < len(o):  # else the whole oracle window is a suffix of the timeline
        i, j = len(o) - 1 - k, len(t) - 1 - k
        rows = []
        for d in range(-context, context + 1):
            a = oracle[i + d] if 0 <= i + d < len(oracle) else None
            b = timeline[j + d] if 0 <= j + d < len(timeline) else None
            mark = ">>" if d == 0 else "  "
            rows.append("%s %-44s | %s" % (mark, fmt(a)[:44], fmt(b)))
        res["first_diff"] = {"steps_before_crash": k, "oracle": fmt(oracle[i]) if i >= 0 else None,
                             "timeline": fmt(timeline[j]) if j >= 0 else None,
                             "oracle_pc": "0x%x" % oracle[i][3] if i >= 0 else None,
                             "side_by_side": rows}
    return res
