// A flush's slow paths are calls without arguments to per-module preserve_most stubs, so the
// hot code around them keeps its registers. A plain flush tests the ring position against 16383
// (a chunk boundary) and calls __crashtrail_refill_here; a stamped flush tests it against its
// module's chunk mask (16383 with one instrumented module, 0 once stamping is on), so with one
// module it costs no more than a plain one, and calls __crashtrail_stamped_slow_here, then
// writes the record itself with __crashtrail_stamp_or (the runtime's new stamp, or 0) ored into
// its first word, while the fast path stores that word as an immediate. Each stub
// is defined once per ELF module (linkonce_odr, hidden, in a comdat, not instrumented itself)
// and passes the module's ring position and descriptor to the runtime.
// RUN: %clang -fplugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 -S %s -o - | FileCheck %s --check-prefix=ASM
// RUN: %clang -fplugin=%plugin -O2 %s %rt -o %t && env CRASHTRAIL_RING_KB=64 %t | FileCheck %s --check-prefix=OUT
// In a shared object the runtime is another module's: the stubs call it through the GOT,
// bound at load time. Through a lazily bound PLT slot, the dynamic linker's resolver would run
// at the first call and clobber r10, which preserve_most callers keep values in (xz's
// lzma_decode; e2e.shlib_regs).
// RUN: %clang -fplugin=%plugin -O2 -fPIC -S %s -o - | FileCheck %s --check-prefix=PIC
// RUN: %clang -fplugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=DECL
#include <stdio.h>

extern int ext(int); /* defined below, but called through a pointer: may leave the module */
int (*volatile fp)(int);

__attribute__((noinline)) int work(int x) {
  if (x & 1) x = fp(x);
  return x + 1;
}

// CHECK-LABEL: define{{.*}} i32 @work(
// The stamped flush before the call through fp: the mask, loaded from the descriptor.
// CHECK: load atomic i32, {{.*}}@__crashtrail_module{{.*}} unordered
// CHECK: call preserve_mostcc void @__crashtrail_stamped_slow_here()
// CHECK-NEXT: load {{.*}}@__crashtrail_ring_pos
// CHECK-NEXT: call i64 asm "movq $$(${1:c} - ${2:c}), $0", "=r,i,i"({{.*}}@__crashtrail_module{{.*}}@work
// CHECK-NEXT: load i64, {{.*}}@__crashtrail_stamp_or
// CHECK-NEXT: or i64
// The fast path: the same word as the immediate of a store.
// CHECK: call void asm "movq $$(${1:c} - ${2:c}), $0", "=*m,i,i"({{.*}}@__crashtrail_module{{.*}}@work
// CHECK-NOT: @__crashtrail_ring_refill
// CHECK: ret i32
// CHECK-LABEL: define linkonce_odr hidden preserve_mostcc void @__crashtrail_refill_here()
// CHECK-SAME: comdat
// CHECK-NEXT: call preserve_mostcc void @__crashtrail_ring_refill({{.*}}@__crashtrail_ring_pos, {{.*}}@__crashtrail_module
// CHECK-NEXT: ret void
// CHECK-LABEL: define linkonce_odr hidden preserve_mostcc void @__crashtrail_stamped_slow_here()
// CHECK-SAME: comdat
// CHECK-NEXT: call preserve_mostcc void @__crashtrail_stamped_slow({{.*}}@__crashtrail_ring_pos, {{.*}}@__crashtrail_module
// CHECK-NEXT: ret void

// In the machine code the stamped flush's fast path is the plain one's, with the mask read
// from memory by the test itself, and no flush site sets up arguments for its slow path.
// ASM-LABEL: work:
// ASM-NOT: __crashtrail_ring_refill
// ASM: testl %{{[a-z0-9]+}}, __crashtrail_module+4(%rip)
// ASM: callq __crashtrail_stamped_slow_here
// ASM-LABEL: __crashtrail_refill_here:
// ASM: __crashtrail_ring_refill

// DECL: declare preserve_mostcc void @__crashtrail_ring_refill({{.*}}) #[[RT:[0-9]+]]
// DECL: declare preserve_mostcc void @__crashtrail_stamped_slow({{.*}}) #[[RT]]
// DECL: attributes #[[RT]] = { {{.*}}nonlazybind
// (With -fPIC every flush here is stamped: the refill's stub, the same code, is not emitted.)
// PIC-LABEL: __crashtrail_stamped_slow_here:
// PIC: callq *__crashtrail_stamped_slow@GOTPCREL(%rip)

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
