// The accumulator's arithmetic is folded where it is known at compile time: after the entry's
// site init, each path through the first branches gives a constant, so the join gets a phi of
// the values each path computed (no `shl i64 1, 1` left by mem2reg, no shift of a phi of
// constants), and codegen loads one constant per incoming edge. The accumulator's debug value
// at the join is rewritten through the inverse of the folded shift, so DWARF still gives its
// exact value there. The program computes the same result, and the round trip and fidelity
// tests decode the same paths.
// RUN: %clang -fplugin=%plugin -O2 -g -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 %s %rt -o %t.exe && %t.exe | FileCheck %s --check-prefix=OUT
#include <stdio.h>

struct span { int *lo, *hi; };

__attribute__((noinline)) int at(struct span *s, int i) {
  int *p;
  if (i > 0) {
    p = s->lo + i;
    if (p >= s->hi) p = 0;
  } else {
    p = s->hi + i;
  }
  if (!p) return -1;
  return *p & 15;
}

int main(void) {
  int v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  struct span s = {v, v + 7}; // hi + i, i <= 0, stays inside v
  int sum = 0;
  for (int i = -3; i < 12; i++) sum += at(&s, i);
  printf("%d\n", sum);
  return 0;
}

// CHECK-LABEL: define{{.*}} i32 @at(
// CHECK-NOT: shl i64 {{[0-9]+}}, {{[0-9]+}}
// CHECK: [[JOIN:%[0-9]+]] = phi i64 [ {{[0-9]+}}, %{{[0-9]+}} ], [ {{[0-9]+}}, %{{[0-9]+}} ]
// CHECK-NOT: shl i64 [[JOIN]]
// CHECK: {{call void @llvm.dbg.value\(metadata |#dbg_value\(}}i64 [[JOIN]], {{(metadata )?}}![[ACC:[0-9]+]], {{(metadata )?}}!DIExpression(DW_OP_constu, 1, DW_OP_shr, DW_OP_stack_value)
// CHECK: or i64 [[JOIN]], 1
// CHECK-LABEL: define{{.*}} i32 @main(
// CHECK: ![[ACC]] = !DILocalVariable(name: "__crashtrail_path"
// OUT: 48
