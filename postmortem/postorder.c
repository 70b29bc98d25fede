/*
 * postorder.c - puts a thread's records back in the order the call-stack model takes them when
 * functions were built with deferred calls (CT_FN_DEFERS, the pass's defer-calls).
 *
 * A deferred call writes no record before it: the caller's path goes on in its accumulator
 * across the call and reaches the ring with the caller's next record, after the callee's. The
 * ring then holds an invocation's records after those of the calls it deferred (post-order).
 * The model (callstack.c) wants each record before its deferred callees' (it walks the record,
 * suspends at each deferred call, lets the callee's records run, then goes on), so this file
 * parses the records bottom-up (shift-reduce) and emits them in that order.
 *
 * The parse keeps a stack of items, each an invocation with its records in model order: DONE
 * (returned), OPEN (its last record ended at a check point or before a non-deferred call; its
 * next record starts at `site`) or TAIL (ended in a tail call, waiting for the callee's item).
 * A record of f that starts at site s (every record names its start site):
 *  - continues the topmost OPEN item of f that waits at s, or reaches s through elided
 *    flushes; the items above it are its callees since its last record, matched forwards to
 *    the calls it made (the non-deferred call it waited in, the elided ones, the deferred
 *    ones its walk passes);
 *  - else starts a new invocation (at f's entry, or where the history starts inside f), whose
 *    deferred calls take their callees' items off the top of the stack, last call first.
 * A call to a function whose walk from its entry reaches a return without a bit never writes a
 * record (it is "silent"): it takes no item of its own, but the calls on that walk take theirs.
 * A call to code without records takes the items of the callbacks it made (matched forwards:
 * up to the next expected callee; backwards: functions no direct call names, not sitting on
 * an invocation waiting in a call, whose they are), a call through
 * a pointer its target's (up to the first item the next call takes, silent callees looked
 * into); a tail call's callee joins its caller. A record that fits nowhere undoes a tail-call
 * join near the top and is tried again (split_join), and one that continues nothing is
 * tried again with each call through a pointer taking one invocation (ptr_one), before it
 * is taken for a new one. Where nothing matches, the record is
 * kept as a new item without callees: the model resynchronises on it. Constructors at the
 * bottom (CT_FN_CTOR) ran before main: no call of main's takes them.
 * A longjmp: the frames it discarded inside deferred calls come as markers (CT_PO_ABANDON,
 * written by the runtime at the longjmp, innermost first), each a record that ends in the call
 * it was in, whose callee's item and everything above it are that call's (place_abandoned);
 * the record where setjmp returns again continues its function's newest open invocation,
 * whatever call that waits in, and takes everything above it (place_resume).
 * At the end the stack's items go out bottom first.
 *
 * Invariants: every record goes out exactly once; an item's records are a linked list over
 * record indices (next[]), joined in O(1); matching is tried dry first, then committed, so a
 * failed match changes nothing.
 */
#include "postorder.h"

#include <stdlib.h>
#include <string.h>

#include "crashtrail/abi.h"

#define NONE UINT32_MAX /* record indices are 32-bit: ct_postorder refuses more records */
#define RET UINT32_MAX /* chain_slots' target: the function's return */
#define MAX_DEPTH 32   /* silent callees inside silent callees */

enum { IT_DONE, IT_OPEN, IT_TAIL, IT_FROZEN /* on the stack at the dump, in a deferred call */ };

struct list {
  uint32_t head, tail;
};

struct item {
  const struct ct_mfunc *f;
  uint16_t mod;
  uint8_t state;
  uint32_t site;                /* IT_OPEN: where its next record starts */
  const struct ct_mblock *wait; /* IT_OPEN after a non-deferred call, IT_TAIL: that call */
  struct list recs;
  uint32_t own; /* its own first record (NONE: none yet) */
  /* Its last tail-call join (push), kept so that split_join can undo it: the callee's
   * function (NULL: none), module, first record and list head, the call, and where the
   * caller's list ended before. */
  const struct ct_mfunc *jf;
  uint16_t jmod;
  uint32_t jown, jhead, jtail;
  const struct ct_mblock *jwait;
};

/* A call an invocation made: block mb of f (in module mod). */
struct slot {
  const struct ct_mfunc *f;
  const struct ct_mblock *mb;
  uint16_t mod;
};

/* A list of calls; the first few in `local` (most lists are short, and they are made millions
 * of times): never copied, freed with slots_free. */
struct slots {
  struct slot *v;
  size_t n, cap;
  struct slot local[8];
};

#define CACHE_BITS 12
struct po_cache { /* direct-mapped, by calling block: a call is met millions of times */
  const struct ct_mblock *mb;
  const struct ct_mfunc *g;
  int8_t quiet; /* silent(g) with no calls of its own: 1; silent with calls: 2; not: 0 */
};

/* A record's walk (walk_record's results), by (module, function address, accumulator):
 * loops write the same records over and over. Its deferred calls are `ncalls` blocks from
 * `calls` in po.walk_calls. */
#define WALK_CACHE_BITS 14
struct walk_cache {
  uint64_t fn, acc; /* the key; fn 0: empty */
  const struct ct_mfunc *f;
  uint16_t mod;
  uint8_t ok, state;
  uint32_t start, site;
  const struct ct_mblock *wait;
  uint32_t calls, ncalls;
};

struct po {
  struct ct_modset *mods;
  struct po_cache *cache;
  struct walk_cache *walks;
  const struct ct_mblock **walk_calls; /* the cached walks' deferred calls, appended */
  size_t nwalk_calls, walk_calls_cap;
  const char **called; /* open-addressing set of the names direct calls name, any module */
  size_t called_cap;
  struct item *st;
  size_t n, cap;
  uint32_t *next;
  int commit;
  /* Set while a frame with deferring frames inside it is placed (place_frames): a call into
   * code without records that no later call bounds takes no callbacks, a call through a
   * pointer one target. Unbounded, they would take every returned invocation above, the
   * frames inside's own callees among them (sed's main, whose setlocale took those of
   * compile_program, a frame inside it at an error's exit). The last frame's such calls take
   * what is above (qsort's comparator under a function that wrote no record). */
  int bounded;
  /* Set for a second try of a record that fits nowhere: a call through a pointer takes one
   * returned invocation whatever it is, though it be of the next call's callee too (gawk's
   * re_parse_field calls set_element through a pointer, then directly). */
  int ptr_one;
  /* Set from the first stamped record on: a second instrumented module has registered, and
   * from then on every stamped flush is written, elidable or not (docs/design.md, "Records the
   * decoder can infer are not written"), so a chain of elided flushes ends at a stamped one. */
  int stamping;
  size_t mismatches;
  const struct ct_po_src *src; /* where the records are */
  struct mark { /* simple_fwd's callbacks: items [from, to) taken by `call` */
    uint32_t from, to;
    const struct ct_mblock *call;
  } marks[32];
  size_t nmarks;
  struct ct_po_rec *recs; /* each record's callback and aux (lost calls) are written here */
  /* Where a call that returns twice (setjmp) returns: (function, site), a few per program */
  struct resume_site {
    const struct ct_mfunc *f;
    uint32_t site;
  } *resumes;
  size_t nresumes;
  size_t floor; /* items below it returned before an exit handler started (CT_PO_TOPLEVEL):
                   no later record takes them */
  int lost;          /* the history starts after lost records (the ring wrapped) */
  size_t lost_calls; /* match_back gave up on this many first calls (their records lost) */
};

/* Empty, without clearing the inline slots: lists are made millions of times. */
static inline void slots_init(struct slots *s) {
  s->v = NULL;
  s->n = s->cap = 0;
}

static int slots_add(struct slots *s, const struct ct_mfunc *f, const struct ct_mblock *mb,
                     uint16_t mod) {
  if (s->n == s->cap) {
    if (!s->cap) {
      s->v = s->local;
      s->cap = sizeof s->local / sizeof s->local[0];
    } else {
      size_t cap = s->cap * 2;
      struct slot *nv = s->v == s->local ? malloc(cap * sizeof *nv)
                                         : realloc(s->v, cap * sizeof *nv);
      if (!nv) return -1;
      if (s->v == s->local) memcpy(nv, s->local, sizeof s->local);
      s->v = nv;
      s->cap = cap;
    }
  }
  s->v[s->n++] = (struct slot){f, mb, mod};
  return 0;
}

static void slots_free(struct slots *s) {
  if (s->v != s->local) free(s->v);
}

