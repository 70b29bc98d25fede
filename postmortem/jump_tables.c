/*
 * jump_tables.c - the targets of a function's indirect jumps, from their jump tables.
 *
 * clang makes two shapes: a switch's
 *   lea T(%rip),%rT; ...; movslq (%rT,%rI,4),%rX; add %rT,%rX; jmp *%rX   (4-byte, relative)
 * and a computed goto's (or a non-PIC switch's)
 *   lea T(%rip),%rB; jmp *(%rB,%rI,8)   or   jmp *T(,%rI,8)                (8-byte, absolute).
 * The instructions from the load to the jump must be one straight line (no branch lands among
 * them, nor a table's entry); the `lea` of the table's address is either in that line or, when
 * codegen hoisted it out of a loop (the base then lives in a register across the loop), the
 * only definition of the register on every way back from the load, found by walking the edges
 * known so far. Tables are resolved in rounds (a way back may pass another table's targets) and
 * every hoisted base is checked again once all edges are known. A table is read from the file
 * while its entries name instructions of the function: every real entry does, so reading on
 * past its end only adds ways, never loses one. Any other indirect jump (a call through a
 * pointer made a tail call) leaves the function's edges unknown: -1, and it is refused.
 */
#include <stdlib.h>

#include "capstone_lib.h"
#include "code_flow_internal.h"

enum {
  TABLE_WINDOW = 8,      /* instructions before an indirect jump searched for its pattern */
  TABLE_MAX = 1 << 14,   /* entries read from one table, at most */
  DEF_VISITS = 1 << 14,  /* instructions visited looking for a hoisted base's definition */
  CALLER_SAVED = (1u << 0) | (1u << 1) | (1u << 2) | (1u << 4) | (1u << 5) | (0xfu << 8),
};

int ct_flow_add_edge(struct flow_edges *e, size_t from, size_t to) {
  if (e->n == e->cap) {
    size_t ncap = e->cap ? 2 * e->cap : 256;
    size_t *a = realloc(e->from, ncap * sizeof *a);
    if (!a) return -1;
    e->from = a;
    if (!(a = realloc(e->to, ncap * sizeof *a))) return -1;
    e->to = a;
    e->cap = ncap;
  }
  e->from[e->n] = from;
  e->to[e->n++] = to;
  return 0;
}

/* Instruction i decoded again, with its details, into x. */
static int redecode(csh cs, const struct ct_code_view *code, const struct flow_fn *f, size_t i,
                    cs_insn *x) {
  uint64_t addr = f->in[i].addr;
  size_t len = (size_t)((i + 1 < f->n ? f->in[i + 1].addr : code->hi) - addr);
  const uint8_t *p = code->bytes + (addr - code->lo);
  return ct_cs.disasm_iter(cs, &p, &len, &addr, x) ? 0 : -1;
}

/* The nearest instruction before j, at most TABLE_WINDOW back and not past a direct branch's
 * target (the pattern is one straight line), that writes DWARF register r; decoded into x.
 * Returns its index, or -1. */
static int64_t last_writer(csh cs, const struct ct_code_view *code, const struct flow_fn *f,
                           const uint8_t *targeted, size_t j, int r, cs_insn *x) {
  for (size_t k = j; k-- > 0 && j - k <= TABLE_WINDOW;) {
    if (f->in[k].writes >> r & 1) return redecode(cs, code, f, k, x) ? -1 : (int64_t)k;
    if (targeted[k]) return -1;
  }
  return -1;
}

static int is_reg(const cs_x86_op *op, int r) {
  return op->type == X86_OP_REG && ct_flow_dwarf_reg(op->reg) == r;
}

/* The table address of x if it is `lea T(%rip),%r`, else 0. */
static uint64_t lea_rip(const cs_insn *x, int r) {
  const cs_x86 *d = &x->detail->x86;
  if (x->id != X86_INS_LEA || d->op_count != 2 || !is_reg(&d->operands[0], r) ||
      d->operands[1].mem.base != X86_REG_RIP || d->operands[1].mem.index != X86_REG_INVALID)
    return 0;
  return x->address + x->size + (uint64_t)d->operands[1].mem.disp;
}

