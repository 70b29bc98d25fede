// Exit handlers after a main built with deferred calls (-crashtrail-defer-calls): main's whole
// path since its last record reaches the ring with its return, after its callees' records,
// and then the C library runs the atexit handlers one after the other, each calling into code
// without records (fflush). Nothing in the records tells a handler from a callback of the next
// handler's fflush: the parse took main's returned invocation for one (postorder.c, is_main),
// and the first handler for a callback of the second's fflush. The runtime now runs each
// handler that instrumented code registers behind a marker (runtime/exit_handlers.c): records
// after it are no callees of calls before it. deferred-static-dtors.cpp has C++'s destructors.
#include <stdio.h>
#include <stdlib.h>

int calls;

__attribute__((noinline)) static int step(int x) { return x & 1 ? x * 3 : x / 2; }

static void at_exit_first(void) { fflush(stdout); }
static void at_exit_second(void) {
  if (calls > 2) fflush(stderr);
}

int main(int argc, char **argv) {
  (void)argv;
  atexit(at_exit_second);
  atexit(at_exit_first);
  int x = 27 + argc;
  for (int i = 0; i < 12; i++) calls += step(x + i) > 20;
  printf("%d\n", calls);
  return 0;
}
