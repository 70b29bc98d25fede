// Calls that may run instrumented code end a record (flush before, new site after); calls to C
// library functions that never call back (strlen, memcpy) cost nothing; a noreturn call is
// always flushed, so the path to an abort() is in the ring. Calls to functions of other modules
// are stamped (they may leave the module), but not calls of hidden functions, which resolve
// within the module even when only declared (hidden_ext). The call to external() follows
// local()'s return along no branch: its record would be empty, so it is elided (see elide.c).
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=0 -O2 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=0 -O2 -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s --check-prefix=META
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static int local(int x) { return x * 3; }
int external(int);
__attribute__((visibility("hidden"))) int hidden_ext(int);

int caller(const char *s, int n) {
  int len = (int)strlen(s);
  if (len > n) abort();
  return local(len) + external(n) + hidden_ext(len);
}

// CHECK-LABEL: define{{.*}} @caller(
// CHECK: call i64 @strlen
// CHECK-NOT: __crashtrail_ring_pos
// CHECK: br i1
// CHECK: __crashtrail_ring_pos
// CHECK: call void @abort
// META-LABEL: function caller
// META-DAG: call abort
// META-DAG: block {{[0-9]+}} call local
// META-DAG: stamped elidable call external
// META-DAG: block {{[0-9]+}} {{(elidable )?}}call hidden_ext
// META-NOT: call strlen
