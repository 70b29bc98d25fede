/*
 * callstack.c - one thread's call stack while its records are decoded (see callstack.h).
 *
 * Invariants:
 *  - th->depth is the depth of the innermost frame: a push adds one, a pop takes one (also
 *    when the model is empty, i.e. returning above the start of the history), so steps keep
 *    their relative depth whatever the model knows.
 *  - A KNOWN frame's `site` is where its next record starts (its entry until its first
 *    record). Advancing it is deterministic: its zero-bit walk from there either needs a bit
 *    (then its next record is written) or reaches one flush, written or elided by its block's
 *    CT_BB_ELIDE flag.
 *  - Records are never dropped to fit the model: a record that does not fit resynchronises it.
 *
 * Steps are made, or with the timeline's max_steps counted, by step_window.c; callee bindings
 * are cached by calling block (a call is decoded millions of times). Records arrive a chunk at a
 * time (ct_callstack_chunk), so that the common case of a record runs inline in one loop.
 */
#include "callstack.h"

#include <stdlib.h>
#include <string.h>

#include "crashtrail/abi.h"
#include "postorder.h"
#include "step_times.h"
#include "step_window.h"

enum frame_kind {
  FR_KNOWN,   /* an instrumented function, at `site` */
  FR_OPAQUE,  /* a direct callee with no metadata (uninstrumented): callbacks run above it */
  FR_UNKNOWN  /* the target of an indirect call, until its first record names it */
};

struct frame {
  const struct ct_mfunc *f;
  struct ct_module *m;
  uint16_t mod;
  uint8_t kind;
  uint32_t site;
  uint32_t cont; /* the block a carried call returns to, while the frame above it is that
                    call's callee (walks reach it from the callee's return); else UINT32_MAX */
  uint8_t suspended; /* its walk stopped at a deferred call (the callee is the frame above):
                        the rest of it is cs->susp[its index], resumed when the callee returns */
  uint8_t partial;   /* its walk is a frame's unfinished path read from the stack at the dump
                        (ct_po_rec.stop): it may run out of bits. 2: the innermost frame's */
  uint8_t frozen;    /* suspended at the call it was in at the dump, never resumed: 1; the
                        innermost frame's last deferred call before its last bit (pending_path
                        goes on from there): 2 */
  uint32_t stop;     /* partial: its walk freezes at the deferred call that is its stop-th
                        block (ct_po_rec.stop); `walked` counts them */
  uint32_t walked;
  uint32_t lost;     /* its record's first deferred calls whose callees' records were lost with
                        the history's start (postorder.c): walked past, not waited for */
};

/* A frame of f at site (cont: as struct frame's), nothing suspended. */
static inline struct frame known_frame(const struct ct_mfunc *f, struct ct_module *m,
                                       uint16_t mod, uint32_t site, uint32_t cont) {
  return (struct frame){.f = f, .m = m, .mod = mod, .kind = FR_KNOWN, .site = site, .cont = cont};
}

#define CT_CS_MAX_FRAMES (1u << 16)

/* Where a frame's walk stopped at a deferred call: the walk itself, or (summarised: windowed
 * decoding took the record from step_window.c's summaries) the record and the segment that
 * ended there, from whose summary the next segment is looked up. */
struct susp {
  struct ct_walk w;
  uint64_t fn, acc;
  uint32_t seg;
  uint8_t summarised;
};

#define CALLEE_CACHE_BITS 12
struct callee_slot {
  const struct ct_mblock *block; /* NULL: empty */
  struct frame frame;
};

struct ct_callstack {
  struct ct_timeline *t;
  struct ct_tl_thread *th;
  struct frame *fr;
  struct susp *susp; /* per frame: its walk suspended at a deferred call (frame.suspended) */
  size_t n, cap;
  struct frame *save; /* a copy of fr while a record's start is tried (record_flow_entered) */
  size_t save_cap;
  uint32_t *path; /* blocks of the zero-bit walk being tried */
  size_t path_cap;
  uint64_t time;  /* of the record being decoded: given to the steps of elided ones too */
  int gap;        /* the next step starts after lost history */
  struct ct_step_window *sw; /* windowed decoding (timeline max_steps), else NULL */
  struct callee_slot callees[1u << CALLEE_CACHE_BITS]; /* direct-mapped, by calling block */
  const struct ct_module *last_mod; /* the newest record given: its module, function, value */
  uint64_t last_fn, last_acc;
  int po_callback; /* records in ct_postorder's order: whether this one is a callback's entry
                      (1), an indirect call's target's (2), neither (0) (ct_postorder); -1:
                      records in ring order, reachable decides */
  uint32_t po_lost; /* and how many of its first deferred calls lost their callees' records */
  int po_saved;     /* and whether it follows a longjmp's marks (CT_PO_SAVED) */
};

struct ct_callstack *ct_callstack_new(struct ct_timeline *t, struct ct_tl_thread *th) {
  struct ct_callstack *cs = calloc(1, sizeof *cs);
  if (!cs) return NULL;
  cs->t = t;
  cs->th = th;
  cs->po_callback = -1;
  if (t->max_steps && !(cs->sw = ct_sw_new(th, t->max_steps))) {
    free(cs);
    return NULL;
  }
  return cs;
}

int ct_callstack_last_record(const struct ct_callstack *cs, const struct ct_module **m,
                              uint64_t *fn, uint64_t *acc) {
  if (!cs->last_mod) return 0;
  *m = cs->last_mod;
  *fn = cs->last_fn;
  *acc = cs->last_acc;
  return 1;
}

void ct_callstack_free(struct ct_callstack *cs) {
  if (!cs) return;
  free(cs->fr);
  free(cs->susp);
  free(cs->save);
  free(cs->path);
  ct_sw_free(cs->sw);
  free(cs);
}

static void push(struct ct_callstack *cs, struct frame f) {
  if (cs->n == cs->cap) {
    if (cs->cap >= CT_CS_MAX_FRAMES) { /* runaway recursion: forget the outermost half */
      memmove(cs->fr, cs->fr + cs->n / 2, (cs->n - cs->n / 2) * sizeof *cs->fr);
      if (cs->susp)
        memmove(cs->susp, cs->susp + cs->n / 2, (cs->n - cs->n / 2) * sizeof *cs->susp);
      cs->n -= cs->n / 2;
    } else {
      size_t cap = cs->cap ? cs->cap * 2 : 64;
      struct frame *nf = realloc(cs->fr, cap * sizeof *nf);
      struct susp *nw = nf && cs->susp ? realloc(cs->susp, cap * sizeof *nw) : NULL;
      if (nf) cs->fr = nf;
      if (nw) cs->susp = nw;
      if (!nf || (cs->susp && !nw)) { /* out of memory: the model restarts from this frame */
        cs->n = 0;
        if (!cs->cap) return;
      } else {
        cs->cap = cap;
      }
    }
  }
  cs->fr[cs->n++] = f;
  cs->th->depth++;
}

static void pop(struct ct_callstack *cs) {
  if (cs->n) cs->n--;
  cs->th->depth--;
}

int ct_callstack_uncall(struct ct_callstack *cs, const struct ct_mfunc *f) {
  if (cs->n < 2 || cs->fr[cs->n - 2].kind != FR_KNOWN || cs->fr[cs->n - 2].f != f) return 0;
  pop(cs);
  return 1;
}

/* The steps of blocks[0..n) of f, walked from `site` (UINT32_MAX: the rest of a walk). */
static void emit(struct ct_callstack *cs, const struct ct_mfunc *f, uint16_t mod, uint32_t site,
                 const uint32_t *blocks, size_t n) {
  struct ct_tl_thread *th = cs->th;
  uint32_t depth = (uint32_t)(th->depth + CT_DEPTH_BIAS);
  if (cs->t->keep_blocks)
    for (size_t k = 0; k < n; k++) ct_tl_log_block(th, f, blocks[k], mod);
  if (cs->sw) {
    struct ct_sw_at at = {mod, depth, cs->time, &cs->gap};
    ct_sw_blocks(cs->sw, f, site, blocks, n, &at);
    return;
  }
  int first = 1;
  if ((f->flags & CT_FN_NO_DEBUG) && site != UINT32_MAX) {
    uint16_t flags = (uint16_t)((site == 0 ? CT_STEP_ENTRY : 0) | (cs->gap ? CT_STEP_GAP : 0));
    ct_add_no_lines_step(th, f, mod, flags, depth, cs->time);
    cs->gap = first = 0;
  }
  for (size_t k = 0; k < n; k++) {
    const struct ct_mblock *b = &f->blocks[blocks[k]];
    if (!b->nlines) continue;
    uint16_t flags = (uint16_t)((first && k == 0 && site == 0 ? CT_STEP_ENTRY : 0) |
                                (cs->gap ? CT_STEP_GAP : 0));
    cs->gap = first = 0;
    ct_add_block_steps(th, f, mod, b, flags, depth, cs->time);
  }
}

