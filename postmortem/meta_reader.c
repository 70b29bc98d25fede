/*
 * meta_reader.c - parse the .debug_crashtrail section (unit format in crashtrail/abi.h).
 *
 * Units are parsed one after another with a cursor bounded by the unit's own size, so a
 * corrupt unit cannot read into the next. Every index read from the data (string ids, block
 * numbers, inline frames, sites) is checked against what the unit declared before use; the
 * decoder can then follow successors without checks of its own.
 */
#include "meta_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crashtrail/abi.h"
#include "cursor.h"

struct unit_ctx {
  struct ct_meta *m;
  const char **strings;
  uint32_t nstrings;
  struct ct_inline_frame *inlines;
  uint32_t ninlines;
  uint64_t table_addr;
  uint32_t table_entries;
};

static const char *str_at(struct unit_ctx *u, struct ct_cur *c) {
  uint64_t id = ct_cur_uleb(c);
  if (id >= u->nstrings) {
    c->ok = 0;
    return "";
  }
  return u->strings[id];
}

static int read_strings(struct unit_ctx *u, struct ct_cur *c) {
  uint64_t n = ct_cur_uleb(c);
  if (!c->ok || n > ct_cur_left(c)) return -1;
  u->strings = calloc(n ? n : 1, sizeof *u->strings);
  if (!u->strings) return -1;
  u->nstrings = (uint32_t)n;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t len = ct_cur_uleb(c);
    const uint8_t *p = ct_cur_need(c, (size_t)len);
    if (!p) return -1;
    u->strings[i] = ct_arena_strndup(&u->m->arena, (const char *)p, (size_t)len);
    if (!u->strings[i]) return -1;
  }
  return 0;
}

static int read_inlines(struct unit_ctx *u, struct ct_cur *c) {
  uint64_t n = ct_cur_uleb(c);
  if (!c->ok || n > ct_cur_left(c)) return -1;
  u->inlines = ct_arena_alloc(&u->m->arena, (n ? n : 1) * sizeof *u->inlines);
  if (!u->inlines) return -1;
  for (uint64_t i = 0; i < n; i++) {
    struct ct_inline_frame *f = &u->inlines[i];
    uint64_t parent = ct_cur_uleb(c);
    if (parent > i) return -1; /* parents are written before their children */
    f->parent = parent ? &u->inlines[parent - 1] : NULL;
    f->function = str_at(u, c);
    f->call_file = str_at(u, c);
    f->call_line = (uint32_t)ct_cur_uleb(c);
    f->call_col = (uint32_t)ct_cur_uleb(c);
  }
  u->ninlines = (uint32_t)n;
  u->m->ninline += n;
  return c->ok ? 0 : -1;
}

static int read_terminator(struct unit_ctx *u, struct ct_cur *c, struct ct_mblock *b) {
  struct ct_arena *a = &u->m->arena;
  uint64_t callee;
  b->term = (uint32_t)ct_cur_uleb(c);
  switch (b->term) {
  case CT_TERM_RETURN: case CT_TERM_RESUME: case CT_TERM_STOP:
    return 0;
  case CT_TERM_JUMP:
    b->nsucc = 1;
    b->succ = ct_arena_alloc(a, sizeof *b->succ);
    if (!b->succ) return -1;
    b->succ[0].block = (uint32_t)ct_cur_uleb(c);
    return 0;
  case CT_TERM_BRANCH:
    b->nsucc = (uint32_t)ct_cur_uleb(c);
    if (b->nsucc < 2 || b->nsucc > ct_cur_left(c)) return -1;
    b->succ = ct_arena_alloc(a, b->nsucc * sizeof *b->succ);
    if (!b->succ) return -1;
    for (uint32_t i = 0; i < b->nsucc; i++) {
      b->succ[i].block = (uint32_t)ct_cur_uleb(c);
      b->succ[i].len = (uint32_t)ct_cur_uleb(c);
      b->succ[i].code = ct_cur_uleb(c);
      if (b->succ[i].len == 0 || b->succ[i].len > 63 || b->succ[i].code >> b->succ[i].len)
        return -1;
    }
    return 0;
  case CT_TERM_CALL:
  case CT_TERM_INVOKE:
  case CT_TERM_FLOW:
  case CT_TERM_DEFER:
    callee = ct_cur_uleb(c);
    if (callee > u->nstrings) return -1;
    b->callee = callee ? u->strings[callee - 1] : NULL;
    b->nsucc = b->term == CT_TERM_INVOKE ? 2 : 1;
    b->succ = ct_arena_alloc(a, 2 * sizeof *b->succ);
    if (!b->succ) return -1;
    for (uint32_t i = 0; i < b->nsucc; i++) b->succ[i].block = (uint32_t)ct_cur_uleb(c);
    if (b->term == CT_TERM_CALL && b->succ[0].block == 0) b->nsucc = 0; /* tail call */
    if ((b->term == CT_TERM_FLOW || b->term == CT_TERM_DEFER) &&
        (!b->callee || b->succ[0].block == 0))
      return -1;
    return 0;
  default:
    return -1;
  }
}

