/*
 * dump_writer.c - writes a dump file (docs/dump-format.md) from any context, the crash handler
 * included ("compromised context": the heap, stdio and any lock may be broken).
 *
 * Only open, write, pwrite, read, close, unlink, sigaction, clock_gettime, getpid and friends.
 * Memory is written straight from where it lives: write(2) returns EFAULT for an unreadable
 * address instead of faulting, so a stack slice that runs off its mapping is cut, not fatal.
 * It is issued as a raw system call (ct_sys_write): under AddressSanitizer, write() is an
 * interceptor that reports the stack's redzones as a bug and kills the process mid-dump.
 * Section lengths are patched with pwrite(2) once a section is complete, so sections of
 * unknown length (the maps file) stream without a buffer.
 * Ring bytes, nearly all of a dump, go out with O_DIRECT (set on the descriptor with fcntl for
 * that write only; CRASHTRAIL_DIRECT_IO=0 turns it off): the kernel then takes no page-cache
 * memory for them, which at a crash may be scarce and on a VM is slow to get the first time
 * (64 MB: about 36 ms direct against 90-140 ms through a cold page cache on the benchmark's
 * VM), and the bytes are on the device when the write returns. A PAD section before each ring
 * puts its bytes at a file offset that is a multiple of 4096, as O_DIRECT needs (a ring is
 * page-aligned and a whole number of pages long). Whatever the direct write does not take (a
 * file system without O_DIRECT, a short write) is written through the page cache after it.
 *
 * Under valgrind's memcheck the dump is written with error reporting off: it copies memory as
 * it is, the stack's uninitialised slots and the bytes past its end up to the kernel's EFAULT
 * included, which memcheck would report as a program error (a client request: a few no-op
 * instructions when valgrind is absent, and only on the dump's path).
 *
 * Invariant: a dump either ends with a CT_DS_END section whose total equals the file size, or
 * the reader treats it as truncated. Static buffers are safe: ct_dump_acquire lets one thread
 * at a time in.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <asm/prctl.h>

#include "rt_internal.h"

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef VALGRIND_DISABLE_ERROR_REPORTING
#define VALGRIND_DISABLE_ERROR_REPORTING
#define VALGRIND_ENABLE_ERROR_REPORTING
#endif

char ct_last_dump[CT_PATH_MAX];
static _Atomic pid_t ct_dump_owner_tid;

int ct_dump_acquire(pid_t tid) {
  pid_t none = 0;
  return atomic_compare_exchange_strong(&ct_dump_owner_tid, &none, tid);
}

void ct_dump_release(void) { atomic_store(&ct_dump_owner_tid, 0); }

pid_t ct_dump_owner(void) { return atomic_load(&ct_dump_owner_tid); }

struct ct_out {
  int fd;
  int direct; /* ring bytes are tried with O_DIRECT */
  uint64_t off;
  int err; /* first errno that stopped the dump, 0 while all is well */
};

static void ct_out_bytes(struct ct_out *o, const void *buf, size_t len) {
  int rc;
  if (o->err || len == 0) return;
  rc = ct_write_all(o->fd, buf, len);
  if (rc < 0) {
    o->err = -rc;
    return;
  }
  o->off += len;
}

/* Writes readable memory; stops quietly at the first unreadable page. Returns bytes written.
 * The whole rest goes in one write(2) (64 MB of rings in 4 KB pieces was 16384 system calls,
 * most of a dump's time); the kernel copies up to an unreadable page and returns the count, or
 * EFAULT when the first byte is unreadable. After an EFAULT one page is tried alone, so a
 * short write is never mistaken for the end of readable memory. */
static size_t ct_out_memory(struct ct_out *o, uintptr_t addr, size_t len) {
  size_t done = 0;
  int page_wise = 0;
  while (!o->err && done < len) {
    size_t piece = len - done;
    if (page_wise) {
      piece = 4096 - ((addr + done) & 4095);
      if (piece > len - done) piece = len - done;
    }
    ssize_t n = ct_sys_write(o->fd, (const void *)(addr + done), piece);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EFAULT && !page_wise) {
      page_wise = 1;
      continue;
    }
    if (n < 0 && errno == EFAULT) break;
    page_wise = 0;
    if (n <= 0) {
      o->err = n < 0 ? errno : ENOSPC;
      break;
    }
    done += (size_t)n;
    o->off += (uint64_t)n;
  }
  return done;
}

