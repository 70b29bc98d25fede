/*
 * timeline.c - assemble the per-thread timelines of a dump.
 *
 * For each thread: extract the records of each of its rings, put them in true order, and
 * hand them to the thread's call-stack model (callstack.c), which walks each record through
 * its function's CFG, re-creates the elided ones, and appends one step per source line.
 *
 * Ordering the rings of one thread (see crashtrail/abi.h): once a second module has
 * registered, every record after which control may leave a module is stamped, and the thread
 * that turned stamping on cut each of its rings (a CUT marker, a stamp without a record). Cutting each ring after each stamped record gives segments
 * during which control stayed in that module; sorting the segments by their closing stamp
 * puts them in the order they ran. Each ring's unstamped tail is where the thread was when
 * the dump was taken (or left by a way the pass could not stamp); tails go last, oldest chunk
 * first. Missing stamps in the sorted sequence mean records were overwritten: the step after
 * them is marked as a gap.
 */
#include "timeline.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "crashtrail/abi.h"
#include "callstack.h"
#include "decoder.h"
#include "elf_file.h"
#include "postorder.h"
#include "step_times.h"

void ct_timeline_warn(struct ct_timeline *t, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  for (size_t i = 0; i < t->nwarnings; i++)
    if (!strcmp(t->warnings[i], buf)) return;
  char **nw = realloc(t->warnings, (t->nwarnings + 1) * sizeof *nw);
  if (!nw) return;
  t->warnings = nw;
  t->warnings[t->nwarnings++] = strdup(buf);
}

void ct_tl_log_block(struct ct_tl_thread *th, const struct ct_mfunc *f, uint32_t block,
                     uint16_t module) {
  if (th->nblocks == th->blocks_cap) {
    size_t cap = th->blocks_cap ? th->blocks_cap * 2 : 1024;
    struct ct_block_ref *nb = realloc(th->blocks, cap * sizeof *nb);
    if (!nb) return;
    th->blocks = nb;
    th->blocks_cap = cap;
  }
  th->blocks[th->nblocks++] = (struct ct_block_ref){f->addr, block, module};
}

int ct_tl_add_step(struct ct_tl_thread *th, const struct ct_step *s) {
  if (th->nsteps) {
    struct ct_step *p = &th->steps[th->nsteps - 1];
    if (p->line == s->line && p->file == s->file && p->function == s->function &&
        !(s->flags & (CT_STEP_ENTRY | CT_STEP_GAP))) {
      p->flags |= s->flags & (CT_STEP_CRASH | CT_STEP_PENDING);
      if (s->flags & CT_STEP_LOOP) p->repeat++;
      return 0;
    }
  }
  if (th->nsteps == th->cap) {
    size_t cap = th->cap ? th->cap * 2 : 256;
    struct ct_step *ns = realloc(th->steps, cap * sizeof *ns);
    if (!ns) return -1;
    th->steps = ns;
    th->cap = cap;
  }
  if (s->depth < th->min_depth) th->min_depth = s->depth;
  th->steps[th->nsteps] = *s;
  th->steps[th->nsteps++].flags &= (uint16_t)~CT_STEP_LOOP;
  return 0;
}

struct segment {
  const struct ct_ring_records *rr;
  size_t start, n;    /* record slots [start, start + n) of rr */
  uint64_t key;      /* closing stamp, CT_NO_STAMP for a tail */
  uint64_t time_ns;  /* for ordering tails */
  uint32_t module;   /* dump module id */
};

static int seg_cmp(const void *a, const void *b) {
  const struct segment *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->time_ns < y->time_ns ? -1 : x->time_ns > y->time_ns;
}

/* Whether a module was built with deferred calls (its records follow its callees'). */
static int any_defers(const struct ct_modset *ms) {
  for (size_t k = 0; k < ms->n; k++)
    for (size_t i = 0; ms->mods[k].meta && i < ms->mods[k].meta->nfuncs; i++)
      if (ms->mods[k].meta->funcs[i].flags & CT_FN_DEFERS) return 1;
  return 0;
}

