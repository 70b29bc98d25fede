/*
 * crash_handler.c - fatal-signal handling: dump once, then die exactly as without crashtrail.
 *
 *   fault / abort / kill
 *          |
 *   ct_crash_handler (alternate stack, compromised context)
 *          |-- nested fault in this thread? --> ct_die(original signal)
 *          |-- first crashing thread? ---------> write the dump, print its path (after an
 *          |                                     on-demand dump in another thread: bounded wait;
 *          |                                     in this thread: no dump)
 *          |-- another thread is dumping? -----> wait for it (bounded)
 *          v
 *   restore the previous action, then
 *     synchronous fault (SEGV/BUS/ILL/FPE from the CPU): return; the instruction faults again
 *     anything else (abort, kill, int3, seccomp): re-send the same siginfo to this thread
 *   the previous handler (or the default action: core dump, exit status) takes it from there;
 *   if nothing does, ct_die is the quiet final fallback.
 *
 * Order with the program's own handlers: a handler installed before crashtrail's runs after the
 * dump (it is restored and the signal re-delivered to it); one installed after crashtrail's runs
 * first and reaches crashtrail only if it chains to the action it replaced (as crash reporters
 * and well-behaved runtimes do), or after the program calls crashtrail_install_handlers().
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rt_internal.h"

static const int ct_fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};
#define CT_NFATAL (sizeof ct_fatal_signals / sizeof ct_fatal_signals[0])
static struct sigaction ct_previous[CT_NFATAL];
static _Atomic pid_t ct_crash_owner; /* the thread that writes the crash dump; 0 before */
static volatile sig_atomic_t ct_dump_finished;

static int ct_fatal_index(int sig) {
  for (size_t i = 0; i < CT_NFATAL; i++)
    if (ct_fatal_signals[i] == sig) return (int)i;
  return -1;
}

/* Dies of sig with its default action, whatever state the process is in. compromised */
static void __attribute__((noreturn)) ct_die(int sig) {
  struct sigaction dfl;
  sigset_t set;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigaction(sig, &dfl, NULL);
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  syscall(SYS_tgkill, getpid(), ct_gettid(), sig);
  _exit(128 + sig); /* only if the default action of sig does not terminate */
}

static void ct_announce(const siginfo_t *si, pid_t tid, const char *path, int ok) {
  struct ct_msg m = {{0}, 0};
  ct_msg_str(&m, "crashtrail: ");
  ct_msg_str(&m, ct_signal_name(si->si_signo));
  ct_msg_str(&m, " (");
  ct_msg_str(&m, ct_signal_code_name(si->si_signo, si->si_code));
  if (si->si_signo == SIGSEGV || si->si_signo == SIGBUS) {
    ct_msg_str(&m, " at ");
    ct_msg_hex(&m, (uint64_t)(uintptr_t)si->si_addr);
  }
  ct_msg_str(&m, ") in thread ");
  ct_msg_dec(&m, tid);
  ct_msg_str(&m, " of process ");
  ct_msg_dec(&m, getpid());
  if (ok) {
    ct_msg_str(&m, "; dump written to ");
    ct_msg_str(&m, path);
  } else {
    ct_msg_str(&m, "; no dump written");
  }
  ct_msg_emit(&m);
}

/* Another thread writes the crash dump: wait for it (bounded), then a little longer, so that
 * thread takes the process down with the first signal. compromised */
static void ct_wait_for_dump(void) {
  struct timespec ten_ms = {0, 10 * 1000 * 1000};
  for (int i = 0; i < 6000 && !ct_dump_finished; i++) nanosleep(&ten_ms, NULL);
  for (int i = 0; i < 100; i++) nanosleep(&ten_ms, NULL);
}

/* Takes the dump writer for the crash dump. An on-demand dump in another thread is waited for
 * (bounded); one in this very thread (the dump writer faulted, or a fatal signal interrupted
 * it) cannot be, and its static buffers are half-used: give up. 1 if acquired. compromised */
