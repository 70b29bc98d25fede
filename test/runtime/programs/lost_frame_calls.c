/*
 * lost_frame_calls.c - a crash in a deferred call of a function whose earlier deferred calls'
 * records the ring no longer holds (runtime test lost_frame_calls): outer calls first, then mid,
 * which calls burn, whose records overwrite first's and the older of its own, then crashes in
 * crash. At the dump outer and mid are suspended in calls with their paths in their
 * accumulators, and outer's first deferred call's callee is lost.
 */
#include <stdlib.h>

static volatile int sink;

/* a branch in each arm's own code (no select): a record per call */
__attribute__((noinline)) static int leaf(int x) {
  if (x % 3) {
    __asm__ volatile("" ::: "memory");
    sink += x;
  } else {
    __asm__ volatile("nop" ::: "memory");
    sink -= x;
  }
  return sink;
}

__attribute__((noinline)) static int first(int x) {
  if (x & 1) {
    __asm__ volatile("" ::: "memory");
    sink ^= x;
  } else {
    __asm__ volatile("nop" ::: "memory");
    sink += 2;
  }
  return sink;
}

__attribute__((noinline)) static void burn(int n) {
  for (int i = 0; i < n; i++) leaf(i);
}

__attribute__((noinline)) static void crash(int x) {
  volatile int *p = (volatile int *)(long)(x - x);
  if (x > 0) *p = 1; /* the crash */
}

__attribute__((noinline)) static void mid(int n) {
  burn(n);
  if (sink & 1) sink++;
  crash(n);
  sink++; /* not a tail call */
}

__attribute__((noinline)) static void outer(int n) {
  if (n > 5) sink++;
  first(n); /* its records are overwritten by burn's */
  mid(n);
  sink++; /* not a tail call */
}

int main(int argc, char **argv) {
  outer(argc > 1 ? atoi(argv[1]) : 100000);
  return 0;
}
