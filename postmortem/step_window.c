/*
 * step_window.c - windowed decoding: every record is decoded, only the newest steps are made.
 *
 * A 64 MB dump holds tens of millions of steps; a terminal shows a few hundred. So with a
 * window, walked blocks are counted instead of turned into steps: a block makes its lines'
 * steps (meta_walk.c counts them), less one if its first line continues the newest step (same
 * merge key, and no entry or gap flag). Blocks, and whole records, go into a ring; at the end
 * the ring's newest entries are turned into steps by ct_add_block_steps, the code full
 * decoding uses, so the kept steps are the same steps and the count of the others is exact.
 *
 * Invariants:
 *  - Every ring entry makes at least one step of its own: an entry that would merge entirely
 *    into the newest step only adds its loop iterations to that step's entry (`repeat`). So
 *    the ring's mask + 1 >= window entries always hold the window. Only the oldest kept
 *    step's loop count can miss iterations that ran before its entry left the ring.
 *  - A record's count depends only on (function, accumulator) and on the newest step's key
 *    before it, so a record's summary (its steps on their own, first and last keys, check
 *    points, where it ends) is remembered in a direct-mapped cache: loops write the same
 *    records over and over, and a cached record costs a lookup instead of a walk.
 *
 * The cache lookup and the counting of a summarised record run for every record: they are
 * inline in step_window.h, with the window's state.
 */
#include "step_window.h"

#include <stdlib.h>
#include <string.h>

#include "crashtrail/abi.h"
#include "decoder.h"

void ct_add_no_lines_step(struct ct_tl_thread *th, const struct ct_mfunc *f, uint16_t mod,
                          uint16_t flags, uint32_t depth, uint64_t time) {
  struct ct_step s = {.function = f->display, .outer = f->display, .fn = f, .module = mod,
                      .flags = flags, .depth = depth, .time_ns = time};
  ct_tl_add_step(th, &s);
}

void ct_add_block_steps(struct ct_tl_thread *th, const struct ct_mfunc *f, uint16_t mod,
                        const struct ct_mblock *b, uint16_t flags, uint32_t depth, uint64_t time) {
  struct ct_step s = {.outer = f->display, .fn = f, .module = mod, .depth = depth, .time_ns = time};
  for (uint32_t i = 0; i < b->nlines; i++) {
    const struct ct_mline *l = &b->lines[i];
    s.function = l->function;
    s.file = l->file;
    s.line = l->line;
    s.col = l->col;
    s.inl = l->inl;
    s.flags = (uint16_t)(i == 0 ? flags | (b->flags & CT_BB_LOOP ? CT_STEP_LOOP : 0) : 0);
    ct_tl_add_step(th, &s);
  }
}

struct ct_step_window *ct_sw_new(struct ct_tl_thread *th, size_t window) {
  struct ct_step_window *sw = calloc(1, sizeof *sw);
  size_t cap = 64;
  while (cap < window) cap *= 2;
  if (!sw || !(sw->q = malloc(cap * sizeof *sw->q))) {
    free(sw);
    return NULL;
  }
  sw->th = th;
  sw->window = window;
  sw->mask = cap - 1;
  return sw;
}

void ct_sw_free(struct ct_step_window *sw) {
  if (!sw) return;
  free(sw->q);
  free(sw);
}

