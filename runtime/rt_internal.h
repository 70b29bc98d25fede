/*
 * rt_internal.h - what the runtime's files share with each other (never installed).
 *
 * Each function below says in which context it may run:
 *   normal      ordinary program context (may allocate, lock, call libc freely)
 *   any         also inside a signal handler, including the crash handler: only
 *               async-signal-safe calls, no locks, no allocation
 * The runtime itself is never instrumented (it is compiled without the plugin).
 */
#ifndef CT_RT_INTERNAL_H
#define CT_RT_INTERNAL_H

#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <ucontext.h>

#include "crashtrail/abi.h"
#include "crashtrail/dump_format.h"

#define CT_HIDDEN __attribute__((visibility("hidden")))
#define CT_EXPORT __attribute__((visibility("default")))

#define CT_PATH_MAX 1024
#define CT_MAX_MODULES 256
#define CT_MAX_EVENTS 1024
#define CT_ALTSTACK_BYTES (64 * 1024)

/* ---- configuration (config.c) ---------------------------------------------------------------- */
struct ct_config {
  char dir[CT_PATH_MAX];          /* absolute dump directory */
  char fallback_dir[CT_PATH_MAX]; /* used when dir cannot take the dump */
  char exe_path[CT_PATH_MAX];     /* /proc/self/exe, resolved at start-up */
  size_t ring_bytes;              /* per thread per module, multiple of CT_CHUNK_BYTES */
  size_t stack_bytes;             /* crashing thread's stack slice; 0 = none */
  size_t keep_exited;             /* exited threads' rings kept per module before reuse */
  int enabled;                    /* dump on fatal signals */
  int dump_signal;                /* on-demand dump signal, 0 = none */
  int setid_blocked;              /* set-id process without CRASHTRAIL_ALLOW_SETID */
  int fsync_dump;                 /* CRASHTRAIL_FSYNC: fsync(2) a dump before returning */
  int direct_io;                  /* CRASHTRAIL_DIRECT_IO: rings written with O_DIRECT */
  unsigned threaded_grain;        /* CRASHTRAIL_TABLE_GRAIN_US as log2 of CT_SYM_NOW units */
  int capture_signal;             /* CRASHTRAIL_CAPTURE_SIGNAL: stops other threads, 0 = off */
  unsigned capture_ms;            /* CRASHTRAIL_CAPTURE_MS: how long a dump waits for them */
};
CT_HIDDEN extern struct ct_config ct_cfg;
CT_HIDDEN void ct_config_load(void); /* normal */

/* ---- async-signal-safe helpers (safe_io.c) -------------------------------------------------- */
CT_HIDDEN uint64_t ct_monotonic_ns(void);              /* any */
CT_HIDDEN pid_t ct_gettid(void);                       /* any */
CT_HIDDEN size_t ct_strlen(const char *s);             /* any */
CT_HIDDEN void ct_strlcpy(char *dst, const char *src, size_t cap); /* any */
CT_HIDDEN ssize_t ct_sys_write(int fd, const void *buf, size_t len); /* any: never intercepted */
CT_HIDDEN int ct_write_all(int fd, const void *buf, size_t len);   /* any: 0 or -errno */
CT_HIDDEN ssize_t ct_read_file(const char *path, char *buf, size_t cap); /* any */

/* A fixed-size line builder for messages written with one write(2). */
struct ct_msg {
  char buf[768];
  size_t len;
};
CT_HIDDEN void ct_msg_str(struct ct_msg *m, const char *s);      /* any */
CT_HIDDEN void ct_msg_dec(struct ct_msg *m, int64_t v);          /* any */
CT_HIDDEN void ct_msg_hex(struct ct_msg *m, uint64_t v);         /* any */
CT_HIDDEN void ct_msg_emit(struct ct_msg *m);                    /* any: to stderr, + newline */
CT_HIDDEN const char *ct_signal_name(int signo);                 /* any */
CT_HIDDEN const char *ct_signal_code_name(int signo, int code);  /* any */

