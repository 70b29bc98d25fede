/* A fault inside code without line information, turned into abort() by the program's own
 * SIGSEGV handler (as gawk's catchsig does): the stack must go on through the signal
 * trampoline into the interrupted frame and its callers. The fault is the first instruction
 * after a push: looked up at pc-1, as if it were a return address, the interrupted frame's
 * call-frame information is the row before the push, and the return address is read from the
 * wrong slot (the stack then ended in garbage after the trampoline).
 *
 * crashtrail-e2e
 * signal: SIGABRT
 * expect-O0: m1 m2 w1 w2 w1 w2 w1 w2 w1 w3 h1
 * expect-O2: m1 m2 w1 w2 w1 w2 w1 w2 w1 w3 h1
 * stack: on_segv load_after_push walk walk walk walk main
 * stack-contains: <signal handler called>
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

/* Loads from its argument right after saving %rbx (the instruction that faults is the one
 * after the push), with exact call-frame information. */
void *load_after_push(void **p);
__asm__(".text\n"
        ".globl load_after_push\n"
        ".type load_after_push, @function\n"
        "load_after_push:\n"
        ".cfi_startproc\n"
        "  push %rbx\n"
        ".cfi_adjust_cfa_offset 8\n"
        ".cfi_rel_offset %rbx, 0\n"
        "  mov (%rdi), %rax\n"
        "  pop %rbx\n"
        ".cfi_adjust_cfa_offset -8\n"
        ".cfi_restore %rbx\n"
        "  ret\n"
        ".cfi_endproc\n"
        ".size load_after_push, .-load_after_push\n");

volatile int depth_seen;

static void on_segv(int sig) {
  (void)sig;
  abort();                                             //@h1
}

/* Not a tail call: each level keeps its frame. */
__attribute__((noinline)) void walk(void **p, int n) {
  if (n > 0) {                                         //@w1
    walk(p, n - 1);                                    //@w2
    depth_seen++;
    return;
  }
  printf("%p\n", load_after_push(p));                  //@w3
}

int main(int argc, char **argv) {
  signal(SIGSEGV, on_segv);                            //@m1
  walk(argc > 5 ? (void **)argv : NULL, 3);            //@m2
  return 0;
}