static int read_block(struct unit_ctx *u, struct ct_cur *c, struct ct_mblock *b) {
  b->flags = (uint32_t)ct_cur_uleb(c);
  if (b->flags & CT_BB_CHECK) {
    b->budget = (uint32_t)ct_cur_uleb(c);
    if (b->budget > CT_ACC_BITS) return -1;
  }
  if (b->flags & CT_BB_TABLE) {
    uint64_t e = ct_cur_uleb(c);
    /* The unit's table address is 0 in an object file (a relocation fills it in). */
    if (e >= u->table_entries) return -1;
    b->table_addr = u->table_addr + e * 16;
  }
  if (read_terminator(u, c, b) != 0) return -1;
  b->nlines = (uint32_t)ct_cur_uleb(c);
  if (b->nlines > ct_cur_left(c)) return -1;
  b->lines = ct_arena_alloc(&u->m->arena, (b->nlines ? b->nlines : 1) * sizeof *b->lines);
  if (!b->lines) return -1;
  for (uint32_t i = 0; i < b->nlines; i++) {
    struct ct_mline *l = &b->lines[i];
    l->file = str_at(u, c);
    l->line = (uint32_t)ct_cur_uleb(c);
    l->col = (uint32_t)ct_cur_uleb(c);
    uint64_t inl = ct_cur_uleb(c);
    if (inl > u->ninlines) return -1;
    l->inl = inl ? &u->inlines[inl - 1] : NULL;
  }
  return c->ok ? 0 : -1;
}

static int read_function(struct unit_ctx *u, struct ct_cur *c, struct ct_mfunc *f) {
  struct ct_arena *a = &u->m->arena;
  f->addr = ct_cur_u64(c);
  f->name = str_at(u, c);
  f->display = str_at(u, c);
  f->file = str_at(u, c);
  f->line = (uint32_t)ct_cur_uleb(c);
  f->flags = (uint32_t)ct_cur_uleb(c) & ~CT_FN_FLOW_ANY;
  if (f->flags & CT_FN_FLOW) f->flags |= CT_FN_FLOW_ANY;
  f->site_bits = (uint32_t)ct_cur_uleb(c);
  f->nsites = (uint32_t)ct_cur_uleb(c);
  if (!c->ok || f->site_bits > 24 || f->nsites == 0 || f->nsites > ct_cur_left(c) ||
      f->nsites > (1u << f->site_bits))
    return -1;
  f->site_block = ct_arena_alloc(a, f->nsites * sizeof *f->site_block);
  f->site_kind = ct_arena_alloc(a, f->nsites * sizeof *f->site_kind);
  if (!f->site_block || !f->site_kind) return -1;
  for (uint32_t i = 0; i < f->nsites; i++) {
    f->site_block[i] = (uint32_t)ct_cur_uleb(c);
    f->site_kind[i] = (uint32_t)ct_cur_uleb(c);
  }
  f->nblocks = (uint32_t)ct_cur_uleb(c);
  if (!c->ok || f->nblocks == 0 || f->nblocks > ct_cur_left(c)) return -1;
  f->blocks = ct_arena_alloc(a, f->nblocks * sizeof *f->blocks);
  if (!f->blocks) return -1;
  for (uint32_t i = 0; i < f->nblocks; i++) {
    struct ct_mblock *b = &f->blocks[i];
    if (read_block(u, c, b) != 0) return -1;
    if (b->term == CT_TERM_FLOW) f->flags |= CT_FN_FLOW_ANY;
    if (!(f->flags & CT_FN_LOOP_FLAGS) && (b->flags & CT_BB_CHECK)) b->flags |= CT_BB_LOOP;
    for (uint32_t k = 0; k < b->nlines; k++)
      b->lines[k].function = b->lines[k].inl ? b->lines[k].inl->function : f->display;
  }
  f->block_site = ct_arena_alloc(a, f->nblocks * sizeof *f->block_site);
  if (!f->block_site) return -1;
  for (uint32_t i = 0; i < f->nblocks; i++) f->block_site[i] = -1;
  for (uint32_t i = 0; i < f->nsites; i++) {
    if (f->site_block[i] >= f->nblocks || f->block_site[f->site_block[i]] >= 0) return -1;
    f->block_site[f->site_block[i]] = (int32_t)i;
  }
  for (uint32_t i = 0; i < f->nblocks; i++)
    for (uint32_t s = 0; s < f->blocks[i].nsucc; s++)
      if (f->blocks[i].succ[s].block >= f->nblocks) return -1;
  return 0;
}

