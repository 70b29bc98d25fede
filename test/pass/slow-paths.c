// A flush is one inline assembly statement: the chunk test, the record's two stores and the
// position's update inline, its slow path a fragment in a cold section of the function's own
// (.text.unlikely.ct.FUNCTION, in the function's comdat group if it has one), which the kernel
// does not map in with the hot code. The fragment steps over the red zone, pushes the
// accumulator and calls the module's trampoline, which returns to it (the return the call
// predicted); the fragment then jumps to the flush's end. The jump's offset names the flush's
// end, and the `cmp` after it (never run) carries the offset to the end of the record id's
// store (its immediate, the last four bytes before it, is the record's w0). A plain flush
// tests the ring position against 16383 (a chunk boundary) and calls
// __crashtrail_write_here3; a stamped one tests it against its module's chunk mask (16383 with
// one instrumented module, 0 once stamping is on), so with one module it costs no more than a
// plain one, and calls __crashtrail_stamped_write_here3, which with stamping on takes the
// stamp and writes the record itself (the runtime only at a chunk boundary or a wrap of the
// stamp's low 16 bits). The trampolines are defined once per ELF module (hidden, in a
// comdat), keep every general register, and tell unwinders that they return to the flush's
// end with the frame's stack while the runtime runs.
// RUN: %clang -fplugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -O2 -S %s -o - | FileCheck %s --check-prefix=ASM
// RUN: %clang -fplugin=%plugin -O2 %s %rt -o %t && env CRASHTRAIL_RING_KB=64 %t | FileCheck %s --check-prefix=OUT
// In a shared object the runtime is another module's: the trampolines call it through the
// GOT, bound at load time. Through a lazily bound PLT slot, the dynamic linker's resolver would
// run at the first call and clobber r10, which the flushing code may keep values in (xz's
// lzma_decode; e2e.shlib_regs).
// RUN: %clang -fplugin=%plugin -O2 -fPIC -S %s -o - | FileCheck %s --check-prefix=PIC
// The cold fragments are in a section of their own per function, so --gc-sections drops a
// function's with it; the hot code has no call to the runtime.
// RUN: %clang -fplugin=%plugin -O2 -ffunction-sections -c %s -o %t.o
// RUN: llvm-readelf -S %t.o | FileCheck %s --check-prefix=SEC
// RUN: llvm-objdump -d --no-show-raw-insn -j .text.work %t.o | FileCheck %s --check-prefix=HOT
// The old layout (slow paths as cold blocks calling per-module stubs) is still what computed
// record ids use (-flto, basic block sections; record-id.c): its stubs are these.
// RUN: %clang -fplugin=%plugin -O2 -mllvm -crashtrail-inline-slow-paths -S -emit-llvm %s -o - | FileCheck %s --check-prefix=INL
// RUN: %clang -fplugin=%plugin -O2 -mllvm -crashtrail-inline-slow-paths %s %rt -o %t.inl && env CRASHTRAIL_RING_KB=64 %t.inl | FileCheck %s --check-prefix=OUT
#include <stdio.h>

extern int ext(int); /* defined below, but called through a pointer: may leave the module */
int (*volatile fp)(int);

__attribute__((noinline)) int work(int x) {
  if (x & 1) x = fp(x);
  return x + 1;
}

// The trampolines come first (module assembly), each reading the offsets after its return
// address and calling the runtime with the record's id and accumulator.
// ASM-LABEL: __crashtrail_write_here3:
// ASM: .cfi_def_cfa_offset 144
// ASM-NEXT: .cfi_offset %rip, -144
// ASM: pushq %r11
// ASM: pushq %rax
// ASM: movq 56(%rsp), %rax
// ASM-NEXT: movslq 1(%rax), %rcx
// ASM-NEXT: leaq 5(%rax,%rcx), %rcx
// ASM-NEXT: movq %rcx, 56(%rsp)
// ASM-NEXT: movslq 6(%rax), %rdx
// ASM-NEXT: leaq 6(%rax,%rdx), %rdx
// ASM-NEXT: movslq -4(%rdx), %rdx
// ASM-NEXT: movq 64(%rsp), %rcx
// ASM-NOT: __crashtrail_stamp
// ASM: andq $-16, %rsp
// ASM-NEXT: callq *__crashtrail_write_slow@GOTPCREL(%rip)
// ASM: movq %rax, 56(%rsp)
// ASM: popq %r11
// ASM: retq $136
// The stamped one stamps by itself when the module stamps, inside a chunk, with no wrap due
// (the stamp's 64 bits loaded and stored whole: store-to-load forwarding):
// ASM-LABEL: __crashtrail_stamped_write_here3:
// ASM: cmpl $0, __crashtrail_module+4(%rip)
// ASM-NEXT: jne [[SLOW:.L__crashtrail_stamped_write_here3.slow]]
// ASM-NEXT: movq (%rdi), %rsi
// ASM-NEXT: testl $16383, %esi
// ASM-NEXT: je [[SLOW]]
// ASM-NEXT: movq __crashtrail_stamp@GOTTPOFF(%rip), %r11
// ASM-NEXT: movabsq $281474976710656, %rbp
// ASM-NEXT: addq %fs:(%r11), %rbp
// ASM-NEXT: jb [[SLOW]]
// ASM-NEXT: movq %rbp, %fs:(%r11)
// ASM-NEXT: orq %rbp, %rdx
// ASM-NEXT: movq %rdx, (%rsi)
// ASM-NEXT: movq %rcx, 8(%rsi)
// ASM-NEXT: addq $16, %rsi
// ASM-NEXT: movq %rsi, (%rdi)
// ASM-NEXT: jmp [[DONE:.L__crashtrail_stamped_write_here3.done]]
// ASM: [[SLOW]]:
// ASM: callq *__crashtrail_stamped_write_slow@GOTPCREL(%rip)
// ASM: [[DONE]]:
// ASM-NEXT: movq %rax, 56(%rsp)
// ASM: retq $136

