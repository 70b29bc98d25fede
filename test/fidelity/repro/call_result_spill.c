/* Reproducer (docs/fidelity.md, bug S), -O0: a call's result used on a later line of the same
 * statement. The register allocator stores the result to a stack slot right after the call,
 * under the call's line, so the CPU runs that line again after the callee returns; the IR has
 * no instruction of that line there, and without DWARF call-site entries (clang writes none at
 * -O0) the post-mortem did not know where the call returns, so the timeline went from the
 * callee straight to the next line (seen in C++ code: jsoncpp's `std::deque` iterators at -O0).
 * check.py compares the last lines of a crash in the statement's next line. */
#include <stdio.h>

struct pair {
  long a, b;
};

static volatile long sink;

__attribute__((noinline)) static long scale(long x) {
  return x * 3;
}

__attribute__((noinline)) static long combine(const struct pair *p, long x) {
  return scale(x)
         * (p->a - p->b)
         + p->a;
}

int main(void) {
  struct pair pairs[4] = {{1, 2}, {3, 5}, {8, 13}, {21, 34}};
  for (int i = 0; i < 40; i++) sink += combine(i == 37 ? NULL : &pairs[i % 4], i);
  printf("%ld\n", sink);
  return 0;
}
