// mode=tables adds a last/first-execution entry per block with source lines. In code that may
// go into a shared object (and with table-maps=0): a compare with the thread's coarse clock,
// written only when the time has moved on (no cache-line ping-pong).
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-mode=tables -fplugin-arg-crashtrail-table-maps=0 -O2 -g -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-mode=tables -fPIC -O2 -g -S -emit-llvm %s -o - | FileCheck %s
// In code for an executable: one store per entry into a per-thread byte map (local-exec TLS),
// which the runtime folds into the table when the thread's clock moves; the unit registers
// table and map in crashtrail_maps (the map's offset from the thread pointer, resolved by the
// static linker).
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-mode=tables -fPIE -O2 -g -S -emit-llvm %s -o - | FileCheck %s --check-prefix=MAP
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-mode=tables -fPIE -O2 -S %s -o - | FileCheck %s --check-prefix=MAPASM
// RUN: %clang -fplugin=%plugin -O2 -g -S -emit-llvm %s -o - | FileCheck %s --check-prefix=RING
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-mode=tables -O2 -g -c %s -o %t.o
// RUN: llvm-readelf -S %t.o | FileCheck %s --check-prefix=SECTIONS
// Code for an executable reads the clock local-exec (the static runtime defines it there); code
// that may go into a shared object reads it initial-exec, through the GOT.
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-mode=tables -fplugin-arg-crashtrail-table-maps=0 -O2 -fPIE -S %s -o - | FileCheck %s --check-prefix=PIE
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-mode=tables -fplugin-arg-crashtrail-table-maps=0 -O2 -fno-pic -S %s -o - | FileCheck %s --check-prefix=PIE
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
// MAP: .pushsection .tbss.crashtrail_map,\22awT\22,@nobits
// MAP: .quad __crashtrail_map@tpoff
// MAP: @__crashtrail_map = external hidden thread_local(localexec) global [{{[0-9]+}} x i8]
// MAP-LABEL: define{{.*}} @clamp(
// MAP-NOT: __crashtrail_now
// MAP: store i8 1, {{.*}}@__crashtrail_map
// MAP-NOT: icmp ult i64
// MAP-LABEL: ret i32
// MAPASM-LABEL: clamp:
// MAPASM: movb $1, %fs:__crashtrail_map@TPOFF
// MAPASM-NOT: __crashtrail_now
// PIE-LABEL: clamp:
// PIE: movq %fs:__crashtrail_now@TPOFF, %r
// PIE-NOT: GOTTPOFF
// PIC-LABEL: clamp:
// PIC: movq __crashtrail_now@GOTTPOFF(%rip), %r
// The metadata is not allocated (no A flag), the tables take no file space (NOBITS).
// SECTIONS-DAG: .debug_crashtrail PROGBITS 0000000000000000 {{[0-9a-f]+}} {{[0-9a-f]+}} 00 0 0 1
// SECTIONS-DAG: crashtrail_tab NOBITS 0000000000000000 {{[0-9a-f]+}} {{[0-9a-f]+}} 00 WA 0 0 64
