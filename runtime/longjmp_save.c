/*
 * longjmp_save.c - a longjmp writes the paths of the frames it discards (defer-calls).
 *
 * With deferred calls (the pass's defer-calls) a function writes no record before a direct
 * call: its path since its last record stays in its accumulator across the call and reaches the
 * ring with its next record, after the callee's. A longjmp out of the callee discards the frame
 * and that path with it; Lua raises every error so. The pass therefore gives each function that
 * defers a stack slot that it stores its accumulator into before each deferred call (one
 * volatile store, off the ring position's chain), lists the slot's offset in its module's defer
 * table (CT_SECTION_DEFER, struct ct_defer_entry) and sends instrumented code's calls of
 * longjmp, _longjmp, siglongjmp and __longjmp_chk here. Each wrapper walks the stack it is about
 * to discard (_Unwind_Backtrace: an ordinary call here, not a signal handler's context), from
 * the innermost frame to the one that called setjmp (whose stack pointer the jmp_buf holds),
 * and writes a CT_TAG_ABANDON marker for each frame whose function has a slot: its record id,
 * its return address and its slot's accumulator. Innermost first, so each follows its callees'
 * records as its own record would have (post-order); the post-mortem keeps only the frames
 * whose return address is a deferred call's (the slot of a frame in another call holds an
 * older call's path) and walks each path up to that call (postorder.c, callstack.c).
 *
 * The target's stack pointer is read from the jmp_buf as glibc's x86-64 setjmp mangles it
 * (PTR_MANGLE: xor with the thread's pointer guard at %fs:0x30, then rol 0x11; JB_RSP is word
 * 6), as ThreadSanitizer's longjmp interceptor does.
 * With two modules or more (stamping on) a CT_TAG_CUT with a fresh stamp follows the markers
 * in every ring of the thread, so that they are ordered where the jump happened.
 * Invariants: nothing is written unless the frame's slot lies in the stack being discarded, at or
 * above the frame's stack pointer; a frame is
 * found in the table by its exact start (_Unwind_GetRegionStart), so a function of another
 * module or of none is never taken for one with a slot.
 * The unwinder is the C runtime's (libgcc_s), loaded at the first longjmp rather than linked:
 * a program that never jumps does not map it (88 KB of Lua's resident set). A module that calls
 * sigsetjmp or siglongjmp, the way out of a signal handler, has it loaded at start-up instead
 * (CT_SYM_PRELOAD_UNWINDER, from a constructor the pass adds): loading takes the loader's lock
 * and allocates, which a signal handler must not. Without libgcc_s nothing is written (said once
 * on stderr).
 * Context: normal. (A longjmp out of a signal handler also comes here: _Unwind_Backtrace takes
 * the loader's lock, so a signal that interrupted dlopen could deadlock it. The pass redirects
 * only calls in code built with deferred calls.)
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdint.h>
#include <unwind.h>

#include "rt_internal.h"

#define JB_RSP 6

/* The unwinder's entry points, from libgcc_s once loaded. */
static struct {
  _Unwind_Reason_Code (*backtrace)(_Unwind_Trace_Fn, void *);
  _Unwind_Word (*get_cfa)(struct _Unwind_Context *);
  _Unwind_Word (*get_gr)(struct _Unwind_Context *, int);
  _Unwind_Ptr (*get_ip)(struct _Unwind_Context *);
  _Unwind_Ptr (*get_region_start)(struct _Unwind_Context *);
} uw;
static int uw_state; /* 0 not tried, 1 loaded, -1 unavailable; written once the table is */

/* Loads the unwinder once; 1 when it can be used. Two threads may both load it: dlopen counts
 * references and both fill the table with the same values. */
static int unwinder_ready(void) {
  int st = __atomic_load_n(&uw_state, __ATOMIC_ACQUIRE);
  if (st) return st > 0;
  void *h = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h) {
    *(void **)&uw.backtrace = dlsym(h, "_Unwind_Backtrace");
    *(void **)&uw.get_cfa = dlsym(h, "_Unwind_GetCFA");
    *(void **)&uw.get_gr = dlsym(h, "_Unwind_GetGR");
    *(void **)&uw.get_ip = dlsym(h, "_Unwind_GetIP");
    *(void **)&uw.get_region_start = dlsym(h, "_Unwind_GetRegionStart");
  }
  st = h && uw.backtrace && uw.get_cfa && uw.get_gr && uw.get_ip && uw.get_region_start ? 1 : -1;
  if (st < 0) {
    struct ct_msg msg = {{0}, 0};
    ct_msg_str(&msg, "crashtrail: libgcc_s.so.1 could not be loaded: the paths of frames a "
                     "longjmp discards are not recorded");
    ct_msg_emit(&msg);
  }
  __atomic_store_n(&uw_state, st, __ATOMIC_RELEASE);
  return st > 0;
}

