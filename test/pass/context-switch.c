// A context switch (swapcontext, setcontext; Boost.Context's jump_fcontext) leaves the frame
// for another context's frames, which write their own records, and comes back later by
// another way than a return, as longjmp does to setjmp. Its flush is never elided: the
// frame's path up to it must be in the ring before the other context's records. A plain
// external call in the same position (work(2)) is elidable: the decoder re-creates its record.
// Nor is the first flush after a switch or a setjmp (the decoder cannot predict the frame's
// arrival there); before 2026-11-27 the setjmp case was elided all the same (work(8)).
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=0 -O2 -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s
#include <setjmp.h>
#include <ucontext.h>

extern ucontext_t self, other;
void work(int);
typedef void *fcontext_t;
struct transfer { fcontext_t fctx; void *data; };
struct transfer jump_fcontext(fcontext_t to, void *vp);

void generator(void) {
  work(1);
  work(2);
  swapcontext(&self, &other);
  work(3);
  swapcontext(&self, &other);
  work(4);
}

void *boost_style(fcontext_t to) {
  work(5);
  struct transfer t = jump_fcontext(to, 0);
  work(6);
  return t.data;
}

jmp_buf env;

void with_setjmp(void) {
  work(7);
  setjmp(env);
  work(8);
}

// CHECK-LABEL: function generator
// CHECK: block 0 stamped call work
// CHECK-NEXT: block 1 stamped elidable call work
// CHECK-NEXT: block 2 stamped call swapcontext
// CHECK-NEXT: block 3 stamped call work
// CHECK-NEXT: block 4 stamped call swapcontext
// CHECK-NEXT: block 5 stamped call work
// CHECK-LABEL: function boost_style
// CHECK: block 1 stamped call jump_fcontext
// CHECK-NEXT: block 2 stamped call work
// CHECK-LABEL: function with_setjmp
// CHECK: block 1 stamped call _setjmp
// CHECK-NEXT: block 2 stamped call work
