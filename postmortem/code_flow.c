/*
 * code_flow.c - a variable's value at a pc its location list does not cover, through the
 * control flow (see code_flow.h).
 *
 * The function is decoded linearly (clang puts no data in .text: jump tables are in .rodata
 * and .data.rel.ro) into instructions, each with its fall-through and direct-branch
 * successors, and each indirect jump with the entries of its jump table, found from the `lea`
 * of the table's address just before it and read from the file while they name instructions of
 * the function (every real entry does: reading on past the table's end adds ways, never loses
 * one). A breadth-first walk backwards from the pc then stops at covered instructions (the
 * frontier) and goes on through uncovered ones. Soundness rests on knowing every predecessor:
 * a function with an indirect jump whose table is not found (a call through a pointer made a
 * tail call) is refused, a way that reaches the entry or runs over CT_FLOW_MAX uncovered
 * instructions fails, and so does one through a call (it may clobber the register) or a
 * record's commit (the accumulator restarts after it, possibly in another register: the value
 * left behind is already in the ring). Only padding (nops) that nothing leads to counts as
 * dead; any other code without a predecessor (a landing pad, entered by the unwinder) fails the
 * way. Extra predecessors (a fall-through after a call that does not return) only make it fail
 * more often. The forward bridge (ct_flow_forward) needs no predecessors: it decodes from the
 * pc, an instruction boundary, along the single way on.
 */
#include <stdlib.h>
#include <string.h>

#include "capstone_lib.h"
#include "code_flow_internal.h"

int ct_flow_dwarf_reg(x86_reg r) {
  switch (r) {
  case X86_REG_RAX: case X86_REG_EAX: case X86_REG_AX: case X86_REG_AH: case X86_REG_AL: return 0;
  case X86_REG_RDX: case X86_REG_EDX: case X86_REG_DX: case X86_REG_DH: case X86_REG_DL: return 1;
  case X86_REG_RCX: case X86_REG_ECX: case X86_REG_CX: case X86_REG_CH: case X86_REG_CL: return 2;
  case X86_REG_RBX: case X86_REG_EBX: case X86_REG_BX: case X86_REG_BH: case X86_REG_BL: return 3;
  case X86_REG_RSI: case X86_REG_ESI: case X86_REG_SI: case X86_REG_SIL: return 4;
  case X86_REG_RDI: case X86_REG_EDI: case X86_REG_DI: case X86_REG_DIL: return 5;
  case X86_REG_RBP: case X86_REG_EBP: case X86_REG_BP: case X86_REG_BPL: return 6;
  case X86_REG_RSP: case X86_REG_ESP: case X86_REG_SP: case X86_REG_SPL: return 7;
  default: break;
  }
  if (r >= X86_REG_R8 && r <= X86_REG_R15) return 8 + (int)(r - X86_REG_R8);
  if (r >= X86_REG_R8D && r <= X86_REG_R15D) return 8 + (int)(r - X86_REG_R8D);
  if (r >= X86_REG_R8W && r <= X86_REG_R15W) return 8 + (int)(r - X86_REG_R8W);
  if (r >= X86_REG_R8B && r <= X86_REG_R15B) return 8 + (int)(r - X86_REG_R8B);
  if (r >= X86_REG_XMM0 && r <= X86_REG_XMM15) return 17 + (int)(r - X86_REG_XMM0);
  if (r >= X86_REG_YMM0 && r <= X86_REG_YMM15) return 17 + (int)(r - X86_REG_YMM0);
  if (r >= X86_REG_ZMM0 && r <= X86_REG_ZMM15) return 17 + (int)(r - X86_REG_ZMM0);
  return -1;
}

int64_t ct_flow_index_of(const struct flow_fn *f, uint64_t addr) {
  size_t lo = 0, hi = f->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (f->in[mid].addr < addr) lo = mid + 1;
    else hi = mid;
  }
  return lo < f->n && f->in[lo].addr == addr ? (int64_t)lo : -1;
}

static void flow_free(struct flow_fn *f) {
  free(f->in);
  free(f->pred_start);
  free(f->pred);
}

