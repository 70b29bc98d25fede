/*
 * exited.c - a thread named ct-gone does some work and exits; then the main thread crashes.
 * Expected: the dump still holds ct-gone's ring, marked exited.
 *
 * With argument "many": eight threads ct-t0..ct-t7 run one after the other, each exiting
 * before the next starts (run with CRASHTRAIL_KEEP_EXITED=2 to see rings reused).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
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

static void *numbered(void *arg) {
  char name[16];
  snprintf(name, sizeof name, "ct-t%d", (int)(intptr_t)arg);
  pthread_setname_np(pthread_self(), name);
  for (int i = 0; i < 20; i++) sink += gone_work(i);
  return NULL;
}

int main(int argc, char **argv) {
  pthread_t t;
  pthread_setname_np(pthread_self(), "ct-main");
  if (argc > 1 && !strcmp(argv[1], "many")) {
    for (int i = 0; i < 8; i++) {
      pthread_create(&t, NULL, numbered, (void *)(intptr_t)i);
      pthread_join(t, NULL);
    }
  } else {
    pthread_create(&t, NULL, gone, NULL);
    pthread_join(t, NULL);
  }
  *(volatile int *)(uintptr_t)8 = 1;
  return 1;
}
