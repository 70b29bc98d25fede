// A function that calls nothing stays a leaf: a flush's slow path is a fragment in a cold
// section that steps over the red zone before it calls the module's trampoline (SlowPathAsm),
// so the function needs no aligned stack and no frame (a push and a pop, or a frame for
// spills, on every run). The trampoline realigns the stack itself, and its call-frame
// information returns to the flush's end with the frame's stack pointer.
// RUN: %clang -fplugin=%plugin -O2 -S %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 %s %rt -o %t && %clang -O2 %s -o %t.plain
// RUN: %t.plain 300000 > %t.want && %t 300000 | diff - %t.want
// With slow paths inline (computed record ids: -flto, basic block sections) a leaf's slow
// paths call the refill stub from inline assembly that steps over the red zone (and says so
// to the unwinder), instead of an IR call; a function that calls something keeps the plain
// call.
// RUN: %clang -fplugin=%plugin -O2 -mllvm -crashtrail-inline-slow-paths -S %s -o - | FileCheck %s --check-prefix=INL
// RUN: %clang -fplugin=%plugin -O2 -mllvm -crashtrail-inline-slow-paths -fno-asynchronous-unwind-tables -S %s -o - | FileCheck %s --check-prefix=NOCFI
// RUN: %clang -fplugin=%plugin -O2 -mllvm -crashtrail-inline-slow-paths %s %rt -o %t.inl
// RUN: %t.inl 300000 | diff - %t.want
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long count_odd(const int *v, int n) {
  long odd = 0;
  for (int i = 0; i < n; i++)
    if (v[i] & 1) odd += v[i];
  return odd;
}

struct node { struct node *next; int key; };

// Without its slow paths' calls, no stack at all (a call: push %rax ... pop %rcx on every run).
__attribute__((noinline)) struct node *find(struct node *n, int key) {
  for (; n; n = n->next)
    if (n->key == key) return n;
  return 0;
}

__attribute__((noinline)) long sum_calls(const int *v, int n) {
  long s = 0;
  for (int i = 0; i < n; i++)
    if (v[i] & 2) s += count_odd(v + i, 2);
  return s;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10;
  int *v = malloc(sizeof *v * n);
  for (int i = 0; i < n; i++) v[i] = i * 7 + (i >> 3);
  // Enough records to refill the ring many times from both functions.
  struct node nodes[64];
  for (int i = 0; i < 64; i++) nodes[i] = (struct node){i < 63 ? &nodes[i + 1] : 0, i * 5};
  long found = 0;
  for (int i = 0; i < n; i++) found += find(nodes, i % 400) != 0;
  printf("%ld %ld %ld\n", count_odd(v, n), sum_calls(v, n), found);
  return 0;
}

// The trampoline (module assembly, first in the file) realigns the stack:
// CHECK-LABEL: __crashtrail_write_here3:
// CHECK: andq $-16, %rsp
// CHECK-LABEL: count_odd:
// CHECK-NOT: {{pushq|popq|subq .*%rsp|callq}}
// CHECK: .section .text.unlikely.ct.count_odd
// CHECK-NEXT: .Ltmp{{[0-9]+}}:
// CHECK-NEXT: leaq -128(%rsp), %rsp
// CHECK-NEXT: pushq
// CHECK-NEXT: callq __crashtrail_write_here3
// CHECK-NOT: popq
// CHECK: .cfi_endproc
// CHECK-LABEL: find:
// CHECK-NOT: {{pushq|popq|subq .*%rsp|callq}}
// CHECK: .section .text.unlikely.ct.find
// CHECK-NOT: popq
// CHECK: .cfi_endproc

// INL-LABEL: count_odd:
// INL-NOT: callq
// INL: leaq -128(%rsp), %rsp
// INL-NEXT: .cfi_adjust_cfa_offset 128
// INL-NEXT: callq __crashtrail_refill_here
// INL-NEXT: leaq 128(%rsp), %rsp
// INL-NEXT: .cfi_adjust_cfa_offset -128
// INL: .cfi_endproc
// INL-LABEL: find:
// INL-NOT: {{pushq|popq|subq .*%rsp}}
// INL: leaq -128(%rsp), %rsp
// INL-NOT: {{pushq|popq|subq .*%rsp}}
// INL: .cfi_endproc
// INL-LABEL: sum_calls:
// INL-NOT: leaq -128(%rsp)
// INL: callq __crashtrail_refill_here
// INL: .cfi_endproc
// The stub realigns the stack:
// INL-LABEL: __crashtrail_refill_here:
// INL: andq $-16, %rsp
// NOCFI-LABEL: count_odd:
// NOCFI-NOT: .cfi_adjust_cfa_offset
// NOCFI: leaq -128(%rsp), %rsp
// NOCFI-NEXT: callq __crashtrail_refill_here
// NOCFI-NEXT: leaq 128(%rsp), %rsp