/* Decodes one instruction's effects. Returns 0, or -1 for a jump it cannot follow. */
static int decode_insn(csh cs, const cs_insn *x, const struct ct_code_view *code,
                       struct flow_insn *fi) {
  cs_regs rd, wr;
  uint8_t nrd = 0, nwr = 0;
  fi->addr = x->address;
  fi->pad = x->id == X86_INS_NOP || x->id == X86_INS_INT3;
  fi->falls = !(x->id == X86_INS_RET || x->id == X86_INS_UD2 || x->id == X86_INS_HLT ||
                x->id == X86_INS_JMP || x->id == X86_INS_LJMP);
  fi->call = ct_cs.insn_group(cs, x, CS_GRP_CALL);
  fi->barrier = fi->call || ct_cs.insn_group(cs, x, CS_GRP_RET) || ct_cs.insn_group(cs, x, CS_GRP_INT) ||
                ct_cs.insn_group(cs, x, CS_GRP_IRET);
  /* A store to thread-local memory: in crashtrail's code, the ring position's store that
   * commits a record (`mov %r,%fs:pos`; through a register in a shared object). */
  for (uint8_t k = 0; k < x->detail->x86.op_count; k++) {
    const cs_x86_op *op = &x->detail->x86.operands[k];
    if (op->type == X86_OP_MEM && op->mem.segment == X86_REG_FS && (op->access & CS_AC_WRITE))
      fi->barrier = 1;
  }
  if (ct_cs.regs_access(cs, x, rd, &nrd, wr, &nwr) != CS_ERR_OK) return -1;
  for (uint8_t k = 0; k < nwr; k++) {
    int d = ct_flow_dwarf_reg((x86_reg)wr[k]);
    if (d >= 0) fi->writes |= 1ull << d;
  }
  if (ct_cs.insn_group(cs, x, CS_GRP_JUMP)) {
    const cs_x86 *d = &x->detail->x86;
    if (x->id == X86_INS_LJMP || d->op_count != 1) return -1;
    if (d->operands[0].type != X86_OP_IMM) {
      if (x->id != X86_INS_JMP) return -1;
      fi->indirect = 1;
      return 0;
    }
    fi->to = (uint64_t)d->operands[0].imm;
    fi->branches = fi->to >= code->lo && fi->to < code->hi;
  }
  return 0;
}

/* ---- the function's control flow ---- */

/* Decodes the function and builds its predecessor lists. Returns 0, or -1 when it cannot be
 * decoded to its end or has an indirect jump whose table is not found. */
int ct_flow_build_preds(struct flow_fn *f, const struct flow_edges *e) {
  size_t n = f->n, *start = calloc(n + 2, sizeof *start), *pred = calloc(e->n + 1, sizeof *pred);
  if (!start || !pred) {
    free(start);
    free(pred);
    return -1;
  }
  /* Counted at i + 2, summed: start[i + 1] is then i's first slot, a cursor for the fill that
   * ends at i + 1's first slot, and start[0..n] are the lists' bounds. */
  for (size_t k = 0; k < e->n; k++) start[e->to[k] + 2]++;
  for (size_t i = 2; i <= n + 1; i++) start[i] += start[i - 1];
  for (size_t k = 0; k < e->n; k++) pred[start[e->to[k] + 1]++] = e->from[k];
  free(f->pred_start);
  free(f->pred);
  f->pred_start = start;
  f->pred = pred;
  return 0;
}

/* Decodes the function and builds its predecessor lists. Returns 0, or -1 when it cannot be
 * decoded to its end or has an indirect jump whose table is not found. */
static int flow_decode(const struct ct_code_view *code, struct flow_fn *f) {
  csh cs;
  cs_insn *x = NULL;
  size_t cap = 0, n = 0;
  uint8_t *targeted = NULL;
  struct flow_edges e = {0};
  int rc = -1;
  memset(f, 0, sizeof *f);
  if (ct_capstone_open(&cs, 1) != CS_ERR_OK) return -1;
  if (!(x = ct_cs.malloc(cs))) goto out;
  /* One instruction at a time: capstone's details are some 1.5 KB per instruction. */
  const uint8_t *p = code->bytes;
  size_t left = (size_t)(code->hi - code->lo);
  uint64_t addr = code->lo;
  while (left > 0) {
    if (!ct_cs.disasm_iter(cs, &p, &left, &addr, x)) goto out; /* not code to the end */
    if (n == cap) {
      size_t ncap = cap ? 2 * cap : 1024;
      struct flow_insn *in = realloc(f->in, ncap * sizeof *in);
      if (!in) goto out;
      f->in = in;
      cap = ncap;
    }
    memset(&f->in[n], 0, sizeof f->in[n]);
    if (decode_insn(cs, x, code, &f->in[n++])) goto out;
  }
  f->n = n;
  if (!n || !(targeted = calloc(n, 1))) goto out;
  /* Edges: i -> i + 1 when i falls through, i -> its target. A direct target inside the
   * function must start an instruction, else the linear decode is out of step with the code
   * (data in .text) and nothing here can be trusted. */
  for (size_t i = 0; i < n; i++) {
    if (f->in[i].falls && i + 1 < n && ct_flow_add_edge(&e, i, i + 1)) goto out;
    if (!f->in[i].branches) continue;
    int64_t t = ct_flow_index_of(f, f->in[i].to);
    if (t < 0 || ct_flow_add_edge(&e, i, (size_t)t)) goto out;
    targeted[t] = 1;
  }
  if (ct_flow_jump_tables(cs, code, f, targeted, &e) || ct_flow_build_preds(f, &e)) goto out;
  rc = 0;
out:
  free(e.from);
  free(e.to);
  free(targeted);
  if (x) ct_cs.free(x, 1);
  ct_cs.close(&cs);
  if (rc) flow_free(f);
  return rc;
}

