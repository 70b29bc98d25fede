/*
 * laps.c - rings that wrap many times (run with CRASHTRAIL_RING_KB=32: two chunks). A thread
 * named ct-laps loops, ends with laps_end(1) and exits; the main thread loops, ends with
 * final_a() and laps_end(0), and crashes. Expected: each thread's timeline ends with its own
 * final calls, not with records of an earlier lap that are still in the newest chunk after the
 * write position (the runtime does not clear chunks a live thread starts).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>

static volatile int sink;

__attribute__((noinline)) static int lap_work(int i) { return i & 1 ? i * 3 : i + 7; }
__attribute__((noinline)) static void final_a(void) { sink += 1; }
__attribute__((noinline)) static void laps_end(int x) {
  if (x) sink += 2;
  else sink -= 2;
}

static void *laps(void *arg) {
  pthread_setname_np(pthread_self(), "ct-laps");
  for (int i = 0; i < 100003; i++) sink += lap_work(i);
  laps_end(1);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_setname_np(pthread_self(), "ct-main");
  pthread_create(&t, NULL, laps, NULL);
  pthread_join(t, NULL);
  for (int i = 0; i < 200017; i++) sink += lap_work(i);
  final_a();
  laps_end(0);
  *(volatile int *)(uintptr_t)8 = 1;
  return 1;
}
