/*
 * code_flow_internal.h - what code_flow.c and jump_tables.c share: the decoded function, its
 * edges, and the helpers both use. Not part of the post-mortem's API.
 */
#ifndef CT_CODE_FLOW_INTERNAL_H
#define CT_CODE_FLOW_INTERNAL_H

#include <capstone/capstone.h>
#include <stddef.h>
#include <stdint.h>

#include "code_flow.h"

/* What the walks need of one instruction. */
struct flow_insn {
  uint64_t addr;
  uint64_t writes;  /* bit n: writes DWARF register n */
  uint64_t to;      /* a direct branch's target, when `branches` */
  uint8_t branches; /* a direct branch to an address inside the function */
  uint8_t falls;    /* the next instruction can follow it */
  uint8_t call;     /* a call: the callee may change every caller-saved register */
  uint8_t barrier;  /* a call, a return, an interrupt, a store through %fs: not passed */
  uint8_t indirect; /* an indirect jump: its targets come from a jump table (jump_tables.c) */
  uint8_t pad;      /* a nop or int3: alignment padding, dead when nothing leads to it */
};

struct flow_fn {
  struct flow_insn *in;
  size_t n;
  size_t *pred_start, *pred; /* predecessors of i: pred[pred_start[i] .. pred_start[i + 1]) */
};

/* The edges found so far, as pairs. */
struct flow_edges {
  size_t *from, *to, n, cap;
};

/* DWARF x86-64 register number of a capstone register (its whole register: writing %al writes
 * RAX), or -1 for one no variable lives in (flags, segments, rip). */
int ct_flow_dwarf_reg(x86_reg r);

/* The index of the instruction at addr, or -1 if none starts there. */
int64_t ct_flow_index_of(const struct flow_fn *f, uint64_t addr);

/* Appends an edge. Returns 0, or -1 out of memory. */
int ct_flow_add_edge(struct flow_edges *e, size_t from, size_t to);

/* (Re)builds f's predecessor lists from the edges. Returns 0, or -1 out of memory. */
int ct_flow_build_preds(struct flow_fn *f, const struct flow_edges *e);

/* Adds the edges of every indirect jump of f through its jump table (jump_tables.c); e holds
 * the direct and fall-through ones, `targeted` marks the direct branches' targets. Returns 0,
 * or -1 when an indirect jump's table is not found (the function is then refused). */
int ct_flow_jump_tables(csh cs, const struct ct_code_view *code, struct flow_fn *f,
                        const uint8_t *targeted, struct flow_edges *e);

#endif
