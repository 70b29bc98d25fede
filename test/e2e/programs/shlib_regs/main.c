/* A library function keeps values in every register across its first record's slow path
 * (libmix, mix.c): what it returns must be what the uninstrumented build prints (before the
 * runtime's entry points were called through the GOT, the first call's lazy binding changed
 * one of its twelve values). It runs in a thread of its own, so that the crashed thread's
 * timeline is main's few lines. Then the library crashes on a NULL pointer.
 *
 * crashtrail-e2e
 * signal: SIGSEGV
 * library: mix.c
 * expect-O0: m1 m2 m3 m4 m5 m6 f1
 * expect-O2: m1 m2 m3 m4 m5 m6 f1
 * stack: first main
 */
#include <pthread.h>
#include <stdio.h>

#include "mix.h"

static unsigned long values[12], result;

static void *run_mix(void *arg) {
  result = mix(values, (int)(long)arg);
  return NULL;
}

int main(int argc, char **argv) {
  pthread_t worker;
  for (int n = 0; n < 12; n++) values[n] = 0x9e3779b97f4a7c15ul * (unsigned long)(n + argc); //@m1
  pthread_create(&worker, NULL, run_mix, (void *)1000l); //@m2
  pthread_join(worker, NULL);                          //@m3
  printf("mix %lx\n", result);                         //@m4
  fflush(stdout);                                      //@m5
  return first(argc > 5 ? &argc : NULL) + (argv[0][0] == 0); } //@m6
