/*
 * step_times.h - the time each record's steps are given, by position in the call-stack model's
 * order, kept in 4 bytes a record.
 *
 * With deferred calls a record is written after the records of the calls it deferred, while its
 * steps ran before theirs; each record's steps are given the earliest time of the records from
 * it on in the model's order (timeline.c's po_step_times), so the times never go back along
 * the order. Such a sequence is kept as the step from the previous position's time, 32 bits
 * each: a step of UINT32_MAX means "the next escape's value", an escape being a whole time, for
 * the first position, for a step of 2^32 - 1 ns (4.3 s) or more, and for a time below the
 * previous one (a record without a time, 0, after those with one).
 *
 * Written backwards, from the last position down to 0 (the suffix minimum is computed that
 * way), so escapes are appended last position first; read forwards, taking them from the end.
 * Invariant: after ct_st_put(i) for every i from n - 1 down to 0, reading positions 0..n - 1
 * in order gives back the times put.
 */
#ifndef CT_STEP_TIMES_H
#define CT_STEP_TIMES_H

#include <stddef.h>
#include <stdint.h>

struct ct_step_times {
  uint32_t *delta; /* per position (the caller's memory, n entries) */
  uint64_t *esc;   /* the escapes' values, the highest position's first */
  size_t nesc, cap, n;
  uint64_t later; /* while writing: the time put for the position above the last one put */
};

/* Starts writing n positions into delta[0..n). */
static inline void ct_st_begin(struct ct_step_times *t, uint32_t *delta, size_t n) {
  *t = (struct ct_step_times){delta, NULL, 0, 0, n, 0};
}

/* Appends an escape of value v at position i. -1 when out of memory. */
int ct_st_escape(struct ct_step_times *t, size_t i, uint64_t v);

/* Position i's time, i going from n - 1 down to 0. -1 when out of memory (t then holds what it
 * held; ct_st_free releases it). */
static inline int ct_st_put(struct ct_step_times *t, size_t i, uint64_t time) {
  if (i + 1 < t->n) { /* position i + 1's step from this one */
    const uint64_t later = t->later;
    if (later >= time && later - time < UINT32_MAX) t->delta[i + 1] = (uint32_t)(later - time);
    else if (ct_st_escape(t, i + 1, later) != 0) return -1;
  }
  t->later = time;
  return i == 0 ? ct_st_escape(t, 0, time) : 0;
}

void ct_st_free(struct ct_step_times *t);

/* Reading, position 0 first. */
struct ct_st_reader {
  const struct ct_step_times *t;
  size_t esc; /* escapes not yet taken */
  uint64_t time;
};

static inline struct ct_st_reader ct_st_read(const struct ct_step_times *t) {
  return (struct ct_st_reader){t, t->nesc, 0};
}

/* Position i's time (i = 0, 1, ... in order). */
static inline uint64_t ct_st_next(struct ct_st_reader *r, size_t i) {
  const uint32_t d = r->t->delta[i];
  if (d != UINT32_MAX) r->time += d;
  else if (r->esc) r->time = r->t->esc[--r->esc];
  return r->time;
}

#endif
