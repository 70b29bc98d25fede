/* Reproducer (docs/fidelity.md, limit U: "a frame suspended in a refill"), -O2: a signal that
 * arrives while the runtime starts a new ring chunk. The frame that flushed is suspended in the
 * flush's slow path: its out-of-line fragment called the module's trampoline
 * __crashtrail_write_here, which calls the runtime's __crashtrail_write_slow; both keep every
 * register but r11. The frame's path accumulator is often in a register the SysV ABI says a
 * call clobbers (rcx, r10): neither touches it, so their call-frame information says "same
 * value", which an unwinder that follows the ABI reads as "unknown", and the unfinished path
 * was reported not recoverable. The trampoline's call-frame information names the flush's end
 * in the frame as its return address and the frame's stack pointer (above the red zone it
 * stepped over) as its CFA: the unwinder must follow it to find classify() or classify_leaf()
 * (which calls nothing and stays a leaf) and main() above them. The record being written is
 * the frame's unfinished path: its accumulator, read at the flush.
 * check.py sends SIGSEGV on entries 2-7 into __crashtrail_write_slow and judges those made
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
