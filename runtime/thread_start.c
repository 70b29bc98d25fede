/*
 * thread_start.c - threads that instrumented code creates are set up before their start
 * routine runs.
 *
 * A thread is otherwise set up at its first record (ring.c, ct_thread_get): its alternate
 * signal stack, its fault signals unblocked. A thread that overflows its stack before it ever
 * records (its start routine opted out or uninstrumented, or, with deferred calls, a
 * branch-free recursion that writes nothing on the way down) has no alternate stack, so the
 * kernel cannot run the crash handler and kills the process: no dump, and every other
 * thread's recorded history is lost with it. The pass therefore sends instrumented code's
 * calls of pthread_create here (pass/CrashtrailPass.cpp, redirectThreadCreation); the
 * wrapper starts the thread at ct_thread_begin, which prepares it and then calls the start
 * routine with its argument. The ring is still allocated at the first record: a thread that
 * never records costs no ring memory, only its alternate stack's mapping, unmapped at exit.
 *
 * Threads created by uninstrumented code (libstdc++'s std::thread, a library's pool) are not
 * seen here; they are set up at their first record as before. The wrapper calls
 * pthread_create by its name, so a sanitizer's interceptor still sees every thread.
 * Context: normal (pthread_create is not async-signal-safe).
 */
#include <pthread.h>
#include <stdlib.h>

#include "rt_internal.h"

struct ct_start {
  void *(*routine)(void *);
  void *arg;
};

static void *ct_thread_begin(void *p) {
  struct ct_start s = *(struct ct_start *)p;
  free(p);
  ct_thread_prepare();
  return s.routine(s.arg);
}

CT_EXPORT int __crashtrail_pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                                          void *(*routine)(void *), void *arg) {
  struct ct_start *s = malloc(sizeof *s);
  if (!s) return pthread_create(thread, attr, routine, arg); /* unprepared, as before */
  s->routine = routine;
  s->arg = arg;
  int rc = pthread_create(thread, attr, ct_thread_begin, s);
  if (rc != 0) free(s);
  return rc;
}
