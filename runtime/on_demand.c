/*
 * on_demand.c - dumps without dying: the crashtrail_dump() API and the signal chosen by
 * CRASHTRAIL_DUMP_SIGNAL, so a hung or misbehaving production process can be inspected.
 *
 * Both run in any context. A dump already in progress (a crash, or another request) wins: the
 * request fails with a message instead of waiting, so a dump signal sent twice cannot deadlock.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "rt_internal.h"

static int ct_dump_now(const char *reason, const siginfo_t *si, const ucontext_t *uc) {
  static char path[CT_PATH_MAX];
  struct ct_msg m = {{0}, 0};
  pid_t tid = ct_gettid();
  struct ct_dump_request req = {CT_REASON_REQUEST, reason ? reason : "", NULL, uc, tid};
  int rc;
  (void)si;
  ct_ensure_init();
  if (ct_cfg.setid_blocked) {
    ct_msg_str(&m, "crashtrail: dumps are off in a set-id process (CRASHTRAIL_ALLOW_SETID=1)");
    ct_msg_emit(&m);
    return -1;
  }
  if (!ct_dump_acquire(tid)) {
    ct_msg_str(&m, "crashtrail: a dump is already being written; request ignored");
    ct_msg_emit(&m);
    return -1;
  }
  rc = ct_dump_write(&req, path, sizeof path);
  ct_dump_release();
  if (rc == 0) {
    ct_msg_str(&m, "crashtrail: dump written to ");
    ct_msg_str(&m, path);
    if (reason && *reason) {
      ct_msg_str(&m, " (");
      ct_msg_str(&m, reason);
      ct_msg_str(&m, ")");
    }
    ct_msg_emit(&m);
  }
  return rc;
}

CT_EXPORT int crashtrail_dump(const char *reason) {
  int saved = errno, rc = ct_dump_now(reason, NULL, NULL);
  errno = saved;
  return rc;
}

CT_EXPORT const char *crashtrail_last_dump_path(void) {
  return ct_last_dump[0] ? ct_last_dump : NULL;
}

static void ct_dump_signal_handler(int sig, siginfo_t *si, void *uc) {
  int saved = errno;
  (void)ct_dump_now(ct_signal_name(sig), si, uc);
  errno = saved;
}

void ct_install_dump_signal(void) {
  struct sigaction sa;
  if (!ct_cfg.dump_signal) return;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = ct_dump_signal_handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(ct_cfg.dump_signal, &sa, NULL);
}
