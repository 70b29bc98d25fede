/*
 * code_flow.h - which register holds a variable at a pc that its location list does not cover,
 * found by following the machine code's control flow backwards (x86-64, decoded with capstone).
 *
 * Codegen can move a value's update below the place its debug location says it happens (a
 * switch case's code for the path accumulator, sunk below the case's first loads): from the
 * block's start until the update, DWARF names no location, yet the register that held the value
 * before the block still holds it. The entry before the gap in *address* order may belong to
 * another block (a slow path laid out in between); the ways into the pc are what count.
 */
#ifndef CT_CODE_FLOW_H
#define CT_CODE_FLOW_H

#include <stddef.h>
#include <stdint.h>

enum {
  CT_FLOW_NONE = -1,  /* no location-list entry covers the address */
  CT_FLOW_OTHER = -2, /* an entry covers it, but not as exactly one register */
  CT_FLOW_MAX = 64,   /* instructions without a location followed back from the pc, at most */
};

/* For a link-time address: the DWARF register number (>= 0) the entry covering it names, or
 * CT_FLOW_NONE / CT_FLOW_OTHER. */
typedef int (*ct_flow_cover_fn)(void *ctx, uint64_t addr);

/* The machine code of one function: its bytes at link-time addresses [lo, hi). */
struct ct_code_view {
  const uint8_t *bytes;
  uint64_t lo, hi;
};

/* Follows every way into the instruction at pc backwards, through instructions no entry covers
 * (at most CT_FLOW_MAX of them), to the first covered instruction on each. Succeeds when every
 * way ends at an instruction covered by "in register R" for one R, and neither those
 * instructions nor any passed on the way write R, call or return: R then holds at pc the value
 * it held there. Refuses a function with an indirect jump (its edges are not all known), a pc
 * that is not an instruction boundary, and any way that reaches the function's entry.
 * Returns R and the address of one such covered instruction in *from, or -1. */
int ct_flow_bridge(const struct ct_code_view *code, uint64_t pc, ct_flow_cover_fn cover,
                   void *ctx, uint64_t *from);

#endif
