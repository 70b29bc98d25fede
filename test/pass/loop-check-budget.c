// A check point fires when the accumulator could not take the bits the paths after it may add
// before the next check or flush (its budget), so a loop whose body has one long path would
// write a record nearly every time round: here case 2's 40 branches gave the latch's check a
// budget of 43, a record whenever 20 bits had gathered (SQLite's VDBE dispatch: a budget of
// 54, a record per opcode). Blocks on a cycle may add at most 24 bits before the next check:
// the long case gets a check of its own, and the latch's budget leaves a record room for
// some 40 bits of short iterations. A function without a loop keeps the wider limit (48):
// its checks run once per call.
// RUN: %clang -fplugin=%plugin -O2 -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s
volatile int sink;
#define T(i) if (v[i] > 0) sink += i;
#define T8(i) T(i) T(i + 1) T(i + 2) T(i + 3) T(i + 4) T(i + 5) T(i + 6) T(i + 7)
void run(const int *ops, const int *v, int n) {
  for (int i = 0; i < n; i++) {
    switch (ops[i]) {
    case 0: sink++; break;
    case 1: sink--; break;
    case 2: T8(0) T8(8) T8(16) T8(24) T8(32) break;
    default: sink = 0;
    }
  }
}

void straight(const int *v) { T8(0) T8(8) T8(16) T8(24) T8(32) }

// The long case's check and the latch's: each leaves at most 24 bits to what follows its own
// block's branch.
// CHECK-LABEL: function run
// CHECK: site 1: block [[A:[0-9]+]] (check)
// CHECK-NEXT: site 2: block [[B:[0-9]+]] (check)
// CHECK: block [[A]] check {{([1-9]|1[0-9]|2[0-5])}} branch
// CHECK: block [[B]] check {{([1-9]|1[0-9]|2[0-4])}} branch
// CHECK-LABEL: function straight
// CHECK-NOT: check