static void ct_out_pad(struct ct_out *o) {
  static const char zeros[8];
  ct_out_bytes(o, zeros, (size_t)((8 - (o->off & 7)) & 7));
}

static uint64_t ct_section_begin(struct ct_out *o, uint32_t type) {
  uint32_t h[4] = {type, 0, 0, 0};
  uint64_t at = o->off;
  ct_out_bytes(o, h, sizeof h);
  return at;
}

static void ct_section_end(struct ct_out *o, uint64_t at) {
  uint64_t len = o->off - at - CT_DUMP_SECTION_HEADER_BYTES;
  if (!o->err && pwrite(o->fd, &len, sizeof len, (off_t)(at + 8)) != (ssize_t)sizeof len)
    o->err = errno ? errno : EIO;
  ct_out_pad(o);
}

static void ct_section(struct ct_out *o, uint32_t type, const void *a, size_t alen,
                       const void *b, size_t blen) {
  uint64_t at = ct_section_begin(o, type);
  ct_out_bytes(o, a, alen);
  ct_out_bytes(o, b, blen);
  ct_section_end(o, at);
}

/* A PAD section so that `lead` bytes after it the file offset is a multiple of 4096 (the
 * offset and lead are multiples of 8, and so is the pad). */
static void ct_out_align(struct ct_out *o, uint64_t lead) {
  static const char zeros[4096];
  if (((o->off + lead) & 4095) == 0) return;
  uint64_t pad = (4096 - ((o->off + CT_DUMP_SECTION_HEADER_BYTES + lead) & 4095)) & 4095;
  ct_section(o, CT_DS_PAD, zeros, (size_t)pad, NULL, 0);
}

/* Page-aligned memory at a page-aligned offset, with O_DIRECT where the file system takes it;
 * the rest (all of it without O_DIRECT) through ct_out_bytes. */
