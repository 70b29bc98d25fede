/*
 * step_window.h - turning walked blocks into a thread's steps, in full or windowed.
 *
 * Full decoding makes a step per source line as blocks are walked (ct_add_block_steps).
 * Windowed decoding (the timeline's max_steps: keep only each thread's newest steps) counts
 * instead, and keeps the newest blocks and records in a ring from which the kept steps are
 * made at the end, by the same ct_add_block_steps; see step_window.c.
 */
#ifndef CT_STEP_WINDOW_H
#define CT_STEP_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "meta_reader.h"
#include "timeline.h"

/* The steps of block b of f; `flags` go to its first. */
void ct_add_block_steps(struct ct_tl_thread *th, const struct ct_mfunc *f, uint16_t mod,
                        const struct ct_mblock *b, uint16_t flags, uint32_t depth, uint64_t time);
/* The one step of a function built without line tables: the record still proves it ran. */
void ct_add_no_lines_step(struct ct_tl_thread *th, const struct ct_mfunc *f, uint16_t mod,
                          uint16_t flags, uint32_t depth, uint64_t time);

struct ct_step_window;

/* A window of the newest `window` steps of th (window > 0). NULL when out of memory. */
struct ct_step_window *ct_sw_new(struct ct_tl_thread *th, size_t window);
void ct_sw_free(struct ct_step_window *sw);

/* Where the steps go: depth, time, and whether history was lost before them (*gap, cleared
 * once a step has taken it). */
struct ct_sw_at {
  uint16_t mod;
  uint32_t depth;
  uint64_t time;
  int *gap;
};

/* Counts blocks[0..n) of f walked from `site` (UINT32_MAX: the rest of a longer walk, no entry
 * step); a function without line tables counts its one step first. */
void ct_sw_blocks(struct ct_step_window *sw, const struct ct_mfunc *f, uint32_t site,
                  const uint32_t *blocks, size_t n, const struct ct_sw_at *at);

/* What a record decodes to, walked once: records repeat (a loop's iterations write the same
 * path), so summaries are kept by (runtime function address, accumulator, segment). A record
 * of a function with deferred calls is summarised in segments: segment k is its walk after
 * its k-th deferred call, up to the next one (the model suspends the walk there while the
 * callee runs) or to its end. */
struct ct_sw_summary {
  uint64_t fn, acc;          /* the key; fn 0: an empty slot */
  uint32_t seg;              /* and the segment */
  uint8_t defer;             /* it ends at a deferred call (last_block), not at the end */
  const struct ct_mfunc *f;
  uint32_t site;             /* where it starts (UINT32_MAX: a segment after a deferred call) */
  int empty;                 /* the record has no path bits */
  uint32_t last_block, end;  /* ct_walk's block and end: where the next record starts */
  const void *first_key, *last_key; /* its first and last lines' merge keys; NULL: no lines */
  uint32_t steps;            /* the steps it makes on its own */
  uint32_t loops;            /* loop-header blocks with lines: loop iterations if it all merges */
  int entry_ok;              /* its first block has lines (an entry record starts with a step) */
};

/* Fills slot s with segment seg of record acc of f (runtime address fn). 0, leaving the slot
 * empty, for a record the caller must walk itself: one that does not fit the metadata, or of a
 * function without line tables. */
int ct_sw_summarise(struct ct_sw_summary *s, uint64_t fn, const struct ct_mfunc *f, uint64_t acc,
                    uint32_t seg);

/* The window's state is here, not in step_window.c, so that the two calls every record makes
 * (ct_sw_slot, ct_sw_count) inline into the decoder's loop: as calls they cost 8% of the
 * instructions `crashtrail show` runs on a 64 MB dump. */

enum { CT_SW_PEND_BLOCK, CT_SW_PEND_NO_LINES, CT_SW_PEND_RECORD };

