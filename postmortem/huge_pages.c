/*
 * huge_pages.c - see huge_pages.h.
 */
#include "huge_pages.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

void ct_advise_huge(void *p, size_t len) {
#ifdef MADV_HUGEPAGE
  const uintptr_t huge = (uintptr_t)2 << 20;
  uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + len) & ~(huge - 1);
  if (p && hi > lo) madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
  (void)p;
  (void)len;
#endif
}

void *ct_malloc_huge(size_t n) {
  void *p = malloc(n);
  ct_advise_huge(p, n);
  return p;
}
