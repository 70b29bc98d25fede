/*
 * ring.c - per-thread, per-module circular buffers: the slow path behind the pass's inline
 * ring writes, thread state, and stamp wraps.
 *
 * The hot path (emitted by the pass, see docs/design.md) is:
 *     p = RING_POS;  if ((p & 16383) == 0) goto cold;
 *     p[0] = desc - f;  p[1] = acc;  RING_POS = p + 2;
 * where the cold path, out of line, calls the module's own trampoline (emitted by the pass,
 * one per ELF module: pass/SlowPathAsm.cpp), which calls __crashtrail_write_slow(&RING_POS,
 * &MODULE, desc - f, acc): a refill, then the whole record. A stamped flush tests p against its
 * module's chunk mask (0 once two modules stamp) and its slow path goes through
 * __crashtrail_stamped_write_slow, which stamps. Code built with computed record ids (LTO,
 * basic block sections) keeps the older layout: __crashtrail_ring_refill and
 * __crashtrail_stamped_slow, called through per-module stubs, and the record written inline.
 * RING_POS is a zero-initialised TLS variable of the module, so a thread's first record in a
 * module lands here, and so does every record that would start a new chunk (CT_CHUNK_BYTES).
 *
 * Invariants:
 *  - A ring is CT_CHUNK_BYTES-aligned (the page before it holds its descriptor, struct ct_ring)
 *    and a whole number of chunks long, so the chunk test above also catches the ring's end;
 *    the slow path then wraps to the start.
 *  - Every chunk starts with a CT_TAG_CHUNK and a CT_TAG_CLOCK marker; the rest of it is written
 *    in order, 16 bytes at a time, so every chunk but a ring's newest is full. A live thread's
 *    chunk is not cleared when it starts (a memset per 1022 records): after the write
 *    position it holds an earlier lap's records, and the dump's position says where the data
 *    ends (postmortem/decoder.c). Once a ring's thread has exited, or the ring is a pre-fork
 *    one in a child, its newest chunk is cleared after the position and every chunk it starts
 *    from then on is cleared whole: the first empty slot ends its data, whatever is written
 *    after the position was saved (instrumented code in later TLS destructors).
 *  - Ring memory is never unmapped: a dump may always read every ring in ct_ring_list. A ring
 *    of an exited thread is reused only when more than CRASHTRAIL_KEEP_EXITED of them exist.
 * Context: the write_slow and refill entry points and stamp_wrap run in any context (instrumented code runs in signal
 * handlers too): mmap, sigaltstack, sigprocmask and clock_gettime only.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt_internal.h"

CT_EXPORT __thread uint64_t __crashtrail_stamp = CT_REC_STAMPED;
CT_EXPORT __thread uint64_t __crashtrail_stamp_or;
CT_EXPORT __thread uint64_t __crashtrail_now = 1;
static __thread struct ct_thread ct_tls_thread;

/* Threads that have recorded so far, and the low bits of CT_SYM_NOW cleared from the second one
 * on (see CT_NOW_THREADED_GRAIN_US): one thread alone keeps the full resolution, it shares its
 * table with no one. */
static _Atomic uint32_t ct_threads_seen;
static _Atomic uint64_t ct_now_mask = ~(uint64_t)0;

struct ct_ring *_Atomic ct_ring_list;
static pthread_key_t ct_thread_key;
static int ct_thread_key_ok;

/* Where records go when no ring can be had (out of memory): one chunk, written over and over. */
static _Alignas(CT_CHUNK_BYTES) uint64_t ct_sink[CT_CHUNK_BYTES / 8];

struct ct_thread *ct_self(void) { return &ct_tls_thread; }

