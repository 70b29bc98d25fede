/* A crash inside an inlined function: the step and the stack show the inline chain.
 *
 * crashtrail-e2e
 * signal: SIGSEGV
 * expect-O0: m1 m2 s1 s2 s3 s2 s3 s2 s4 g1
 * expect-O2: m1 m2 s2 s3 s2 s3 s2 g1
 * (get's value goes to a call, so -O2 cannot fold the load into an instruction of s4's line:
 * the faulting instruction stays on g1's line in the line table.)
 * crash-function: get
 * inlined-crash: yes
 * stack: get sum_then_get main
 * locals: b=NULL
 * locals-O0: n=2 s=3
 */
#include <stdio.h>

struct box { int value; };

static inline __attribute__((always_inline)) int get(const struct box *b) {
  return b->value; }                                  //@g1

__attribute__((noinline)) static int twice(int x) { return 2 * x; }

__attribute__((noinline)) static int sum_then_get(const int *v, int n, const struct box *b) {
  int s = 0;                                          //@s1
  for (int i = 0; i < n; i++)                         //@s2
    s += v[i];                                        //@s3
  return s + twice(get(b)); }                         //@s4

int main(int argc, char **argv) {
  int v[2] = {argc, argc + 1};                        //@m1
  printf("%d\n", sum_then_get(v, argc + 1, argc > 5 ? (struct box *)argv : NULL)); //@m2
  return 0; }
