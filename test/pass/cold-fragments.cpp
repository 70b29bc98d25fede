// Out-of-line slow paths (SlowPathAsm.cpp) live in a section of their function's own. For a
// function in a comdat (a template instance, an inline function) that section is in the same
// group, so the linker keeps one copy of both or drops both; and a function --gc-sections
// removes takes its fragments with it (nothing else refers to them).
// RUN: %clangxx -fplugin=%plugin -O2 -ffunction-sections -c %s -o %t.o
// RUN: llvm-readelf -g %t.o | FileCheck %s --check-prefix=GROUP
// RUN: llvm-readelf -S %t.o | FileCheck %s --check-prefix=SEC
// RUN: %clangxx -fplugin=%plugin -O2 -ffunction-sections %s -DSECOND -c -o %t2.o
// RUN: %clangxx %t.o %t2.o %rt -Wl,--gc-sections -o %t && %t | FileCheck %s --check-prefix=OUT
// RUN: llvm-nm %t | FileCheck %s --check-prefix=NM
// RUN: llvm-objdump -d --no-show-raw-insn %t | FileCheck %s --check-prefix=DIS
#include <cstdio>
#include <vector>

template <class T> __attribute__((noinline)) T sum_odd(const std::vector<T> &v) {
  T s = 0;
  for (T x : v)
    if (x & 1) s += x;
  return s;
}

int use_second();

#ifndef SECOND
__attribute__((noinline)) int never_called(int x) { return x > 3 ? x * 2 : x - 1; }

int main() {
  std::vector<int> v(3000);
  for (int i = 0; i < 3000; i++) v[i] = i;
  long t = 0;
  for (int i = 0; i < 300; i++) t += sum_odd(v) + use_second();
  std::printf("%ld\n", t);
}
#else
int use_second() {
  std::vector<int> v(100, 3);
  return sum_odd(v);
}
#endif

// GROUP: COMDAT group section {{.*}} [_Z7sum_oddIiET_RKSt6vectorIS0_SaIS0_EE]
// GROUP: .text._Z7sum_oddIiET_RKSt6vectorIS0_SaIS0_EE
// GROUP: .text.unlikely.ct._Z7sum_oddIiET_RKSt6vectorIS0_SaIS0_EE
// SEC: .text.unlikely.ct._Z12never_calledi
// OUT: 675090000
// NM-NOT: never_called
// The fragments disassemble as code: the jump to the flush's end, the offset to label 2 a
// `cmp` immediate, the next fragment after it.
// DIS: leaq -{{128|0x80}}(%rsp), %rsp
// DIS-NEXT: pushq
// DIS-NEXT: callq {{.*}}<__crashtrail_write_here3>
// DIS-NEXT: jmp
// DIS-NEXT: cmpl ${{(0x)?[0-9a-f]+}}, %eax
// DIS-NEXT: leaq -{{128|0x80}}(%rsp), %rsp
