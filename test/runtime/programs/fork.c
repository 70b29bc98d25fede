/*
 * fork.c - a parent with a second thread (ct-pworker) forks; the child does its own work and
 * crashes; the parent reports how the child died and goes on.
 *
 * stdout: "child PID", then "child-status SIG CORE" (the signal and core flag the parent saw),
 * then "parent done". Expected: one dump, under the child's pid, whose crashed thread ran
 * child_work and never parent_after; the parent exits 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;
static pthread_barrier_t ready;

__attribute__((noinline)) static int parent_before(int i) { return i * 3 + 1; }
__attribute__((noinline)) static int child_work(int i) { return i % 2 ? i : -i; }
__attribute__((noinline)) static int parent_after(int i) { return i ^ 5; }

/* Called through a pointer: a record is written before the call with deferred calls too, so
 * the worker has a ring before it blocks (a thread that never recorded has none to keep). */
static int (*volatile before_ptr)(int) = parent_before;

static void *pworker(void *arg) {
  pthread_setname_np(pthread_self(), "ct-pworker");
  for (int i = 0; i < 20; i++) sink += before_ptr(i);
  pthread_barrier_wait(&ready);
  pthread_barrier_wait(&ready); /* until the parent is done with fork */
  return arg;
}

int main(void) {
  pthread_t t;
  int status = 0;
  pthread_setname_np(pthread_self(), "ct-parent");
  pthread_barrier_init(&ready, NULL, 2);
  pthread_create(&t, NULL, pworker, NULL);
  pthread_barrier_wait(&ready);
  for (int i = 0; i < 10; i++) sink += parent_before(i);
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    pthread_setname_np(pthread_self(), "ct-child");
    for (int i = 0; i < 10; i++) sink += child_work(i);
    *(volatile int *)(uintptr_t)24 = 1;
    _exit(1);
  }
  printf("child %d\n", (int)child);
  fflush(stdout);
  for (int i = 0; i < 10; i++) sink += parent_after(i);
  waitpid(child, &status, 0);
  printf("child-status %d %d\n", WIFSIGNALED(status) ? WTERMSIG(status) : -1,
         WIFSIGNALED(status) ? !!WCOREDUMP(status) : 0);
  pthread_barrier_wait(&ready);
  pthread_join(t, NULL);
  puts("parent done");
  return 0;
}
