// Blocks that always run together with no flush between them share one table entry, written
// by the later block only: the thread's coarse time cannot change between them, so their last
// and first times are equal. A call, a return or a check point between two blocks keeps their
// entries apart.
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=0 -fplugin-arg-crashtrail-mode=tables -O2 -g -c %s -o %t.o
// RUN: %crashtrail meta %t.o | FileCheck %s
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=0 -fplugin-arg-crashtrail-mode=tables -fplugin-arg-crashtrail-table-maps=0 -O2 -g -S -emit-llvm %s -o - | FileCheck %s --check-prefix=IR
// With the byte maps (the default for an executable) the same three entries are marked.
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=0 -fplugin-arg-crashtrail-mode=tables -O2 -g -S -emit-llvm %s -o - | FileCheck %s --check-prefix=MAP

extern int ext(int);
volatile int g;

// The entry and the join before the call run together; the optional store between them does
// not always run, and the code after the call may run at another time.
int after_call(int x) {
  int y = x + g;
  if (x > 10)
    g = y;
  y = ext(y);
  return y * 2;
}
// CHECK-LABEL: function after_call
// CHECK:      block 0 table@[[ENTRY:0x[0-9a-f]+]] branch
// CHECK-NEXT: block 1 table@[[THEN:0x[0-9a-f]+]] jump
// CHECK-NEXT: block 2 table@[[ENTRY]] stamped call ext
// CHECK-NEXT: block 3 table@[[AFTER:0x[0-9a-f]+]] stamped
// CHECK-NOT:  table@[[ENTRY]]

// A loop header with a check point may flush (and so change the time) before its update: it
// shares nothing with the block before it.
int loop(int n) {
  int s = g;
  for (int i = 0; i < n; i++)
    s += g;
  return s;
}
// CHECK-LABEL: function loop
// CHECK: block 4 check {{[0-9]+}} table@[[HEAD:0x[0-9a-f]+]]
// CHECK-NOT: table@[[HEAD]]

// Three updates for four blocks in after_call; the coarse time is read from TLS at the entry
// and again after the call, not per block.
// IR-LABEL: define{{.*}} @after_call(
// IR:     load i64, {{.*}}@__crashtrail_now
// IR-NOT: load i64, {{.*}}@__crashtrail_now
// IR:     call i32 @ext(
// IR:     load i64, {{.*}}@__crashtrail_now
// MAP-LABEL: define{{.*}} @after_call(
// MAP-NOT:   __crashtrail_now
// MAP-COUNT-3: store i8 1, {{.*}}@__crashtrail_map
// MAP-NOT:   store i8 1,
// MAP-LABEL: define{{.*}} @loop(
// IR-LABEL: define{{.*}} @loop(
