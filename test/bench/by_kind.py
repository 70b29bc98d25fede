#!/usr/bin/env python3
"""by_kind.py - what the instructions crashtrail adds are, by kind (issue 7's "why").

Input: an uninstrumented binary and a crashtrail one built from the same sources, each with a
callgrind output of the same run made with --dump-instr=yes. Every executed instruction of the
crashtrail binary's own code is classified from its disassembly (objdump -d):

  record      a flush: the ring position loaded and stored through %fs, the chunk test and its
              branch, the two stores of the record, the position's add; its slow path (out of
              line: the fragment's call of the module's trampoline, the red zone stepped over
              and back; or, in the older inline layout, the call of the refill stub and the
              record written again);
              the test that skips an elidable flush when the accumulator holds no bit
              (`cmp $7,%r; ja`, `cmpl $0,module(%rip); jne`)
  check       a check point: `cmp limit,%acc` (an immediate 2^k-1 or __crashtrail_check_limits)
              and its branch, where the branch's other side starts a flush
  runtime     code of the runtime linked into the binary (__crashtrail_*, ct_*)
  the rest    everything else: the added count minus the three above, broken down by what
              changed between the two binaries' executed mnemonics (an `add %r,%r` is a shift
              of the accumulator, `or $imm` an edge's code, `mov $imm` a folded constant, moves
              to and from the stack are spills, `jmp` the blocks that edges needed)

Records are counted by their position stores, and by the calls of the slow paths' trampolines
(out of line, the runtime writes the whole record). The rest is a difference of two programs, so a
kind can come out negative (code the optimiser arranged differently).

Usage: by_kind.py BASE_BINARY BASE_CALLGRIND CT_BINARY CT_CALLGRIND
"""
import collections
import re
import subprocess
import sys

_INSN = re.compile(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*?)\s*$")
_FUNC = re.compile(r"^([0-9a-f]+) <(.*)>:$")
# valgrind maps a position-independent executable here when it cannot name its object
PIE_BASES = (0, 0x108000)


def parse_callgrind(path):
    """Self counts per instruction address, per object name: {object: {address: count}}."""
    names, per_obj = {}, collections.defaultdict(collections.Counter)
    obj, addr, skip_next = None, 0, False
    spec = re.compile(r"^(c?ob|c?fl|fi|fe|c?fn|cfi)=\((\d+)\)(?: (.*))?$")
    with open(path) as fh:
        for line in fh:
            line = line.rstrip("\n")
            if not line:
                continue
            m = spec.match(line)
            if m:
                kind, idx, name = m.groups()
                if kind in ("ob", "cob"):
                    if name is not None:
                        names[idx] = name
                    if kind == "ob":
                        obj = names.get(idx, "???")
                continue
            if line.startswith("calls="):
                skip_next = True  # the next line is the call's inclusive cost, not a self cost
                continue
            if line[0] not in "+-*0123456789":
                continue
            fields = line.split()
            a = fields[0]
            if a.startswith("0x"):
                addr = int(a, 16)
            elif a.startswith("+"):
                addr += int(a[1:])
            elif a.startswith("-"):
                addr -= int(a[1:])
            if skip_next:
                skip_next = False
                continue
            if len(fields) >= 3 and obj is not None:
                per_obj[obj][addr] += int(fields[2])
    return per_obj


def disassemble(binary):
    """[(address, mnemonic, operands, function)] in address order."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary], capture_output=True,
                         text=True, check=True).stdout
    insns, func = [], None
    for line in out.splitlines():
        m = _FUNC.match(line)
        if m:
            func = m.group(2)
            continue
        m = _INSN.match(line)
        if m:
            insns.append((int(m.group(1), 16), m.group(2), m.group(3), func))
    return insns


def counts_for(binary, cg_path, insns):
    """The binary's executed instructions: {address: count}. The object is found by name, or
    (named "???" when valgrind could not read it) by which load base lines its addresses up
    with the disassembly's instructions."""
    per_obj = parse_callgrind(cg_path)
    starts = {a for a, _, _, _ in insns}
    best, best_hits = {}, 0
    for name, counts in per_obj.items():
        if name != "???" and not binary.endswith(name.split("/")[-1]):
            continue
        for base in PIE_BASES:
            moved = {a - base: c for a, c in counts.items() if a - base in starts}
            hits = sum(moved.values())
            if hits > best_hits:
                best, best_hits = moved, hits
    if not best:
        raise SystemExit(f"by_kind: no instruction of {binary} in {cg_path}"
                         " (was callgrind run with --dump-instr=yes on this binary?)")
    return best


