/*
 * postorder.h - a thread's records put in the order the call-stack model takes them, for
 * modules built with deferred calls (postorder.c).
 */
#ifndef CT_POSTORDER_H
#define CT_POSTORDER_H

#include <stddef.h>
#include <stdint.h>

#include "decoder.h"
#include "module_files.h"

/* A record of the thread, in the order the rings give (segments merged across modules). */
struct ct_po_rec {
  struct ct_rec rec;
  uint16_t mod;  /* index in the module set */
  uint8_t gap;   /* history before it was lost */
  uint8_t innermost; /* with a stop: the innermost instrumented frame (its call there returned) */
  uint32_t stop; /* UINT32_MAX for a record; else the accumulator of a frame on the crashed
                    thread's stack, which stays in the deferred call its walk reaches as the
                    stop-th block (the innermost frame: its last before its last bit, which
                    returned; an outer frame: the one it is in) */
};

/* recs[0..n - nframes): the records; recs[n - nframes..n): the accumulators of the crashed
 * thread's frames suspended in deferred calls (stop set), outermost first.
 * order[0..*nout): indices into recs, each record before the records of the calls it deferred
 * (a frame's accumulator that fits nowhere is left out);
 * callback[0..n): per record, whether it is the entry of an invocation that a call into code
 * without records made (1: a callback) or that a call through a pointer made (2), which the
 * model cannot tell from calls its caller made later; 0 otherwise;
 * lost[0..n): per record, how many of its first deferred calls ran before the history's start
 * (their callees' records were overwritten: the model walks past them).
 * *mismatches: records that fit no invocation (kept where they were, for the model to
 * resynchronise on). Returns 0, or -1 when out of memory (or given 2^32 - 1 records or more). */
int ct_postorder(struct ct_modset *mods, const struct ct_po_rec *recs, size_t n, size_t nframes,
                 uint32_t *order, uint8_t *callback, uint32_t *lost, size_t *nout,
                 size_t *mismatches);

#endif
