/*
 * interposed_main.c - the program of the defer_interposed case: it defines shared_helper as
 * its library does (interposed_lib.c), so the library's calls of shared_helper run this copy,
 * in this module's ring; then it crashes (a NULL write).
 */
#include <stdio.h>
#include <stdlib.h>

int lib_run(int n);

__attribute__((noinline)) int shared_helper(int x) { return x & 1 ? 3 * x + 1 : x / 2; }

volatile int *volatile null_ptr;

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10;
  int s = shared_helper(n) + lib_run(n);
  printf("%d\n", s);
  fflush(stdout);
  *null_ptr = s;
  return 0;
}
