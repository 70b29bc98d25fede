/*
 * finstr_ring.c - the -finstrument-functions peer: entry and exit hooks that write the function
 * address (exit: with bit 0 set) into a thread-local ring of 64K entries, one store and one
 * index increment each. Compiled without -finstrument-functions.
 */
#include <stdint.h>

#define FI_RING_ENTRIES 65536

static __thread uintptr_t fiRing[FI_RING_ENTRIES];
static __thread uint16_t fiNext;

__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void *fn, void *site) {
  (void)site;
  fiRing[fiNext++] = (uintptr_t)fn;
}

__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *fn, void *site) {
  (void)site;
  fiRing[fiNext++] = (uintptr_t)fn | 1;
}
