/*
 * decoder.h - from ring bytes to records, and from a record to the blocks it ran
 * ("abstract execution": re-walking the function's CFG, reading a successor's code at each
 * multi-way branch, as in Larus's qpt regeneration).
 */
#ifndef CT_DECODER_H
#define CT_DECODER_H

#include <stddef.h>
#include <stdint.h>

#include "crashtrail/abi.h"
#include "dump_reader.h"
#include "meta_reader.h"

#define CT_NO_STAMP UINT64_MAX

struct ct_rec {
  uint64_t fn;      /* runtime address of the function that wrote it; 0 for a CUT marker */
  uint64_t acc;     /* the path accumulator */
  uint64_t time_ns; /* CLOCK_MONOTONIC, interpolated within its chunk */
};

/* A stamped record (or CUT marker) and its full stamp. Few records are stamped (only where
 * control may leave a module, once a second module has registered), so stamps are listed
 * apart from the records. */
struct ct_rec_stamp {
  size_t index;     /* record slot */
  uint64_t stamp;
};

/* Record slots per chunk of chunk_bytes (the header's two slots not counted). */
#define CT_CHUNK_RECORD_SLOTS_OF(chunk_bytes) ((chunk_bytes) / CT_RECORD_BYTES - CT_CHUNK_HEADER_SLOTS)
#define CT_CHUNK_RECORD_SLOTS CT_CHUNK_RECORD_SLOTS_OF(CT_CHUNK_BYTES)

/* A ring's records, read in place from the dump (a 64 MB ring holds 4 M records: copying them
 * cost more than decoding them). Record slot i is slot i % slots (after the header) of live
 * chunk i / slots; slots that hold no record (past the chunk's end, SEQ markers, torn or
 * unknown slots) are holes that ct_ring_rec skips. */
struct ct_ring_records {
  const uint64_t **live;   /* the live chunks, oldest first (pointers into the dump) */
  uint64_t *clock;         /* per live chunk: its CLOCK marker's time */
  uint64_t *step;          /* per live chunk: time per slot up to the next chunk's clock, 32.32 */
  uint16_t *fill;          /* per live chunk: slots used before its first empty one */
  size_t nlive;
  size_t slots;            /* record slots per chunk (CT_CHUNK_RECORD_SLOTS_OF the dump's) */
  size_t n;                /* record slots: nlive * slots, oldest first */
  struct ct_rec_stamp *stamps; /* in index order */
  size_t nstamps, stamps_cap;
  size_t skipped;      /* torn or malformed slots */
  size_t chunks;       /* chunks with data */
  uint64_t oldest_generation, newest_generation;
  uint64_t fn_base; /* the module's record_base (0: records hold function addresses) */
};

/* Reads the ring's chunk headers and stamps (end_ns: CLOCK_MONOTONIC at which the newest chunk
 * ended, e.g. the dump's); the records stay in the dump, which must outlive *out. Returns 0,
 * or -1 when out of memory. Bad chunks are skipped and counted, never trusted. */
int ct_ring_extract(const struct ct_dump_ring *r, uint64_t end_ns, struct ct_ring_records *out);
void ct_ring_records_free(struct ct_ring_records *rr);
/* The full stamp of record slot index, or CT_NO_STAMP. O(log nstamps). */
uint64_t ct_ring_stamp(const struct ct_ring_records *rr, size_t index);

/* What a ring slot after a chunk's header holds. */
enum ct_slot_kind {
  CT_SLOT_RECORD, /* a record: w0 = function | stamp bits, w1 = accumulator */
  CT_SLOT_CUT,    /* a CUT marker: w1 is its full stamp */
  CT_SLOT_SEQ,    /* a SEQ marker: w1 is the full stamp counter */
  CT_SLOT_ABANDON, /* a frame a longjmp discarded in a deferred call (CT_TAG_ABANDON) */
  CT_SLOT_TOPLEVEL, /* an exit handler starts (CT_TAG_TOPLEVEL) */
  CT_SLOT_BAD     /* an unknown marker, or a record torn by the crash (w1 == 0) */
};

/* An unstamped record (no tag, no stamp bit, an accumulator): nearly every slot, so the readers
 * test it before anything else. */
static inline int ct_slot_plain_record(uint64_t w0, uint64_t w1) {
  return w0 < CT_REC_STAMPED && w1;
}

static inline enum ct_slot_kind ct_slot_kind(uint64_t w0, uint64_t w1) {
  /* untagged: ct_slot_plain_record, or a slot without an accumulator */
  if (w0 < CT_REC_STAMPED) return w1 ? CT_SLOT_RECORD : CT_SLOT_BAD;
  uint32_t tag = (w0 & CT_REC_STAMPED) ? 0 : (uint32_t)(w0 >> CT_REC_TAG_SHIFT);
  if (tag == CT_TAG_SEQ) return CT_SLOT_SEQ;
  if (tag == CT_TAG_ABANDON && w1) return CT_SLOT_ABANDON;
  if (tag == CT_TAG_TOPLEVEL && w1) return CT_SLOT_TOPLEVEL;
  if ((tag != 0 && tag != CT_TAG_CUT) || w1 == 0) return CT_SLOT_BAD;
  return tag == CT_TAG_CUT ? CT_SLOT_CUT : CT_SLOT_RECORD;
}

