// Indirect calls are recording and stamped (the callee may be anywhere); recursion is just calls.
// RUN: %clang -fplugin=%plugin -O1 -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s

int apply(int (*f)(int), int x) { return f(x) + 1; }
int fib(int n) { return n <= 1 ? n : fib(n - 1) + fib(n - 2); }

// CHECK-LABEL: function apply
// CHECK: stamped call (indirect)
// CHECK-LABEL: function fib
// CHECK: call fib
