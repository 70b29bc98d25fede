// A two-way branch costs one bit: the successor's code is shifted into the accumulator, at the
// start of a successor that only this branch reaches (no select, no setcc), and the likelier
// successor gets 0 (a bare shift; the other needs an `or 1` as well).
// RUN: %clang -fplugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=IR
// RUN: %clang -fplugin=%plugin -O2 -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s --check-prefix=META

void left(int);
void right(int);

// The loop first makes the accumulator unknown at the branch; from a site init alone, the
// shifts would be folded into constants (acc-fold.c).
void pick(const int *p) {
  while (*p > 3) p++;
  if (__builtin_expect(*p > 0, 0))
    left(*p);
  else
    right(*p);
}

// IR-LABEL: define{{.*}} void @pick(
// IR: icmp sgt i32 %{{[0-9]+}}, 0
// IR-NEXT: br i1
// IR: shl i64 {{.*}}, 1
// META-LABEL: function pick
// META: block {{[0-9]+}} branch -> [[L:[0-9]+]]:1 -> [[R:[0-9]+]]:0;
// META: block [[L]] stamped call left
// META: block [[R]] stamped call right
