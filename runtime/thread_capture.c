/*
 * thread_capture.c - at a dump, stops every other live thread and takes its registers, so the
 * dump can hold each thread's stack and not only the dumping thread's (the post-mortem then
 * shows every thread's call stack and the unfinished path in its accumulator; with deferred
 * calls, the callers' paths that were still in registers). The threads are the rings' owners
 * and every thread /proc/self/task lists: one that never ran instrumented code (a library's
 * worker, a thread waiting for a lock the crashed one holds) has no history, but its stack
 * is what a core dump or a debugger would show of it.
 *
 * The dumping thread sends each such thread the capture signal (CRASHTRAIL_CAPTURE_SIGNAL,
 * a real-time signal, SIGRTMAX-3 unless set; 0 turns capture off) with tgkill. The handler,
 * on the stopped thread, copies its interrupted registers into its slot, counts itself in
 * `ct_captured` and waits on the futex `ct_hold` until the dump is written, so its stack and
 * its rings do not move while they are copied. The dumping thread waits for the count up to
 * CRASHTRAIL_CAPTURE_MS (default 300 ms): a thread that blocks the signal, or a handler that
 * never runs, costs that wait and nothing else (the dump goes without its registers). A
 * held thread gives up after 30 s on its own, so a dumping thread that dies cannot keep it.
 *
 * The handler is installed at the first dump that captures, and only over the default action:
 * a program with its own handler for that signal keeps it (and the dump the old behaviour).
 * It does nothing for a signal it did not send (a kill from outside, a late one after the
 * wait ended) and nothing in a thread without a slot. The signal stays deliverable as the
 * fault signals do (signal_mask.c: masks the program sets never block it); a thread that
 * blocks it anyway (a raw rt_sigprocmask) keeps it pending, and a program that reads that
 * signal with sigwait or a signalfd would get it, hence the setting. With SA_RESTART most
 * interrupted system calls resume; those Linux never restarts after a handler (poll,
 * epoll_wait, nanosleep, ...) return EINTR in the threads an on-demand dump stopped, as with
 * any profiler's signal.
 *
 * Everything here is async-signal-safe: sigaction, tgkill, futex, clock_gettime, arch_prctl,
 * open, getdents64, close.
 * Invariants: a slot is read by the dump only after its `done` is set (release/acquire);
 * `ct_hold` is 1 from before the first signal until ct_threads_release.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rt_internal.h"

#define CT_MAX_CAPTURED 1024
struct ct_capture_slot {
  _Atomic uint32_t tid;
  _Atomic int done;                 /* 1: regs hold the thread's registers */
  struct ct_ds_registers regs;
};
static struct ct_capture_slot ct_capture_slots[CT_MAX_CAPTURED];
static _Atomic uint32_t ct_capture_count; /* slots in use for the dump in progress */
static _Atomic uint32_t ct_captured; /* futex: slots filled */
static _Atomic uint32_t ct_hold;     /* futex: 1 while the dump needs the threads stopped */
static _Atomic int ct_capture_installed; /* 1: ours; -1: the program's handler, not replaced */
static int ct_capture_active; /* between ct_threads_capture and ct_threads_release (one dump) */

static long ct_futex(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *ts) {
  return syscall(SYS_futex, (uint32_t *)word, op | FUTEX_PRIVATE_FLAG, val, ts, NULL, 0);
}

static struct timespec ct_ns_to_ts(uint64_t ns) {
  struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
  return ts;
}

static void ct_capture_handler(int sig, siginfo_t *si, void *ucv) {
  int saved = errno;
  pid_t me = ct_gettid();
  uint32_t n = atomic_load_explicit(&ct_capture_count, memory_order_acquire);
  (void)sig;
  if (si->si_code != SI_TKILL || si->si_pid != getpid()) goto out;
  for (uint32_t i = 0; i < n && i < CT_MAX_CAPTURED; i++) {
    struct ct_capture_slot *s = &ct_capture_slots[i];
    if (atomic_load(&s->tid) != (uint32_t)me || atomic_load(&s->done)) continue;
    ct_registers_from((const ucontext_t *)ucv, me, &s->regs);
    atomic_store_explicit(&s->done, 1, memory_order_release);
    atomic_fetch_add(&ct_captured, 1);
    ct_futex(&ct_captured, FUTEX_WAKE, 1, NULL);
    uint64_t give_up = ct_monotonic_ns() + 30ull * 1000000000u;
    while (atomic_load(&ct_hold)) {
      uint64_t now = ct_monotonic_ns();
      if (now >= give_up) break;
      struct timespec ts = ct_ns_to_ts(give_up - now < 100000000u ? give_up - now : 100000000u);
      ct_futex(&ct_hold, FUTEX_WAIT, 1, &ts);
    }
    break;
  }
out:
  errno = saved;
}

