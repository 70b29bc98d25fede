// Threads created by instrumented code are set up by the runtime before their start routine
// runs (runtime/thread_start.c: a thread that overflows its stack before its first record
// must still have an alternate signal stack): every direct call of pthread_create, in
// instrumented functions and opted-out ones alike, goes to __crashtrail_pthread_create, at
// -O0 and -O2. The metadata still names pthread_create as the callee (the decoder's view).
// RUN: %clang -fplugin=%plugin -O0 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=IR
// RUN: %clang -fplugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=IR
// RUN: %clang -fplugin=%plugin -O2 -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s --check-prefix=META
// A module the plugin did not instrument keeps its calls (no runtime is linked for it).
// RUN: %clang -O2 -S -emit-llvm %s -o - | FileCheck %s --check-prefix=PLAIN
#include <pthread.h>

void *work(void *);

// IR-LABEL: define {{.*}}@start_one(
// IR: call i32 @__crashtrail_pthread_create(
// IR-NOT: call i32 @pthread_create(
// META: start_one
// META: pthread_create
// PLAIN: call i32 @pthread_create(
int start_one(pthread_t *t, void *arg) {
  if (arg) return pthread_create(t, 0, work, arg);
  return -1;
}

// IR-LABEL: define {{.*}}@start_quiet(
// IR: call i32 @__crashtrail_pthread_create(
__attribute__((no_instrument_function)) int start_quiet(pthread_t *t) {
  return pthread_create(t, 0, work, 0);
}
