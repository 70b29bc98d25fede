/*
 * threads8.c - eight threads named ct-w0..ct-w7 wait at a barrier, then all fault at once.
 * Expected: exactly one dump, holding all eight threads; the process dies of SIGSEGV.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define NTHREADS 8

static pthread_barrier_t barrier;
static volatile int sink;

__attribute__((noinline)) static int work(int i) { return i % 3 ? i * 2 : i + 7; }

static void *worker(void *arg) {
  int id = (int)(intptr_t)arg;
  char name[16];
  snprintf(name, sizeof name, "ct-w%d", id);
  pthread_setname_np(pthread_self(), name);
  for (int i = 0; i < 100; i++) sink += work(i + id);
  pthread_barrier_wait(&barrier);
  *(volatile int *)(uintptr_t)(64 + id) = id; /* every thread faults here at the same moment */
  return NULL;
}

int main(void) {
  pthread_t t[NTHREADS];
  pthread_setname_np(pthread_self(), "ct-main");
  pthread_barrier_init(&barrier, NULL, NTHREADS);
  for (int i = 0; i < NTHREADS; i++) pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
  for (int i = 0; i < NTHREADS; i++) pthread_join(t[i], NULL);
  puts("survived");
  return 1;
}
