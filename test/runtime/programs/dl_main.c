/*
 * dl_main.c - dlopen an instrumented library (argv[1]), call it, dlclose it, then crash.
 * Expected: the dump is written and readable; the library is in its module list, marked
 * unloaded, with its rings and its load and unload events.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) static int main_step(int i) { return i + 11; }

int main(int argc, char **argv) {
  void *h;
  int (*lib_work)(int);
  if (argc < 2) return 2;
  h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 3;
  }
  lib_work = (int (*)(int))dlsym(h, "lib_work");
  if (!lib_work) return 4;
  sink += lib_work(20);
  if (dlclose(h) != 0) return 5;
  for (int i = 0; i < 3; i++) sink += main_step(i);
  puts("unloaded; crashing");
  fflush(stdout);
  *(volatile int *)(uintptr_t)32 = 1;
  return 1;
}
