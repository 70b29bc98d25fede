// A flush's two slow paths are calls without arguments to preserve_most functions, so the hot
// code around them keeps its registers: the chunk refill calls the module's own stub
// __crashtrail_refill_here (one definition per ELF module: linkonce_odr, hidden, in a comdat,
// not instrumented itself), which passes the module's ring position and descriptor to the
// runtime's refill; a stamped flush (stamping on: two instrumented modules) calls
// __crashtrail_stamp_next and reads the thread's new stamp back from __crashtrail_stamp.
// RUN: %clang -fplugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 -S %s -o - | FileCheck %s --check-prefix=ASM
// RUN: %clang -fplugin=%plugin -O2 %s %rt -o %t && env CRASHTRAIL_RING_KB=64 %t | FileCheck %s --check-prefix=OUT
#include <stdio.h>

extern int ext(int); /* defined below, but called through a pointer: may leave the module */
int (*volatile fp)(int);

__attribute__((noinline)) int work(int x) {
  if (x & 1) x = fp(x);
  return x + 1;
}

// CHECK-LABEL: define{{.*}} i32 @work(
// CHECK: call preserve_mostcc void @__crashtrail_stamp_next()
// CHECK-NEXT: load i64, {{.*}}@__crashtrail_stamp,
// CHECK: call preserve_mostcc void @__crashtrail_refill_here()
// CHECK-NOT: @__crashtrail_ring_refill
// CHECK: ret i32
// CHECK: declare preserve_mostcc void @__crashtrail_stamp_next()
// CHECK-LABEL: define linkonce_odr hidden preserve_mostcc void @__crashtrail_refill_here()
// CHECK-SAME: comdat
// CHECK-NEXT: call preserve_mostcc void @__crashtrail_ring_refill({{.*}}@__crashtrail_ring_pos, {{.*}}@__crashtrail_module
// CHECK-NEXT: ret void

// In the machine code, no flush site sets up arguments for its slow path: the only calls to
// the refill are the stub's.
// ASM-LABEL: work:
// ASM-NOT: __crashtrail_ring_refill
// ASM: callq __crashtrail_refill_here
// ASM-LABEL: __crashtrail_refill_here:
// ASM: __crashtrail_ring_refill

int ext(int x) { return x * 2; }

int main(void) {
  fp = ext;
  long sum = 0;
  /* 100000 records or more: hundreds of chunk refills through the stub, the ring wraps */
  for (int i = 0; i < 100000; i++) sum += work(i);
  printf("sum %ld\n", sum);
  return 0;
}
// OUT: sum 7500050000
