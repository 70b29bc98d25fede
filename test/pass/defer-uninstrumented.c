// With deferred calls, a call to a function that this unit defines but does not instrument
// (no_instrument_function, an ignore list) keeps its record before it: that function is code
// without records, and the instrumented functions it calls back would otherwise look like
// callbacks of the deferred call before it into the C library (roundtrip.deferred's
// foreign-returns.c: plain_caller's calls of counted went to finish's fflush). Calls to
// instrumented functions are still deferred.
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=1 -O2 -c %s -o %t.o
// RUN: %crashtrail meta %t.o | FileCheck %s
#include <stdio.h>

int calls;

__attribute__((noinline)) static int counted(int x) {
  calls += x;
  fflush(stdout);
  return x;
}

__attribute__((noinline)) static int twice(int x) { return x > 3 ? x * 2 : x; }

__attribute__((noinline, no_instrument_function)) int plain_caller(int x) {
  return counted(x) + counted(x + 1);
}

// CHECK-LABEL: function main
// CHECK: deferred-call twice
// CHECK: block {{[0-9]+}} call plain_caller
int main(int argc, char **argv) {
  (void)argv;
  int r = twice(argc);
  r += plain_caller(r);
  printf("%d\n", r);
  return 0;
}
