// The runtime's longjmp wrappers walk the stack with the C runtime's unwinder (libgcc_s), which
// it loads at the first longjmp: a program that uses only setjmp and longjmp (no sigsetjmp or
// siglongjmp, the way out of a signal handler) does not map it before it jumps, gets no
// constructor that loads it, and still has the discarded frame's path once it jumps.
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=1 -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=IR
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=1 -O2 -g %s %rt -o %t2
// RUN: readelf -d %t2 | FileCheck %s --check-prefix=DYN
// RUN: readelf -SW %t2 | FileCheck %s --check-prefix=SECT
// RUN: rm -rf %t2.d && mkdir %t2.d && env CRASHTRAIL_DIR=%t2.d %t2 | FileCheck %s --check-prefix=OUT
// RUN: %crashtrail show --all %t2.d/*.ctd 2>&1 | FileCheck %s --check-prefix=SHOW
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

int crashtrail_dump(const char *reason); /* crashtrail/crashtrail.h */

static jmp_buf env;
static volatile int sink;

// IR-NOT: __crashtrail_preload
// IR: call void @__crashtrail_longjmp(
// IR-NOT: __crashtrail_preload
// DYN-NOT: libgcc_s
// The defer table is read-only: its entries need no relocation at load.
// SECT: crashtrail_defer{{ +}}PROGBITS{{ +[0-9a-f]+ +[0-9a-f]+ +[0-9a-f]+ +[0-9a-f]+ +}}A{{ }}

static int unwinder_mapped(void) {
  char line[512];
  int found = 0;
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return -1;
  while (fgets(line, sizeof line, f))
    if (strstr(line, "libgcc_s")) found = 1;
  fclose(f);
  return found;
}

__attribute__((noinline)) static void thrower(void) { longjmp(env, 1); }

__attribute__((noinline)) static void leaf(int x) {
  if (x > 2) sink += x;
}

__attribute__((noinline)) static void mid(int x) {
  if (x & 1) sink++;
  leaf(x);
  if (x > 4) sink += 2;
  thrower();
}

int main(int argc, char **argv) {
  (void)argv;
  printf("before the jump: %s\n", unwinder_mapped() ? "mapped" : "not mapped");
  if (setjmp(env) == 0) mid(argc + 4);
  printf("after the jump: %s\n", unwinder_mapped() ? "mapped" : "not mapped");
  crashtrail_dump("end");
  return 0;
}
// OUT: before the jump: not mapped
// OUT: after the jump: mapped

// mid's lines up to the call that threw, then main's line after the setjmp.
// SHOW: mid {{.*}}defer-longjmp-lazy.c:45 |
// SHOW-NEXT: mid {{.*}}defer-longjmp-lazy.c:46 |
// SHOW-NEXT: leaf {{.*}}defer-longjmp-lazy.c:
// SHOW: mid {{.*}}defer-longjmp-lazy.c:47 |
// SHOW-NEXT: mid {{.*}}defer-longjmp-lazy.c:48 |
// SHOW-NEXT: thrower {{.*}}defer-longjmp-lazy.c:38 |
// SHOW-NEXT: main {{.*}}defer-longjmp-lazy.c:54 |
// SHOW-NEXT: unwinder_mapped {{.*}}defer-longjmp-lazy.c:30 |
// SHOW: main {{.*}}defer-longjmp-lazy.c:55 |
// SHOW-NEXT: main {{.*}}defer-longjmp-lazy.c:56 |
// SHOW-NOT: warning
