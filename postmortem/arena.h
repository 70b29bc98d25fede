/*
 * arena.h - bump allocation for data that lives as long as its owner (a module's metadata, a
 * timeline). Blocks are chained and freed together; nothing is freed individually.
 */
#ifndef CT_ARENA_H
#define CT_ARENA_H

#include <stddef.h>

struct ct_arena_block;
struct ct_arena {
  struct ct_arena_block *head;
  size_t used, cap;
};

/* Zeroed, 16-byte aligned memory, or NULL when out of memory. */
void *ct_arena_alloc(struct ct_arena *a, size_t n);
/* A terminated copy of n bytes. */
char *ct_arena_strndup(struct ct_arena *a, const char *s, size_t n);
void ct_arena_free(struct ct_arena *a);

#endif
