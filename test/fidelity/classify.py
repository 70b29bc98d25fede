"""Classify every line on which the oracle and the timeline differ (fidelity.py).

The oracle window (the last 200 oracle lines) is aligned with a suffix of the timeline so that
the fewest lines are left over on either side (align()). What is left over is classified:

  oracle side (the CPU ran an instruction of the line; the timeline lacks the line there):
    pass-line    the line has no code in the same program built without crashtrail: the
                 instruction is crashtrail's instrumentation carrying a neighbour's debug location
                 (repro/decl_line.c) -> a crashtrail bug, the timeline is right
    instr-line   every instruction the CPU ran there under that line is crashtrail's own (it works
                 on the accumulator, where DWARF says it lives, on the ring or the stamp through
                 %fs, or calls the runtime): same cause, on a line that has code elsewhere
    resume-line  the caller's line again after a callee returned: the instructions that take
                 the return value (a register copy at -O2) carry the call's line; the timeline
                 goes on with the next line
    merged       an instruction of the line sits inside another line's code (the lines before and
                 after it are the same): the optimizer merged or moved it there (CSE, hoisting);
                 the line's own block did not run
    order        the line is within 8 lines of there on the other side: the machine code runs a
                 block's lines in another order than its IR (instruction scheduling, -O2)
    unrecovered  the dump says the crashing frame's unfinished path could not be read (no DWARF
                 location for the accumulator at the crash point): the oracle's lines after the
                 last matched one are what the timeline, with a warning, does not have
    dwarf-only   the line has code without crashtrail but is nowhere in the pass's metadata: the
                 back end made code with that line from no IR instruction that has it
    in-meta      the metadata has the line: the timeline should have shown it -> analyse
  timeline side (the timeline shows a step the CPU did not run there):
    brace        the line is a lone `}`: an IR instruction there emitted no code at this point (an
                 llvm.lifetime.end at -O2, repro/lifetime_lines.c; a branch that falls through)
    declaration  the line declares a variable without initializer: an llvm.lifetime.start
    no-code      no instruction of the program carries the line: its IR instruction emitted no
                 machine code (a dead load, a branch folded away)
    jump-line    the line is the last line of a block ending in an unconditional jump: the jump
                 emits no instruction where it falls through, so the CPU never "runs" the line
    order        as above
    has-code     -> analyse

Lines are compared as (file's base name, line): the metadata prints base names.
"""
import functools
import json
import os
import re
import subprocess
import threading

WINDOW = 200
ACC_VAR = "__crashtrail_path"


_LOCK = threading.Lock()


def _cache(path, key, build):
    with _LOCK:  # runs of the same program share the cache file
        return _cache_locked(path, key, build)


def _cache_locked(path, key, build):
    try:
        with open(path) as fh:
            data = json.load(fh)
        if data.get("key") == key:
            return data
    except (OSError, ValueError):
        pass
    data = build()
    data["key"] = key
    with open(path + ".tmp", "w") as fh:
        json.dump(data, fh)
    os.replace(path + ".tmp", path)
    return data


def dwarf_lines(exe):
    """(base name, line) of every DWARF line-table row with a line, in one executable."""
    dwarf, names, cur = set(), {}, None
    dd = subprocess.Popen(["llvm-dwarfdump-14", "--debug-line", exe], stdout=subprocess.PIPE,
                          text=True)
    for line in dd.stdout:
        if line.startswith("debug_line["):
            names = {}
        elif line.startswith("file_names["):
            cur = int(line.split("[")[1].split("]")[0])
        elif cur is not None and line.strip().startswith("name:"):
            names[cur] = os.path.basename(line.split('"')[1])
            cur = None
        elif line.startswith("0x"):
            f = line.split()
            if f[1] != "0":
                dwarf.add((names.get(int(f[3]), "?"), int(f[1])))
    dd.wait()
    return dwarf


