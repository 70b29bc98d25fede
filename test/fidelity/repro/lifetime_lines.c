/* Reproducer (docs/fidelity.md, "lifetime markers"): at -O2 the pass takes source lines from
 * llvm.lifetime.start/end (PlanBuilder.cpp, collectLines skips only debug intrinsics and phis),
 * which emit no machine code. The timeline then shows the declaration `long v;` (line 17) as a
 * step, and the closing brace of total() (line 21) BEFORE its `return` (line 20): steps the CPU
 * never ran, one of them out of order. IntrinsicInst::isAssumeLikeIntrinsic() covers these.
 *   crashtrail-cc -O2 -gdwarf-4 lifetime_lines.c -o ll && CRASHTRAIL_DIR=. ./ll
 *   crashtrail show --format=json crashtrail-ll-*.ctd       (17, and 21 before 20)
 * check.py compares it with the single-stepping oracle. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void fill(long *out, int k) {
  *out = k * 7;
}

__attribute__((noinline)) static long total(int k) {
  long v;
  fill(&v, k);
  v += k;
  return v;
}

int main(int argc, char **argv) {
  (void)argv;
  long t = total(argc);
  printf("%ld\n", t);
  abort();
}
