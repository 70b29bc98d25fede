// A call in tail position stays a tail call: the optimiser's shared return block is copied
// behind it (as codegen would do), the call ends its block with no continuation (the callee
// takes the frame's place, as with musttail), it is flushed before, and nothing of ours
// follows it, so codegen still makes it a jump. A tail call is stamped when the frame's
// return would be (the function may be entered from another module). A call whose result is
// used keeps its continuation and the return after it (written: notail() may return to code
// without records, test/pass/module-exits.c). A function that returns nothing
// may drop its callee's result and still jump to it (SQLite's pthreadMutexEnter); one whose only
// call is a tail call is a leaf otherwise, so its slow paths are inline assembly and it needs
// no stack (no push and pop around the record).
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=0 -O2 -g -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=0 -O2 -g -S %s -o - | FileCheck %s --check-prefix=ASM
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=0 -O2 -g -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s --check-prefix=META
int lessthan(void *L, int a, int b);
int other(int);
void sink(int);

int compare(void *L, int a, int b, int op) {
  if (a == b) return 1;
  switch (op) {
  case 0: return a < b;
  case 1: return lessthan(L, a, b);
  default: return other(a);
  }
}
int wrapper(int x) { return other(x + 1); }
void vwrap(int x) { if (x) sink(x); }
int notail(int x) { return other(x) + 1; }
void drop(int x) { other(x); }

// CHECK-LABEL: define{{.*}} @compare(
// CHECK: asm sideeffect {{.*}}@__crashtrail_ring_pos
// CHECK: [[R1:%[0-9]+]] = tail call i32 @lessthan(
// CHECK-NOT: __crashtrail
// CHECK: ret i32 [[R1]]
// CHECK: [[R2:%[0-9]+]] = tail call i32 @other(
// CHECK-NOT: __crashtrail
// CHECK: ret i32 [[R2]]
// CHECK-LABEL: define{{.*}} @vwrap(
// CHECK: tail call void @sink(
// CHECK-NOT: __crashtrail
// CHECK: ret void

// ASM-LABEL: compare:
// ASM-DAG: jmp lessthan{{.*}}TAILCALL
// ASM-DAG: jmp other{{.*}}TAILCALL
// ASM-LABEL: wrapper:
// ASM: jmp other{{.*}}TAILCALL
// ASM-LABEL: vwrap:
// ASM: jmp sink{{.*}}TAILCALL
// ASM-LABEL: notail:
// ASM: callq other
// ASM-LABEL: drop:
// ASM-NOT: push
// ASM: movq ${{[0-9]+}}, 8(%r{{[a-z0-9]+}})
// ASM-NOT: push
// ASM: .section .text.unlikely.ct.drop
// ASM: callq{{.*}}__crashtrail_stamped_write_here3
// ASM: .text
// ASM-NOT: push
// ASM: jmp other{{.*}}TAILCALL
// ASM: .cfi_endproc

// META-LABEL: function compare
// META-NOT: site 1
// META: stamped call lessthan;
// META: stamped call other;
// META: stamped return;
// META-LABEL: function wrapper
// META: block 0 stamped call other;
// META-LABEL: function vwrap
// META: stamped call sink;
// META-LABEL: function notail
// META: site 1: block 1 (after-call)
// META: block 0 stamped call other -> 1;
// META: block 1 stamped return;
// META-LABEL: function drop
// META-NOT: site 1
// META: block 0 stamped call other;