/* A ring entry: a block, a function's one step without line tables, or a whole record. */
struct ct_sw_pending {
  const struct ct_mfunc *f;
  uint64_t what;   /* CT_SW_PEND_BLOCK: the block; CT_SW_PEND_RECORD: the accumulator */
  uint32_t depth;
  uint32_t repeat; /* loop iterations of its last step merged into it by later entries */
  uint16_t mod;
  uint8_t flags;   /* CT_STEP_ENTRY / CT_STEP_GAP of its first step */
  uint8_t kind;
  uint32_t seg;    /* CT_SW_PEND_RECORD: the record's segment (ct_sw_summary) */
  uint64_t time;
};

#define CT_SW_MEMO_BITS 12

struct ct_step_window {
  struct ct_tl_thread *th;
  size_t window;
  struct ct_sw_pending *q;
  size_t mask, pushed, total;
  const void *tail; /* the newest step's merge key, NULL before the first */
  struct ct_sw_summary memo[1u << CT_SW_MEMO_BITS];
};

/* Counts an entry that makes `steps` steps of its own (0: it merges into the newest step,
 * adding `loops` iterations): the queue slot to fill with it, or NULL when it merged. */
static inline struct ct_sw_pending *ct_sw_take(struct ct_step_window *sw, uint32_t steps,
                                               uint32_t loops, uint32_t depth) {
  if (!steps) {
    if (sw->pushed) sw->q[(sw->pushed - 1) & sw->mask].repeat += loops;
    return NULL;
  }
  sw->total += steps;
  if (depth < sw->th->min_depth) sw->th->min_depth = depth;
  return &sw->q[sw->pushed++ & sw->mask];
}

static inline void ct_sw_push(struct ct_step_window *sw, const struct ct_sw_pending *p,
                              uint32_t steps, uint32_t loops) {
  struct ct_sw_pending *q = ct_sw_take(sw, steps, loops, p->depth);
  if (q) *q = *p;
}

/* The cache slot of segment seg of record (fn, acc): a hit if its key is theirs, else to be
 * filled. */
static inline struct ct_sw_summary *ct_sw_slot(struct ct_step_window *sw, uint64_t fn,
                                               uint64_t acc, uint32_t seg) {
  uint64_t h = (fn >> 4 ^ acc ^ (uint64_t)seg << 40) * 0x9E3779B97F4A7C15ull;
  return &sw->memo[h >> (64 - CT_SW_MEMO_BITS)];
}

static inline int ct_sw_hit(const struct ct_sw_summary *s, uint64_t fn, uint64_t acc,
                            uint32_t seg) {
  return s->fn == fn && s->acc == acc && s->seg == seg && fn;
}

/* Counts a summarised record. Forced inline: the model calls it from four places, and as a
 * call it cost 60 instructions a record (8% of `crashtrail show`'s on a deferred dump). */
__attribute__((always_inline)) static inline void
ct_sw_count(struct ct_step_window *sw, const struct ct_sw_summary *s, const struct ct_sw_at *at) {
  if (!s->first_key) return; /* no lines: no step, the gap waits for the next */
  uint8_t flags = (uint8_t)((s->site == 0 && s->entry_ok ? CT_STEP_ENTRY : 0) |
                            (*at->gap ? CT_STEP_GAP : 0));
  /* filled in place: a pending entry built and copied per record cost a dozen instructions */
  struct ct_sw_pending *q =
      ct_sw_take(sw, s->steps - (!flags && s->first_key == sw->tail), s->loops, at->depth);
  if (q)
    *q = (struct ct_sw_pending){s->f, s->acc, at->depth, 0, at->mod, flags, CT_SW_PEND_RECORD,
                                s->seg, at->time};
  sw->tail = s->last_key;
  *at->gap = 0;
}

/* Makes the ring's steps, oldest first (at least the window's), into th->steps and sets
 * th->first_seq. */
void ct_sw_finish(struct ct_step_window *sw);

#endif
