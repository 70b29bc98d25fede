// A function that calls nothing stays a leaf: its flushes' slow paths call the refill stub
// from inline assembly that steps over the red zone (and says so to the unwinder), instead of
// an IR call, which would make the function keep the stack 16-byte aligned everywhere (a push
// and a pop, or a frame for spills, on every run). The stub realigns the stack itself. A
// function that calls something keeps the plain call.
// RUN: %clang -fplugin=%plugin -O2 -S %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 -fno-asynchronous-unwind-tables -S %s -o - | FileCheck %s --check-prefix=NOCFI
// RUN: %clang -fplugin=%plugin -O2 %s %rt -o %t && %clang -O2 %s -o %t.plain
// RUN: %t.plain 300000 > %t.want && %t 300000 | diff - %t.want
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

// CHECK-LABEL: count_odd:
// CHECK-NOT: callq
// CHECK: leaq -128(%rsp), %rsp
// CHECK-NEXT: .cfi_adjust_cfa_offset 128
// CHECK-NEXT: callq __crashtrail_refill_here
// CHECK-NEXT: leaq 128(%rsp), %rsp
// CHECK-NEXT: .cfi_adjust_cfa_offset -128
// CHECK: .cfi_endproc
// CHECK-LABEL: find:
// CHECK-NOT: {{pushq|popq|subq .*%rsp}}
// CHECK: leaq -128(%rsp), %rsp
// CHECK-NOT: {{pushq|popq|subq .*%rsp}}
// CHECK: .cfi_endproc
// CHECK-LABEL: sum_calls:
// CHECK-NOT: leaq -128(%rsp)
// CHECK: callq __crashtrail_refill_here
// CHECK: .cfi_endproc
// The stub realigns the stack:
// CHECK-LABEL: __crashtrail_refill_here:
// CHECK: andq $-16, %rsp
// NOCFI-LABEL: count_odd:
// NOCFI-NOT: .cfi_adjust_cfa_offset
// NOCFI: leaq -128(%rsp), %rsp
// NOCFI-NEXT: callq __crashtrail_refill_here
// NOCFI-NEXT: leaq 128(%rsp), %rsp
