// Indirect calls are recording and stamped (the callee may be anywhere); recursion is just calls.
// RUN: %clang -fplugin=%plugin -O1 -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s

int apply(int (*f)(int), int x) { return f(x) + 1; }
int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }

// CHECK-LABEL: function apply
// CHECK: stamped call (indirect)
// CHECK-LABEL: function fact
// CHECK: call fact
