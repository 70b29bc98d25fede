/*
 * test_flush_fragment.c - ct_flush_fragment_at (postmortem/flush_fragment.c): a frame stopped at
 * each instruction of a flush's out-of-line fragment is put back in its function, for each form
 * the fragment's push takes (a low register, r8-r15, an 8- and a 32-bit immediate), in the
 * fragments of this pass and of older ones; code that only looks like a fragment, or is cut
 * off by the window, is not.
 *
 * The fragments are laid out as clang 14 assembles pass/SlowPathAsm.cpp's: today's
 * (`lea -0x80(%rsp),%rsp; push %rax; call; jmp label3; cmp $offset,%eax`), the one before it
 * (`lea -0x80(%rsp),%rsp; push %rax; call; movabs $offsets,%rax`) and the oldest form
 * (refill_signal.c at -O2: 0x2320 lea -0x80(%rsp),%rsp; 0x2325 push %rax; 0x2326 call;
 * 0x232b nopl 0x1fe(%rax); 0x2332 nopl 0x208(%rax); 0x2339 lea 0x88(%rsp),%rsp; 0x2341 jmp
 * 0x253d).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "flush_fragment.h"

static int failures;

#define BASE 0x2300u /* the window's first byte: 0x20 bytes of other code before the fragment */
#define START 0x2320u
#define LABEL2 0x252cu
#define LABEL3 0x253du

static void put32(uint8_t *p, int64_t v) {
  int32_t w = (int32_t)v;
  memcpy(p, &w, 4);
}

/* Assembles a fragment at START with the given push; returns the offsets of its instructions
 * (start, push, call, nop1, nop2, restore, jump) in at[], and the window's length. */
static size_t fragment(uint8_t *code, const uint8_t *push, size_t push_len, uint64_t jump_to,
                       uint64_t at[7]) {
  memset(code, 0xcc, 256);
  uint8_t *p = code + (START - BASE);
  static const uint8_t down[] = {0x48, 0x8d, 0x64, 0x24, 0x80};
  static const uint8_t up[] = {0x48, 0x8d, 0xa4, 0x24, 0x88, 0x00, 0x00, 0x00};
  uint64_t a = START;
  at[0] = a, memcpy(p, down, 5), p += 5, a += 5;
  at[1] = a, memcpy(p, push, push_len), p += push_len, a += push_len;
  at[2] = a, p[0] = 0xe8, put32(p + 1, 0x4a5), p += 5, a += 5;
  at[3] = a, memcpy(p, "\x0f\x1f\x80", 3), put32(p + 3, (int64_t)LABEL2 - (int64_t)(a + 3));
  p += 7, a += 7;
  at[4] = a, memcpy(p, "\x0f\x1f\x80", 3), put32(p + 3, (int64_t)LABEL3 - (int64_t)(a + 3));
  p += 7, a += 7;
  at[5] = a, memcpy(p, up, 8), p += 8, a += 8;
  at[6] = a, p[0] = 0xe9, put32(p + 1, (int64_t)jump_to - (int64_t)(a + 5)), p += 5, a += 5;
  return (size_t)(p - code) + 16;
}

/* The stack step, push and call every fragment starts with, at START; their offsets in at[0..2].
 * Returns where the call ends. */
static uint8_t *fragment_head(uint8_t *code, const uint8_t *push, size_t push_len, uint64_t *at) {
  memset(code, 0xcc, 256);
  uint8_t *p = code + (START - BASE);
  static const uint8_t down[] = {0x48, 0x8d, 0x64, 0x24, 0x80};
  uint64_t a = START;
  at[0] = a, memcpy(p, down, 5), p += 5, a += 5;
  at[1] = a, memcpy(p, push, push_len), p += push_len, a += push_len;
  at[2] = a, p[0] = 0xe8, put32(p + 1, 0x4a5);
  return p + 5;
}

/* Today's fragment at START: returns the offsets of its instructions (start, push, call, jump,
 * data) in at[], and the window's length. */
