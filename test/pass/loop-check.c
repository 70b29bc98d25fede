// A loop's check point is on its latch (the source of the back edge), or on the header of a loop
// that is one block: the accumulator is flushed only when the next iteration could overflow it
// (icmp ugt against 2^(63-budget) - 1), not once per iteration. Entering a loop whose latch is a
// block of its own costs no check: a search that finds its key at once checks nothing. A limit above 2^31 is
// read from the module's limit table, so the compare takes it as a memory operand, not as a
// 64-bit constant held in a register across the loop.
// RUN: %clang -fplugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 -S %s -o - | FileCheck %s --check-prefix=ASM
// RUN: %clang -fplugin=%plugin -O2 -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s --check-prefix=META

int count_odd(const int *v, int n) {
  int odd = 0;
  for (int i = 0; i < n; i++)
    if (v[i] & 1)
      odd++;
  return odd;
}

struct node { int key; struct node *next; };
struct node *find(struct node *p, int key) {
  while (p) {
    if (p->key == key) return p;
    p = p->next;
  }
  return 0;
}

// The table holds 2^(63-D) - 1 at [D]; 2^60 - 1 at [3]:
// CHECK: @__crashtrail_check_limits = linkonce_odr hidden global [64 x i64] [i64 9223372036854775807, i64 4611686018427387903, i64 2305843009213693951, i64 1152921504606846975,
// CHECK-LABEL: define{{.*}} @count_odd(
// The flush behind the check is on a cold path of its own:
// CHECK: [[LIM:%[a-z.0-9]+]] = load i64, {{.*}}@__crashtrail_check_limits, {{.*}}
// CHECK-NEXT: [[FULL:%[a-z.0-9]+]] = icmp ugt i64 %{{[a-z.0-9]+}}, [[LIM]]
// CHECK-NEXT: br i1 [[FULL]], label %{{[0-9]+}}, label %{{[0-9]+}}, !prof
// CHECK: ret i32
// META-LABEL: function count_odd
// META: site {{[0-9]+}}: block {{[0-9]+}} (check)
// META: check {{[1-9]}} loop branch
// The header is flagged for the timeline, and the latch that goes back to it checks:
// META-LABEL: function find
// META: site 1: block [[L:[0-9]+]] (check)
// META: block [[H:[0-9]+]] loop branch
// META: block [[L]] check {{[1-9]}} branch {{.*}}-> [[H]]:
// ASM-LABEL: count_odd:
// ASM-NOT: movabsq
// ASM: cmpq __crashtrail_check_limits+{{[0-9]+}}(%rip), %r{{[a-z0-9]+}}
// ASM-NEXT: ja
// ASM: .cfi_endproc
// In find, the loop's first compare is the key's, and the check comes after it:
// ASM-LABEL: find:
// ASM: cmpl %esi, (%r{{[a-z0-9]+}})
// ASM-NEXT: je
// ASM-NEXT: # %bb
// ASM-NEXT: cmpq __crashtrail_check_limits+{{[0-9]+}}(%rip), %r{{[a-z0-9]+}}
// ASM-NEXT: ja
// ASM: .cfi_endproc
