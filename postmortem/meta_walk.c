/*
 * meta_walk.c - the decoder's packed view of each function's blocks (struct ct_wblock).
 *
 * Decoding visits every block of the history (tens of millions for a 64 MB dump), so what
 * the walk and the step count read of a block is packed into 32 bytes: its successors for a
 * jump or a one-bit branch, its check-point threshold, how many steps its lines make, and
 * its first and last lines as merge keys. Keys are interned: two lines get the same key if
 * and only if the timeline would merge them (same file, line and innermost function - the
 * comparison ct_tl_add_step makes), so the count compares one pointer instead of three
 * fields in another cache line. Multi-way branches get a lookup table indexed by their
 * longest code's width of bits.
 *
 * Built per function when the decoder first asks for it (ct_meta_ready): a history reaches a
 * fraction of a program's functions, and building them all was a tenth of a small decode.
 *
 * Also per site, where its zero-bit walk ends (the decoder's call-stack model asks it for every
 * record): at an elided flush (CT_BB_ELIDE), or UINT32_MAX when a branch needs bits, a check
 * point fires or a flush is written first.
 *
 * Invariants: succ[] of JUMP and BIT blocks are valid block numbers (meta_reader checked
 * every successor); a block's step count equals the steps ct_tl_add_step makes of its lines
 * on their own.
 */
#include <stdlib.h>
#include <string.h>

#include "crashtrail/abi.h"
#include "meta_reader.h"

/* Interning (file, line, function) -> the first line seen with them; one per module's metadata,
 * filled as functions are made ready. */
struct ct_walk_keys {
  const struct ct_mline **slot;
  size_t cap, n;
};

static size_t key_hash(const struct ct_mline *l) {
  uint64_t h = (uint64_t)(uintptr_t)l->file * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t)(uintptr_t)l->function * 0xC2B2AE3D27D4EB4Full;
  h ^= l->line * 0x165667B19E3779F9ull;
  return (size_t)(h ^ (h >> 29));
}

static int same_key(const struct ct_mline *a, const struct ct_mline *b) {
  return a->line == b->line && a->file == b->file && a->function == b->function;
}

static const void *intern(struct ct_walk_keys *t, const struct ct_mline *l) {
  if (2 * (t->n + 1) > t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 1024;
    const struct ct_mline **ns = calloc(cap, sizeof *ns);
    if (!ns) return NULL;
    for (size_t i = 0; i < t->cap; i++)
      if (t->slot[i]) {
        size_t h = key_hash(t->slot[i]) & (cap - 1);
        while (ns[h]) h = (h + 1) & (cap - 1);
        ns[h] = t->slot[i];
      }
    free(t->slot);
    t->slot = ns;
    t->cap = cap;
  }
  size_t h = key_hash(l) & (t->cap - 1);
  for (; t->slot[h]; h = (h + 1) & (t->cap - 1))
    if (same_key(t->slot[h], l)) return t->slot[h];
  t->n++;
  return t->slot[h] = l;
}

/* Codes are prefix-free, so no entry is filled twice; wider than 16 bits (or a malformed
 * set), succ[] is searched instead. */
static int build_code_table(struct ct_arena *a, struct ct_mblock *b) {
  uint32_t bits = 0;
  for (uint32_t i = 0; i < b->nsucc; i++)
    if (b->succ[i].len > bits) bits = b->succ[i].len;
  if (bits == 0 || bits > 16) return 0;
  uint32_t *t = ct_arena_alloc(a, (sizeof *t) << bits);
  if (!t) return -1;
  memset(t, 0xff, (sizeof *t) << bits);
  for (uint32_t i = 0; i < b->nsucc; i++) {
    uint32_t shift = bits - b->succ[i].len;
    uint64_t from = b->succ[i].code << shift;
    for (uint64_t k = from; k < from + (1ull << shift); k++) {
      if (t[k] != UINT32_MAX) return 0;
      t[k] = i;
    }
  }
  b->code_table = t;
  b->table_bits = bits;
  return 0;
}

