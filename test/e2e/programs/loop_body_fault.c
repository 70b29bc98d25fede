/* A fault in a loop's body, after the body's entry code and with no branch left before the
 * loop's back edge. At -O0 the loop is not rotated: the header branches into the body, whose
 * first instructions add the edge's bit to the accumulator's stack slot. The unfinished path's
 * walk consumes that bit, enters the body and goes on through the branch-free latch to the
 * header, where it runs out of bits; the pc's block is a successor of the header, so the walk
 * once added a fifth body (the fault's line shown one iteration late, as certain): the slot
 * rewritten before the pc in the body's code shows the body's entry already counted.
 *
 * crashtrail-e2e
 * signal: SIGSEGV
 * expect-O0: m0 m1 s0 s1 s2 s3 s1 s2 s3 s1 s2 s3 s1 s2
 * expect-O2: m0 m1 s1 s2 s3 s1 s2 s3 s1 s2 s3 s1 s2
 * stack: sum main
 */
#include <stdio.h>

struct node { int value; struct node *next; };

/* Walks a list whose fourth node is missing. */
__attribute__((noinline)) int sum(struct node *n, int count) {
  int total = 0;                                       //@s0
#pragma clang loop unroll(disable) /* at -O2 a block per iteration, as at -O0 */
  for (int i = 0; i < count; i++) {                    //@s1
    total += n->value;                                 //@s2
    n = n->next;                                       //@s3
  }
  return total;
}

int main(int argc, char **argv) {
  struct node c = {3, NULL}, b = {2, &c}, a = {1, &b}; //@m0
  printf("%d\n", sum(&a, argc + 3));                   //@m1
  return argv[0][0] == 0;
}