/* Records of a thread with deferred calls, named in ring order (each stays in the mapped dump,
 * ct_po_src) and decoded in the order postorder.c puts them in; sized once for a record per
 * ring slot and, at the end, the suspended frames of a thread whose stack the dump holds
 * (never grown, never copied: a 64 MB ring holds 4 M). */
#define PO_MAX_FRAMES 256
struct po_buf {
  struct ct_po_rec *v;
  size_t n, v_bytes;
  struct ct_po_src src;
  int saved; /* a longjmp's marks were just gathered: the next record gets CT_PO_SAVED */
  int toplevel; /* an exit handler's marker was: the next record gets CT_PO_TOPLEVEL */
  size_t abandons; /* CT_PO_ABANDON marks gathered */
  const struct ct_ring_records *rings; /* the thread's rings (build_thread_steps' rr) */
  uint32_t *entry; /* per live chunk of every ring, its entry in src.chunks (CT_PO_NONE: none
                      yet): a chunk gathered in many pieces (with two modules a segment ends
                      at every stamped record) is named once, so the entries never outnumber
                      the chunks */
  size_t *entry_base; /* per ring: where its chunks start in entry[] */
};

/* The two arrays of a record each (12 bytes a record: 48 MB for a 64 MB dump) are mapped in
 * 2 MB pages where the kernel gives them on request (transparent huge pages in "madvise"
 * mode, Debian's default): faulting them in 4 KB at a time was a sixth of the decoding's
 * time. Released with po_free; NULL when out of memory. */
#define PO_HUGE ((size_t)2 << 20)
static void *po_alloc(size_t bytes) {
  if (bytes < PO_HUGE) return malloc(bytes ? bytes : 1);
  size_t len = (bytes + PO_HUGE - 1) & ~(PO_HUGE - 1);
  uint8_t *m = mmap(NULL, len + PO_HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                    -1, 0);
  if (m == MAP_FAILED) return NULL;
  uint8_t *a = (uint8_t *)(((uintptr_t)m + PO_HUGE - 1) & ~(uintptr_t)(PO_HUGE - 1));
  if (a > m) munmap(m, (size_t)(a - m)); /* aligned, so that whole huge pages fit */
  munmap(a + len, (size_t)(m + PO_HUGE - a));
  (void)madvise(a, len, MADV_HUGEPAGE);
  return a;
}

static void po_free(void *p, size_t bytes) {
  if (!p) return;
  if (bytes < PO_HUGE) free(p);
  else munmap(p, (bytes + PO_HUGE - 1) & ~(PO_HUGE - 1));
}

/* The records of slots [from, to) of chunk c, appended to b (ct_callstack_chunk's loop, kept
 * for postorder.c instead of decoded). Returns the gap flag still pending. */
