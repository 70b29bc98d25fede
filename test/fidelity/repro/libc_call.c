/* Reproducer (docs/fidelity.md, "suspended in a C library call"): a frame that is stopped inside
 * an uninstrumented call the pass does not flush before (strlen, memcpy, snprintf, ...) loses the
 * lines it ran since its last record. Here main() returns from note() (an instrumented call: a
 * record, then the after-call site), runs lines 22-24 (no branch: no bits), and calls
 * strlen(NULL), which faults inside the C library. main's accumulator holds the after-call site
 * and 0 bits, and postmortem/stack.c (pending_path) takes "after-call site, 0 bits, not the
 * innermost frame" for "suspended in the call that wrote the record: nothing ran since", so
 * the timeline goes from note()'s line 17 straight to line 25; the CPU ran 22 (the store of the
 * result), 23 and 24 in between. The same holds for a signal that arrives during such a call.
 *   crashtrail-cc -O0 -gdwarf-4 libc_call.c -o lc && CRASHTRAIL_DIR=. ./lc
 *   crashtrail show crashtrail-lc-*.ctd
 * check.py compares it with the single-stepping oracle. */
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) static int note(int x) {
  return x * 2;
}

int main(int argc, char **argv) {
  const char *name = argc > 5 ? argv[1] : NULL;
  int n = note(argc);
  n += 40;
  n *= 3;
  n += (int)strlen(name);
  printf("%d\n", n);
  return 0;
}
