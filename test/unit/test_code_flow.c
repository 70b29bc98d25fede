/*
 * test_code_flow.c - ct_flow_bridge (postmortem/code_flow.c) on real machine code: the start of
 * Lua 5.4's luaD_precall as crashtrail's pass and clang 14 -O2 built it (fidelity matrix,
 * 2026-11-26), where a kill landed in a gap of the path accumulator's location list, and on
 * small sequences built to break each rule.
 *
 * The bytes are luaD_precall's [0x3ad40, 0x3ae1b):
 *   3ad54 mov $0x8,%eax             3ad60 movzbl 0x8(%rbp),%ecx (the switch, `retry:`)
 *   3ad6a je 3adcf (LUA_VLCL)       3ad7e add %rax,%rax ... 3adb0 call luaD_tryfuncTM
 *   3adb8 mov $0xe,%eax; jmp 3ad60  3adbf call __crashtrail_refill_here; ...; jmp 3ad92
 *   3adcf mov 0x0(%rbp),%rcx ... (loads; rcx, rdx, r13, r12, r15 written, rax not)
 *   3adfa jle 3b087 (outside)       3ae00 lea 0x2(,%rax,4),%rcx (the case's code, sunk)
 * Its location list for __crashtrail_path: [3ad59,3adaa) RAX, [3adaa,3adbf) a constant,
 * [3adbf,3adcf) RAX, [3ae08,3ae1f) an expression on RCX; nothing covers [3adcf,3ae08).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "code_flow.h"

static const uint8_t precall[] = {
    0x55, 0x41, 0x57, 0x41, 0x56, 0x41, 0x55, 0x41, 0x54, 0x53, 0x50, 0x41,
    0x89, 0xd6, 0x48, 0x89, 0xf5, 0x48, 0x89, 0xfb, 0xb8, 0x08, 0x00, 0x00,
    0x00, 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00, 0x0f, 0xb6, 0x4d, 0x08,
    0x83, 0xe1, 0x3f, 0x83, 0xf9, 0x06, 0x74, 0x63, 0x83, 0xf9, 0x16, 0x0f,
    0x84, 0xb6, 0x01, 0x00, 0x00, 0x83, 0xf9, 0x26, 0x0f, 0x84, 0x9b, 0x01,
    0x00, 0x00, 0x48, 0x01, 0xc0, 0x64, 0x48, 0x8b, 0x0c, 0x25, 0xc0, 0xff,
    0xff, 0xff, 0xf7, 0xc1, 0xff, 0x3f, 0x00, 0x00, 0x74, 0x2d, 0x48, 0xc7,
    0x01, 0xd0, 0x36, 0x08, 0x00, 0x48, 0x89, 0x41, 0x08, 0x48, 0x83, 0xc1,
    0x10, 0x64, 0x48, 0x89, 0x0c, 0x25, 0xc0, 0xff, 0xff, 0xff, 0x48, 0x89,
    0xdf, 0x48, 0x89, 0xee, 0xe8, 0xcb, 0xed, 0xff, 0xff, 0x48, 0x89, 0xc5,
    0xb8, 0x0e, 0x00, 0x00, 0x00, 0xeb, 0xa1, 0xe8, 0x7c, 0xba, 0xfc, 0xff,
    0x64, 0x48, 0x8b, 0x0c, 0x25, 0xc0, 0xff, 0xff, 0xff, 0xeb, 0xc3, 0x48,
    0x8b, 0x4d, 0x00, 0x48, 0x8b, 0x51, 0x18, 0x4c, 0x8b, 0x6b, 0x10, 0x48,
    0x8b, 0x4b, 0x28, 0x4c, 0x29, 0xe9, 0x49, 0x29, 0xed, 0x49, 0xc1, 0xed,
    0x04, 0x44, 0x0f, 0xb6, 0x62, 0x0a, 0x44, 0x0f, 0xb6, 0x7a, 0x0c, 0x48,
    0xc1, 0xf9, 0x04, 0x4c, 0x39, 0xf9, 0x0f, 0x8e, 0x87, 0x02, 0x00, 0x00,
    0x48, 0x8d, 0x0c, 0x85, 0x02, 0x00, 0x00, 0x00, 0x49, 0xc1, 0xe7, 0x04,
    0x49, 0x01, 0xef, 0x49, 0x83, 0xc7, 0x10, 0x48, 0x8b, 0x43, 0x20, 0x48,
    0x8b, 0x40, 0x18,
};

struct range {
  uint64_t lo, hi;
  struct ct_flow_loc loc;
};

struct cover {
  const struct range *r;
  size_t n;
};

static struct ct_flow_loc cover_at(void *ctx, uint64_t addr) {
  const struct cover *c = ctx;
  for (size_t i = 0; i < c->n; i++)
    if (addr >= c->r[i].lo && addr < c->r[i].hi) return c->r[i].loc;
  return (struct ct_flow_loc){CT_FLOW_NONE, 0, 0};
}

static int failures;

/* The result must be want (0: bridged, -1: not) and, when bridged, the covered instruction
 * want_from. */
