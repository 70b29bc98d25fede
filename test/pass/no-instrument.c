// __attribute__((no_instrument_function)) opts a function out (through the frontend plugin,
// which turns it into an annotation the IR pass sees); so does disable_sanitizer_instrumentation.
// RUN: %clang -fplugin=%plugin -O1 -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s
// RUN: %clang -fplugin=%plugin -O1 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=IR

__attribute__((no_instrument_function)) int quiet(int x) { return x ? x * 2 : 1; }
__attribute__((disable_sanitizer_instrumentation)) int quieter(int x) { return x ? x * 3 : 2; }
int loud(int x) { return x > 2 ? quiet(x) : quieter(x); }

// CHECK-NOT: function quiet
// CHECK: function loud
// CHECK-NOT: function quiet
// IR-LABEL: define{{.*}} @quiet(
// IR-NOT: __crashtrail
// IR: ret i32
