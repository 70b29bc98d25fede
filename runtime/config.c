/*
 * config.c - reads the CRASHTRAIL_* environment once, at start-up (normal context).
 *
 * Every variable is in the table of docs/runtime.md. A bad value is reported once on stderr and
 * the default is used: a typo in a deployment must not silently disable crash dumps, nor stop
 * the program.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "rt_internal.h"

#define CT_DEFAULT_RING_KB 256
#define CT_DEFAULT_STACK_KB 64
#define CT_DEFAULT_KEEP_EXITED 64

struct ct_config ct_cfg;

static void ct_config_warn(const char *name, const char *value, const char *why) {
  struct ct_msg m = {{0}, 0};
  ct_msg_str(&m, "crashtrail: ignoring ");
  ct_msg_str(&m, name);
  ct_msg_str(&m, "=");
  ct_msg_str(&m, value);
  ct_msg_str(&m, ": ");
  ct_msg_str(&m, why);
  ct_msg_emit(&m);
}

/* Parses a decimal size in [lo, hi]; 1 and *out set on success, 0 (and a warning) otherwise. */
static int ct_config_size(const char *name, size_t lo, size_t hi, size_t *out) {
  const char *v = getenv(name);
  char *end;
  unsigned long long n;
  if (!v) return 0;
  errno = 0;
  n = strtoull(v, &end, 10);
  if (errno || end == v || *end || v[0] == '-' || n < lo || n > hi) {
    char why[96];
    snprintf(why, sizeof why, "expected a whole number from %zu to %zu", lo, hi);
    ct_config_warn(name, v, why);
    return 0;
  }
  *out = (size_t)n;
  return 1;
}

static int ct_config_flag(const char *name, int dflt) {
  const char *v = getenv(name);
  if (!v) return dflt;
  if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "on") || !strcasecmp(v, "true"))
    return 1;
  if (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "off") || !strcasecmp(v, "false"))
    return 0;
  ct_config_warn(name, v, "expected 1 or 0");
  return dflt;
}

/* A time grain in microseconds as log2 of CT_SYM_NOW units, rounded up to a power of two; 0 keeps
 * the unit (no rounding). */
static unsigned ct_config_grain(const char *name) {
  size_t us = CT_NOW_THREADED_GRAIN_US;
  unsigned shift = 0;
  (void)ct_config_size(name, 0, 60 * 1000 * 1000, &us);
  while (shift < 40 && ((uint64_t)1 << (shift + CT_NOW_SHIFT)) < (uint64_t)us * 1000) shift++;
  return shift;
}

static int ct_config_signal(const char *name) {
  static const struct { const char *name; int signo; } known[] = {
      {"SIGUSR1", SIGUSR1}, {"SIGUSR2", SIGUSR2}, {"SIGQUIT", SIGQUIT}, {"SIGHUP", SIGHUP},
      {"SIGWINCH", SIGWINCH}, {"SIGPWR", SIGPWR}, {"SIGTTIN", SIGTTIN}, {"SIGTTOU", SIGTTOU}};
  const char *v = getenv(name);
  char *end;
  long n;
  if (!v || !*v) return 0;
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (!strcasecmp(v, known[i].name) || !strcasecmp(v, known[i].name + 3)) return known[i].signo;
  n = strtol(v, &end, 10);
  if (!*end && n >= SIGRTMIN && n <= SIGRTMAX) return (int)n;
  if (!*end && (n == SIGUSR1 || n == SIGUSR2 || n == SIGQUIT || n == SIGHUP)) return (int)n;
  ct_config_warn(name, v, "expected SIGUSR1, SIGUSR2, SIGQUIT, SIGHUP, SIGWINCH, SIGPWR or a "
                          "real-time signal number");
  return 0;
}

/* The signal that stops other threads at a dump: a real-time signal number, "RTMAX-N", or 0
 * (off). SIGRTMAX-3 by default: glibc takes the lowest ones, programs count up from SIGRTMIN. */