static int ct_acquire_for_crash(pid_t tid) {
  struct timespec ten_ms = {0, 10 * 1000 * 1000};
  for (int i = 0; i < 1000; i++) {
    if (ct_dump_acquire(tid)) return 1;
    if (ct_dump_owner() == tid) return 0;
    nanosleep(&ten_ms, NULL);
  }
  return 0;
}

static void ct_crash_handler(int sig, siginfo_t *si, void *ucv) {
  struct ct_thread *t = ct_self();
  int saved_errno = errno, idx = ct_fatal_index(sig);
  pid_t tid = ct_gettid(), first = 0;
  static char path[CT_PATH_MAX];
  if (t->in_handler) ct_die(t->in_handler); /* a fault while handling a fault */
  t->in_handler = sig;
  if (ct_cfg.enabled && !ct_cfg.setid_blocked) {
    if (atomic_compare_exchange_strong(&ct_crash_owner, &first, tid)) {
      int ok = 0;
      if (ct_acquire_for_crash(tid)) {
        struct ct_dump_request req = {CT_REASON_SIGNAL, "", si, ucv, tid};
        ok = ct_dump_write(&req, path, sizeof path) == 0;
        ct_dump_release();
      }
      ct_announce(si, tid, path, ok);
      ct_dump_finished = 1;
    } else if (first != tid) {
      ct_wait_for_dump();
    } /* else: this thread dumped already and meets a later signal (abort after a report) */
  }
  if (idx < 0) ct_die(sig);
  sigaction(sig, &ct_previous[idx], NULL);
  t->in_handler = 0;
  errno = saved_errno;
  if (si->si_code > 0 && (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE))
    return; /* the faulting instruction runs again and meets the previous action */
  if (syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, sig, si) != 0)
    syscall(SYS_tgkill, getpid(), tid, sig);
  /* With SA_NODEFER the re-sent signal is delivered before this returns; if the previous
   * action ignores it, the program goes on, as it would have without crashtrail. */
}

void ct_install_crash_handlers(void) {
  struct sigaction sa;
  struct ct_msg kept = {{0}, 0};
  int nkept = 0;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = ct_crash_handler;
  /* NODEFER: a fault inside the handler re-enters it and ct_die ends the process with the
   * original signal instead of the kernel killing it with the nested one. */
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigfillset(&sa.sa_mask);
  for (size_t i = 0; i < CT_NFATAL; i++) sigdelset(&sa.sa_mask, ct_fatal_signals[i]);
  for (size_t i = 0; i < CT_NFATAL; i++) {
    struct sigaction cur;
    if (sigaction(ct_fatal_signals[i], NULL, &cur) != 0) continue;
    if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == ct_crash_handler) continue;
    if (sigaction(ct_fatal_signals[i], &sa, &ct_previous[i]) != 0) continue;
    /* A sanitizer that owns a signal (AddressSanitizer with allow_user_segv_handler=0) makes
     * sigaction succeed without installing anything: check, and say so. */
    if (sigaction(ct_fatal_signals[i], NULL, &cur) == 0 &&
        !((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == ct_crash_handler)) {
      if (!nkept) ct_msg_str(&kept, "crashtrail: another runtime keeps the handler of");
      ct_msg_str(&kept, " ");
      ct_msg_str(&kept, ct_signal_name(ct_fatal_signals[i]));
      nkept++;
    }
  }
  ct_keep_faults_deliverable();
  if (nkept) {
    ct_msg_str(&kept, " (AddressSanitizer with allow_user_segv_handler=0?); no dump on ");
    ct_msg_str(&kept, nkept > 1 ? "these signals" : "this signal");
    ct_msg_emit(&kept);
  }
}

CT_EXPORT void crashtrail_install_handlers(void) {
  ct_ensure_init();
  ct_install_crash_handlers();
}
