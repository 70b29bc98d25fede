/* The program the dump corpus was made with: loops, a switch, recursion, an inlined helper,
 * two threads, and a crash chosen by argv[1] (segv, fpe, abort, or a dump on request). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <crashtrail/crashtrail.h>

static inline __attribute__((always_inline)) int mix(int a, int b) { return a % 3 ? a * b : a - b; }

static int walk(int depth, int seed) {
  if (depth == 0) return seed;
  switch (seed % 5) {
  case 0: seed += mix(depth, seed); break;
  case 1: seed ^= 7; break;
  case 2: seed = seed * 3 + 1; break;
  default: seed -= depth; break;
  }
  return walk(depth - 1, seed) + 1;
}

static void *worker(void *arg) {
  int n = *(int *)arg, s = 0;
  for (int i = 0; i < n; i++) s += walk(8, i);
  *(int *)arg = s;
  return NULL;
}

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "segv";
  int n = 200, total = 0;
  pthread_t t;
  pthread_create(&t, NULL, worker, &n);
  for (int i = 0; i < 300; i++) total += walk(6, i);
  pthread_join(t, NULL);
  printf("%d %d\n", total, n);
  if (!strcmp(what, "request")) return crashtrail_dump("fuzz corpus") != 0;
  if (!strcmp(what, "abort")) abort();
  if (!strcmp(what, "fpe")) return total / (argc - 2);
  return *(volatile int *)(long)(argc - 2);
}
