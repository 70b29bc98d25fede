/*
 * exec_tables.c - the last- and first-execution traces (WO 00/46678's last/first instruction
 * traces): every block that ever ran, once, in order of when it last ran and of when it first
 * ran, from the per-module tables the instrumented code keeps in tables mode.
 *
 * Table times are CLOCK_MONOTONIC in units of 2^CT_NOW_SHIFT ns, rounded down to 2^grain units
 * once the process ran a second thread (the TABLE section's grain); blocks with the same time are
 * ordered by function and block, so the traces are exact to the table's resolution only
 * (table_resolution_ns, the coarsest module's). The ring, when it still holds them, gives the
 * exact order.
 */
#include <stdlib.h>
#include <string.h>

#include "crashtrail/abi.h"
#include "timeline.h"

struct hit {
  uint64_t time;
  const struct ct_mfunc *f;
  uint32_t block;
  uint16_t module;
};

static int hit_cmp(const void *a, const void *b) {
  const struct hit *x = a, *y = b;
  if (x->time != y->time) return x->time < y->time ? -1 : 1;
  if (x->f != y->f) return x->f->addr < y->f->addr ? -1 : 1;
  return x->block < y->block ? -1 : x->block > y->block;
}

/* The dumped table entry (last, first) of a block, or 0 if the block has none. */
static int entry_of(const struct ct_dump_table *tab, const struct ct_module *m,
                    const struct ct_mblock *b, uint64_t out[2]) {
  if (!(b->flags & CT_BB_TABLE)) return 0;
  uint64_t runtime = b->table_addr + m->bias;
  if (runtime < tab->hdr.start || runtime - tab->hdr.start + 16 > tab->len) return 0;
  memcpy(out, tab->data + (runtime - tab->hdr.start), 16);
  return 1;
}

static int emit(struct ct_timeline *t, struct hit *h, size_t n, struct ct_exec_entry **out,
                size_t *nout) {
  size_t cap = 0, k = 0;
  struct ct_exec_entry *e = NULL;
  for (size_t i = 0; i < n; i++) {
    const struct ct_mblock *b = &h[i].f->blocks[h[i].block];
    for (uint32_t l = 0; l < b->nlines; l++) {
      const struct ct_mline *ml = &b->lines[l];
      const char *fn = ml->inl ? ml->inl->function : h[i].f->display;
      if (k && e[k - 1].line == ml->line && e[k - 1].file == ml->file && e[k - 1].function == fn)
        continue;
      if (k == cap) {
        cap = cap ? cap * 2 : 256;
        struct ct_exec_entry *ne = realloc(e, cap * sizeof *ne);
        if (!ne) {
          free(e);
          return -1;
        }
        e = ne;
      }
      e[k++] = (struct ct_exec_entry){fn, ml->file, ml->line, h[i].module,
                                      h[i].time << CT_NOW_SHIFT};
    }
  }
  (void)t;
  *out = e;
  *nout = k;
  return 0;
}

/* Every block's entry, ran or not, as dumped (keep_blocks only). */
static int keep_ref(struct ct_timeline *t, size_t *cap, const struct ct_mfunc *f, uint32_t block,
                    uint16_t module, const uint64_t ent[2]) {
  if (t->ntable_refs == *cap) {
    size_t ncap = *cap ? *cap * 2 : 1024;
    struct ct_table_ref *nr = realloc(t->table_refs, ncap * sizeof *nr);
    if (!nr) return -1;
    t->table_refs = nr;
    *cap = ncap;
  }
  t->table_refs[t->ntable_refs++] = (struct ct_table_ref){{f->addr, block, module}, ent[0], ent[1]};
  return 0;
}

int ct_timeline_exec_tables(struct ct_timeline *t) {
  struct hit *last = NULL, *first = NULL;
  size_t n = 0, cap = 0, refs_cap = 0;
  int rc = -1;
  for (size_t ti = 0; ti < t->dump->ntables; ti++) {
    const struct ct_dump_table *tab = &t->dump->tables[ti];
    struct ct_module *m = ct_modules_by_dump_id(t->mods, tab->hdr.module_id);
    if (!m || !m->meta) continue;
    uint64_t res = (uint64_t)1 << (CT_NOW_SHIFT + (tab->hdr.grain < 24 ? tab->hdr.grain : 24));
    if (res > t->table_resolution_ns) t->table_resolution_ns = res;
    for (size_t fi = 0; fi < m->meta->nfuncs; fi++) {
      const struct ct_mfunc *f = &m->meta->funcs[fi];
      for (uint32_t bi = 0; bi < f->nblocks; bi++) {
        uint64_t ent[2];
        uint16_t mi = (uint16_t)(m - t->mods->mods);
        if (!entry_of(tab, m, &f->blocks[bi], ent)) continue;
        if (!ct_meta_ready(m->meta, f)) goto out; /* its lines in machine order, once */
        if (t->keep_blocks && keep_ref(t, &refs_cap, f, bi, mi, ent) != 0) goto out;
        if (ent[0] == 0) continue;
        if (n == cap) {
          cap = cap ? cap * 2 : 1024;
          struct hit *nl = realloc(last, cap * sizeof *nl), *nf;
          if (!nl) goto out;
          last = nl;
          nf = realloc(first, cap * sizeof *nf);
          if (!nf) goto out;
          first = nf;
        }
        last[n] = (struct hit){ent[0], f, bi, mi};
        first[n] = (struct hit){ent[1] ? ent[1] : ent[0], f, bi, mi};
        n++;
      }
    }
  }
  if (n) {
    qsort(last, n, sizeof *last, hit_cmp);
    qsort(first, n, sizeof *first, hit_cmp);
  }
  if (emit(t, last, n, &t->last_exec, &t->nlast) == 0 &&
      emit(t, first, n, &t->first_exec, &t->nfirst) == 0)
    rc = 0;
out:
  free(last);
  free(first);
  return rc;
}