def ring_position_operand(insns):
    """The %fs: operand of the ring position: the one most often stored to from a register."""
    stores = collections.Counter()
    for _, mn, ops, _ in insns:
        m = re.match(r"^%\w+,(%fs:0x[0-9a-f]+)$", ops)
        if mn == "mov" and m:
            stores[m.group(1)] += 1
    return stores.most_common(1)[0][0] if stores else None


def is_runtime(func):
    return bool(func) and (func.startswith("__crashtrail") or func.startswith("ct_"))


def classify(insns, pos):
    """{index: kind} for the instructions of records and checks."""
    kinds = {}
    index_of = {a: i for i, (a, _, _, _) in enumerate(insns)}

    def starts_flush(i):
        """A flush begins within 4 instructions of i (what a check's branch leads to)."""
        return any(pos in insns[j][2] and insns[j][2].startswith(pos)
                   for j in range(i, min(i + 4, len(insns))))

    def branch_target(ops):
        m = re.match(r"^([0-9a-f]+) <", ops)
        return index_of.get(int(m.group(1), 16)) if m else None

    for i, (a, mn, ops, func) in enumerate(insns):
        if is_runtime(func) or pos is None:
            continue
        nxt = insns[i + 1] if i + 1 < len(insns) else (0, "", "", None)
        if pos in ops and mn == "mov":
            kinds[i] = "record"
            # the rest of the record, up to the position's store: the chunk test and its
            # branch, the two stores, the add
            j = i + 1
            while j < min(i + 9, len(insns)):
                mnj, opsj = insns[j][1], insns[j][2]
                if pos in opsj:
                    kinds[j] = "record"
                    break
                chunk_test = mnj == "test" and ("__crashtrail_module" in opsj or
                                                re.match(r"^\$0x[0-9a-f]*fff,", opsj))
                if chunk_test or (mnj.startswith("j") and kinds.get(j - 1) == "record" and
                                  insns[j - 1][1] == "test") \
                        or (mnj == "movq" and re.match(r"^\$0x[0-9a-f]+,\(%\w+\)$", opsj)) \
                        or (mnj in ("mov", "movq") and
                            re.match(r"^(%\w+|\$0x[0-9a-f]+),0x8\(%\w+\)$", opsj)) \
                        or (mnj == "add" and opsj.startswith("$0x10,")):
                    kinds[j] = "record"
                j += 1
            continue
        if mn == "call" and "<__crashtrail_" in ops:
            # a flush's slow path: the red zone stepped over, the call, then the record written
            # again (inline layout), the jump to the flush's end (out of line: the trampoline
            # returns to the fragment), the `movabs` carrying the offsets (fragments of
            # 2026-11-29 to 12-01, whose trampoline returned to the flush's end), or in older
            # fragments the no-ops, the red zone stepped back and the jump back
            if i > 0 and insns[i - 1][1] == "lea" and insns[i - 1][2].startswith("-0x80(%rsp)"):
                kinds[i - 1] = "record"
            kinds[i] = "record"
            for j in range(i + 1, min(i + 8, len(insns))):
                if insns[j][3] != func:
                    break
                kinds[j] = "record"
                if insns[j][1] in ("jmp", "movabs"):
                    break
            continue
        # check points: a compare against a limit whose branch leads to a flush
        if mn == "cmp" and nxt[1] in ("ja", "jae", "jbe", "jb"):
            limit_table = "__crashtrail_check_limits" in ops
            m = re.match(r"^\$0x([0-9a-f]+),%\w+$", ops)
            imm = int(m.group(1), 16) if m else None
            t = branch_target(nxt[2])
            leads_to_flush = (t is not None and starts_flush(t)) or starts_flush(i + 2)
            if imm is not None and imm == 7 and leads_to_flush:
                kinds[i] = kinds[i + 1] = "record"  # an elidable flush's "any bits?" test
            elif leads_to_flush and (limit_table or (imm is not None and imm >= 7 and
                                                     (imm & (imm + 1)) == 0)):
                kinds[i] = kinds[i + 1] = "check"
            continue
        if mn == "cmpl" and "__crashtrail_module" in ops and nxt[1].startswith("j"):
            kinds[i] = kinds[i + 1] = "record"  # the elidable flush's stamping test
    return kinds


