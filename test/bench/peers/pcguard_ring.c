/*
 * pcguard_ring.c - the trace-pc-guard peer: what a user would write to get an ordered trace out
 * of -fsanitize-coverage=trace-pc-guard.
 *
 * Every instrumented edge calls __sanitizer_cov_trace_pc_guard; the callback stores the caller's
 * PC into a thread-local ring of 64K entries: one store and one index increment (the 16-bit index
 * wraps by itself). Compiled without instrumentation and linked into the "pcguard" variant.
 */
#include <stdint.h>

#define PCG_RING_ENTRIES 65536

static __thread uintptr_t pcgRing[PCG_RING_ENTRIES];
static __thread uint16_t pcgNext;

/* Called once per module with its guards; numbering them is what SanitizerCoverage expects. */
void __sanitizer_cov_trace_pc_guard_init(uint32_t *start, uint32_t *stop) {
  static uint32_t n;
  if (start == stop || *start) return;
  for (uint32_t *g = start; g < stop; g++) *g = ++n;
}

void __sanitizer_cov_trace_pc_guard(uint32_t *guard) {
  (void)guard;
  pcgRing[pcgNext++] = (uintptr_t)__builtin_return_address(0);
}
