/* longjmp back to a setjmp whose continuation calls a static function before anything
 * branches: the first flush after the continuation must be written (the decoder cannot
 * predict a frame's arrival there). It was elided until 2026-11-27 (the pass marked the
 * continuation, then overwrote the mark), and the second round's steps in main were missing.
 *
 * crashtrail-e2e
 * signal: SIGSEGV
 * expect-O0: s0 s1 n1 n2 s2 b1 b2 s0 s1 n1 n2 s2 b1 b3
 * expect-O2: s0 s1 n1 n2 s2 b1 b2 s1 n1 n2 s2 b1 b3
 * stack: bail main
 */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;
static int rounds;
static int *volatile nowhere;

__attribute__((noinline)) static void note(void) {
  rounds++;                                            //@n1
}                                                      //@n2

__attribute__((noinline)) static void bail(int r) {
  if (r < 2)                                           //@b1
    longjmp(env, 1);                                   //@b2
  *nowhere = r;                                        //@b3
}

int main(void) {
  setjmp(env);                                         //@s0
  note();                                              //@s1
  bail(rounds);                                        //@s2
  return 0;
}
