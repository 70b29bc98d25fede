/*
 * flush_fragment.c - recognising a frame stopped in a flush's out-of-line fragment, and
 * putting it back in its function.
 *
 * A flush's slow path (pass/SlowPathAsm.cpp) runs three instructions in a cold section of the
 * function's own, with no unwind information and, after linking, no symbol of its own (so
 * symbol tables name it after whatever precedes it: `_init` in a shared library whose cold
 * text follows .plt):
 *
 *       start: leaq -128(%rsp), %rsp                   48 8d 64 24 80
 *       push:  pushq ACC                               50+r | 41 50+r | 6a ib | 68 id
 *       call:  callq trampoline                        e8 rel32
 *       jmp:   jmp label3                              e9 rel32
 *       data:  cmpl $imm32, %eax (never run)           3d rel32(label2)
 *
 * The trampoline returns to the jump. Older passes' fragments are still recognised (their
 * binaries and dumps stay readable): until 2026-12-01 (trampolines numbered 2) the trampoline
 * returned to label 3 itself, and the call was followed by data only,
 *
 *       start, push, call as above
 *       data:  movabsq $imm64, %rax (never run)        48 b8 rel32(label2) rel32(label3)
 *
 * and before (trampolines unnumbered) the fragment came back by itself:
 *
 *       start, push, call as above
 *       nop1:  nopl (label2 - .)(%rax)                 0f 1f 80 rel32
 *       nop2:  nopl (label3 - .)(%rax)                 0f 1f 80 rel32
 *       L:     leaq 136(%rsp), %rsp                    48 8d a4 24 88 00 00 00
 *       jmp:   jmp label3                              e9 rel32
 *
 * A thread a signal stops in the fragment (an asynchronous kill lands there now and then: with
 * two instrumented modules every stamped flush runs its fragment) is, for the post-mortem, its
 * function in the middle of the flush: before the call returned the record is not written (the
 * function at label 2, the fast path's first data store, with its stack pointer), after it the
 * record is written (label 3, the flush's end). The trampoline's return address, the fragment's
 * jump (the data, nop1) until it writes label 3 there and again in its last instructions,
 * becomes label 3.
 *
 * Recognition: the fixed bytes of every instruction (the stack step, the push's opcode, the
 * call, the data's opcode), and the labels the data names must lie after each other, close,
 * outside the fragment (the older form: 28 fixed bytes, and label 3 as the jump's target must
 * equal label 3 as the second no-op's displacement). Ordinary code does not match by chance.
 * Every general register but the stack pointer is the function's in the fragment.
 */
#include <string.h>

#include "flush_fragment.h"

enum { CALL_TO_L = 19, NOP1_TO_L = 14, NOP2_TO_L = 7, L_TO_JMP = 8, JMP_LEN = 5 };

static const uint8_t lea_up[] = {0x48, 0x8d, 0xa4, 0x24, 0x88, 0x00, 0x00, 0x00};
static const uint8_t lea_down[] = {0x48, 0x8d, 0x64, 0x24, 0x80};
static const uint8_t nopl[] = {0x0f, 0x1f, 0x80};

struct window {
  const uint8_t *code;
  uint64_t addr;
  size_t len;
};

static const uint8_t *at(const struct window *w, uint64_t a, size_t n) {
  if (a < w->addr || a - w->addr > w->len || n > w->len - (a - w->addr)) return NULL;
  return w->code + (a - w->addr);
}

static int32_t rel32(const uint8_t *p) {
  int32_t v;
  memcpy(&v, p, 4);
  return v;
}

/* The length of a `pushq ACC` at p (a register or a sign-extended immediate), or 0. */
static size_t push_length(const struct window *w, uint64_t a) {
  const uint8_t *p = at(w, a, 1);
  if (!p) return 0;
  if ((p[0] & 0xf8) == 0x50) return 1;
  if (p[0] == 0x6a) return 2;
  if (p[0] == 0x68) return 5;
  p = at(w, a, 2);
  return p && p[0] == 0x41 && (p[1] & 0xf8) == 0x50 ? 2 : 0;
}

/* Whether an older fragment's call, no-ops, stack restore and jump are around L; its labels if
 * so. */
