/*
 * exit_handlers.c - each exit handler that instrumented code registers starts with a marker
 * (defer-calls).
 *
 * With deferred calls the ring holds an invocation's records after its callees' (post-order),
 * and the post-mortem finds a call's callees by matching records to the calls that made them
 * (postorder.c). Exit handlers (atexit's, and C++ static destructors, which the compiler
 * registers with __cxa_atexit) are called one after the other by the C library once main has
 * returned: nothing tells one handler's invocation from a callback of the next handler's call
 * into code without records (a destructor's operator delete, an fflush), and the parse took
 * the one for the other. So the pass sends instrumented code's calls of atexit and __cxa_atexit
 * here (the module's __dso_handle passed along, so that dlclose still runs a library's handlers
 * at its unloading), and each handler is registered through a trampoline that writes a
 * CT_TAG_TOPLEVEL marker into the thread's ring of the handler's module before it runs it: the
 * records after the marker are no callees of anything before it.
 * Invariants: a handler runs exactly as registered (same order, same argument, same DSO);
 * without memory for its note it is registered directly, without a marker.
 * Context: normal (registration at start-up or later; the trampoline at exit or dlclose).
 */
#include <stdint.h>
#include <stdlib.h>

#include "rt_internal.h"

extern int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);

struct exit_note {
  void (*fn)(void *);
  void *arg;
  int plain; /* atexit's: fn takes no argument */
};

static void run_exit_handler(void *p) {
  struct exit_note h = *(struct exit_note *)p;
  free(p);
  const struct ct_module *m = ct_module_at((uintptr_t)h.fn);
  if (m) ct_ring_put_module(m, (uint64_t)CT_TAG_TOPLEVEL << CT_REC_TAG_SHIFT, 1);
  if (h.plain) ((void (*)(void))(void *)h.fn)();
  else h.fn(h.arg);
}

static int register_handler(void (*fn)(void *), void *arg, int plain, void *dso) {
  struct exit_note *h = malloc(sizeof *h);
  if (!h) return __cxa_atexit(fn, arg, dso); /* arg: NULL for atexit's */
  *h = (struct exit_note){fn, arg, plain};
  int rc = __cxa_atexit(run_exit_handler, h, dso);
  if (rc != 0) free(h);
  return rc;
}

CT_EXPORT int __crashtrail___cxa_atexit(void (*fn)(void *), void *arg, void *dso) {
  return register_handler(fn, arg, 0, dso);
}

/* atexit(fn) as the C library's own (libc_nonshared.a) makes it: __cxa_atexit(fn, NULL, the
 * calling module's __dso_handle), which the pass passes as the second argument. */
CT_EXPORT int __crashtrail_atexit(void (*fn)(void), void *dso) {
  return register_handler((void (*)(void *))(void *)fn, NULL, 1, dso);
}
