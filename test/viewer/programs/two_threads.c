/* two_threads.c - a crash in a worker thread after the main thread ran a loop: two lanes in
 * the report, the main thread's steps before the worker's. Both loops call mix(), whose branch
 * is taken every 7th call, so both fold into runs of identical iterations. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done = PTHREAD_COND_INITIALIZER;
static int main_done; /* under lock; waited for, not spun on (a spin would wrap the ring) */
static volatile long total;

static long mix(long x) {
  long y = x * 31;
  if (y % 7 == 0)
    y += 3;
  return y;
}

static void *worker(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  while (!main_done)
    pthread_cond_wait(&done, &lock);
  pthread_mutex_unlock(&lock);
  long sum = 0;
  for (int i = 0; i < 50; i++)
    sum += mix(i);
  volatile int *p = sum > 0 ? NULL : (volatile int *)&total;
  return (void *)(long)*p; /* the crash: p is NULL */
}

int main(void) {
  pthread_t t;
  pthread_setname_np(pthread_self(), "main-loop");
  if (pthread_create(&t, NULL, worker, NULL) != 0) return 1;
  pthread_setname_np(t, "worker");
  for (int i = 0; i < 100; i++)
    total += mix(i);
  pthread_mutex_lock(&lock);
  main_done = 1;
  pthread_cond_signal(&done);
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  return (int)total;
}
