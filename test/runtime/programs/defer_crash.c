/*
 * defer_crash.c - a crash three calls deep in code built with deferred calls: main, run and step
 * are each inside a call when step writes through NULL, so none has written its path since its
 * last record; the post-mortem reads their accumulators from the stack. run's loop, the callees
 * each of them finished before the crash (leaf), and step's second leaf call in the last round
 * must all stand where the ring build shows them. A constructor that branches (so writes a
 * record) runs before main: main's frame goes above it (xzdec's main above liblzma's
 * crc64_set_func).
 */
#include <stdio.h>
#include <stdlib.h>

static volatile int sink;
static int verbose;
__attribute__((constructor)) static void setup(void) { verbose = getenv("DEFER_CRASH_VERBOSE") ? 2 : 1; }
__attribute__((noinline)) static int leaf(int x) { return x & 1 ? x * 3 : x / 2; }
__attribute__((noinline)) static void step(int *volatile p, int i, int last) {
  int a = leaf(i);
  if (a > 7) sink += leaf(a);
  if (i == last) p = 0;
  *p = a;
}
__attribute__((noinline)) static void run(int n) {
  int v = 0;
  for (int i = 0; i < n; i++) {
    if (leaf(i) > 2) sink++;
    step(&v, i, n - 1);
  }
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 6;
  if (n > 3 && verbose) puts("many");
  run(n);
  return 0;
}