static void ct_out_direct(struct ct_out *o, const void *buf, size_t len) {
  int fl = fcntl(o->fd, F_GETFL);
  size_t done = 0;
  if (!o->err && o->direct && fl >= 0 && (o->off & 4095) == 0 &&
      fcntl(o->fd, F_SETFL, fl | O_DIRECT) == 0) {
    while (done < len) {
      ssize_t n = ct_sys_write(o->fd, (const char *)buf + done, len - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += (size_t)n;
    }
    o->off += done;
    if (fcntl(o->fd, F_SETFL, fl) != 0) o->err = errno;
    if (done < len) o->direct = 0; /* refused or cut short: the page cache from here on */
  }
  ct_out_bytes(o, (const char *)buf + done, len - done);
}

static const char *ct_errno_name(int e) {
  switch (e) {
  case EACCES: return "permission denied";
  case EPERM: return "operation not permitted";
  case ENOENT: return "no such directory";
  case ENOTDIR: return "not a directory";
  case ENOSPC: return "no space left on device";
  case EDQUOT: return "disk quota exceeded";
  case EROFS: return "read-only file system";
  case EFBIG: return "file size limit exceeded";
  case EMFILE: return "too many open files";
  case ENFILE: return "too many open files in system";
  case ELOOP: return "symbolic link in the way";
  case EIO: return "input/output error";
  default: return "error";
  }
}

/* Appends YYYYmmddTHHMMSS (UTC) for t seconds since the epoch (days-from-civil, inverted). */
static void ct_msg_utc(struct ct_msg *m, int64_t t) {
  int64_t days = t / 86400, secs = t % 86400;
  int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097, yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153, d = doy - (153 * mp + 2) / 5 + 1, mo = mp < 10 ? mp + 3 : mp - 9;
  int64_t parts[6] = {y + (mo <= 2), mo, d, secs / 3600, secs / 60 % 60, secs % 60};
  for (int i = 0; i < 6; i++) {
    if (i == 3) ct_msg_str(m, "T");
    if (i > 0 && parts[i] < 10) ct_msg_str(m, "0");
    ct_msg_dec(m, parts[i]);
  }
}

/* Creates a new dump file in dir; the name has the pid and the time, and O_EXCL retries make it
 * unique even for two dumps in the same second. Returns the fd, or -errno. */
static int ct_dump_open(const char *dir, char *path, size_t cap, int64_t now_sec) {
  const char *exe = ct_cfg.exe_path, *base = exe;
  for (const char *p = exe; *p; p++)
    if (*p == '/') base = p + 1;
  for (int n = 0; n < 100; n++) {
    struct ct_msg m = {{0}, 0};
    int fd;
    ct_msg_str(&m, dir);
    ct_msg_str(&m, "/crashtrail-");
    ct_msg_str(&m, *base ? base : "process");
    ct_msg_str(&m, "-");
    ct_msg_dec(&m, getpid());
    ct_msg_str(&m, "-");
    ct_msg_utc(&m, now_sec);
    if (n > 0) {
      ct_msg_str(&m, "-");
      ct_msg_dec(&m, n);
    }
    ct_msg_str(&m, ".ctd");
    m.buf[m.len] = 0;
    fd = open(m.buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
      ct_strlcpy(path, m.buf, cap);
      return fd;
    }
    if (errno != EEXIST) return -errno;
  }
  return -EEXIST;
}

static void ct_write_process(struct ct_out *o, const struct ct_dump_request *req,
                             const struct timespec *rt, uint64_t mono) {
  static char cmdline[4096];
  ssize_t ncmd = ct_read_file("/proc/self/cmdline", cmdline, sizeof cmdline);
  struct ct_ds_process p;
  uint64_t at;
  memset(&p, 0, sizeof p);
  p.pid = (uint32_t)getpid();
  p.ppid = (uint32_t)getppid();
  p.uid = (uint32_t)getuid();
  p.reason = (uint32_t)req->reason;
  p.realtime_sec = rt->tv_sec;
  p.realtime_nsec = (uint32_t)rt->tv_nsec;
  p.abi_version = CT_ABI_VERSION;
  p.monotonic_ns = mono;
  p.exe_len = (uint32_t)ct_strlen(ct_cfg.exe_path);
  p.reason_len = (uint32_t)ct_strlen(req->reason_text);
  p.cmdline_len = ncmd > 0 ? (uint32_t)ncmd : 0;
  at = ct_section_begin(o, CT_DS_PROCESS);
  ct_out_bytes(o, &p, sizeof p);
  ct_out_bytes(o, ct_cfg.exe_path, p.exe_len);
  ct_out_bytes(o, req->reason_text, p.reason_len);
  ct_out_bytes(o, cmdline, p.cmdline_len);
  ct_section_end(o, at);
}

void ct_registers_from(const ucontext_t *uc, pid_t tid, struct ct_ds_registers *r) {
  static const int map[17] = {REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI,
                              REG_RBP, REG_RSP, REG_R8,  REG_R9,  REG_R10, REG_R11,
                              REG_R12, REG_R13, REG_R14, REG_R15, REG_RIP};
  unsigned long fs = 0;
  memset(r, 0, sizeof *r);
  r->tid = (uint32_t)tid;
  r->arch = CT_ARCH_X86_64;
  r->nregs = CT_REG_COUNT;
  for (int i = 0; i < 17; i++) r->regs[i] = (uint64_t)uc->uc_mcontext.gregs[map[i]];
  r->regs[17] = (uint64_t)uc->uc_mcontext.gregs[REG_EFL];
  if (tid == ct_gettid() && syscall(SYS_arch_prctl, ARCH_GET_FS, &fs) == 0) r->regs[18] = fs;
}

/* A thread's registers, then the stack above its stack pointer (sections regs_type and
 * stack_type: the dump's own thread's, or another thread's stopped for the dump). */
static void ct_write_regs_and_stack(struct ct_out *o, uint32_t regs_type, uint32_t stack_type,
                                    const struct ct_ds_registers *regs) {
  ct_section(o, regs_type, regs, sizeof *regs, NULL, 0);
  if (ct_cfg.stack_bytes) {
    struct ct_ds_stack st = {.tid = regs->tid};
    uint64_t at, end;
    st.start = (regs->regs[CT_REG_SP] - 128) & ~(uint64_t)15; /* include the red zone */
    end = st.start + ct_cfg.stack_bytes;
    at = ct_section_begin(o, stack_type);
    ct_out_bytes(o, &st, sizeof st);
    /* After a stack overflow the red zone (or the stack pointer itself) is in the guard page:
     * start at the first readable page instead of writing nothing, and patch the start. */
    while (!o->err && st.start < end &&
           ct_out_memory(o, (uintptr_t)st.start, (size_t)(end - st.start)) == 0)
      st.start = (st.start | 4095) + 1;
    if (!o->err && pwrite(o->fd, &st.start, sizeof st.start,
                          (off_t)(at + CT_DUMP_SECTION_HEADER_BYTES +
                                  offsetof(struct ct_ds_stack, start))) != sizeof st.start)
      o->err = errno ? errno : EIO;
    ct_section_end(o, at);
  }
}

/* The thread the dump is about. */
static void ct_write_thread_state(struct ct_out *o, const struct ct_dump_request *req) {
  struct ct_ds_registers regs;
  ucontext_t here;
  const ucontext_t *uc = req->uc;
  if (!uc) {
    if (getcontext(&here) != 0) return;
    uc = &here;
  }
  ct_registers_from(uc, req->tid, &regs);
  ct_write_regs_and_stack(o, CT_DS_REGISTERS, CT_DS_STACK, &regs);
}

/* Every other thread, stopped for the dump (thread_capture.c). The stopping comes after the
 * small sections: it walks the ring list, which a corrupt runtime state may make fault, and
 * the dump then keeps what it has written (as with the rings). */
static void ct_write_stopped_threads(struct ct_out *o, const struct ct_dump_request *req) {
  uint32_t n = ct_threads_capture(ct_gettid(), req->tid);
  for (uint32_t i = 0; i < n; i++) {
    const struct ct_ds_registers *regs = ct_stopped_registers(i);
    if (regs) ct_write_regs_and_stack(o, CT_DS_THREAD_REGISTERS, CT_DS_THREAD_STACK, regs);
  }
}

static void ct_write_maps(struct ct_out *o) {
  static char buf[16384];
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  uint64_t at;
  if (fd < 0) return;
  at = ct_section_begin(o, CT_DS_MAPS);
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    ct_out_bytes(o, buf, (size_t)n);
  }
  close(fd);
  ct_section_end(o, at);
}

