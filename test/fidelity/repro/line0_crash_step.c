/* Reproducer (docs/fidelity.md, "a crash step on line 0"), -O2: when the faulting or interrupted
 * instruction has no line in DWARF (line 0: code the compiler or crashtrail made, e.g. after a
 * call, around a ring refill, in an interpreter's dispatch), the timeline's last step is "FILE:0",
 * a line that does not exist, flagged crash + uncertain, instead of the line that ran last
 * (postmortem/stack.c, mark_crash_line appends a step whenever the location has a file).
 * check.py sends SIGSEGV from outside (steptrace -a) just before the 50th run of each line-0
 * instruction of work()'s loop and of pick(): right after tick() returns (the CPU last ran
 * tick()'s closing line, its ret: the timeline ended with line0_crash_step.c:0), and in pick()'s
 * switch dispatch, after the line the dispatch belongs to has run (the timeline dropped the
 * block: its last step was work()'s call). */
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) static void tick(long i) {
  sink += i;
}

/* A switch: at -O2 its dispatch (the jump table's load and the indirect jump) has line 0, in
 * the middle of a block whose first line has run. */
__attribute__((noinline)) static long pick(long i) {
  long r = i * 7;
  switch ((r >> 2) & 7) {
  case 0: r += 3; break;
  case 1: r ^= 5; break;
  case 2: r -= 11; break;
  case 3: r *= 3; break;
  case 4: r |= 64; break;
  case 5: r += i; break;
  default: r = -r; break;
  }
  return r;
}

__attribute__((noinline)) static void work(int n) {
  for (int i = 0; i < n; i++) {
    if (i % 3)
      tick(i);
    sink ^= pick(i);
  }
}

int main(void) {
  work(100000);
  printf("%ld\n", sink);
  return 0;
}