def line_sets(env, exe, plain):
    """{"meta", "jump", "dwarf", "plain"}: sets of (base, line) for one executable (cached)."""
    key = ";".join("%d-%d" % (os.stat(f).st_mtime_ns, os.stat(f).st_size) for f in (exe, plain))

    def build():
        meta, jump = set(), set()
        out = subprocess.run([env.crashtrail, "meta", exe], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            if line.startswith("  block ") and "; " in line:
                head, locs = line.split("; ", 1)
                found = [(os.path.basename(f), int(ln))
                         for f, ln in re.findall(r"([^\s:;@]+):(\d+):\d+", locs)]
                meta.update(found)
                if found and head.split()[2] == "jump":
                    jump.add(found[-1])
        return {"meta": sorted(meta), "jump": sorted(jump), "dwarf": sorted(dwarf_lines(exe)),
                "plain": sorted(dwarf_lines(plain))}

    data = _cache(exe + ".lines.json", key, build)
    return {k: set(map(tuple, data[k])) for k in ("meta", "jump", "dwarf", "plain")}


def align(a, b):
    """Align the oracle window a with a suffix of the timeline b: both end at the crash, b may
    start anywhere (the timeline reaches further back), every element of a is either matched or
    left over, and the number left over on both sides is the least possible (an edit distance
    with insertions and deletions only). Returns (unmatched indices of a, unmatched of b)."""
    n, m = len(a), len(b)
    # d[i][j]: cost of aligning a[i:] with b[j:]; a[n:] against b[j:] costs m - j.
    d = [[0] * (m + 1) for _ in range(n + 1)]
    for j in range(m + 1):
        d[n][j] = m - j
    for i in range(n - 1, -1, -1):
        ai, row, nxt = a[i], d[i], d[i + 1]
        row[m] = n - i
        for j in range(m - 1, -1, -1):
            best = min(nxt[j], row[j + 1]) + 1
            if ai == b[j] and nxt[j + 1] < best:
                best = nxt[j + 1]
            row[j] = best
    # The cheapest start; of equally cheap ones the earliest, which matches the most lines.
    start = min(range(m + 1), key=lambda j: (d[0][j], j)) if n else m
    i, j, only_a, only_b = 0, start, [], []
    while i < n or j < m:
        if i < n and j < m and a[i] == b[j] and d[i][j] == d[i + 1][j + 1]:
            i, j = i + 1, j + 1
        elif i < n and d[i][j] == d[i + 1][j] + 1:
            only_a.append(i)
            i += 1
        else:
            only_b.append(j)
            j += 1
    return only_a, only_b


def acc_locations(exe):
    """[(lo, hi, where)]: where the accumulator (__crashtrail_path) lives, from DWARF: a register
    name ("r15") or a frame-base offset ("fb-8": the frame base is %rbp at -O0)."""
    out = subprocess.run(["llvm-dwarfdump-14", "-p", "--name=" + ACC_VAR, exe], capture_output=True,
                         text=True).stdout
    locs, fn, in_sub = [], (0, 0), False
    for line in out.splitlines():
        s = line.strip()
        if "DW_TAG_" in s:
            in_sub = "DW_TAG_subprogram" in s
        elif in_sub and s.startswith("DW_AT_low_pc"):
            fn = (int(s.split("(")[1].rstrip(")"), 16), fn[1])
        elif in_sub and s.startswith("DW_AT_high_pc"):
            fn = (fn[0], int(s.split("(")[1].rstrip(")"), 16))
        m = re.search(r"DW_AT_location\s+\(DW_OP_fbreg (-?\d+)\)", s)
        if m:
            locs.append((fn[0], fn[1], "fb" + m.group(1)))
        m = re.search(r"\[0x([0-9a-f]+), 0x([0-9a-f]+)\): DW_OP_reg\d+ (\w+)", s)
        if m:
            locs.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3).lower()))
    return sorted(locs)


REG_ALIASES = {"rax": "eax ax al", "rbx": "ebx bx bl", "rcx": "ecx cx cl", "rdx": "edx dx dl",
               "rsi": "esi si sil", "rdi": "edi di dil", "rbp": "ebp bp bpl", "rsp": "esp sp spl"}
for _n in range(8, 16):
    REG_ALIASES["r%d" % _n] = "r%dd r%dw r%db" % (_n, _n, _n)


def instructions(exe, vas):
    """{address: "mnemonic operands"} from objdump, for the given link-time addresses."""
    out = {}
    for va in sorted(set(vas)):
        if va in out:
            continue
        d = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "--start-address=%d" % va,
                            "--stop-address=%d" % (va + 64), exe], capture_output=True,
                           text=True).stdout
        for line in d.splitlines():
            m = re.match(r"\s+([0-9a-f]+):\s+(.*)", line)
            if m:
                out.setdefault(int(m.group(1), 16), m.group(2).split("#")[0].strip())
    return out


def is_instrumentation(text, acc):
    """Does one instruction only serve crashtrail: the accumulator, the ring, the stamp?"""
    if "%fs:" in text or "__crashtrail" in text:
        return True
    if acc is None:
        return False
    if acc.startswith("fb"):  # -O0: the accumulator is a stack slot below %rbp
        off = int(acc[2:])
        return off < 0 and "-0x%x(%%rbp)" % -off in text
    names = [acc] + REG_ALIASES.get(acc, "").split()
    ops = text.split(None, 1)[1] if " " in text else ""
    return any(re.search(r"%%%s\b" % n, ops.split(",")[-1]) for n in names) or \
        (text.startswith("cmp") and any(re.search(r"%%%s\b" % n, ops) for n in names))


