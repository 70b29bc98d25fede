// A trap (__builtin_trap, and the traps of -fsanitize-trap) is flushed like a noreturn call:
// at the trap the accumulator is dead and its location usually gone, so the path to it must
// already be in the ring. Other intrinsics (memcpy here, a debug trap, which returns) cost
// nothing.
// RUN: %clang -fplugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s --check-prefix=META
#include <string.h>

int checked(char *dst, const char *src, int n, int limit) {
  if (n > limit) __builtin_trap();
  memcpy(dst, src, 16);
  if (n < 0) __builtin_debugtrap();
  return n * 2;
}

// CHECK-LABEL: define{{.*}} @checked(
// CHECK: br i1
// CHECK: __crashtrail_ring_pos
// CHECK: call void @llvm.trap()
// META-LABEL: function checked
// META: call llvm.trap
// META-NOT: call llvm.memcpy
// META-NOT: call llvm.debugtrap
