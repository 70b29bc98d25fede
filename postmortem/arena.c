/*
 * arena.c - bump allocation in 2 MiB blocks (bigger requests get a block of their own).
 *
 * Blocks come straight from mmap, aligned to 2 MiB and advised MADV_HUGEPAGE: a module's
 * metadata and a timeline fill tens of MB of them once, and on 4 KiB pages every first touch
 * was a page fault (a third of `crashtrail show`'s faults on a 64 MB dump; a fault costs far more
 * than the bytes it maps on a VM). Fresh anonymous pages are zero, and nothing is ever freed
 * back into a block, so allocations need no clearing.
 */
#include "arena.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define CT_ARENA_BLOCK ((size_t)2 << 20)

struct ct_arena_block {
  struct ct_arena_block *next;
  size_t size; /* of the whole mapping, for munmap */
  unsigned char data[];
};

/* A zeroed mapping of `size` bytes (a multiple of 2 MiB), 2 MiB aligned so that the kernel can
 * back it with huge pages. */
static void *map_block(size_t size) {
  size_t over = size + CT_ARENA_BLOCK;
  unsigned char *m = mmap(NULL, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return NULL;
  uintptr_t start = ((uintptr_t)m + CT_ARENA_BLOCK - 1) & ~(uintptr_t)(CT_ARENA_BLOCK - 1);
  size_t head = start - (uintptr_t)m, tail = over - head - size;
  if (head) munmap(m, head);
  if (tail) munmap((unsigned char *)start + size, tail);
#ifdef MADV_HUGEPAGE
  madvise((void *)start, size, MADV_HUGEPAGE); /* advice only: 4 KiB pages work too */
#endif
  return (void *)start;
}

void *ct_arena_alloc(struct ct_arena *a, size_t n) {
  if (n > SIZE_MAX / 2) return NULL; /* no such mapping; the sums below would wrap */
  n = (n + 15) & ~(size_t)15;
  if (!a->head || a->cap - a->used < n) {
    size_t need = sizeof(struct ct_arena_block) + n;
    size_t size = (need + CT_ARENA_BLOCK - 1) & ~(CT_ARENA_BLOCK - 1);
    struct ct_arena_block *b = map_block(size);
    if (!b) return NULL;
    b->next = a->head;
    b->size = size;
    a->head = b;
    a->used = 0;
    a->cap = size - sizeof *b;
  }
  void *p = a->head->data + a->used;
  a->used += n;
  return p;
}

char *ct_arena_strndup(struct ct_arena *a, const char *s, size_t n) {
  char *p = ct_arena_alloc(a, n + 1);
  if (p) memcpy(p, s, n);
  return p;
}

void ct_arena_free(struct ct_arena *a) {
  while (a->head) {
    struct ct_arena_block *next = a->head->next;
    munmap(a->head, a->head->size);
    a->head = next;
  }
  a->used = a->cap = 0;
}
