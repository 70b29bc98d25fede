/*
 * stopped_threads.c - the main thread crashes while two workers wait, each inside calls whose
 * callers have branched since their last records: with deferred calls those paths are only in
 * the callers' registers and stack slots, and the dump reads them because the runtime stops
 * every thread for it (CRASHTRAIL_CAPTURE_SIGNAL). Each worker's timeline must be the ring
 * build's, its last step the line it waits on, its stack serve > pick > wait_job.
 * A worker blocks in read(2) on a pipe nobody writes (`ct-reader`, created with every signal
 * blocked, as liblzma creates its workers: the runtime keeps the capture signal deliverable)
 * or spins (`ct-spinner`, interrupted anywhere in its loop).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile int sink;
static volatile int spin_forever = 1;
static int pipe_fds[2];
static sem_t ready;

__attribute__((noinline)) static int leaf(int x) { return x & 1 ? x * 3 : x / 2; }

__attribute__((noinline)) static int wait_job(int spin) {
  char c;
  sem_post(&ready);
  if (spin) {
    while (spin_forever) sink++;
    return 0;
  }
  return (int)read(pipe_fds[0], &c, 1); /* never returns: nobody writes */
}

__attribute__((noinline)) static int pick(int round, int spin) {
  int a = leaf(round);
  if (a > 4) sink += a;
  else sink -= a;
  return round == 5 ? wait_job(spin) : a;
}

__attribute__((noinline)) static void *serve(void *arg) {
  int spin = arg != NULL;
  for (int round = 0; round < 8; round++) {
    if (leaf(round) & 2) sink++;
    if (pick(round, spin) < 0) break;
  }
  return NULL;
}

__attribute__((noinline)) static void crash(int *volatile p, int n) {
  if (n > 2) sink += leaf(n);
  *p = n;
}

int main(void) {
  pthread_t reader, spinner;
  sigset_t all, old;
  if (pipe(pipe_fds) != 0 || sem_init(&ready, 0, 0) != 0) return 2;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_create(&reader, NULL, serve, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  pthread_setname_np(reader, "ct-reader");
  pthread_create(&spinner, NULL, serve, (void *)1);
  pthread_setname_np(spinner, "ct-spinner");
  sem_wait(&ready);
  sem_wait(&ready);
  usleep(20000); /* the reader is in read(2), the spinner in its loop */
  crash(NULL, 3);
  return 0;
}
