// With a profile (-fprofile-instr-use) the successor codes follow it: the case the training run
// took most gets the only one-bit code, whichever it is.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang -O2 -fprofile-instr-generate=%t/a.profraw %s -o %t/gen
// RUN: %t/gen 3 && llvm-profdata merge %t/a.profraw -o %t/a.profdata
// RUN: %clang -fplugin=%plugin -O2 -fprofile-instr-use=%t/a.profdata -c %s -o %t/use.o
// RUN: %crashtrail meta %t/use.o | FileCheck %s --check-prefix=THREE
// RUN: %t/gen 1 && llvm-profdata merge %t/a.profraw -o %t/b.profdata
// RUN: %clang -fplugin=%plugin -O2 -fprofile-instr-use=%t/b.profdata -c %s -o %t/use1.o
// RUN: %crashtrail meta %t/use1.o | FileCheck %s --check-prefix=ONE
#include <stdlib.h>

__attribute__((noinline)) int op0(int x) { return x + 1; }
__attribute__((noinline)) int op1(int x) { return x * 3; }
__attribute__((noinline)) int op2(int x) { return x - 7; }
__attribute__((noinline)) int op3(int x) { return x ^ 5; }
__attribute__((noinline)) int op4(int x) { return x / 2; }

__attribute__((noinline)) int dispatch(int op, int x) {
  switch (op) {
  case 0: return op0(x);
  case 1: return op1(x);
  case 2: return op2(x);
  case 3: return op3(x);
  default: return op4(x);
  }
}

int main(int argc, char **argv) {
  int hot = argc > 1 ? atoi(argv[1]) : 0, acc = 0;
  for (int i = 0; i < 100000; i++) acc += dispatch(i % 100 == 0 ? i % 5 : hot, i);
  return acc == 42;
}

// The block calling op3 (or op1) is reached by the only one-bit code of the switch.
// THREE-LABEL: function dispatch
// THREE: block 0 branch{{.*}} -> [[HOT:[0-9]+]]:0{{[ ;]}}
// THREE: block [[HOT]] {{.*}}call op3
// ONE-LABEL: function dispatch
// ONE: block 0 branch{{.*}} -> [[HOT:[0-9]+]]:0{{[ ;]}}
// ONE: block [[HOT]] {{.*}}call op1