/* ---- the vDSO image (vdso.c) ------------------------------------------------------------------ */
#define CT_VDSO_MAX_BYTES (64 * 1024)
CT_HIDDEN extern uintptr_t ct_vdso_addr; /* 0: none found */
CT_HIDDEN extern size_t ct_vdso_len;
CT_HIDDEN void ct_vdso_locate(void); /* normal */

/* ---- modules (modules.c) ---------------------------------------------------------------------- */
struct ct_module {
  const struct ct_module_desc *desc;
  uint32_t id, flags;               /* CT_MOD_* */
  uintptr_t load_bias, map_start, map_end;
  uint64_t load_ns, unload_ns;
  struct ct_table_entry *tab_start, *tab_stop; /* after unload: a copy owned by the runtime */
  uintptr_t tab_addr;               /* where the tables lived in the module (for the metadata) */
  const struct ct_table_map *maps_start, *maps_stop; /* its units' byte maps (table_maps.c) */
  uint32_t build_id_len;
  uint8_t build_id[64];
  char path[CT_PATH_MAX];
};
CT_HIDDEN extern struct ct_module ct_modules[CT_MAX_MODULES];
CT_HIDDEN extern _Atomic uint32_t ct_module_count;
CT_HIDDEN struct ct_module *ct_module_for(struct ct_module_desc *desc); /* any (registers once) */
CT_HIDDEN const struct ct_module *ct_module_at(uintptr_t addr); /* any: whose code is at addr */
CT_HIDDEN void ct_modules_after_fork(void);   /* normal (atfork child) */

/* ---- tables mode's per-thread byte maps (table_maps.c) ------------------------------------ */
CT_HIDDEN extern _Atomic int ct_table_maps_present; /* 1 once a module with maps registered */
CT_HIDDEN void ct_table_maps_fold(uint64_t now);  /* any: this thread's marks into the tables */
CT_HIDDEN void ct_table_maps_fold_self(void);     /* any: the same at the thread's CT_SYM_NOW */

/* ---- threads and rings (ring.c) ------------------------------------------------------------- */
#define CT_RING_DESC_BYTES 4096u /* a ring's descriptor: the page before its first chunk */
struct ct_ring {
  struct ct_ring *next;              /* global list, push-only */
  struct ct_ring *next_in_thread;    /* the owning thread's rings */
  struct ct_module *module;
  uint64_t **pos_tls;                /* the owner's CT_SYM_RING_POS (valid while it lives) */
  uint64_t *base;
  size_t size;
  uint64_t generation;               /* chunks started so far */
  _Atomic uint64_t saved_pos;        /* byte offset of the next slot, kept at chunk starts */
  _Atomic uint32_t tid;
  _Atomic uint32_t flags;            /* CT_THR_EXITED, CT_THR_PREFORK, CT_RING_CLAIMED */
  _Atomic uint64_t exit_ns;
  char name[16];                     /* the owner's name when it exited (for the dump) */
};
CT_HIDDEN extern struct ct_ring *_Atomic ct_ring_list;
#define CT_RING_CLAIMED 0x80000000u  /* runtime-only flag: an exited ring being reused */