static int po_gather(struct po_buf *b, const struct ct_ring_records *sr, size_t c, size_t from,
                     size_t to, uint16_t mod, int gap) {
  const uint64_t *w = sr->live[c] + 2 * CT_CHUNK_HEADER_SLOTS;
  uint32_t *e = &b->entry[b->entry_base[sr - b->rings] + c];
  if (*e == CT_PO_NONE) {
    *e = (uint32_t)b->src.nchunks;
    b->src.chunks[b->src.nchunks++] =
        (struct ct_po_chunk){w, sr->fn_base, sr->clock[c], sr->step[c]};
  }
  const uint32_t chunk = *e << b->src.shift;
  for (size_t s = from; s < to; s++) {
    if ((s & 3) == 0) __builtin_prefetch(&w[2 * s + 256]);
    struct ct_rec r;
    if (!ct_slot_rec(w[2 * s], w[2 * s + 1], sr->fn_base, sr->clock[c], sr->step[c], s, &r) ||
        !r.fn) {
      const enum ct_slot_kind kind = ct_slot_kind(w[2 * s], w[2 * s + 1]);
      if (kind == CT_SLOT_ABANDON) { /* its stop: po_decode */
        b->v[b->n++] = (struct ct_po_rec){chunk | (uint32_t)s, mod, CT_PO_ABANDON, 0};
        b->saved = 1;
        b->abandons++;
      }
      b->toplevel |= kind == CT_SLOT_TOPLEVEL;
      continue;
    }
    const uint8_t flags = (uint8_t)((gap ? CT_PO_GAP : 0) | (b->saved ? CT_PO_SAVED : 0) |
                                    (b->toplevel ? CT_PO_TOPLEVEL : 0) |
                                    ((w[2 * s] & CT_REC_STAMPED) ? CT_PO_STAMPED : 0));
    b->v[b->n++] = (struct ct_po_rec){chunk | (uint32_t)s, mod, flags, 0};
    b->saved = b->toplevel = 0;
    gap = 0;
  }
  return gap;
}

/* A record's steps ran before it was written, and, in post-order, before the records of the
 * calls it deferred, which were written earlier: each record's steps are given the earliest
 * time of the records from it on in model order (b->v[0..n), arranged), so that a thread's
 * times never go back (the viewer's "same moment" in another thread needs them in order). One
 * pass from the end, into delta[] as step_times.h keeps them (delta is the list's next[], no
 * longer needed: no new memory is touched but the few escapes). Full decoding only: windowed,
 * the model works out the kept steps' times itself. -1 when out of memory (each record then
 * keeps its own time). */
static int po_step_times(const struct po_buf *b, size_t n, uint32_t *delta,
                         struct ct_step_times *out) {
  uint64_t least = UINT64_MAX;
  ct_st_begin(out, delta, n);
  for (size_t i = n; i-- > 0;) {
    const uint64_t own = ct_po_time(&b->src, &b->v[i]);
    if (own && own < least) least = own;
    if (ct_st_put(out, i, least == UINT64_MAX ? own : least) != 0) {
      ct_st_free(out);
      return -1;
    }
  }
  return 0;
}

static int po_decode(struct ct_timeline *t, struct ct_tl_thread *th, struct ct_callstack *cs,
                     struct po_buf *b, int stopped) {
  size_t nframes = 0;
  /* where each frame a longjmp discarded stopped */
  for (size_t i = 0; b->abandons && i < b->n; i++)
    if (b->v[i].flags & CT_PO_ABANDON) {
      size_t s;
      const struct ct_po_chunk *c = ct_po_chunk_of(&b->src, &b->v[i], &s);
      struct ct_rec r;
      uint32_t ret;
      ct_slot_abandon(c->w[2 * s], c->w[2 * s + 1], c->fn_base, c->clock, c->step, s, &r, &ret);
      ct_po_set_aux(&b->src, b->v, i, ct_stack_abandoned_stop(t, b->v[i].mod, r.fn, r.acc, ret));
    }
  if (stopped) { /* the stack's suspended frames go last */
    uint32_t stops[PO_MAX_FRAMES];
    nframes = ct_stack_deferred_frames(t, th, b->v + b->n, stops, b->src.frames,
                                       b->src.frame_callers, PO_MAX_FRAMES);
    for (size_t k = 0; k < nframes; k++) ct_po_set_aux(&b->src, b->v, b->n + k, stops[k]);
    b->n += nframes;
  }
  const size_t next_bytes = b->n * sizeof(uint32_t);
  uint32_t *next = po_alloc(next_bytes), head;
  size_t mismatched = 0, unclosed = 0;
  if (!next || ct_postorder(t->mods, &b->src, b->v, b->n, nframes, next, &head, &mismatched,
                            &unclosed) != 0) {
    po_free(next, next_bytes);
    return -1;
  }
  if (mismatched)
    ct_timeline_warn(t, "thread %u: %zu records of functions built with deferred calls fit no "
                     "call of the records around them: decoded where they were", th->tid,
                     mismatched);
  if (unclosed && !stopped) /* its stack was not read */
    ct_timeline_warn(t, "thread %u: its last %zu calls are shown without their callers' steps "
                     "since their last records: built with deferred calls, those were still in "
                     "the callers' registers, and the dump holds none of this thread's (it was "
                     "not stopped for the dump: CRASHTRAIL_CAPTURE_SIGNAL)",
                     th->tid, unclosed);
  /* the records put in the list's order, so that the model and the times read them in order */
  const size_t listed = ct_po_arrange(&b->src, b->v, b->n, next, head);
  struct ct_step_times times; /* windowed: the kept steps' times alone, by the model */
  const int timed = !ct_callstack_windowed(cs) && po_step_times(b, listed, next, &times) == 0;
  ct_callstack_records(cs, &b->src, b->v, listed, timed ? &times : NULL);
  if (timed) ct_st_free(&times);
  po_free(next, next_bytes);
  return 0;
}