void ct_callstack_end_window(struct ct_callstack *cs) {
  if (!cs || !cs->sw) return;
  ct_sw_finish(cs->sw);
  ct_sw_free(cs->sw);
  cs->sw = NULL;
}

/* The frame a direct call to `name` from `caller` enters, as the linker binds it: the
 * caller's own unit, its module, then the other instrumented modules, by the metadata's names,
 * else by ELF symbols (ct_modules_resolve_call). Not inlined: it runs once
 * per calling block, and inlined it would give the cache lookup a big frame. */
static __attribute__((noinline)) struct frame resolve_callee(struct ct_callstack *cs,
                                                             const struct frame *caller,
                                                             const struct ct_mblock *mb) {
  const char *name = mb->callee;
  struct frame fr = {.kind = FR_UNKNOWN, .cont = UINT32_MAX};
  if (!name) return fr; /* an indirect call */
  fr.kind = FR_OPAQUE;
  uint16_t mod;
  const struct ct_mfunc *g =
      ct_modules_resolve_call(cs->t->mods, caller->mod, name, caller->f->unit,
                              (mb->flags & CT_BB_STAMPED) != 0, &mod);
  if (g) return known_frame(g, &cs->t->mods->mods[mod], mod, 0, UINT32_MAX);
  return fr;
}

/* The frame the call ending block mb of the caller enters. The binding depends only on the
 * block (its module and unit are the caller's), so it is cached by block: a call is decoded
 * millions of times and resolving it hashes and compares names. */
static const struct frame *callee_frame(struct ct_callstack *cs, const struct frame *caller,
                                        const struct ct_mblock *mb) {
  size_t h = ((uintptr_t)mb >> 4) * 0x9E3779B97F4A7C15ull >> (64 - CALLEE_CACHE_BITS);
  struct callee_slot *c = &cs->callees[h];
  if (c->block != mb) {
    c->block = mb;
    c->frame = resolve_callee(cs, caller, mb);
  }
  return &c->frame;
}

/* A resume: the exception leaves the innermost frame and every frame below it that is in a
 * call, not an invoke (no landing pad of its own); the first frame in an invoke goes on at the
 * invoke's landing pad, whose record is always written, never at the invoke's continuation,
 * where an elided flush would have the walk go on (jsoncpp's round trip at -O0: a cleanup's
 * resume in the library, then the test's normal continuation walked before its catch). A
 * frame whose call is not found (its site is not a call's continuation) or that is not a
 * plain one is left as it is: the landing pad's record places it. */
static __attribute__((noinline)) void unwind_resume(struct ct_callstack *cs) {
  pop(cs);
  while (cs->n) {
    struct frame *top = &cs->fr[cs->n - 1];
    if (top->kind != FR_KNOWN || top->suspended || top->frozen || top->partial ||
        top->cont != UINT32_MAX)
      return;
    const struct ct_mfunc *f = top->f;
    const struct ct_mblock *call = NULL;
    for (uint32_t b = 0; b < f->nblocks && !call; b++) {
      const struct ct_mblock *mb = &f->blocks[b];
      if ((mb->term == CT_TERM_CALL || mb->term == CT_TERM_INVOKE) && mb->nsucc &&
          f->block_site[mb->succ[0].block] == (int32_t)top->site)
        call = mb;
    }
    if (!call) return;
    if (call->term == CT_TERM_INVOKE && call->nsucc == 2 &&
        f->block_site[call->succ[1].block] >= 0) {
      top->site = (uint32_t)f->block_site[call->succ[1].block];
      return;
    }
    pop(cs);
  }
}

/* The innermost frame's record (or elided flush) ended at block b of its function; the next
 * record starts at block `end` (b itself unless a check point fired there). Always inline: it
 * runs after nearly every record, and as a call it saved and restored six registers each time. */
static inline __attribute__((always_inline)) void finish(struct ct_callstack *cs, uint32_t b,
                                                        uint32_t end) {
  struct frame *top = &cs->fr[cs->n - 1];
  const struct ct_mblock *mb = &top->f->blocks[b];
  const struct frame *callee;
  switch (mb->term) {
  case CT_TERM_RETURN:
    pop(cs);
    return;
  case CT_TERM_RESUME:
    unwind_resume(cs);
    return;
  case CT_TERM_CALL:
  case CT_TERM_INVOKE:
    callee = callee_frame(cs, top, mb);
    if (mb->nsucc == 0) { /* a tail call: the callee takes the frame's place */
      pop(cs);
    } else if (top->f->block_site[mb->succ[0].block] >= 0) {
      top->site = (uint32_t)top->f->block_site[mb->succ[0].block];
    }
    push(cs, *callee);
    return;
  case CT_TERM_STOP:
    return; /* unreachable: nothing follows in this frame */
  default:   /* a check point fired at `end` */
    if (top->f->block_site[end] >= 0) top->site = (uint32_t)top->f->block_site[end];
    return;
  }
}

/* Grows cs->path to hold a walk through f (a walk visits at most every block, plus one). 0 when
 * out of memory. */
static int path_fits(struct ct_callstack *cs, const struct ct_mfunc *f) {
  if (cs->path_cap >= (size_t)f->nblocks + 1) return 1;
  uint32_t *np = realloc(cs->path, ((size_t)f->nblocks + 1) * sizeof *np);
  if (!np) return 0;
  cs->path = np;
  cs->path_cap = (size_t)f->nblocks + 1;
  return 1;
}

/* Appends block b of f to the walk's path, emitting the path when the buffer is full (a loop's
 * record can pass many more blocks than it holds): *site is UINT32_MAX from then on. */
static inline void path_add(struct ct_callstack *cs, const struct ct_mfunc *f, uint16_t mod,
                            uint32_t *site, size_t *n, uint32_t b) {
  cs->path[(*n)++] = b;
  if (*n == cs->path_cap) {
    emit(cs, f, mod, *site, cs->path, *n);
    *site = UINT32_MAX; /* the entry step, if any, is out */
    *n = 0;
  }
}

/* f's walk from `site` while it reads no bits, into cs->path, when it ends at an elided flush
 * (f->site_elided: returns 1, *end its block); else returns 0 (a record is written first). */
static int zero_walk(struct ct_callstack *cs, const struct ct_mfunc *f, uint32_t site, size_t *n,
                     uint32_t *end) {
  if ((*end = f->site_elided[site]) == UINT32_MAX) return 0;
  if (!path_fits(cs, f)) return 0;
  uint32_t b = f->site_block[site];
  for (*n = 0; b != *end; b = f->blocks[b].succ[0].block) cs->path[(*n)++] = b; /* jumps */
  cs->path[(*n)++] = b;
  return 1;
}

static int advance(struct ct_callstack *cs);

/* Deferred calls (CT_FN_DEFERS): a record's walk that reaches one stops there, the callee's
 * frame is pushed above it (its records come next: postorder.c put them after the caller's),
 * and the walk goes on when that frame returns (resume_suspended). */

/* Suspends the innermost frame at its deferred call, block b (sp: how its walk goes on), and
 * pushes the callee. */
static void suspend_at(struct ct_callstack *cs, uint32_t b, const struct susp *sp) {
  if (!cs->susp && !(cs->susp = malloc(cs->cap * sizeof *cs->susp))) {
    cs->fr[cs->n - 1].kind = FR_UNKNOWN; /* out of memory: where it went is not known */
    return;
  }
  struct frame *top = &cs->fr[cs->n - 1];
  cs->susp[cs->n - 1] = *sp;
  top->suspended = 1;
  push(cs, *callee_frame(cs, top, &top->f->blocks[b]));
}

/* Suspends the innermost frame's walk w at its deferred call (w->block). */
static void suspend(struct ct_callstack *cs, const struct ct_walk *w) {
  struct susp sp = {.w = *w};
  suspend_at(cs, w->block, &sp);
}