struct ct_thread {
  pid_t tid;
  int in_handler;                    /* recursion guard for the crash path */
  uint64_t stamp_hi;                 /* full stamp = stamp_hi << 16 | low 16 bits */
  struct ct_ring *rings;
  void *altstack;
  int initialised;
};
CT_HIDDEN struct ct_thread *ct_self(void);            /* any */
CT_HIDDEN uint64_t ct_ring_pos_of(struct ct_ring *r); /* any: offset or CT_RING_POS_UNKNOWN */
CT_HIDDEN unsigned ct_now_grain(void); /* any: log2 of the units CT_SYM_NOW is rounded to now */
CT_HIDDEN void ct_thread_setup_altstack(struct ct_thread *t); /* any */
CT_HIDDEN void ct_threads_after_fork(void);           /* normal (atfork child) */
CT_HIDDEN void ct_rings_module_unloaded(struct ct_module *m); /* normal */
CT_HIDDEN void ct_thread_cut_rings(void);             /* any: a CT_TAG_CUT in each ring */
CT_HIDDEN void ct_thread_key_init(void);              /* normal */
CT_HIDDEN void ct_thread_prepare(void);               /* normal: before a start routine */
CT_HIDDEN int ct_ring_put_module(const struct ct_module *m, uint64_t w0, uint64_t w1); /* normal */

/* ---- events (modules.c) -------------------------------------------------------------------- */
CT_HIDDEN extern struct ct_ds_event ct_events[CT_MAX_EVENTS];
CT_HIDDEN extern _Atomic uint32_t ct_event_count; /* events ever logged; the last
                                                     CT_MAX_EVENTS of them are kept */
CT_HIDDEN void ct_event(uint32_t kind, uint32_t module_id); /* any */

/* ---- dumps (dump_writer.c) ------------------------------------------------------------------- */
struct ct_dump_request {
  int reason;                       /* CT_REASON_* */
  const char *reason_text;
  const siginfo_t *si;              /* NULL for on-demand dumps */
  const ucontext_t *uc;             /* registers of the thread to describe, or NULL */
  pid_t tid;                        /* that thread */
};
/* Writes a dump; 0 and the file's path in `path` on success, -1 after telling stderr why. any */
CT_HIDDEN int ct_dump_write(const struct ct_dump_request *req, char *path, size_t cap);
/* Serialises dumps: 1 if this thread may dump now, 0 if another dump is in progress. any */
CT_HIDDEN int ct_dump_acquire(pid_t tid);
CT_HIDDEN void ct_dump_release(void);
CT_HIDDEN pid_t ct_dump_owner(void);            /* any: the thread writing a dump, or 0 */
/* The registers of uc, thread tid's (fs_base read only when tid is the calling thread). any */
CT_HIDDEN void ct_registers_from(const ucontext_t *uc, pid_t tid, struct ct_ds_registers *r);

/* ---- other threads stopped for a dump (thread_capture.c) ------------------------------------- */
/* Stops every live thread (ring owners, then /proc/self/task) but `self` and `also` (bounded
 * wait), once per dump; the number of threads asked. any */
CT_HIDDEN uint32_t ct_threads_capture(pid_t self, pid_t also);
/* The registers of the i-th thread asked, NULL if it has not stopped. any */
CT_HIDDEN const struct ct_ds_registers *ct_stopped_registers(uint32_t i);
CT_HIDDEN pid_t ct_stopped_tid(uint32_t i);      /* any: the i-th thread asked, 0 past the end */
CT_HIDDEN void ct_threads_release(void);        /* any: lets them go on */
CT_HIDDEN extern char ct_last_dump[CT_PATH_MAX];

/* ---- signals (crash_handler.c, on_demand.c, signal_mask.c) ------------------------------------ */
CT_HIDDEN void ct_install_crash_handlers(void); /* normal */
CT_HIDDEN void ct_install_dump_signal(void);    /* normal */
CT_HIDDEN void ct_unblock_faults(void);         /* any: a thread's first record */
CT_HIDDEN void ct_keep_faults_deliverable(void); /* any: masks set from now on never block them */
CT_HIDDEN void ct_keep_capture_deliverable(int signo); /* normal: nor this one (0: none) */

/* ---- start-up (init.c) ------------------------------------------------------------------------ */
CT_HIDDEN void ct_ensure_init(void);            /* any: cheap after the first call */
CT_HIDDEN extern volatile int ct_exiting;       /* exit() has started: destructors are not dlclose */
CT_HIDDEN extern _Atomic int ct_initialised;

#endif