/* One unit at the cursor; appends its functions to m. 0, or -1 if it is corrupt. */
static int read_unit(struct ct_meta *m, struct ct_cur *all, size_t *cap, int keep) {
  struct unit_ctx u = {m, NULL, 0, NULL, 0, 0, 0};
  struct ct_cur h = *all;
  uint32_t magic = ct_cur_u32(&h), version = ct_cur_u16(&h);
  (void)ct_cur_u16(&h);
  uint32_t size = ct_cur_u32(&h);
  int rc = -1;
  /* Version 1 differs only in never eliding a flush, which version 2 readers understand. */
  if (!h.ok || magic != CT_META_MAGIC || version < 1 || version > CT_META_VERSION ||
      size < CT_META_HEADER_BYTES ||
      size > ct_cur_left(all))
    return -1;
  struct ct_cur c = ct_cur_make(ct_cur_need(all, size), size);
  (void)ct_cur_need(&c, 16); /* magic, version, flags, size, reserved: checked above */
  u.table_addr = ct_cur_u64(&c);
  u.table_entries = ct_cur_u32(&c);
  uint32_t nfunc = ct_cur_u32(&c);
  if (read_strings(&u, &c) != 0 || read_inlines(&u, &c) != 0 || nfunc > ct_cur_left(&c)) goto out;
  if (m->nfuncs + nfunc > *cap) {
    size_t ncap = (*cap ? *cap * 2 : 256) + nfunc;
    struct ct_mfunc *nf = realloc(m->funcs, ncap * sizeof *nf);
    if (!nf) goto out;
    m->funcs = nf;
    *cap = ncap;
  }
  for (uint32_t i = 0; i < nfunc; i++) {
    struct ct_mfunc *f = &m->funcs[m->nfuncs];
    memset(f, 0, sizeof *f);
    if (read_function(&u, &c, f) != 0) goto out;
    f->unit = (uint32_t)m->nunits;
    /* Linkers write 0, -1 or -2 (lld's tombstones) for discarded functions. */
    if (keep || (f->addr != 0 && f->addr < UINT64_MAX - 1)) m->nfuncs++;
  }
  m->nunits++;
  rc = c.ok ? 0 : -1;
out:
  free(u.strings);
  return rc;
}

static uint64_t hash_addr(uint64_t a) { return (a * 0x9E3779B97F4A7C15ull) >> 17; }

