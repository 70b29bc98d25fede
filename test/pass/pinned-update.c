// A branch's bit combined with the accumulator before the branch (acc = acc << 1 | cond)
// passes through an empty asm with side effects, so codegen cannot sink the update below the
// branch, past a crash in a successor, where DWARF would then have no location for the
// accumulator (docs/fidelity.md, limit U). At -O0 the accumulator lives in its stack slot,
// described everywhere: no asm there. The program still computes the same result.
// RUN: %clang -fplugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O0 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=O0
// RUN: %clang -fplugin=%plugin -O2 -mllvm -crashtrail-pin-updates=0 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=OFF
// RUN: %clang -fplugin=%plugin -O2 %s %rt -o %t.exe && %t.exe | FileCheck %s --check-prefix=OUT
#include <stdio.h>

__attribute__((noinline)) int g(int *p, int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    if (p[i] & 1) s += p[i];
    else s -= 1;
  return s;
}

int main(void) {
  int v[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  printf("%d\n", g(v, 10));
  return 0;
}
// CHECK-LABEL: define{{.*}} i32 @g(
// CHECK: [[BIT:%[^ ]+]] = zext i1 {{.*}} to i64
// CHECK: [[NEW:%[^ ]+]] = or i64 {{.*}}[[BIT]]
// CHECK: call i64 asm sideeffect "", "=r,0"(i64 [[NEW]])
// O0-NOT: asm sideeffect
// OFF-NOT: asm sideeffect
// OUT: 20