/* Item j was an invocation that `call` made from code it cannot see: a callback of code
 * without records (1; 3 when a record was written before the call) or a call through a
 * pointer (2); its first record says so. */
static void mark_callback(struct po *p, size_t j, const struct ct_mblock *call) {
  if (p->st[j].own != NONE)
    p->recs[p->st[j].own].callback = !call->callee ? 2 : call->term == CT_TERM_DEFER ? 1 : 3;
}

static void append(struct po *p, struct list *l, struct list m) {
  if (!p->commit || m.head == NONE) return;
  if (l->head == NONE) *l = m;
  else {
    p->next[l->tail] = m.head;
    l->tail = m.tail;
  }
}

static void prepend(struct po *p, struct list *l, struct list m) {
  if (!p->commit || m.head == NONE) return;
  if (l->head == NONE) *l = m;
  else {
    p->next[m.tail] = l->head;
    l->head = m.head;
  }
}

static const struct list EMPTY = {NONE, NONE};

/* The set of names that direct calls (recorded or deferred) name, in every module. */
static int build_called(struct po *p) {
  size_t n = 0;
  for (size_t k = 0; k < p->mods->n; k++)
    for (size_t i = 0; p->mods->mods[k].meta && i < p->mods->mods[k].meta->nfuncs; i++)
      n += p->mods->mods[k].meta->funcs[i].nblocks;
  size_t cap = 64;
  while (cap < 2 * n) cap *= 2;
  if (!(p->called = calloc(cap, sizeof *p->called))) return -1;
  p->called_cap = cap;
  for (size_t k = 0; k < p->mods->n; k++)
    for (size_t i = 0; p->mods->mods[k].meta && i < p->mods->mods[k].meta->nfuncs; i++) {
      const struct ct_mfunc *f = &p->mods->mods[k].meta->funcs[i];
      for (uint32_t b = 0; b < f->nblocks; b++) {
        const char *c = f->blocks[b].callee;
        if (!c) continue;
        size_t h = (size_t)ct_meta_hash_name(c) & (cap - 1);
        while (p->called[h] && strcmp(p->called[h], c)) h = (h + 1) & (cap - 1);
        p->called[h] = c;
      }
    }
  return 0;
}

/* Whether name is a function that returns twice: a longjmp (or setcontext) comes back to the
 * call's continuation. */
static int returns_twice(const char *name) {
  static const char *const names[] = {"setjmp", "_setjmp", "sigsetjmp", "__sigsetjmp",
                                      "savectx", "getcontext"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(name, names[i])) return 1;
  return 0;
}

/* The sites where a call that returns twice returns (p->resumes). */
static int build_resumes(struct po *p) {
  size_t cap = 0;
  for (size_t k = 0; k < p->mods->n; k++)
    for (size_t i = 0; p->mods->mods[k].meta && i < p->mods->mods[k].meta->nfuncs; i++) {
      const struct ct_mfunc *f = &p->mods->mods[k].meta->funcs[i];
      for (uint32_t b = 0; b < f->nblocks; b++) {
        const struct ct_mblock *mb = &f->blocks[b];
        if (!mb->callee || mb->nsucc == 0 || !returns_twice(mb->callee) ||
            (mb->term != CT_TERM_CALL && mb->term != CT_TERM_INVOKE) ||
            f->block_site[mb->succ[0].block] < 0)
          continue;
        if (p->nresumes == cap) {
          cap = cap ? 2 * cap : 8;
          struct resume_site *n = realloc(p->resumes, cap * sizeof *n);
          if (!n) return -1;
          p->resumes = n;
        }
        const uint32_t site = (uint32_t)f->block_site[mb->succ[0].block];
        p->resumes[p->nresumes++] = (struct resume_site){f, site};
      }
    }
  return 0;
}

static int is_resume_site(const struct po *p, const struct ct_mfunc *f, uint32_t site) {
  for (size_t i = 0; i < p->nresumes; i++)
    if (p->resumes[i].f == f && p->resumes[i].site == site) return 1;
  return 0;
}

/* Whether some direct call names f: if not, it runs only when called through a pointer (a
 * callback from code without records, say). */
static int directly_called(const struct po *p, const struct ct_mfunc *f) {
  if (!f || !f->name) return 1;
  size_t h = (size_t)ct_meta_hash_name(f->name) & (p->called_cap - 1);
  for (; p->called[h]; h = (h + 1) & (p->called_cap - 1))
    if (!strcmp(p->called[h], f->name)) return 1;
  return 0;
}

static const struct ct_mfunc *resolve(struct po *p, const struct slot *s);
static int silent(const struct ct_mfunc *g, uint16_t mod, int stamping, struct slots *calls);
static uint16_t callee_mod(struct po *p, const struct slot *s, const struct ct_mfunc *g);

/* silent() of the callee g of call s, as the parse stands (stamping or not). */
static int callee_silent(struct po *p, const struct slot *s, const struct ct_mfunc *g,
                         struct slots *calls) {
  return silent(g, callee_mod(p, s, g), p->stamping, calls);
}

static struct po_cache *cached(struct po *p, const struct slot *s) {
  size_t h = ((uintptr_t)s->mb >> 4) * 0x9E3779B97F4A7C15ull >> (64 - CACHE_BITS);
  struct po_cache *c = &p->cache[h];
  if (c->mb != s->mb) {
    c->mb = s->mb;
    c->g = resolve(p, s);
    c->quiet = 0;
    if (c->g) {
      struct slots calls;
      slots_init(&calls);
      if (callee_silent(p, s, c->g, &calls)) c->quiet = calls.n ? 2 : 1;
      slots_free(&calls);
    }
  }
  return c;
}

/* The function a call enters (cached by calling block); NULL for an indirect call or code
 * without records. */
static const struct ct_mfunc *callee(struct po *p, const struct slot *s) {
  return s->mb->callee ? cached(p, s)->g : NULL;
}

/* The function a call enters: resolved as the linker binds it (the caller's unit, its module,
 * the other instrumented modules; by ELF symbols where the metadata has no such name:
 * ct_modules_resolve_call); NULL for an indirect call or code without records. */
static const struct ct_mfunc *resolve(struct po *p, const struct slot *s) {
  uint16_t mod;
  return s->mb->callee
             ? ct_modules_resolve_call(p->mods, s->mod, s->mb->callee, s->f->unit,
                                       (s->mb->flags & CT_BB_STAMPED) != 0, &mod)
             : NULL;
}

static uint16_t callee_mod(struct po *p, const struct slot *s, const struct ct_mfunc *g) {
  for (size_t k = 0; k < p->mods->n; k++) {
    const struct ct_meta *m = p->mods->mods[k].meta;
    if (m && g >= m->funcs && g < m->funcs + m->nfuncs) return (uint16_t)k;
  }
  return s->mod;
}

/* The calls f makes on its branch-free way from site `from` through elided flushes to site `to`
 * (RET: to a return or a tail call), appended to out. 0 if that way needs a bit first, or
 * passes a stamped flush while `stamping` (which wrote a record there). */
static int chain_slots(const struct ct_mfunc *f, uint16_t mod, uint32_t from, uint32_t to,
                       int stamping, struct slots *out) {
  uint32_t x = from;
  for (uint32_t guard = 0; guard <= f->nsites; guard++) {
    if (x == to) return 1;
    uint32_t e = f->site_elided[x];
    if (e == UINT32_MAX) return 0;
    uint32_t b = f->site_block[x];
    for (uint32_t k = 0; b != e && k <= f->nblocks; k++) {
      if (f->blocks[b].term == CT_TERM_DEFER && slots_add(out, f, &f->blocks[b], mod) != 0)
        return 0;
      b = f->blocks[b].succ[0].block;
    }
    if (b != e) return 0;
    const struct ct_mblock *mb = &f->blocks[e];
    if (stamping && (mb->flags & CT_BB_STAMPED)) return 0;
    if (mb->term == CT_TERM_RETURN || mb->term == CT_TERM_RESUME) return to == RET;
    if (mb->term != CT_TERM_CALL && mb->term != CT_TERM_INVOKE) return 0;
    if (slots_add(out, f, mb, mod) != 0) return 0;
    if (mb->nsucc == 0) return to == RET; /* a tail call */
    int32_t next = f->block_site[mb->succ[0].block];
    if (next < 0) return 0;
    x = (uint32_t)next;
  }
  return 0;
}

/* Whether g never writes a record: its branch-free walk from its entry reaches a return
 * (through no stamped flush while stamping: C++ static initialisers, whose flushes before
 * calls into libstdc++ are stamped, write records once a library is instrumented too). */
