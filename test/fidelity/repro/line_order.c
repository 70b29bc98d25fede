/* Reproducer (docs/fidelity.md, "lines in machine order"), -O2. A block's lines used to be
 * shown in IR order, the order before code generation; the CPU runs them in machine order:
 *  - check()'s result of name_of() is copied into a callee-saved register right after the
 *    call, by an instruction that carries the call's line: the CPU runs that line, name_of's
 *    lines, the line again, then `if (!s)`; the IR has nothing of the line after the call;
 *  - the instructions of a block are scheduled: the test of `if (!s)` and the call of
 *    complain() and weigh() run in another order than their IR.
 * weigh(NULL) faults on `while (*s)` when k == 7. With the pass's block discriminators and
 * postmortem/line_order.c, the timeline equals the single-stepping oracle, line for line;
 * `crashtrail show --line-order=source` shows the old order, which does not (check.py
 * requires both, so the program keeps exercising the difference).
 *   crashtrail-cc -O2 -gdwarf-4 line_order.c -o lo && CRASHTRAIL_DIR=. ./lo
 *   crashtrail show crashtrail-lo-*.ctd; crashtrail show --line-order=source crashtrail-lo-*.ctd
 */
#include <stdio.h>

static const char *table[4] = {"alpha", "beta", "gamma", "delta"};
static int complaints;

__attribute__((noinline)) static const char *name_of(int k) {
  return k == 7 ? NULL : table[k & 3];
}

__attribute__((noinline)) static void complain(int k) {
  complaints += k;
}

__attribute__((noinline)) static long weigh(const char *s) {
  long w = 0;
  while (*s)
    w = w * 31 + *s++;
  return w;
}

__attribute__((noinline)) static long check(int k) {
  const char *s = name_of(k);
  if (!s)
    complain(k);
  return weigh(s) + k;
}

int main(int argc, char **argv) {
  long sum = 0;
  for (int k = 0; k < 10; k++)
    sum += check(k + argc - 1);
  printf("%ld %d\n", sum, complaints);
  return 0;
}
