/*
 * safe_io.c - async-signal-safe building blocks: clocks, thread ids, whole writes, small file
 * reads, and one-line messages to stderr.
 *
 * Everything here runs in any context, the crash handler included: only raw system calls
 * (clock_gettime, gettid, open, read, write, close), no stdio, no allocation, no locale.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rt_internal.h"

uint64_t ct_monotonic_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

pid_t ct_gettid(void) { return (pid_t)syscall(SYS_gettid); }

/* write(2) as a raw system call: a sanitizer's write() interceptor would check the buffer, and
 * the dump writes memory it does not own (the crashing thread's stack, with its redzones). */
ssize_t ct_sys_write(int fd, const void *buf, size_t len) {
  return (ssize_t)syscall(SYS_write, fd, buf, len);
}

size_t ct_strlen(const char *s) {
  size_t n = 0;
  if (s)
    while (s[n]) n++;
  return n;
}

void ct_strlcpy(char *dst, const char *src, size_t cap) {
  size_t i = 0;
  if (cap == 0) return;
  if (src)
    for (; src[i] && i + 1 < cap; i++) dst[i] = src[i];
  dst[i] = 0;
}

/* Returns 0 when every byte was written, -errno otherwise (EFAULT for unreadable memory). */
int ct_write_all(int fd, const void *buf, size_t len) {
  const char *p = buf;
  while (len > 0) {
    ssize_t n = ct_sys_write(fd, p, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -errno;
    }
    if (n == 0) return -ENOSPC;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

/* Reads up to cap-1 bytes of a (small, /proc) file and terminates them; -1 on error. */
ssize_t ct_read_file(const char *path, char *buf, size_t cap) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  size_t got = 0;
  if (fd < 0) return -1;
  while (got + 1 < cap) {
    ssize_t n = read(fd, buf + got, cap - 1 - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += (size_t)n;
  }
  close(fd);
  buf[got] = 0;
  return (ssize_t)got;
}

void ct_msg_str(struct ct_msg *m, const char *s) {
  while (s && *s && m->len + 1 < sizeof m->buf) m->buf[m->len++] = *s++;
}

void ct_msg_dec(struct ct_msg *m, int64_t v) {
  char tmp[24];
  int n = 0;
  uint64_t u = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
  if (v < 0) ct_msg_str(m, "-");
  do {
    tmp[n++] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  while (n > 0 && m->len + 1 < sizeof m->buf) m->buf[m->len++] = tmp[--n];
}

void ct_msg_hex(struct ct_msg *m, uint64_t v) {
  char tmp[18];
  int n = 0;
  ct_msg_str(m, "0x");
  do {
    tmp[n++] = "0123456789abcdef"[v & 15];
    v >>= 4;
  } while (v);
  while (n > 0 && m->len + 1 < sizeof m->buf) m->buf[m->len++] = tmp[--n];
}

void ct_msg_emit(struct ct_msg *m) {
  m->buf[m->len++] = '\n';
  (void)ct_write_all(2, m->buf, m->len);
  m->len = 0;
}

const char *ct_signal_name(int signo) {
  switch (signo) {
  case SIGSEGV: return "SIGSEGV";
  case SIGBUS: return "SIGBUS";
  case SIGILL: return "SIGILL";
  case SIGFPE: return "SIGFPE";
  case SIGABRT: return "SIGABRT";
  case SIGTRAP: return "SIGTRAP";
  case SIGSYS: return "SIGSYS";
  case SIGQUIT: return "SIGQUIT";
  case SIGTERM: return "SIGTERM";
  case SIGUSR1: return "SIGUSR1";
  case SIGUSR2: return "SIGUSR2";
  case SIGINT: return "SIGINT";
  case SIGHUP: return "SIGHUP";
  case SIGALRM: return "SIGALRM";
  case SIGKILL: return "SIGKILL";
  case SIGPIPE: return "SIGPIPE";
  default: return "SIG?";
  }
}

const char *ct_signal_code_name(int signo, int code) {
  if (code == SI_USER) return "SI_USER";
  if (code == SI_TKILL) return "SI_TKILL";
  if (code == SI_QUEUE) return "SI_QUEUE";
  switch (signo) {
  case SIGSEGV:
    if (code == SEGV_MAPERR) return "SEGV_MAPERR";
    if (code == SEGV_ACCERR) return "SEGV_ACCERR";
    break;
  case SIGBUS:
    if (code == BUS_ADRALN) return "BUS_ADRALN";
    if (code == BUS_ADRERR) return "BUS_ADRERR";
    if (code == BUS_OBJERR) return "BUS_OBJERR";
    break;
  case SIGFPE:
    if (code == FPE_INTDIV) return "FPE_INTDIV";
    if (code == FPE_INTOVF) return "FPE_INTOVF";
    if (code == FPE_FLTDIV) return "FPE_FLTDIV";
    if (code == FPE_FLTINV) return "FPE_FLTINV";
    break;
  case SIGILL:
    if (code == ILL_ILLOPC) return "ILL_ILLOPC";
    if (code == ILL_ILLOPN) return "ILL_ILLOPN";
    if (code == ILL_PRVOPC) return "ILL_PRVOPC";
    break;
  case SIGTRAP:
    if (code == TRAP_BRKPT) return "TRAP_BRKPT";
    if (code == TRAP_TRACE) return "TRAP_TRACE";
    break;
  case SIGSYS:
    if (code == 1) return "SYS_SECCOMP";
    break;
  }
  return code == SI_KERNEL ? "SI_KERNEL" : "?";
}
