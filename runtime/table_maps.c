/*
 * table_maps.c - folds tables mode's per-thread byte maps into the last/first tables.
 *
 * In code built for an executable a block's table update is not a compare of its entry with
 * the thread's coarse time (CT_SYM_NOW) but `map[e] = 1` in a per-thread map: a local-exec TLS
 * byte array per unit, one byte per table entry, which the unit registers in
 * CT_SECTION_TABLE_MAPS (struct ct_table_map; pass/CrashtrailPass.cpp). A set byte means that
 * the thread ran one of the entry's blocks since its last fold. A fold runs before every change
 * of the thread's CT_SYM_NOW, so all those runs happened at the current CT_SYM_NOW, and the fold
 * writes what the compare would have: last = now if newer, first = now if unset; the byte is
 * cleared.
 *
 * Folds run before ct_chunk_start moves CT_SYM_NOW on (ring.c), at the thread's exit (ring.c),
 * and in the dumping thread before the tables are written (dump_writer.c). Another thread's
 * marks since its last fold (at most one coarse unit, or one grain with several threads, of its
 * most recent runs, which its ring still holds) are not in a dump's tables: a thread folds
 * only its own maps, since the others are still running while the tables are written.
 *
 * Invariants: only the owning thread reads and clears its maps. A signal handler may interrupt
 * a fold and mark the same map: a marked word is read, then subtracted in one instruction, so
 * a byte set in between is never lost; a fold the handler would start is left to the one
 * under way (one fold at a time per thread). Everything here is memory accesses only:
 * async-signal-safe.
 * Cost: a scan of every map, 64 bytes a step (SSE2; the pass pads maps to 64 bytes), at each
 * change of CT_SYM_NOW (every 65 us at most; SQLite's map is 52 KB), where the compares it
 * replaces cost a load, a compare and a branch per block run, and the clock in a register.
 */
#include <emmintrin.h>

#include "rt_internal.h"

extern __thread uint64_t __crashtrail_now;

static inline uintptr_t ct_thread_pointer(void) {
  uintptr_t tp;
  __asm__("mov %%fs:0, %0" : "=r"(tp));
  return tp;
}

/* The entries of one 8-byte word of marks, starting at entry `at`. */
static void ct_fold_word(struct ct_table_entry *tab, uint64_t at, uint64_t marks, uint64_t now) {
  while (marks) {
    unsigned byte = (unsigned)__builtin_ctzll(marks) / 8;
    struct ct_table_entry *e = &tab[at + byte];
    /* Only a newer time is written, as the compare did: threads folding the same hot entry
     * settle on the newest time. */
    if (e->last < now) e->last = now;
    if (!e->first) e->first = now;
    marks &= ~((uint64_t)0xff << (byte * 8));
  }
}

/* Takes the marks of one word: read, then subtracted in one instruction, so that a byte a
 * signal handler sets in between stays set (bytes are 0 or 1: the difference is exactly the
 * handler's). Not an exchange: a locked instruction per marked word costs more than the
 * whole scan. */
static inline uint64_t ct_take_word(uint64_t *w) {
  uint64_t marks = *(volatile uint64_t *)w;
  if (marks) __asm__ volatile("subq %1, %0" : "+m"(*w) : "r"(marks));
  return marks;
}

static void ct_fold_map(const struct ct_table_map *tm, uintptr_t tp, uint64_t now) {
  struct ct_table_entry *tab = (struct ct_table_entry *)((const char *)tm + tm->table);
  uint64_t *words = (uint64_t *)(tp + (uintptr_t)tm->tpoff);
  const __m128i zero = _mm_setzero_si128();
  /* 64 bytes a step (the map is padded to them); most steps are unmarked. Unaligned loads: no
   * reliance on the TLS block's alignment. */
  for (uint64_t i = 0; i < (tm->entries + 63) / 64 * 8; i += 8) {
    const __m128i *v = (const __m128i *)(words + i);
    __m128i any = _mm_or_si128(_mm_or_si128(_mm_loadu_si128(v), _mm_loadu_si128(v + 1)),
                               _mm_or_si128(_mm_loadu_si128(v + 2), _mm_loadu_si128(v + 3)));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(any, zero)) == 0xffff) continue;
    for (uint64_t j = i; j < i + 8; j++) {
      uint64_t marks = ct_take_word(&words[j]);
      if (marks) ct_fold_word(tab, j * 8, marks, now);
    }
  }
}

_Atomic int ct_table_maps_present;
static __thread int ct_folding;

void ct_table_maps_fold(uint64_t now) {
  /* A signal handler's chunk start (or dump) during this thread's fold: the fold under way
   * takes the handler's marks too (at its time, the older one). */
  if (ct_folding) return;
  ct_folding = 1;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  uintptr_t tp = ct_thread_pointer();
  uint32_t n = atomic_load_explicit(&ct_module_count, memory_order_acquire);
  for (uint32_t i = 0; i < n && i < CT_MAX_MODULES; i++) {
    const struct ct_module *m = &ct_modules[i];
    if (m->flags & CT_MOD_UNLOADED) continue;
    for (const struct ct_table_map *tm = m->maps_start; tm && tm < m->maps_stop; tm++)
      ct_fold_map(tm, tp, now);
  }
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  ct_folding = 0;
}

void ct_table_maps_fold_self(void) {
  if (atomic_load_explicit(&ct_table_maps_present, memory_order_relaxed))
    ct_table_maps_fold(__crashtrail_now);
}
