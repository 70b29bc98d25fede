/*
 * block_trace.c - the independent trace for the round-trip tests (never instrumented).
 *
 * A program compiled with -mllvm -crashtrail-block-trace calls __crashtrail_test_block(f, b)
 * at the start of every block. This file appends those pairs to a buffer and, at exit, writes
 * them to $CT_BLOCK_TRACE and asks crashtrail for a dump: the test then checks that the blocks
 * decoded from the dump's rings are exactly the blocks this trace saw. Each event also keeps the
 * thread's coarse time (the runtime's __crashtrail_now, which the call sits after the block's
 * check point to see as the block's table update does): in tables mode the test checks every
 * block's dumped last/first entry against the times of its last and first event.
 *
 * Threads and modules: every event also keeps its thread's id, and each function address is
 * written with its module's name and its offset in the module (dladdr, at exit), so that a
 * program of several threads and instrumented shared objects is checked thread by thread. (In
 * such a program this file is linked into the executable and exported: the shared objects'
 * calls resolve to it.) Events are numbered by one atomic counter: each thread's own events
 * stay in its order.
 *
 * Processes: a "%p" in $CT_BLOCK_TRACE is replaced by the process id, so that each process of
 * a test suite leaves its own trace beside its own dump. A child forked without exec inherits
 * the parent's events and writes neither.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "crashtrail/crashtrail.h"

#define CT_TRACE_MAX (64u << 20)

extern __thread uint64_t __crashtrail_now;

/* Static (untouched pages cost nothing): a shared object's constructors run instrumented code
 * before this file's constructor, and their blocks are traced too. */
static struct { uint64_t fn, now; uint32_t block, tid; } trace[CT_TRACE_MAX];
static _Atomic size_t ntrace, lost;
static __thread uint32_t trace_tid;

void __crashtrail_test_block(uint64_t fn, uint32_t block) {
  size_t i = atomic_fetch_add_explicit(&ntrace, 1, memory_order_relaxed);
  if (i >= CT_TRACE_MAX) {
    atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
    return;
  }
  if (!trace_tid) trace_tid = (uint32_t)syscall(SYS_gettid);
  trace[i].fn = fn;
  trace[i].now = __crashtrail_now;
  trace[i].block = block;
  trace[i].tid = trace_tid;
}

/* The module of a function address and its offset there, looked up once per function. */
#define FN_CACHE (1u << 16)
static struct { uint64_t fn, base; const char *name; } fn_cache[FN_CACHE];

static void module_of(uint64_t fn, const char **name, uint64_t *base) {
  size_t h = (size_t)((fn >> 4) * 0x9E3779B97F4A7C15ull >> 48);
  while (fn_cache[h].fn && fn_cache[h].fn != fn) h = (h + 1) & (FN_CACHE - 1);
  if (!fn_cache[h].fn) {
    Dl_info info;
    fn_cache[h].fn = fn;
    fn_cache[h].name = "?";
    if (dladdr((void *)(uintptr_t)fn, &info) && info.dli_fname) {
      const char *slash = strrchr(info.dli_fname, '/');
      fn_cache[h].name = slash ? slash + 1 : info.dli_fname;
      fn_cache[h].base = (uint64_t)(uintptr_t)info.dli_fbase;
    }
  }
  *name = fn_cache[h].name;
  *base = fn_cache[h].base;
}

static pid_t trace_pid;

/* $CT_BLOCK_TRACE with "%p" replaced by the process id. */
static const char *trace_path(char *buf, size_t len) {
  const char *path = getenv("CT_BLOCK_TRACE"), *p = path ? strstr(path, "%p") : NULL;
  if (!p) return path;
  snprintf(buf, len, "%.*s%ld%s", (int)(p - path), path, (long)getpid(), p + 2);
  return buf;
}

static void finish(void) {
  if (getpid() != trace_pid) return; /* a forked child: the parent's events, not its own */
  char buf[4096];
  const char *path = trace_path(buf, sizeof buf);
  FILE *f = path ? fopen(path, "w") : NULL;
  size_t n = atomic_load(&ntrace);
  if (f) {
    fprintf(f, "overflow %zu\n", atomic_load(&lost));
    for (size_t i = 0; i < n && i < CT_TRACE_MAX; i++) {
      const char *name;
      uint64_t base;
      module_of(trace[i].fn, &name, &base);
      fprintf(f, "0x%llx %u %llu %u %s 0x%llx\n", (unsigned long long)trace[i].fn,
              trace[i].block, (unsigned long long)trace[i].now, trace[i].tid, name,
              (unsigned long long)(trace[i].fn - base));
    }
    fclose(f);
  }
  crashtrail_dump("round trip");
}

__attribute__((constructor(102))) static void start(void) {
  trace_pid = getpid();
  atexit(finish);
}