uint64_t ct_meta_hash_name(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static int build_name_index(struct ct_meta *m) {
  size_t cap = 16;
  while (cap < m->nfuncs * 2) cap *= 2;
  m->name_head = calloc(cap, sizeof *m->name_head);
  m->name_next = calloc(m->nfuncs ? m->nfuncs : 1, sizeof *m->name_next);
  if (!m->name_head || !m->name_next) return -1;
  m->name_cap = cap;
  for (size_t i = m->nfuncs; i-- > 0;) { /* chains in function order */
    size_t h = ct_meta_hash_name(m->funcs[i].name) & (cap - 1);
    while (m->name_head[h] && strcmp(m->funcs[m->name_head[h] - 1].name, m->funcs[i].name) != 0)
      h = (h + 1) & (cap - 1);
    m->name_next[i] = m->name_head[h];
    m->name_head[h] = (uint32_t)i + 1;
  }
  return 0;
}

const struct ct_mfunc *ct_meta_resolve(const struct ct_meta *m, const char *name, uint32_t unit) {
  if (!m->name_cap || !name) return NULL;
  size_t h = ct_meta_hash_name(name) & (m->name_cap - 1);
  while (m->name_head[h] && strcmp(m->funcs[m->name_head[h] - 1].name, name) != 0)
    h = (h + 1) & (m->name_cap - 1);
  const struct ct_mfunc *external = NULL;
  for (uint32_t i = m->name_head[h]; i; i = m->name_next[i - 1]) {
    const struct ct_mfunc *f = &m->funcs[i - 1];
    if (f->unit == unit) return ct_meta_ready(m, f);
    if (!(f->flags & CT_FN_LOCAL) && !external) external = f;
  }
  return external ? ct_meta_ready(m, external) : NULL;
}

static int build_index(struct ct_meta *m) {
  size_t cap = 16;
  while (cap < m->nfuncs * 2) cap *= 2;
  m->index_keys = calloc(cap, sizeof *m->index_keys);
  m->index_vals = calloc(cap, sizeof *m->index_vals);
  if (!m->index_keys || !m->index_vals) return -1;
  m->index_cap = cap;
  for (size_t i = 0; i < m->nfuncs; i++) {
    size_t h = hash_addr(m->funcs[i].addr) & (cap - 1);
    while (m->index_keys[h] && m->index_keys[h] != m->funcs[i].addr) h = (h + 1) & (cap - 1);
    m->index_keys[h] = m->funcs[i].addr;
    m->index_vals[h] = (uint32_t)i;
  }
  return 0;
}

int ct_meta_load(const void *sec, size_t len, int keep_unlinked, struct ct_meta **out, char *err,
                 size_t errlen) {
  return ct_meta_load_refined(sec, len, keep_unlinked, out, err, errlen, NULL, NULL);
}

int ct_meta_load_refined(const void *sec, size_t len, int keep_unlinked, struct ct_meta **out,
                         char *err, size_t errlen,
                         int (*refine)(struct ct_meta *, struct ct_mfunc *, void *), void *arg) {
  struct ct_meta *m = calloc(1, sizeof *m);
  struct ct_cur all = ct_cur_make(sec, len);
  size_t cap = 0;
  *out = NULL;
  if (!m) return snprintf(err, errlen, "out of memory"), -1;
  while (ct_cur_left(&all) >= CT_META_HEADER_BYTES) {
    if (read_unit(m, &all, &cap, keep_unlinked) != 0) {
      snprintf(err, errlen, "corrupt crashtrail metadata (unit %zu at byte %zu)", m->nunits + 1,
               len - ct_cur_left(&all));
      ct_meta_free(m);
      return -1;
    }
    /* The linker may pad between units to their alignment. */
    while (ct_cur_left(&all) && *all.p == 0) all.p++;
  }
  m->refine = refine;
  m->refine_arg = arg;
  if (build_index(m) != 0 || build_name_index(m) != 0) {
    ct_meta_free(m);
    return snprintf(err, errlen, "out of memory"), -1;
  }
  *out = m;
  return 0;
}

void ct_meta_free(struct ct_meta *m) {
  if (!m) return;
  ct_meta_walk_free(m);
  ct_arena_free(&m->arena);
  free(m->funcs);
  free(m->index_keys);
  free(m->index_vals);
  free(m->name_head);
  free(m->name_next);
  free(m);
}

const struct ct_mfunc *ct_meta_ready(const struct ct_meta *cm, const struct ct_mfunc *cf) {
  /* Preparing is a cache fill: the metadata is heap memory the loader owns, never const. */
  struct ct_meta *m = (struct ct_meta *)cm;
  struct ct_mfunc *f = (struct ct_mfunc *)cf;
  if (f->ready) return f->ready > 0 ? f : NULL;
  f->ready = -1;
  if ((m->refine && m->refine(m, f, m->refine_arg) != 0) || ct_meta_walk_function(m, f) != 0)
    return NULL;
  f->ready = 1;
  return f;
}

int ct_meta_build_walk(struct ct_meta *m) {
  for (size_t i = 0; i < m->nfuncs; i++)
    if (!ct_meta_ready(m, &m->funcs[i])) return -1;
  return 0;
}

const struct ct_mfunc *ct_meta_find(const struct ct_meta *m, uint64_t addr) {
  if (!m->index_cap || !addr) return NULL;
  size_t h = hash_addr(addr) & (m->index_cap - 1);
  while (m->index_keys[h]) {
    if (m->index_keys[h] == addr) return ct_meta_ready(m, &m->funcs[m->index_vals[h]]);
    h = (h + 1) & (m->index_cap - 1);
  }
  return NULL;
}