void ct_sw_blocks(struct ct_step_window *sw, const struct ct_mfunc *f, uint32_t site,
                  const uint32_t *blocks, size_t n, const struct ct_sw_at *at) {
  struct ct_sw_pending p = {f, 0, at->depth, 0, at->mod, 0, CT_SW_PEND_BLOCK, 0, at->time};
  uint8_t flags = (uint8_t)((site == 0 ? CT_STEP_ENTRY : 0) | (*at->gap ? CT_STEP_GAP : 0));
  if ((f->flags & CT_FN_NO_DEBUG) && site != UINT32_MAX) {
    /* its step's key is the function's name: no line has it */
    p.kind = CT_SW_PEND_NO_LINES;
    p.flags = flags;
    ct_sw_push(sw, &p, flags || sw->tail != f->display, 0);
    sw->tail = f->display;
    *at->gap = 0;
    flags = 0;
  }
  p.kind = CT_SW_PEND_BLOCK;
  for (size_t k = 0; k < n; k++) {
    const struct ct_wblock *b = &f->wb[blocks[k]];
    if (!b->first_key) {
      flags &= (uint8_t)~CT_STEP_ENTRY; /* only the first block's first line is the entry */
      continue;
    }
    p.what = blocks[k];
    p.flags = flags;
    ct_sw_push(sw, &p, (b->info >> CT_WB_LINE_SHIFT) - (!flags && b->first_key == sw->tail),
               (b->info & CT_WB_LOOP) != 0);
    sw->tail = b->last_key;
    *at->gap = 0;
    flags = 0;
  }
}

int ct_sw_summarise(struct ct_sw_summary *s, uint64_t fn, const struct ct_mfunc *f, uint64_t acc,
                    uint32_t seg) {
  struct ct_walk w;
  memset(s, 0, sizeof *s);
  if (f->flags & CT_FN_NO_DEBUG) return 0;
  int st = ct_walk_start(&w, f, acc);
  s->site = seg ? UINT32_MAX : w.site;
  s->empty = w.nbits == 0;
  if (seg) st = ct_walk_to_segment(&w, f, acc, seg);
  const void *tail = NULL;
  for (uint32_t k = 0; st == CT_WALK_BLOCK; k++, st = ct_walk_next(&w, 0)) {
    const struct ct_wblock *b = &f->wb[w.block];
    if (!b->first_key) continue;
    if (!s->first_key) {
      s->first_key = b->first_key;
      s->entry_ok = k == 0;
    }
    s->steps += (b->info >> CT_WB_LINE_SHIFT) - (b->first_key == tail);
    s->loops += (b->info & CT_WB_LOOP) != 0;
    tail = b->last_key;
  }
  if (st != CT_WALK_END && st != CT_WALK_DEFER) {
    s->fn = 0;
    return 0;
  }
  s->fn = fn;
  s->acc = acc;
  s->seg = seg;
  s->defer = st == CT_WALK_DEFER;
  s->f = f;
  s->last_key = tail;
  s->last_block = w.block;
  s->end = w.end;
  return 1;
}

/* The steps of a record (its segment p->seg) counted whole: its blocks with lines, the flags to
 * the first. */
static void record_steps(struct ct_tl_thread *th, const struct ct_sw_pending *p) {
  struct ct_walk w;
  uint16_t flags = p->flags;
  for (int st = ct_walk_to_segment(&w, p->f, p->what, p->seg); st == CT_WALK_BLOCK;
       st = ct_walk_next(&w, 0)) {
    const struct ct_mblock *b = &p->f->blocks[w.block];
    if (!b->nlines) continue;
    ct_add_block_steps(th, p->f, p->mod, b, flags, p->depth, p->time);
    flags = 0;
  }
}

void ct_sw_finish(struct ct_step_window *sw) {
  struct ct_tl_thread *th = sw->th;
  size_t n = sw->pushed < sw->mask + 1 ? sw->pushed : sw->mask + 1;
  for (size_t i = sw->pushed - n; i < sw->pushed; i++) {
    const struct ct_sw_pending *p = &sw->q[i & sw->mask];
    if (p->kind == CT_SW_PEND_NO_LINES)
      ct_add_no_lines_step(th, p->f, p->mod, p->flags, p->depth, p->time);
    else if (p->kind == CT_SW_PEND_RECORD) record_steps(th, p);
    else ct_add_block_steps(th, p->f, p->mod, &p->f->blocks[p->what], p->flags, p->depth, p->time);
    if (th->nsteps) th->steps[th->nsteps - 1].repeat += p->repeat;
  }
  /* The first entry's first step may continue an older one: it stands for that step. The
   * ring holds at least the window; ct_timeline_build cuts the thread to it. */
  th->first_seq = sw->total - th->nsteps;
}