int ct_flow_bridge(const struct ct_code_view *code, uint64_t pc, ct_flow_cover_fn cover,
                   void *ctx, uint64_t *from) {
  struct flow_fn f;
  if (!code || !code->bytes || pc < code->lo || pc >= code->hi || !cover) return -1;
  if (flow_decode(code, &f)) return -1;
  struct ct_flow_loc at = {CT_FLOW_NONE, 0, 0}; /* the frontier's location, once one is found */
  uint64_t written = 0, frontier = 0;
  size_t queue[CT_FLOW_MAX + 1], head = 0, tail = 0, passed = 0;
  uint8_t *seen = calloc(f.n, 1);
  int64_t start = ct_flow_index_of(&f, pc);
  int ok = seen && start >= 0;
  /* The pc's instruction is not marked seen: on a way round a loop it ran before, and what it
   * writes counts like any other's. */
  if (ok) queue[tail++] = (size_t)start;
  while (ok && head < tail) {
    size_t i = queue[head++];
    /* Nothing leads here: the entry (or the pc), or padding between blocks that only falls
     * through into the next one, which no way passes. */
    if (f.pred_start[i] == f.pred_start[i + 1]) {
      if (!f.in[i].pad || i == (size_t)start || i == 0) ok = 0;
      continue;
    }
    for (size_t k = f.pred_start[i]; ok && k < f.pred_start[i + 1]; k++) {
      size_t p = f.pred[k];
      if (seen[p]) continue;
      seen[p] = 1;
      if (f.in[p].barrier) {
        ok = 0;
        break;
      }
      written |= f.in[p].writes;
      struct ct_flow_loc c = cover(ctx, f.in[p].addr);
      if (c.kind == CT_FLOW_NONE) {
        if (p == 0 || ++passed > CT_FLOW_MAX) ok = 0;
        else queue[tail++] = p;
      } else if (c.kind != CT_FLOW_VALUE ||
                 (at.kind != CT_FLOW_NONE && (c.key != at.key || c.reads != at.reads))) {
        ok = 0;
      } else {
        at = c;
        frontier = f.in[p].addr;
      }
    }
  }
  free(seen);
  flow_free(&f);
  if (!ok || at.kind == CT_FLOW_NONE || (written & at.reads)) return -1;
  if (from) *from = frontier;
  return 0;
}

int ct_flow_forward(const struct ct_code_view *code, uint64_t pc, ct_flow_cover_fn cover,
                    void *ctx, uint64_t *to) {
  csh cs;
  cs_insn *x = NULL;
  int rc = -1;
  if (!code || !code->bytes || pc < code->lo || pc >= code->hi || !cover) return -1;
  if (ct_capstone_open(&cs, 1) != CS_ERR_OK) return -1;
  uint64_t written = 0, addr = pc;
  if (!(x = ct_cs.malloc(cs))) goto out;
  for (int passed = 0; passed <= CT_FLOW_MAX; passed++) {
    if (addr < code->lo || addr >= code->hi) break;
    if (addr != pc) {
      struct ct_flow_loc c = cover(ctx, addr);
      if (c.kind == CT_FLOW_VALUE) {
        if (!(written & c.reads)) {
          *to = addr;
          rc = 0;
        }
        break;
      }
      if (c.kind != CT_FLOW_NONE) break;
    }
    /* Decoded from an instruction boundary (the pc, then each next one): linear is exact. */
    const uint8_t *p = code->bytes + (addr - code->lo);
    size_t left = (size_t)(code->hi - addr);
    uint64_t at = addr;
    struct flow_insn fi;
    memset(&fi, 0, sizeof fi);
    if (!ct_cs.disasm_iter(cs, &p, &left, &at, x) || decode_insn(cs, x, code, &fi)) break;
    if (fi.barrier || fi.indirect) break;
    written |= fi.writes;
    if (fi.branches && !fi.falls) addr = fi.to; /* an unconditional jump: one way on */
    else if (fi.falls && !ct_cs.insn_group(cs, x, CS_GRP_JUMP)) addr = at;
    else break; /* a conditional branch (or a jump out of the function): more than one way */
  }
out:
  if (x) ct_cs.free(x, 1);
  ct_cs.close(&cs);
  return rc;
}