void ct_thread_setup_altstack(struct ct_thread *t) {
  stack_t old, ss;
  size_t page = 4096;
  char *mem;
  if (sigaltstack(NULL, &old) == 0 && !(old.ss_flags & SS_DISABLE)) return; /* the program's */
  mem = mmap(NULL, CT_ALTSTACK_BYTES + page, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mem == MAP_FAILED) return;
  (void)mprotect(mem, page, PROT_NONE); /* guard: an overflowing handler faults, not corrupts */
  ss.ss_sp = mem + page;
  ss.ss_size = CT_ALTSTACK_BYTES;
  ss.ss_flags = 0;
  if (sigaltstack(&ss, NULL) != 0) {
    munmap(mem, CT_ALTSTACK_BYTES + page);
    return;
  }
  t->altstack = mem;
}

/* What a fault in the thread needs: the alternate signal stack (a stack overflow), the fault
 * signals unblocked (a thread created with every signal blocked could not dump), and the key
 * whose destructor unmaps that stack at exit. */
static void ct_thread_arm(struct ct_thread *t) {
  ct_thread_setup_altstack(t);
  ct_unblock_faults();
  if (ct_thread_key_ok) (void)pthread_setspecific(ct_thread_key, t);
}

static struct ct_thread *ct_thread_get(void) {
  struct ct_thread *t = &ct_tls_thread;
  if (t->initialised) return t;
  t->tid = ct_gettid();
  t->initialised = 1;
  /* Every thread but the first stores the mask itself, before its first chunk start reads it. */
  if (atomic_fetch_add_explicit(&ct_threads_seen, 1, memory_order_relaxed) >= 1)
    atomic_store_explicit(&ct_now_mask, ~(((uint64_t)1 << ct_cfg.threaded_grain) - 1),
                          memory_order_relaxed);
  ct_thread_arm(t);
  ct_event(CT_EV_THREAD_START, 0);
  return t;
}

/* A thread that instrumented code created, before its start routine (thread_start.c): armed
 * for a fault as its first record would arm it. Neither the thread count nor the tables'
 * grain moves: a thread counts once it records. normal */
void ct_thread_prepare(void) {
  ct_ensure_init();
  ct_thread_arm(&ct_tls_thread);
}

/* The ring's owner is gone (exit) or left behind (fork): keeps where its data ends, and clears
 * the rest of that chunk, so that from here on the first empty slot ends the ring's data (see
 * the invariants). */
static void ct_ring_save_end(struct ct_ring *r) {
  uint64_t pos = ct_ring_pos_of(r);
  atomic_store(&r->saved_pos, pos);
  if (pos % CT_CHUNK_BYTES == 0 || pos > r->size) return;
  memset((char *)r->base + pos, 0, CT_CHUNK_BYTES - pos % CT_CHUNK_BYTES);
}

/* Thread exit (key destructor, normal context): remember where each ring ended, and the
 * thread's name. */
static void ct_thread_exit(void *arg) {
  struct ct_thread *t = arg;
  uint64_t now = ct_monotonic_ns();
  char name[16] = {0};
  (void)prctl(PR_GET_NAME, name); /* gone from /proc once the thread is */
  ct_table_maps_fold_self();      /* its TLS maps go with it */
  for (struct ct_ring *r = t->rings; r; r = r->next_in_thread) {
    memcpy(r->name, name, sizeof r->name);
    ct_ring_save_end(r);
    atomic_store(&r->exit_ns, now);
    atomic_fetch_or(&r->flags, CT_THR_EXITED);
  }
  if (t->initialised) ct_event(CT_EV_THREAD_EXIT, 0); /* not for one that never recorded */
  if (t->altstack) {
    stack_t ss = {.ss_flags = SS_DISABLE};
    if (sigaltstack(&ss, NULL) == 0) munmap(t->altstack, CT_ALTSTACK_BYTES + 4096);
    t->altstack = NULL;
  }
}

void ct_thread_key_init(void) {
  ct_thread_key_ok = pthread_key_create(&ct_thread_key, ct_thread_exit) == 0;
}

unsigned ct_now_grain(void) {
  uint64_t mask = atomic_load_explicit(&ct_now_mask, memory_order_relaxed);
  return mask == ~(uint64_t)0 ? 0 : (unsigned)__builtin_ctzll(mask);
}

