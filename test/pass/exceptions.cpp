// C++ exceptions: an invoke ends a record; its normal and unwind destinations both start one
// (the landing pad is a site), so the path through a catch is recorded.
// RUN: %clangxx -fplugin=%plugin -O1 -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s
// RUN: %clangxx -fplugin=%plugin -O1 %s %rt -o %t.exe && %t.exe | FileCheck %s --check-prefix=OUT
#include <cstdio>
#include <stdexcept>

__attribute__((noinline)) int risky(int x) {
  if (x > 2) throw std::runtime_error("too big");
  return x;
}

int guarded(int x) {
  try {
    return risky(x);
  } catch (const std::exception &) {
    return -1;
  }
}

int main() { std::printf("%d %d\n", guarded(1), guarded(5)); }

// CHECK-LABEL: function _Z7guardedi (guarded(int))
// CHECK: (landing)
// CHECK: invoke _Z5riskyi
// OUT: 1 -1