def rest_key(mn, ops):
    m = re.match(r"^%(\w+),%(\w+)$", ops)
    if mn == "add" and m and m.group(1) == m.group(2):
        return "shift (add %r,%r)"
    if mn in ("shl", "sal"):
        return "shift (shl)"
    if mn == "or" and ops.startswith("$"):
        return "code (or $imm)"
    if mn == "mov" and ops.startswith("$"):
        return "constant (mov $imm)"
    if mn.startswith("mov") and "(%rsp)" in ops:
        return "stack (spill/reload)"
    if mn in ("push", "pop"):
        return "push/pop"
    if mn == "jmp" and "*" not in ops:
        return "jmp"
    if mn == "lea":
        return "lea"
    return "other"


def added_by_kind(base_bin, base_cg, ct_bin, ct_cg):
    base_insns, ct_insns = disassemble(base_bin), disassemble(ct_bin)
    base_counts = counts_for(base_bin, base_cg, base_insns)
    ct_counts = counts_for(ct_bin, ct_cg, ct_insns)
    pos = ring_position_operand(ct_insns)
    kinds = classify(ct_insns, pos)
    total_base = sum(base_counts.values())
    total_ct = sum(ct_counts.values())
    by = collections.Counter()
    records = 0
    rest_ct, rest_base = collections.Counter(), collections.Counter()
    for i, (a, mn, ops, func) in enumerate(ct_insns):
        c = ct_counts.get(a, 0)
        if not c:
            continue
        if is_runtime(func):
            by["runtime"] += c
        elif i in kinds:
            by[kinds[i]] += c
            if kinds[i] == "record" and mn == "mov" and ops.endswith(pos or "-"):
                records += c
            elif kinds[i] == "record" and mn == "call" and re.search(r"_write_here[23]?>", ops):
                records += c  # an out-of-line slow path: the runtime writes the record
        else:
            rest_ct[rest_key(mn, ops)] += c
    for a, mn, ops, func in base_insns:
        c = base_counts.get(a, 0)
        if c:
            rest_base[rest_key(mn, ops)] += c
    rest = {k: rest_ct[k] - rest_base[k] for k in set(rest_ct) | set(rest_base)}
    return dict(base=total_base, crashtrail=total_ct, added=total_ct - total_base,
                records=records, record=by["record"], check=by["check"],
                runtime=by["runtime"], rest=rest, position=pos)


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__.split("Usage: ")[1].strip())
    r = added_by_kind(*argv[1:])
    added = r["added"]
    print(f"instructions: base {r['base']:,}, crashtrail {r['crashtrail']:,}, "
          f"added {added:,} ({r['crashtrail'] / r['base']:.3f}x)")
    print(f"records written: {r['records']:,} "
          f"({r['record'] / max(1, r['records']):.1f} instructions each)")
    rows = [("record", r["record"]), ("check", r["check"]), ("runtime", r["runtime"])]
    rows += sorted(r["rest"].items(), key=lambda kv: -kv[1])
    for name, v in rows:
        print(f"  {name:24s} {v / 1e6:10.1f} M  {100 * v / max(1, added):6.1f}% of added")


if __name__ == "__main__":
    main(sys.argv)
