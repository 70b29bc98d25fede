/* A generator in its own context (makecontext/swapcontext), as coroutine libraries run them:
 * each swapcontext leaves one frame for the other context's and comes back later. At -O2 the
 * generator's flushes before its switches were elided (its loop unrolled, nothing branched),
 * and the timeline showed its five yields in a row before any of main's steps; its path up to
 * a switch must be in the ring before the other context runs (pass/CallClassifier.cpp,
 * mayComeBackElsewhere).
 *
 * crashtrail-e2e
 * signal: SIGSEGV
 * expect-O0: g0 s1 s2 s3 mk sm w m1 gf gv gs m1 m2 c1 c3 ce m2 w m1 gs ge gf gv gs m1 m2 c1 c3 ce m2 w m1 gs ge gf gv gs m1 m2 c1 c3 ce m2 w m1 gs ge gf gv gs m1 m2 c1 c2
 * expect-O2: g0 s1 s2 s3 mk w m1 gv gs m2 c1 c3 ce m2 w m1 gv gs m2 c1 c3 ce m2 w m1 gv gs m2 c1 c3 ce m2 w m1 gv gs m2 c1 c2
 * stack-O0: consume main
 */
#include <stdio.h>
#include <ucontext.h>

static ucontext_t main_ctx, gen_ctx;
static int value, done;
static int *volatile nowhere;

static void generator(void) {
  for (int i = 0; i < 5; i++) {                        //@gf
    value = i * i;                                     //@gv
    swapcontext(&gen_ctx, &main_ctx);                  //@gs
  }                                                    //@ge
  done = 1;
}

__attribute__((noinline)) static int consume(int v) {
  if (v > 8)                                           //@c1
    return *nowhere;                                   //@c2
  return v + 1;                                        //@c3
}                                                      //@ce

int main(void) {
  static char stack[64 * 1024];
  getcontext(&gen_ctx);                                //@g0
  gen_ctx.uc_stack.ss_sp = stack;                      //@s1
  gen_ctx.uc_stack.ss_size = sizeof stack;             //@s2
  gen_ctx.uc_link = &main_ctx;                         //@s3
  makecontext(&gen_ctx, generator, 0);                 //@mk
  int sum = 0;                                         //@sm
  while (!done) {                                      //@w
    swapcontext(&main_ctx, &gen_ctx);                  //@m1
    sum += consume(value);                             //@m2
  }
  printf("%d\n", sum);
  return 0;
}
