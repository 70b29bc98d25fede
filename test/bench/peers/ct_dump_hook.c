/*
 * ct_dump_hook.c - times crashtrail_dump() at exit, for the dump-time figure.
 *
 * Linked (uninstrumented) into a crashtrail build of a workload. When CT_BENCH_DUMPS=N is set,
 * an atexit handler (registered by a constructor, so it runs before the runtime's destructors,
 * with every ring still live) calls crashtrail_dump() N times and prints one line on stderr:
 *   ct-bench-dump-ms: T1 T2 ... TN
 * and the last dump's path on another:  ct-bench-dump-path: PATH
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "crashtrail/crashtrail.h"

static double ctbNowMs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void ctbDumpAtExit(void) {
  const char *v = getenv("CT_BENCH_DUMPS");
  double ms[64];
  int n = v ? atoi(v) : 0;
  if (n > 64) n = 64;
  for (int i = 0; i < n; i++) {
    double t0 = ctbNowMs();
    int rc = crashtrail_dump("bench");
    ms[i] = rc == 0 ? ctbNowMs() - t0 : -1.0;
  }
  /* One line, after every dump: the runtime's own messages must not split it. */
  fprintf(stderr, "\nct-bench-dump-ms:");
  for (int i = 0; i < n; i++) fprintf(stderr, " %.3f", ms[i]);
  fprintf(stderr, "\n");
  if (crashtrail_last_dump_path()) fprintf(stderr, "ct-bench-dump-path: %s\n", crashtrail_last_dump_path());
}

__attribute__((constructor)) static void ctbDumpInit(void) {
  if (getenv("CT_BENCH_DUMPS")) atexit(ctbDumpAtExit);
}
