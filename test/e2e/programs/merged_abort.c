/* Three checks, each printing and calling abort() when it fails: at -O2 the compiler merges the
 * three abort() calls into one, whose return address has line 0 (it is no one line's). The
 * timeline's path says which check failed; the stack's frame shows that line too, not
 * "merged_abort.c:0".
 *
 * crashtrail-e2e
 * signal: SIGABRT
 * expect-O0: m1 c1 c2 c3 c4 m1 m2 c1 c2 c3
 * expect-O2: m1 c2 c3 c4 m1 m2 c2 c3
 * stack: check_range main
 * frame-line: check_range c3
 */
#include <stdio.h>
#include <stdlib.h>

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "failed at line %d: %s\n", __LINE__, #c); abort(); } } while (0)

__attribute__((noinline)) static int check_range(int lo, int hi, int v) {
  CHECK(lo <= hi);                                     //@c1
  CHECK(v >= lo);                                      //@c2
  CHECK(v <= hi);                                      //@c3
  return v - lo;                                       //@c4
}

int main(int argc, char **argv) {
  (void)argv;
  printf("%d\n", check_range(1, 10, 5));               //@m1
  printf("%d\n", check_range(1, 10, 10 + argc));       //@m2
  return 0;
}