/* The innermost frame, of s->f, has made summary s's steps: applies its end, a deferred call
 * (suspended there, the next segment to come from the summaries too) or the record's end. */
static inline __attribute__((always_inline)) void summary_end(struct ct_callstack *cs,
                                                              const struct ct_sw_summary *s) {
  if (!cs->n || cs->fr[cs->n - 1].f != s->f) return;
  if (s->defer) {
    struct susp sp = {.fn = s->fn, .acc = s->acc, .seg = s->seg, .summarised = 1};
    suspend_at(cs, s->last_block, &sp);
  } else {
    finish(cs, s->last_block, s->end);
  }
}

/* Walks the innermost frame's record on from w (at status st) to its end, emitting its steps:
 * the end applied (finish), or the walk suspended at a deferred call. `site`: where the walk
 * started (UINT32_MAX: the rest of a walk). Does not resume suspended frames the end uncovers. */
static void walk_on(struct ct_callstack *cs, struct ct_walk *w, uint16_t mod, uint32_t site,
                    int st) {
  const struct ct_mfunc *f = w->f;
  struct frame *top = &cs->fr[cs->n - 1];
  const int partial = top->partial;
  if (!path_fits(cs, f)) return;
  for (;;) {
    size_t n = 0;
    while (st == CT_WALK_BLOCK) {
      path_add(cs, f, mod, &site, &n, w->block);
      top->walked++;
      st = ct_walk_next(w, partial);
    }
    emit(cs, f, mod, site, cs->path, n);
    if (st != CT_WALK_DEFER || !top->lost) break;
    top->lost--; /* its callee's records are gone: walked past */
    cs->gap = 1;
    site = UINT32_MAX;
    st = ct_walk_after_defer(w, partial);
  }
  if (st == CT_WALK_DEFER) {
    if (partial && top->walked == top->stop) top->frozen = top->partial; /* 2: the innermost */
    suspend(cs, w);
  } else if (partial) {
    /* out of bits before the call it was in: the path does not fit the stack */
    ct_timeline_warn(cs->t, "the unfinished path of %s read from the stack does not reach the "
                     "call it was in", f->display);
  } else if (st == CT_WALK_END) {
    if (cs->n && cs->fr[cs->n - 1].f == f) finish(cs, w->block, w->end);
  } else {
    cs->th->bad_records++;
    ct_timeline_warn(cs->t, "a record of %s does not match its metadata (%s)", f->display,
                     w->why ? w->why : "a walk that cannot go on");
    if (cs->n) cs->fr[cs->n - 1].kind = FR_UNKNOWN;
  }
}

/* Frame i's walk where it was suspended, at its deferred call (w->block). 0 if it does not get
 * there (a record that does not fit its metadata). */
static int suspended_walk(const struct ct_callstack *cs, size_t i, struct ct_walk *w) {
  const struct susp *sp = &cs->susp[i];
  if (!sp->summarised) {
    *w = sp->w;
    return 1;
  }
  int st = ct_walk_to_segment(w, cs->fr[i].f, sp->acc, sp->seg);
  while (st == CT_WALK_BLOCK) st = ct_walk_next(w, 0);
  return st == CT_WALK_DEFER;
}

/* While the innermost frame is one whose walk was suspended at a deferred call (its callee
 * has returned): goes on with that walk. */
static void resume_suspended(struct ct_callstack *cs) {
  for (unsigned guard = 0; cs->n && guard < (1u << 24); guard++) {
    struct frame *top = &cs->fr[cs->n - 1];
    if (!top->suspended || top->frozen) return;
    top->suspended = 0;
    if (top->kind != FR_KNOWN) continue;
    const struct susp *sp = &cs->susp[cs->n - 1];
    struct ct_walk w;
    int st;
    if (sp->summarised) {
      uint64_t fn = sp->fn, acc = sp->acc;
      uint32_t seg = sp->seg + 1;
      struct ct_sw_summary *s = cs->sw ? ct_sw_slot(cs->sw, fn, acc, seg) : NULL;
      if (s && (ct_sw_hit(s, fn, acc, seg) || ct_sw_summarise(s, fn, top->f, acc, seg))) {
        struct ct_sw_at at = {top->mod, (uint32_t)(cs->th->depth + CT_DEPTH_BIAS), cs->time,
                              &cs->gap};
        ct_sw_count(cs->sw, s, &at);
        summary_end(cs, s);
        continue;
      }
      /* the window has ended (the crash's unfinished paths go on in full), or a segment that
       * does not walk: walked as full decoding walks it (and warns) */
      if (!suspended_walk(cs, cs->n - 1, &w)) {
        cs->th->bad_records++;
        top->kind = FR_UNKNOWN;
        continue;
      }
    } else {
      w = sp->w;
    }
    st = ct_walk_after_defer(&w, top->partial);
    if (st == CT_WALK_END) finish(cs, w.block, w.end); /* the continuation's check fired */
    else walk_on(cs, &w, top->mod, UINT32_MAX, st);
  }
}

/* The innermost frame's next flush is elided: emits the steps up to it and applies it.
 * Returns 0 (and does nothing) if its next record is written instead. */
static int advance(struct ct_callstack *cs) {
  struct frame *top = &cs->fr[cs->n - 1];
  if (top->frozen) return 0; /* a path read from the stack, at the call it is in */
  size_t n;
  uint32_t end;
  if (top->f->flags & CT_FN_DEFERS) { /* the branch-free path may pass deferred calls */
    struct ct_walk w;
    if (top->f->site_elided[top->site] == UINT32_MAX ||
        ct_walk_start(&w, top->f, (UINT64_C(1) << top->f->site_bits) | top->site) !=
            CT_WALK_BLOCK)
      return 0;
    walk_on(cs, &w, top->mod, top->site, CT_WALK_BLOCK);
    resume_suspended(cs);
    return 1;
  }
  if (!zero_walk(cs, top->f, top->site, &n, &end)) return 0;
  emit(cs, top->f, top->mod, top->site, cs->path, n);
  finish(cs, end, end);
  resume_suspended(cs);
  return 1;
}

/* reachable for a frame i suspended in a deferred call (records in ring order: at the crash):
 * whether the rest of its walk, once that callee returns, can enter f at site: by a later
 * deferred call of f, or the call through a pointer (its target) or of f that ends it (1); or
 * whether it returns (2: the frames below it decide). Later deferred calls into code without
 * records are passed: f, if no call after them enters it, is the callback of the one it is
 * above (a comparator under qsort). */
static int reachable_after_defer(struct ct_callstack *cs, size_t i, const struct ct_mfunc *f,
                                 uint32_t site) {
  struct ct_walk w;
  const struct frame *fr = &cs->fr[i];
  if (site != 0 || !cs->susp || !suspended_walk(cs, i, &w)) return 0;
  int st = ct_walk_after_defer(&w, fr->partial);
  for (uint32_t guard = 0; guard < (1u << 20); guard++) {
    if (st == CT_WALK_BLOCK) {
      st = ct_walk_next(&w, fr->partial);
      continue;
    }
    const struct ct_mblock *mb = &fr->f->blocks[w.block];
    if (st == CT_WALK_DEFER) {
      const struct frame *g = callee_frame(cs, fr, mb);
      if (g->kind == FR_KNOWN && g->f == f) return 1;
      st = ct_walk_after_defer(&w, fr->partial);
      continue;
    }
    if (st != CT_WALK_END || w.end != w.block) return 0;
    if (mb->term == CT_TERM_RETURN || mb->term == CT_TERM_RESUME) return 2;
    return (mb->term == CT_TERM_CALL || mb->term == CT_TERM_INVOKE) &&
           (!mb->callee || callee_frame(cs, fr, mb)->f == f);
  }
  return 0;
}

/* Would the frames fr[0..k), advanced through elided flushes only, reach f at site? (Decides
 * whether an entry record after a call into code without records is a callback from it, or
 * a call its caller made after it returned.) Works on copies: the model is not changed. */
