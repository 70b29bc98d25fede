/* Tail calls of every kind the pass keeps as jumps (docs/design.md, "Tail calls stay tail
 * calls"): direct and through a pointer, to instrumented code and to the C library (puts: its
 * records are none), mutual recursion, a void tail
 * call, a tail call right at the entry (no bits: its flush is elided) and after branches, and
 * tail calls from a function entered from qsort. The decoded blocks must equal the trace. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int is_even(unsigned n);
__attribute__((noinline)) int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }
__attribute__((noinline)) int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }

static int (*volatile op)(int);
__attribute__((noinline)) static int twice(int x) { return x * 2; }
__attribute__((noinline)) static int thrice(int x) { return x * 3 + (x & 1); }
__attribute__((noinline)) int apply(int x) {
  if (x > 100) return op(x - 100); /* indirect tail call */
  return op(x);
}
__attribute__((noinline)) int forward(int x) { return apply(x + 1); } /* at the entry */
__attribute__((noinline)) void say(int x) {
  if (x % 3) puts(x % 2 ? "odd" : "even"); /* void tail call into libc */
}
static long calls;
__attribute__((noinline)) static int cmp_int(const int *a, const int *b) {
  calls++;
  return *a - *b;
}
static int by_value(const void *a, const void *b) { return cmp_int(a, b); } /* from qsort */

int main(int argc, char **argv) {
  unsigned n = (unsigned)(argc > 1 ? atoi(argv[1]) : 0) + 20001u; /* fits -O0 stacks too */
  printf("%d %d\n", is_even(n), is_odd(n / 3));
  long sum = 0;
  for (int i = 0; i < 300; i++) {
    op = i & 1 ? twice : thrice;
    sum += forward(i) + apply(i * 7);
    if (i < 8) say(i);
  }
  int v[64];
  for (int i = 0; i < 64; i++) v[i] = (i * 37) % 64;
  qsort(v, 64, sizeof v[0], by_value);
  printf("sum %ld, sorted %d..%d in %ld compares\n", sum, v[0], v[63], calls);
  return 0;
}
