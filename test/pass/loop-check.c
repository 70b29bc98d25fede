// A loop header is a check point: the accumulator is flushed only when the next iteration could
// overflow it (icmp ugt against 2^(63-budget) - 1, a 32-bit immediate), not once per iteration.
// RUN: %clang -fplugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s --check-prefix=META

int count_odd(const int *v, int n) {
  int odd = 0;
  for (int i = 0; i < n; i++)
    if (v[i] & 1)
      odd++;
  return odd;
}

// CHECK-LABEL: define{{.*}} @count_odd(
// The flush behind the check is on a cold path of its own:
// CHECK: [[FULL:%[a-z.0-9]+]] = icmp ugt i64 %{{[a-z.0-9]+}}, 2147483647
// CHECK-NEXT: br i1 [[FULL]], label %{{[0-9]+}}, label %{{[0-9]+}}, !prof
// CHECK: ret i32
// META-LABEL: function count_odd
// META: site {{[0-9]+}}: block {{[0-9]+}} (check)
// META: check {{[0-9]+}} branch
