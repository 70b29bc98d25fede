/* Reproducer (docs/fidelity.md, bug AG), -O0: a signal on the instruction of line 0 that a
 * return's skipped flush jumps to, after a call. get() is one line, `return inner(b);`: its
 * call's row has the line at the call's column, the return block's code (the test that skips
 * the elided flush) a row of the same line at the `return`'s column, and the skip's target,
 * the load of the result, line 0. The timeline ended in inner() (uncertain): the post-mortem
 * took the row before the pc, having the call's line, for the call's own row, that is, for the
 * pc where the call had just returned to, with nothing of the return block run. Found by the
 * fidelity matrix (`jsoncpp -O0 kill 4`: std::unique_ptr::get() over
 * __uniq_ptr_impl::_M_ptr()). check.py interrupts every line-0 instruction of get() (its 5th
 * run) and compares the timeline's last line with the CPU's. */
#include <stdio.h>

struct box {
  int *ptr;
};

/* external, as a template's instance: a flush that may have to stamp is tested, not elided */
__attribute__((noinline)) int *inner(const struct box *b) { return b->ptr; }

__attribute__((noinline)) int *get(const struct box *b) { return inner(b); }

int main(void) {
  int v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  struct box b = {v};
  long s = 0;
  for (int i = 0; i < 8; i++) s += get(&b)[i];
  printf("%ld\n", s);
  return 0;
}