/* Room for the records of segments seg[0..nseg) of rings[0..nrings) and the frames: a slot
 * each, a chunk entry per live chunk of the rings, and slot numbers wide enough for the largest
 * chunk. -1 when out of memory or when the chunks outnumber what a 32-bit reference names (64
 * GB of rings). */
static int po_reserve(struct po_buf *b, const struct ct_ring_records *rings, size_t nrings,
                      const struct segment *seg, size_t nseg) {
  size_t slots = PO_MAX_FRAMES, chunks = 0, widest = 1;
  for (size_t s = 0; s < nseg; s++) {
    slots += seg[s].n;
    if (seg[s].rr->slots > widest) widest = seg[s].rr->slots;
  }
  b->rings = rings;
  if (!(b->entry_base = malloc((nrings ? nrings : 1) * sizeof *b->entry_base))) return -1;
  for (size_t i = 0; i < nrings; i++) {
    b->entry_base[i] = chunks;
    chunks += rings[i].nlive;
  }
  while (((size_t)1 << b->src.shift) < widest) b->src.shift++;
  if (b->src.shift >= 32 || chunks >= ((size_t)1 << (32 - b->src.shift))) return -1;
  if (!(b->entry = malloc((chunks ? chunks : 1) * sizeof *b->entry))) return -1;
  for (size_t i = 0; i < chunks; i++) b->entry[i] = CT_PO_NONE;
  b->v_bytes = slots * sizeof *b->v;
  b->v = po_alloc(b->v_bytes);
  b->src.chunks = malloc((chunks ? chunks : 1) * sizeof *b->src.chunks);
  b->src.frames = malloc(PO_MAX_FRAMES * sizeof *b->src.frames);
  b->src.frame_callers = malloc(PO_MAX_FRAMES * sizeof *b->src.frame_callers);
  b->src.frame_lost = calloc(PO_MAX_FRAMES, sizeof *b->src.frame_lost);
  b->src.aux = calloc(slots, sizeof *b->src.aux); /* zero pages: few are ever written */
  return b->v && b->src.chunks && b->src.frames && b->src.frame_callers && b->src.frame_lost &&
         b->src.aux ? 0 : -1;
}

/* Orders and decodes all rings of one thread. Its call-stack model goes to *keep if asked
 * for (the crashed thread's: its unfinished path continues it), else is freed. */