static int reachable(struct ct_callstack *cs, size_t k, const struct ct_mfunc *f, uint32_t site) {
  struct frame over[64], cur;
  size_t no = 0;
  for (unsigned steps = 0; steps < 1024; steps++) {
    if (no) cur = over[--no];
    else if (k) {
      cur = cs->fr[--k];
      if (cur.kind == FR_KNOWN && cur.suspended) {
        int r = reachable_after_defer(cs, k, f, site);
        if (r != 2) return r;
        continue; /* it returns: its caller goes on */
      }
    } else {
      return 0;
    }
    if (cur.kind != FR_KNOWN) continue; /* code without records: may have returned too */
    if (cur.f == f && cur.site == site) return 1;
    uint32_t end = cur.f->site_elided[cur.site];
    if (end == UINT32_MAX) return 0;
    const struct ct_mblock *mb = &cur.f->blocks[end];
    if (mb->term == CT_TERM_RETURN || mb->term == CT_TERM_RESUME) continue; /* popped */
    if (mb->term != CT_TERM_CALL && mb->term != CT_TERM_INVOKE) return 0;
    struct frame callee = *callee_frame(cs, &cur, mb);
    if (mb->nsucc) {
      if (cur.f->block_site[mb->succ[0].block] < 0) return 0;
      cur.site = (uint32_t)cur.f->block_site[mb->succ[0].block];
      over[no++] = cur;
    }
    if (no == sizeof over / sizeof over[0]) return 0;
    over[no++] = callee;
  }
  return 0;
}

/* Whether a record of f at site (`empty`: without path bits) is frame fr's next one. A frame
 * whose next flush is elided writes a record there only when stamping made it (then an empty
 * one): a record with bits is someone else's. */
static inline int is_next_record(const struct frame *fr, const struct ct_mfunc *f, uint32_t site,
                                 int empty) {
  return fr->kind == FR_KNOWN && fr->f == f && fr->site == site &&
         (empty || f->site_elided[site] == UINT32_MAX);
}

/* Brings the model to "the innermost frame is f at site": advances through elided flushes,
 * or resynchronises. `empty`: the record there has no path bits. */
/* Whether the innermost frame, a call into code without records, has returned before the
 * record at hand (ct_postorder's order): unless the record is a callback, and a callback of a
 * call after which a record was written (3) is not one of a deferred call's (its caller
 * suspended there: GNU sed's xnmalloc, whose deferred malloc would take the comparator that
 * qsort called later in its caller). */
static int opaque_returned(const struct ct_callstack *cs) {
  if (cs->po_callback == 3) return cs->n >= 2 && cs->fr[cs->n - 2].suspended;
  return cs->po_callback != 1;
}

static void locate(struct ct_callstack *cs, const struct ct_mfunc *f, struct ct_module *m,
                   uint16_t mod, uint32_t site, int empty) {
  struct frame here = known_frame(f, m, mod, site, UINT32_MAX);
  for (unsigned guard = 0; cs->n && guard < (1u << 20); guard++) {
    struct frame *top = &cs->fr[cs->n - 1];
    if (top->kind == FR_KNOWN) {
      if (is_next_record(top, f, site, empty)) return;
      if (advance(cs)) continue;
      break;
    }
    /* Above a call into code that wrote nothing: a record other than an entry means it has
     * returned; so does an entry its caller reaches through elided flushes. */
    int returned = cs->po_callback < 0 ? reachable(cs, cs->n - 1, f, site)
                   : top->kind == FR_OPAQUE ? opaque_returned(cs)
                                            : cs->po_callback == 0; /* not its target */
    if (site != 0 || returned) {
      pop(cs);
      resume_suspended(cs);
      continue;
    }
    if (top->kind == FR_UNKNOWN) { /* the indirect call's target */
      *top = here;
      return;
    }
    break; /* a callback from uninstrumented code: runs above it */
  }
  if (site == 0) { /* a new invocation: a callback, a signal handler, a thread's start */
    push(cs, here);
    return;
  }
  /* A deeper frame resumes (longjmp, an exception's landing pad, lost records): unwind to it. */
  for (size_t i = cs->n; i-- > 0;)
    if (cs->fr[i].kind == FR_KNOWN && cs->fr[i].f == f) {
      /* A longjmp that left a frame inside a deferred call, or one of a function that defers
       * (invocations the model never saw may have sat in its deferred calls, depth(50)
       * calling itself): their paths since their last records were in their frames, and are
       * gone. (An exception, which lands on a landing pad, unwinds no deferred call: the pass
       * defers only calls that cannot unwind.) */
      int lost = cs->fr[i].suspended, saved = cs->po_saved;
      /* A longjmp that wrote the paths of the frames it discarded (runtime/longjmp_save.c:
       * this record follows its marks): each such frame's walk went up to the call it was in
       * (record_partial); a frame that wrote none was in no deferred call. */
      for (size_t k = i + 1; k < cs->n; k++) saved |= cs->fr[k].partial == 1;
      for (size_t k = i + 1; k < cs->n && f->site_kind[site] != CT_SITE_LANDING; k++)
        lost |= (cs->fr[k].suspended && cs->fr[k].partial != 1) ||
                (!saved && cs->fr[k].kind == FR_KNOWN && (cs->fr[k].f->flags & CT_FN_DEFERS));
      if (lost) {
        cs->gap = 1;
        ct_timeline_warn(cs->t, "a longjmp left frames inside deferred calls "
                         "(crashtrail-defer-calls): their steps since their last records are "
                         "missing, marked as a gap");
      }
      while (cs->n > i + 1) pop(cs);
      cs->fr[i].site = site;
      cs->fr[i].suspended = 0;
      return;
    }
  /* Nothing known leads here (the history starts inside calls): start over at this frame,
   * at the depth the thread is at. */
  cs->n = 0;
  push(cs, here);
  cs->th->depth--;
}

/* locate's answer, inline, in the case that takes a quarter of SQLite's records: an entry
 * record of the target of an indirect call (the innermost frame is FR_UNKNOWN) whose caller's
 * next flush is written, so that the caller cannot have reached this entry itself (reachable's
 * first test). 1 if it applied. */
static inline int enters_indirect_target(struct ct_callstack *cs, const struct ct_mfunc *f,
                                         struct ct_module *m, uint16_t mod, uint32_t site) {
  if (site != 0 || cs->n < 2 || cs->po_callback == 0) return 0;
  struct frame *top = &cs->fr[cs->n - 1];
  const struct frame *caller = top - 1;
  if (top->kind != FR_UNKNOWN || caller->kind != FR_KNOWN ||
      (caller->f == f && caller->site == 0) || caller->f->site_elided[caller->site] != UINT32_MAX)
    return 0;
  *top = known_frame(f, m, mod, site, UINT32_MAX);
  return 1;
}

/* The function a carried call (block mb of frame `caller`) enters; NULL if unknown. */
static const struct ct_mfunc *carried_callee(struct ct_callstack *cs, const struct frame *caller,
                                             const struct ct_mblock *mb) {
  const struct frame *c = callee_frame(cs, caller, mb);
  return c->kind == FR_KNOWN && c->f->wb ? c->f : NULL;
}

/* A walk crosses the carried call ending block mb of the innermost frame: the frame keeps the
 * call's continuation and the callee's frame is pushed (in a dry walk the pushed frame keeps
 * the continuation instead, so that the frames below stay as they were). Returns the callee,
 * or NULL (nothing done) if it is not known. */
static const struct ct_mfunc *cross_call(struct ct_callstack *cs, const struct ct_mblock *mb,
                                         int dry) {
  struct frame *fr = &cs->fr[cs->n - 1];
  const struct ct_mfunc *g = carried_callee(cs, fr, mb);
  if (!g) return NULL;
  uint32_t cont = mb->succ[0].block;
  if (!dry) fr->cont = cont;
  push(cs, known_frame(g, fr->m, fr->mod, 0, dry ? cont : UINT32_MAX));
  return g;
}

/* A walk crosses a carried function's return: its frame is popped; *cont is where the caller
 * goes on. Returns the caller's frame. */
static struct frame *cross_return(struct ct_callstack *cs, int dry, uint32_t *cont) {
  *cont = dry ? cs->fr[cs->n - 1].cont : cs->fr[cs->n - 2].cont;
  pop(cs);
  struct frame *fr = &cs->fr[cs->n - 1];
  if (!dry) fr->cont = UINT32_MAX;
  return fr;
}

/* Whether a record that starts where walk w stands (at the innermost frame's site) goes
 * through carried calls and returns to end in W with every bit read. Works on copies: the
 * model is not changed. Returns made beyond the record's start go to the continuations the
 * model kept. */