uint64_t ct_ring_pos_of(struct ct_ring *r) {
  uint64_t *p;
  if ((atomic_load(&r->flags) & (CT_THR_EXITED | CT_THR_PREFORK)) ||
      (r->module->flags & CT_MOD_UNLOADED) || !r->pos_tls)
    return atomic_load(&r->saved_pos);
  p = *(uint64_t *volatile *)r->pos_tls;
  if (p >= r->base && p <= r->base + r->size / 8) return (uint64_t)((char *)p - (char *)r->base);
  return atomic_load(&r->saved_pos);
}

static int ct_thread_is_dead(pid_t tid) {
  return syscall(SYS_tgkill, getpid(), tid, 0) != 0 && errno == ESRCH;
}

/* Takes over the oldest ring of a dead thread once more than keep_exited of them exist. */
static struct ct_ring *ct_ring_reuse(struct ct_module *m) {
  struct ct_ring *oldest = NULL;
  size_t dead = 0;
  for (struct ct_ring *r = atomic_load(&ct_ring_list); r; r = r->next) {
    uint32_t rf = atomic_load(&r->flags);
    if (r->module != m || !(rf & CT_THR_EXITED) || (rf & CT_RING_CLAIMED)) continue;
    if (!ct_thread_is_dead((pid_t)atomic_load(&r->tid))) continue;
    dead++;
    if (!oldest || atomic_load(&r->exit_ns) < atomic_load(&oldest->exit_ns)) oldest = r;
  }
  if (dead <= ct_cfg.keep_exited || !oldest) return NULL;
  uint32_t f = atomic_load(&oldest->flags);
  /* Claimed, but still marked exited until ct_ring_acquire has given it the new owner's
   * position pointer: a dump meanwhile must not follow the dead thread's one. */
  if (!(f & CT_THR_EXITED) || (f & CT_RING_CLAIMED) ||
      !atomic_compare_exchange_strong(&oldest->flags, &f, f | CT_RING_CLAIMED))
    return NULL; /* another thread took it */
  memset(oldest->base, 0, oldest->size);
  oldest->generation = 0;
  return oldest;
}

static struct ct_ring *ct_ring_acquire(struct ct_module *m, struct ct_thread *t,
                                       uint64_t **pos_tls) {
  struct ct_ring *r = ct_ring_reuse(m);
  if (!r) {
    size_t size = ct_cfg.ring_bytes ? ct_cfg.ring_bytes : 256 * 1024;
    /* Pre-faulted: a record write must never take a page fault in production. mmap aligns
     * to pages only: map a chunk more, keep the aligned part and the page before it. */
    size_t len = size + CT_RING_DESC_BYTES + CT_CHUNK_BYTES;
    char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (mem == MAP_FAILED) return NULL;
    char *base = (char *)(((uintptr_t)mem + CT_RING_DESC_BYTES + CT_CHUNK_BYTES - 1) &
                          ~(uintptr_t)(CT_CHUNK_BYTES - 1));
    char *desc = base - CT_RING_DESC_BYTES;
    if (desc > mem) munmap(mem, (size_t)(desc - mem));
    if (base + size < mem + len) munmap(base + size, (size_t)(mem + len - (base + size)));
    r = (struct ct_ring *)desc;
    r->module = m;
    r->base = (uint64_t *)base;
    r->size = size;
    r->pos_tls = pos_tls;
    atomic_store(&r->tid, (uint32_t)t->tid);
    struct ct_ring *head = atomic_load(&ct_ring_list);
    do r->next = head;
    while (!atomic_compare_exchange_weak(&ct_ring_list, &head, r));
  }
  r->pos_tls = pos_tls;
  atomic_store(&r->saved_pos, 0);
  atomic_store(&r->tid, (uint32_t)t->tid);
  atomic_store(&r->flags, 0); /* a reused ring is live from here on */
  r->next_in_thread = t->rings;
  t->rings = r;
  return r;
}

