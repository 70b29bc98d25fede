// Experimental (-fplugin-arg-crashtrail-carry-acc=1, -mllvm -crashtrail-carry-acc). A function of
// internal linkage whose every use is a direct call from instrumented code takes its caller's
// accumulator as a last argument and returns it with its result; neither the call nor its
// return writes a record (`logs` too: printf calls nothing back; `outer` too, which writes a
// record of its own before its call through a pointer). One whose tail call writes a record
// (`jump`: it would lose the jump) is left alone, as is one whose address is taken (`cb`) or
// whose result does not fit a register beside the accumulator (`pair`). The callee's entry and the caller's
// continuation are check points where bits can follow; the entry of a function without
// branches (`twice`) needs none. A function called by one that is not carried and may be
// entered where the decoder cannot tell (`halve`, called by the external `api`) is left alone
// too: a record of it could start in any such caller.
// RUN: %clang -fplugin=%plugin -mllvm -crashtrail-carry-acc -O2 -g -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-carry-acc=1 -O2 -g -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 -g -S -emit-llvm %s -o - | FileCheck %s --check-prefix=OFF
// RUN: %clang -fplugin=%plugin -mllvm -crashtrail-carry-acc -O2 -g %s %rt -lpthread -o %t && %t 7 | FileCheck %s --check-prefix=EXE
// RUN: %crashtrail meta %t | FileCheck %s --check-prefix=META
// RUN: %clang -fplugin=%plugin -mllvm -crashtrail-carry-acc -O2 -g -S -emit-llvm %s -o - | FileCheck %s --check-prefix=ENTRY
#include <stdio.h>
#include <stdlib.h>
struct two { long a, b; };
static volatile int hits;
__attribute__((noinline)) static int clampi(int x, int lo, int hi) {
  if (x < lo) { hits++; return lo; }
  if (x > hi) { hits += 2; return hi; }
  return x;
}
__attribute__((noinline)) static int twice(int x) { return 2 * x; }
__attribute__((noinline)) static void logs(int x) { if (x > 3) printf("big %d\n", x); }
__attribute__((noinline)) static int cb(int x) { return x > 0 ? x : -x; }
__attribute__((noinline)) static struct two pair(long x) { struct two t = {x, x > 2 ? x : 0}; return t; }
int (*volatile fp)(int) = cb;
__attribute__((noinline)) static void outer(int x) { if (x) hits += fp(x); }
__attribute__((noinline)) static int jump(int x) { return fp(x + 1); }
__attribute__((noinline)) static int halve(int x) { return x > 1 ? x / 2 : x; }
__attribute__((noinline)) int api(int x) { return halve(x) + 1; }

int main(int argc, char **argv) {
  int x = argc > 1 ? atoi(argv[1]) : 0, s = 0;
  for (int i = 0; i < x; i++) s += clampi(i * 3, 2, 9) + twice(i);
  logs(s);
  outer(x);
  hits += api(x);
  struct two t = pair(x);
  printf("%d %d %ld %d\n", s, fp(-x), t.a + t.b, jump(x));
  return 0;
}

// CHECK-LABEL: define internal i32 @cb(i32
// CHECK-LABEL: define{{.*}} i32 @main(
// CHECK-DAG: call fastcc { i32, i64 } @clampi(i32 {{.*}}, i64 %
// CHECK-DAG: extractvalue { i32, i64 } %{{.*}}, 1
// CHECK-DAG: call fastcc { i32, i64 } @twice(i32 {{.*}}, i64 %
// CHECK-DAG: call fastcc i64 @logs(i32 {{.*}}, i64 %
// CHECK-DAG: call fastcc i64 @outer(i32 {{.*}}, i64 %
// CHECK-DAG: call fastcc i32 @jump(i32
// CHECK-DAG: call fastcc { i64, i64 } @pair(i64
// CHECK: define internal fastcc { i32, i64 } @clampi(i32 {{.*}}, i64 %[[CIN:[0-9]+]])
// CHECK-SAME: #[[CARRY:[0-9]+]]
// CHECK: icmp ugt i64 %[[CIN]],
// CHECK: ret { i32, i64 }
// CHECK: define internal fastcc { i32, i64 } @twice(i32 {{.*}}, i64 %[[IN:[0-9]+]])
// CHECK-NOT: icmp
// CHECK: insertvalue { i32, i64 } %{{.*}}, i64 %[[IN]], 1
// CHECK: define internal fastcc i64 @logs(i32 {{.*}}, i64 %[[LIN:[0-9]+]])
// CHECK: icmp ugt i64 %[[LIN]],
// CHECK: define internal fastcc i64 @outer(i32 {{.*}}, i64 %[[OIN:[0-9]+]])
// CHECK: icmp ugt i64 %[[OIN]],
// CHECK: __crashtrail_stamped_write_here3
// CHECK-LABEL: define internal fastcc i32 @jump(i32
// CHECK: attributes #[[CARRY]] = {{.*}}"crashtrail-carries-acc"

// ENTRY-DAG: define internal {{.*}}i32 @halve(i32 {{[^,]*}}) {{.*}}{
// ENTRY-DAG: call {{.*}}i32 @halve(i32 {{[^,]*}})

// OFF-NOT: crashtrail-carries-acc
// OFF: call fastcc i32 @clampi(
// OFF-NOT: crashtrail-carries-acc

// EXE: big 89
// EXE: 89 7 14 8

// META: function main (main)
// META-NOT: carries
// META: carried-call logs ->
// META: carried-call clampi ->
// META: function clampi (clampi) {{.*}}, carries its caller's accumulator
// META-NEXT: site 0: block 0 (entry)
// META: function outer (outer) {{.*}}, carries its caller's accumulator