static int build_thread_steps(struct ct_timeline *t, struct ct_tl_thread *th,
                              struct ct_callstack **keep) {
  struct ct_dump *d = t->dump;
  struct ct_ring_records *rr = calloc(d->nrings + 1, sizeof *rr);
  struct ct_callstack *cs = ct_callstack_new(t, th);
  struct segment *seg = NULL;
  size_t nseg = 0, cap = 0;
  struct po_buf po = {0};
  const int defers = any_defers(t->mods);
  int rc = -1;
  if (!rr || !cs) goto out;
  for (size_t i = 0; i < d->nrings; i++) {
    if (d->rings[i].hdr.tid != th->tid) continue;
    th->rings++;
    uint64_t end = (d->rings[i].hdr.flags & CT_THR_EXITED) ? 0 : d->process.monotonic_ns;
    if (ct_ring_extract(&d->rings[i], end, &rr[i]) != 0) goto out;
    const struct ct_dump_module *mod = ct_dump_module_by_id(d, d->rings[i].hdr.module_id);
    rr[i].fn_base = mod ? mod->hdr.record_base : 0;
    if (rr[i].oldest_generation > 1) th->wrapped = 1;
    if (rr[i].skipped) ct_timeline_warn(t, "thread %u: %zu damaged ring slots skipped", th->tid, rr[i].skipped);
    /* a segment ends at each stamped record; the unstamped rest is the ring's tail */
    for (size_t k = 0, start = 0; k <= rr[i].nstamps && start < rr[i].n; k++) {
      size_t end = k < rr[i].nstamps ? rr[i].stamps[k].index : rr[i].n - 1;
      if (nseg == cap) {
        cap = cap ? cap * 2 : 64;
        struct segment *ns = realloc(seg, cap * sizeof *ns);
        if (!ns) goto out;
        seg = ns;
      }
      struct ct_rec first;
      size_t j = start;
      while (j <= end && !ct_ring_rec(&rr[i], j, &first)) j++;
      if (j > end) { /* holes only: the slots after the ring's last stamped record */
        start = end + 1;
        continue;
      }
      seg[nseg++] = (struct segment){&rr[i], start, end + 1 - start,
                                     k < rr[i].nstamps ? rr[i].stamps[k].stamp : CT_NO_STAMP,
                                     first.time_ns, d->rings[i].hdr.module_id};
      start = end + 1;
    }
  }
  if (nseg) qsort(seg, nseg, sizeof *seg, seg_cmp);
  if (defers && po_reserve(&po, rr, d->nrings, seg, nseg) != 0) goto out;
  uint64_t last_stamp = CT_NO_STAMP;
  for (size_t s = 0; s < nseg; s++) {
    struct ct_module *m = ct_modules_by_dump_id(t->mods, seg[s].module);
    int gap = (s == 0 && th->wrapped) ||
              (last_stamp != CT_NO_STAMP && seg[s].key != CT_NO_STAMP && seg[s].key > last_stamp + 1 &&
               th->wrapped);
    if (!m || !m->meta) continue;
    const struct ct_ring_records *sr = seg[s].rr;
    uint16_t mod = (uint16_t)(m - t->mods->mods);
    /* Chunk by chunk (slots [from, to) of chunk c): a division per chunk, not per record.
     * With deferred calls the records are gathered for postorder.c, else decoded. */
    for (size_t k = seg[s].start, end = k + seg[s].n; k < end;) {
      size_t c = k / sr->slots, from = k % sr->slots;
      size_t to = from + (end - k) < sr->fill[c] ? from + (end - k) : sr->fill[c];
      gap = defers ? po_gather(&po, sr, c, from, to, mod, gap)
                   : ct_callstack_chunk(cs, sr, c, from, to, m, mod, gap);
      k += sr->slots - from;
    }
    if (seg[s].key != CT_NO_STAMP) last_stamp = seg[s].key;
  }
  if (defers && po_decode(t, th, cs, &po, keep != NULL) != 0) goto out;
  rc = 0;
out:
  po_free(po.v, po.v_bytes);
  free(po.src.chunks);
  free(po.entry);
  free(po.entry_base);
  free(po.src.frames);
  free(po.src.frame_callers);
  free(po.src.frame_lost);
  free(po.src.aux);
  if (rr)
    for (size_t i = 0; i < d->nrings; i++) ct_ring_records_free(&rr[i]);
  free(rr);
  free(seg);
  if (rc == 0 && (th->flags & CT_THR_EXITED) && !(th->flags & CT_THR_PREFORK))
    ct_callstack_return_all(cs); /* its start routine returned */
  ct_callstack_end_window(cs);
  if (keep && rc == 0) *keep = cs;
  else ct_callstack_free(cs);
  return rc;
}

