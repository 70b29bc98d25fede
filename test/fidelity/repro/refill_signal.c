/* Reproducer (docs/fidelity.md, limit U: "a frame suspended in a refill"), -O2: a signal that
 * arrives while the runtime starts a new ring chunk. The frame that flushed is suspended in the
 * flush's cold path, a call of the per-module stub __crashtrail_refill_here, which calls the
 * runtime's __crashtrail_ring_refill; both keep every register but r11 (preserve_most). The
 * frame's path accumulator is often in a register the SysV ABI says a call clobbers (rcx, r10):
 * the stub never touches it, so its call-frame information says "same value", which an unwinder
 * that follows the ABI reads as "unknown", and the unfinished path was reported not recoverable.
 * classify_leaf() calls nothing, so its slow paths call the stub from inline assembly that steps
 * over the red zone (the pass keeps it a leaf): the unwinder must follow the CFA adjustment that
 * assembly declares to find classify_leaf's frame and main's above it.
 * check.py sends SIGSEGV on entries 2-7 into __crashtrail_ring_refill and judges those made
 * from classify() and from classify_leaf(). */
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) static long bump(long x) { return x * 3 + 1; }
static long (*volatile bump_ptr)(long) = bump; /* an indirect call: always a record before it */

__attribute__((noinline)) static long classify(long x) {
  long r = 0;
  if (x & 1)
    r += 3;
  if (x % 5 == 0)
    r ^= 7;
  if (x > 1000)
    r -= x / 3;
  if (x % 7 == 0) /* classify() writes an extra record: main()'s and its own do not alternate */
    r += bump_ptr(x);
  return r;
}

__attribute__((noinline)) static long classify_leaf(long x) {
  long r = 0;
  if (x & 2)
    r += 5;
  if (x % 3 == 0)
    r ^= 9;
  if (x > 5000)
    r -= x / 7;
  return r;
}

int main(void) {
  for (long i = 0; i < 200000; i++) sink += classify(i) + classify_leaf(i);
  printf("%ld\n", sink);
  return 0;
}
