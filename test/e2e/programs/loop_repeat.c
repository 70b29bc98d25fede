/* Loops whose iterations stay on one line: the timeline merges them into one step and counts
 * the loop header's further runs in its "repeat" (a step "s2*4" ran once and 4 times more).
 * The pass marks headers for this (CT_BB_LOOP) apart from its check points, which sit on the
 * loops' latches. search() finds 5 at index 4: its condition runs 5 times; sum_to(7) tests
 * its condition 8 times, the first merged into the loop's own initialisation on that line.
 * At -O2 sum_to has no loop left and search's loop spans its own line and the return's.
 *
 * crashtrail-e2e
 * signal: SIGSEGV
 * expect-O0: m0 m1 s1 s2*4 s3 m1 m2 u1 u2*8 u3 m2 m3 m4
 * expect-O2: m1 s2 s3 m2 u2 u3 m3 m4
 * stack: main
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static int search(const int *v, int n, int key) {
  int i = 0;                                          //@s1
  while (i < n && v[i] != key) i++;                   //@s2
  return i; }                                         //@s3

__attribute__((noinline)) static int sum_to(int n) {
  int s = 0;                                          //@u1
  for (int i = 0; i < n; i++) s += i * i;             //@u2
  return s; }                                         //@u3

int main(int argc, char **argv) {
  int v[8] = {3, 1, 4, 1, 5, 9, 2, 6};                //@m0
  int at = search(v, 8, argc > 1 ? atoi(argv[1]) : 5);  //@m1
  int s = sum_to(at + 3);                             //@m2
  printf("%d %d\n", at, s);                           //@m3
  if (s > 10) *(volatile int *)0 = s;                 //@m4
  return 0; }
