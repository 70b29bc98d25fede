/*
 * exited.c - a thread named ct-gone does some work and exits; then the main thread crashes.
 * Expected: the dump still holds ct-gone's ring, marked exited.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) static int gone_work(int i) { return i & 1 ? i * 5 : i - 1; }

static void *gone(void *arg) {
  pthread_setname_np(pthread_self(), "ct-gone");
  for (int i = 0; i < 50; i++) sink += gone_work(i);
  printf("gone-tid %d\n", gettid());
  fflush(stdout);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_setname_np(pthread_self(), "ct-main");
  pthread_create(&t, NULL, gone, NULL);
  pthread_join(t, NULL);
  *(volatile int *)(uintptr_t)8 = 1;
  return 1;
}
