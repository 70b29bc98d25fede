/*
 * defer_main.c - deferred calls (-fplugin-arg-crashtrail-defer-calls=1) into another module.
 * main calls lib_step (a function of the linked library, so of another module once both are
 * instrumented) and local_step (hidden, of this module) argv[1] times each, then crashes
 * (a NULL write). Calls of lib_step write a stamped mark while stamping is on; calls of
 * local_step never do.
 */
#include <stdio.h>
#include <stdlib.h>

int lib_step(int x);
__attribute__((visibility("hidden"), noinline)) int local_step(int x) { return x > 7 ? x - 3 : x + 5; }

volatile int *volatile null_ptr;

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100, s = 0;
  for (int i = 0; i < n; i++) {
    if (i % 3) s += lib_step(i);
    s += local_step(s & 15);
  }
  printf("%d\n", s);
  fflush(stdout);
  *null_ptr = s;
  return 0;
}