static int flow_fits(struct ct_callstack *cs, struct ct_walk w, const struct ct_mfunc *W,
                     uint32_t start_bits) {
  struct frame over[64];
  size_t no = 0, k = cs->n - 1;
  const struct frame *cur = &cs->fr[k];
  for (unsigned guard = 0; guard < (1u << 24); guard++) {
    int st = ct_walk_next(&w, 0);
    if (st == CT_WALK_BLOCK) continue;
    if (st == CT_WALK_END) return w.f == W;
    if (st == CT_WALK_FLOW) {
      struct frame here = *cur;
      here.f = w.f;
      const struct ct_mblock *mb = &w.f->blocks[w.block];
      const struct ct_mfunc *g = carried_callee(cs, &here, mb);
      if (!g || no == sizeof over / sizeof over[0]) return 0;
      here.cont = mb->succ[0].block;
      over[no++] = here;
      st = ct_walk_resume(&w, g, 0, start_bits);
      if (st == CT_WALK_END) return g == W;
      if (st != CT_WALK_BLOCK) return 0;
      continue;
    }
    if (st == CT_WALK_RET) {
      const struct frame *to;
      if (no) to = &over[--no];
      else if (k) to = &cs->fr[--k];
      else return 0;
      if (to->kind != FR_KNOWN || to->cont == UINT32_MAX) return 0;
      cur = to;
      st = ct_walk_resume(&w, to->f, to->cont, start_bits);
      if (st == CT_WALK_END) return to->f == W;
      if (st != CT_WALK_BLOCK) return 0;
      continue;
    }
    return 0;
  }
  return 0;
}

/* A record of W that starts at the innermost frame's site, in a function that carries its
 * accumulator or makes carried calls: walked across those calls and returns, the model's
 * frames pushed and popped with them. 0 (nothing done) if it does not fit that way. */
static int record_flow(struct ct_callstack *cs, const struct ct_rec *r, const struct ct_mfunc *W,
                       uint16_t mod, int gap) {
  struct frame *top = &cs->fr[cs->n - 1];
  const struct ct_mfunc *S = top->f;
  struct ct_walk w;
  /* A record of W that starts in another function S is not S's: S's next flush being elided
   * says nothing about it */
  if (ct_walk_start(&w, S, r->acc) != CT_WALK_BLOCK ||
      !is_next_record(top, S, w.site, w.nbits == 0 || S != W) ||
      !flow_fits(cs, w, W, S->site_bits))
    return 0;
  cs->time = r->time_ns;
  cs->gap |= gap;
  const struct ct_mfunc *cur = S;
  uint32_t site = w.site;
  size_t n = 0;
  int st = CT_WALK_BLOCK;
  if (!path_fits(cs, cur)) return 1;
  for (;;) {
    if (st == CT_WALK_BLOCK) {
      path_add(cs, cur, mod, &site, &n, w.block);
      st = ct_walk_next(&w, 0);
      continue;
    }
    emit(cs, cur, mod, site, cs->path, n);
    n = 0;
    site = UINT32_MAX;
    if (st == CT_WALK_FLOW) { /* flow_fits found the callee */
      cur = cross_call(cs, &cur->blocks[w.block], 0);
      site = 0;
      st = ct_walk_resume(&w, cur, 0, S->site_bits);
      if (st == CT_WALK_END) return 1; /* its entry's check fired: its next record starts there */
    } else if (st == CT_WALK_RET) {
      uint32_t cont;
      struct frame *fr = cross_return(cs, 0, &cont);
      cur = fr->f;
      st = ct_walk_resume(&w, cur, cont, S->site_bits);
      if (st == CT_WALK_END) { /* the continuation's check fired */
        if (cur->block_site[cont] >= 0) fr->site = (uint32_t)cur->block_site[cont];
        return 1;
      }
    } else if (st == CT_WALK_END) {
      finish(cs, w.block, w.end);
      return 1;
    } else { /* flow_fits walked it: cannot be */
      cs->th->bad_records++;
      cs->fr[cs->n - 1].kind = FR_UNKNOWN;
      return 1;
    }
    if (!path_fits(cs, cur)) return 1;
  }
}

/* Whether g is a carried call's callee of f's (a CT_TERM_FLOW block naming it). */
static int calls_carried(const struct ct_meta *meta, const struct ct_mfunc *f,
                         const struct ct_mfunc *g) {
  for (uint32_t b = 0; b < f->nblocks; b++)
    if (f->blocks[b].term == CT_TERM_FLOW && f->blocks[b].callee &&
        ct_meta_resolve(meta, f->blocks[b].callee, f->unit) == g)
      return 1;
  return 0;
}

/* Where a record of f (or the unfinished path of a frame of f) can start when nothing is known
 * before it: in f or in a function that reaches f by carried calls, the nearest first, and
 * those not carried themselves before the others (a thread starts in one of them). At most 32;
 * found once per function (a scan of the module's functions) and kept in its metadata. Returns
 * how many, *cand the list; 0 when out of memory. */
static size_t carried_starts(struct ct_module *m, const struct ct_mfunc *fc,
                             const struct ct_mfunc *const **cand) {
  struct ct_mfunc *f = &m->meta->funcs[fc - m->meta->funcs];
  if (!f->starts) {
    const struct ct_mfunc *near[32];
    size_t n = 0, k = 0;
    near[n++] = f;
    for (size_t i = 0; i < n && n < 32; i++) /* callers by carried calls, breadth first */
      for (size_t j = 0; j < m->meta->nfuncs && n < 32; j++) {
        const struct ct_mfunc *g = &m->meta->funcs[j];
        if (!(g->flags & CT_FN_FLOW_ANY) || g->unit != f->unit) continue;
        int seen = 0;
        for (size_t l = 0; l < n; l++) seen |= near[l] == g;
        if (!seen && calls_carried(m->meta, g, near[i]) && ct_meta_ready(m->meta, g))
          near[n++] = g;
      }
    const struct ct_mfunc **list = ct_arena_alloc(&m->meta->arena, n * sizeof *list);
    if (!list) return 0;
    for (int carried = 0; carried < 2; carried++)
      for (size_t i = 0; i < n; i++)
        if (((near[i]->flags & CT_FN_FLOW) != 0) == carried) list[k++] = near[i];
    f->nstarts = (uint32_t)k;
    f->starts = list;
  }
  *cand = f->starts;
  return f->nstarts;
}

/* A record of W (which carries an accumulator or makes carried calls) with nothing known
 * about where it starts (the history's start): the first of carried_starts whose walk fits is
 * taken. 0 if none fits. */
static int record_flow_fresh(struct ct_callstack *cs, const struct ct_rec *r,
                             const struct ct_mfunc *W, struct ct_module *m, uint16_t mod,
                             int gap) {
  const struct ct_mfunc *const *cand;
  size_t nc = carried_starts(m, W, &cand);
  for (size_t i = 0; i < nc; i++) {
    struct ct_walk w;
    if (ct_walk_start(&w, cand[i], r->acc) != CT_WALK_BLOCK) continue;
    push(cs, known_frame(cand[i], m, mod, w.site, UINT32_MAX));
    cs->th->depth--; /* the frame is where the history starts, at the thread's depth */
    if (record_flow(cs, r, W, mod, gap)) return 1;
    cs->th->depth++;
    pop(cs);
    cs->n = 0;
  }
  return 0;
}

/* Whether a record of W fits starting at the entry of candidate c, as a new frame above the
 * model's (tried on a pushed copy, popped again). */
static int flow_start_fits(struct ct_callstack *cs, const struct ct_rec *r,
                           const struct ct_mfunc *W, const struct ct_mfunc *c, struct ct_module *m,
                           uint16_t mod) {
  struct ct_walk w;
  if (ct_walk_start(&w, c, r->acc) != CT_WALK_BLOCK || w.site != 0) return 0;
  push(cs, known_frame(c, m, mod, 0, UINT32_MAX));
  int fits = flow_fits(cs, w, W, c->site_bits);
  pop(cs);
  return fits;
}

/* A record of W, which carries its caller's accumulator, that starts at the entry of a new
 * invocation of a function whose carried calls reach W (a public function calling its static
 * helper: `sqlite3_open` -> `openDatabase`), not in the innermost frame. The start is the
 * candidate (carried_starts) the model reaches through elided flushes (the call its innermost
 * known frame makes next); when none is reachable (the innermost frame is an indirect call's
 * target, or code without records that calls back), any candidate whose walk fits may be it:
 * the first is taken, and where several fit the timeline says so and marks a gap. Located as
 * the candidate's own entry record would be, then walked as record_flow's; tried on a copy of
 * the model, restored when the walk does not fit. */