CT_EXPORT void __crashtrail_preload_unwinder(void) { (void)unwinder_ready(); }

struct discard_walk {
  uintptr_t target_sp; /* the setjmp caller's stack pointer: frames below it go */
  int stamped;         /* a marker went to the ring of a module that stamps */
};

static uintptr_t demangle(uintptr_t v) {
  uintptr_t guard;
  __asm__("movq %%fs:0x30, %0" : "=r"(guard));
  return ((v >> 0x11) | (v << (64 - 0x11))) ^ guard;
}

/* The module whose defer table lists a function starting at fn, and that entry. */
static const struct ct_defer_entry *defer_entry(uintptr_t fn, const struct ct_module **mod) {
  const struct ct_module *m = ct_module_at(fn);
  const struct ct_module_desc *d = m ? m->desc : NULL;
  if (!d || d->abi_version < 6 || !d->defer_start) return NULL;
  const int relative = d->abi_version >= 7; /* ABI 6: the entries hold addresses */
  for (const struct ct_defer_entry *e = d->defer_start; e < d->defer_stop; e++)
    if ((uintptr_t)e->fn + (relative ? (uintptr_t)&e->fn : 0) == fn) {
      *mod = m;
      return e;
    }
  return NULL;
}

/* One frame of the walk. In a backtrace's callback the context is the frame's state at its call:
 * the IP its return address, the CFA the callee's (the frame's stack pointer at the call), the
 * registers the frame's. */
static _Unwind_Reason_Code discard_frame(struct _Unwind_Context *ctx, void *arg) {
  struct discard_walk *w = arg;
  uintptr_t sp = uw.get_cfa(ctx);
  if (sp >= w->target_sp) return _URC_END_OF_STACK; /* the setjmp caller: it lives on */
  const struct ct_module *m = NULL;
  uintptr_t fn = uw.get_region_start(ctx), ret = uw.get_ip(ctx);
  const struct ct_defer_entry *e = fn ? defer_entry(fn, &m) : NULL;
  if (!e) return _URC_NO_REASON;
  uintptr_t base = e->slot < 0 ? uw.get_gr(ctx, 6) /* rbp */ : sp;
  uintptr_t slot = base + (uintptr_t)e->slot;
  if (slot < sp || slot + 8 > w->target_sp || (slot & 7)) return _URC_NO_REASON;
  uint64_t acc = *(const volatile uint64_t *)slot;
  uint64_t id = (uint64_t)((uintptr_t)m->desc - fn), off = ret - fn;
  if (!acc || id >= (UINT64_C(1) << CT_ABANDON_FN_BITS)) return _URC_NO_REASON;
  if (off >= (UINT64_C(1) << CT_ABANDON_RET_BITS)) off = 0;
  uint64_t w0 = (uint64_t)CT_TAG_ABANDON << CT_REC_TAG_SHIFT | off << CT_ABANDON_FN_BITS | id;
  if (ct_ring_put_module(m, w0, acc))
    w->stamped |= __atomic_load_n(&m->desc->chunk_mask, __ATOMIC_RELAXED) == 0;
  return _URC_NO_REASON;
}

static __attribute__((noinline)) void save_discarded(const void *env) {
  if (!unwinder_ready()) return;
  struct discard_walk w = {demangle(((const uintptr_t *)env)[JB_RSP]), 0};
  uw.backtrace(discard_frame, &w);
  /* With two modules the rings are merged by stamps, a segment ordered by the stamped record
   * that ends it: a fresh stamp in every ring of the thread ends the markers' segments here,
   * before whatever the thread writes after the jump, in any module. */
  if (w.stamped) ct_thread_cut_rings();
}

CT_EXPORT __attribute__((noreturn)) void __crashtrail_longjmp(jmp_buf env, int val) {
  save_discarded(env);
  longjmp(env, val);
}

CT_EXPORT __attribute__((noreturn)) void __crashtrail__longjmp(jmp_buf env, int val) {
  save_discarded(env);
  _longjmp(env, val);
}

CT_EXPORT __attribute__((noreturn)) void __crashtrail_siglongjmp(sigjmp_buf env, int val) {
  save_discarded(env);
  siglongjmp(env, val);
}

extern void __longjmp_chk(jmp_buf env, int val) __attribute__((noreturn));
CT_EXPORT __attribute__((noreturn)) void __crashtrail___longjmp_chk(jmp_buf env, int val) {
  save_discarded(env);
  __longjmp_chk(env, val);
}