static int silent(const struct ct_mfunc *g, uint16_t mod, int stamping, struct slots *calls) {
  calls->n = 0;
  return chain_slots(g, mod, 0, RET, stamping, calls);
}

static int match_fwd(struct po *p, const struct slot *s, size_t k, size_t *cur, size_t end,
                     const struct ct_mfunc *expect, int depth, struct list *out);

/* The function whose item the calls s[from..k) take first (forwards) or last (backwards):
 * the callee of a call to a function that writes records; a silent callee takes no item, so
 * its own calls are looked into (sqlite3MPrintf's sqlite3VMPrintf). NULL if none takes one. */
static const struct ct_mfunc *edge_callee(struct po *p, const struct slot *s, size_t from,
                                          size_t k, int backwards, int depth) {
  for (size_t n = from; n < k; n++) {
    const struct slot *sl = &s[backwards ? k - 1 - (n - from) : n];
    const struct ct_mfunc *g = callee(p, sl);
    if (!g) continue;
    int quiet = cached(p, sl)->quiet;
    if (!quiet) return g;
    if (quiet == 2 && depth < MAX_DEPTH) {
      struct slots calls;
      slots_init(&calls);
      callee_silent(p, sl, g, &calls);
      g = edge_callee(p, calls.v, 0, calls.n, backwards, depth + 1);
      slots_free(&calls);
      if (g) return g;
    }
  }
  return NULL;
}

/* The item that ends a run of callbacks forwards: the first of s[from..k) to take one, else
 * `otherwise`. */
static const struct ct_mfunc *next_callee(struct po *p, const struct slot *s, size_t from, size_t k,
                                          const struct ct_mfunc *otherwise) {
  const struct ct_mfunc *g = edge_callee(p, s, from, k, 0, 0);
  return g ? g : otherwise;
}

/* The last of s[0..k) to take an item, or NULL. */
static const struct ct_mfunc *prev_callee(struct po *p, const struct slot *s, size_t k) {
  return edge_callee(p, s, 0, k, 1, 0);
}

/* The calls an item still makes before it returns: the call it waits in, then its branch-free
 * way to a return. 0 if it cannot return without writing a record. */
static int closing_slots(const struct item *it, int stamping, struct slots *out) {
  out->n = 0;
  if (it->wait && slots_add(out, it->f, it->wait, it->mod) != 0) return 0;
  if (it->state == IT_TAIL) return 1;
  return chain_slots(it->f, it->mod, it->site, RET, stamping, out);
}

/* Item j, returning without another record: its closing calls take the items from *cur on.
 * Its records (with its callees') are appended to out. */
static int close_item(struct po *p, size_t j, size_t *cur, size_t end, const struct ct_mfunc *expect,
                      int depth, struct list *out) {
  struct item *it = &p->st[j];
  if (it->state != IT_DONE) {
    struct slots cs;
    slots_init(&cs);
    int ok = closing_slots(it, p->stamping, &cs) &&
             match_fwd(p, cs.v, cs.n, cur, end, expect, depth + 1, &it->recs);
    slots_free(&cs);
    if (!ok) return 0;
  }
  append(p, out, it->recs);
  return 1;
}

/* Slots s[0..k) matched forwards to the items from *cur (below end): each call to a function
 * that writes records takes its item (closing it if open), a silent callee's calls take
 * theirs, a call into code without records takes the callbacks up to the next expected
 * callee. Children's records are appended to out in call order. */
static int match_fwd(struct po *p, const struct slot *s, size_t k, size_t *cur, size_t end,
                     const struct ct_mfunc *expect, int depth, struct list *out) {
  if (depth > MAX_DEPTH) return 0;
  for (size_t i = 0; i < k; i++) {
    const struct ct_mfunc *g = callee(p, &s[i]);
    if (g) {
      struct slots calls;
      slots_init(&calls);
      int quiet = cached(p, &s[i])->quiet;
      if (quiet == 2) callee_silent(p, &s[i], g, &calls);
      int ok = 1;
      if (quiet)
        ok = match_fwd(p, calls.v, calls.n, cur, end, next_callee(p, s, i + 1, k, expect),
                       depth + 1, out);
      slots_free(&calls);
      if (!ok) return 0;
      if (quiet) continue;
      if (*cur >= end || p->st[*cur].f != g) return 0;
      size_t j = (*cur)++;
      if (!close_item(p, j, cur, end, next_callee(p, s, i + 1, k, expect), depth, out)) return 0;
      continue;
    }
    /* code without records: its callbacks, up to the next call's callee */
    const int one = p->ptr_one && !s[i].mb->callee; /* a pointer's one target, whatever */
    const struct ct_mfunc *next = one ? NULL : next_callee(p, s, i + 1, k, expect);
    const size_t from = *cur,
                 limit = one ? 1 : next || !p->bounded ? SIZE_MAX : s[i].mb->callee ? 0 : 1;
    while (*cur < end && *cur - from < limit && p->st[*cur].f != next &&
           (p->st[*cur].state == IT_DONE || p->st[*cur].state == IT_TAIL)) {
      size_t j = (*cur)++;
      if (p->commit) mark_callback(p, j, s[i].mb);
      if (!close_item(p, j, cur, end, next, depth, out)) return 0; /* a tail call: its callee */
    }
  }
  return 1;
}

/* The topmost item of g below *top (not below lo, at most 64 down) that can be its caller's
 * callee: DONE on top, or open with the items above it its own closing calls' callees. */
static int take_back(struct po *p, const struct ct_mfunc *g, size_t lo, size_t *top,
                     int depth, struct list *out) {
  for (size_t j = *top; j-- > lo && *top - j <= 64;) {
    if (p->st[j].f != g) continue;
    size_t cur = j + 1;
    struct list l = EMPTY;
    if (!close_item(p, j, &cur, *top, NULL, depth, &l) || cur != *top) return 0;
    prepend(p, out, l);
    *top = j;
    return 1;
  }
  return 0;
}

/* Whether the returned invocations just below top (at most 256 looked at) sit on one that
 * waits in a call: open after a non-deferred call, or ended in a tail call. */
static int waits_below(const struct po *p, size_t lo, size_t top) {
  size_t j = top;
  while (j > lo && top - j < 256 && p->st[j - 1].state == IT_DONE) j--;
  if (j == lo || top - j == 256) return 0;
  const struct item *it = &p->st[j - 1];
  return it->state == IT_TAIL || (it->state == IT_OPEN && it->wait);
}

/* Whether item j and every item below it are returned constructors (CT_FN_CTOR): run by the
 * loader before main, none is a callback of main's calls. O(j), only for a constructor. */
static int before_main(const struct po *p, size_t j) {
  if (!p->st[j].f || !(p->st[j].f->flags & CT_FN_CTOR)) return 0;
  for (size_t k = 0; k <= j; k++)
    if (p->st[k].state != IT_DONE || !p->st[k].f || !(p->st[k].f->flags & CT_FN_CTOR)) return 0;
  return 1;
}

/* Whether f is the program's main: the C library calls it, and calls no instrumented code after
 * it returns but the exit handlers, whose calls into code without records must not take it for
 * their callback (an atexit handler's fflush, foreign-returns.c with deferred calls). */
static int is_main(const struct ct_mfunc *f) {
  return f && f->name && !strcmp(f->name, "main");
}

/* Slots s[0..k) matched backwards to the items below *top (not below lo), last call first. */
static int match_back(struct po *p, const struct slot *s, size_t k, size_t lo, size_t *top,
                      int depth, struct list *out) {
  if (depth > MAX_DEPTH) return 0;
  for (size_t i = k; i-- > 0;) {
    const struct ct_mfunc *g = callee(p, &s[i]);
    if (g) {
      struct slots calls;
      slots_init(&calls);
      int quiet = cached(p, &s[i])->quiet;
      if (quiet == 2) callee_silent(p, &s[i], g, &calls);
      int ok = quiet ? match_back(p, calls.v, calls.n, lo, top, depth + 1, out)
                     : take_back(p, g, lo, top, depth, out);
      slots_free(&calls);
      /* With the history's start lost, a call whose callee is not there ran before it: so did
       * the calls before it. */
      if (!ok && p->lost && depth == 0) {
        p->lost_calls = i + 1;
        return 1;
      }
      if (!ok) return 0;
      continue;
    }
    /* Code without records: its callbacks are on top, but so may be the earlier callees of
     * the caller's caller; it takes those of functions no direct call names (a comparator
     * handed to qsort), up to the earlier call's callee. Not those just above an invocation
     * that waits in a call (through a pointer, into code without records, a tail call):
     * they are that call's, made before the caller went on to this one (sed's
     * read_pattern_space calls read_fn through a pointer, then closedown, whose fclose took
     * read_fn's target for its callback). A callback of a call made inside such a call looks
     * the same; this reading is far the commoner. */
    if (waits_below(p, lo, *top)) continue;
    const struct ct_mfunc *prev = prev_callee(p, s, i);
    while (*top > lo && p->st[*top - 1].state == IT_DONE && p->st[*top - 1].f != prev &&
           !directly_called(p, p->st[*top - 1].f) && !before_main(p, *top - 1) &&
           !is_main(p->st[*top - 1].f)) {
      if (p->commit) mark_callback(p, *top - 1, s[i].mb);
      prepend(p, out, p->st[*top - 1].recs);
      --*top;
    }
  }
  return 1;
}

