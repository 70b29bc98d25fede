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

/* Where the gathered records are: each record stays in its ring chunk in the mapped dump
 * and is named by its chunk's index here and its slot (ct_po_rec.ref = chunk << shift | slot),
 * so the 4 M records of a 64 MB dump take 8 bytes each, not a copy of 32; a frame's
 * accumulator read from the stack (CT_PO_FRAME) is frames[ref]. aux[i] is record i's number
 * (below), read only where its flags say CT_PO_AUX: few records have one, so the array, zero
 * pages from calloc, is hardly touched and the records stay 8 bytes. */
struct ct_po_chunk {
  const uint64_t *w; /* the chunk's first record slot */
  uint64_t fn_base, clock, step; /* as ct_slot_rec takes them */
};
struct ct_po_src {
  struct ct_po_chunk *chunks;
  size_t nchunks;
  unsigned shift; /* slot bits: the largest chunk's record slots fit */
  struct ct_rec *frames;
  const struct ct_mfunc **frame_callers; /* each frame's caller on the stack (NULL: none with
                                            records) */
  uint32_t *frame_lost; /* out, per frame: how many of its first deferred calls ran before the
                           history's start (their callees' records overwritten) */
  uint32_t *aux; /* a slot per record (ct_po_aux, ct_po_set_aux) */
};

/* A record of the thread, in the order the rings give (segments merged across modules), or a
 * suspended frame's unfinished path (CT_PO_FRAME). ct_postorder writes its answers for each
 * record into the record itself (callback) and its aux (ct_po_set_aux). A record's aux: how
 * many of its first deferred calls ran before the history's start (their callees' records
 * were overwritten: the model walks past them). A frame's (CT_PO_FRAME, CT_PO_ABANDON): its
 * stop, the deferred call its walk reaches as the stop-th block that it stays in (the
 * innermost frame: its last before its last bit, which returned; an outer frame: the one it
 * is in). */
enum {
  CT_PO_GAP = 1,       /* history before it was lost */
  CT_PO_FRAME = 2,     /* a frame's accumulator, not a record (aux: its stop) */
  CT_PO_INNERMOST = 4, /* a frame: the innermost instrumented one (its call there returned) */
  CT_PO_ABANDON = 8,   /* a frame a longjmp discarded in a deferred call (CT_TAG_ABANDON: a ring
                          slot; aux: its stop, as a frame's, 0 when it was in no deferred call) */
  CT_PO_SAVED = 16,    /* a record that follows a longjmp's CT_PO_ABANDON marks: the longjmp
                          wrote every discarded frame that was in a deferred call */
  CT_PO_TOPLEVEL = 32, /* a record that follows a CT_TAG_TOPLEVEL marker: an exit handler's
                          first, no callee of a call before it */
  CT_PO_STAMPED = 64,  /* a record written stamped (CT_REC_STAMPED; a CUT marker is none) */
  CT_PO_AUX = 128,     /* its aux is not 0 (ct_po_src.aux holds it) */
};
struct ct_po_rec {
  uint32_t ref;     /* where it is (struct ct_po_src) */
  uint16_t mod;     /* index in the module set */
  uint8_t flags;    /* CT_PO_* */
  uint8_t callback; /* out: the entry of an invocation that a call into code without records
                       made (1: a callback of a deferred call; 3: of a call a record was written
                       before) or that a call through a pointer made (2), which the model cannot
                       tell from calls its caller made later; 0 otherwise */
};

/* Record i's aux (above). */
static inline uint32_t ct_po_aux(const struct ct_po_src *src, const struct ct_po_rec *recs,
                                 size_t i) {
  return (recs[i].flags & CT_PO_AUX) ? src->aux[i] : 0;
}

static inline void ct_po_set_aux(const struct ct_po_src *src, struct ct_po_rec *recs, size_t i,
                                 uint32_t v) {
  if (v) {
    src->aux[i] = v;
    recs[i].flags |= CT_PO_AUX;
  } else {
    recs[i].flags &= (uint8_t)~CT_PO_AUX;
  }
}

