// Records the decoder can infer are not written. A flush reached only along branch-free paths
// from a site is elided (every flush of leaf() and inner()); one also reachable with path bits
// is written only when the accumulator holds some (outer()'s call to h); the first record of a
// function that may be entered from elsewhere is always written (outer()'s call to g is
// reached from its entry), and so is its way out after a call (outer()'s return: it may return
// to code without records, test/pass/module-exits.c). Elided flushes of calls that may leave
// the module are still written once stamping is on (two instrumented modules).
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=0 -O2 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=0 -O2 -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s --check-prefix=META
int g(int);
int h(int);

__attribute__((noinline)) static int leaf(int x) { return x * 3; }
__attribute__((noinline)) static int inner(int x) { return leaf(x) + leaf(x + 1); }

int outer(int x) {
  if (x > 2) x = g(x);
  return h(x) + inner(x);
}

// outer()'s call to h: a record if the accumulator holds path bits (it is at least
// 2 << site bits) or stamping is on.
// CHECK-LABEL: define{{.*}} i32 @outer(
// CHECK: icmp uge i64 %{{[0-9a-z.]+}}, {{[0-9]+}}
// CHECK: __crashtrail_ring_pos
// inner() and leaf() write no record at all: the decoder walks them from outer()'s call.
// CHECK-LABEL: define internal{{.*}} @inner(
// CHECK-NOT: __crashtrail_ring_pos
// CHECK: ret i32
// CHECK-LABEL: define internal{{.*}} @leaf(
// CHECK-NOT: __crashtrail_ring_pos
// CHECK: ret i32
// META-LABEL: function outer
// META-DAG: stamped call g
// META-DAG: stamped elidable call h
// META-DAG: elidable call inner
// META-DAG: block {{[0-9]+}} stamped return
// META-LABEL: function inner
// META-DAG: elidable call leaf
// META-DAG: elidable return
