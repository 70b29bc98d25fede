/*
 * nested_corrupt.c - test-only memory corruption of crashtrail's state, built WITHOUT the
 * plugin and linked into nested.c's instrumented executable.
 *
 * The calling thread's next ring slot (__crashtrail_ring_pos, the executable's hidden TLS
 * pointer) lies in the first chunk of its ring while the thread has written few records; the
 * ring's descriptor (struct ct_ring, runtime/rt_internal.h) is the page before that chunk.
 * Its module pointer is overwritten with an unmapped address, so the dump writer faults when
 * it reaches this ring.
 */
#include <stdint.h>

#include "rt_internal.h"

extern __thread uint64_t *__crashtrail_ring_pos __attribute__((visibility("hidden")));

#ifdef CT_PLAIN
int corrupt_ring(void) { return 0; } /* the build without crashtrail has nothing to corrupt */
#else
int corrupt_ring(void) {
  uintptr_t chunk = (uintptr_t)__crashtrail_ring_pos & ~(uintptr_t)(CT_CHUNK_BYTES - 1);
  struct ct_ring *r;
  if (!chunk) return -1;
  r = (struct ct_ring *)(chunk - CT_RING_DESC_BYTES);
  if ((uintptr_t)r->base != chunk) return -1; /* not the first chunk: refuse to guess */
  r->module = (struct ct_module *)(uintptr_t)0x40;
  return 0;
}
#endif
