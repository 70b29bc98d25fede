/* A null dereference in instrumented code, caught by the program's own SIGSEGV handler, which
 * aborts (as gawk's catchsig does): the dump is the abort's, inside the handler. The stack must
 * go on through the trampoline to the faulting frame at its exact line, and the faulting
 * frame's steps, which were all in its accumulator when the signal came (sum writes no record
 * before it faults), must come before the handler's, up to the faulting line. (At -O2 the
 * loop is unrolled by four and `total += n->value` is a conditional move of line s2's.)
 * Known gap: main's call of sum (line m2) is not shown. Its flush is elided (no branch before
 * it) and sum wrote no record, so the decoder's call-stack model, meeting the handler's entry,
 * takes it for a callback from inside signal(), the uninstrumented call main made before, and
 * never advances main to the call. With deferred calls main's path to the call is in its
 * accumulator, read from its frame, so m2 is there.
 *
 * crashtrail-e2e
 * signal: SIGABRT
 * expect-O0: m0 m1 s0 s1 s2 s3 s4 s1 s2 s3 s4 s1 s2 s3 s4 s1 s2 h1
 * expect-O2: m0 m1 s1 s2 s4 s2 s4 s2 s4 s2 h1
 * expect-O0@defer: m0 m1 m2 s0 s1 s2 s3 s4 s1 s2 s3 s4 s1 s2 s3 s4 s1 s2 h1
 * expect-O2@defer: m0 m1 m2 s1 s2 s4 s2 s4 s2 s4 s2 h1
 * stack: on_segv sum main
 * stack-contains: <signal handler called>
 * warning: a signal interrupted sum at .*handler_abort\.c:\d+ and a handler ran on top of it .*: its steps since its last record are shown before the handler's
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

struct node { int value; struct node *next; };

static void on_segv(int sig) {
  (void)sig;
  abort();                                             //@h1
}

/* Walks a list whose fourth node is missing. */
__attribute__((noinline)) int sum(struct node *n, int count) {
  int total = 0;                                       //@s0
  for (int i = 0; i < count; i++) {                    //@s1
    if (n->value > 0)                                  //@s2
      total += n->value;                               //@s3
    n = n->next;                                       //@s4
  }
  return total;
}

int main(int argc, char **argv) {
  struct node c = {3, NULL}, b = {2, &c}, a = {1, &b}; //@m0
  signal(SIGSEGV, on_segv);                            //@m1
  printf("%d\n", sum(&a, argc + 3));                   //@m2
  return argv[0][0] == 0;
}