static size_t fragment3(uint8_t *code, const uint8_t *push, size_t push_len, uint64_t label2,
                        uint64_t label3, uint64_t at[5]) {
  uint8_t *p = fragment_head(code, push, push_len, at);
  uint64_t a = at[2] + 5;
  at[3] = a, p[0] = 0xe9, put32(p + 1, (int64_t)label3 - (int64_t)(a + 5)), p += 5, a += 5;
  at[4] = a, p[0] = 0x3d, put32(p + 1, (int64_t)label2 - (int64_t)(a + 1)), p += 5;
  return (size_t)(p - code) + 16;
}

/* The fragment of the passes before it (trampolines numbered 2) at START: returns the offsets of
 * its instructions (start, push, call, data) in at[], and the window's length. */
static size_t fragment2(uint8_t *code, const uint8_t *push, size_t push_len, uint64_t label2,
                        uint64_t label3, uint64_t at[4]) {
  uint8_t *p = fragment_head(code, push, push_len, at);
  uint64_t a = at[2] + 5;
  at[3] = a, p[0] = 0x48, p[1] = 0xb8;
  put32(p + 2, (int64_t)label2 - (int64_t)(a + 2));
  put32(p + 6, (int64_t)label3 - (int64_t)(a + 6));
  p += 10;
  return (size_t)(p - code) + 16;
}

static void expect(const char *what, const uint8_t *code, size_t len, uint64_t pc, int exact,
                   int match, uint64_t want_pc, uint64_t want_sp) {
  uint64_t fn_pc = 0, sp = 0;
  int got = ct_flush_fragment_at(code, BASE, len, pc, exact, &fn_pc, &sp);
  if (got != match || (match && (fn_pc != want_pc || sp != want_sp))) {
    printf("FAIL %s (pc %#llx, %s): got %d %#llx +%llu, want %d %#llx +%llu\n", what,
           (unsigned long long)pc, exact ? "exact" : "return address", got,
           (unsigned long long)fn_pc, (unsigned long long)sp, match, (unsigned long long)want_pc,
           (unsigned long long)want_sp);
    failures++;
  }
}

/* The stops a fragment of the two newer forms has before its trampoline is called (the record
 * not written, the function at label 2), and positions in it that are no stop: inside the
 * call, and the start and the call as return addresses. */
static void before_call(const char *n, const uint8_t *code, size_t len, const uint64_t *at) {
  expect(n, code, len, at[0], 1, 1, LABEL2, 0);
  expect(n, code, len, at[1], 1, 1, LABEL2, 128);
  expect(n, code, len, at[2], 1, 1, LABEL2, 136);
}

static void no_stops(const char *n, const uint8_t *code, size_t len, const uint64_t *at) {
  expect(n, code, len, at[2] + 1, 1, 0, 0, 0);
  expect(n, code, len, at[0], 0, 0, 0, 0);
  expect(n, code, len, at[2], 0, 0, 0, 0);
}

