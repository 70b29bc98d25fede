/*
 * intern.c - string, inline-frame and location tables (intern.h).
 *
 * Each table is an array of entries plus a ct_hindex: linear probing over a power-of-two slot
 * array kept at most half full, the entry's 64-bit hash stored beside it so growing never
 * rehashes content. Lookups compare content only on equal hashes. A report of a million steps
 * has a few thousand locations at most, so every step costs one hash and one probe or two.
 */
#include "intern.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 0x100000001b3ull; /* FNV-1a */
  return h;
}
#define HASH_SEED 0xcbf29ce484222325ull

typedef int (*entry_eq)(const struct ct_intern *in, uint32_t idx, const void *key);

/* The entry number equal to key (by eq), or -1 with *slot set to where it would go. */
static int64_t hindex_find(const struct ct_hindex *x, uint64_t h, entry_eq eq,
                           const struct ct_intern *in, const void *key, size_t *slot) {
  if (!x->cap) return *slot = 0, -1;
  for (size_t i = h & (x->cap - 1);; i = (i + 1) & (x->cap - 1)) {
    uint32_t v = x->slots[i];
    if (!v) return *slot = i, -1;
    if (x->hashes[v - 1] == h && eq(in, v - 1, key)) return v - 1;
  }
}

/* Records entry number x->n (the next one) with hash h, growing the index when it is half
 * full (then `slot` is recomputed). 0, or -1 when out of memory. */
static int hindex_add(struct ct_hindex *x, uint64_t h, size_t slot) {
  if (x->n == x->hcap) {
    size_t cap = x->hcap ? x->hcap * 2 : 64;
    uint64_t *nh = realloc(x->hashes, cap * sizeof *nh);
    if (!nh) return -1;
    x->hashes = nh;
    x->hcap = cap;
  }
  x->hashes[x->n] = h;
  if (2 * (x->n + 1) > x->cap) {
    size_t cap = x->cap ? x->cap * 2 : 128;
    uint32_t *ns = calloc(cap, sizeof *ns);
    if (!ns) return -1;
    for (size_t e = 0; e <= x->n; e++) {
      size_t i = x->hashes[e] & (cap - 1);
      while (ns[i]) i = (i + 1) & (cap - 1);
      ns[i] = (uint32_t)e + 1;
    }
    free(x->slots);
    x->slots = ns;
    x->cap = cap;
    x->n++;
    return 0;
  }
  x->slots[slot] = (uint32_t)++x->n;
  return 0;
}

static int grow(void **arr, size_t *cap, size_t n, size_t size) {
  if (n < *cap) return 0;
  size_t nc = *cap ? *cap * 2 : 64;
  void *na = realloc(*arr, nc * size);
  if (!na) return -1;
  *arr = na;
  *cap = nc;
  return 0;
}

static int str_eq(const struct ct_intern *in, uint32_t idx, const void *key) {
  return !strcmp(in->strs[idx], key);
}

int32_t ct_intern_str(struct ct_intern *in, const char *s) {
  size_t slot;
  if (!s) return -1;
  size_t len = strlen(s);
  uint64_t h = hash_bytes(HASH_SEED, s, len);
  int64_t found = hindex_find(&in->str_index, h, str_eq, in, s, &slot);
  if (found >= 0) return (int32_t)found;
  if (grow((void **)&in->strs, &in->capstrs, in->nstrs, sizeof *in->strs) != 0) return -2;
  char *copy = malloc(len + 1);
  if (!copy || hindex_add(&in->str_index, h, slot) != 0) return free(copy), -2;
  memcpy(copy, s, len + 1);
  in->strs[in->nstrs] = copy;
  return (int32_t)in->nstrs++;
}

static int inl_eq(const struct ct_intern *in, uint32_t idx, const void *key) {
  return in->inls[idx].frame == key;
}

int32_t ct_intern_inline(struct ct_intern *in, const struct ct_inline_frame *f) {
  size_t slot;
  if (!f) return -1;
  uint64_t h = hash_bytes(HASH_SEED, &f, sizeof f);
  int64_t found = hindex_find(&in->inl_index, h, inl_eq, in, f, &slot);
  if (found >= 0) return (int32_t)found;
  struct ct_iinline e = {f, ct_intern_str(in, f->function), ct_intern_str(in, f->call_file),
                         (int32_t)f->call_line, (int32_t)f->call_col, ct_intern_inline(in, f->parent)};
  if (e.function == -2 || e.call_file == -2 || e.parent == -2) return -2;
  /* the parent's entry may have moved the slot: look again */
  hindex_find(&in->inl_index, h, inl_eq, in, f, &slot);
  if (grow((void **)&in->inls, &in->capinls, in->ninls, sizeof *in->inls) != 0 ||
      hindex_add(&in->inl_index, h, slot) != 0)
    return -2;
  in->inls[in->ninls] = e;
  return (int32_t)in->ninls++;
}

static int loc_eq(const struct ct_intern *in, uint32_t idx, const void *key) {
  return !memcmp(&in->locs[idx], key, sizeof(struct ct_iloc));
}

int32_t ct_intern_step(struct ct_intern *in, const struct ct_step *s) {
  size_t slot;
  struct ct_iloc l = {ct_intern_str(in, s->function), ct_intern_str(in, s->file), (int32_t)s->line,
                      (int32_t)s->col, s->module, ct_intern_inline(in, s->inl), -1};
  if (l.inl >= 0) l.outer = ct_intern_str(in, s->outer);
  if (l.function == -2 || l.file == -2 || l.inl == -2 || l.outer == -2) return -2;
  uint64_t h = hash_bytes(HASH_SEED, &l, sizeof l);
  int64_t found = hindex_find(&in->loc_index, h, loc_eq, in, &l, &slot);
  if (found >= 0) return in->loc_uses[found]++, (int32_t)found;
  size_t cap = in->caplocs;
  if (grow((void **)&in->locs, &in->caplocs, in->nlocs, sizeof *in->locs) != 0) return -2;
  if (cap != in->caplocs) { /* keep loc_uses the same size as locs */
    uint64_t *nu = realloc(in->loc_uses, in->caplocs * sizeof *nu);
    if (!nu) return in->caplocs = cap, -2;
    in->loc_uses = nu;
  }
  if (hindex_add(&in->loc_index, h, slot) != 0) return -2;
  in->locs[in->nlocs] = l;
  in->loc_uses[in->nlocs] = 1;
  return (int32_t)in->nlocs++;
}

static void hindex_free(struct ct_hindex *x) {
  free(x->slots);
  free(x->hashes);
}

void ct_intern_free(struct ct_intern *in) {
  for (size_t i = 0; i < in->nstrs; i++) free(in->strs[i]);
  free(in->strs);
  free(in->locs);
  free(in->loc_uses);
  free(in->inls);
  hindex_free(&in->str_index);
  hindex_free(&in->loc_index);
  hindex_free(&in->inl_index);
  memset(in, 0, sizeof *in);
}