static int ct_config_capture_signal(const char *name) {
  const char *v = getenv(name);
  char *end;
  long n;
  if (!v || !*v) return SIGRTMAX - 3;
  if (!strcasecmp(v, "off") || !strcmp(v, "0")) return 0;
  if (!strncasecmp(v, "SIGRTMAX-", 9) || !strncasecmp(v, "RTMAX-", 6)) {
    const char *d = v + (v[0] == 'S' || v[0] == 's' ? 9 : 6);
    n = strtol(d, &end, 10);
    if (end != d && !*end && n >= 0 && SIGRTMAX - n >= SIGRTMIN) return (int)(SIGRTMAX - n);
  } else {
    n = strtol(v, &end, 10);
    if (end != v && !*end && n >= SIGRTMIN && n <= SIGRTMAX) return (int)n;
  }
  ct_config_warn(name, v, "expected a real-time signal number, SIGRTMAX-N, or 0 (off)");
  return SIGRTMAX - 3;
}

static void ct_config_dir(void) {
  const char *v = getenv("CRASHTRAIL_DIR");
  const char *tmp = getenv("TMPDIR");
  char resolved[PATH_MAX];
  if (!v || !*v) v = ".";
  if (realpath(v, resolved)) {
    ct_strlcpy(ct_cfg.dir, resolved, sizeof ct_cfg.dir);
  } else {
    /* Keep the name: the directory may appear later; the dump path reports the failure. */
    if (v[0] == '/' || !getcwd(resolved, sizeof resolved))
      ct_strlcpy(ct_cfg.dir, v, sizeof ct_cfg.dir);
    else
      snprintf(ct_cfg.dir, sizeof ct_cfg.dir, "%s/%s", resolved, v);
  }
  ct_strlcpy(ct_cfg.fallback_dir, tmp && tmp[0] == '/' ? tmp : "/tmp", sizeof ct_cfg.fallback_dir);
}

void ct_config_load(void) {
  size_t kb;
  ssize_t n;
  int allow_setid;
  memset(&ct_cfg, 0, sizeof ct_cfg);
  ct_cfg.ring_bytes = (size_t)CT_DEFAULT_RING_KB * 1024;
  ct_cfg.stack_bytes = (size_t)CT_DEFAULT_STACK_KB * 1024;
  ct_cfg.keep_exited = CT_DEFAULT_KEEP_EXITED;
  if (ct_config_size("CRASHTRAIL_RING_KB", 8, (size_t)4 << 20, &kb))
    ct_cfg.ring_bytes = kb * 1024 < 2 * CT_CHUNK_BYTES /* a lap must leave a full chunk */
                            ? 2 * CT_CHUNK_BYTES
                            : (kb * 1024 + CT_CHUNK_BYTES - 1) / CT_CHUNK_BYTES * CT_CHUNK_BYTES;
  if (ct_config_size("CRASHTRAIL_STACK_KB", 0, 64 * 1024, &kb)) ct_cfg.stack_bytes = kb * 1024;
  (void)ct_config_size("CRASHTRAIL_KEEP_EXITED", 0, 100000, &ct_cfg.keep_exited);
  ct_cfg.enabled = ct_config_flag("CRASHTRAIL_ENABLE", 1);
  ct_cfg.fsync_dump = ct_config_flag("CRASHTRAIL_FSYNC", 0);
  ct_cfg.direct_io = ct_config_flag("CRASHTRAIL_DIRECT_IO", 1);
  ct_cfg.dump_signal = ct_config_signal("CRASHTRAIL_DUMP_SIGNAL");
  ct_cfg.threaded_grain = ct_config_grain("CRASHTRAIL_TABLE_GRAIN_US");
  ct_cfg.capture_signal = ct_config_capture_signal("CRASHTRAIL_CAPTURE_SIGNAL");
  ct_cfg.capture_ms = 300;
  if (ct_config_size("CRASHTRAIL_CAPTURE_MS", 0, 60000, &kb)) ct_cfg.capture_ms = (unsigned)kb;
  /* A set-id program must not write its memory where its invoker can read it. The flag is
   * read (and a bad value reported) in every process, not only in set-id ones. */
  allow_setid = ct_config_flag("CRASHTRAIL_ALLOW_SETID", 0);
  ct_cfg.setid_blocked = getauxval(AT_SECURE) && !allow_setid;
  ct_config_dir();
  n = readlink("/proc/self/exe", ct_cfg.exe_path, sizeof ct_cfg.exe_path - 1);
  ct_cfg.exe_path[n > 0 ? n : 0] = 0;
}
