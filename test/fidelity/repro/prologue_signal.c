/* Reproducer (docs/fidelity.md, "a signal in a prologue"), -O0: a signal that arrives while a
 * function runs its prologue (before its first statement) finds the frame's accumulator not yet
 * set for this call: at -O0 its stack slot still holds whatever the previous call left, and DWARF
 * says the variable lives there in the whole function. The unfinished path is decoded from that
 * stale value, so the timeline shows step()'s body (lines 15-19, not flagged uncertain) run
 * once more after main's call, although the CPU had not reached its first statement; only the
 * crash step (the declaration line) is flagged uncertain.
 * check.py sends SIGSEGV from outside (steptrace -a) just before the 5th run of step()'s first
 * instruction; the CPU's last line is main's loop (25), the timeline ends inside step(). */
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) static long step(long i) {
  long r = i * 3;
  if (r & 1)
    r += 7;
  sink += r;
  return r;
}

int main(void) {
  long s = 0;
  for (int i = 0; i < 1000; i++)
    s += step(i);
  printf("%ld\n", s);
  return 0;
}
