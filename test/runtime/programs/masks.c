/*
 * masks.c - a thread blocks every signal after it has recorded, then faults: the masks a
 * program sets later (sigprocmask, pthread_sigmask, a handler's sa_mask) must not block the
 * fault signals, or the kernel kills the process without running any handler.
 *
 *   masks main      the main thread blocks everything with sigprocmask (as a daemon that reads
 *                   its signals from a signalfd does), then faults: SIGSEGV
 *   masks thread    a worker blocks everything with pthread_sigmask(SIG_SETMASK), then faults
 *   masks handler   a SIGUSR1 handler installed with a full sa_mask faults (SIGFPE)
 *   masks lib       an uninstrumented shared library (masks_lib.c) blocks everything, then
 *                   the main thread faults: SIGSEGV
 *   masks api       no fault: prints what the program can observe of the mask functions
 *                   (their results, errno, SIGUSR1 blocked and pending); the output must be
 *                   the same with and without crashtrail
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void masks_block_all(void); /* masks_lib.c */

static volatile int sink;
static volatile int zero;

__attribute__((noinline)) static int work(int i) { return i % 3 ? i * 2 : i + 7; }

__attribute__((noinline)) static void fault(void) {
  *(volatile int *)(uintptr_t)(64 + sink % 2) = 1;
}

static void *worker(void *arg) {
  sigset_t all;
  (void)arg;
  pthread_setname_np(pthread_self(), "ct-masked");
  for (int i = 0; i < 100; i++) sink += work(i);
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, NULL);
  fault();
  return NULL;
}

static void on_usr1(int sig) {
  sink += work(sig);
  sink /= zero; /* SIGFPE while every other signal is blocked */
}

static volatile sig_atomic_t usr1_seen;
static void count_usr1(int sig) { usr1_seen += sig == SIGUSR1; }

static int api(void) {
  sigset_t all, one, cur, pend;
  int rc, err;
  signal(SIGUSR1, count_usr1);
  sigfillset(&all);
  sigemptyset(&one);
  sigaddset(&one, SIGUSR1);
  rc = pthread_sigmask(SIG_BLOCK, &all, NULL);
  pthread_sigmask(SIG_BLOCK, NULL, &cur);
  printf("block all: %d; SIGUSR1 blocked %d, SIGTERM blocked %d\n", rc, sigismember(&cur, SIGUSR1),
         sigismember(&cur, SIGTERM));
  raise(SIGUSR1);
  sigpending(&pend);
  printf("SIGUSR1 pending after raise: %d\n", sigismember(&pend, SIGUSR1));
  errno = 1234;
  rc = pthread_sigmask(12345, &one, NULL);
  printf("pthread_sigmask(bad how): %s, errno kept %d\n", rc == EINVAL ? "EINVAL" : "other",
         errno == 1234);
  errno = 0;
  rc = sigprocmask(12345, &one, NULL);
  err = errno;
  printf("sigprocmask(bad how): %d, errno %s\n", rc, err == EINVAL ? "EINVAL" : "other");
  rc = sigprocmask(SIG_UNBLOCK, &one, &cur);
  printf("unblock SIGUSR1: %d; it was blocked %d; delivered %d\n", rc,
         sigismember(&cur, SIGUSR1), (int)usr1_seen);
  printf("pthread_sigmask(bad old address): %d\n",
         pthread_sigmask(SIG_BLOCK, &one, (sigset_t *)(uintptr_t)8));
  struct sigaction sa, back;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = SIG_IGN;
  sigfillset(&sa.sa_mask);
  rc = sigaction(SIGUSR2, &sa, NULL);
  sigaction(SIGUSR2, NULL, &back);
  printf("sigaction: %d; ignored %d, SIGTERM in sa_mask %d\n", rc, back.sa_handler == SIG_IGN,
         sigismember(&back.sa_mask, SIGTERM));
  errno = 0;
  rc = sigaction(SIGKILL, &sa, NULL);
  printf("sigaction(SIGKILL): %d, errno %s\n", rc, errno == EINVAL ? "EINVAL" : "other");
  return 0;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  pthread_setname_np(pthread_self(), "ct-main");
  for (int i = 0; i < 50; i++) sink += work(i);
  if (!strcmp(mode, "main")) {
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
    fault();
  } else if (!strcmp(mode, "thread")) {
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
  } else if (!strcmp(mode, "handler")) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigfillset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    raise(SIGUSR1);
  } else if (!strcmp(mode, "lib")) {
    masks_block_all();
    fault();
  } else if (!strcmp(mode, "api")) {
    return api();
  } else {
    fprintf(stderr, "usage: masks main|thread|handler|lib|api\n");
    return 2;
  }
  puts("not reached");
  return 0;
}
