/*
 * tables_threads.c - the execution tables' time grain (built in tables mode).
 *
 *   tables_threads WORKERS MS
 *
 * With WORKERS 0 the main thread runs hot() for MS milliseconds; otherwise WORKERS threads do,
 * all at once, after a barrier that each passes only once it has recorded (so the runtime knows
 * it). Then main faults. hot() runs nowhere else, so with workers every time its blocks' table
 * entries hold was written after the second thread started: rounded to the grain.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static pthread_barrier_t barrier;
static volatile unsigned long sink;
static unsigned ms;

__attribute__((noinline)) static unsigned long hot(unsigned long i) {
  if (i & 1) return i * 3 + 1;
  if (i & 2) return i / 2;
  return i ^ 0x55;
}

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void spin(void) {
  uint64_t end = now_ms() + ms;
  unsigned long x = 7;
  while (now_ms() < end)
    for (int k = 0; k < 1000; k++) x = hot(x + (unsigned long)k);
  sink += x;
}

static void *worker(void *arg) {
  (void)arg;
  pthread_barrier_wait(&barrier);
  spin();
  return NULL;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 0;
  pthread_t t[16];
  ms = argc > 2 ? (unsigned)atoi(argv[2]) : 30;
  if (n > 16) n = 16;
  if (n == 0) spin();
  if (n > 0) pthread_barrier_init(&barrier, NULL, (unsigned)n);
  for (int i = 0; i < n; i++) pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
  *(volatile int *)(uintptr_t)16 = (int)sink;
  return 1;
}
