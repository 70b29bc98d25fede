// Where control may arrive from, or leave for, code without records (pass/ModuleExits.cpp).
// - A static function tail-called by an external one takes its frame's place: its return goes
//   to the external one's caller, maybe in another module, so it is stamped (jsoncpp's
//   valueToString(double) returned to the test program unstamped, and the rings were merged
//   out of order), and written after a call (below).
// - A function that may return to code without records (external and not hidden, or address
//   taken) writes its way out after a call: the decoder could not tell an entry record that
//   follows from a callback of a call without records (C++ static initialisers called one
//   after the other by the loader). A hidden function's callers are this module's own code: its
//   return stays elidable.
// - A static function called by a function left uninstrumented (no_instrument_function) is
//   entered from code without records: its entry's first flush is always written.
// - A constructor (llvm.global_ctors) is flagged as one (CT_FN_CTOR, 256): the loader runs it
//   before main, and the post-mortem must not take it for a callback of main's calls.
// RUN: %clang -fplugin=%plugin -fplugin-arg-crashtrail-defer-calls=0 -O2 -c %s -o %t.o && %crashtrail meta %t.o | FileCheck %s
void sink(int);

__attribute__((noinline)) static int helper(int x) {
  sink(x);
  return x + 1;
}
int api(int x) { return helper(x * 2); }

__attribute__((visibility("hidden"))) int internal_api(int x) {
  sink(x);
  return x;
}
int public_api(int x) {
  sink(x);
  return x;
}

__attribute__((noinline)) static int from_plain(int x) {
  sink(x);
  return x;
}
__attribute__((no_instrument_function)) int plain(int x) { return from_plain(x) + 1; }

__attribute__((constructor)) static void init(void) {
  sink(1);
  sink(2);
}

// CHECK-LABEL: function api
// CHECK: block 0 stamped call helper;
// CHECK-LABEL: function helper
// CHECK: block 0 stamped elidable call sink -> 1;
// CHECK: block 1 stamped return;
// CHECK-LABEL: function internal_api
// CHECK: block 1 stamped elidable return;
// CHECK-LABEL: function public_api
// CHECK: block 1 stamped return;
// CHECK-LABEL: function from_plain
// CHECK: block 0 stamped call sink -> 1;
// CHECK: block 1 stamped return;
// CHECK-NOT: a constructor
// CHECK-LABEL: function init
// CHECK-SAME: a constructor
// CHECK: block 0 stamped call sink -> 1;
// CHECK: block 1 stamped call sink;