/* The common case of match_fwd and match_back, decided without a dry run: every slot calls a
 * function that writes records, whose item is the next one (forwards: from cur; backwards:
 * below top), returned (forwards also: ended in a tail call through a pointer or into code
 * without records); or (forwards) calls code without records or through a pointer. Such a call
 * (the tail call too) takes the returned invocations on top up to the next call's callee (its
 * callbacks, or the pointer's target), as match_fwd takes them. The new position, or NONE_POS
 * if that is not so. The invocations such calls take are noted in p->marks, for apply_marks to
 * mark as match_fwd marks them once the match is known to hold (a failed match marks nothing). */
#define NONE_POS SIZE_MAX
static size_t simple_fwd(struct po *p, const struct slot *s, size_t k, size_t cur,
                         const struct ct_mfunc *expect) {
  for (size_t i = 0; i < k; i++) {
    const struct ct_mfunc *g = callee(p, &s[i]);
    const struct ct_mblock *call = s[i].mb;
    if (g) {
      if (cached(p, &s[i])->quiet || cur >= p->n || p->st[cur].f != g) return NONE_POS;
      const struct item *it = &p->st[cur++];
      if (it->state == IT_DONE) continue;
      if (it->state != IT_TAIL) return NONE_POS;
      /* ended in a tail call through a pointer or into code without records (SQLite's
       * sqlite3_mutex_enter): that call takes the invocations on top up to the next callee */
      struct slot ts = {it->f, it->wait, it->mod};
      if (callee(p, &ts)) return NONE_POS;
      call = it->wait;
    }
    /* code without records, a call through a pointer, or such a tail call: the invocations on
     * top up to the next call's callee are its callbacks, or the pointer's target */
    const struct ct_mfunc *next = next_callee(p, s, i + 1, k, expect);
    size_t from = cur;
    if (p->ptr_one && !call->callee) return NONE_POS; /* match_fwd's */
    while (cur < p->n && p->st[cur].f != next && p->st[cur].state == IT_DONE) cur++;
    if (cur < p->n && p->st[cur].f != next && p->st[cur].state == IT_TAIL)
      return NONE_POS; /* a tail call's invocation to close: match_fwd's */
    if (cur > from) {
      if (p->nmarks == sizeof p->marks / sizeof p->marks[0]) return NONE_POS;
      p->marks[p->nmarks++] = (struct mark){(uint32_t)from, (uint32_t)cur, call};
    }
  }
  return cur;
}

/* The callback marks simple_fwd noted, applied once its match holds. */
static void apply_marks(struct po *p) {
  for (size_t m = 0; m < p->nmarks; m++)
    for (uint32_t j = p->marks[m].from; j < p->marks[m].to; j++)
      mark_callback(p, j, p->marks[m].call);
  p->nmarks = 0;
}

static size_t simple_back(struct po *p, const struct slot *s, size_t k, size_t top) {
  for (size_t i = k; i-- > 0; top--) {
    const struct ct_mfunc *g = callee(p, &s[i]);
    if (!g || cached(p, &s[i])->quiet || top <= p->floor || p->st[top - 1].f != g ||
        p->st[top - 1].state != IT_DONE)
      return NONE_POS;
  }
  return top;
}

/* Appends the records of items [from, to) to l, in order. */
static void append_items(struct po *p, struct list *l, size_t from, size_t to) {
  for (size_t i = from; i < to; i++) append(p, l, p->st[i].recs);
}

/* Room for one more item on the stack. */
static int reserve(struct po *p) {
  if (p->n < p->cap) return 0;
  size_t cap = p->cap ? p->cap * 2 : 256;
  struct item *ns = realloc(p->st, cap * sizeof *ns);
  if (!ns) return -1;
  p->st = ns;
  p->cap = cap;
  return 0;
}

/* Joins `caller`, ended in a direct tail call, with its callee's returned invocation, and
 * notes the join for split_join. */
static void join_tail(struct po *p, struct item *caller, const struct item *callee) {
  caller->jf = callee->recs.head != NONE && caller->recs.tail != NONE ? callee->f : NULL;
  caller->jmod = callee->mod;
  caller->jown = callee->own;
  caller->jhead = callee->recs.head;
  caller->jtail = caller->recs.tail;
  caller->jwait = caller->wait;
  int c = p->commit;
  p->commit = 1;
  append(p, &caller->recs, callee->recs);
  p->commit = c;
  caller->state = IT_DONE;
  caller->wait = NULL;
}

static int push(struct po *p, struct item it) {
  if (it.state == IT_TAIL) { /* a tail call to a function that never writes nor calls, or to
                                code without records (pthread_mutex_lock): done */
    struct slot ts = {it.f, it.wait, it.mod};
    if (it.wait->callee && (!callee(p, &ts) || cached(p, &ts)->quiet == 1)) {
      it.state = IT_DONE;
      it.wait = NULL;
    }
  }
  if (reserve(p) != 0) return -1;
  p->st[p->n++] = it;
  /* A direct tail call's callee returned: the caller's invocation ends with it (iteratively:
   * is_even and is_odd tail-calling each other 20,000 deep). A call through a pointer's is not
   * joined here, as the item above may be one of the calls the target deferred, not the
   * target: close_item joins them when the caller is taken. */
  while (p->n >= 2 && p->st[p->n - 1].state == IT_DONE && p->st[p->n - 2].state == IT_TAIL) {
    struct item *below = &p->st[p->n - 2];
    struct slot ts = {below->f, below->wait, below->mod};
    const struct ct_mfunc *g = callee(p, &ts);
    if (!g || g != p->st[p->n - 1].f) break;
    join_tail(p, below, &p->st[p->n - 1]);
    p->n--;
  }
  return 0;
}

/* Record r of f walked: its deferred calls into `calls`, its end into *state / *site / *wait.
 * 0 if it does not walk. */
static int walk_record(const struct ct_mfunc *f, uint16_t mod, uint64_t acc, uint32_t *start,
                       struct slots *calls, uint8_t *state, uint32_t *site,
                       const struct ct_mblock **wait) {
  struct ct_walk w;
  int st = ct_walk_start(&w, f, acc);
  *start = w.site;
  for (uint32_t guard = 0; guard < (1u << 26); guard++) {
    if (st == CT_WALK_BLOCK) {
      st = ct_walk_next(&w, 0);
      continue;
    }
    if (st == CT_WALK_DEFER) {
      if (slots_add(calls, f, &f->blocks[w.block], mod) != 0) return 0;
      st = ct_walk_after_defer(&w, 0);
      continue;
    }
    if (st != CT_WALK_END) return 0;
    const struct ct_mblock *mb = &f->blocks[w.block];
    *wait = NULL;
    *state = IT_DONE;
    if ((mb->term == CT_TERM_CALL || mb->term == CT_TERM_INVOKE) && w.end == w.block) {
      *wait = mb;
      if (mb->nsucc == 0) {
        *state = IT_TAIL;
      } else if (f->block_site[mb->succ[0].block] >= 0) {
        *state = IT_OPEN;
        *site = (uint32_t)f->block_site[mb->succ[0].block];
      }
    } else if (mb->term != CT_TERM_RETURN && mb->term != CT_TERM_RESUME &&
               mb->term != CT_TERM_STOP && f->block_site[w.end] >= 0) { /* a check point */
      *state = IT_OPEN;
      *site = (uint32_t)f->block_site[w.end];
    }
    return 1;
  }
  return 0;
}