int main(void) {
  static const struct {
    const char *name;
    uint8_t bytes[5];
    size_t len;
  } pushes[] = {{"push %rax", {0x50}, 1},
                {"push %r13", {0x41, 0x55}, 2},
                {"push $0xd", {0x6a, 0x0d}, 2},
                {"push $0x12345", {0x68, 0x45, 0x23, 0x01, 0x00}, 5}};
  uint8_t code[256];
  uint64_t at[7];
  for (size_t i = 0; i < sizeof pushes / sizeof pushes[0]; i++) {
    size_t len = fragment(code, pushes[i].bytes, pushes[i].len, LABEL3, at);
    const char *n = pushes[i].name;
    /* before the trampoline returned: the record not written, the function at label 2 */
    expect(n, code, len, at[0], 1, 1, LABEL2, 0);
    expect(n, code, len, at[1], 1, 1, LABEL2, 128);
    expect(n, code, len, at[2], 1, 1, LABEL2, 136);
    /* after: the record written, at label 3 */
    expect(n, code, len, at[5], 1, 1, LABEL3, 136);
    expect(n, code, len, at[6], 1, 1, LABEL3, 0);
    /* the trampoline's return address, as pushed and as it rewrites it: its caller's stack
     * pointer is already the function's (the trampoline's CFA) */
    expect(n, code, len, at[3], 0, 1, LABEL3, 0);
    expect(n, code, len, at[5], 0, 1, LABEL3, 0);
    /* inside an instruction, or a return address where no call returns: not a fragment stop */
    expect(n, code, len, at[2] + 1, 1, 0, 0, 0);
    expect(n, code, len, at[0], 0, 0, 0, 0);
    expect(n, code, len, at[6], 0, 0, 0, 0);
    /* the window ends before the jump: not recognised, nothing read past it */
    expect(n, code, (size_t)(at[6] - BASE), at[2], 1, 0, 0, 0);
  }
  for (size_t i = 0; i < sizeof pushes / sizeof pushes[0]; i++) {
    size_t len = fragment2(code, pushes[i].bytes, pushes[i].len, LABEL2, LABEL3, at);
    const char *n = pushes[i].name;
    before_call(n, code, len, at);
    /* the trampoline's return address before it writes label 3 there: its caller's stack
     * pointer is already the function's (the trampoline's CFA) */
    expect(n, code, len, at[3], 0, 1, LABEL3, 0);
    /* never run, inside an instruction, or a return address where no call returns */
    expect(n, code, len, at[3], 1, 0, 0, 0);
    no_stops(n, code, len, at);
    /* the window ends inside the data: not recognised, nothing read past it */
    expect(n, code, (size_t)(at[3] + 9 - BASE), at[2], 1, 0, 0, 0);
    expect(n, code, (size_t)(at[3] + 9 - BASE), at[3], 0, 0, 0, 0);
  }
  for (size_t i = 0; i < sizeof pushes / sizeof pushes[0]; i++) {
    size_t len = fragment3(code, pushes[i].bytes, pushes[i].len, LABEL2, LABEL3, at);
    const char *n = pushes[i].name;
    before_call(n, code, len, at);
    /* at the jump after the trampoline returned: the record written, the stack the function's */
    expect(n, code, len, at[3], 1, 1, LABEL3, 0);
    /* the trampoline's return address (before it writes label 3 there, or once it put the
     * fragment's back): its caller's stack pointer is already the function's */
    expect(n, code, len, at[3], 0, 1, LABEL3, 0);
    /* never run, inside an instruction, or a return address where no call returns */
    expect(n, code, len, at[4], 1, 0, 0, 0);
    no_stops(n, code, len, at);
    expect(n, code, len, at[4], 0, 0, 0, 0);
    /* the window ends inside the data: not recognised, nothing read past it */
    expect(n, code, (size_t)(at[4] + 4 - BASE), at[2], 1, 0, 0, 0);
    expect(n, code, (size_t)(at[4] + 4 - BASE), at[3], 0, 0, 0, 0);
  }
  /* labels out of order, too far apart, or inside the fragment: ordinary code, in both forms
   * that carry them as data */
  static const uint64_t bad[][2] = {{LABEL3, LABEL2}, {LABEL2, LABEL2 + 65}, {START, START + 8}};
  for (int form = 2; form <= 3; form++)
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
      size_t len = (form == 3 ? fragment3 : fragment2)(code, pushes[0].bytes, 1, bad[k][0],
                                                       bad[k][1], at);
      for (int j = 0; j < form + 2; j++) {
        expect("bad labels", code, len, at[j], 1, 0, 0, 0);
        expect("bad labels", code, len, at[j], 0, 0, 0, 0);
      }
    }
  /* a jump elsewhere than the second no-op's label 3: ordinary code, not a fragment */
  size_t len = fragment(code, pushes[0].bytes, 1, LABEL3 + 1, at);
  for (int k = 0; k < 7; k++) expect("wrong jump", code, len, at[k], 1, 0, 0, 0);
  /* no position in other code matches */
  memset(code, 0x90, sizeof code);
  for (uint64_t pc = BASE; pc < BASE + sizeof code; pc++)
    expect("nops", code, sizeof code, pc, 1, 0, 0, 0);
  if (failures) return 1;
  printf("flush fragments (all three forms): all positions recognised, none falsely\n");
  return 0;
}
