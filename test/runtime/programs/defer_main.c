/*
 * defer_main.c - deferred calls (-fplugin-arg-crashtrail-defer-calls=1) into another module.
 * main calls lib_step (a function of the linked library, so of another module once both are
 * instrumented) and local_step (hidden, of this module) argv[1] times each, and lib_twice
 * (exported under a symbol version, defer_lib.c) every fifth time from a function it calls
 * through a pointer, then crashes (a NULL write). (The pointer call's target matters: a call
 * whose callee is not found is taken for a call into code without records, which takes no
 * callbacks sitting on an invocation waiting in a pointer call.) Calls of lib_step and lib_twice write a stamped mark while stamping is on; calls of
 * local_step never do.
 */
#include <stdio.h>
#include <stdlib.h>

int lib_step(int x);
int lib_twice(int x);
__attribute__((visibility("hidden"), noinline)) int local_step(int x) { return x > 7 ? x - 3 : x + 5; }

volatile int *volatile null_ptr;

static __attribute__((noinline)) int call_twice(int x) {
  int r = lib_twice(x);
  return r > 10 ? r - 1 : r + 1;
}
int (*volatile twice_ptr)(int) = call_twice;

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100, s = 0;
  for (int i = 0; i < n; i++) {
    if (i % 3) s += lib_step(i);
    if (i % 5 == 0) s += twice_ptr(i);
    s += local_step(s & 15);
  }
  printf("%d\n", s);
  fflush(stdout);
  *null_ptr = s;
  return 0;
}