/* The function at runtime address fn of module mod, NULL if unknown. */
static const struct ct_mfunc *function_at(struct po *p, uint16_t mod, uint64_t fn) {
  struct ct_module *m = &p->mods->mods[mod];
  return m->meta ? ct_meta_find(m->meta, fn - m->bias) : NULL;
}

/* Record (fn, acc) of module mod walked as walk_record walks it, through the walk cache: its
 * function (NULL if unknown) and *ok whether it walks; the rest as walk_record's. */
static const struct ct_mfunc *record_walk(struct po *p, uint64_t fn, uint64_t acc, uint16_t mod,
                                          int *ok, uint32_t *start, struct slots *calls,
                                          uint8_t *state, uint32_t *site,
                                          const struct ct_mblock **wait) {
  uint64_t h = ((fn >> 4) ^ acc ^ ((uint64_t)mod << 48)) * 0x9E3779B97F4A7C15ull;
  struct walk_cache *c = &p->walks[h >> (64 - WALK_CACHE_BITS)];
  if (c->fn != fn || c->acc != acc || c->mod != mod) {
    const struct ct_mfunc *f = function_at(p, mod, fn);
    calls->n = 0;
    uint8_t st = IT_DONE;
    uint32_t at = 0, next = 0;
    const struct ct_mblock *w = NULL;
    int walks = f && walk_record(f, mod, acc, &at, calls, &st, &next, &w);
    /* the calls kept for the cache; when they outgrow it, the cache starts again */
    if (p->nwalk_calls + calls->n > p->walk_calls_cap) {
      memset(p->walks, 0, sizeof *p->walks << WALK_CACHE_BITS);
      p->nwalk_calls = 0;
      if (calls->n > p->walk_calls_cap) {
        size_t cap = calls->n < 65536 ? 65536 : calls->n;
        const struct ct_mblock **nv = realloc(p->walk_calls, cap * sizeof *nv);
        if (!nv) { /* not cached */
          *ok = walks;
          *start = at, *state = st, *site = next, *wait = w;
          return f;
        }
        p->walk_calls = nv;
        p->walk_calls_cap = cap;
      }
    }
    *c = (struct walk_cache){fn, acc, f, mod, (uint8_t)walks, st, at, next, w,
                             (uint32_t)p->nwalk_calls, (uint32_t)calls->n};
    for (size_t i = 0; i < calls->n; i++) p->walk_calls[p->nwalk_calls++] = calls->v[i].mb;
  } else {
    calls->n = 0;
    for (uint32_t i = 0; i < c->ncalls; i++)
      if (slots_add(calls, c->f, p->walk_calls[c->calls + i], c->mod) != 0) {
        *ok = 0;
        return c->f;
      }
  }
  *ok = c->ok;
  *start = c->start, *state = c->state, *site = c->site, *wait = c->wait;
  return c->f;
}

/* Record r continues item j (open, of its function): the calls before it (the call j waits in,
 * the elided flushes' calls from j's site to `start`) and its own deferred calls take the items
 * above j, forwards. Tried dry, then committed. */
static int continue_item(struct po *p, size_t j, size_t r, uint32_t start,
                         const struct slots *calls, struct slots *pre) {
  struct item *it = &p->st[j];
  pre->n = 0;
  if (it->wait && slots_add(pre, it->f, it->wait, it->mod) != 0) return 0;
  /* most records start where the last one ended: no call to make for an empty chain */
  if (it->site != start && !chain_slots(it->f, it->mod, it->site, start, p->stamping, pre))
    return 0;
  const struct ct_mfunc *first = next_callee(p, calls->v, 0, calls->n, NULL);
  p->nmarks = 0;
  size_t mid = pre->n ? simple_fwd(p, pre->v, pre->n, j + 1, first) : j + 1;
  if (mid != NONE_POS &&
      (calls->n ? simple_fwd(p, calls->v, calls->n, mid, NULL) : mid) == p->n) {
    /* most records: nothing to match, or returned callees in call order on top */
    apply_marks(p);
    p->commit = 1;
    append_items(p, &it->recs, j + 1, mid);
    p->next[r] = NONE;
    append(p, &it->recs, (struct list){(uint32_t)r, (uint32_t)r});
    append_items(p, &it->recs, mid, p->n);
    p->n = j + 1;
    return 1;
  }
  for (int commit = 0; commit < 2; commit++) {
    p->commit = commit;
    size_t cur = j + 1;
    struct list before = EMPTY, after = EMPTY;
    if (!match_fwd(p, pre->v, pre->n, &cur, p->n, first, 0, &before) ||
        !match_fwd(p, calls->v, calls->n, &cur, p->n, NULL, 0, &after) || cur != p->n)
      return 0;
    if (commit) {
      append(p, &it->recs, before);
      p->next[r] = NONE;
      append(p, &it->recs, (struct list){(uint32_t)r, (uint32_t)r});
      append(p, &it->recs, after);
      p->n = j + 1;
    }
  }
  return 1;
}

/* Record r starts a new invocation of f (at its entry, the elided flushes' calls from there to
 * `start` before it; or where the history starts inside f): its calls take the items on top. */
static int new_item(struct po *p, const struct ct_mfunc *f, uint16_t mod, size_t r,
                    uint32_t start, const struct slots *calls, struct slots *pre,
                    struct item *it) {
  pre->n = 0;
  if (start != 0 && !chain_slots(f, mod, 0, start, p->stamping, pre)) pre->n = 0; /* inside f */
  size_t mid = calls->n ? simple_back(p, calls->v, calls->n, p->n) : p->n;
  size_t low = mid == NONE_POS ? NONE_POS : pre->n ? simple_back(p, pre->v, pre->n, mid) : mid;
  if (low != NONE_POS) { /* most records: nothing to match, or returned callees on top */
    p->commit = 1;
    ct_po_set_aux(p->src, p->recs, r, 0);
    it->recs = EMPTY;
    append_items(p, &it->recs, low, mid);
    p->next[r] = NONE;
    append(p, &it->recs, (struct list){(uint32_t)r, (uint32_t)r});
    append_items(p, &it->recs, mid, p->n);
    p->n = low;
    return 1;
  }
  for (int commit = 0; commit < 2; commit++) {
    p->commit = commit;
    size_t top = p->n, lost;
    struct list before = EMPTY, after = EMPTY;
    p->lost_calls = 0;
    if (!match_back(p, calls->v, calls->n, p->floor, &top, 0, &after)) return 0;
    lost = p->lost_calls;
    if (!lost && !match_back(p, pre->v, pre->n, p->floor, &top, 0, &before)) return 0;
    if (commit) {
      ct_po_set_aux(p->src, p->recs, r, (uint32_t)lost);
      it->recs = EMPTY;
      append(p, &it->recs, before);
      p->next[r] = NONE;
      append(p, &it->recs, (struct list){(uint32_t)r, (uint32_t)r});
      append(p, &it->recs, after);
      p->n = top;
    }
  }
  return 1;
}

/* Items [from, to) were discarded by a longjmp, each open one waiting in a call: where that call
 * went through a pointer or into code without records, the item above it is the invocation it
 * made, as match_fwd marks a returned call's (the model would otherwise take it for a call the
 * caller made after that one returned). */
static void mark_discarded(struct po *p, size_t from, size_t to) {
  for (size_t k = from; k + 1 < to; k++) {
    const struct item *it = &p->st[k];
    if (it->state == IT_DONE || !it->wait) continue;
    struct slot ws = {it->f, it->wait, it->mod};
    if (!callee(p, &ws)) mark_callback(p, k + 1, it->wait);
  }
}

/* The topmost item, which a record just continued, ends where that record's walk ended (*it's
 * state, site and call): a returned one is pushed again, since a tail call below may be waiting
 * for it. 1, or -1 out of memory. */
static int end_top(struct po *p, const struct item *it) {
  struct item *o = &p->st[p->n - 1];
  if (it->state == IT_DONE) {
    struct item done = *o;
    done.state = it->state;
    done.wait = it->wait;
    p->n--;
    return push(p, done) != 0 ? -1 : 1;
  }
  o->state = it->state;
  o->site = it->site;
  o->wait = it->wait;
  return 1;
}

/* Record r of f starts where a call that returns twice returns (a setjmp, again after a
 * longjmp): it continues f's newest invocation that has not returned, whatever call it waits
 * in, and the items above it are what that call ran before the longjmp discarded it (with the
 * deferred calls' frames it wrote at the longjmp, CT_PO_ABANDON). 1 if placed, 0 if f has no
 * such invocation near the top, -1 out of memory. */