/* Installs the handler over the default action; 1 if ours is installed. */
static int ct_capture_install(void) {
  int state = atomic_load(&ct_capture_installed);
  struct sigaction sa, old;
  if (state) return state > 0;
  if (sigaction(ct_cfg.capture_signal, NULL, &old) != 0) return 0;
  int free_to_take = (old.sa_flags & SA_SIGINFO)
                         ? old.sa_sigaction == ct_capture_handler
                         : old.sa_handler == SIG_DFL || old.sa_handler == SIG_IGN;
  if (!free_to_take) {
    atomic_store(&ct_capture_installed, -1);
    return 0;
  }
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = ct_capture_handler;
  /* On the thread's own stack, below the interrupted frame's red zone, which the dump's slice
   * starts at: the alternate stack would do as well, but under valgrind a handler that returns
   * from it leaves memcheck reporting the thread's stack writes (runtime.valgrind). */
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigfillset(&sa.sa_mask);
  if (sigaction(ct_cfg.capture_signal, &sa, NULL) != 0) return 0;
  atomic_store(&ct_capture_installed, 1);
  return 1;
}

/* Adds tid to the slots unless it is there, or is self or also. */
static uint32_t ct_capture_add(uint32_t n, uint32_t tid, pid_t self, pid_t also) {
  uint32_t i;
  if (!tid || (pid_t)tid == self || (pid_t)tid == also || n >= CT_MAX_CAPTURED) return n;
  for (i = 0; i < n && atomic_load(&ct_capture_slots[i].tid) != tid; i++) {
  }
  if (i < n) return n;
  atomic_store(&ct_capture_slots[n].done, 0);
  atomic_store(&ct_capture_slots[n].tid, tid);
  return n + 1;
}

/* Adds the process's other live threads, from /proc/self/task (open, getdents64 and close:
 * system calls, async-signal-safe; the buffer is static, as one dump runs at a time). */
static uint32_t ct_capture_add_tasks(uint32_t n, pid_t self, pid_t also) {
  static _Alignas(8) char buf[4096];
  int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return n;
  for (long got; (got = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0;) {
    unsigned short reclen;
    /* struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type, name */
    for (long off = 0; off < got; off += reclen) {
      memcpy(&reclen, buf + off + 16, sizeof reclen);
      if (!reclen) break;
      uint32_t tid = 0;
      const char *c = buf + off + 19;
      while (*c >= '0' && *c <= '9' && tid <= UINT32_MAX / 10)
        tid = tid * 10 + (uint32_t)(*c++ - '0');
      if (!*c) n = ct_capture_add(n, tid, self, also); /* "." and ".." give no tid */
    }
  }
  close(fd);
  return n;
}

uint32_t ct_threads_capture(pid_t self, pid_t also) {
  uint32_t n = 0, sent = 0;
  if (ct_capture_active) return atomic_load(&ct_capture_count); /* the fallback directory's try */
  if (!ct_cfg.capture_signal || !ct_capture_install()) return 0;
  ct_capture_active = 1;
  atomic_store(&ct_hold, 1);
  atomic_store(&ct_captured, 0);
  for (struct ct_ring *r = atomic_load(&ct_ring_list); r && n < CT_MAX_CAPTURED; r = r->next)
    if (!(atomic_load(&r->flags) & (CT_THR_EXITED | CT_THR_PREFORK | CT_RING_CLAIMED)))
      n = ct_capture_add(n, atomic_load(&r->tid), self, also);
  /* and every other thread of the process, whether it ever recorded or not: a thread waiting
   * in uninstrumented code (a lock's owner, a library's worker) is part of what happened */
  n = ct_capture_add_tasks(n, self, also);
  atomic_store_explicit(&ct_capture_count, n, memory_order_release);
  for (uint32_t i = 0; i < n; i++)
    if (syscall(SYS_tgkill, getpid(), (pid_t)atomic_load(&ct_capture_slots[i].tid),
                ct_cfg.capture_signal) == 0)
      sent++;
  uint64_t deadline = ct_monotonic_ns() + (uint64_t)ct_cfg.capture_ms * 1000000u;
  for (;;) {
    uint32_t got = atomic_load(&ct_captured);
    uint64_t now = ct_monotonic_ns();
    if (got >= sent || now >= deadline) break;
    struct timespec ts = ct_ns_to_ts(deadline - now);
    ct_futex(&ct_captured, FUTEX_WAIT, got, &ts);
  }
  return n;
}

const struct ct_ds_registers *ct_stopped_registers(uint32_t i) {
  if (i >= atomic_load(&ct_capture_count) || i >= CT_MAX_CAPTURED ||
      atomic_load_explicit(&ct_capture_slots[i].done, memory_order_acquire) != 1)
    return NULL;
  return &ct_capture_slots[i].regs;
}

pid_t ct_stopped_tid(uint32_t i) {
  if (i >= atomic_load(&ct_capture_count) || i >= CT_MAX_CAPTURED) return 0;
  return (pid_t)atomic_load(&ct_capture_slots[i].tid);
}

void ct_threads_release(void) {
  ct_capture_active = 0;
  atomic_store(&ct_capture_count, 0);
  atomic_store(&ct_hold, 0);
  ct_futex(&ct_hold, FUTEX_WAKE, INT_MAX, NULL);
}
