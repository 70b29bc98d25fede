// Computed goto (an interpreter's dispatch): each target gets a code; targets with other
// predecessors receive it through phis. The program still runs correctly.
// Shaped like Lua's luaV_execute: the shared dispatch is a loop header whose back-edge check
// is moved onto the handlers it jumps to (so the indirect jump stays one jump), and a handler placed after it in block order is also reached from another
// handler (op_prep falls into op_call) and makes a call, which flushes right after the code
// arrived through a phi: the round trip (test/roundtrip) checks that code is really added.
// RUN: %clang -fplugin=%plugin -O2 -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 %s %rt -o %t.exe && %t.exe | FileCheck %s --check-prefix=OUT
#include <stdio.h>

static volatile int trap;
__attribute__((noinline)) int hook(int v) { return v ^ trap; }
__attribute__((noinline)) int callee(int v) { return v % 7 ? v + 3 : v - 1; }

#define DISPATCH()                                                                           \
  do {                                                                                       \
    if (trap) acc = hook(acc);                                                               \
    goto *ops[*code++];                                                                      \
  } while (0)

int run(const unsigned char *code) {
  static void *ops[] = {&&op_inc, &&op_dbl, &&op_halt, &&op_prep, &&op_call};
  int acc = 0;
  DISPATCH();
op_inc:
  acc++;
  DISPATCH();
op_dbl:
  acc *= 2;
  DISPATCH();
op_prep:
  acc += 5;
  goto op_call;
op_call:
  acc = callee(acc);
  DISPATCH();
op_halt:
  return acc;
}

int main(void) {
  unsigned char prog[64];
  int n = 0;
  for (int i = 0; i < 12; i++) {
    prog[n++] = (unsigned char)(i % 3 == 0 ? 3 : i % 3 == 1 ? 4 : 0);
    prog[n++] = (unsigned char)(i & 1);
  }
  prog[n++] = 2;
  printf("%d\n", run(prog));
  return 0;
}
// CHECK-LABEL: function run
// The dispatch block carries no check (its targets do: see test/roundtrip).
// CHECK: block [[D:[0-9]+]] loop branch -> [[H1:[0-9]+]]:{{[01]+}} -> [[H2:[0-9]+]]:{{[01]+}} -> {{[0-9]+}}:{{[01]+}} -> {{[0-9]+}}:{{[01]+}} -> {{[0-9]+}}:{{[01]+}};
// OUT: {{^[0-9]+$}}
