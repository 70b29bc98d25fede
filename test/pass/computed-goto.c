// Computed goto (an interpreter's dispatch): each target gets a code; targets with other
// predecessors receive it through phis. The program still runs correctly.
// RUN: %clang -fplugin=%plugin -O2 -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 %s %rt -o %t.exe && %t.exe | FileCheck %s --check-prefix=OUT
#include <stdio.h>

int run(const unsigned char *code) {
  static void *ops[] = {&&op_inc, &&op_dbl, &&op_halt};
  int acc = 0;
  goto *ops[*code++];
op_inc:
  acc++;
  goto *ops[*code++];
op_dbl:
  acc *= 2;
  goto *ops[*code++];
op_halt:
  return acc;
}

int main(void) {
  const unsigned char prog[] = {0, 0, 1, 0, 1, 2};
  printf("%d\n", run(prog));
  return 0;
}
// CHECK-LABEL: function run
// CHECK: branch -> {{[0-9]+}}:{{[01]+}} -> {{[0-9]+}}:{{[01]+}} -> {{[0-9]+}}:{{[01]+}};
// OUT: 10
