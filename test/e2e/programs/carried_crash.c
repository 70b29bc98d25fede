/* A crash inside a function that carries its caller's accumulator (the pass's experimental
 * -crashtrail-carry-acc): walk and pick are local functions called directly, so they take the
 * accumulator from their caller and return it, and printf calls nothing back: nothing is
 * recorded before the crash. The whole path is the crashed frame's unfinished accumulator,
 * which started at main's entry; the post-mortem walks it from there through the carried
 * calls and returns of walk and pick, to pick's faulting line. At -O0 nothing is carried.
 *
 * crashtrail-e2e
 * pass-option: -crashtrail-carry-acc
 * signal: SIGSEGV
 * expect-O0: m0 m1 m2 w0 w1 w2 w1 w2 p1 p2 p3 w2 w1 w3 m2 m3 w0 w1 w2 w1 w2 p1 p2 p3 w2 w1 w2 w1 w2 p1 p2 p3 w2 w1 w2 w1 w2 p1
 * expect-O2: m0 m1 m2 w1 w2 w1 w2 p1 p2 p3 w2 w1 w3 m2 m3 w1 w2 w1 w2 p1 p2 p3 w2 w1 w2 w1 w2 p1 p2 p3 w2 w1 w2 w1 w2 p1
 * expect-O2@19: m1 m2 w1 w2 w1 w2 p1 p2 p3 w2 w1 w3 m2 m3 w1 w2 w1 w2 p1 p2 p3 w2 w1 w2 w1 w2 p1 p2 p3 w2 w1 w2 w1 w2 p1
 * stack: pick walk main
 */
#include <stdio.h>
#include <stdlib.h>

static volatile int hits;

__attribute__((noinline)) static int pick(const int *p, int k) {
  if (k > 3) { hits++; return p[k]; }                 //@p1
  if (k < 0) { hits += 2; return -1; }                //@p2
  return 0; }                                         //@p3

__attribute__((noinline)) static int walk(const int *p, int n) {
  int s = 0;                                          //@w0
  for (int i = 0; i < n; i++)                         //@w1
    if (i & 1) s += pick(p, i);                       //@w2
  return s; }                                         //@w3

int main(int argc, char **argv) {
  int a[8] = {1, 2, 3, 4, 5, 6, 7, 8};                //@m0
  int n = argc > 1 ? atoi(argv[1]) : 6;               //@m1
  printf("%d\n", walk(a, 2));                         //@m2
  printf("%d\n", walk((const int *)16, n));           //@m3
  return 0; }