static uint64_t ct_full_stamp(struct ct_thread *t) {
  return t->stamp_hi << 16 | (__crashtrail_stamp >> CT_REC_TAG_SHIFT);
}

/* Starts a chunk at p (zeroed, with its two markers); returns the first free slot. */
static uint64_t *ct_chunk_start(struct ct_ring *r, struct ct_thread *t, uint64_t *p) {
  uint64_t now = ct_monotonic_ns();
  if (atomic_load_explicit(&r->flags, memory_order_relaxed) & (CT_THR_EXITED | CT_THR_PREFORK))
    memset(p, 0, CT_CHUNK_BYTES);
  r->generation++;
  p[0] = (uint64_t)CT_TAG_CHUNK << CT_REC_TAG_SHIFT | (r->generation & CT_REC_ADDR_MASK);
  p[1] = ct_full_stamp(t);
  p[2] = (uint64_t)CT_TAG_CLOCK << CT_REC_TAG_SHIFT | (uint32_t)t->tid;
  p[3] = now;
  uint64_t coarse = now >> CT_NOW_SHIFT & atomic_load_explicit(&ct_now_mask, memory_order_relaxed);
  /* The marks since the last change were made at the old time (table_maps.c). */
  if (coarse != __crashtrail_now) ct_table_maps_fold_self();
  __crashtrail_now = coarse;
  /* Release, not seq_cst: a seq_cst store is an xchg, a full fence that waits for the 4 KB
   * memset above to drain (a fifth of a run's time with 64 MB rings); a dumping thread needs
   * only to see the header before the position. */
  atomic_store_explicit(&r->saved_pos, (uint64_t)((char *)(p + 4) - (char *)r->base),
                        memory_order_release);
  return p + 2 * CT_CHUNK_HEADER_SLOTS;
}

/* The ring the thread's last refill wrote to. The walk below finds the thread's ring whose module
 * is desc->runtime (a module loaded again at the same address starts with it 0, then gets a new
 * slot) and whose position variable is pos_tls; there is one such ring, and it stays the
 * thread's while the thread lives. So a cached ring that matches both is the walk's answer, and
 * one pointer, written at once, cannot be seen half-written by a signal handler's refill. Most
 * refills hit: a program writes to one module's ring at a time. */
static __thread struct ct_ring *ct_last_ring;

/* Returns the slot where the record goes, the first free slot of a chunk just started. */
static uint64_t *ct_refill_slot(uint64_t **pos_tls, struct ct_module_desc *desc) {
  struct ct_thread *t;
  struct ct_module *m;
  struct ct_ring *r;
  uint64_t *p = *pos_tls;
  r = ct_last_ring;
  if (r && r->pos_tls == pos_tls &&
      r->module == __atomic_load_n((struct ct_module **)&desc->runtime, __ATOMIC_RELAXED)) {
    if (p < r->base || p >= r->base + r->size / 8) p = r->base; /* the end of the ring: wrap */
    return ct_chunk_start(r, &ct_tls_thread, p);
  }
  ct_ensure_init();
  t = ct_thread_get();
  m = ct_module_for(desc);
  if (!m) return ct_sink + 2 * CT_CHUNK_HEADER_SLOTS;
  for (r = t->rings; r; r = r->next_in_thread)
    if (r->module == m && r->pos_tls == pos_tls) break;
  if (!r) {
    r = ct_ring_acquire(m, t, pos_tls);
    if (!r) return ct_sink + 2 * CT_CHUNK_HEADER_SLOTS;
    p = r->base;
  } else if (p < r->base || p >= r->base + r->size / 8) {
    p = r->base; /* the end of the ring: wrap */
  }
  ct_last_ring = r;
  return ct_chunk_start(r, t, p);
}

