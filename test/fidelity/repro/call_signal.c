/* Reproducer (docs/fidelity.md, bug M), -O2: a signal at a call instruction whose flush was
 * written. The pass restarts the accumulator at the after-call site before the call, so at the
 * call DWARF gives that site without bits; the call's record had made the post-mortem's model
 * enter the callee, whose flush (branch-free: elided) it then walked to the return: the
 * timeline showed the callee's lines and the caller's line after the call, while the CPU had
 * not called yet (a stack overflow faults exactly there), and so on the argument's move between
 * the flush and the call. check.py sends SIGSEGV at each instruction after a flush up to its
 * call in visit() (their 2nd arrival) and compares every line since visit() was called with the
 * CPU's. */
#include <stdio.h>

static volatile int seen;

__attribute__((noinline)) static int note(int value) {
  seen += value; /* no branch: its return's record is never written */
  return value & 7;
}

__attribute__((noinline)) static int visit(int n) {
  int sum = 0;
  for (int i = 0; i < n; i++)
    if (i % 3)
      sum += note(i);
  return sum;
}

int main(void) {
  printf("%d\n", visit(30));
  return 0;
}