static void normalise_depth(struct ct_tl_thread *th) {
  for (size_t i = 0; i < th->nsteps; i++) th->steps[i].depth -= th->min_depth;
}

static int add_thread(struct ct_timeline *t, uint32_t tid, uint32_t flags, const char *name) {
  for (size_t i = 0; i < t->nthreads; i++)
    if (t->threads[i].tid == tid) {
      t->threads[i].flags |= flags;
      if (name && name[0]) snprintf(t->threads[i].name, sizeof t->threads[i].name, "%s", name);
      return (int)i;
    }
  struct ct_tl_thread *nt = realloc(t->threads, (t->nthreads + 1) * sizeof *nt);
  if (!nt) return -1;
  t->threads = nt;
  struct ct_tl_thread *th = &t->threads[t->nthreads];
  memset(th, 0, sizeof *th);
  th->tid = tid;
  th->flags = flags;
  th->min_depth = UINT32_MAX;
  if (name) snprintf(th->name, sizeof th->name, "%s", name);
  return (int)t->nthreads++;
}

static const char *keep(struct ct_timeline *t, const char *s) {
  return s ? ct_arena_strndup(&t->arena, s, strlen(s)) : NULL;
}

/* The process, signal and modules, copied out of the dump so the timeline stands alone. */
static int fill_info(struct ct_timeline *t, const struct ct_dump *d, const struct ct_modset *m) {
  struct ct_crash_info *i = &t->info;
  i->pid = d->process.pid;
  i->reason = (int)d->process.reason;
  i->executable = keep(t, d->exe);
  i->message = d->reason && d->reason[0] ? keep(t, d->reason) : NULL;
  /* A corrupted header can hold any time: outside 1970-2262 (int64 nanoseconds) it is unknown. */
  if (d->process.realtime_sec >= 0 && d->process.realtime_sec < INT64_MAX / 1000000000ll - 1 &&
      d->process.realtime_nsec < 1000000000u)
    i->realtime_ns = d->process.realtime_sec * 1000000000ll + d->process.realtime_nsec;
  i->monotonic_ns = d->process.monotonic_ns;
  for (size_t at = 0; at < d->cmdline_len; at += strlen(d->cmdline + at) + 1) i->narguments++;
  i->arguments = ct_arena_alloc(&t->arena, (i->narguments + 1) * sizeof *i->arguments);
  t->modules = ct_arena_alloc(&t->arena, (m->n + 1) * sizeof *t->modules);
  if (!i->arguments || !t->modules) return -1;
  for (size_t at = 0, k = 0; at < d->cmdline_len; at += strlen(d->cmdline + at) + 1)
    i->arguments[k++] = keep(t, d->cmdline + at);
  if ((i->has_signal = d->has_signal)) {
    i->signo = d->signal.signo;
    i->code = d->signal.code;
    i->sender_pid = d->signal.sender_pid;
    i->fault_addr = d->signal.fault_addr;
  }
  for (size_t k = 0; k < m->n; k++) {
    const struct ct_module *mod = &m->mods[k];
    struct ct_tl_module *tm = &t->modules[k];
    const uint8_t *id;
    char hex[140];
    size_t n = mod->elf ? ct_elf_build_id(mod->elf, &id) : 0;
    if (n) ct_hex(id, n > 64 ? 64 : n, hex);
    tm->name = keep(t, mod->name);
    tm->path = keep(t, mod->recorded_path);
    tm->build_id = n ? keep(t, hex) : NULL;
    tm->debug_file = keep(t, mod->debug_path);
    tm->bias = mod->bias;
    tm->instrumented = mod->instrumented;
  }
  t->nmodules = m->n;
  return 0;
}

