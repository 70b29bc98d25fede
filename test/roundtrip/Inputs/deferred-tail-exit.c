// An exit from deep inside deferred calls (-crashtrail-defer-calls), dumped with the frames
// suspended: run is in a call of after_file, which ended in a tail call of fatal, a noreturn
// function (gawk's r_interpret -> after_beginfile -> r_fatal, the call written before it as a
// tail call's is). fatal's frame, which wrote no record, goes above after_file's invocation, which waits
// in that tail call; it went right after run's frame, before after_file's records.
#include <stdio.h>
#include <stdlib.h>

int counter;
volatile int quit = 1; /* exits, though the compiler cannot tell (no noreturn inferred) */

__attribute__((noinline)) void bump(void) { counter += 3; }

__attribute__((noinline)) void report(int x) {
  if (x & 1) bump();
  fflush(stdout);
  if (quit) exit(0);
}
__attribute__((noinline)) void fatal(int x) {
  if (x & 2) bump();
  report(x); /* deferred: fatal is suspended in it with its path */
  bump();
}
__attribute__((noinline)) void after_file(int x) {
  if (x & 4) bump();
  fatal(x); /* a tail call: written before */
}
__attribute__((noinline)) int run(int n) {
  int r = 0;
  for (int i = 0; i < n; i++) {
    if (i & 1) bump();
    r += i;
  }
  if (r > 3) after_file(r); /* deferred */
  return r;
}

int main(int argc, char **argv) {
  (void)argv;
  printf("%d\n", run(5 + argc));
  return 0;
}