static int v1_tail(const struct window *w, uint64_t l, uint64_t *label2, uint64_t *label3) {
  if (l < CALL_TO_L) return 0;
  const uint8_t *p = at(w, l - CALL_TO_L, CALL_TO_L + L_TO_JMP + JMP_LEN);
  if (!p) return 0;
  const uint8_t *nop1 = p + CALL_TO_L - NOP1_TO_L, *nop2 = p + CALL_TO_L - NOP2_TO_L;
  const uint8_t *lea = p + CALL_TO_L, *jmp = lea + L_TO_JMP;
  if (p[0] != 0xe8 || memcmp(nop1, nopl, 3) || memcmp(nop2, nopl, 3) ||
      memcmp(lea, lea_up, sizeof lea_up) || jmp[0] != 0xe9)
    return 0;
  uint64_t by_jump = l + L_TO_JMP + JMP_LEN + (uint64_t)(int64_t)rel32(jmp + 1);
  uint64_t by_nop = l - NOP2_TO_L + 3 + (uint64_t)(int64_t)rel32(nop2 + 3);
  if (by_jump != by_nop) return 0;
  *label2 = l - NOP1_TO_L + 3 + (uint64_t)(int64_t)rel32(nop1 + 3);
  *label3 = by_jump;
  return 1;
}

/* Whether a fragment's stack step and push end at c; 1 if so. */
static int steps_before(const struct window *w, uint64_t c) {
  static const size_t push_lens[] = {1, 2, 5};
  for (size_t i = 0; i < 3; i++) {
    size_t n = push_lens[i];
    const uint8_t *d = c >= n + sizeof lea_down ? at(w, c - n - sizeof lea_down, sizeof lea_down)
                                                 : NULL;
    if (d && !memcmp(d, lea_down, sizeof lea_down) && push_length(w, c - n) == n) return 1;
  }
  return 0;
}

/* Whether a fragment's call is at c (with its push and stack step before it, its data after
 * it); its labels if so. */
static int v2_call(const struct window *w, uint64_t c, uint64_t *label2, uint64_t *label3) {
  enum { CALL_LEN = 5, DATA_LEN = 10, MAX_FAST = 64 /* label 2 to label 3: about 20 bytes */ };
  const uint8_t *p = at(w, c, CALL_LEN + DATA_LEN);
  if (!p || p[0] != 0xe8 || p[5] != 0x48 || p[6] != 0xb8) return 0;
  uint64_t l2 = c + 7 + (uint64_t)(int64_t)rel32(p + 7);
  uint64_t l3 = c + 11 + (uint64_t)(int64_t)rel32(p + 11);
  if (l3 <= l2 || l3 - l2 > MAX_FAST || (l3 > c - 16 && l2 < c + CALL_LEN + DATA_LEN)) return 0;
  if (!steps_before(w, c)) return 0;
  *label2 = l2, *label3 = l3;
  return 1;
}

typedef int (*call_match)(const struct window *w, uint64_t c, uint64_t *label2, uint64_t *label3);

/* A stop at a fragment's stack step, push or call, for fragments whose call `match` recognises:
 * the trampoline not yet called, the record not written, the function at label 2. */
static int before_call(const struct window *w, uint64_t pc, call_match match, uint64_t *fn_pc,
                       uint64_t *sp_add) {
  uint64_t l2, l3;
  if (match(w, pc, &l2, &l3)) {
    *fn_pc = l2, *sp_add = 136; /* the accumulator pushed, not yet written */
    return 1;
  }
  size_t push = push_length(w, pc);
  if (push && match(w, pc + push, &l2, &l3)) {
    *fn_pc = l2, *sp_add = 128;
    return 1;
  }
  const uint8_t *p = at(w, pc, sizeof lea_down);
  push = p && !memcmp(p, lea_down, sizeof lea_down) ? push_length(w, pc + sizeof lea_down) : 0;
  if (push && match(w, pc + sizeof lea_down + push, &l2, &l3)) {
    *fn_pc = l2, *sp_add = 0;
    return 1;
  }
  return 0;
}

/* ct_flush_fragment_at for the fragments of passes that returned to label 3. */
static int v2_fragment_at(const struct window *w, uint64_t pc, int exact, uint64_t *fn_pc,
                          uint64_t *sp_add) {
  uint64_t l2, l3;
  if (!exact) { /* the trampoline's return address: its data, before it writes label 3 there */
    if (pc >= 5 && v2_call(w, pc - 5, &l2, &l3)) {
      *fn_pc = l3, *sp_add = 0;
      return 1;
    }
    return 0;
  }
  return before_call(w, pc, v2_call, fn_pc, sp_add);
}