static void check(const char *what, int got, int want, uint64_t from, uint64_t want_from) {
  if (got != want || (want >= 0 && from != want_from)) {
    printf("FAIL %s: %d (want %d), from %#llx (want %#llx)\n", what, got, want,
           (unsigned long long)from, (unsigned long long)want_from);
    failures++;
  } else {
    printf("ok   %s\n", what);
  }
}

/* The file's other bytes: one jump table at `at`. */
struct table {
  uint64_t at;
  const uint8_t *bytes;
  size_t len;
};

static const uint8_t *table_bytes(void *ctx, uint64_t addr, size_t len) {
  const struct table *t = ctx;
  if (!t || addr < t->at || addr - t->at > t->len || len > t->len - (addr - t->at)) return NULL;
  return t->bytes + (addr - t->at);
}

static int bridge_with(const uint8_t *bytes, size_t len, uint64_t lo, uint64_t pc,
                       const struct range *r, size_t n, const struct table *t, uint64_t *from) {
  struct ct_code_view code = {bytes, lo, lo + len, t ? table_bytes : NULL, (void *)t};
  struct cover c = {r, n};
  *from = 0;
  return ct_flow_bridge(&code, pc, cover_at, &c, from);
}

static int bridge(const uint8_t *bytes, size_t len, uint64_t lo, uint64_t pc,
                  const struct range *r, size_t n, uint64_t *from) {
  return bridge_with(bytes, len, lo, pc, r, n, NULL, from);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))
/* Evaluates the call before reading `from` (an argument list has no order). */
#define expect(what, call, want, from, want_from)                                            \
  do {                                                                                       \
    int got_ = (call);                                                                       \
    check(what, got_, want, from, want_from);                                                \
  } while (0)