static int place_resume(struct po *p, const struct ct_mfunc *f, size_t r, struct item *it) {
  for (size_t j = p->n; j-- > p->floor && p->n - j <= 4096;) {
    struct item *o = &p->st[j];
    if (o->f != f || o->state == IT_DONE) continue;
    p->commit = 1;
    mark_discarded(p, j, p->n);
    append_items(p, &o->recs, j + 1, p->n);
    p->next[r] = NONE;
    append(p, &o->recs, (struct list){(uint32_t)r, (uint32_t)r});
    p->n = j + 1;
    struct item end = *it;
    if (end.state == IT_DONE) end.wait = NULL; /* returned: it waits in no call */
    return end_top(p, &end);
  }
  return 0;
}

/* Record r of f, walked (start, calls; its end in *it), placed: continuing an open item of f
 * it fits, else as a new invocation. 1 if placed (and pushed), 0 if it fits nowhere, with
 * nothing changed; -1 out of memory. */
static int place_record_as(struct po *p, const struct ct_mfunc *f, size_t r, uint32_t start,
                           const struct slots *calls, struct slots *pre, struct item *it) {
  if (start != 0)
    for (size_t j = p->n; j-- > p->floor;) {
      struct item *o = &p->st[j];
      if (o->f != f || o->state != IT_OPEN) continue;
      int ok = continue_item(p, j, r, start, calls, pre);
      if (!ok && !p->ptr_one) { /* before taking it for a new invocation inside f */
        p->ptr_one = 1;
        ok = continue_item(p, j, r, start, calls, pre);
        p->ptr_one = 0;
      }
      if (!ok) continue;
      p->commit = 1;
      return end_top(p, it); /* continue_item left j on top */
    }
  if (!new_item(p, f, it->mod, r, start, calls, pre, it)) return 0;
  p->commit = 1;
  return push(p, *it) != 0 ? -1 : 1;
}

static int place_record(struct po *p, const struct ct_mfunc *f, size_t r, uint32_t start,
                        const struct slots *calls, struct slots *pre, struct item *it) {
  int placed = place_record_as(p, f, r, start, calls, pre, it);
  if (placed == 0) { /* a pointer call's target of the next call's function too */
    p->ptr_one = 1;
    placed = place_record_as(p, f, r, start, calls, pre, it);
    p->ptr_one = 0;
  }
  return placed;
}

/* The two shapes most records have (seven in ten of SQLite's), placed as place_record places
 * them without its general matching: a record without deferred calls that starts at its
 * function's entry (new_item with nothing to take: a new invocation on top), or that continues
 * the topmost item where it waits, at a check point with no call since (continue_item with
 * nothing to match). 1 if placed, 0 if r has neither shape (nothing changed), -1 out of
 * memory. Not for a site where a setjmp returns: place_resume decides those. */
static int place_simple(struct po *p, const struct ct_mfunc *f, size_t r, uint32_t start,
                        const struct slots *calls, struct item *it) {
  if (calls->n) return 0;
  if (start == 0) { /* it->recs is r alone, p->next[r] NONE, aux 0: as new_item leaves them */
    p->commit = 1;
    return push(p, *it) != 0 ? -1 : 1;
  }
  if (p->n <= p->floor) return 0;
  struct item *o = &p->st[p->n - 1];
  if (o->f != f || o->state != IT_OPEN || o->site != start || o->wait ||
      (p->nresumes && is_resume_site(p, f, start)))
    return 0;
  p->commit = 1;
  append(p, &o->recs, (struct list){(uint32_t)r, (uint32_t)r});
  return end_top(p, it);
}

/* Undoes item k's last tail-call join: the callee's invocation goes back on the stack above
 * its caller, which waits in the tail call again. push joins a direct tail call's caller
 * with the first returned invocation of the callee it meets, but in a recursion that may be
 * an inner invocation a later record's deferred call takes (sqlite3ExprDelete tail-calling
 * sqlite3ExprDeleteNN, which defers exprListDeleteNN, which defers sqlite3ExprDeleteNN). */
static int split_join(struct po *p, size_t k) {
  if (p->st[k].state != IT_DONE || !p->st[k].jf || reserve(p) != 0) return 0;
  struct item *it = &p->st[k];
  struct item callee = {.f = it->jf, .mod = it->jmod, .state = IT_DONE,
                        .recs = {it->jhead, it->recs.tail}, .own = it->jown};
  it->recs.tail = it->jtail;
  it->state = IT_TAIL;
  it->wait = it->jwait;
  it->jf = NULL;
  memmove(&p->st[k + 2], &p->st[k + 1], (p->n - k - 1) * sizeof *p->st);
  p->st[k + 1] = callee;
  p->n++;
  return 1;
}

/* split_join(k) undone. */
static void rejoin(struct po *p, size_t k) {
  join_tail(p, &p->st[k], &p->st[k + 1]);
  memmove(&p->st[k + 1], &p->st[k + 2], (p->n - k - 2) * sizeof *p->st);
  p->n--;
}

/* A frame's unfinished path (a ct_po_rec with a stop): the deferred calls it passed before the
 * one it is in, into `calls`. 0 if it does not reach that call. */
static int walk_partial(const struct ct_mfunc *f, uint16_t mod, uint64_t acc, uint32_t stop_at,
                        int innermost, uint32_t *start, struct slots *calls,
                        const struct ct_mblock **stop) {
  struct ct_walk w;
  int st = ct_walk_start(&w, f, acc);
  uint32_t blocks = 0;
  *start = w.site;
  for (uint32_t guard = 0; guard < (1u << 26); guard++) {
    if (st == CT_WALK_BLOCK) {
      blocks++;
      st = ct_walk_next(&w, 1);
      continue;
    }
    if (st != CT_WALK_DEFER) return 0;
    if (blocks == stop_at) { /* the innermost frame's call there returned: its callee's too */
      *stop = &f->blocks[w.block];
      return !innermost || slots_add(calls, f, &f->blocks[w.block], mod) == 0;
    }
    if (slots_add(calls, f, &f->blocks[w.block], mod) != 0) return 0;
    st = ct_walk_after_defer(&w, 1);
  }
  return 0;
}

/* A frame that a longjmp discarded while it was in a deferred call (CT_PO_ABANDON, its stop in
 * aux): its path up to that call is a record that ends there. The invocation the call made,
 * and every item above it (the frames inside it, discarded too, and what they called), are
 * that call's: they go after the record, whatever their state (an invocation waiting in the
 * longjmp never returned). The record itself, with its other calls, is placed as any record
 * (continuing an open item of f, else a new invocation) on the stack below them, and its item
 * is closed. 1 if placed; 0 (nothing changed) if it fits nowhere; -1 out of memory. */
static int place_abandoned(struct po *p, size_t r, struct slots *calls, struct slots *pre) {
  const struct ct_rec rr = ct_po_get(p->src, &p->recs[r]);
  const uint16_t mod = p->recs[r].mod;
  const struct ct_mfunc *f = function_at(p, mod, rr.fn);
  const struct ct_mblock *stop = NULL;
  uint32_t start = 0;
  calls->n = 0;
  const uint32_t at = ct_po_aux(p->src, p->recs, r);
  if (!f || !at || !walk_partial(f, mod, rr.acc, at, 1, &start, calls, &stop) || !calls->n)
    return 0;
  struct slot in = calls->v[--calls->n]; /* the call it was in */
  const struct ct_mfunc *g = callee(p, &in);
  size_t sub = p->n; /* the discarded invocation's item: the topmost of g, not far down */
  for (size_t j = p->n; g && j-- > p->floor && p->n - j <= 64;)
    if (p->st[j].f == g) {
      sub = j;
      break;
    }
  /* a call into code without records (raise, whose signal handler called siglongjmp): its
   * callbacks, the items on top of functions no direct call names, as match_back takes them */
  while (!g && sub > p->floor && !directly_called(p, p->st[sub - 1].f) && !before_main(p, sub - 1))
    sub--;
  size_t nsub = p->n - sub;
  /* marked as that call's callbacks, then each as the invocation of the open item below it
   * where that one waits in a call through a pointer or into code without records; kept if the
   * record is not placed (its items are those calls' either way) */
  for (size_t j = sub; !g && j < p->n; j++) mark_callback(p, j, in.mb);
  if (nsub) mark_discarded(p, sub, p->n);
  struct item *above = nsub ? malloc(nsub * sizeof *above) : NULL;
  if (nsub && !above) return -1;
  if (nsub) memcpy(above, &p->st[sub], nsub * sizeof *above);
  p->n = sub;
  struct item it = {.f = f, .mod = mod, .state = IT_DONE, .recs = {(uint32_t)r, (uint32_t)r},
                    .own = (uint32_t)r};
  int placed = place_record(p, f, r, start, calls, pre, &it);
  if (placed == 0) { /* as it was: a record that fits nowhere leaves the stack alone */
    if (nsub) memcpy(&p->st[sub], above, nsub * sizeof *above);
    p->n = sub + nsub;
  } else if (placed > 0) {
    struct item *top = &p->st[p->n - 1];
    p->commit = 1;
    for (size_t i = 0; i < nsub; i++) append(p, &top->recs, above[i].recs);
    top->state = IT_DONE;
    top->wait = NULL;
  }
  free(above);
  return placed;
}

