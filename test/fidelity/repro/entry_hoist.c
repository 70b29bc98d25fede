/* Reproducer (docs/fidelity.md, bug K), -O2. An instruction common to both successors of the
 * entry's branch is hoisted above the branch, to the top of the function: `mov %rsi,%rdi`, the
 * pointer argument of free() and realloc() (Lua's l_alloc, the allocator every Lua allocation
 * goes through). Its row carries the realloc block's discriminator, so the timeline showed
 * its line only when realloc ran, after the test; the CPU runs it first, on both paths. The
 * rows of other blocks before the entry block's first row run in the entry block, as guests
 * (postmortem/line_order.c). It was hidden while the accumulator's init was the first
 * instruction of each successor (a different constant on each side: nothing in common to
 * hoist); since the accumulator's constants are folded (pass/AccFold.cpp) they are not.
 *   crashtrail-cc -O2 -gdwarf-4 entry_hoist.c -o eh && CRASHTRAIL_DIR=. ./eh
 */
#include <stdio.h>
#include <stdlib.h>

static size_t grown;
/* Not a tail call: since 2026-11-25 the pass keeps tail calls, and realloc() as one leaves
 * nothing to hoist (its arguments are moved just before the jump). */
static void *count(void *p) {
  grown++;
  return p;
}

__attribute__((noinline)) void *grow(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  (void)osize;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  } else
    return count(realloc(ptr, nsize));
}

/* Called through a pointer, as Lua calls its allocator: the arguments stay where the ABI puts
 * them. */
void *(*volatile alloc_fn)(void *, void *, size_t, size_t) = grow;

int main(int argc, char **argv) {
  char *p = NULL;
  size_t total = 0;
  for (int i = 0; i < 12; i++) {
    p = alloc_fn(NULL, p, 0, (size_t)(i % 4) * 16);
    if (p) total += (size_t)p[0] * 0 + 1;
  }
  printf("%zu\n", total);
  int *volatile q = argc > 5 ? (int *)argv : NULL;
  return *q;
}
