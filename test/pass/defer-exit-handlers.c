// With deferred calls, exit handlers are registered through the runtime
// (runtime/exit_handlers.c), which runs each behind a marker in the ring: the post-order parse
// cannot otherwise tell one handler from a callback of the next one's call into code without
// records. atexit gets the module's __dso_handle (what the C library's atexit passes to
// __cxa_atexit), __cxa_atexit (C++ static destructors) keeps its arguments. The ring build calls
// them directly.
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=1 -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=DEFER
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=0 -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=RING
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=1 -O0 -g %s %rt -o %t && %t | FileCheck %s --check-prefix=OUT
#include <stdio.h>
#include <stdlib.h>

extern int __cxa_atexit(void (*)(void *), void *, void *);
extern char __dso_handle;

static void bye(void) { puts("bye"); }
static void bye_arg(void *p) { puts((const char *)p); }

// DEFER-LABEL: define {{.*}}@main(
// DEFER: call i32 @__crashtrail_atexit({{.*}}@bye{{.*}}@__dso_handle
// DEFER: call i32 @__crashtrail___cxa_atexit({{.*}}@bye_arg
// RING-LABEL: define {{.*}}@main(
// RING: call i32 @atexit(
// RING: call i32 @__cxa_atexit(
int main(void) {
  atexit(bye);
  __cxa_atexit(bye_arg, "bye with argument", &__dso_handle);
  puts("main");
  return 0;
}
// The handlers run as registered, last first.
// OUT: main
// OUT-NEXT: bye with argument
// OUT-NEXT: bye
