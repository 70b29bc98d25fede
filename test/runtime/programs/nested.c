/*
 * nested.c - a second fault while the crash dump is being written. argv[1]:
 *
 *   corrupt  a worker corrupts its own ring's descriptor (the runtime state the dump writer
 *            walks; corrupt_ring() in nested_corrupt.c), then the main thread divides by
 *            zero: the dump writer faults on the corrupted descriptor
 *   kill     the main thread aborts; with huge rings the dump takes a while, and a watcher
 *            thread sends SIGSEGV to the main thread once the dump file has its first 64 KiB
 *
 * Either way the process must die of the original signal (SIGFPE, SIGABRT), quickly. And two
 * cases where a crash meets an on-demand dump:
 *
 *   ondemand the ring is corrupted as above, then the main thread calls crashtrail_dump(): the
 *            writer faults in the thread that holds the dump; death by SIGSEGV, no wait
 *   busy     a worker calls crashtrail_dump() (slow with a huge ring); the main thread faults
 *            as soon as the file appears: its crash dump follows the requested one
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int corrupt_ring(void); /* nested_corrupt.c, built without crashtrail */
int crashtrail_dump(const char *reason) __attribute__((weak));

static volatile int sink;
static pthread_barrier_t corrupted; /* also: the watcher is ready */
static pid_t main_tid;

__attribute__((noinline)) static int step(int i) { return i * 9 + 2; }

static void *corrupter(void *arg) {
  for (int i = 0; i < 3; i++) sink += step(i);
  if (corrupt_ring() != 0) {
    fprintf(stderr, "could not find the ring\n");
    exit(4);
  }
  pthread_barrier_wait(&corrupted);
  for (;;) pause(); /* never record again: this thread's ring state is broken */
  return arg;
}

/* 1 if dir holds a dump file of at least min_bytes. */
static int dir_has_dump(const char *dir, off_t min_bytes) {
  DIR *d = opendir(dir);
  struct dirent *e;
  struct stat st;
  int found = 0;
  if (!d) return 0;
  while (!found && (e = readdir(d)))
    found = !strncmp(e->d_name, "crashtrail-", 11) &&
            fstatat(dirfd(d), e->d_name, &st, 0) == 0 && st.st_size >= min_bytes;
  closedir(d);
  return found;
}

static void wait_for_dump_file(const char *dir, off_t min_bytes) {
  struct timespec tick = {0, 100000};
  for (int i = 0; i < 100000 && !dir_has_dump(dir, min_bytes); i++) nanosleep(&tick, NULL);
}

/* Strikes once the dump has its first sections (64 KiB), well before its 128 MiB of rings.
 * It blocks every signal with the raw system call (the runtime's pthread_sigmask would keep
 * the capture signal deliverable), so the dump cannot stop it (CRASHTRAIL_CAPTURE_SIGNAL): the
 * dump waits CRASHTRAIL_CAPTURE_MS for it, then goes on without its registers. */
static void *watcher(void *arg) {
  uint64_t all = ~(uint64_t)0 & ~(((uint64_t)1 << 31) | ((uint64_t)1 << 32)); /* not 32, 33 */
  syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, sizeof all);
  (void)dir_has_dump(arg, 0); /* recorded: this thread's 64 MiB ring is part of the dump too */
  pthread_barrier_wait(&corrupted);
  wait_for_dump_file(arg, 64 * 1024);
  syscall(SYS_tgkill, getpid(), main_tid, SIGSEGV);
  return NULL;
}

static void *requester(void *arg) {
  for (int i = 0; i < 3; i++) sink += step(i);
  if (crashtrail_dump) crashtrail_dump("busy");
  return arg;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "corrupt";
  const char *dir = getenv("CRASHTRAIL_DIR");
  pthread_t t;
  for (int i = 0; i < 5; i++) sink += step(i);
  main_tid = (pid_t)syscall(SYS_gettid);
  if (!dir) return 2;
  if (!strcmp(mode, "corrupt") || !strcmp(mode, "ondemand")) {
    pthread_barrier_init(&corrupted, NULL, 2);
    pthread_create(&t, NULL, corrupter, NULL);
    pthread_barrier_wait(&corrupted);
    if (!strcmp(mode, "ondemand")) {
      if (crashtrail_dump) crashtrail_dump("corrupted");
      return 3;
    }
    volatile int zero = 0, num = 7;
    sink = num / zero;
  } else if (!strcmp(mode, "kill")) {
    pthread_barrier_init(&corrupted, NULL, 2);
    pthread_create(&t, NULL, watcher, (void *)dir);
    pthread_barrier_wait(&corrupted); /* the watcher is polling before the dump starts */
    abort();
  } else if (!strcmp(mode, "busy")) {
    pthread_create(&t, NULL, requester, NULL);
    wait_for_dump_file(dir, 1);
    *(volatile int *)(uintptr_t)48 = 1;
  }
  return 1;
}