/* The vDSO's image, where it was mapped (vdso.c): its symbols and call-frame information are
 * in no file. */
static void ct_write_vdso(struct ct_out *o) {
  uint64_t addr = (uint64_t)ct_vdso_addr, at;
  if (!ct_vdso_addr) return;
  at = ct_section_begin(o, CT_DS_VDSO);
  ct_out_bytes(o, &addr, sizeof addr);
  (void)ct_out_memory(o, ct_vdso_addr, ct_vdso_len);
  ct_section_end(o, at);
}

/* The event log, oldest first: once it has wrapped, from the next slot to be overwritten. */
static void ct_write_events(struct ct_out *o) {
  uint32_t n = atomic_load(&ct_event_count), first = n % CT_MAX_EVENTS;
  if (n <= CT_MAX_EVENTS)
    ct_section(o, CT_DS_EVENTS, ct_events, sizeof ct_events[0] * n, NULL, 0);
  else
    ct_section(o, CT_DS_EVENTS, &ct_events[first],
               sizeof ct_events[0] * (CT_MAX_EVENTS - first), ct_events,
               sizeof ct_events[0] * first);
}

static void ct_write_modules(struct ct_out *o) {
  uint32_t n = atomic_load(&ct_module_count);
  ct_table_maps_fold_self(); /* this thread's table marks since its clock last moved */
  for (uint32_t i = 0; i < n && i < CT_MAX_MODULES; i++) {
    const struct ct_module *m = &ct_modules[i];
    struct ct_ds_module d;
    uint64_t at;
    if (!m->desc) continue;
    memset(&d, 0, sizeof d);
    d.id = m->id;
    d.flags = m->flags;
    d.load_bias = m->load_bias;
    d.map_start = m->map_start;
    d.map_end = m->map_end;
    d.load_ns = m->load_ns;
    d.unload_ns = m->unload_ns;
    d.build_id_len = m->build_id_len;
    d.path_len = (uint32_t)ct_strlen(m->path);
    d.record_base = (uint64_t)(uintptr_t)m->desc;
    at = ct_section_begin(o, CT_DS_MODULE);
    ct_out_bytes(o, &d, sizeof d);
    ct_out_bytes(o, m->build_id, d.build_id_len);
    ct_out_bytes(o, m->path, d.path_len);
    ct_section_end(o, at);
    if (m->tab_start && m->tab_stop > m->tab_start) {
      struct ct_ds_table t = {.module_id = m->id, .grain = ct_now_grain(), .start = m->tab_addr};
      t.now = ct_monotonic_ns() >> CT_NOW_SHIFT;
      at = ct_section_begin(o, CT_DS_TABLE);
      ct_out_bytes(o, &t, sizeof t);
      (void)ct_out_memory(o, (uintptr_t)m->tab_start,
                          (size_t)((char *)m->tab_stop - (char *)m->tab_start));
      ct_section_end(o, at);
    }
  }
}

