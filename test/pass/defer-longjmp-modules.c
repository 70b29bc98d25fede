// A longjmp out of a shared library's frames inside deferred calls (two instrumented modules,
// so the rings are merged by stamps): the runtime's wrapper writes the library frame's path into
// the library's ring and then a stamp into every ring of the thread (runtime/longjmp_save.c),
// so that the markers are ordered where the jump happened. Without the stamp, lib_outer's
// steps were ordered after the records the thread wrote after the jump, and were lost.
// RUN: rm -rf %t && mkdir -p %t/d
// RUN: crashtrail-cc -O2 -g -fPIC -shared -fplugin-arg-crashtrail-defer-calls=1 %inputs/defer-longjmp-lib.c -o %t/libdlm.so
// RUN: crashtrail-cc -O2 -g -fplugin-arg-crashtrail-defer-calls=1 %s -L%t -ldlm -Wl,-rpath,%t -o %t/main
// RUN: env CRASHTRAIL_DIR=%t/d %t/main | FileCheck %s --check-prefix=OUT
// RUN: %crashtrail show --all %t/d/*.ctd 2>&1 | FileCheck %s
#include <setjmp.h>
#include <stdio.h>

int crashtrail_dump(const char *reason); /* crashtrail/crashtrail.h */
void lib_outer(int x, void (*cb)(int));

static jmp_buf env;
static volatile int sink;

static void thrower(int x) {
  if (x > 3) longjmp(env, 1);
  sink++;
}

int main(int argc, char **argv) {
  (void)argv;
  if (setjmp(env) == 0) lib_outer(argc + 5, thrower);
  puts("back");
  crashtrail_dump("end");
  return 0;
}
// OUT: back
// CHECK: main {{.*}}defer-longjmp-modules.c:27 |
// CHECK-NEXT: lib_outer {{.*}}defer-longjmp-lib.c:16 |
// CHECK-NEXT: lib_outer {{.*}}defer-longjmp-lib.c:17 |
// CHECK-NEXT: lib_leaf {{.*}}defer-longjmp-lib.c:
// CHECK: lib_outer {{.*}}defer-longjmp-lib.c:18 |
// CHECK-NEXT: lib_outer {{.*}}defer-longjmp-lib.c:19 |
// CHECK-NEXT: lib_inner {{.*}}defer-longjmp-lib.c:10 |
// CHECK-NEXT: lib_inner {{.*}}defer-longjmp-lib.c:11 |
// CHECK-NEXT: thrower {{.*}}defer-longjmp-modules.c:21 |
// CHECK-NEXT: main {{.*}}defer-longjmp-modules.c:27 |
// CHECK-NEXT: main {{.*}}defer-longjmp-modules.c:28 |
// CHECK-NOT: warning
