/* Two threads in two modules: the main thread loops in the executable while a thread running
 * in libworker.so crashes. The crashed thread's steps are all in the library; the main thread
 * has its own lane in the executable.
 *
 * crashtrail-e2e
 * signal: SIGSEGV
 * library: worker.c
 * crashed-thread: worker
 * other-thread: busy-main
 * expect-O0: kj k0 k1 k2 k3 k2 k3 k2 k4
 * expect-O2: k0 k2 k3 k2 k3 k2 k4
 * stack: worker_main
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

#include "worker.h"

static volatile int forever = 1;

int main(int argc, char **argv) {
  pthread_t t;
  static int x;
  struct job j = {argc + 1, 3, {NULL, &x}};
  pthread_setname_np(pthread_self(), "busy-main");
  if (pthread_create(&t, NULL, worker_main, &j) != 0) return 1;
  for (long i = 0; forever; i++)                      //@b1
    if (i == (long)argc << 40) puts(argv[0]);         //@b2
  return 0; }
