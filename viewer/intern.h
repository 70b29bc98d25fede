/*
 * intern.h - the tables that make the report compact: strings, inline frames and step
 * locations, each numbered from 0 in first-seen order, so a step is written as one small
 * integer (its location) instead of an object.
 *
 * Invariants: equal strings (by content) get one number; equal locations (the same function,
 * file, line, column, module and inline chain, by content) get one number; an inline frame's
 * parent is numbered before it. Numbers never change once given.
 */
#ifndef CT_VIEWER_INTERN_H
#define CT_VIEWER_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "timeline.h"

/* An open-addressing index over the entries of one table (slots hold entry number + 1). */
struct ct_hindex {
  uint32_t *slots;
  size_t cap;          /* a power of two, or 0 */
  uint64_t *hashes;    /* hash of each entry, by entry number */
  size_t n, hcap;
};

/* A location, as written: 7 integers. Strings and inline frames are table numbers, -1 none. */
struct ct_iloc {
  int32_t function, file, line, col, module, inl, outer; /* outer: the out-of-line function,
                                                            only set when inl >= 0 */
};

struct ct_iinline {
  const struct ct_inline_frame *frame; /* identity: frames are shared by their steps */
  int32_t function, call_file, call_line, call_col, parent;
};

struct ct_intern {
  char **strs;
  size_t nstrs, capstrs;
  struct ct_hindex str_index;
  struct ct_iloc *locs;
  uint64_t *loc_uses;  /* how many steps have each location */
  size_t nlocs, caplocs;
  struct ct_hindex loc_index;
  struct ct_iinline *inls;
  size_t ninls, capinls;
  struct ct_hindex inl_index;
};

/* Each returns the entry's number (>= 0), -1 for a NULL input, or -2 when out of memory. */
int32_t ct_intern_str(struct ct_intern *in, const char *s);
int32_t ct_intern_inline(struct ct_intern *in, const struct ct_inline_frame *f);
/* The location of a step; counts one more use of it. */
int32_t ct_intern_step(struct ct_intern *in, const struct ct_step *s);

void ct_intern_free(struct ct_intern *in); /* the tables; `in` itself is the caller's */

#endif
