// Control that leaves instrumented code for code without records and comes back by another
// function's entry: the decoder must tell a callback of the foreign call apart from the next
// function the foreign caller calls, and a frame's return must not be lost in between.
//  - constructors and atexit handlers called one after the other by the C library, each
//    ending with a foreign call and a branch-free return (C++ static initialisers are these);
//  - a function that calls qsort (whose comparator is a callback) and then, branch-free, an
//    external function of its own (whose entry record could be another callback);
//  - a static function reached by a tail call from an external one, whose return leaves for
//    the external one's caller;
//  - a static function called by a function left uninstrumented (no_instrument_function):
//    entered from code without records, twice in a row.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int order[8] = {5, 3, 7, 1, 8, 2, 6, 4};
int calls;

__attribute__((noinline)) int cmp(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

__attribute__((noinline)) void after_sort(int n) {
  calls += n;
  if (calls > 100) puts("many");
}

__attribute__((noinline)) void sort_then_call(int n) {
  qsort(order, n, sizeof order[0], cmp);
  after_sort(n);
}

__attribute__((noinline)) static int finish(int x) {
  fflush(stdout);
  return x + calls;
}

__attribute__((noinline)) int tail_to_static(int x) { return finish(x * 2); }

__attribute__((noinline)) static int counted(int x) {
  calls += x;
  fflush(stdout);
  return x;
}

__attribute__((noinline, no_instrument_function)) int plain_caller(int x) {
  return counted(x) + counted(x + 1);
}

__attribute__((constructor)) static void init_first(void) { setvbuf(stdout, NULL, _IOLBF, 0); }
__attribute__((constructor)) static void init_second(void) { calls = (int)strlen("ab"); fflush(stdout); }

static void at_exit_first(void) { fflush(stdout); }
static void at_exit_second(void) {
  if (calls) fflush(stderr);
}

int main(int argc, char **argv) {
  atexit(at_exit_second);
  atexit(at_exit_first);
  for (int i = 2; i <= 8; i++) sort_then_call(i);
  int r = 0;
  for (int i = 0; i < 3 + argc; i++) r += tail_to_static(i) + plain_caller(i);
  printf("%d %d %d\n", order[0], calls, r);
  (void)argv;
  return 0;
}