int main(void) {
  enum { OK = 0, LO = 0x3ad40 };
  /* Descriptions as dwarf_expr.c gives them: an identity and the registers they read. */
  const struct ct_flow_loc RAX = {CT_FLOW_VALUE, 0xa0, 1u << 0}, /* DW_OP_reg0 */
      RCX = {CT_FLOW_VALUE, 0xa2, 1u << 2},                      /* DW_OP_reg2 */
      RCX_SHL1 = {CT_FLOW_VALUE, 0xb2, 1u << 2}, /* DW_OP_breg2 0, DW_OP_lit1, DW_OP_shl, ... */
      OTHER = {CT_FLOW_OTHER, 0, 0},             /* DW_OP_fbreg -8: a stack slot */
      LIT14 = {CT_FLOW_VALUE, 14, 0}, LIT9 = {CT_FLOW_VALUE, 9, 0};
  uint64_t from;
  const struct range real[] = {{0x3ad59, 0x3adaa, RAX}, {0x3adaa, 0x3adbf, OTHER},
                               {0x3adbf, 0x3adcf, RAX}, {0x3ae08, 0x3ae1f, OTHER}};
  /* The kill of the fidelity matrix: the only way into 0x3ae00 is from the switch's `je`
   * (3ad6a, RAX) through loads that leave RAX alone. The entry before the gap in address order
   * ([3adbf,3adcf), a slow path's) is not on the way. */
  expect("luaD_precall gap, bridged to the switch's RAX",
         bridge(precall, sizeof precall, LO, 0x3ae00, real, N(real), &from), OK, from, 0x3ad6a);
  expect("the gap's first instruction too",
         bridge(precall, sizeof precall, LO, 0x3adcf, real, N(real), &from), OK, from, 0x3ad6a);
  /* Had the switch held the accumulator in RCX, the case's loads overwrite it. */
  const struct range in_rcx[] = {{0x3ad59, 0x3adaa, RCX}};
  expect("register written on the way",
         bridge(precall, sizeof precall, LO, 0x3ae00, in_rcx, N(in_rcx), &from), -1, from, 0);
  /* The loop header 3ad60 has two ways in: the entry's fall-through (3ad59) and the `jmp`
   * back from the default case (3adbd). */
  const struct range both_rax[] = {{0x3ad59, 0x3ad60, RAX}, {0x3adbd, 0x3adbf, RAX}};
  expect("two ways in, both RAX",
         bridge(precall, sizeof precall, LO, 0x3ad60, both_rax, N(both_rax), &from), OK, from,
         0x3adbd);
  const struct range differ[] = {{0x3ad59, 0x3ad60, RAX}, {0x3adbd, 0x3adbf, RCX}};
  expect("two ways in, different registers",
         bridge(precall, sizeof precall, LO, 0x3ad60, differ, N(differ), &from), -1, from, 0);
  const struct range one_way[] = {{0x3ad59, 0x3ad60, RAX}};
  /* Uncovered, the back edge leads through `mov $0xe,%eax` (RAX written) and the call. */
  expect("a way through a write and a call",
         bridge(precall, sizeof precall, LO, 0x3ad60, one_way, N(one_way), &from), -1, from, 0);
  /* Right after `call luaD_tryfuncTM` (3adb0), RAX covered before it: the call returns a
   * value in RAX, and a flush-and-call restarts the accumulator. */
  const struct range before_call[] = {{0x3ad92, 0x3adaa, RAX}};
  expect("a way through a call",
         bridge(precall, sizeof precall, LO, 0x3adb5, before_call, N(before_call), &from), -1,
         from, 0);
  /* A record's commit: `mov %rcx,%fs:0xffffffffffffffc0` (3ada1) stores the ring position.
   * After it the accumulator restarts (here `mov $0xe,%eax` follows the call; codegen may put
   * the new value elsewhere), and the value left in RAX is already in the ring. */
  const struct range before_commit[] = {{0x3ad92, 0x3ada1, RAX}};
  expect("a way through a record's commit",
         bridge(precall, sizeof precall, LO, 0x3adaa, before_commit, N(before_commit), &from), -1,
         from, 0);
  expect("the same, stopped before the commit",
         bridge(precall, sizeof precall, LO, 0x3ada1, before_commit, N(before_commit), &from), OK,
         from, 0x3ad9d);
  /* Constants: the accumulator of a record just started (the default case's `lit14` after
   * its call). Every way must end at the same one. */
  const struct range const_ways[] = {{0x3ad59, 0x3ad60, LIT14}, {0x3adbd, 0x3adbf, LIT14}};
  expect("two ways in, the same constant",
         bridge(precall, sizeof precall, LO, 0x3ad60, const_ways, N(const_ways), &from), OK, from,
         0x3adbd);
  const struct range const_differ[] = {{0x3ad59, 0x3ad60, LIT9}, {0x3adbd, 0x3adbf, LIT14}};
  expect("two ways in, different constants",
         bridge(precall, sizeof precall, LO, 0x3ad60, const_differ, N(const_differ), &from), -1,
         from, 0);
  const struct range const_reg[] = {{0x3ad59, 0x3ad60, RAX}, {0x3adbd, 0x3adbf, LIT14}};
  expect("two ways in, a register and a constant",
         bridge(precall, sizeof precall, LO, 0x3ad60, const_reg, N(const_reg), &from), -1, from,
         0);
  /* A constant needs no register left alone: RAX is written on the way, which does not
   * matter (the value is stale at worst, short of the bits codegen sank). */
  const struct range const_then_write[] = {{0x3adb5, 0x3adb8, LIT14}};
  expect("a constant, a register written on the way",
         bridge(precall, sizeof precall, LO, 0x3adbd, const_then_write, N(const_then_write), &from),
         OK, from, 0x3adb5);
  /* A description computed from a register: the register must be left alone, and every way
   * must end at the same description. */
  const struct range expr_written[] = {{0x3ad59, 0x3adaa, RCX_SHL1}};
  expect("an expression on a register written on the way",
         bridge(precall, sizeof precall, LO, 0x3ae00, expr_written, N(expr_written), &from), -1,
         from, 0);
  const struct range expr_kept[] = {{0x3ad59, 0x3adaa, {CT_FLOW_VALUE, 0xb0, 1u << 0}}};
  expect("an expression on a register left alone",
         bridge(precall, sizeof precall, LO, 0x3ae00, expr_kept, N(expr_kept), &from), OK, from,
         0x3ad6a);
  const struct range two_exprs[] = {{0x3ad59, 0x3ad60, {CT_FLOW_VALUE, 0xb0, 1u << 0}},
                                    {0x3adbd, 0x3adbf, RAX}};
  expect("two ways in, two descriptions of one register",
         bridge(precall, sizeof precall, LO, 0x3ad60, two_exprs, N(two_exprs), &from), -1, from, 0);
  expect("a way to the function's entry",
         bridge(precall, sizeof precall, LO, 0x3ad4b, NULL, 0, &from), -1, from, 0);
  const struct range other[] = {{0x3ad59, 0x3adaa, OTHER}};
  expect("a covered instruction not in one register",
         bridge(precall, sizeof precall, LO, 0x3ae00, other, N(other), &from), -1, from, 0);
  expect("a pc inside an instruction",
         bridge(precall, sizeof precall, LO, 0x3ae01, real, N(real), &from), -1, from, 0);
  expect("a pc outside the function",
         bridge(precall, sizeof precall, LO, 0x3ae1b, real, N(real), &from), -1, from, 0);

  /* Runs of nops after a covered instruction: CT_FLOW_MAX uncovered ones are followed. */
  uint8_t nops[2 + CT_FLOW_MAX + 2];
  memset(nops, 0x90, sizeof nops);
  const struct range first_only[] = {{0x1000, 0x1001, RAX}};
  expect("CT_FLOW_MAX uncovered instructions",
         bridge(nops, 2 + CT_FLOW_MAX, 0x1000, 0x1000 + 1 + CT_FLOW_MAX, first_only,
                N(first_only), &from), OK, from, 0x1000);
  const struct range then_other[] = {{0x1000, 0x1001, RAX}, {0x1001, 0x1002, OTHER}};
  expect("a covered instruction not in one register ends the way",
         bridge(nops, 8, 0x1000, 0x1002, then_other, N(then_other), &from), -1, from, 0);
  expect("one more",
         bridge(nops, 3 + CT_FLOW_MAX, 0x1000, 0x1000 + 2 + CT_FLOW_MAX, first_only,
                N(first_only), &from), -1, from, 0);
  /* A loop back to before the pc: on the second way round, the pc's own instruction has run.
   *   1000 nop (RAX)   1001 nop   1002 add $1,%rax (the pc)   1006 jmp 1001 */
  const uint8_t loop[] = {0x90, 0x90, 0x48, 0x83, 0xc0, 0x01, 0xeb, 0xf9};
  expect("a loop through the pc's own write",
         bridge(loop, sizeof loop, 0x1000, 0x1002, first_only, N(first_only), &from), -1, from, 0);
  expect("the same loop, stopped before the write",
         bridge(loop, 2, 0x1000, 0x1001, first_only, N(first_only), &from), OK, from, 0x1000);
  /* An indirect jump without a table (through a function pointer, or a table not found): its
   * targets, should it have any in the function, are unknown. */
  uint8_t table_jump[8] = {0x90, 0x90, 0x90, 0x90, 0xff, 0xe0, 0x90, 0x90}; /* jmp *%rax */
  expect("a function with an indirect jump without a table",
         bridge(table_jump, sizeof table_jump, 0x1000, 0x1002, first_only, N(first_only), &from),
         -1, from, 0);
  table_jump[4] = table_jump[5] = 0x90;
  expect("the same without it",
         bridge(table_jump, sizeof table_jump, 0x1000, 0x1002, first_only, N(first_only), &from),
         OK, from, 0x1000);
  /* A switch through a jump table, clang's PIC shape (assembled with llvm-mc):
   *   1000 nop; cmp $2,%edi; ja 1023; lea 101b(%rip)=1028,%rcx; movslq (%rcx,%rdi,4),%rdx
   *   1011 add %rcx,%rdx; 1014 jmp *%rdx
   *   1016 nop; jmp 1021 (case 0)   1019 mov $1,%eax; jmp 1021 (case 1)   1020 nop (case 2)
   *   1021 nop; ret                 1023 nop; ret (default)
   * with 4-byte entries relative to the table at 1028: -0x12, -0xf, -0x8. */
  const uint8_t jt[] = {0x90, 0x83, 0xff, 0x02, 0x77, 0x1d, 0x48, 0x8d, 0x0d, 0x1b, 0x00, 0x00,
                        0x00, 0x48, 0x63, 0x14, 0xb9, 0x48, 0x01, 0xca, 0xff, 0xe2, 0x90, 0xeb,
                        0x08, 0xb8, 0x01, 0x00, 0x00, 0x00, 0xeb, 0x01, 0x90, 0x90, 0xc3, 0x90,
                        0xc3};
  const uint8_t jt_entries[] = {0xee, 0xff, 0xff, 0xff, 0xf1, 0xff, 0xff, 0xff,
                                0xf8, 0xff, 0xff, 0xff};
  const struct table jt_table = {0x1028, jt_entries, sizeof jt_entries};
  const struct ct_flow_loc RBX = {CT_FLOW_VALUE, 0xa3, 1u << 3};
  const struct range up_to_jump[] = {{0x1000, 0x1016, RBX}};
  expect("a switch's jump table: every case's way back to the jump",
         bridge_with(jt, sizeof jt, 0x1000, 0x1021, up_to_jump, N(up_to_jump), &jt_table, &from),
         OK, from, 0x1014);
  expect("the same without the table's bytes",
         bridge_with(jt, sizeof jt, 0x1000, 0x1021, up_to_jump, N(up_to_jump), NULL, &from), -1,
         from, 0);
  const struct range up_to_jump_rax[] = {{0x1000, 0x1016, RAX}};
  expect("a case writes the register",
         bridge_with(jt, sizeof jt, 0x1000, 0x1021, up_to_jump_rax, N(up_to_jump_rax), &jt_table,
                     &from), -1, from, 0);
  /* An entry that lands on the `movslq` (100d), inside the jump's own pattern: the jump may
   * then be reached with another register. */
  const uint8_t jt_inside[] = {0xee, 0xff, 0xff, 0xff, 0xf1, 0xff, 0xff, 0xff,
                               0xf8, 0xff, 0xff, 0xff, 0xe5, 0xff, 0xff, 0xff};
  const struct table jt_inside_table = {0x1028, jt_inside, sizeof jt_inside};
  expect("a table entry inside the jump's pattern",
         bridge_with(jt, sizeof jt, 0x1000, 0x1021, up_to_jump, N(up_to_jump), &jt_inside_table,
                     &from), -1, from, 0);
  /* The table's base written again between the load and the add (`lea` at 1001 and at 100c):
   * which table the load read is not known. Code [1000, 101a), table at 101c: -4. */
  const uint8_t jt_twice[] = {0x90, 0x48, 0x8d, 0x0d, 0x14, 0x00, 0x00, 0x00, 0x48,
                              0x63, 0x14, 0xb9, 0x48, 0x8d, 0x0d, 0x09, 0x00, 0x00,
                              0x00, 0x48, 0x01, 0xca, 0xff, 0xe2, 0x90, 0xc3};
  const uint8_t jt_twice_entries[] = {0xfc, 0xff, 0xff, 0xff};
  const struct table jt_twice_table = {0x101c, jt_twice_entries, sizeof jt_twice_entries};
  const struct range first_only_rbx[] = {{0x1000, 0x1001, RBX}};
  expect("the table's base written between the load and the add",
         bridge_with(jt_twice, sizeof jt_twice, 0x1000, 0x1001, first_only_rbx,
                     N(first_only_rbx), &jt_twice_table, &from), -1, from, 0);
  /* The table's base hoisted out of the loop (clang keeps it in a register across it):
   *   1000 nop; 1001 lea 1024(%rip),%rbp
   *   1008 movzbl (%rdi),%ecx; cmp $1,%ecx; ja 1020; movslq 0x0(%rbp,%rcx,4),%rcx
   *   1015 add %rbp,%rcx; 1018 jmp *%rcx
   *   101a nop; jmp 101e (case 0)   101d nop (case 1)   101e nop; ret
   *   1020 call *%rax; jmp 1008     table 1024: -0xa, -0x7
   * Every way back from the load meets the `lea` as %rbp's last write (the call keeps %rbp). */
  const uint8_t hoisted[] = {0x90, 0x48, 0x8d, 0x2d, 0x1c, 0x00, 0x00, 0x00, 0x0f, 0xb6, 0x0f,
                             0x83, 0xf9, 0x01, 0x77, 0x10, 0x48, 0x63, 0x4c, 0x8d, 0x00, 0x48,
                             0x01, 0xe9, 0xff, 0xe1, 0x90, 0xeb, 0x01, 0x90, 0x90, 0xc3, 0xff,
                             0xd0, 0xeb, 0xe4};
  const uint8_t hoisted_entries[] = {0xf6, 0xff, 0xff, 0xff, 0xf9, 0xff, 0xff, 0xff};
  const struct table hoisted_table = {0x1024, hoisted_entries, sizeof hoisted_entries};
  const struct range up_to_hoisted[] = {{0x1000, 0x101a, RBX}};
  expect("a table base hoisted out of the loop",
         bridge_with(hoisted, sizeof hoisted, 0x1000, 0x101e, up_to_hoisted, N(up_to_hoisted),
                     &hoisted_table, &from), OK, from, 0x1018);
  /* The same with another `lea` of %rbp on the loop's back edge (1020 lea 1034(%rip),%rbp;
   * jmp 1008; a second table at 1034: -0x1a): which table the jump reads depends on the way. */
  const uint8_t two_bases[] = {0x90, 0x48, 0x8d, 0x2d, 0x24, 0x00, 0x00, 0x00, 0x0f, 0xb6, 0x0f,
                               0x83, 0xf9, 0x01, 0x77, 0x10, 0x48, 0x63, 0x4c, 0x8d, 0x00, 0x48,
                               0x01, 0xe9, 0xff, 0xe1, 0x90, 0xeb, 0x01, 0x90, 0x90, 0xc3, 0x48,
                               0x8d, 0x2d, 0x0d, 0x00, 0x00, 0x00, 0xeb, 0xdf, 0x0f, 0x1f, 0x00};
  const uint8_t two_bases_entries[] = {0xee, 0xff, 0xff, 0xff, 0xf1, 0xff,
                                       0xff, 0xff, 0xe6, 0xff, 0xff, 0xff};
  const struct table two_bases_table = {0x102c, two_bases_entries, sizeof two_bases_entries};
  expect("two tables for one jump, by the way",
         bridge_with(two_bases, sizeof two_bases, 0x1000, 0x101e, up_to_hoisted, N(up_to_hoisted),
                     &two_bases_table, &from), -1, from, 0);
  /* The same with the base in %rsi, which the loop's call may change. */
  const uint8_t hoisted_rsi[] = {0x90, 0x48, 0x8d, 0x35, 0x1c, 0x00, 0x00, 0x00, 0x0f, 0xb6,
                                 0x0f, 0x83, 0xf9, 0x01, 0x77, 0x0f, 0x48, 0x63, 0x0c, 0x8e,
                                 0x48, 0x01, 0xf1, 0xff, 0xe1, 0x90, 0xeb, 0x01, 0x90, 0x90,
                                 0xc3, 0xff, 0xd0, 0xeb, 0xe5, 0x90};
  const uint8_t hoisted_rsi_entries[] = {0xf5, 0xff, 0xff, 0xff, 0xf8, 0xff, 0xff, 0xff};
  const struct table hoisted_rsi_table = {0x1024, hoisted_rsi_entries, sizeof hoisted_rsi_entries};
  const struct range up_to_hoisted_rsi[] = {{0x1000, 0x1019, RBX}};
  expect("a hoisted base in a register a call on the way may change",
         bridge_with(hoisted_rsi, sizeof hoisted_rsi, 0x1000, 0x101d, up_to_hoisted_rsi,
                     N(up_to_hoisted_rsi), &hoisted_rsi_table, &from), -1, from, 0);
  /* A computed goto's dispatch (Lua's `goto *disptab[op]`), 8-byte absolute entries:
   *   1000 nop; lea 1018(%rip),%rax; 1008 jmp *(%rax,%rdi,8)
   *   100b nop; jmp 1013   100e mov $1,%ecx   1013 nop; ret        table 1018: 100b, 100e */
  const uint8_t cg[] = {0x90, 0x48, 0x8d, 0x05, 0x10, 0x00, 0x00, 0x00, 0xff, 0x24, 0xf8,
                        0x90, 0xeb, 0x05, 0xb9, 0x01, 0x00, 0x00, 0x00, 0x90, 0xc3};
  const uint8_t cg_entries[] = {0x0b, 0x10, 0, 0, 0, 0, 0, 0, 0x0e, 0x10, 0, 0, 0, 0, 0, 0};
  const struct table cg_table = {0x1018, cg_entries, sizeof cg_entries};
  const struct range up_to_goto[] = {{0x1000, 0x100b, RBX}};
  expect("a computed goto's table",
         bridge_with(cg, sizeof cg, 0x1000, 0x1013, up_to_goto, N(up_to_goto), &cg_table, &from),
         OK, from, 0x1008);
  /* A table whose bytes name no instruction of the function (a relocated table left zero in
   * the file): nothing is known of the jump's targets. */
  const uint8_t zeros[16] = {0};
  const struct table zero_table = {0x1018, zeros, sizeof zeros};
  /* ... refused as a whole, also where the way into the pc (the jump itself, from its `lea`)
   * does not pass the jump: a target could be anywhere. */
  const struct range first_insn[] = {{0x1000, 0x1001, RBX}};
  expect("a table that names no instruction",
         bridge_with(cg, sizeof cg, 0x1000, 0x1008, first_insn, N(first_insn), &zero_table,
                     &from), -1, from, 0);
  expect("the same with the table",
         bridge_with(cg, sizeof cg, 0x1000, 0x1008, first_insn, N(first_insn), &cg_table, &from),
         OK, from, 0x1000);
  /* A direct jump to the indirect one (100b: `jmp 1008`): the jump is reached without its
   * `lea`, so its table is not known. */
  uint8_t cg_back[sizeof cg];
  memcpy(cg_back, cg, sizeof cg);
  cg_back[0xd] = 0xfa; /* jmp 1013 -> jmp 1008 */
  expect("a direct jump to the indirect jump",
         bridge_with(cg_back, sizeof cg_back, 0x1000, 0x1008, first_insn, N(first_insn),
                     &cg_table, &from), -1, from, 0);
  /* Alignment padding after a jump falls through into the block the jump goes to; nothing
   * leads to the padding, so no way passes it:
   *   1000 nop; 1001 jmp 1008; 1003 nopl 0x0(%rax); 1007 nop; 1008 nop; 1009 ret */
  const uint8_t padded[] = {0x90, 0xeb, 0x05, 0x0f, 0x1f, 0x40, 0x00, 0x90, 0x90, 0xc3};
  expect("padding nothing leads to",
         bridge(padded, sizeof padded, 0x1000, 0x1008, first_only_rbx, N(first_only_rbx), &from),
         OK, from, 0x1000);
  /* The same bytes as code (`mov $1,%ecx` at 1003): code no branch reaches, yet not padding
   * (a landing pad, which the unwinder enters), is not taken for dead. */
  const uint8_t unreached[] = {0x90, 0xeb, 0x05, 0xb9, 0x01, 0x00, 0x00, 0x00, 0x90, 0xc3};
  expect("code nothing leads to",
         bridge(unreached, sizeof unreached, 0x1000, 0x1008, first_only_rbx, N(first_only_rbx),
                &from), -1, from, 0);
  /* Bytes that do not decode to the end of the function. */
  uint8_t junk[4] = {0x90, 0x90, 0x90, 0x0f};
  expect("code that does not decode to its end",
         bridge(junk, sizeof junk, 0x1000, 0x1002, first_only, N(first_only), &from), -1, from, 0);

  /* ct_flow_call_returns: the calls' return addresses, for code without DWARF call sites. */
  struct ct_flow_calls *calls = ct_flow_calls_open();
  uint64_t *rets = NULL;
  struct ct_code_view pc_view = {precall, LO, LO + sizeof precall, NULL, NULL};
  long n = ct_flow_call_returns(calls, &pc_view, &rets);
  if (n != 2 || rets[0] != 0x3adb5 || rets[1] != 0x3adc4) {
    fprintf(stderr, "FAIL: luaD_precall's calls: %ld, want 2 (3adb5, 3adc4)\n", n);
    failures++;
  }
  free(rets);
  /* 1000 call *%rax   1002 nop   1003 call 1009 (rel32 1)   1008 nop   1009 ret */
  const uint8_t two_calls[] = {0xff, 0xd0, 0x90, 0xe8, 0x01, 0x00, 0x00, 0x00, 0x90, 0xc3};
  struct ct_code_view tc_view = {two_calls, 0x1000, 0x1000 + sizeof two_calls, NULL, NULL};
  n = ct_flow_call_returns(calls, &tc_view, &rets);
  if (n != 2 || rets[0] != 0x1002 || rets[1] != 0x1008) {
    fprintf(stderr, "FAIL: an indirect and a direct call: %ld, want 2 (1002, 1008)\n", n);
    failures++;
  }
  free(rets);
  struct ct_code_view junk_view = {junk, 0x1000, 0x1000 + sizeof junk, NULL, NULL};
  n = ct_flow_call_returns(calls, &junk_view, &rets);
  if (n != -1 || rets) {
    fprintf(stderr, "FAIL: calls of code that does not decode: %ld, want -1\n", n);
    failures++;
  }
  ct_flow_calls_close(calls);
  return failures ? 1 : 0;
}