/* Slot s's time in a chunk whose clock and step are given: a chunk's records are spread
 * evenly between its clock and the next chunk's. */
static inline uint64_t ct_slot_time(uint64_t clock, uint64_t step, size_t s) {
  return clock + (uint64_t)(((unsigned __int128)step * s) >> 32);
}

/* A record's function from the id in its first word: the ring's fn_base less the id (ABI 4),
 * or, with no fn_base (a dump before format 2), the id is the address. */
static inline uint64_t ct_slot_fn(uint64_t fn_base, uint64_t id) {
  return fn_base ? fn_base - id : id;
}

/* A slot's words (w0, w1) as a record: 1 with *out filled for a record (fn 0: a CUT marker,
 * which only carries its stamp), 0 for a hole. fn_base: the ring's (ct_ring_records); clock and
 * step: its chunk's; s: the slot's index in the chunk. Records carry no time of their own: a
 * chunk's are spread evenly between its clock and the next chunk's (which orders threads far
 * better than one time per chunk). */
static inline int ct_slot_rec(uint64_t w0, uint64_t w1, uint64_t fn_base, uint64_t clock,
                              uint64_t step, size_t s, struct ct_rec *out) {
  out->time_ns = ct_slot_time(clock, step, s);
  if (ct_slot_plain_record(w0, w1)) { /* nearly every slot: no tag to look at */
    if (w0 & CT_REC_DEFER_MARK) return 0; /* a deferred call's mark: orders, decodes to nothing */
    out->fn = ct_slot_fn(fn_base, w0);
    out->acc = w1;
    return 1;
  }
  enum ct_slot_kind kind = ct_slot_kind(w0, w1);
  if (kind == CT_SLOT_SEQ || kind == CT_SLOT_BAD || kind == CT_SLOT_ABANDON ||
      kind == CT_SLOT_TOPLEVEL)
    return 0;
  int cut = kind == CT_SLOT_CUT;
  uint64_t id = w0 & CT_REC_ADDR_MASK;       /* the function: record_base - id (ABI 4) */
  if (!cut && (id & CT_REC_DEFER_MARK)) return 0; /* a deferred call's mark (its stamp orders) */
  out->fn = cut ? 0 : ct_slot_fn(fn_base, id); /* a CUT orders like a stamped */
  out->acc = cut ? 0 : w1;                         /* record and decodes to nothing */
  return 1;
}

/* A CT_SLOT_ABANDON slot as a record of its frame's function (fn, acc, time as ct_slot_rec's)
 * and the frame's return address less the function's start (0: not known). */
static inline void ct_slot_abandon(uint64_t w0, uint64_t w1, uint64_t fn_base, uint64_t clock,
                                   uint64_t step, size_t s, struct ct_rec *out, uint32_t *ret) {
  uint64_t id = w0 & ((UINT64_C(1) << CT_ABANDON_FN_BITS) - 1);
  out->time_ns = ct_slot_time(clock, step, s);
  out->fn = ct_slot_fn(fn_base, id);
  out->acc = w1;
  *ret = (uint32_t)((w0 >> CT_ABANDON_FN_BITS) & ((UINT64_C(1) << CT_ABANDON_RET_BITS) - 1));
}

/* Slot s (< rr->fill[c]) of live chunk c: ct_slot_rec of its words. */
static inline int ct_chunk_rec(const struct ct_ring_records *rr, size_t c, size_t s,
                               struct ct_rec *out) {
  const uint64_t *w = rr->live[c] + 2 * (CT_CHUNK_HEADER_SLOTS + s);
  return ct_slot_rec(w[0], w[1], rr->fn_base, rr->clock[c], rr->step[c], s, out);
}

/* Record slot i (< rr->n): as ct_chunk_rec, 0 also past its chunk's fill. Reading slots in
 * order, a loop over chunks saves the division per slot. */
static inline int ct_ring_rec(const struct ct_ring_records *rr, size_t i, struct ct_rec *out) {
  size_t c = i / rr->slots, s = i % rr->slots;
  return s < rr->fill[c] && ct_chunk_rec(rr, c, s, out);
}

enum ct_walk_status {
  CT_WALK_BLOCK = 1,   /* w->block is the next block that ran */
  CT_WALK_END = 0,     /* the record ends here (its flush point) */
  CT_WALK_OUT = 2,     /* partial path: no more bits at a multi-way branch */
  CT_WALK_BAD = -1,    /* the record does not fit the metadata (see w->why) */
  CT_WALK_FLOW = 3,    /* w->block is a carried call (CT_TERM_FLOW): the walk goes on at its
                          callee's entry, ct_walk_resume */
  CT_WALK_RET = 4,     /* w->block returns from a carried function (CT_FN_FLOW): the walk goes
                          on at its caller's continuation, ct_walk_resume */
  CT_WALK_DEFER = 5    /* w->block is a deferred call (CT_TERM_DEFER): the callee runs (its
                          records are written before this one's), then ct_walk_after_defer */
};

