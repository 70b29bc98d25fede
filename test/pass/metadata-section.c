// The metadata section is not allocated (costs no memory at run time), survives linking and
// --gc-sections, and goes to the debug file with objcopy --only-keep-debug.
// RUN: %clang -fplugin=%plugin -O1 -ffunction-sections -c %s -o %t.o
// RUN: %clang %t.o %rt -Wl,--gc-sections -o %t.exe
// RUN: llvm-readelf -S %t.exe | FileCheck %s
// RUN: objcopy --only-keep-debug %t.exe %t.debug && llvm-readelf -S %t.debug | FileCheck %s
// RUN: %crashtrail meta %t.exe | FileCheck %s --check-prefix=META

__attribute__((noinline)) int used(int x) { return x > 3 ? x : 3; }
int unused(int x) { return x < 3 ? x : 3; }
int main(int argc, char **argv) { return used(argc) - 3; }

// CHECK: .debug_crashtrail PROGBITS 0000000000000000 {{[0-9a-f]+}} {{[0-9a-f]+}} 00 0 0 1
// META: function used (used) at 0x{{[1-9a-f][0-9a-f]*}}
// META-NOT: function unused
// META: function main
// Compressed debug sections (ld --compress-debug-sections=zlib) are read too.
// RUN: %clang %t.o %rt -Wl,--gc-sections -Wl,--compress-debug-sections=zlib -o %t.z.exe
// RUN: llvm-readelf -S %t.z.exe | FileCheck %s --check-prefix=COMPRESSED
// RUN: %crashtrail meta %t.z.exe | FileCheck %s --check-prefix=META
// COMPRESSED: .debug_crashtrail PROGBITS 0000000000000000 {{[0-9a-f]+}} {{[0-9a-f]+}} 00 C 0 0