static int is_bit_branch(const struct ct_mblock *b) {
  return b->nsucc == 2 && b->succ[0].len == 1 && b->succ[1].len == 1 &&
         b->succ[0].code + b->succ[1].code == 1;
}

static int build_function(struct ct_arena *a, struct ct_walk_keys *keys, struct ct_mfunc *f) {
  if (!(f->wb = ct_arena_alloc(a, f->nblocks * sizeof *f->wb))) return -1;
  for (uint32_t i = 0; i < f->nblocks; i++) {
    struct ct_mblock *b = &f->blocks[i];
    struct ct_wblock *w = &f->wb[i];
    uint32_t kind = CT_WB_END, steps = 0;
    w->succ[0] = w->succ[1] = UINT32_MAX;
    if (b->term == CT_TERM_JUMP) {
      kind = CT_WB_JUMP;
      w->succ[0] = b->succ[0].block;
    } else if (b->term == CT_TERM_BRANCH && is_bit_branch(b)) {
      kind = CT_WB_BIT;
      w->succ[b->succ[0].code] = b->succ[0].block;
      w->succ[b->succ[1].code] = b->succ[1].block;
    } else if (b->term == CT_TERM_BRANCH) {
      kind = CT_WB_CODES;
      if (build_code_table(a, b) != 0) return -1;
    }
    /* flushed when site_bits + used >= CT_ACC_BITS - budget */
    uint32_t limit = CT_ACC_BITS - b->budget;
    w->flush_used = !(b->flags & CT_BB_CHECK) ? UINT32_MAX
                    : limit > f->site_bits     ? limit - f->site_bits
                                               : 0;
    for (uint32_t k = 0; k < b->nlines; k++)
      steps += k == 0 || !same_key(&b->lines[k - 1], &b->lines[k]);
    if (steps >> (32 - CT_WB_LINE_SHIFT)) return -1; /* cannot be: lines are bytes of a section */
    w->info = kind | (b->flags & CT_BB_LOOP ? CT_WB_LOOP : 0) | steps << CT_WB_LINE_SHIFT;
    w->first_key = w->last_key = NULL;
    if (b->nlines) {
      w->first_key = intern(keys, &b->lines[0]);
      w->last_key = intern(keys, &b->lines[b->nlines - 1]);
      if (!w->first_key || !w->last_key) return -1;
    }
  }
  return 0;
}

static uint32_t zero_walk_end(const struct ct_mfunc *f, uint32_t site) {
  uint32_t b = f->site_block[site];
  for (uint32_t n = 0; n <= f->nblocks; n++) {
    const struct ct_mblock *mb = &f->blocks[b];
    if (mb->term == CT_TERM_JUMP || mb->term == CT_TERM_DEFER) { /* a deferred call: no flush */
      b = mb->succ[0].block;
      if (f->wb[b].flush_used == 0) return UINT32_MAX; /* a check point fires on entry */
      continue;
    }
    /* A carried function's return writes nothing (its path goes on in its caller's record),
     * whatever its flag says: a record with bits can start before it */
    if (mb->term == CT_TERM_RETURN && (f->flags & CT_FN_FLOW)) return UINT32_MAX;
    return mb->term == CT_TERM_BRANCH || !(mb->flags & CT_BB_ELIDE) ? UINT32_MAX : b;
  }
  return UINT32_MAX; /* a loop without branches */
}

int ct_meta_walk_function(struct ct_meta *m, struct ct_mfunc *f) {
  if (!m->walk_keys && !(m->walk_keys = calloc(1, sizeof *m->walk_keys))) return -1;
  if (build_function(&m->arena, m->walk_keys, f) != 0 ||
      !(f->site_elided = ct_arena_alloc(&m->arena, f->nsites * sizeof *f->site_elided))) {
    f->wb = NULL; /* not ready: ct_walk_start refuses it */
    return -1;
  }
  for (uint32_t s = 0; s < f->nsites; s++) f->site_elided[s] = zero_walk_end(f, s);
  return 0;
}

void ct_meta_walk_free(struct ct_meta *m) {
  if (!m->walk_keys) return;
  free(m->walk_keys->slot);
  free(m->walk_keys);
  m->walk_keys = NULL;
}
