/*
 * blocked.c - a worker thread created with every signal blocked (as thread pools do: liblzma's
 * mythread_create fills the mask, then calls pthread_create, whose thread inherits it) faults.
 * A fault whose signal is blocked is not queued: the kernel resets the action to the default,
 * so without the runtime unblocking the fault signals when the thread first records, the
 * process dies with no handler run and no dump.
 * Expected: one dump, the crashed thread ct-blocked, the process dead of SIGSEGV.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) static int work(int i) { return i % 3 ? i * 2 : i + 7; }

static void *worker(void *arg) {
  pthread_setname_np(pthread_self(), "ct-blocked");
  for (int i = 0; i < 100; i++) sink += work(i);
  *(volatile int *)(uintptr_t)(64 + sink % 2) = (int)(intptr_t)arg; /* faults */
  return NULL;
}

int main(void) {
  sigset_t all, old;
  pthread_t t;
  pthread_setname_np(pthread_self(), "ct-main");
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_create(&t, NULL, worker, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_join(t, NULL);
  puts("not reached");
  return 0;
}
