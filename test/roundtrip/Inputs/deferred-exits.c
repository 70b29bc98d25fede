// Exits from deep inside deferred calls (-crashtrail-defer-calls), the dump taken with the
// frames suspended, in the shapes of GNU awk's fatal errors that postorder.c misplaced:
//  - interp -> do_print -> common -> format, the last three with no record written yet
//    (gawk's r_interpret -> do_printf -> printf_common -> format_tree): format's own
//    invocation waits in a call through a pointer that returned (warn_ptr), and do_print's
//    frame, whose caller is the frame placed before it, went above that invocation instead of
//    right after its caller;
//  - format, the last frame with a path, is in a call of die, which ended in a tail call of
//    fatal, which exits (gawk's debug_pre_execute -> next_command -> zzparse): the pointer
//    call format waited in took warn's invocation and then die's, whose tail call's callee
//    has not returned; it ends where the call the frame is in begins.
// deferred-tail-exit.c has the third shape.
#include <stdio.h>
#include <stdlib.h>

int counter;
volatile int quit = 1; /* exits, though the compiler cannot tell (no noreturn inferred) */

/* Called inside branches, so that they stay branches at -O2. */
__attribute__((noinline)) void bump(void) { counter += 3; }

__attribute__((noinline)) void warn(int x) {
  if (x & 1) bump();
}
void (*volatile warn_ptr)(int) = warn;

__attribute__((noinline)) void fatal(int x) {
  if (x & 2) bump();
  fflush(stdout);
  if (quit) exit(0);
}
__attribute__((noinline)) void die(int x) {
  if (x & 8) bump();
  fatal(x + 1); /* a tail call: die's record is written before it */
}

__attribute__((noinline)) int format(int x) {
  if (x & 1) bump();
  warn_ptr(x); /* written before: format's invocation waits in it */
  if (x & 4) bump();
  if (x > 2) die(x); /* deferred: format's path since warn_ptr stays in its register */
  return x + counter;
}
__attribute__((noinline)) int common(int x) {
  if (x & 16) bump();
  return format(x) + 1;
}
__attribute__((noinline)) int do_print(int x) {
  if (x & 32) bump();
  return common(x) * 2;
}
__attribute__((noinline)) int interp(int n) {
  int r = 0;
  for (int i = 0; i < n; i++) { /* check points: interp writes records */
    if (i & 1) bump();
    r += do_print(i);
  }
  return r;
}

int main(int argc, char **argv) {
  (void)argv;
  printf("%d\n", interp(6 + argc));
  return 0;
}