/* The value of register r at instruction `from`, when every way back to it over f's current
 * predecessor lists meets, as r's last write, a `lea T(%rip),%r` of one T (a base codegen
 * hoisted out of a loop). Returns T, or 0: another write, a call while r is caller-saved, the
 * entry, or code nothing known leads to (not padding: maybe a table's target not known yet). */
static uint64_t hoisted_base(csh cs, const struct ct_code_view *code, const struct flow_fn *f,
                             size_t from, int r, cs_insn *x) {
  size_t *queue = malloc(DEF_VISITS * sizeof *queue), head = 0, tail = 0;
  uint8_t *seen = calloc(f->n, 1);
  uint64_t t = 0;
  int ok = queue && seen;
  if (ok) queue[tail++] = from;
  while (ok && head < tail) {
    size_t i = queue[head++];
    if (f->pred_start[i] == f->pred_start[i + 1] && (i == from || !f->in[i].pad)) ok = 0;
    for (size_t k = f->pred_start[i]; ok && k < f->pred_start[i + 1]; k++) {
      size_t p = f->pred[k];
      if (seen[p]) continue;
      seen[p] = 1;
      if (f->in[p].writes >> r & 1) {
        uint64_t tp = redecode(cs, code, f, p, x) ? 0 : lea_rip(x, r);
        if (!tp || (t && tp != t)) ok = 0;
        t = tp;
      } else if ((f->in[p].call && (CALLER_SAVED >> r & 1)) || p == 0 || tail == DEF_VISITS) {
        ok = 0;
      } else {
        queue[tail++] = p;
      }
    }
  }
  free(queue);
  free(seen);
  return ok ? t : 0;
}

/* Reads a table at link-time address t: 4-byte entries relative to t (rel) or 8-byte absolute
 * addresses, while each names an instruction of the function. Adds an edge from j to each.
 * Returns how many entries it read. */
static size_t read_table(const struct ct_code_view *code, const struct flow_fn *f, size_t j,
                         uint64_t t, int rel, struct flow_edges *e) {
  size_t size = rel ? 4 : 8, k;
  for (k = 0; k < TABLE_MAX; k++) {
    const uint8_t *b = code->data(code->data_ctx, t + k * size, size);
    if (!b) break;
    uint64_t v = 0;
    for (size_t i = 0; i < size; i++) v |= (uint64_t)b[i] << (8 * i);
    uint64_t to = rel ? t + (uint64_t)(int64_t)(int32_t)v : v;
    int64_t i = to >= code->lo && to < code->hi ? ct_flow_index_of(f, to) : -1;
    if (i < 0 || ct_flow_add_edge(e, j, (size_t)i)) break;
  }
  return k;
}

/* One indirect jump: its pattern, and where its table's base is defined. */
struct table_jump {
  size_t j;     /* the jump */
  size_t start; /* the pattern's first instruction (the `lea` when it is in line) */
  size_t use;   /* the instruction that reads the base (its value there is the table) */
  int base;     /* the base register, or -1 for `jmp *T(,%rI,8)` */
  int rel;      /* 4-byte relative entries */
  uint64_t t;   /* the table, once known */
  int hoisted;  /* the base's `lea` was found on the ways back, not in line */
};

