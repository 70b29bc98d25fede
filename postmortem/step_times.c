/*
 * step_times.c - the escapes of step_times.h, out of line: rare (the first position, a pause of
 * 4.3 s or more between two records), so the inline writer stays small.
 */
#include "step_times.h"

#include <stdlib.h>

int ct_st_escape(struct ct_step_times *t, size_t i, uint64_t v) {
  if (t->nesc == t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 64;
    uint64_t *ne = realloc(t->esc, cap * sizeof *ne);
    if (!ne) return -1;
    t->esc = ne;
    t->cap = cap;
  }
  t->esc[t->nesc++] = v;
  t->delta[i] = UINT32_MAX;
  return 0;
}

void ct_st_free(struct ct_step_times *t) {
  free(t->esc);
  t->esc = NULL;
  t->nesc = t->cap = 0;
}
