/* Reproducer (docs/fidelity.md, bug M at -O0), -O0: a signal between a call's flush and the
 * call, on the moves of its constant arguments. At -O0 codegen materialises constants and
 * addresses next to their use, after the ring position's store (`movq $0x5,acc; mov $0x5,%edi;
 * lea table(%rip),%rsi; add $4,%rsi; call note`). Bug M's rule knows "between a flush and its
 * call" by the next call return address in DWARF's call-site entries, which clang writes only
 * at -O1 and above; here bug T's rule covers it (a position store at most 32 bytes before the
 * pc, straight-line code between: the newest record is that store's). With T's rule cut back to
 * "the store is the instruction before the pc", 3 of these 5 signals showed note()'s lines as
 * run while the CPU had not called yet. check.py sends SIGSEGV at every instruction after such
 * a flush up to its call (their 2nd arrival) and compares every line since visit() was called
 * with the CPU's. */
#include <stdio.h>

static volatile int seen;
static int table[4];

__attribute__((noinline)) static int note(int value, int *slot) {
  seen += value; /* no branch: its return's record is never written */
  return *slot & 7;
}

__attribute__((noinline)) static int visit(int n) {
  int sum = 0;
  for (int i = 0; i < n; i++)
    if (i % 3)
      sum += note(5, &table[1]);
  return sum;
}

int main(void) {
  printf("%d\n", visit(30));
  return 0;
}