/* A thread section; a thread that is gone has no /proc entry: `saved` is the name it had. */
static void ct_write_one_thread(struct ct_out *o, pid_t tid, uint32_t flags, const char *saved) {
  struct ct_ds_thread th;
  char path[64], name[32];
  struct ct_msg m = {{0}, 0};
  ssize_t n;
  memset(&th, 0, sizeof th);
  th.tid = (uint32_t)tid;
  th.flags = flags;
  ct_msg_str(&m, "/proc/self/task/");
  ct_msg_dec(&m, tid);
  ct_msg_str(&m, "/comm");
  memcpy(path, m.buf, m.len);
  path[m.len] = 0;
  n = (flags & (CT_THR_EXITED | CT_THR_PREFORK)) ? -1 : ct_read_file(path, name, sizeof name);
  if (n > 0 && name[n - 1] == '\n') name[--n] = 0;
  if (n > 0) ct_strlcpy(th.name, name, sizeof th.name);
  else if (saved) memcpy(th.name, saved, sizeof th.name);
  ct_section(o, CT_DS_THREAD, &th, sizeof th, NULL, 0);
}

/* Threads: every owner of a ring (once) plus the thread the dump is about. */
static void ct_write_threads_and_rings(struct ct_out *o, const struct ct_dump_request *req) {
  static uint32_t seen[4096];
  size_t nseen = 0;
  int have_req = 0;
  for (struct ct_ring *r = atomic_load(&ct_ring_list); r; r = r->next) {
    uint32_t tid = atomic_load(&r->tid), flags = atomic_load(&r->flags);
    size_t i;
    for (i = 0; i < nseen && seen[i] != tid; i++) {
    }
    if (i == nseen && nseen < sizeof seen / sizeof seen[0]) {
      uint32_t tf = flags & (CT_THR_EXITED | CT_THR_PREFORK);
      if ((pid_t)tid == req->tid) {
        tf = req->si ? CT_THR_CRASHED : 0;
        have_req = 1;
      }
      if ((pid_t)tid == ct_gettid()) tf |= CT_THR_DUMPING;
      seen[nseen++] = tid;
      ct_write_one_thread(o, (pid_t)tid, tf, (tf & CT_THR_EXITED) ? r->name : NULL);
    }
  }
  if (!have_req)
    ct_write_one_thread(o, req->tid, (req->si ? CT_THR_CRASHED : 0) |
                                         (req->tid == ct_gettid() ? CT_THR_DUMPING : 0), NULL);
  /* the threads stopped for the dump that own no ring: their stacks without history */
  for (uint32_t i = 0; ct_stopped_tid(i); i++) {
    uint32_t tid = (uint32_t)ct_stopped_tid(i);
    size_t k;
    for (k = 0; k < nseen && seen[k] != tid; k++) {
    }
    if (k == nseen && (pid_t)tid != req->tid && ct_stopped_registers(i))
      ct_write_one_thread(o, (pid_t)tid, 0, NULL);
  }
  for (struct ct_ring *r = atomic_load(&ct_ring_list); r; r = r->next) {
    struct ct_ds_ring d;
    uint64_t at;
    memset(&d, 0, sizeof d);
    d.module_id = r->module->id;
    d.tid = atomic_load(&r->tid);
    d.base = (uint64_t)(uintptr_t)r->base;
    d.size = r->size;
    d.pos = ct_ring_pos_of(r);
    d.flags = atomic_load(&r->flags) & (CT_THR_EXITED | CT_THR_PREFORK);
    if (o->direct) ct_out_align(o, CT_DUMP_SECTION_HEADER_BYTES + sizeof d);
    at = ct_section_begin(o, CT_DS_RING);
    ct_out_bytes(o, &d, sizeof d);
    ct_out_direct(o, r->base, r->size);
    ct_section_end(o, at);
  }
}

static void ct_report_failure(const char *dir, int err, const char *then) {
  struct ct_msg m = {{0}, 0};
  ct_msg_str(&m, "crashtrail: cannot write a dump in ");
  ct_msg_str(&m, dir);
  ct_msg_str(&m, ": ");
  ct_msg_str(&m, ct_errno_name(err));
  ct_msg_str(&m, " (errno ");
  ct_msg_dec(&m, err);
  ct_msg_str(&m, ")");
  ct_msg_str(&m, then);
  ct_msg_emit(&m);
}