int ct_timeline_build(struct ct_dump *d, struct ct_modset *m, int keep_blocks, size_t max_steps,
                      struct ct_timeline **out, char *err, size_t errlen) {
  struct ct_timeline *t = calloc(1, sizeof *t);
  uint32_t focus = d->has_signal ? d->signal.tid : d->has_regs ? d->regs.tid : 0;
  *out = NULL;
  if (!t) goto oom;
  t->dump = d;
  t->mods = m;
  t->crashed = -1;
  t->keep_blocks = keep_blocks;
  t->max_steps = max_steps;
  if (fill_info(t, d, m) != 0) goto oom;
  /* The thread the dump is about goes first. */
  if (focus && add_thread(t, focus, d->has_signal ? CT_THR_CRASHED : 0, NULL) < 0) goto oom;
  for (size_t i = 0; i < d->nthreads; i++)
    if (add_thread(t, d->threads[i].tid, d->threads[i].flags, d->threads[i].name) < 0) goto oom;
  for (size_t i = 0; i < d->nrings; i++)
    if (add_thread(t, d->rings[i].hdr.tid, d->rings[i].hdr.flags & (CT_THR_EXITED | CT_THR_PREFORK),
                   NULL) < 0)
      goto oom;
  /* Each thread whose registers the dump holds (its own, and every thread stopped for it)
   * gets its stack and the unfinished path of its innermost instrumented frame, which
   * continue its call-stack model. */
  for (size_t i = 0; i < t->nthreads; i++) {
    struct ct_tl_thread *th = &t->threads[i];
    const int stopped = !(th->flags & (CT_THR_EXITED | CT_THR_PREFORK)) &&
                        ct_dump_regs_of(d, th->tid) != NULL;
    const int is_focus = i == 0 && focus;
    struct ct_callstack *cs = NULL;
    t->pending_skip_fn = NULL;
    t->pending_skip = 0;
    if (build_thread_steps(t, th, stopped ? &cs : NULL) != 0) goto oom;
    if (th->bad_records)
      ct_timeline_warn(t, "thread %u: %zu of %zu records could not be decoded", th->tid,
                       th->bad_records, th->records);
    if (stopped) {
      int recovered = t->pending_recovered;
      ct_timeline_stack(t, th, cs);
      if (!is_focus) t->pending_recovered = recovered; /* says the crashing frame's */
      if (is_focus && d->has_signal) t->crashed = 0;
    }
    ct_callstack_free(cs);
  }
  for (size_t i = 0; i < t->nthreads; i++) {
    struct ct_tl_thread *th = &t->threads[i];
    if (max_steps && th->nsteps > max_steps) { /* the ring's surplus and the crash's steps */
      size_t drop = th->nsteps - max_steps;
      memmove(th->steps, th->steps + drop, max_steps * sizeof *th->steps);
      th->nsteps = max_steps;
      th->first_seq += drop;
    }
    normalise_depth(th);
  }
  if (ct_timeline_exec_tables(t) != 0) goto oom;
  *out = t;
  return 0;
oom:
  snprintf(err, errlen, "out of memory");
  ct_timeline_free(t);
  return -1;
}

void ct_timeline_free(struct ct_timeline *t) {
  if (!t) return;
  for (size_t i = 0; i < t->nthreads; i++) {
    free(t->threads[i].steps);
    free(t->threads[i].stack);
    free(t->threads[i].locals);
    free(t->threads[i].blocks);
  }
  free(t->threads);
  free(t->last_exec);
  free(t->table_refs);
  free(t->first_exec);
  for (size_t i = 0; i < t->nwarnings; i++) free(t->warnings[i]);
  free(t->warnings);
  ct_arena_free(&t->arena);
  free(t);
}
