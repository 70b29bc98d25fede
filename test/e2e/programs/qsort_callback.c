/* A comparator crashes under qsort (uninstrumented code that calls back): its earlier calls
 * returned through qsort, the crashing one is qsort's callback too, not a call its caller made
 * after qsort returned. With deferred calls the records of the comparator's returned calls
 * reach the ring while sort_and_print and main are still in their calls, whose paths are read
 * from the stack; the comparator's entry under the call into qsort is its callback, not the
 * target of the printf after it.
 *
 * crashtrail-e2e
 * signal: SIGSEGV
 * expect-O0: m1 m2 s1 c1 c2 c3 c4 c1 c2 c3 c4 c1 c2 c3 c4 c1 c2 c3 c4 c1 c2 c3 c4 c1 c2 c3 c4 c1 c2
 * expect-O2: m1 m2 s1 c1 c2 c3 c4 c1 c2 c3 c4 c1 c2 c3 c4 c1 c2 c3 c4 c1 c2 c3 c4 c1 c2 c3 c4 c1 c2
 * stack: cmp msort_with_tmp
 */
#include <stdio.h>
#include <stdlib.h>

static int *volatile nowhere;
static int calls;

__attribute__((noinline)) static int cmp(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;                   //@c1
  if (++calls == 7) return *nowhere;                              //@c2
  return (x > y) - (x < y);                                       //@c3
}                                                                 //@c4

__attribute__((noinline)) static void sort_and_print(int *v, int n) {
  if (n > 1) qsort(v, (size_t)n, sizeof *v, cmp);                 //@s1
  printf("%d\n", v[0]);
}

int main(int argc, char **argv) {
  (void)argv;
  int v[8] = {5, 3, 8, 1, 9, 2, 7, argc};                         //@m1
  sort_and_print(v, 8);                                           //@m2
  return 0;
}
