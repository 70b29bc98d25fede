/*
 * dl_main.c - dlopen an instrumented library (argv[1]), call it, dlclose it, twice, then
 * crash. Expected: the dump is written and readable; both loads of the library are in its
 * module list, marked unloaded, with their rings and their load and unload events.
 *
 * argv[2] (optional): how many short-lived threads to run first. Each logs a start and an
 * exit event, so 600 of them overflow the runtime's event log before the library is loaded.
 * argv[3] (optional): how many more calls of lib_work(1) on the second load: each costs two
 * or more stamps (the call through a pointer, lib_work's return), so 40000 wrap the stamps'
 * low 16 bits (every ring of the thread gets a SEQ marker).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int sink;

__attribute__((noinline)) static int main_step(int i) { return i + 11; }

static void *short_lived(void *arg) {
  sink += main_step(1);
  return arg;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  for (int i = 0, n = argc > 2 ? atoi(argv[2]) : 0; i < n; i++) {
    pthread_t t;
    pthread_create(&t, NULL, short_lived, NULL);
    pthread_join(t, NULL);
  }
  for (int k = 0; k < 2; k++) {
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    int (*lib_work)(int);
    if (!h) {
      fprintf(stderr, "dlopen: %s\n", dlerror());
      return 3;
    }
    lib_work = (int (*)(int))dlsym(h, "lib_work");
    if (!lib_work) return 4;
    sink += lib_work(20 + k);
    for (int i = 0, n = k == 1 && argc > 3 ? atoi(argv[3]) : 0; i < n; i++) sink += lib_work(1);
    if (dlclose(h) != 0) return 5;
  }
  for (int i = 0; i < 3; i++) sink += main_step(i);
  puts("unloaded; crashing");
  fflush(stdout);
  *(volatile int *)(uintptr_t)32 = 1;
  return 1;
}