/* Frame f's pieces matched forwards from *c: the non-deferred call its open item j waited in
 * (j NONE: none), the elided flushes' calls (chain) into before, its deferred calls into
 * after; each part's callbacks (or pointer targets) end where the next part's calls begin,
 * and the item of the function it is in a call of (next_in, if not NULL) comes next. Dry or
 * committed as p->commit says. */
static int frame_match(struct po *p, size_t j, const struct ct_mfunc *f, uint16_t mod,
                       const struct slots *chain, const struct slots *calls,
                       const struct ct_mfunc *next_in, size_t *c, struct list *before,
                       struct list *after) {
  const struct ct_mfunc *after_chain = next_callee(p, calls->v, 0, calls->n, next_in);
  const struct ct_mfunc *after_wait = next_callee(p, chain->v, 0, chain->n, after_chain);
  if (j != NONE && p->st[j].wait) {
    struct slot w = {f, p->st[j].wait, mod};
    if (!match_fwd(p, &w, 1, c, p->n, after_wait, 0, before)) return 0;
  }
  return match_fwd(p, chain->v, chain->n, c, p->n, after_chain, 0, before) &&
         match_fwd(p, calls->v, calls->n, c, p->n, next_in, 0, after) &&
         (!next_in || (*c < p->n && p->st[*c].f == next_in));
}

/* The frames on the crashed thread's stack that were suspended in deferred calls (recs[from..n),
 * outermost first): each takes, from `*anchor` on, its open item (or a new one) and the items
 * its deferred calls since its last record made, and stays there; the frames inside it come
 * after. */
static int place_frames(struct po *p, struct ct_po_rec *recs, size_t from, size_t n,
                        struct slots *calls, size_t *anchor) {
  for (size_t r = from; r < n; r++) {
    p->next[r] = NONE;
    const struct ct_mfunc *caller = p->src->frame_callers[recs[r].ref];
    const struct ct_rec fr = ct_po_get(p->src, &recs[r]);
    const struct ct_mfunc *f = function_at(p, recs[r].mod, fr.fn);
    uint32_t start = 0;
    calls->n = 0;
    const struct ct_mblock *stop = NULL;
    const int innermost = (recs[r].flags & CT_PO_INNERMOST) != 0;
    if (!f || !walk_partial(f, recs[r].mod, fr.acc, ct_po_aux(p->src, recs, r), innermost, &start,
                            calls, &stop)) {
      p->mismatches++;
      continue; /* the model is not given it */
    }
    /* The call it is in entered a function that writes no record and left the stack by a tail
     * call (check tail-calling inspect at -O2): the calls that function made before it, on
     * its branch-free walk, are this frame's too. (Still on the stack, as at -O0, it is the
     * next frame inwards, with its own unfinished path.) */
    const size_t own_calls = calls->n; /* its own deferred calls, before any below added */
    struct slot ss = {f, stop, recs[r].mod};
    if (!innermost && stop->callee && cached(p, &ss)->quiet == 2 &&
        (r + 1 == n ||
         function_at(p, recs[r + 1].mod, ct_po_get(p->src, &recs[r + 1]).fn) != callee(p, &ss))) {
      const struct ct_mfunc *g = callee(p, &ss);
      struct slots more;
      slots_init(&more);
      callee_silent(p, &ss, g, &more);
      size_t keep = more.n && more.v[more.n - 1].mb->nsucc == 0 &&
                            (more.v[more.n - 1].mb->term == CT_TERM_CALL) ? more.n - 1 : more.n;
      for (size_t i = 0; i < keep; i++) slots_add(calls, more.v[i].f, more.v[i].mb, more.v[i].mod);
      slots_free(&more);
    }
    /* its open item: waiting at its start, or reaching it through elided flushes (their calls
     * in `chain`) */
    size_t j = NONE;
    struct slots chain;
    slots_init(&chain);
    for (size_t k = p->n; k-- > *anchor && j == NONE;)
      if (p->st[k].f == f && p->st[k].state == IT_OPEN &&
          (p->st[k].site == start || (chain.n = 0, chain_slots(f, recs[r].mod, p->st[k].site,
                                                                start, p->stamping, &chain))))
        j = k;
    /* else a new one, above an invocation of its caller on the stack waiting in a call that
     * may lead to f: of f (main in its call of the noreturn usage, which a noreturn call's
     * flush wrote) or through a pointer (gawk's main calling r_interpret; not a call into code
     * without records, which may have returned long before: a signal handler's abort); or
     * above an invocation that ended in such a tail call and left the stack (gawk's
     * after_beginfile tail-calling r_fatal). The nearest such invocation whose items above
     * match the frame's calls: those nearer may be the frames inside's (gawk's err and
     * final_exit, under r_fatal inside r_interpret); failing all, the anchor. Only the
     * caller's: another function's invocation waiting in a pointer call is no place for it
     * (gawk's do_printf, called by r_interpret, went above format_tree's, and format_tree's
     * frame then found its own invocation below the anchor). */
    size_t bases[10], nbases = 0;
    if (j == NONE) {
      chain.n = 0;
      for (size_t k = p->n; k-- > *anchor && nbases < 8;) {
        const struct item *o = &p->st[k];
        if (!o->wait || !((o->state == IT_OPEN && o->f == caller) || o->state == IT_TAIL))
          continue;
        struct slot ws = {o->f, o->wait, o->mod};
        const struct ct_mfunc *g = callee(p, &ws);
        if (g == f || (!g && !o->wait->callee)) bases[nbases++] = k + 1;
      }
    }
    /* above the constructors at the bottom, which ran before main (xzdec's main above
     * liblzma's crc64_set_func; main's first call, into code without records, would take them
     * for its callbacks), then at the anchor */
    size_t above_ctors = *anchor;
    while (j == NONE && above_ctors < p->n && before_main(p, above_ctors)) above_ctors++;
    if (above_ctors > *anchor) bases[nbases++] = above_ctors;
    bases[nbases++] = j != NONE ? j + 1 : *anchor;
    p->bounded = r + 1 < n; /* frames inside it follow */
    /* the function it is in a call of, if that one wrote a record (gawk's r_fatal in err):
     * its item comes next where a base allows (it may have written none yet) */
    const struct ct_mfunc *next_in = NULL;
    if (!innermost && stop->callee && cached(p, &ss)->quiet == 0 &&
        (r + 1 == n ||
         function_at(p, recs[r + 1].mod, ct_po_get(p->src, &recs[r + 1]).fn) != callee(p, &ss)))
      next_in = callee(p, &ss);
    p->commit = 0;
    size_t b = 0, c = 0;
    struct list before = EMPTY, after = EMPTY;
    int ok = 0;
    /* With the history's start lost, a new invocation's first calls may have callees whose
     * records are gone (Lua's pmain, stopped by a dump signal deep in a script, its setup
     * calls long overwritten): the fewest such calls that let the rest match are taken as
     * lost, as new_item takes a record's, and the model walks past them (frame_lost). The
     * innermost frame's last call returned just now: never lost; nor the calls of the silent
     * function a frame is in, added below (the model walks past the frame's own alone). */
    const size_t most_lost = j != NONE || !p->lost ? 0
                             : innermost && own_calls ? own_calls - 1
                                                      : own_calls;
    const struct ct_mfunc *const next_in_first = next_in;
    size_t lost = 0;
    struct slots rest = *calls;
    for (; lost <= most_lost && !ok; lost++) {
      rest.v = calls->v + lost;
      rest.n = calls->n - lost;
      next_in = next_in_first;
      for (int pass = 0; pass < 2 && !ok; pass++) { /* next_in's item next if any base has it */
        if (pass) next_in = NULL;
        for (b = 0; b < nbases && !ok; b++) {
          c = bases[b];
          ok = frame_match(p, j, f, recs[r].mod, &chain, &rest, next_in, &c, &before, &after);
        }
      }
    }
    b--;
    if (ok) {
      p->commit = 1;
      c = bases[b];
      p->src->frame_lost[recs[r].ref] = (uint32_t)(lost - 1);
      frame_match(p, j, f, recs[r].mod, &chain, &rest, next_in, &c, &before, &after); /* as tried */
      struct item it = j != NONE ? p->st[j]
                                 : (struct item){.f = f, .mod = recs[r].mod, .state = IT_FROZEN,
                                                 .site = start, .recs = EMPTY, .own = (uint32_t)r};
      append(p, &it.recs, before);
      append(p, &it.recs, (struct list){(uint32_t)r, (uint32_t)r});
      append(p, &it.recs, after);
      it.state = IT_FROZEN;
      it.wait = innermost ? NULL : stop; /* the call it is in (frozen_callbacks) */
      /* the items it took go; it sits where they began, the rest above it */
      size_t at = j != NONE ? j : bases[b], rest = p->n - c;
      if (reserve(p) != 0) {
        slots_free(&chain);
        return -1;
      }
      memmove(&p->st[at + 1], &p->st[c], rest * sizeof *p->st);
      p->st[at] = it;
      p->n = at + 1 + rest;
      *anchor = at + 1;
    }
    p->bounded = 0;
    slots_free(&chain);
    if (!ok) p->mismatches++;
  }
  return 0;
}