/* Whether this pass's fragment has its call at c (its stack step and push before, its jump and
 * data after); its labels if so. */
static int v3_call(const struct window *w, uint64_t c, uint64_t *label2, uint64_t *label3) {
  enum { CALL_LEN = 5, JMP_LEN = 5, DATA_LEN = 5, MAX_FAST = 64 /* label 2 to 3: ~20 bytes */ };
  const uint8_t *p = at(w, c, CALL_LEN + JMP_LEN + DATA_LEN);
  if (!p || p[0] != 0xe8 || p[5] != 0xe9 || p[10] != 0x3d) return 0;
  uint64_t l3 = c + 10 + (uint64_t)(int64_t)rel32(p + 6);
  uint64_t l2 = c + 11 + (uint64_t)(int64_t)rel32(p + 11);
  if (l3 <= l2 || l3 - l2 > MAX_FAST || (l3 > c - 16 && l2 < c + CALL_LEN + JMP_LEN + DATA_LEN))
    return 0;
  if (!steps_before(w, c)) return 0;
  *label2 = l2, *label3 = l3;
  return 1;
}

/* ct_flush_fragment_at for this pass's fragments. */
static int v3_fragment_at(const struct window *w, uint64_t pc, int exact, uint64_t *fn_pc,
                          uint64_t *sp_add) {
  uint64_t l2, l3;
  if (pc >= 5 && v3_call(w, pc - 5, &l2, &l3)) {
    /* The trampoline's return address (before it writes label 3 there, or after it put the
     * fragment's back), or the jump after its return: the stack is f's again either way. */
    *fn_pc = l3, *sp_add = 0;
    return 1;
  }
  return exact && before_call(w, pc, v3_call, fn_pc, sp_add);
}

/* ct_flush_fragment_at for an older pass's fragments. */
static int v1_fragment_at(const struct window *w, uint64_t pc, int exact, uint64_t *fn_pc,
                          uint64_t *sp_add) {
  uint64_t l2, l3;
  if (!exact) { /* a return address: the trampoline's, as pushed or as it rewrote it */
    if (v1_tail(w, pc + NOP1_TO_L, &l2, &l3) || v1_tail(w, pc, &l2, &l3)) {
      *fn_pc = l3;
      *sp_add = 0;
      return 1;
    }
    return 0;
  }
  if (pc >= L_TO_JMP && v1_tail(w, pc - L_TO_JMP, &l2, &l3)) {
    *fn_pc = l3, *sp_add = 0; /* at the jump back: the stack restored */
    return 1;
  }
  if (v1_tail(w, pc, &l2, &l3) || v1_tail(w, pc + NOP1_TO_L, &l2, &l3)) {
    *fn_pc = l3, *sp_add = 136; /* the record written; red zone and accumulator still below */
    return 1;
  }
  if (v1_tail(w, pc + CALL_TO_L, &l2, &l3)) {
    *fn_pc = l2, *sp_add = 136;
    return 1;
  }
  size_t push = push_length(w, pc);
  if (push && v1_tail(w, pc + push + CALL_TO_L, &l2, &l3)) {
    *fn_pc = l2, *sp_add = 128;
    return 1;
  }
  const uint8_t *p = at(w, pc, sizeof lea_down);
  push = p && !memcmp(p, lea_down, sizeof lea_down) ? push_length(w, pc + sizeof lea_down) : 0;
  if (push && v1_tail(w, pc + sizeof lea_down + push + CALL_TO_L, &l2, &l3)) {
    *fn_pc = l2, *sp_add = 0;
    return 1;
  }
  return 0;
}

int ct_flush_fragment_at(const uint8_t *code, uint64_t code_addr, size_t len, uint64_t pc,
                         int exact, uint64_t *fn_pc, uint64_t *sp_add) {
  struct window w = {code, code_addr, len};
  return v3_fragment_at(&w, pc, exact, fn_pc, sp_add) ||
         v2_fragment_at(&w, pc, exact, fn_pc, sp_add) ||
         v1_fragment_at(&w, pc, exact, fn_pc, sp_add);
}
