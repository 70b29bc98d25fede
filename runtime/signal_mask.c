/*
 * signal_mask.c - the fault signals stay deliverable whatever the program blocks.
 *
 * A fault the CPU raises while its signal is blocked is never delivered: the kernel resets the
 * action to the default and kills the process, so no handler runs and no dump is written.
 * Programs block signals all the time: thread pools create their workers with every signal
 * blocked (liblzma), daemons block everything in the main thread to read signals from a
 * signalfd or sigwait, handlers run with a full sa_mask. Two layers keep SIGSEGV, SIGBUS,
 * SIGILL, SIGFPE, SIGTRAP and SIGSYS deliverable (SIGABRT is left alone: abort() unblocks it),
 * and the signal that stops threads for a dump (CRASHTRAIL_CAPTURE_SIGNAL, thread_capture.c):
 * a worker that blocked it would be dumped without its stack.
 *
 *   a thread's first record     ct_unblock_faults (ring.c): the mask it was created with
 *   every later change          sigprocmask, pthread_sigmask and sigaction's sa_mask, defined
 *                               here: the program's own calls bind to these (crashtrail-cc
 *                               exports them to its shared libraries too), and the fault
 *                               signals are taken out of every set they would block
 *
 * Invariant: while crashtrail's handlers are installed, no mask set through these functions
 * blocks a fault signal; everything else behaves as glibc does. The masks go straight to the
 * rt_sigprocmask system call with glibc's own rule (its internal signals 32 and 33, thread
 * cancellation and set*id broadcast, are never blocked), so the wrappers are async-signal-safe
 * and need no dlsym, and a static link works (libc.a defines these names weak). sigaction goes
 * to glibc's exported __sigaction. A sanitizer's interceptor, when one is linked, is called
 * instead of the system call, so that its bookkeeping still sees the call.
 *
 * What the program can see: a mask read back lacks the fault signals, and a kill() of one of
 * them aimed at a thread that "blocked" it is handled (by crashtrail's handler, which passes it
 * to the action it replaced) instead of left pending. Not covered: the masks glibc sets
 * internally (its calls do not go through the exported names) and raw rt_sigprocmask system
 * calls.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt_internal.h"

#define CT_SIGBIT(s) ((uint64_t)1 << ((s) - 1))
/* The signals the kernel forces on a thread (CPU faults, seccomp), whose blocking kills:
 * crash_handler.c's ct_fatal_signals but SIGABRT. */
static const uint64_t ct_fault_bits = CT_SIGBIT(SIGSEGV) | CT_SIGBIT(SIGBUS) | CT_SIGBIT(SIGILL) |
                                      CT_SIGBIT(SIGFPE) | CT_SIGBIT(SIGTRAP) | CT_SIGBIT(SIGSYS);
/* glibc's SIGCANCEL and SIGSETXID (__SIGRTMIN and __SIGRTMIN + 1), never blocked by glibc. */
static const uint64_t ct_glibc_internal_bits = CT_SIGBIT(32) | CT_SIGBIT(33);

static _Atomic int ct_faults_kept; /* crashtrail's handlers are installed */
static _Atomic uint64_t ct_capture_bits; /* CRASHTRAIL_CAPTURE_SIGNAL's bit, 0 when off */

/* Sanitizer runtimes define these (with the plain names as weak aliases, which ours override). */
extern int __interceptor_sigprocmask(int, const sigset_t *, sigset_t *) __attribute__((weak));
extern int __interceptor_pthread_sigmask(int, const sigset_t *, sigset_t *) __attribute__((weak));
extern int __interceptor_sigaction(int, const struct sigaction *, struct sigaction *)
    __attribute__((weak));
extern int __sigaction(int, const struct sigaction *, struct sigaction *); /* glibc */

void ct_keep_faults_deliverable(void) { ct_faults_kept = 1; }

void ct_keep_capture_deliverable(int signo) {
  ct_capture_bits = signo > 0 && signo <= 64 ? CT_SIGBIT(signo) : 0;
}

/* Takes the fault signals (and glibc's internal ones) out of a set that is to be blocked;
 * *copy receives the edited set. any */
static const sigset_t *ct_blockable(const sigset_t *set, sigset_t *copy) {
  uint64_t bits;
  memcpy(&bits, set, sizeof bits);
  uint64_t drop = ct_glibc_internal_bits | (ct_faults_kept ? ct_fault_bits : 0) | ct_capture_bits;
  if (!(bits & drop)) return set;
  *copy = *set;
  bits &= ~drop;
  memcpy(copy, &bits, sizeof bits);
  return copy;
}

/* The set a mask change passes on: a set to block or to set loses the fault signals; one to
 * unblock stays as it is. any */
static const sigset_t *ct_mask_arg(int how, const sigset_t *set, sigset_t *copy) {
  return set && how != SIG_UNBLOCK ? ct_blockable(set, copy) : set;
}

/* The mask change itself: 0 or an errno value; errno untouched. any */
static int ct_change_mask(int how, const sigset_t *set, sigset_t *old) {
  sigset_t copy;
  set = ct_mask_arg(how, set, &copy);
  int saved = errno;
  if (__interceptor_pthread_sigmask) {
    int rc = __interceptor_pthread_sigmask(how, set, old);
    errno = saved;
    return rc;
  }
  /* The kernel's sigset is 64 bits; glibc's sigset_t is larger and passes the same size. */
  long rc = syscall(SYS_rt_sigprocmask, how, set, old, sizeof(uint64_t));
  int err = rc < 0 ? errno : 0;
  errno = saved;
  return err;
}

CT_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old) {
  return ct_change_mask(how, set, old);
}

CT_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old) {
  if (__interceptor_sigprocmask) {
    sigset_t copy;
    return __interceptor_sigprocmask(how, ct_mask_arg(how, set, &copy), old);
  }
  int err = ct_change_mask(how, set, old);
  if (!err) return 0;
  errno = err;
  return -1;
}

CT_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  struct sigaction copy;
  if (act) {
    sigset_t mask;
    const sigset_t *m = ct_blockable(&act->sa_mask, &mask);
    if (m != &act->sa_mask) {
      copy = *act;
      copy.sa_mask = mask;
      act = &copy;
    }
  }
  if (__interceptor_sigaction) return __interceptor_sigaction(sig, act, old);
  return __sigaction(sig, act, old);
}

/* A thread created with every signal blocked (pthread_create copies the creator's mask, and
 * pthread_attr_setsigmask_np sets one) unblocks the fault signals (and the capture signal) at
 * its first record. A kill
 * of such a signal aimed at the thread is then delivered rather than left pending. any */
void ct_unblock_faults(void) {
  uint64_t bits = ct_fault_bits | ct_capture_bits;
  (void)syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &bits, NULL, sizeof bits);
}
