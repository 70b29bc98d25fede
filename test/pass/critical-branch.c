// A two-way branch with a critical edge, in an optimised function: the accumulator is shifted
// before the branch and only the edge to the unlikelier side adds the 1 (in a block of its
// own when that edge is critical), whether or not the branch is biased: the likelier path pays
// one instruction. At -O0 an unbiased branch keeps the bit computed before it,
// acc = acc << 1 | zext(cond) (the accumulator lives in its stack slot there). The program
// still computes the same result, and the timeline decodes the same path either way
// (e2e and fidelity tests).
// RUN: %clang -fplugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O0 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=O0
// RUN: %clang -fplugin=%plugin -O2 %s %rt -o %t.exe && %t.exe | FileCheck %s --check-prefix=OUT
#include <stdio.h>

__attribute__((noinline)) int twice(int x) { return 2 * x; }

// `if` without `else`: the edge from the test to the join is critical. (The loop first makes
// the accumulator unknown at the branch; from a site init alone, the shift would be folded
// into constants: acc-fold.c.)
__attribute__((noinline)) int g(const int *p, int y) {
  while (*p > 100) p++;
  int x = *p, r = 0;
  if (x > y) r = twice(x);
  return r + y;
}

int main(void) {
  int v[] = {200, 300, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  int s = 0;
  for (int i = 0; i < 10; i++) s += g(v + i, 5);
  printf("%d\n", s);
  return 0;
}
// CHECK-LABEL: define{{.*}} i32 @g(
// CHECK-NOT: zext i1
// CHECK: [[SHIFTED:%[^ ]+]] = shl i64 {{.*}}, 1
// CHECK-NEXT: br i1
// CHECK-NOT: zext i1
// CHECK: or i64 [[SHIFTED]], 1
// CHECK-LABEL: define{{.*}} i32 @main(
// O0-LABEL: define{{.*}} i32 @g(
// O0: [[BIT:%[^ ]+]] = zext i1 {{.*}} to i64
// O0: or i64 {{.*}}[[BIT]]
// O0-LABEL: define{{.*}} i32 @main(
// OUT: 76
