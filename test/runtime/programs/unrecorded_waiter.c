/*
 * unrecorded_waiter.c - the main thread crashes while a second thread, which never ran
 * instrumented code (its start routine opted out, as a library's worker), waits on a
 * condition variable. The thread has no ring and no history; the dump must still hold its
 * registers and stack (thread_capture.c stops every thread /proc/self/task lists).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static volatile int waiting;

__attribute__((noinline, no_instrument_function)) static void *waiter(void *arg) {
  pthread_setname_np(pthread_self(), "ct-waiter");
  pthread_mutex_lock(&lock);
  waiting = 1;
  pthread_cond_wait(&never, &lock); /* never signalled */
  pthread_mutex_unlock(&lock);
  return arg;
}

int main(int argc, char **argv) {
  pthread_t t;
  pthread_setname_np(pthread_self(), "ct-main");
  pthread_create(&t, NULL, waiter, NULL);
  while (!waiting) usleep(1000);
  pthread_mutex_lock(&lock); /* the waiter is inside pthread_cond_wait once this is ours */
  pthread_mutex_unlock(&lock);
  volatile int *p = argc > 5 ? (volatile int *)argv : NULL;
  return *p;
}