/* GCC ignores preserve_most with a warning and the entry points below would then clobber the
 * registers instrumented code keeps live across its slow paths: the first chunk boundary
 * would corrupt the program. Only clang may build the runtime. */
#ifndef __clang__
#error "crashtrail's runtime needs clang (preserve_most): configure with CC=clang-14"
#endif

/* preserve_most: instrumented code calls this on a cold path; with every register but r11
 * preserved, the values live across the call need no callee-saved registers (and no pushes
 * and pops in every instrumented function's prologue). The slot is handed back through
 * *pos_tls, not a return value: LLVM's preserve_most keeps rax too, so a preserve_most
 * function cannot return one. */
CT_EXPORT __attribute__((preserve_most)) void
__crashtrail_ring_refill(uint64_t **pos_tls, struct ct_module_desc *desc) {
  *pos_tls = ct_refill_slot(pos_tls, desc);
}

/* The runtime calls its own preserve_most entry points through hidden aliases. A call to the
 * exported name from the shared runtime goes through a PLT slot (clang's -fno-plt spares only
 * calls to declarations), and a slot's first call runs the dynamic linker's resolver, which
 * keeps the C convention's argument registers but not r10: the preserve_most caller's own
 * caller (instrumented code) keeps values there. */
extern __attribute__((preserve_most, visibility("hidden"))) void
ct_ring_refill_local(uint64_t **pos_tls, struct ct_module_desc *desc)
    __attribute__((alias("__crashtrail_ring_refill")));

/* Writes {w0, w1} at the thread's position in a module's ring, starting the next chunk first at
 * a chunk boundary. any */
static inline void ct_put_slot(uint64_t **pos_tls, struct ct_module_desc *desc, uint64_t w0,
                               uint64_t w1) {
  uint64_t *p = *pos_tls;
  if (((uintptr_t)p & (CT_CHUNK_BYTES - 1)) == 0) p = ct_refill_slot(pos_tls, desc);
  p[0] = w0;
  p[1] = w1;
  *pos_tls = p + 2;
}

/* Appends a two-word marker to a ring of the calling thread. any */
static void ct_ring_put(struct ct_ring *r, uint64_t w0, uint64_t w1) {
  ct_put_slot(r->pos_tls, (struct ct_module_desc *)r->module->desc, w0, w1);
}

/* Appends a marker to the calling thread's ring of module m. 0 if the thread has no ring there
 * yet (it never recorded in that module). normal */
int ct_ring_put_module(const struct ct_module *m, uint64_t w0, uint64_t w1) {
  for (struct ct_ring *r = ct_tls_thread.rings; r; r = r->next_in_thread)
    if (r->module == m && !(atomic_load(&r->flags) & CT_THR_EXITED)) {
      ct_ring_put(r, w0, w1);
      return 1;
    }
  return 0;
}

/* The low 16 bits of the stamp just wrapped to 0: give every ring of this thread the full
 * counter, so each stamp can be unwrapped against the nearest marker in its own ring. */
static void ct_rings_mark(struct ct_thread *t, uint32_t tag) {
  for (struct ct_ring *r = t->rings; r; r = r->next_in_thread)
    if (!(r->module->flags & CT_MOD_UNLOADED) && !(atomic_load(&r->flags) & CT_THR_EXITED))
      ct_ring_put(r, (uint64_t)tag << CT_REC_TAG_SHIFT, ct_full_stamp(t));
}

CT_EXPORT __attribute__((preserve_most)) void __crashtrail_stamp_wrap(void) {
  struct ct_thread *t = ct_thread_get();
  t->stamp_hi++;
  ct_rings_mark(t, CT_TAG_SEQ);
}
extern __attribute__((preserve_most, visibility("hidden"))) void ct_stamp_wrap_local(void)
    __attribute__((alias("__crashtrail_stamp_wrap")));

/* The thread's next stamp (its low 16 bits wrapping: a SEQ marker in each of its rings). */
static void ct_stamp_next(void) {
  __crashtrail_stamp += CT_STAMP_INCREMENT;
  if ((__crashtrail_stamp >> CT_REC_TAG_SHIFT) == 0) ct_stamp_wrap_local();
}

