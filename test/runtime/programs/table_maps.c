/*
 * table_maps.c - tables mode's per-thread byte maps, folded at a thread's exit and at a dump.
 *
 *   table_maps
 *
 * A worker first writes records (its first chunk, so its clock is set), then runs once() one
 * time and exits: once()'s marks are folded into the table only by the worker's exit. Then main
 * runs last() one time and faults at once: last()'s marks reach the table only through the
 * dump's fold. once() and last() run nowhere else. Built with -fplugin-arg-crashtrail-table-maps=0
 * the same entries are written by the per-block compare instead.
 */
#include <pthread.h>
#include <stdint.h>

static volatile int sink;

__attribute__((noinline)) static int warm(int x) {
  if (x & 1) return x * 3;
  return x / 2;
}

__attribute__((noinline)) static int once(int x) {
  if (x > 3) return x * 2;
  return x + 1;
}

__attribute__((noinline)) static int last(int x) {
  if (x & 1) return x - 1;
  return x + 7;
}

static void *worker(void *arg) {
  int x = (int)(intptr_t)arg;
  for (int i = 0; i < 5000; i++) x += warm(x + i);
  sink += x;
  sink += once(x & 15);
  return NULL;
}

int main(int argc, char **argv) {
  (void)argv;
  pthread_t t;
  for (int i = 0; i < 5000; i++) sink += warm(i);
  pthread_create(&t, NULL, worker, (void *)(intptr_t)argc);
  pthread_join(t, NULL);
  sink += last(argc);
  *(volatile int *)(uintptr_t)16 = sink;
  return 1;
}