DECLARATION = re.compile(r"^(?!(return|goto|break|continue|case|else|do|sizeof)\b)"
                         r"(static\s+|const\s+|unsigned\s+|struct\s+)*[A-Za-z_]\w*[\s*]+"
                         r"[A-Za-z_]\w*(\[[^]]*\])?(\s*,\s*\**[A-Za-z_]\w*)*;(\s*/\*.*\*/)?$")


@functools.lru_cache(maxsize=None)
def _source(path):
    try:
        with open(path, errors="replace") as fh:
            return fh.read().split("\n")
    except OSError:
        return []


def source_line(path, line):
    lines = _source(path)
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def _near(keys, pos, key, reach):
    return key in keys[max(0, pos - reach):pos + reach + 1]


def classify(env, exe, plain, oracle_lines, steps, recovered=True):
    """The left-over lines of one run, each {"side", "class", "line", "note"}."""
    sets = line_sets(env, exe, plain)
    o = oracle_lines[-WINDOW:]
    t = steps[-(len(o) * 3 + 50):]
    ka = [(os.path.basename(x[0]), x[1]) for x in o]
    kb = [(os.path.basename(x[0]), x[1]) for x in t]
    only_o, only_t = align(ka, kb)
    so, st = set(only_o), set(only_t)
    # Where each side's position falls on the other side: the matched pairs, in order.
    mi = [i for i in range(len(ka)) if i not in so]
    mj = [j for j in range(len(kb)) if j not in st][-len(mi):] if mi else []
    to_t = {i: j for i, j in zip(mi, mj)}
    to_o = {j: i for i, j in zip(mi, mj)}
    # The last matched step before the crash step: what follows it on the oracle side is what an
    # unreadable unfinished path lost.
    tail_anchor = ([j for j in mj if j < len(kb) - 1] or [-1])[-1]

    def pos_in_t(i):
        back = [to_t[x] for x in mi if x < i]
        return back[-1] if back else 0

    def pos_in_o(j):
        back = [to_o[x] for x in mj if x < j]
        return back[-1] if back else 0

    def resumes(i):
        """o[i] repeats its function's line from before a call (the caller's line again)."""
        fn, seen_other = o[i][2], False
        for k in range(i - 1, max(-1, i - 400), -1):
            if o[k][2] != fn:
                seen_other = True
            elif o[k][:2] == o[i][:2]:
                return seen_other
            else:
                return False
        return False

    locs = acc_locations(exe)
    insns = instructions(exe, [va for i in only_o for va in o[i][4]])

    def acc_at(va):
        for lo, hi, where in locs:
            if lo <= va < hi:
                return where
        return None

    def instrumentation(i):
        return all(is_instrumentation(insns.get(va, ""), acc_at(va)) for va in o[i][4])

    out = []
    for i in only_o:
        if ka[i] not in sets["plain"]:
            cls = "pass-line"
        elif instrumentation(i):
            cls = "instr-line"
        elif not recovered and pos_in_t(i) >= tail_anchor:
            cls = "unrecovered"
        elif resumes(i):
            cls = "resume-line"
        elif 0 < i < len(ka) - 1 and ka[i - 1] == ka[i + 1]:
            cls = "merged"
        elif _near(kb, pos_in_t(i), ka[i], 8):
            cls = "order"
        elif ka[i] not in sets["meta"]:
            cls = "dwarf-only"
        elif not recovered and pos_in_t(i) >= tail_anchor:
            cls = "unrecovered"
        else:
            cls = "in-meta"
        out.append({"side": "oracle", "class": cls, "line": "%s:%d %s" % (ka[i] + (o[i][2],)),
                    "note": "%d lines before the crash: %s" % (len(o) - 1 - i, "; ".join(
                        "%x %s" % (va, insns.get(va, "?")) for va in o[i][4][:4]))})
    for j in only_t:
        text = source_line(t[j][0], t[j][1])
        if text == "}":
            cls = "brace"
        elif DECLARATION.match(text):
            cls = "declaration"
        elif kb[j] not in sets["dwarf"]:
            cls = "no-code"
        elif kb[j] in sets["jump"]:
            cls = "jump-line"
        elif _near(ka, pos_in_o(j), kb[j], 8):
            cls = "order"
        else:
            cls = "has-code"
        out.append({"side": "timeline", "class": cls, "line": "%s:%d %s" % (kb[j] + (t[j][2],)),
                    "note": "%d steps before the crash%s" % (
                        len(t) - 1 - j, ", " + t[j][3] if len(t[j]) > 3 and t[j][3] else "")})
    return out


def summary(res):
    counts = {}
    for m in res.get("mismatches", []):
        counts[m["class"]] = counts.get(m["class"], 0) + 1
    return counts
