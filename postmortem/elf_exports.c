/*
 * elf_exports.c - an ELF file's functions by the names its symbol tables give them: what a
 * call to that name binds to.
 *
 * The metadata names each function as the compiler saw it; a library may export it under
 * another name, set only at link time (GNU symbol versions: xz's `lzma_cputhreads` is defined
 * as `lzma_cputhreads_52` and exported by `.symver` as lzma_cputhreads@@XZ_5.2 and
 * lzma_cputhreads@XZ_5.2.2; glibc's aliases; an alias another unit of the same module calls).
 * From .dynsym, what the dynamic linker binds another module's call by: every defined global
 * or weak function (or GNU indirect function), its version's bit 15 in .gnu.version marking a
 * hidden one (a `name@VERSION` kept for old binaries). From .symtab, what the static linker
 * bound a call inside the module by: every defined function, `name@@VERSION` taken as name's
 * default version and `name@VERSION` as a hidden one, locals after globals. Sorted by name, the
 * default version before a hidden one, globals before locals, then by address, so a lookup
 * does not depend on the table's order.
 *
 * Invariants: names point into the mapped file (the ct_elf must outlive the index); a name's
 * bounds were checked against its string table at load; `len` is its length up to any '@'.
 */
#include "elf_exports.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "elf_file.h"

struct export {
  const char *name;
  size_t len;   /* the name's length before any "@VERSION" */
  uint64_t addr;
  int hidden;   /* a non-default version */
  int local;    /* STB_LOCAL (.symtab only) */
};

struct ct_exports {
  struct export *v;
  size_t n;
};

/* Names compared up to their versions: a before b (< 0), equal (0) or after (> 0). */
static int key_cmp(const char *a, size_t alen, const char *b, size_t blen) {
  int c = memcmp(a, b, alen < blen ? alen : blen);
  return c ? c : (alen > blen) - (alen < blen);
}

static int export_cmp(const void *a, const void *b) {
  const struct export *x = a, *y = b;
  int c = key_cmp(x->name, x->len, y->name, y->len);
  if (c) return c;
  if (x->hidden != y->hidden) return x->hidden - y->hidden;
  if (x->local != y->local) return x->local - y->local;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The index of the section called name, or 0. */
static size_t section_index(const struct ct_elf *e, const char *name) {
  const Elf64_Shdr *sh;
  size_t n = ct_elf_sections(e, &sh);
  for (size_t i = 1; i < n; i++)
    if (!strcmp(ct_elf_section_name(e, i), name)) return i;
  return 0;
}

int ct_exports_load(const struct ct_elf *e, int dynamic, struct ct_exports **out) {
  *out = NULL;
  struct ct_exports *x = calloc(1, sizeof *x);
  if (!x) return -1;
  *out = x;
  const Elf64_Shdr *sh;
  size_t nsh = ct_elf_sections(e, &sh), ds = section_index(e, dynamic ? ".dynsym" : ".symtab");
  if (!ds || sh[ds].sh_entsize != sizeof(Elf64_Sym) || sh[ds].sh_link >= nsh) return 0;
  const Elf64_Sym *sym = (const Elf64_Sym *)ct_elf_section_bytes(e, ds);
  const char *str = (const char *)ct_elf_section_bytes(e, sh[ds].sh_link);
  if (!sym || !str) return 0;
  size_t nsym = sh[ds].sh_size / sizeof *sym, strsz = sh[sh[ds].sh_link].sh_size;
  size_t vs = dynamic ? section_index(e, ".gnu.version") : 0;
  const uint16_t *ver = vs && sh[vs].sh_size >= nsym * sizeof(uint16_t)
                            ? (const uint16_t *)ct_elf_section_bytes(e, vs)
                            : NULL;
  if (!(x->v = calloc(nsym ? nsym : 1, sizeof *x->v))) {
    ct_exports_free(x);
    *out = NULL;
    return -1;
  }
  for (size_t i = 1; i < nsym; i++) {
    const Elf64_Sym *s = &sym[i];
    int type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s->st_shndx == SHN_UNDEF ||
        (dynamic && bind != STB_GLOBAL && bind != STB_WEAK) || !s->st_value ||
        s->st_name >= strsz)
      continue;
    const char *name = str + s->st_name, *end = memchr(name, 0, strsz - s->st_name);
    if (!end || end == name) continue;
    const char *at = memchr(name, '@', (size_t)(end - name));
    size_t len = at ? (size_t)(at - name) : (size_t)(end - name);
    if (!len) continue; /* "@VERSION" alone names nothing */
    int hidden = ver ? (ver[i] & 0x8000) != 0 : at && at[1] != '@';
    x->v[x->n++] = (struct export){name, len, s->st_value, hidden, bind == STB_LOCAL};
  }
  qsort(x->v, x->n, sizeof *x->v, export_cmp);
  return 0;
}

uint64_t ct_exports_find(const struct ct_exports *x, const char *name) {
  if (!x || !name) return 0;
  size_t lo = 0, hi = x->n, len = strlen(name);
  while (lo < hi) { /* the first entry not below name: its default version, if it has one */
    size_t mid = lo + (hi - lo) / 2;
    if (key_cmp(x->v[mid].name, x->v[mid].len, name, len) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo < x->n && !key_cmp(x->v[lo].name, x->v[lo].len, name, len) ? x->v[lo].addr : 0;
}

size_t ct_exports_count(const struct ct_exports *x) { return x ? x->n : 0; }

void ct_exports_free(struct ct_exports *x) {
  if (!x) return;
  free(x->v);
  free(x);
}
