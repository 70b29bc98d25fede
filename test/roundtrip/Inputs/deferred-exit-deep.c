// exit() called from frames inside deferred calls (-crashtrail-defer-calls), with an atexit
// handler: the handler runs behind the runtime's marker (runtime/exit_handlers.c) while those
// frames are still on the stack, and the dump at exit reads them there. The parse places them
// from the bottom of its stack, not from the handler's marker, below which their open
// invocations are (GNU sed's bad_prog calling exit from compile_program's calls).
#include <stdio.h>
#include <stdlib.h>

int calls;

static void flush_at_exit(void) {
  if (calls > 1) fflush(stdout);
}

__attribute__((noinline)) static void fail(int x) {
  if (x > 4) calls++;
  exit(x > 3 ? 2 : 1);
}

__attribute__((noinline)) static int check(int x) {
  if (x & 1) calls += 2;
  if (x > 3) fail(x);
  return x + 1;
}

__attribute__((noinline)) static int parse(int x) {
  int y = check(x);
  if (y > 2) calls++;
  return check(y + 1);
}

int main(int argc, char **argv) {
  (void)argv;
  atexit(flush_at_exit);
  printf("%d\n", parse(argc + 1));
  return 0;
}
