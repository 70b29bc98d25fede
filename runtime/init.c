/*
 * init.c - start-up: configuration, thread-exit hook, fork hook, signal handlers.
 *
 * Runs from a high-priority constructor, and also lazily from the first record (instrumented
 * code may run in another constructor first). The first caller wins a compare-and-swap; any
 * other caller returns at once: the ring slow path only needs ct_cfg.ring_bytes, which falls
 * back to its default while start-up is still in progress.
 *
 * When both the static runtime (in the executable) and the shared one (pulled in by an
 * instrumented library) are loaded, the executable's exported __crashtrail_* symbols interpose
 * the library's, so only one runtime records; __crashtrail_runtime_init is exported for the
 * same reason: the shared copy's constructor ends up initialising the executable's runtime.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rt_internal.h"

_Atomic int ct_initialised; /* 0 not started, 1 in progress, 2 done */
volatile int ct_exiting;

/* exit() runs atexit handlers before any module's destructors: from here on a module
 * destructor means the process is ending, not a dlclose. normal */
static void ct_at_exit(void) { ct_exiting = 1; }

/* The child has only the forking thread: locks held by the parent's other threads (a module
 * registration, an on-demand dump) would never be released. normal */
static void ct_atfork_child(void) {
  ct_modules_after_fork();
  ct_dump_release();
  ct_threads_after_fork();
}

CT_EXPORT void __crashtrail_runtime_init(void) {
  int expected = 0;
  if (!atomic_compare_exchange_strong(&ct_initialised, &expected, 1)) return;
  ct_config_load();
  ct_keep_capture_deliverable(ct_cfg.capture_signal);
  ct_vdso_locate();
  ct_thread_key_init();
  pthread_atfork(NULL, NULL, ct_atfork_child);
  atexit(ct_at_exit);
  ct_thread_setup_altstack(ct_self());
  if (ct_cfg.enabled) ct_install_crash_handlers();
  ct_install_dump_signal();
  atomic_store(&ct_initialised, 2);
}

void ct_ensure_init(void) {
  if (atomic_load_explicit(&ct_initialised, memory_order_acquire) == 0) __crashtrail_runtime_init();
}

__attribute__((constructor(101))) static void ct_constructor(void) { __crashtrail_runtime_init(); }