/* The pattern of the indirect jump at j (see the file's comment). Returns 0, or -1. */
static int match_pattern(csh cs, const struct ct_code_view *code, const struct flow_fn *f,
                         const uint8_t *targeted, size_t j, cs_insn *x, struct table_jump *tj) {
  /* A jump that other code reaches directly may not have come through the pattern. */
  if (targeted[j] || redecode(cs, code, f, j, x)) return -1;
  const cs_x86_op jop = x->detail->x86.operands[0];
  const cs_x86 *d = &x->detail->x86; /* x is decoded again in place below */
  *tj = (struct table_jump){.j = j, .start = j, .use = j, .base = -1};
  if (jop.type == X86_OP_MEM && jop.mem.scale == 8 && jop.mem.segment == X86_REG_INVALID &&
      jop.mem.index != X86_REG_INVALID) {
    if (jop.mem.base == X86_REG_INVALID) {
      tj->t = (uint64_t)jop.mem.disp;
      return 0;
    }
    tj->base = ct_flow_dwarf_reg(jop.mem.base);
    return tj->base >= 0 && jop.mem.disp == 0 ? 0 : -1;
  }
  if (jop.type != X86_OP_REG || ct_flow_dwarf_reg(jop.reg) < 0) return -1;
  int r = ct_flow_dwarf_reg(jop.reg);
  int64_t add = last_writer(cs, code, f, targeted, j, r, x);
  if (add < 0 || x->id != X86_INS_ADD || d->op_count != 2 || !is_reg(&d->operands[0], r) ||
      d->operands[1].type != X86_OP_REG)
    return -1;
  int b = ct_flow_dwarf_reg(d->operands[1].reg);
  int64_t mov = b >= 0 ? last_writer(cs, code, f, targeted, (size_t)add, r, x) : -1;
  if (mov < 0 || x->id != X86_INS_MOVSXD || !is_reg(&d->operands[0], r) ||
      d->operands[1].type != X86_OP_MEM || ct_flow_dwarf_reg(d->operands[1].mem.base) != b ||
      d->operands[1].mem.scale != 4 || d->operands[1].mem.disp != 0)
    return -1;
  /* The base, unchanged from the load to the add. */
  for (size_t k = (size_t)mov; k < (size_t)add; k++)
    if (f->in[k].writes >> b & 1) return -1;
  *tj = (struct table_jump){.j = j, .start = (size_t)mov, .use = (size_t)mov, .base = b, .rel = 1};
  return 0;
}

/* The table's address when the base's `lea` is in line before the pattern. */
static void base_in_line(csh cs, const struct ct_code_view *code, const struct flow_fn *f,
                         const uint8_t *targeted, struct table_jump *tj, cs_insn *x) {
  if (tj->base < 0 || tj->t) return;
  int64_t lea = last_writer(cs, code, f, targeted, tj->use, tj->base, x);
  if (lea >= 0 && (tj->t = lea_rip(x, tj->base))) tj->start = (size_t)lea;
}

int ct_flow_jump_tables(csh cs, const struct ct_code_view *code, struct flow_fn *f,
                        const uint8_t *targeted, struct flow_edges *e) {
  struct table_jump *tj = NULL;
  size_t n = 0, direct = e->n;
  int rc = -1;
  cs_insn *x = ct_cs.malloc(cs);
  for (size_t i = 0; i < f->n; i++) n += f->in[i].indirect;
  if (!x || (n && !(tj = calloc(n, sizeof *tj)))) goto out;
  n = 0;
  for (size_t i = 0; i < f->n; i++) {
    if (!f->in[i].indirect) continue;
    if (!code->data || match_pattern(cs, code, f, targeted, i, x, &tj[n])) goto out;
    base_in_line(cs, code, f, targeted, &tj[n], x);
    if (tj[n].t && read_table(code, f, i, tj[n].t, tj[n].rel, e) == 0) goto out;
    n++;
  }
  /* Hoisted bases, in rounds over the edges known so far. */
  for (int progress = 1; progress;) {
    progress = 0;
    if (ct_flow_build_preds(f, e)) goto out;
    for (size_t k = 0; k < n; k++) {
      if (tj[k].t) continue;
      if (!(tj[k].t = hoisted_base(cs, code, f, tj[k].use, tj[k].base, x))) continue;
      tj[k].hoisted = progress = 1;
      if (read_table(code, f, tj[k].j, tj[k].t, tj[k].rel, e) == 0) goto out;
    }
  }
  if (ct_flow_build_preds(f, e)) goto out;
  for (size_t k = 0; k < n; k++) {
    if (!tj[k].t) goto out;
    /* Every edge is known now: the ways back must still meet the same `lea` only. */
    if (tj[k].hoisted && hoisted_base(cs, code, f, tj[k].use, tj[k].base, x) != tj[k].t)
      goto out;
  }
  /* No table may land inside a pattern (after its first instruction, up to its jump), which
   * was read as one straight line. */
  for (size_t m = direct; m < e->n; m++)
    for (size_t k = 0; k < n; k++)
      if (e->to[m] > tj[k].start && e->to[m] <= tj[k].j) goto out;
  rc = 0;
out:
  free(tj);
  if (x) ct_cs.free(x, 1);
  return rc;
}
