// A signal handler leaves by siglongjmp (-crashtrail-defer-calls), on the alternate signal stack
// and on the thread's own: the frame that raised the signal was in a deferred call into code
// without records (raise), and the handler is that call's callback. The runtime's wrapper walks
// through the signal frame and writes the frame's path (runtime/longjmp_save.c); the parse takes
// the handler's invocation for the callback of the call the frame was in (postorder.c,
// place_abandoned), where it had left both out of place.
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static sigjmp_buf env;
static volatile int sink;

static void on_usr1(int sig) {
  (void)sig;
  if (sink > 1) sink--;
  siglongjmp(env, 3);
}

__attribute__((noinline)) static void leaf(int x) {
  if (x > 2) sink += x;
}

__attribute__((noinline)) static void work(int x) {
  if (x & 1) sink++;
  leaf(x);
  if (x > 3) raise(SIGUSR1);
  leaf(x + 1);
}

static char altstack[65536];

int main(int argc, char **argv) {
  (void)argv;
  stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
  sigaltstack(&ss, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sa.sa_flags = SA_ONSTACK;
  sigaction(SIGUSR1, &sa, 0);
  int r = sigsetjmp(env, 1);
  if (r == 0) work(argc + 4);
  printf("back %d\n", r);
  sa.sa_flags = 0;
  sigaction(SIGUSR1, &sa, 0);
  r = sigsetjmp(env, 1);
  if (r == 0) work(argc + 6);
  printf("back %d\n", r);
  return 0;
}