static int record_flow_entered(struct ct_callstack *cs, const struct ct_rec *r,
                               const struct ct_mfunc *W, struct ct_module *m, uint16_t mod,
                               int gap) {
  const struct ct_mfunc *const *cand;
  size_t nc = carried_starts(m, W, &cand), pick = nc, fitting = 0;
  for (size_t i = 0; i < nc && pick == nc; i++)
    if (cand[i] != W && reachable(cs, cs->n, cand[i], 0) &&
        flow_start_fits(cs, r, W, cand[i], m, mod))
      pick = i, fitting = 1;
  if (pick == nc && cs->fr[cs->n - 1].kind != FR_KNOWN)
    for (size_t i = 0; i < nc; i++)
      if (cand[i] != W && flow_start_fits(cs, r, W, cand[i], m, mod) && !fitting++) pick = i;
  if (pick == nc) return 0;
  if (cs->save_cap < cs->n) {
    struct frame *ns = realloc(cs->save, cs->n * sizeof *ns);
    if (!ns) return 0;
    cs->save = ns;
    cs->save_cap = cs->n;
  }
  size_t n = cs->n;
  long depth = cs->th->depth;
  memcpy(cs->save, cs->fr, n * sizeof *cs->fr);
  /* "empty": the record is W's, not written at a flush of the candidate's, elided or not */
  locate(cs, cand[pick], m, mod, 0, 1);
  if (fitting > 1) {
    ct_timeline_warn(cs->t, "records of %s may start in %zu functions that carry into it (the "
                     "target of an indirect call is not recorded): %s, the first, is shown, "
                     "after a gap", W->display, fitting, cand[pick]->display);
    gap = 1;
  }
  if (cs->n && cs->fr[cs->n - 1].f == cand[pick] && record_flow(cs, r, W, mod, gap)) return 1;
  memcpy(cs->fr, cs->save, n * sizeof *cs->fr); /* fr never shrinks: it holds n frames again */
  cs->n = n;
  cs->th->depth = depth;
  return 0;
}

/* Whether a record may be f's own from f's entry (a new invocation, which locate places, above
 * code without records if need be): f is not carried, and its walk starts at its entry and ends
 * in f with every bit read without crossing a carried call. (An accumulator whose site field
 * reads 0 is not enough: sqlite3Init's record from sqlite3InitOne's site 1 reads so.) */
static int own_entry_record(const struct ct_mfunc *f, uint64_t acc) {
  struct ct_walk w;
  if ((f->flags & CT_FN_FLOW) || ct_walk_start(&w, f, acc) != CT_WALK_BLOCK || w.site != 0)
    return 0;
  int st = CT_WALK_BLOCK;
  for (unsigned guard = 0; st == CT_WALK_BLOCK && guard < (1u << 24); guard++)
    st = ct_walk_next(&w, 0);
  return st == CT_WALK_END;
}

/* A record that may cross carried calls or returns and starts in a frame the model holds but
 * has not reached: the innermost frames returned or made elided flushes since their last
 * records (an uninstrumented callee such as malloc returned, then its caller's return was
 * elided, and the record starts in the carried function below it). The model is brought
 * there as locate brings it to a record of its own: frames without records are popped, the
 * innermost known frame advanced through its elided flushes, until the record's walk fits at
 * the innermost frame. 0 when it never does; the model is then where locate would leave it. */
static int record_flow_located(struct ct_callstack *cs, const struct ct_rec *r,
                               const struct ct_mfunc *W, uint16_t mod, int gap) {
  for (unsigned guard = 0; cs->n && guard < 256; guard++) {
    if (cs->fr[cs->n - 1].kind != FR_KNOWN) {
      pop(cs); /* code without records that has returned: the record is not an entry */
      continue;
    }
    if (record_flow(cs, r, W, mod, gap)) return 1;
    if (!advance(cs)) return 0;
  }
  return 0;
}

/* Whether a record of f may start in another function than f: the innermost frame or f
 * carries an accumulator or makes carried calls. */
static inline int may_flow(const struct ct_callstack *cs, const struct ct_mfunc *f) {
  if (!cs->n) return 0;
  const struct frame *top = &cs->fr[cs->n - 1];
  return top->kind == FR_KNOWN && ((top->f->flags | f->flags) & CT_FN_FLOW_ANY);
}

/* Whether a record of f is one of those record_walked tries to start elsewhere (may_flow, or
 * f has carried calls: a new invocation, a frame below, any): never taken from a summary. */
static inline int may_start_elsewhere(const struct ct_callstack *cs, const struct ct_mfunc *f) {
  return (f->flags & CT_FN_FLOW_ANY) || may_flow(cs, f);
}

/* record_summarised for a function with deferred calls: its first segment counted, the walk
 * suspended at the deferred call that ends it (the rest from the summaries as the callees
 * return) or ended. Records whose first deferred calls' callees were lost, and frames read from
 * the stack, are walked instead. */
static inline __attribute__((always_inline)) int
record_summarised_defers(struct ct_callstack *cs, const struct ct_sw_summary *s,
                         const struct ct_rec *r, struct ct_module *m, uint16_t mod, int gap) {
  if (cs->po_lost) return 0;
  const struct ct_mfunc *f = s->f;
  uint32_t site = s->site;
  int empty = s->empty;
  cs->th->records++;
  cs->time = r->time_ns;
  cs->gap |= gap;
  if (!cs->n || !is_next_record(&cs->fr[cs->n - 1], f, site, empty))
    if (!enters_indirect_target(cs, f, m, mod, site)) locate(cs, f, m, mod, site, empty);
  struct frame *top = cs->n ? &cs->fr[cs->n - 1] : NULL;
  if (!top || top->f != f || top->kind != FR_KNOWN || top->partial) {
    struct ct_walk w; /* as record_walked goes on after locating */
    int st = ct_walk_start(&w, f, r->acc);
    if (top && top->f == f) top->lost = 0;
    walk_on(cs, &w, mod, w.site, st);
    resume_suspended(cs);
    return 1;
  }
  top->lost = 0;
  /* locate may have resumed walks that evicted s from the cache */
  if (!ct_sw_hit(s, r->fn, r->acc, 0)) {
    struct ct_sw_summary *again = ct_sw_slot(cs->sw, r->fn, r->acc, 0);
    if (!ct_sw_summarise(again, r->fn, f, r->acc, 0)) return 1; /* it did walk before */
    s = again;
  }
  struct ct_sw_at at = {mod, (uint32_t)(cs->th->depth + CT_DEPTH_BIAS), cs->time, &cs->gap};
  ct_sw_count(cs->sw, s, &at);
  summary_end(cs, s);
  if (cs->n && cs->fr[cs->n - 1].suspended) resume_suspended(cs);
  return 1;
}

/* The same, out of line: the ring build's loop meets no deferring function, and keeps its
 * registers for its own work. */
static __attribute__((noinline)) int record_summarised_defers_call(struct ct_callstack *cs,
                                                                   const struct ct_sw_summary *s,
                                                                   const struct ct_rec *r,
                                                                   struct ct_module *m,
                                                                   uint16_t mod, int gap) {
  return record_summarised_defers(cs, s, r, m, mod, gap);
}

/* Windowed decoding of a record that decodes cleanly, from its summary (step_window.c: most
 * records are repeats, found in the cache without a function lookup or a walk). Returns 0 for
 * a record the caller must walk (and warn about) itself. defers_inline: a constant, whether a
 * deferring function's record is taken inline (the deferred path's loop) or by a call. */
