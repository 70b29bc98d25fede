// mode=tables adds a last/first-execution entry per block with source lines: a compare with the
// thread's coarse clock, written only when the time has moved on (no cache-line ping-pong).
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-mode=tables -O2 -g -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 -g -S -emit-llvm %s -o - | FileCheck %s --check-prefix=RING
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-mode=tables -O2 -g -c %s -o %t.o
// RUN: llvm-readelf -S %t.o | FileCheck %s --check-prefix=SECTIONS
// Code for an executable reads the clock local-exec (the static runtime defines it there); code
// that may go into a shared object reads it initial-exec, through the GOT.
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-mode=tables -O2 -fPIE -S %s -o - | FileCheck %s --check-prefix=PIE
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-mode=tables -O2 -fno-pic -S %s -o - | FileCheck %s --check-prefix=PIE
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-mode=tables -O2 -fPIC -S %s -o - | FileCheck %s --check-prefix=PIC

int clamp(int x) {
  if (x > 100)
    return 100;
  return x;
}

// CHECK: .pushsection crashtrail_tab,\22aw\22,@nobits
// CHECK: @__crashtrail_tab = external hidden global [{{[0-9]+}} x { i64, i64 }]
// CHECK-LABEL: define{{.*}} @clamp(
// CHECK: load i64, {{.*}}@__crashtrail_now
// CHECK: icmp ult i64
// RING-NOT: __crashtrail_tab
// PIE-LABEL: clamp:
// PIE: movq %fs:__crashtrail_now@TPOFF, %r
// PIE-NOT: GOTTPOFF
// PIC-LABEL: clamp:
// PIC: movq __crashtrail_now@GOTTPOFF(%rip), %r
// The metadata is not allocated (no A flag), the tables take no file space (NOBITS).
// SECTIONS-DAG: .debug_crashtrail PROGBITS 0000000000000000 {{[0-9a-f]+}} {{[0-9a-f]+}} 00 0 0 1
// SECTIONS-DAG: crashtrail_tab NOBITS 0000000000000000 {{[0-9a-f]+}} {{[0-9a-f]+}} 00 WA 0 0 64