// CHECK-LABEL: define{{.*}} i32 @work(
// The stamped flush before the call through fp, its test against the module's mask ($6):
// CHECK: call {{.*}} asm sideeffect "test ${0:k}, $6{{.*}}je 1f{{.*}}movq $$(${4:c} - ${5:c}), ($0)\0A2:{{.*}}movq $3, 8($0){{.*}}addq $$16, $0{{.*}}movq $0, $1\0A3:{{.*}}.pushsection .text.unlikely.ct.work,\22ax\22,@progbits\0A1:{{.*}}leaq -128(%rsp), %rsp{{.*}}pushq $3{{.*}}callq __crashtrail_stamped_write_here3\0A\09.byte 0xe9\0A\09.long 3b - . - 4\0A\09.byte 0x3d\0A\09.long 2b - .\0A\09.popsection", "=r,=*m,0,re,i,i,*m,~{dirflag},~{fpsr},~{flags},~{xmm0}
// CHECK-SAME: @__crashtrail_ring_pos
// CHECK-SAME: @__crashtrail_module, i32 0, i32 1)
// CHECK-NOT: preserve_mostcc
// CHECK: ret i32
// No stubs in the IR:
// CHECK-NOT: define{{.*}} @__crashtrail_refill_here
// CHECK-NOT: define{{.*}} @__crashtrail_stamped_slow_here

// In the machine code the fast path is seven instructions, the slow path in the cold section.
// ASM-LABEL: work:
// ASM: movq %fs:__crashtrail_ring_pos@TPOFF, %[[P:[a-z0-9]+]]
// ASM-NEXT: #APP
// ASM-NEXT: testl %{{[a-z0-9]+}}, __crashtrail_module+4(%rip)
// ASM-NEXT: je [[COLD:\.Ltmp[0-9]+]]
// ASM-NEXT: movq $__crashtrail_module-work, (%[[P]])
// ASM-NEXT: [[L2:\.Ltmp[0-9]+]]:
// ASM-NEXT: movq {{.*}}, 8(%[[P]])
// ASM-NEXT: addq $16, %[[P]]
// ASM-NEXT: movq %[[P]], %fs:__crashtrail_ring_pos@TPOFF
// ASM-NEXT: [[L3:\.Ltmp[0-9]+]]:
// ASM-NEXT: .section .text.unlikely.ct.work,"ax",@progbits
// ASM-NEXT: [[COLD]]:
// ASM-NEXT: leaq -128(%rsp), %rsp
// ASM-NEXT: pushq
// ASM-NEXT: callq __crashtrail_stamped_write_here3
// ASM-NEXT: .byte 233
// ASM-NEXT: [[D3:\.Ltmp[0-9]+]]:
// ASM-NEXT: .long ([[L3]]-[[D3]])-4
// ASM-NEXT: .byte 61
// ASM-NEXT: [[D2:\.Ltmp[0-9]+]]:
// ASM-NEXT: .long [[L2]]-[[D2]]
// ASM-NEXT: .text
// ASM-NOT: __crashtrail_ring_refill
// ASM: .cfi_endproc

// PIC-LABEL: __crashtrail_write_here3:
// PIC: movq __crashtrail_ring_pos@GOTTPOFF(%rip), %rdi
// PIC: callq *__crashtrail_write_slow@GOTPCREL(%rip)
// PIC-LABEL: work:
// PIC: callq __crashtrail_stamped_write_here3

// SEC: .text.work
// SEC: .text.unlikely.ct.work PROGBITS
// HOT-LABEL: <work>:
// HOT-NOT: call{{.*}}crashtrail
// HOT: ret

// INL-LABEL: define{{.*}} i32 @work(
// INL: load atomic i32, {{.*}}@__crashtrail_module{{.*}} unordered
// INL: call preserve_mostcc void @__crashtrail_stamped_slow_here()
// INL-NEXT: load {{.*}}@__crashtrail_ring_pos
// INL-NEXT: call i64 asm "movq $$(${1:c} - ${2:c}), $0", "=r,i,i"({{.*}}@__crashtrail_module{{.*}}@work
// INL-NEXT: load i64, {{.*}}@__crashtrail_stamp_or
// INL-NEXT: or i64
// INL: call void asm "movq $$(${1:c} - ${2:c}), $0", "=*m,i,i"({{.*}}@__crashtrail_module{{.*}}@work
// INL: ret i32
// INL-LABEL: define linkonce_odr hidden preserve_mostcc void @__crashtrail_refill_here()
// INL-SAME: comdat
// INL-NEXT: call preserve_mostcc void @__crashtrail_ring_refill({{.*}}@__crashtrail_ring_pos, {{.*}}@__crashtrail_module
// INL-LABEL: define linkonce_odr hidden preserve_mostcc void @__crashtrail_stamped_slow_here()
// INL-NEXT: call preserve_mostcc void @__crashtrail_stamped_slow({{.*}}@__crashtrail_ring_pos, {{.*}}@__crashtrail_module

int ext(int x) { return x * 2; }

int main(void) {
  fp = ext;
  long sum = 0;
  /* 100000 records or more: hundreds of chunk refills through the stub, the ring wraps */
  for (int i = 0; i < 100000; i++) sum += work(i);
  printf("sum %ld\n", sum);
  return 0;
}
// OUT: sum 7500050000