/* A frame on the stack that is in a call into code without records (qsort): the invocations
 * above it, up to the next such frame, that no direct call names are that call's callbacks
 * (the comparator's returned calls), as match_fwd would mark them had the call returned. */
static void frozen_callbacks(struct po *p) {
  for (size_t i = 0; i < p->n; i++) {
    const struct item *fz = &p->st[i];
    if (fz->state != IT_FROZEN || !fz->wait) continue;
    struct slot s = {fz->f, fz->wait, fz->mod};
    if (callee(p, &s)) continue; /* a call of a function with records: its own item */
    for (size_t j = i + 1; j < p->n && p->st[j].state != IT_FROZEN; j++)
      if (!directly_called(p, p->st[j].f))
        mark_callback(p, j, fz->wait);
  }
}

int ct_postorder(struct ct_modset *mods, const struct ct_po_src *src, struct ct_po_rec *recs,
                 size_t n, size_t nframes, uint32_t *next, uint32_t *head, size_t *mismatches,
                 size_t *unclosed) {
  *head = NONE;
  if (n >= NONE) return -1;
  struct po p = {.mods = mods, .next = next, .commit = 1, .src = src, .recs = recs};
  p.lost = n && (recs[0].flags & CT_PO_GAP);
  struct slots calls, pre;
  slots_init(&calls);
  slots_init(&pre);
  int rc = -1;
  if (unclosed) *unclosed = 0;
  if (!(p.cache = calloc(1u << CACHE_BITS, sizeof *p.cache)) ||
      !(p.walks = calloc(1u << WALK_CACHE_BITS, sizeof *p.walks)) ||
      build_called(&p) != 0 || build_resumes(&p) != 0)
    goto out;
  for (size_t r = 0; r + nframes < n; r++) {
    p.next[r] = NONE;
    recs[r].callback = 0;
    if (!p.stamping && (recs[r].flags & CT_PO_STAMPED)) {
      p.stamping = 1;
      memset(p.cache, 0, (1u << CACHE_BITS) * sizeof *p.cache); /* the callees' silence */
    }
    if (recs[r].flags & CT_PO_TOPLEVEL) p.floor = p.n; /* an exit handler starts */
    if (recs[r].flags & CT_PO_ABANDON) {
      int placed = ct_po_aux(src, recs, r) ? place_abandoned(&p, r, &calls, &pre)
                                           : 1; /* 0: in no deferred call, left out */
      if (placed < 0) goto out;
      if (!placed) p.mismatches++;
      continue;
    }
    struct item it = {.mod = recs[r].mod, .state = IT_DONE, .recs = {(uint32_t)r, (uint32_t)r},
                      .own = (uint32_t)r};
    uint32_t start = 0;
    int walks = 0;
    uint64_t fn, acc;
    ct_po_key(src, &recs[r], &fn, &acc);
    const struct ct_mfunc *f = it.f = record_walk(&p, fn, acc, recs[r].mod, &walks, &start,
                                                  &calls, &it.state, &it.site, &it.wait);
    if (!walks) {
      p.mismatches++; /* the model reports it */
      p.commit = 1;
      if (push(&p, it) != 0) goto out;
      continue;
    }
    /* Where it fits nowhere, a tail-call join near the top may have taken an invocation
     * this record's calls want: undone one at a time, the nearest first. */
    int placed = place_simple(&p, f, r, start, &calls, &it);
    if (!placed && p.nresumes && start && !calls.n && is_resume_site(&p, f, start))
      placed = place_resume(&p, f, r, &it);
    if (!placed) placed = place_record(&p, f, r, start, &calls, &pre, &it);
    for (size_t k = p.n; placed == 0 && k-- > p.floor && p.n - k <= 16;) {
      if (!split_join(&p, k)) continue;
      placed = place_record(&p, f, r, start, &calls, &pre, &it);
      if (placed == 0) rejoin(&p, k);
    }
    if (placed < 0) goto out;
    if (!placed) {
      p.mismatches++;
      it.recs = (struct list){(uint32_t)r, (uint32_t)r};
      p.commit = 1;
      if (push(&p, it) != 0) goto out;
    }
  }
  /* From the bottom, not the floor: an exit handler ran inside exit(), which frames still on
   * the stack may have called (sed's bad_prog), and those frames' open items are below it. */
  size_t anchor = 0;
  if (place_frames(&p, recs, n - nframes, n, &calls, &anchor) != 0) goto out;
  frozen_callbacks(&p);
  /* The history's end: an open invocation whose last piece wrote nothing (an elided return,
   * or it is still running there) goes out before the items above it that its calls take. */
  for (size_t j = p.n; j-- > anchor;) {
    if (p.st[j].state == IT_DONE) continue;
    int ok = 1;
    for (int commit = 0; commit < 2 && ok; commit++) {
      p.commit = commit;
      size_t cur = j + 1;
      struct list l = EMPTY;
      ok = close_item(&p, j, &cur, p.n, NULL, 0, &l) && cur == p.n;
      if (ok && commit) {
        p.st[j].recs = l;
        p.st[j].state = IT_DONE;
        p.n = j + 1;
      }
    }
    if (!ok) {
      if (unclosed) *unclosed = p.n - j - 1;
      break;
    }
  }
  /* The items' lists, bottom first, joined into one. */
  p.commit = 1;
  struct list all = EMPTY;
  append_items(&p, &all, 0, p.n);
  if (all.head != NONE) p.next[all.tail] = NONE;
  *head = all.head;
  rc = 0;
  if (mismatches) *mismatches = p.mismatches;
out:
  free(p.st);
  free(p.called);
  free(p.resumes);
  free(p.cache);
  free(p.walks);
  free(p.walk_calls);
  slots_free(&calls);
  slots_free(&pre);
  return rc;
}

/* Invariant at step i: recs[0..i) hold the first i listed records; every record not yet placed
 * that was at position j < i was moved once or more, each move to a higher position, and
 * next[j] is its forwarding address (following them from a record's old position up to the
 * first one >= i finds it). A forwarding address always points up; a step that would follow
 * one down (a list that revisits a record) ends the list. */
size_t ct_po_arrange(const struct ct_po_src *src, struct ct_po_rec *recs, size_t n,
                     uint32_t *next, uint32_t head) {
  uint32_t p = head;
  size_t i = 0;
  for (; i < n && p != NONE && p < n; i++) {
    while (p < i) {
      const uint32_t fwd = next[p];
      if (fwd <= p || fwd >= n) return i; /* not a forwarding address: the list is broken */
      p = fwd;
    }
    const uint32_t succ = next[p];
    if (p != i) {
      const struct ct_po_rec displaced = recs[i];
      if ((displaced.flags | recs[p].flags) & CT_PO_AUX) {
        const uint32_t a = src->aux[i];
        src->aux[i] = src->aux[p];
        src->aux[p] = a;
      }
      recs[i] = recs[p];
      recs[p] = displaced;
      next[p] = next[i]; /* the displaced record's successor goes with it */
      next[i] = p;
    }
    p = succ;
  }
  return i;
}
