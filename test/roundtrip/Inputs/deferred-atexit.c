// Exit handlers after a main built with deferred calls (-crashtrail-defer-calls): main's whole
// path since its last record reaches the ring with its return, after its callees' records,
// and then the C library runs the atexit handlers, each calling into code without records
// (fflush). main is called by no instrumented function, so the parse once took main's returned
// invocation for a callback of a handler's fflush and decoded the handlers before main
// (postorder.c, is_main). C++ static destructors are such handlers. (Two handlers that both
// call into code without records are still ambiguous: the second one's fflush takes the first
// for its callback, docs/design.md "Deferred calls".)
#include <stdio.h>
#include <stdlib.h>

int calls;

__attribute__((noinline)) static int step(int x) { return x & 1 ? x * 3 : x / 2; }

static void at_exit_flush(void) {
  if (calls > 2) fflush(stderr);
}

int main(int argc, char **argv) {
  (void)argv;
  atexit(at_exit_flush);
  int x = 27 + argc;
  for (int i = 0; i < 12; i++) calls += step(x + i) > 20;
  printf("%d\n", calls);
  return 0;
}