static inline __attribute__((always_inline)) int record_summarised(struct ct_callstack *cs,
                                                                   const struct ct_rec *r,
                                                                   struct ct_module *m,
                                                                   uint16_t mod, int gap,
                                                                   const int defers_inline) {
  struct ct_sw_summary *s = ct_sw_slot(cs->sw, r->fn, r->acc, 0);
  if (!ct_sw_hit(s, r->fn, r->acc, 0)) {
    const struct ct_mfunc *f = ct_meta_find(m->meta, r->fn - m->bias);
    if (!f || !ct_sw_summarise(s, r->fn, f, r->acc, 0)) return 0;
  }
  if (may_start_elsewhere(cs, s->f)) return 0; /* walked as full decoding walks it */
  if (s->f->flags & CT_FN_DEFERS)
    return defers_inline ? record_summarised_defers(cs, s, r, m, mod, gap)
                         : record_summarised_defers_call(cs, s, r, m, mod, gap);
  cs->th->records++;
  cs->time = r->time_ns;
  cs->gap |= gap;
  /* Most records are the innermost frame's next one: locate's first test, inline (locate is a
   * call with a big frame). */
  if (!cs->n || !is_next_record(&cs->fr[cs->n - 1], s->f, s->site, s->empty))
    if (!enters_indirect_target(cs, s->f, m, mod, s->site)) {
      const struct ct_mfunc *f = s->f;
      locate(cs, f, m, mod, s->site, s->empty);
      /* locate may have resumed deferred calls' walks, whose summaries can take s's slot
       * (SQLite's balance, resumed by computeCellSize's record: that record was lost) */
      if (!ct_sw_hit(s, r->fn, r->acc, 0)) {
        s = ct_sw_slot(cs->sw, r->fn, r->acc, 0);
        if (!ct_sw_summarise(s, r->fn, f, r->acc, 0)) return 1; /* it did walk before */
      }
    }
  struct ct_sw_at at = {mod, (uint32_t)(cs->th->depth + CT_DEPTH_BIAS), cs->time, &cs->gap};
  ct_sw_count(cs->sw, s, &at);
  if (cs->n && cs->fr[cs->n - 1].f == s->f) finish(cs, s->last_block, s->end);
  if (cs->n && cs->fr[cs->n - 1].suspended) resume_suspended(cs);
  return 1;
}

/* A record the summaries cannot take: found, walked block by block and emitted. */
static __attribute__((noinline)) void record_walked(struct ct_callstack *cs, const struct ct_rec *r,
                                                    struct ct_module *m, uint16_t mod, int gap) {
  struct ct_tl_thread *th = cs->th;
  const struct ct_mfunc *f = ct_meta_find(m->meta, r->fn - m->bias);
  struct ct_walk w;
  th->records++;
  if (!f) {
    th->bad_records++;
    ct_timeline_warn(cs->t, "records from an unknown function in %s (stale metadata?)", m->name);
    return;
  }
  /* A record that may start elsewhere than in f: in the innermost frame, in a new invocation
   * of a function that carries into f (above any innermost frame, known or not), in a frame
   * below frames that returned without records, or, with nothing known, in any of those */
  if (may_flow(cs, f) && record_flow(cs, r, f, mod, gap)) return;
  if ((f->flags & CT_FN_FLOW) && cs->n && record_flow_entered(cs, r, f, m, mod, gap)) return;
  if ((f->flags & CT_FN_FLOW_ANY) && cs->n && !own_entry_record(f, r->acc) &&
      record_flow_located(cs, r, f, mod, gap))
    return;
  if ((f->flags & CT_FN_FLOW_ANY) && !cs->n && record_flow_fresh(cs, r, f, m, mod, gap)) return;
  int st = ct_walk_start(&w, f, r->acc);
  if (st != CT_WALK_BLOCK) {
    th->bad_records++;
    ct_timeline_warn(cs->t, "a record of %s in %s does not match its metadata (%s)", f->display,
                     m->name, w.why);
    return;
  }
  cs->time = r->time_ns;
  cs->gap |= gap;
  locate(cs, f, m, mod, w.site, w.nbits == 0);
  /* Located (a callback, an indirect call's target, a resynchronisation): a walk that may
   * cross carried calls goes on as record_flow's. */
  if ((f->flags & CT_FN_FLOW_ANY) && cs->n && cs->fr[cs->n - 1].kind == FR_KNOWN &&
      cs->fr[cs->n - 1].f == f && record_flow(cs, r, f, mod, 0))
    return;
  if (f->flags & CT_FN_DEFERS) {
    if (cs->n && cs->fr[cs->n - 1].f == f) cs->fr[cs->n - 1].lost = cs->po_lost;
    walk_on(cs, &w, mod, w.site, st);
    resume_suspended(cs);
    return;
  }
  if (!path_fits(cs, f)) return;
  /* Walked in slices of the path buffer; a loop's record can pass many more blocks. */
  size_t n = 0;
  uint32_t site = w.site;
  while (st == CT_WALK_BLOCK) {
    path_add(cs, f, mod, &site, &n, w.block);
    st = ct_walk_next(&w, 0);
  }
  emit(cs, f, mod, site, cs->path, n);
  if (st == CT_WALK_END) {
    if (cs->n && cs->fr[cs->n - 1].f == f) finish(cs, w.block, w.end);
    if (cs->n && cs->fr[cs->n - 1].suspended) resume_suspended(cs);
  } else {
    th->bad_records++;
    ct_timeline_warn(cs->t, "a record of %s in %s does not match its metadata (%s)", f->display,
                     m->name, w.why);
    if (cs->n) cs->fr[cs->n - 1].kind = FR_UNKNOWN; /* where it went is not known */
  }
}

int ct_callstack_chunk(struct ct_callstack *cs, const struct ct_ring_records *rr, size_t c,
                       size_t from, size_t to, struct ct_module *m, uint16_t mod, int gap) {
  const uint64_t *w = rr->live[c] + 2 * CT_CHUNK_HEADER_SLOTS;
  const uint64_t clock = rr->clock[c], step = rr->step[c], base = rr->fn_base;
  const int summaries = cs->sw && !cs->t->keep_blocks;
  uint64_t last_fn = 0, last_acc = 0;
  for (size_t j = from; j < to; j++) {
    /* The dump is read twice (ct_ring_extract's scan first) and is bigger than the caches;
     * the hardware prefetcher stops at page boundaries. */
    if ((j & 3) == 0) __builtin_prefetch(&w[2 * j + 256]);
    struct ct_rec r; /* the chunk's values in registers: not reloaded per slot */
    if (!ct_slot_rec(w[2 * j], w[2 * j + 1], base, clock, step, j, &r) || !r.fn) continue;
    if (!(summaries && record_summarised(cs, &r, m, mod, gap, 0)))
      record_walked(cs, &r, m, mod, gap);
    gap = 0;
    last_fn = r.fn;
    last_acc = r.acc;
  }
  if (last_fn) {
    cs->last_mod = m;
    cs->last_fn = last_fn;
    cs->last_acc = last_acc;
  }
  return gap;
}

/* A frame's unfinished path read from the stack at the dump (postorder.c's ct_po_rec with a
 * stop): walked as far as its bits go, through its deferred calls (their callees' records
 * follow), to the deferred call at `stop`, where the frame stays (its callee is the next
 * frame inwards). */
static void record_partial(struct ct_callstack *cs, const struct ct_po_rec *p, uint32_t stop,
                           uint32_t lost, const struct ct_rec *rec) {
  struct ct_module *m = &cs->t->mods->mods[p->mod];
  const struct ct_mfunc *f = ct_meta_find(m->meta, rec->fn - m->bias);
  struct ct_walk w;
  if (!f || ct_walk_start(&w, f, rec->acc) != CT_WALK_BLOCK) return;
  cs->time = rec->time_ns;
  locate(cs, f, m, p->mod, w.site, 1); /* no flush: found by its site alone */
  if (!cs->n || cs->fr[cs->n - 1].f != f || cs->fr[cs->n - 1].kind != FR_KNOWN) return;
  cs->fr[cs->n - 1].partial = (p->flags & CT_PO_INNERMOST) ? 2 : 1;
  cs->fr[cs->n - 1].stop = stop;
  cs->fr[cs->n - 1].walked = 0;
  cs->fr[cs->n - 1].lost = lost; /* its first deferred calls ran before the history */
  walk_on(cs, &w, p->mod, w.site, CT_WALK_BLOCK);
}

int ct_callstack_windowed(const struct ct_callstack *cs) {
  return cs->sw != NULL;
}

/* Windowed decoding in post-order: the records' steps were counted with their positions for
 * times; the entries the window still holds of those counted since `since` get the time
 * po_step_times (timeline.c) gives a position, the earliest own time of the records from it
 * on. One pass from the last record down to the oldest kept entry's position, the entries
 * newest first: their positions never go up going back (a record's entries are counted while
 * it is the one decoded), so each record is read once; were one to, the pass starts again. */
