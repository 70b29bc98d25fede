// A switch gets a prefix-free code per distinct successor, shorter for likelier ones; with a
// profile-like bias (__builtin_expect) the likely case gets the one-bit code.
// RUN: %clang -fplugin=%plugin -O2 -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s

int a(void), b(void), c(void), d(void), e(void);

int dispatch(int op) {
  switch (__builtin_expect(op, 2)) {
  case 0: return a();
  case 1: return b();
  case 2: return c();
  case 3: return d();
  default: return e();
  }
}

// CHECK-LABEL: function dispatch
// The likely successor (case 2, calling c) has the only one-bit code.
// CHECK: block 0 branch{{( -> [0-9]+:[01]+)+}};
// CHECK: call c