/* Writes the whole dump into dir. 0 on success; -errno (file removed) otherwise. */
static int ct_dump_into(const char *dir, const struct ct_dump_request *req, char *path,
                        size_t cap) {
  struct timespec rt;
  struct ct_out o = {-1, ct_cfg.direct_io, 0, 0};
  char header[CT_DUMP_HEADER_BYTES];
  uint32_t version = CT_DUMP_VERSION, hbytes = CT_DUMP_HEADER_BYTES;
  uint64_t mono = ct_monotonic_ns(), total;
  clock_gettime(CLOCK_REALTIME, &rt);
  o.fd = ct_dump_open(dir, path, cap, rt.tv_sec);
  if (o.fd < 0) return o.fd;
  memset(header, 0, sizeof header);
  memcpy(header, CT_DUMP_MAGIC, 8);
  memcpy(header + 8, &version, 4);
  memcpy(header + 12, &hbytes, 4);
  ct_out_bytes(&o, header, sizeof header);
  ct_write_process(&o, req, &rt, mono);
  if (req->si) {
    struct ct_ds_signal s;
    memset(&s, 0, sizeof s);
    s.signo = req->si->si_signo;
    s.code = req->si->si_code;
    s.err_no = req->si->si_errno;
    s.tid = (uint32_t)req->tid;
    s.fault_addr = (uint64_t)(uintptr_t)req->si->si_addr;
    if (req->si->si_code <= 0) {
      s.sender_pid = req->si->si_pid;
      s.sender_uid = (int32_t)req->si->si_uid;
    }
    ct_section(&o, CT_DS_SIGNAL, &s, sizeof s, NULL, 0);
  }
  ct_write_thread_state(&o, req);
  ct_write_modules(&o);
  ct_write_events(&o);
  ct_write_maps(&o);
  ct_write_vdso(&o);
  ct_write_stopped_threads(&o, req);
  ct_write_threads_and_rings(&o, req); /* the bulk last: a cut file keeps the small parts */
  total = o.off + CT_DUMP_SECTION_HEADER_BYTES + 8;
  ct_section(&o, CT_DS_END, &total, sizeof total, NULL, 0);
  /* A dump in the page cache outlives the process; only a machine crash before write-back
   * loses it. fsync was half of a 64 MB dump's time (25 of 42 ms), during which a crashed
   * process cannot be restarted: it is asked for with CRASHTRAIL_FSYNC=1. */
  if (ct_cfg.fsync_dump && !o.err && fsync(o.fd) != 0 && errno != EINVAL && errno != EROFS)
    o.err = errno;
  if (close(o.fd) != 0 && !o.err) o.err = errno;
  if (o.err) {
    unlink(path);
    return -o.err;
  }
  return 0;
}

int ct_dump_write(const struct ct_dump_request *req, char *path, size_t cap) {
  struct sigaction ign = {.sa_handler = SIG_IGN}, old_xfsz;
  int rc, saved_errno = errno;
  /* Over RLIMIT_FSIZE, write(2) must fail with EFBIG, not kill us with SIGXFSZ. The kernel
   * drops an ignored signal only while it is unblocked: the crash handler blocks SIGXFSZ, so
   * it is queued instead and would kill the process once the handler returns. Setting SIG_IGN
   * again, before restoring the old action, discards it. */
  sigaction(SIGXFSZ, &ign, &old_xfsz);
  VALGRIND_DISABLE_ERROR_REPORTING;
  rc = ct_dump_into(ct_cfg.dir, req, path, cap);
  if (rc < 0) {
    ct_report_failure(ct_cfg.dir, -rc, "; trying the fallback directory");
    rc = ct_dump_into(ct_cfg.fallback_dir, req, path, cap);
    if (rc < 0) ct_report_failure(ct_cfg.fallback_dir, -rc, "; no dump was written");
  }
  ct_threads_release();
  VALGRIND_ENABLE_ERROR_REPORTING;
  sigaction(SIGXFSZ, &ign, NULL);
  sigaction(SIGXFSZ, &old_xfsz, NULL);
  if (rc == 0) ct_strlcpy(ct_last_dump, path, sizeof ct_last_dump);
  errno = saved_errno;
  return rc < 0 ? -1 : 0;
}