static void retime_window(struct ct_callstack *cs, size_t since, const struct ct_po_src *src,
                          const struct ct_po_rec *recs, size_t n) {
  struct ct_step_window *sw = cs->sw;
  if (!n) return;
  const size_t from = sw->pushed - since > sw->mask + 1 ? sw->pushed - (sw->mask + 1) : since;
  uint64_t least = UINT64_MAX, own = 0;
  size_t j = n; /* least: the earliest own time of recs[j..n); own: recs[j]'s */
  for (size_t e = sw->pushed; e-- > from;) {
    struct ct_sw_pending *q = &sw->q[e & sw->mask];
    const size_t pos = q->time < n ? (size_t)q->time : n - 1;
    if (pos > j) {
      j = n;
      least = UINT64_MAX;
    }
    while (j > pos) {
      own = ct_po_time(src, &recs[--j]);
      if (own && own < least) least = own;
    }
    q->time = least == UINT64_MAX ? own : least;
  }
  cs->time = ct_po_time(src, &recs[n - 1]); /* the last position's, for what follows */
}

void ct_callstack_records(struct ct_callstack *cs, const struct ct_po_src *src,
                          const struct ct_po_rec *recs, size_t n,
                          const struct ct_step_times *times) {
  const int summaries = cs->sw && !cs->t->keep_blocks;
  /* windowed: a record's position stands for its time until retime_window */
  const int positions = !times && cs->sw;
  const size_t since = cs->sw ? cs->sw->pushed : 0;
  struct ct_module *const mods = cs->t->mods->mods; /* loaded once: the loop stores via cs */
  struct ct_st_reader at = times ? ct_st_read(times) : (struct ct_st_reader){0};
  for (size_t i = 0; i < n; i++) {
    const struct ct_po_rec *p = &recs[i];
    const int marker = p->flags & (CT_PO_FRAME | CT_PO_ABANDON);
    struct ct_rec rec;
    if (marker || !(times || positions)) rec = ct_po_get(src, p);
    else ct_po_key(src, p, &rec.fn, &rec.acc); /* the time comes from times, or is i */
    if (times) rec.time_ns = ct_st_next(&at, i);
    else if (positions) rec.time_ns = i;
    if (marker) {
      cs->po_callback = p->flags & CT_PO_ABANDON ? p->callback : 0;
      cs->po_saved = 0;
      record_partial(cs, p, ct_po_aux(src, recs, i),
                     (p->flags & CT_PO_FRAME) ? src->frame_lost[p->ref] : 0, &rec);
      continue;
    }
    cs->po_callback = p->callback;
    cs->po_lost = ct_po_aux(src, recs, i);
    cs->po_saved = (p->flags & CT_PO_SAVED) != 0;
    struct ct_module *m = &mods[p->mod];
    const int gap = p->flags & CT_PO_GAP;
    if (!(summaries && record_summarised(cs, &rec, m, p->mod, gap, 1)))
      record_walked(cs, &rec, m, p->mod, gap);
    cs->last_mod = m;
    cs->last_fn = rec.fn;
    cs->last_acc = rec.acc;
  }
  /* The frames' unfinished paths read from the stack have no records after them to bring
   * back the callees they wait for: a callee without records, or one that writes none,
   * returns, and the path goes on, up to the call each frame is in. */
  for (unsigned guard = 0; guard < (1u << 20) && cs->n >= 2; guard++) {
    struct frame *top = &cs->fr[cs->n - 1], *below = top - 1;
    if (!below->partial || !below->suspended || below->frozen == 1 || top->suspended) break;
    if (top->kind != FR_KNOWN) {
      pop(cs);
      resume_suspended(cs); /* not the innermost frozen one: pending_path goes on there */
    } else if (!advance(cs)) {
      break;
    }
  }
  cs->po_callback = -1;
  cs->po_saved = 0;
  if (positions) retime_window(cs, since, src, recs, n);
}

void ct_callstack_reach(struct ct_callstack *cs, const struct ct_mfunc *f, struct ct_module *m,
                        uint16_t mod, uint32_t site, int empty, uint64_t time_ns) {
  cs->time = time_ns;
  locate(cs, f, m, mod, site, empty);
}

int ct_callstack_may_flow(const struct ct_callstack *cs, const struct ct_mfunc *f) {
  return cs && may_start_elsewhere(cs, f);
}

/* The unfinished path's walk from the innermost frame, which stands where its accumulator
 * starts (w at its first block). `dry`: nothing is emitted and the model is left as it was
 * (a return beyond the innermost frame fails). Returns the function the walk stopped in, or
 * NULL (dry only) if it cannot be walked. */
static const struct ct_mfunc *pending_walk(struct ct_callstack *cs, struct ct_walk w, int dry) {
  size_t base = cs->n;
  long depth = cs->th->depth;
  const struct ct_mfunc *S = cs->fr[cs->n - 1].f, *cur = S, *out = NULL;
  uint32_t site = w.site;
  size_t n = 0;
  int st = CT_WALK_BLOCK;
  uint16_t mod = cs->fr[cs->n - 1].mod;
  if (!dry && !path_fits(cs, cur)) return cur;
  for (unsigned guard = 0; guard < (1u << 24); guard++) {
    if (st == CT_WALK_BLOCK) {
      if (!dry) path_add(cs, cur, mod, &site, &n, w.block);
      /* Every bit read: the blocks that need none after it are what the pc would have to
       * tell (stack.c's pending_path does that for one function); not walked here. */
      if (w.used == w.nbits) {
        if (!dry) emit(cs, cur, mod, site, cs->path, n);
        out = cur;
        break;
      }
      st = ct_walk_next(&w, 1);
      continue;
    }
    if (!dry) emit(cs, cur, mod, site, cs->path, n);
    n = 0;
    site = UINT32_MAX;
    if (st == CT_WALK_FLOW) {
      const struct ct_mfunc *g = cross_call(cs, &cur->blocks[w.block], dry);
      if (!g) { out = dry ? NULL : cur; break; }
      cur = g;
      site = 0;
      st = ct_walk_resume(&w, g, 0, S->site_bits);
    } else if (st == CT_WALK_RET && cs->n > 1 &&
               (dry ? cs->n > base : cs->fr[cs->n - 2].cont != UINT32_MAX)) {
      uint32_t cont;
      cur = cross_return(cs, dry, &cont)->f;
      st = ct_walk_resume(&w, cur, cont, S->site_bits);
    } else {
      out = st == CT_WALK_BAD && dry ? NULL : cur; /* out of bits, or a flush not written yet */
      break;
    }
    if (st == CT_WALK_BAD) { out = dry ? NULL : cur; break; }
    if (st != CT_WALK_BLOCK) { out = cur; break; }
    if (!dry && !path_fits(cs, cur)) { out = cur; break; }
  }
  if (dry) {
    cs->n = base;
    cs->th->depth = depth;
  }
  return out;
}

const struct ct_mfunc *ct_callstack_flow_pending(struct ct_callstack *cs, const struct ct_mfunc *f,
                                                 struct ct_module *m, uint16_t mod, uint64_t acc,
                                                 uint64_t time_ns) {
  struct ct_walk w;
  cs->time = time_ns;
  if (cs->n) {
    struct frame *top = &cs->fr[cs->n - 1];
    if (top->kind != FR_KNOWN || ct_walk_start(&w, top->f, acc) != CT_WALK_BLOCK ||
        w.site != top->site)
      return NULL;
    return pending_walk(cs, w, 0);
  }
  /* Nothing recorded before it: the accumulator starts in one of carried_starts. */
  const struct ct_mfunc *const *cand;
  size_t nc = carried_starts(m, f, &cand);
  for (size_t i = 0; i < nc; i++) {
    if (ct_walk_start(&w, cand[i], acc) != CT_WALK_BLOCK) continue;
    push(cs, known_frame(cand[i], m, mod, w.site, UINT32_MAX));
    cs->th->depth--;
    if (pending_walk(cs, w, 1) == f) return pending_walk(cs, w, 0);
    cs->th->depth++;
    pop(cs);
    cs->n = 0;
  }
  return NULL;
}

void ct_callstack_return_all(struct ct_callstack *cs) {
  for (unsigned guard = 0; cs->n && guard < (1u << 20); guard++) {
    struct frame *top = &cs->fr[cs->n - 1];
    if (top->kind != FR_KNOWN) {
      pop(cs); /* left no record */
      resume_suspended(cs);
    } else if (top->suspended) {
      resume_suspended(cs);
    } else if (!advance(cs)) {
      break; /* it could not have returned without writing one */
    }
  }
}
