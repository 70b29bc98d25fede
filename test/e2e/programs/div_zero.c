/* An integer division by zero.
 *
 * crashtrail-e2e
 * signal: SIGFPE
 * expect-O0: m1 m2 a1 a2 a3 a2 a3 a2 a4
 * expect-O2: m1 m2 a2 a3 a2 a3 a2 a4
 * stack: average main
 * locals-O0: n=2 count=0 sum=10
 * locals-O2: count=0
 */
#include <stdio.h>

/* Not static and not inlined: keeps its arguments opaque to the optimiser. */
__attribute__((noinline)) int average(const int *v, int n, int count) {
  int sum = 0;                                        //@a1
  for (int i = 0; i < n; i++)                         //@a2
    sum += v[i];                                      //@a3
  return sum / count; }                               //@a4

int main(int argc, char **argv) {
  int values[2] = {argc * 4, argc * 6};               //@m1
  printf("%d\n", average(values, argc + 1, argc - 1)); //@m2
  return argv[0][0] == 0; }
