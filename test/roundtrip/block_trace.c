/*
 * block_trace.c - the independent trace for the round-trip tests (never instrumented).
 *
 * A program compiled with -mllvm -crashtrail-block-trace calls __crashtrail_test_block(f, b)
 * at the start of every block. This file appends those pairs to a buffer and, at exit, asks
 * crashtrail for a dump and writes them to $CT_BLOCK_TRACE: the test then checks that the blocks
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
 * Processes: a "%D" in $CT_BLOCK_TRACE is replaced by the name of the dump written at exit
 * (unique where process ids are reused), so that each process of a test suite leaves its own trace beside
 * its own dump. A child forked without exec inherits the parent's events and writes neither.
 * $CT_BLOCK_TRACE_MAX caps the events kept (64 M by default); a trace that overflowed is
 * written as its first line only, since it cannot be compared.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "crashtrail/crashtrail.h"

#define CT_TRACE_MAX (64u << 20)

extern __thread uint64_t __crashtrail_now;

/* Static (untouched pages cost nothing): a shared object's constructors run instrumented code
 * before this file's constructor, and their blocks are traced too. */
static struct { uint64_t fn, now; uint32_t block, tid; } trace[CT_TRACE_MAX];
static _Atomic size_t ntrace, lost;
/* $CT_BLOCK_TRACE_MAX events at most (a test suite's long runs, whose rings wrap anyway, then
 * cost no gigabytes of memory each) */
static size_t trace_max = CT_TRACE_MAX;
static __thread uint32_t trace_tid;
static _Atomic unsigned trace_threads; /* threads that traced a block */

void __crashtrail_test_block(uint64_t fn, uint32_t block) {
  size_t i = atomic_fetch_add_explicit(&ntrace, 1, memory_order_relaxed);
  if (i >= trace_max) {
    atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
    return;
  }
  if (!trace_tid) {
    trace_tid = (uint32_t)syscall(SYS_gettid);
    atomic_fetch_add_explicit(&trace_threads, 1, memory_order_relaxed);
  }
  trace[i].fn = fn;
  trace[i].now = __crashtrail_now;
  trace[i].block = block;
  trace[i].tid = trace_tid;
}

/* The module of a function address and its offset there, looked up once per function. */
#define FN_CACHE (1u << 16)
static struct { uint64_t fn, base; const char *name; } fn_cache[FN_CACHE];

/* A module's file name as the dump lists it: that of the file mapped, symbolic links (a
 * library loaded as liblzma.so.5) resolved. One per loaded object, kept. */
static const char *file_name(const char *loaded) {
  static struct { const char *loaded, *name; } names[256];
  size_t i;
  for (i = 0; i < 256 && names[i].loaded; i++)
    if (names[i].loaded == loaded) return names[i].name;
  char *real = realpath(loaded, NULL);
  const char *path = real ? real : loaded, *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  if (i < 256) {
    names[i].loaded = loaded;
    names[i].name = name;
  }
  return name;
}

static void module_of(uint64_t fn, const char **name, uint64_t *base) {
  size_t h = (size_t)((fn >> 4) * 0x9E3779B97F4A7C15ull >> 48);
  while (fn_cache[h].fn && fn_cache[h].fn != fn) h = (h + 1) & (FN_CACHE - 1);
  if (!fn_cache[h].fn) {
    Dl_info info;
    fn_cache[h].fn = fn;
    fn_cache[h].name = "?";
    if (dladdr((void *)(uintptr_t)fn, &info) && info.dli_fname) {
      fn_cache[h].name = file_name(info.dli_fname);
      fn_cache[h].base = (uint64_t)(uintptr_t)info.dli_fbase;
    }
  }
  *name = fn_cache[h].name;
  *base = fn_cache[h].base;
}

static pid_t trace_pid;

/* $CT_BLOCK_TRACE with "%D" replaced by the file name of the dump written at exit ("no-dump"
 * if none was). */
static const char *trace_path(char *buf, size_t len, const char *dump) {
  const char *path = getenv("CT_BLOCK_TRACE"), *p = path ? strstr(path, "%D") : NULL;
  if (!p) return path;
  const char *slash = dump ? strrchr(dump, '/') : NULL;
  snprintf(buf, len, "%.*s%s%s", (int)(p - path), path,
           dump ? (slash ? slash + 1 : dump) : "no-dump", p + 2);
  return buf;
}

/* The events counted once no thread has traced a block for 20 ms (at most 2 s): at exit the
 * other threads of a program that does not join them (xz's compressor) may still be finishing
 * their work, and what they do between the count and the dump would be in one and not in the
 * other. */
static size_t settled_count(void) {
  size_t n = atomic_load(&ntrace), was;
  if (atomic_load(&trace_threads) <= 1) return n;
  struct timespec pause = {0, 20 * 1000 * 1000};
  for (int i = 0; i < 100; i++) {
    was = n;
    nanosleep(&pause, NULL);
    if ((n = atomic_load(&ntrace)) == was) break;
  }
  return n;
}

/* The dump, then the trace, written under a temporary name and renamed: a test suite's
 * checker takes a trace that exists as complete, its dump beside it. A trace whose events went
 * on during the dump says so in its first line ("unsettled"): it cannot be compared. */
static void finish(void) {
  if (getpid() != trace_pid) return; /* a forked child: the parent's events, not its own */
  size_t n = settled_count();
  /* the dump's path, which crashtrail prints on stderr, is not the program's output (a test
   * suite compares it) */
  int err = dup(2), null = open("/dev/null", O_WRONLY);
  if (err >= 0 && null >= 0) dup2(null, 2);
  crashtrail_dump("round trip");
  if (err >= 0 && null >= 0) dup2(err, 2);
  if (err >= 0) close(err);
  if (null >= 0) close(null);
  int unsettled = atomic_load(&ntrace) != n;
  char buf[4096], tmp[4200];
  const char *path = trace_path(buf, sizeof buf, crashtrail_last_dump_path());
  if (!path) return;
  snprintf(tmp, sizeof tmp, "%s.part", path);
  FILE *f = fopen(tmp, "w");
  if (!f) return;
  /* an overflowed trace cannot be compared: its events are left out (gigabytes of them in a
   * test suite's long runs) */
  size_t overflow = atomic_load(&lost);
  if (unsettled)
    fprintf(f, "unsettled: %zu events during the dump\n", atomic_load(&ntrace) - n);
  else
    fprintf(f, "overflow %zu\n", overflow);
  for (size_t i = 0; i < n && i < trace_max && !overflow && !unsettled; i++) {
    const char *name;
    uint64_t base;
    module_of(trace[i].fn, &name, &base);
    fprintf(f, "0x%llx %u %llu %u %s 0x%llx\n", (unsigned long long)trace[i].fn,
            trace[i].block, (unsigned long long)trace[i].now, trace[i].tid, name,
            (unsigned long long)(trace[i].fn - base));
  }
  if (fclose(f) == 0) rename(tmp, path);
}

__attribute__((constructor(102))) static void start(void) {
  const char *env = getenv("CT_BLOCK_TRACE_MAX");
  unsigned long long max = env ? strtoull(env, NULL, 10) : 0;
  trace_pid = getpid();
  if (max && max < CT_TRACE_MAX) trace_max = (size_t)max;
  atexit(finish);
}
