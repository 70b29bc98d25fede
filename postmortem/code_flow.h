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

/* What an entry covering an address says the value is. */
enum ct_flow_kind {
  CT_FLOW_NONE,  /* no location-list entry covers the address */
  CT_FLOW_OTHER, /* an entry covers it with a description that may read memory */
  CT_FLOW_VALUE, /* an entry covers it with a description computed from registers and constants
                  * only: a register, a constant, `DW_OP_breg2 0, DW_OP_lit1, DW_OP_shl` */
};
struct ct_flow_loc {
  enum ct_flow_kind kind;
  uint64_t key;   /* CT_FLOW_VALUE: the description's identity (equal descriptions, equal keys) */
  uint64_t reads; /* CT_FLOW_VALUE: bit n set: it reads DWARF register n */
};

enum { CT_FLOW_MAX = 64 }; /* instructions without a location followed back from the pc, at most */

typedef struct ct_flow_loc (*ct_flow_cover_fn)(void *ctx, uint64_t addr);

/* The machine code of one function: its bytes at link-time addresses [lo, hi), and a reader
 * of the file's other bytes (a jump table's; NULL: indirect jumps are not followed). */
struct ct_code_view {
  const uint8_t *bytes;
  uint64_t lo, hi;
  const uint8_t *(*data)(void *ctx, uint64_t addr, size_t len);
  void *data_ctx;
};

/* Follows every way into the instruction at pc backwards, through instructions no entry covers
 * (at most CT_FLOW_MAX of them), to the first covered instruction on each. Succeeds when every
 * way ends at an instruction covered by the same description of the value, computed from
 * registers and constants only, when no instruction passed on the way (nor those covered ones)
 * writes a register it reads, and none is a barrier: a call, a return, or a store through %fs
 * (the ring position's store that commits a record, after which the accumulator restarts).
 * The description then gives at pc the value it gave there, short of any update codegen sank
 * below where DWARF places it. An indirect jump's ways come from its jump table (clang's
 * shapes for a switch and a computed goto, read from the file); a function with any other
 * indirect jump (through a function pointer) is refused, as are a pc that is not an
 * instruction boundary and any way that reaches the function's entry. Returns 0 and, in *from, the address of one such covered instruction; or -1. */
int ct_flow_bridge(const struct ct_code_view *code, uint64_t pc, ct_flow_cover_fn cover,
                   void *ctx, uint64_t *from);

/* Follows the one way on from the instruction at pc (falling through, or an unconditional
 * jump; never a conditional branch or a barrier) through instructions no entry covers, at most
 * CT_FLOW_MAX, to the first covered one. Succeeds when that one is covered by a description
 * computed from registers and constants only and no instruction on the way (the pc's own
 * included) writes a register it reads: the registers it reads then hold at pc what they will
 * hold there. Codegen can place a value's debug location after the first instruction of a
 * block where the value already is in its register (the accumulator's phi at a join, whose
 * location starts one load later). Returns 0 and, in *to, that instruction's address; or -1. */
int ct_flow_forward(const struct ct_code_view *code, uint64_t pc, ct_flow_cover_fn cover,
                    void *ctx, uint64_t *to);

/* Whether the instructions in [from, to) (a run of one block's code, decoded from `from`) load
 * an 8-byte stack slot (%rbp or %rsp plus a displacement) and later store to the same slot: a
 * read-modify-write of a variable in memory, as -O0 code updates the path accumulator at the
 * start of a block (load, shift, store). The slot's DWARF base register and displacement go
 * to *base and *disp. 1 if so, else 0. */
int ct_flow_slot_rewritten(const struct ct_code_view *code, uint64_t from, uint64_t to,
                           int *base, int64_t *disp);

/* A decoder of calls, opened once for many functions (opening one clears capstone's tables). */
struct ct_flow_calls;
struct ct_flow_calls *ct_flow_calls_open(void);
void ct_flow_calls_close(struct ct_flow_calls *c);

/* The return addresses of the calls (direct and indirect) in code [lo, hi), decoded linearly,
 * in address order, into *out (malloc'ed: free it). For code DWARF says nothing of: clang
 * emits call-site entries only when it optimises. Returns how many, or -1 when the code cannot
 * be decoded to its end or memory runs out (*out is then NULL). */
long ct_flow_call_returns(struct ct_flow_calls *c, const struct ct_code_view *code, uint64_t **out);

#endif
