// A two-way branch costs one bit: the successor's code is shifted into the accumulator, at the
// start of a successor that only this branch reaches (no select, no setcc), and the likelier
// successor gets 0 (a bare shift; the other needs an `or 1` as well).
// RUN: %clang -fplugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=IR
// RUN: %clang -fplugin=%plugin -O2 -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s --check-prefix=META

void left(int);
void right(int);

void pick(int a) {
  if (__builtin_expect(a > 0, 0))
    left(a);
  else
    right(a);
}

// IR-LABEL: define{{.*}} void @pick(
// IR: icmp sgt
// IR-NEXT: br i1
// IR: shl i64 {{.*}}, 1
// META-LABEL: function pick
// META: block 0 branch -> [[L:[0-9]+]]:1 -> [[R:[0-9]+]]:0;
// META: block [[L]] stamped call left
// META: block [[R]] stamped call right
