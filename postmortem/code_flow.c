/*
 * code_flow.c - a variable's register at a pc its location list does not cover, through the
 * control flow (see code_flow.h).
 *
 * The function is decoded linearly (clang puts no data in .text: jump tables are in .rodata)
 * into instructions, each with its fall-through and direct-branch successors; the predecessor
 * lists are built from those. A breadth-first walk backwards from the pc then stops at covered
 * instructions (the frontier) and goes on through uncovered ones. Soundness rests on knowing
 * every predecessor: a function with an indirect jump is refused, a way that reaches the entry
 * or runs over CT_FLOW_MAX uncovered instructions fails, and so does one through a call (it may
 * clobber the register) or a record's commit (the accumulator restarts after it, possibly in
 * another register: the value left behind is already in the ring). Extra predecessors (a
 * fall-through after a call that does not return) only make it fail more often.
 */
#include "code_flow.h"

#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>

/* DWARF x86-64 register number of a capstone register (its whole register: writing %al writes
 * RAX), or -1 for one no variable lives in (flags, segments, rip). */
static int dwarf_reg(x86_reg r) {
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

/* What the walk needs of one instruction. */
struct flow_insn {
  uint64_t addr;
  uint64_t writes; /* bit n: writes DWARF register n */
  uint64_t to;     /* a direct branch's target, when `branches` */
  uint8_t branches; /* a direct branch to an address inside the function */
  uint8_t falls;    /* the next instruction can follow it */
  uint8_t barrier;  /* a call, a return, an interrupt, a store through %fs: not passed */
};

struct flow_fn {
  struct flow_insn *in;
  size_t n;
  size_t *pred_start, *pred; /* predecessors of i: pred[pred_start[i] .. pred_start[i + 1]) */
};

static int64_t index_of(const struct flow_fn *f, uint64_t addr) {
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

/* Decodes one instruction's effects. Returns 0, or -1 for an indirect jump (a jump table's
 * edges are not in the code). */
static int decode_insn(csh cs, const cs_insn *x, const struct ct_code_view *code,
                       struct flow_insn *fi) {
  cs_regs rd, wr;
  uint8_t nrd = 0, nwr = 0;
  fi->addr = x->address;
  fi->falls = !(x->id == X86_INS_RET || x->id == X86_INS_UD2 || x->id == X86_INS_HLT ||
                x->id == X86_INS_JMP || x->id == X86_INS_LJMP);
  fi->barrier = cs_insn_group(cs, x, CS_GRP_CALL) || cs_insn_group(cs, x, CS_GRP_RET) ||
                cs_insn_group(cs, x, CS_GRP_INT) || cs_insn_group(cs, x, CS_GRP_IRET);
  /* A store to thread-local memory: in crashtrail's code, the ring position's store that
   * commits a record (`mov %r,%fs:pos`; through a register in a shared object). */
  for (uint8_t k = 0; k < x->detail->x86.op_count; k++) {
    const cs_x86_op *op = &x->detail->x86.operands[k];
    if (op->type == X86_OP_MEM && op->mem.segment == X86_REG_FS && (op->access & CS_AC_WRITE))
      fi->barrier = 1;
  }
  if (cs_regs_access(cs, x, rd, &nrd, wr, &nwr) != CS_ERR_OK) return -1;
  for (uint8_t k = 0; k < nwr; k++) {
    int d = dwarf_reg((x86_reg)wr[k]);
    if (d >= 0) fi->writes |= 1ull << d;
  }
  if (cs_insn_group(cs, x, CS_GRP_JUMP)) {
    const cs_x86 *d = &x->detail->x86;
    if (x->id == X86_INS_LJMP || d->op_count != 1 || d->operands[0].type != X86_OP_IMM)
      return -1;
    fi->to = (uint64_t)d->operands[0].imm;
    fi->branches = fi->to >= code->lo && fi->to < code->hi;
  }
  return 0;
}

/* Decodes the function. Returns 0, or -1 when it cannot be decoded to its end or has an
 * indirect jump. */
static int flow_decode(const struct ct_code_view *code, struct flow_fn *f) {
  csh cs;
  cs_insn *x = NULL;
  size_t *cursor = NULL, cap = 0, n = 0;
  int64_t *target = NULL;
  int rc = -1, bad = 0;
  memset(f, 0, sizeof *f);
  if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK) return -1;
  cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
  if (!(x = cs_malloc(cs))) goto out;
  /* One instruction at a time: capstone's details are some 1.5 KB per instruction. */
  const uint8_t *p = code->bytes;
  size_t left = (size_t)(code->hi - code->lo);
  uint64_t addr = code->lo;
  while (left > 0) {
    if (!cs_disasm_iter(cs, &p, &left, &addr, x)) goto out; /* not code to the end */
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
  /* Edges: i -> i + 1 when i falls through, i -> its target. A direct target inside the
   * function must start an instruction, else the linear decode is out of step with the code
   * (data in .text) and nothing here can be trusted. */
  if (!(target = calloc(n, sizeof *target))) goto out;
  for (size_t i = 0; i < n; i++) {
    target[i] = f->in[i].branches ? index_of(f, f->in[i].to) : -1;
    if (f->in[i].branches && target[i] < 0) bad = 1;
  }
  if (!bad && (f->pred_start = calloc(n + 1, sizeof *f->pred_start)) &&
      (cursor = calloc(n + 1, sizeof *cursor))) {
    for (size_t i = 0; i < n; i++) {
      if (f->in[i].falls && i + 1 < n) f->pred_start[i + 2]++;
      if (target[i] >= 0) f->pred_start[target[i] + 1]++;
    }
    for (size_t i = 1; i <= n; i++) f->pred_start[i] += f->pred_start[i - 1];
    memcpy(cursor, f->pred_start, (n + 1) * sizeof *cursor);
    if ((f->pred = calloc(f->pred_start[n] + 1, sizeof *f->pred))) {
      for (size_t i = 0; i < n; i++) {
        if (f->in[i].falls && i + 1 < n) f->pred[cursor[i + 1]++] = i;
        if (target[i] >= 0) f->pred[cursor[target[i]]++] = i;
      }
      rc = 0;
    }
  }
out:
  free(target);
  free(cursor);
  if (x) cs_free(x, 1);
  cs_close(&cs);
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
  int64_t start = index_of(&f, pc);
  int ok = seen && start >= 0;
  /* The pc's instruction is not marked seen: on a way round a loop it ran before, and what it
   * writes counts like any other's. */
  if (ok) queue[tail++] = (size_t)start;
  while (ok && head < tail) {
    size_t i = queue[head++];
    if (f.pred_start[i] == f.pred_start[i + 1]) ok = 0; /* the entry, or only reached from afar */
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
