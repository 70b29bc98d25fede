/*
 * arena.c - bump allocation in 1 MiB blocks (bigger requests get a block of their own).
 */
#include "arena.h"

#include <stdlib.h>
#include <string.h>

struct ct_arena_block {
  struct ct_arena_block *next;
  size_t pad; /* keeps the data 16-byte aligned */
  unsigned char data[];
};

void *ct_arena_alloc(struct ct_arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (!a->head || a->cap - a->used < n) {
    size_t cap = n > (1u << 20) ? n : (1u << 20);
    struct ct_arena_block *b = malloc(sizeof *b + cap);
    if (!b) return NULL;
    b->next = a->head;
    a->head = b;
    a->used = 0;
    a->cap = cap;
  }
  void *p = a->head->data + a->used;
  a->used += n;
  memset(p, 0, n);
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
    free(a->head);
    a->head = next;
  }
  a->used = a->cap = 0;
}