struct ct_walk {
  const struct ct_mfunc *f;
  uint64_t acc;
  uint32_t nbits, used, block, site;
  uint32_t end;  /* after CT_WALK_END: the block where the next record starts, if the record
                    ended at a check point that fired; else the flush block (== block) */
  uint32_t idle; /* blocks walked without reading a bit (loop guard) */
  int32_t fill_off; /* the record's start function's site bits less w->f's: a check fires by
                       the bits the accumulator holds, whichever function started it */
  const char *why;
};

/* The walk goes on at block `block` of f (a carried call's callee at 0, or a caller's
 * continuation); `start_bits`: the site bits of the function the record started in. Returns
 * CT_WALK_BLOCK, or CT_WALK_END if a check point fires on entering it. */
int ct_walk_resume(struct ct_walk *w, const struct ct_mfunc *f, uint32_t block,
                   uint32_t start_bits);

/* Starts walking record acc of f: w->block is the record's first block. Returns CT_WALK_BLOCK,
 * or CT_WALK_BAD for an accumulator without sentinel or with an unknown site. */
int ct_walk_start(struct ct_walk *w, const struct ct_mfunc *f, uint64_t acc);
/* The successor of BRANCH block b whose code matches the next bits (consuming them), or -1. */
int ct_walk_read_code(struct ct_walk *w, const struct ct_mblock *b);

/* Moves to the next block that ran. `partial`: the accumulator was taken from a live frame,
 * so running out of bits at a branch is expected (CT_WALK_OUT) rather than corrupt. Inline:
 * it runs once per block of the whole history. */
static inline int ct_walk_next(struct ct_walk *w, int partial) {
  const struct ct_wblock *b = &w->f->wb[w->block];
  uint32_t next;
  switch (b->info & CT_WB_KIND) {
  case CT_WB_JUMP:
    next = b->succ[0];
    break;
  case CT_WB_BIT:
  case CT_WB_CODES:
    if (w->used == w->nbits) {
      if (partial) return CT_WALK_OUT;
      w->why = "record ends at a branch";
      return CT_WALK_BAD;
    }
    if ((b->info & CT_WB_KIND) == CT_WB_BIT) {
      next = b->succ[(w->acc >> (w->nbits - w->used - 1)) & 1];
      w->used++;
    } else {
      int i = ct_walk_read_code(w, &w->f->blocks[w->block]);
      if (i < 0) {
        w->why = "no successor matches the recorded code";
        return CT_WALK_BAD;
      }
      next = (uint32_t)i;
    }
    w->idle = 0;
    break;
  default: /* CALL, INVOKE, RETURN, RESUME, STOP: the record was flushed here */
    if ((w->f->flags & CT_FN_DEFERS) && w->f->blocks[w->block].term == CT_TERM_DEFER)
      return CT_WALK_DEFER;
    if (w->f->flags & CT_FN_FLOW_ANY) { /* unless the accumulator was carried on */
      uint32_t t = w->f->blocks[w->block].term;
      if (t == CT_TERM_FLOW) return CT_WALK_FLOW;
      if (t == CT_TERM_RETURN && (w->f->flags & CT_FN_FLOW)) return CT_WALK_RET;
    }
    if (w->used != w->nbits && !partial) {
      w->why = "bits left at the end of the record";
      return CT_WALK_BAD;
    }
    w->end = w->block;
    return CT_WALK_END;
  }
  if ((int64_t)w->used + w->fill_off >= (int64_t)w->f->wb[next].flush_used) { /* a check fired */
    if (w->used != w->nbits && !partial) {
      w->why = "bits left at a check point that flushed";
      return CT_WALK_BAD;
    }
    w->end = next;
    return CT_WALK_END;
  }
  if (++w->idle > w->f->nblocks) { /* a cycle that reads no bits: runs forever */
    w->why = "a loop without branches";
    return partial ? CT_WALK_OUT : CT_WALK_BAD;
  }
  w->block = next;
  return CT_WALK_BLOCK;
}

/* Starts walking record acc of f at its segment seg, the walk after its seg-th deferred call
 * (a complete record: no bits missing): the walk's status there, CT_WALK_BAD if the record
 * has fewer deferred calls. */
int ct_walk_to_segment(struct ct_walk *w, const struct ct_mfunc *f, uint64_t acc, uint32_t seg);

/* The walk goes on after the deferred call at w->block (CT_WALK_DEFER), at its continuation:
 * CT_WALK_BLOCK, or CT_WALK_END if the continuation's check point fires. */
static inline int ct_walk_after_defer(struct ct_walk *w, int partial) {
  uint32_t next = w->f->blocks[w->block].succ[0].block;
  if ((int64_t)w->used + w->fill_off >= (int64_t)w->f->wb[next].flush_used) {
    if (w->used != w->nbits && !partial) {
      w->why = "bits left at a check point that flushed";
      return CT_WALK_BAD;
    }
    w->end = next;
    return CT_WALK_END;
  }
  w->block = next;
  w->idle = 0;
  return CT_WALK_BLOCK;
}

#endif
