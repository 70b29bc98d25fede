/* libworker: the thread that crashes runs here, in a shared object of its own. */
#define _GNU_SOURCE
#include "worker.h"

#include <pthread.h>
#include <stddef.h>

static volatile int salt; /* keeps the loop a loop at -O2 (no closed form) */

void *worker_main(void *arg) {
  struct job *j = arg;                                //@kj
  pthread_setname_np(pthread_self(), "worker");       //@k0
  long sum = 0;                                       //@k1
  for (int i = 0; i < j->n; i++)                      //@k2
    sum += i * j->step + salt;                        //@k3
  return (void *)(long)*j->sink[sum > 1000]; }        //@k4