/* The chunk of ring record p (not a CT_PO_FRAME) and, in *s, its slot there. */
static inline const struct ct_po_chunk *ct_po_chunk_of(const struct ct_po_src *src,
                                                       const struct ct_po_rec *p, size_t *s) {
  *s = p->ref & ((1u << src->shift) - 1);
  return &src->chunks[p->ref >> src->shift];
}

/* The record p names (a gathered record always reads back as one). */
static inline struct ct_rec ct_po_get(const struct ct_po_src *src, const struct ct_po_rec *p) {
  struct ct_rec r = {0, 0, 0};
  if (p->flags & CT_PO_FRAME) return src->frames[p->ref];
  size_t s;
  const struct ct_po_chunk *c = ct_po_chunk_of(src, p, &s);
  if (p->flags & CT_PO_ABANDON) {
    uint32_t ret;
    ct_slot_abandon(c->w[2 * s], c->w[2 * s + 1], c->fn_base, c->clock, c->step, s, &r, &ret);
    return r;
  }
  ct_slot_rec(c->w[2 * s], c->w[2 * s + 1], c->fn_base, c->clock, c->step, s, &r);
  return r;
}

/* The function and accumulator of record p, a gathered ring record (neither CT_PO_FRAME nor
 * CT_PO_ABANDON): ct_po_get's without the time, which the parse never reads and which cost a
 * 128-bit multiply per record. */
static inline void ct_po_key(const struct ct_po_src *src, const struct ct_po_rec *p, uint64_t *fn,
                             uint64_t *acc) {
  size_t s;
  const struct ct_po_chunk *c = ct_po_chunk_of(src, p, &s);
  const uint64_t *w = c->w + 2 * s;
  if (ct_slot_plain_record(w[0], w[1])) { /* nearly every record */
    *fn = ct_slot_fn(c->fn_base, w[0]);
    *acc = w[1];
    return;
  }
  const struct ct_rec r = ct_po_get(src, p);
  *fn = r.fn;
  *acc = r.acc;
}

/* When record p was written: ct_po_get's time_ns, without decoding the rest. */
static inline uint64_t ct_po_time(const struct ct_po_src *src, const struct ct_po_rec *p) {
  if (p->flags & CT_PO_FRAME) return src->frames[p->ref].time_ns;
  size_t s;
  const struct ct_po_chunk *c = ct_po_chunk_of(src, p, &s);
  return ct_slot_time(c->clock, c->step, s);
}

/* recs[0..n - nframes): the records; recs[n - nframes..n): the accumulators of the crashed
 * thread's frames suspended in deferred calls (CT_PO_FRAME), outermost first.
 * Out: *head and next[0..n) list the records, each before the records of the calls it deferred
 * (from *head along next[], NONE at the end; a frame's accumulator that fits nowhere is left
 * out); each record's callback and aux (above).
 * *mismatches: records that fit no invocation (kept where they were, for the model to
 * resynchronise on). *unclosed: invocations at the history's end that no record of their
 * callers took (0 where every piece fits): with no frames given, callers suspended in deferred
 * calls whose paths since their last records were in registers at the dump (a thread other
 * than the dumping one). Returns 0, or -1 when out of memory (or given 2^32 - 1 records or
 * more). */
#define CT_PO_NONE UINT32_MAX
int ct_postorder(struct ct_modset *mods, const struct ct_po_src *src, struct ct_po_rec *recs,
                 size_t n, size_t nframes, uint32_t *next, uint32_t *head, size_t *mismatches,
                 size_t *unclosed);

/* Puts recs[] in the order of the list (*head along next[], as ct_postorder leaves it), in
 * place: recs[0..k) become the listed records, in order (their aux with them); returns k (the
 * list's length; one that ran off the array or back on itself is cut there). next[] is left
 * scrambled. MacLaren's rearrangement (Knuth, TAOCP 5.2, exercise 12): for each position i,
 * the i-th listed record is fetched from where it is now, and the record it displaces leaves
 * a forwarding address at i, so the list needs no second array (a 64 MB dump's order[] was
 * 17 MB of fresh pages: the kernel's zeroing of them, a twentieth of the decoding time). */
size_t ct_po_arrange(const struct ct_po_src *src, struct ct_po_rec *recs, size_t n,
                     uint32_t *next, uint32_t head);

#endif
