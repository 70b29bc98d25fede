/*
 * crash.c - dies of one fatal signal, chosen by argv[1], after a few recorded steps.
 *
 *   segv bus ill fpe abort assert trap sys overflow
 *   overflow-thread  deep recursion in a second thread, named ct-deep
 *   overflow-quiet-thread  the same in a thread that runs no instrumented code (its start
 *                  routine and recursion opted out, as a library's worker), named ct-quiet
 *   heapoverflow   (only for -fsanitize=address builds: a report, not a signal)
 *
 * The main thread is named "ct-main" so the dump's crashed thread can be checked by name.
 * Built twice by run_runtime_test.py: with crashtrail-cc and with plain clang, to compare how
 * the process dies.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) static int step(int i) {
  if (i % 2) return i * 3;
  return i + 1;
}

static void crash_segv(void) { *(volatile int *)(uintptr_t)16 = 1; }

/* A shared mapping two pages long over a one-page file: the second page is past EOF. */
static void crash_bus(void) {
  int fd = (int)syscall(SYS_memfd_create, "ct-bus", 0);
  if (fd < 0 || ftruncate(fd, 4096) != 0) exit(90);
  volatile char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) exit(91);
  p[0] = 1;
  p[4096] = 1;
}

static void crash_ill(void) { __builtin_trap(); }

static void crash_fpe(void) {
  volatile int zero = 0, num = 1000; /* 1 / x would become a compare, not a division */
  sink = num / zero;
}

static void crash_abort(void) { abort(); }

static void crash_assert(int argc) { assert(argc < 0 && "argc is never negative"); }

static void crash_trap(void) { __builtin_debugtrap(); }

/* seccomp: uname(2) traps (SECCOMP_RET_TRAP sends SIGSYS); every other system call is allowed,
 * so the dump writer is unaffected. */
static void crash_sys(void) {
  struct sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_uname, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {sizeof filter / sizeof filter[0], filter};
  struct utsname u;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) exit(92);
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) exit(93);
  syscall(SYS_uname, &u);
}

/* Deep recursion: each frame keeps a live 512-byte array, so nothing is a tail call. */
__attribute__((noinline)) static int recurse(int n) {
  volatile char frame[512];
  frame[n % 512] = (char)n;
  return recurse(n + 1) + frame[(n * 7) % 512];
}

/* One byte past a heap block: AddressSanitizer reports it; without ASan it goes unnoticed. */
static void heap_overflow(int n) {
  char *volatile p = malloc(8);
  p[n + 8] = 1;
  free(p);
}

static void *deep(void *arg) {
  pthread_setname_np(pthread_self(), "ct-deep");
  sink = recurse(0);
  return arg;
}

/* A thread that never records: without the runtime's own set-up at creation it would have no
 * alternate signal stack, and its overflow would kill the process without a dump. */
__attribute__((noinline, no_instrument_function)) static int recurse_quiet(int n) {
  volatile char frame[512];
  frame[n % 512] = (char)n;
  return recurse_quiet(n + 1) + frame[(n * 7) % 512];
}

__attribute__((no_instrument_function)) static void *quiet(void *arg) {
  pthread_setname_np(pthread_self(), "ct-quiet");
  sink = recurse_quiet(0);
  return arg;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "segv";
  pthread_setname_np(pthread_self(), "ct-main");
  for (int i = 0; i < 5; i++) sink += step(i);
  printf("crashing: %s\n", mode);
  fflush(stdout);
  if (!strcmp(mode, "segv")) crash_segv();
  else if (!strcmp(mode, "bus")) crash_bus();
  else if (!strcmp(mode, "ill")) crash_ill();
  else if (!strcmp(mode, "fpe")) crash_fpe();
  else if (!strcmp(mode, "abort")) crash_abort();
  else if (!strcmp(mode, "assert")) crash_assert(argc);
  else if (!strcmp(mode, "trap")) crash_trap();
  else if (!strcmp(mode, "sys")) crash_sys();
  else if (!strcmp(mode, "overflow")) sink = recurse(0);
  else if (!strcmp(mode, "overflow-thread")) {
    pthread_t t;
    pthread_create(&t, NULL, deep, NULL);
    pthread_join(t, NULL);
  }
  else if (!strcmp(mode, "overflow-quiet-thread")) {
    pthread_t t;
    pthread_create(&t, NULL, quiet, NULL);
    pthread_join(t, NULL);
  }
  else if (!strcmp(mode, "heapoverflow")) heap_overflow(argc - 2);
  else return 2;
  printf("survived %s\n", mode);
  return 1;
}
