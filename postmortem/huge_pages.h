/*
 * huge_pages.h - arrays of millions of entries (a dump's records gathered, a line table of an
 * amalgamation) asked to be backed by transparent huge pages.
 *
 * Faulting in a fresh 4 KB page costs the kernel a fault, a clear and its accounting; for the
 * few hundred megabytes a deferred-call dump's parse touches that was a fifth of its CPU time.
 * With MADV_HUGEPAGE (honoured where /sys/kernel/mm/transparent_hugepage/enabled is `madvise`
 * or `always`) a fault brings in 2 MB. Advice only: without it, or where the kernel refuses,
 * the memory is the same.
 */
#ifndef CT_HUGE_PAGES_H
#define CT_HUGE_PAGES_H

#include <stddef.h>

/* Advises the whole 2 MB pages inside [p, p + len). */
void ct_advise_huge(void *p, size_t len);

/* malloc(n), advised when n spans whole huge pages. */
void *ct_malloc_huge(size_t n);

#endif
