// With deferred calls (-fplugin-arg-crashtrail-defer-calls=1) a function writes no record before a
// direct call: its path stays in its accumulator, and a longjmp out of the callee would discard
// it with the frame. So a function that defers gets a stack slot (llvm.localescape names its
// offset, which its module's defer table lists in section crashtrail_defer) and stores its
// accumulator there before each deferred call, and calls of longjmp, _longjmp, siglongjmp and
// __longjmp_chk go to the runtime's wrappers, which write the discarded frames' slots to the ring
// first (runtime/longjmp_save.c). The ring build (no deferred calls) has neither.
// The timeline then shows every step the discarded frames took before the longjmp (`mid`'s
// lines between its calls), at -O0 and -O2, with no gap.
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=1 -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=IR
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=0 -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=RING
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=1 -O2 -g %s %rt -o %t2
// RUN: rm -rf %t2.d && mkdir %t2.d && env CRASHTRAIL_DIR=%t2.d %t2 | FileCheck %s --check-prefix=OUT
// RUN: %crashtrail show --all %t2.d/*.ctd 2>&1 | FileCheck %s --check-prefix=SHOW
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=1 -O0 -g %s %rt -o %t0
// RUN: rm -rf %t0.d && mkdir %t0.d && env CRASHTRAIL_DIR=%t0.d %t0 | FileCheck %s --check-prefix=OUT
// RUN: %crashtrail show --all %t0.d/*.ctd 2>&1 | FileCheck %s --check-prefix=SHOW
#include <setjmp.h>
#include <stdio.h>

int crashtrail_dump(const char *reason); /* crashtrail/crashtrail.h */

static jmp_buf env;
static sigjmp_buf senv;
static volatile int sink;

// The defer table is read-only, its function a distance (no relocation at load); a module that
// uses sigsetjmp or siglongjmp has the unwinder loaded by a constructor at start-up.
// IR: module asm {{.*}}.pushsection crashtrail_defer,\22a\22,@progbits
// IR: module asm {{.*}}.quad mid - .
// IR-NEXT: module asm {{.*}}.quad .Lmid$frame_escape_0
// IR: @llvm.global_ctors = {{.*}}@__crashtrail_preload_ctor
// IR-LABEL: define {{.*}}@mid(
// IR: call void (...) @llvm.localescape({{i64\*|ptr}} [[SLOT:%[0-9a-z.]+]])
// IR: store volatile i64 {{.*}}, {{i64\*|ptr}} [[SLOT]]
// IR-NEXT: call {{.*}}void @leaf(
// IR-LABEL: define {{.*}}@thrower(
// IR: call void @__crashtrail_longjmp(
// IR: call void @__crashtrail_siglongjmp(
// IR-LABEL: define {{.*}}@__crashtrail_preload_ctor(
// IR-NEXT: call void @__crashtrail_preload_unwinder()
// RING-NOT: __crashtrail_preload
// RING-NOT: .pushsection crashtrail_defer
// RING-LABEL: define {{.*}}@mid(
// RING-NOT: llvm.localescape
// RING-LABEL: define {{.*}}@thrower(
// RING: call void @longjmp(
// RING: call void @siglongjmp(


__attribute__((noinline)) static void thrower(int n) {
  if (n == 5) longjmp(env, 1);
  siglongjmp(senv, 2);
}

__attribute__((noinline)) static void leaf(int x) {
  if (x > 2) sink += x;
}

__attribute__((noinline)) static void mid(int x) {
  if (x & 1) sink++;
  leaf(x);
  if (x > 4) sink += 2;
  thrower(x);
}

int main(int argc, char **argv) {
  (void)argv;
  if (setjmp(env) == 0) mid(argc + 4);
  if (sigsetjmp(senv, 1) == 0) mid(argc + 5);
  printf("back twice\n");
  crashtrail_dump("end");
  return 0;
}
// OUT: back twice

// Each call of mid: its lines up to the call that threw, then main's line after the setjmp.
// SHOW: main {{.*}}defer-longjmp.c:69 |
// SHOW-NEXT: mid {{.*}}defer-longjmp.c:61 |
// SHOW-NEXT: mid {{.*}}defer-longjmp.c:62 |
// SHOW-NEXT: leaf {{.*}}defer-longjmp.c:
// SHOW: mid {{.*}}defer-longjmp.c:63 |
// SHOW-NEXT: mid {{.*}}defer-longjmp.c:64 |
// SHOW-NEXT: thrower {{.*}}defer-longjmp.c:52 |
// SHOW-NEXT: main {{.*}}defer-longjmp.c:69 |
// SHOW-NEXT: main {{.*}}defer-longjmp.c:70 |
// SHOW-NEXT: mid {{.*}}defer-longjmp.c:61 |
// SHOW-NEXT: mid {{.*}}defer-longjmp.c:62 |
// SHOW-NEXT: leaf {{.*}}defer-longjmp.c:
// SHOW: mid {{.*}}defer-longjmp.c:63 |
// SHOW-NEXT: mid {{.*}}defer-longjmp.c:64 |
// SHOW-NEXT: thrower {{.*}}defer-longjmp.c:52 |
// SHOW-NEXT: thrower {{.*}}defer-longjmp.c:53 |
// SHOW-NEXT: main {{.*}}defer-longjmp.c:70 |
// SHOW-NEXT: main {{.*}}defer-longjmp.c:71 |
// SHOW-NOT: warning
