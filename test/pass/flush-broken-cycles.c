// A cycle needs a check point only if the accumulator can go round it without a record
// starting again. A loop whose body calls on every path (the call's flush restarts the record
// each time round) has none, even where its latch is a join and not the block after a call;
// a loop with a path that does not call keeps the latch's check. Likewise a computed-goto
// dispatch: the targets whose handler calls on every way back to the dispatch have no check,
// the others check after adding their code.
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=0 -O2 -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=0 -O0 -c %s -o %t0.o && %crashtrail meta %t0.o | FileCheck %s
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=0 -O2 %s %rt -o %t.exe && %t.exe | FileCheck %s --check-prefix=OUT

#include <stdio.h>

__attribute__((noinline)) void sink(int x) { __asm__ volatile("" : : "r"(x)); }
__attribute__((noinline)) void other(int x) { __asm__ volatile("" : : "r"(x)); }

void both_call(const int *v, int n) {
  for (int i = 0; i < n; i++) {
    if (v[i] & 1) sink(i);
    else other(i);
  }
}

void one_calls(const int *v, int n) {
  for (int i = 0; i < n; i++)
    if (v[i] & 1) sink(1);
}

int run(const unsigned char *code) {
  static void *ops[] = {&&op_add, &&op_out, &&op_end};
  int acc = 0;
  const unsigned char *pc = code;
  goto *ops[*pc++];
op_add:
  acc += *pc++;
  goto *ops[*pc++];
op_out:
  sink(acc);
  goto *ops[*pc++];
op_end:
  return acc;
}

int main(void) {
  int v[64];
  for (int i = 0; i < 64; i++) v[i] = i * 7;
  both_call(v, 64);
  one_calls(v, 64);
  unsigned char prog[200];
  int n = 0;
  for (int i = 0; i < 60; i++) {
    prog[n++] = 0; prog[n++] = (unsigned char)i;
    prog[n++] = 1;
  }
  prog[n++] = 2;
  printf("run %d\n", run(prog));
  return 0;
}

// The latch of both_call is the join after either call: no check. one_calls' latch checks.
// CHECK-LABEL: function both_call
// CHECK-NOT: check
// CHECK-LABEL: function one_calls
// CHECK: check {{[1-9]}}
// The dispatch's targets: op_add goes straight back to the dispatch and checks; op_out calls
// sink on its way back, and op_end returns: no check on either.
// CHECK-LABEL: function run
// CHECK: check {{[1-9]}} jump
// CHECK-NOT: check
// CHECK: call sink
// CHECK-NOT: check
// CHECK-LABEL: function main
// OUT: run 1770
