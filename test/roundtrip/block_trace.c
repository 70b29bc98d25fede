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
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "crashtrail/crashtrail.h"

#define CT_TRACE_MAX (64u << 20)

extern __thread uint64_t __crashtrail_now;

static struct { uint64_t fn, now; uint32_t block; } *trace;
static size_t ntrace, overflow;

void __crashtrail_test_block(uint64_t fn, uint32_t block) {
  if (!trace || ntrace == CT_TRACE_MAX) {
    overflow++;
    return;
  }
  trace[ntrace].fn = fn;
  trace[ntrace].now = __crashtrail_now;
  trace[ntrace++].block = block;
}

static void finish(void) {
  const char *path = getenv("CT_BLOCK_TRACE");
  FILE *f = path ? fopen(path, "w") : NULL;
  if (f) {
    fprintf(f, "overflow %zu\n", overflow);
    for (size_t i = 0; i < ntrace; i++)
      fprintf(f, "0x%llx %u %llu\n", (unsigned long long)trace[i].fn, trace[i].block,
              (unsigned long long)trace[i].now);
    fclose(f);
  }
  crashtrail_dump("round trip");
}

__attribute__((constructor(102))) static void start(void) {
  trace = malloc(CT_TRACE_MAX * sizeof *trace);
  atexit(finish);
}
