// A record's first word names the function by its distance to the module descriptor,
// __crashtrail_module - f: one `movq $imm32, (slot)`, no lea of the function's address and no
// register for it. The assembler resolves the difference against the function's own section
// into a PC-relative relocation to the descriptor, with -ffunction-sections too; a function
// that may be preempted is named through its local alias, like its metadata address. Run, the
// decoder turns the word back into the function (the timeline names f, g and main).
// With basic block sections a function's blocks are in sections of their own, where the
// difference has no relocation: the pass computes the same word there (two leas and a sub).
// RUN: %clang -fplugin=%plugin -O2 -S %s -o - | FileCheck %s --check-prefix=ASM
// RUN: %clang -fplugin=%plugin -O2 -fPIC -S %s -o - | FileCheck %s --check-prefix=PIC
// RUN: %clang -fplugin=%plugin -O2 -ffunction-sections -c %s -o %t.o
// RUN: llvm-objdump -dr %t.o | FileCheck %s --check-prefix=OBJ
// RUN: %clang -fplugin=%plugin -O2 -g %s %rt -o %t && rm -rf %t.d && mkdir %t.d
// RUN: env CRASHTRAIL_DIR=%t.d %t 5 && %crashtrail show %t.d/*.ctd | FileCheck %s --check-prefix=SHOW
// RUN: %clang -fplugin=%plugin -O2 -fbasic-block-sections=all -S %s -o - | FileCheck %s --check-prefix=BBS
// RUN: %clang -fplugin=%plugin -O2 -mllvm -crashtrail-computed-ids -S %s -o - | FileCheck %s --check-prefix=BBS
// RUN: %clang -fplugin=%plugin -O2 -g -fbasic-block-sections=all %s %rt -o %t.bbs
// RUN: rm -rf %t.bd && mkdir %t.bd && env CRASHTRAIL_DIR=%t.bd %t.bbs 5
// RUN: %crashtrail show %t.bd/*.ctd | FileCheck %s --check-prefix=SHOW
#include <stdlib.h>
int crashtrail_dump(const char *reason); /* crashtrail/crashtrail.h */

void left(int), right(int);
__attribute__((noinline)) int g(int x) {
  if (x & 1) left(x); /* calls, so that no LLVM version turns the branch into a select */
  else right(x);
  return x / 2;
}
__attribute__((noinline)) int f(int x) {
  if (x > 3) return g(x) * 3;
  return x;
}
volatile int sink;
__attribute__((noinline)) void left(int x) { sink = x; }
__attribute__((noinline)) void right(int x) { sink = -x; }

int main(int argc, char **argv) {
  int r = f(argc > 1 ? atoi(argv[1]) : 0);
  return crashtrail_dump("record-id") == 0 && r > 0 ? 0 : 1;
}

// ASM-LABEL: g:
// ASM-NOT: leaq g(%rip)
// ASM: movq $__crashtrail_module-g, (%{{[a-z0-9]+}})
// ASM-LABEL: f:
// ASM: movq $__crashtrail_module-f, (%{{[a-z0-9]+}})
// PIC-LABEL: g:
// PIC: movq $__crashtrail_module-g.crashtrail, (%{{[a-z0-9]+}})

// BBS-LABEL: g:
// BBS-NOT: movq $__crashtrail_module-
// BBS: leaq __crashtrail_module(%rip)
// BBS: subq

// OBJ-LABEL: <g>:
// OBJ: movq $0{{(x0)?}}, (%{{[a-z0-9]+}})
// OBJ-NEXT: R_X86_64_PC32 __crashtrail_module+0x

// SHOW: main {{.*}}record-id.c
// SHOW: f {{.*}}record-id.c
// SHOW: g {{.*}}record-id.c
