/* Reproducer (docs/fidelity.md, "a crash step on line 0"), -O2: when the faulting or interrupted
 * instruction has no line in DWARF (line 0: code the compiler or crashtrail made, e.g. after a
 * call, around a ring refill, in an interpreter's dispatch), the timeline's last step is "FILE:0",
 * a line that does not exist, flagged crash + uncertain, instead of the line that ran last
 * (postmortem/stack.c, mark_crash_line appends a step whenever the location has a file).
 * check.py sends SIGSEGV from outside (steptrace -a) just before the 50th run of the first line-0
 * instruction of work()'s loop, right after tick() returns: the CPU last ran tick()'s closing
 * line (its ret), the timeline ends with line0_crash_step.c:0. */
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) static void tick(long i) {
  sink += i;
}

__attribute__((noinline)) static void work(int n) {
  for (int i = 0; i < n; i++) {
    if (i % 3)
      tick(i);
    sink ^= i;
  }
}

int main(void) {
  work(100000);
  printf("%ld\n", sink);
  return 0;
}