/* What a stamped record of this module ors into its w0: the thread's next stamp once the module
 * stamps (its chunk mask is 0), else 0. any */
static inline uint64_t ct_module_stamp(struct ct_module_desc *desc) {
  if (__atomic_load_n(&desc->chunk_mask, __ATOMIC_RELAXED) != 0) return 0;
  ct_stamp_next();
  return __crashtrail_stamp;
}

/* The slow path of a stamped flush: taken at a chunk boundary and, once the module stamps (its
 * chunk mask is 0), at every stamped flush. Leaves in __crashtrail_stamp_or what the caller
 * ors into the record's w0, and the slot to write in *pos_tls. The position is read after the
 * stamp: a wrap has just written a marker into every ring of the thread. any */
CT_EXPORT __attribute__((preserve_most)) void
__crashtrail_stamped_slow(uint64_t **pos_tls, struct ct_module_desc *desc) {
  __crashtrail_stamp_or = ct_module_stamp(desc);
  if (((uintptr_t)*pos_tls & (CT_CHUNK_BYTES - 1)) == 0) ct_ring_refill_local(pos_tls, desc);
}

/* The slow paths of flushes whose cold code is out of line (the pass's default; see
 * CT_SYM_WRITE_HERE): the whole record is written here, {id [| stamp], acc}, after a refill if
 * the position is at a chunk boundary. The module's trampoline calls these with the id it read
 * from the flush's own store instruction. any */
CT_EXPORT __attribute__((preserve_most)) void
__crashtrail_write_slow(uint64_t **pos_tls, struct ct_module_desc *desc, uint64_t id,
                        uint64_t acc) {
  ct_put_slot(pos_tls, desc, id, acc);
}

/* Likewise for a stamped flush, taken at a chunk boundary and, once the module stamps, at
 * every stamped flush: the stamp is taken before the position is read (a wrap of its low bits
 * has just written a marker into every ring of the thread). any */
CT_EXPORT __attribute__((preserve_most)) void
__crashtrail_stamped_write_slow(uint64_t **pos_tls, struct ct_module_desc *desc, uint64_t id,
                                uint64_t acc) {
  ct_put_slot(pos_tls, desc, id | ct_module_stamp(desc), acc);
}

/* Stamping just turned on (a second module registered): the records this thread wrote
 * unstamped so far come before anything it writes from now on, in any ring. A fresh stamp in
 * every ring of the thread says so. any */
void ct_thread_cut_rings(void) {
  struct ct_thread *t = ct_thread_get();
  ct_stamp_next();
  ct_rings_mark(t, CT_TAG_CUT);
}

void ct_rings_module_unloaded(struct ct_module *m) {
  for (struct ct_ring *r = atomic_load(&ct_ring_list); r; r = r->next)
    if (r->module == m) atomic_store(&r->saved_pos, ct_ring_pos_of(r));
}

/* In the child of fork: only the forking thread lives on; the others' rings keep their
 * pre-fork history and are marked so. normal */
void ct_threads_after_fork(void) {
  struct ct_thread *t = &ct_tls_thread;
  pid_t old = t->tid;
  t->tid = ct_gettid();
  for (struct ct_ring *r = atomic_load(&ct_ring_list); r; r = r->next) {
    if ((pid_t)atomic_load(&r->tid) == old && t->initialised) {
      atomic_store(&r->tid, (uint32_t)t->tid);
      continue;
    }
    if (!(atomic_load(&r->flags) & CT_THR_EXITED)) {
      ct_ring_save_end(r);
      atomic_fetch_or(&r->flags, CT_THR_PREFORK | CT_THR_EXITED);
    } else {
      atomic_fetch_or(&r->flags, CT_THR_PREFORK);
    }
  }
  ct_event(CT_EV_FORK, 0);
}