int ct_flow_slot_rewritten(const struct ct_code_view *code, uint64_t from, uint64_t to,
                           int *base, int64_t *disp) {
  enum { MAX_LOADS = 16 };
  struct { x86_reg base; int64_t disp; } loads[MAX_LOADS];
  size_t nloads = 0;
  csh cs;
  cs_insn *x = NULL;
  int found = 0;
  if (from < code->lo || to > code->hi || from >= to) return 0;
  if (ct_capstone_open(&cs, 1) != CS_ERR_OK) return 0;
  const uint8_t *p = code->bytes + (from - code->lo);
  size_t left = (size_t)(to - from);
  uint64_t addr = from;
  if (!(x = ct_cs.malloc(cs))) goto out;
  while (left > 0 && !found && ct_cs.disasm_iter(cs, &p, &left, &addr, x)) {
    const cs_x86 *d = &x->detail->x86;
    for (uint8_t k = 0; k < d->op_count && !found; k++) {
      const cs_x86_op *op = &d->operands[k];
      if (op->type != X86_OP_MEM || op->size != 8 || op->mem.index != X86_REG_INVALID ||
          op->mem.segment != X86_REG_INVALID ||
          (op->mem.base != X86_REG_RBP && op->mem.base != X86_REG_RSP))
        continue;
      if (op->access & CS_AC_WRITE) {
        for (size_t i = 0; i < nloads && !found; i++)
          if (loads[i].base == op->mem.base && loads[i].disp == op->mem.disp) {
            *base = ct_flow_dwarf_reg(op->mem.base);
            *disp = op->mem.disp;
            found = 1;
          }
      } else if ((op->access & CS_AC_READ) && nloads < MAX_LOADS) {
        loads[nloads].base = op->mem.base;
        loads[nloads++].disp = op->mem.disp;
      }
    }
  }
out:
  if (x) ct_cs.free(x, 1);
  ct_cs.close(&cs);
  return found;
}

struct ct_flow_calls {
  csh cs;
  cs_insn *x;
};

struct ct_flow_calls *ct_flow_calls_open(void) {
  struct ct_flow_calls *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  if (ct_capstone_open(&c->cs, 0) != CS_ERR_OK) {
    free(c);
    return NULL;
  }
  if (!(c->x = ct_cs.malloc(c->cs))) {
    ct_flow_calls_close(c);
    return NULL;
  }
  return c;
}

void ct_flow_calls_close(struct ct_flow_calls *c) {
  if (!c) return;
  if (c->x) ct_cs.free(c->x, 1);
  ct_cs.close(&c->cs);
  free(c);
}

long ct_flow_call_returns(struct ct_flow_calls *c, const struct ct_code_view *code, uint64_t **out) {
  uint64_t *rets = NULL;
  size_t n = 0, cap = 0;
  *out = NULL;
  if (!c || !code->bytes || code->hi <= code->lo) return -1;
  const uint8_t *p = code->bytes;
  size_t left = (size_t)(code->hi - code->lo);
  uint64_t addr = code->lo;
  while (left > 0) {
    if (!ct_cs.disasm_iter(c->cs, &p, &left, &addr, c->x)) goto fail; /* not code to the end */
    if (c->x->id != X86_INS_CALL) continue;
    if (n == cap) {
      size_t ncap = cap ? 2 * cap : 64;
      uint64_t *r = realloc(rets, ncap * sizeof *r);
      if (!r) goto fail;
      rets = r;
      cap = ncap;
    }
    rets[n++] = addr; /* cs_disasm_iter has moved addr past the call */
  }
  *out = rets;
  return (long)n;
fail:
  free(rets);
  return -1;
}
