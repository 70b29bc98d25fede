/* A fault on the last line of a loop's body, in its fifth iteration: the crashed thread's steps
 * end with the loop's two lines repeated, so `crashtrail show` folds them, the crash step
 * among them. The folded loop used to print its first iteration, and the crash's mark was
 * lost (packages.xz failed so when liblzma's worker was signalled in backward()'s loop).
 *
 * crashtrail-e2e
 * signal: SIGSEGV
 * expect-O0: m0 m1 s0 s1 s2 s1 s2 s1 s2 s1 s2 s1 s2
 * expect-O2: m0 m1 s1 s2 s1 s2 s1 s2 s1 s2 s1 s2
 * stack: sum main
 */
#include <stdio.h>

struct node { int value; struct node *next; };

/* Adds the values of the count nodes after n; main gives one more than there are. */
__attribute__((noinline)) int sum(struct node *n, int count) {
  int total = 0;                                                           //@s0
#pragma clang loop unroll(disable)
  for (int i = 0; i < count; i++)                                          //@s1
    total += (n = n->next)->value;                                         //@s2
  return total;
}

int main(int argc, char **argv) {
  struct node e = {5, NULL}, d = {4, &e}, c = {3, &d}, b = {2, &c}, a = {1, &b}; //@m0
  printf("%d\n", sum(&a, argc + 5));                                       //@m1
  return argv[0][0] == 0;
}
