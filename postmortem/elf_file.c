/*
 * elf_file.c - just enough ELF64 to find sections, build-ids, debug links and symbols.
 *
 * The file is mapped read-only. Headers are validated once at open (section header table
 * inside the file, section name table inside the file); afterwards a section's data is
 * returned only if its range lies inside the file, so no later read can leave the mapping.
 */
/* O_CLOEXEC, strdup */
#define _POSIX_C_SOURCE 200809L

#include "elf_file.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

struct ct_sym {
  uint64_t start, size;
  const char *name;
  int local; /* STB_LOCAL */
};

struct ct_inflated { /* a SHF_COMPRESSED section, decompressed once */
  const Elf64_Shdr *sh;
  unsigned char *data;
  size_t len;
};

struct ct_elf {
  char *path;
  struct ct_inflated *inflated;
  size_t ninflated;
  const uint8_t *map;
  size_t size;
  const Elf64_Ehdr *eh;
  const Elf64_Shdr *sh;
  size_t nsh;
  const char *shstr;
  size_t shstr_len;
  struct ct_sym *syms;
  size_t nsyms;
  int syms_loaded;
};

static int in_file(const struct ct_elf *e, uint64_t off, uint64_t len) {
  return off <= e->size && len <= e->size - off;
}

static int fail(char *err, size_t errlen, const char *path, const char *why) {
  snprintf(err, errlen, "%s: %s", path, why);
  return -1;
}

int ct_elf_open(const char *path, struct ct_elf **out, char *err, size_t errlen) {
  struct stat st;
  struct ct_elf *e;
  void *map;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  *out = NULL;
  if (fd < 0) return fail(err, errlen, path, strerror(errno));
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return fail(err, errlen, path, "not a regular file");
  }
  if ((size_t)st.st_size < sizeof(Elf64_Ehdr)) {
    close(fd);
    return fail(err, errlen, path, "too small to be an ELF file");
  }
  map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return fail(err, errlen, path, strerror(errno));
  e = calloc(1, sizeof *e);
  if (!e) {
    munmap(map, (size_t)st.st_size);
    return fail(err, errlen, path, "out of memory");
  }
  e->path = strdup(path);
  e->map = map;
  e->size = (size_t)st.st_size;
  e->eh = map;
  if (memcmp(e->eh->e_ident, ELFMAG, SELFMAG) || e->eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      e->eh->e_ident[EI_DATA] != ELFDATA2LSB) {
    ct_elf_close(e);
    return fail(err, errlen, path, "not a 64-bit little-endian ELF file");
  }
  if (e->eh->e_shentsize != sizeof(Elf64_Shdr) ||
      !in_file(e, e->eh->e_shoff, (uint64_t)e->eh->e_shnum * sizeof(Elf64_Shdr)) ||
      (e->eh->e_phnum && (e->eh->e_phentsize != sizeof(Elf64_Phdr) ||
                          !in_file(e, e->eh->e_phoff, (uint64_t)e->eh->e_phnum * sizeof(Elf64_Phdr))))) {
    ct_elf_close(e);
    return fail(err, errlen, path, "corrupt ELF headers");
  }
  e->sh = (const Elf64_Shdr *)(e->map + e->eh->e_shoff);
  e->nsh = e->eh->e_shnum;
  if (e->eh->e_shstrndx < e->nsh) {
    const Elf64_Shdr *s = &e->sh[e->eh->e_shstrndx];
    if (in_file(e, s->sh_offset, s->sh_size) && s->sh_type != SHT_NOBITS) {
      e->shstr = (const char *)e->map + s->sh_offset;
      e->shstr_len = s->sh_size;
    }
  }
  *out = e;
  return 0;
}

void ct_elf_close(struct ct_elf *e) {
  if (!e) return;
  if (e->map) munmap((void *)e->map, e->size);
  for (size_t i = 0; i < e->ninflated; i++) free(e->inflated[i].data);
  free(e->inflated);
  free(e->syms);
  free(e->path);
  free(e);
}

const char *ct_elf_path(const struct ct_elf *e) { return e->path; }

static const char *section_name(const struct ct_elf *e, const Elf64_Shdr *s) {
  if (!e->shstr || s->sh_name >= e->shstr_len) return "";
  if (!memchr(e->shstr + s->sh_name, 0, e->shstr_len - s->sh_name)) return "";
  return e->shstr + s->sh_name;
}

static const Elf64_Shdr *find_section(const struct ct_elf *e, const char *name) {
  for (size_t i = 0; i < e->nsh; i++)
    if (!strcmp(section_name(e, &e->sh[i]), name)) return &e->sh[i];
  return NULL;
}

/* The contents of a zlib SHF_COMPRESSED section (ld --compress-debug-sections, objcopy), or
 * NULL if it is corrupt or compressed otherwise. */
static const void *inflate_section(struct ct_elf *e, const Elf64_Shdr *s, size_t *len) {
  Elf64_Chdr ch;
  for (size_t i = 0; i < e->ninflated; i++)
    if (e->inflated[i].sh == s) return *len = e->inflated[i].len, e->inflated[i].data;
  if (s->sh_size < sizeof ch) return NULL;
  memcpy(&ch, e->map + s->sh_offset, sizeof ch);
  if (ch.ch_type != ELFCOMPRESS_ZLIB || ch.ch_size > (1ull << 32)) return NULL;
  uLongf out_len = (uLongf)ch.ch_size;
  unsigned char *out = malloc(out_len ? out_len : 1);
  struct ct_inflated *ni = realloc(e->inflated, (e->ninflated + 1) * sizeof *ni);
  if (!out || !ni) {
    free(out);
    return NULL;
  }
  e->inflated = ni;
  if (uncompress(out, &out_len, e->map + s->sh_offset + sizeof ch, s->sh_size - sizeof ch) != Z_OK ||
      out_len != ch.ch_size) {
    free(out);
    return NULL;
  }
  e->inflated[e->ninflated++] = (struct ct_inflated){s, out, out_len};
  *len = out_len;
  return out;
}

size_t ct_elf_sections(const struct ct_elf *e, const Elf64_Shdr **sh) {
  *sh = e->sh;
  return e->nsh;
}

const char *ct_elf_section_name(const struct ct_elf *e, size_t i) {
  return i < e->nsh ? section_name(e, &e->sh[i]) : "";
}

const uint8_t *ct_elf_section_bytes(const struct ct_elf *e, size_t i) {
  const Elf64_Shdr *s = i < e->nsh ? &e->sh[i] : NULL;
  if (!s || s->sh_type == SHT_NOBITS || !s->sh_size || !in_file(e, s->sh_offset, s->sh_size))
    return NULL;
  return e->map + s->sh_offset;
}

const void *ct_elf_section(const struct ct_elf *e, const char *name, size_t *len) {
  const Elf64_Shdr *s = find_section(e, name);
  size_t n;
  if (!s || s->sh_type == SHT_NOBITS || !s->sh_size || !in_file(e, s->sh_offset, s->sh_size))
    return NULL;
  if (s->sh_flags & SHF_COMPRESSED) {
    const void *p = inflate_section((struct ct_elf *)e, s, &n);
    if (p && len) *len = n;
    return p;
  }
  if (len) *len = s->sh_size;
  return e->map + s->sh_offset;
}

const uint8_t *ct_elf_bytes_at(const struct ct_elf *e, uint64_t vaddr, size_t len) {
  for (size_t i = 0; i < e->nsh; i++) {
    const Elf64_Shdr *s = &e->sh[i];
    if (!(s->sh_flags & SHF_ALLOC) || s->sh_type == SHT_NOBITS || (s->sh_flags & SHF_COMPRESSED) ||
        vaddr < s->sh_addr || vaddr - s->sh_addr > s->sh_size || len > s->sh_size - (vaddr - s->sh_addr))
      continue;
    if (!in_file(e, s->sh_offset, s->sh_size)) return NULL;
    return e->map + s->sh_offset + (vaddr - s->sh_addr);
  }
  return NULL;
}

static size_t note_build_id(const uint8_t *p, size_t len, const uint8_t **id) {
  size_t at = 0;
  while (len - at >= 12) {
    uint32_t namesz, descsz, type;
    memcpy(&namesz, p + at, 4);
    memcpy(&descsz, p + at + 4, 4);
    memcpy(&type, p + at + 8, 4);
    size_t name_at = at + 12, desc_at = name_at + ((namesz + 3u) & ~3u);
    if (namesz > len || descsz > len || desc_at > len || descsz > len - desc_at) return 0;
    if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + name_at, "GNU", 4)) {
      *id = p + desc_at;
      return descsz;
    }
    at = desc_at + ((descsz + 3u) & ~3u);
  }
  return 0;
}

size_t ct_elf_build_id(const struct ct_elf *e, const uint8_t **id) {
  for (size_t i = 0; i < e->nsh; i++) {
    const Elf64_Shdr *s = &e->sh[i];
    if (s->sh_type != SHT_NOTE || !in_file(e, s->sh_offset, s->sh_size)) continue;
    size_t n = note_build_id(e->map + s->sh_offset, s->sh_size, id);
    if (n) return n;
  }
  return 0;
}

int ct_elf_is_object(const struct ct_elf *e) { return e->eh->e_type == ET_REL; }

const char *ct_elf_debuglink(const struct ct_elf *e) {
  size_t len;
  const char *p = ct_elf_section(e, ".gnu_debuglink", &len);
  if (!p || !memchr(p, 0, len)) return NULL;
  return p;
}

uint64_t ct_elf_base_vaddr(const struct ct_elf *e) {
  const Elf64_Phdr *ph = (const Elf64_Phdr *)(e->map + e->eh->e_phoff);
  for (size_t i = 0; i < e->eh->e_phnum; i++)
    if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0) return ph[i].p_vaddr;
  return 0;
}

static size_t leading_underscores(const char *s) {
  size_t n = 0;
  while (s[n] == '_') n++;
  return n;
}

/* By address; names of one address (aliases) from the least to the most readable, so that the
 * lookup, which takes the last symbol at or before an address, shows the name a program calls
 * (fflush, not _IO_fflush; clock_gettime, not __clock_gettime): an exported name before a
 * local one (a library's internal alias), then the fewest leading underscores, then the
 * shortest, then by bytes, so the choice never depends on the table's order. */
static int sym_cmp(const void *a, const void *b) {
  const struct ct_sym *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->local != y->local) return x->local ? -1 : 1;
  size_t ux = leading_underscores(x->name), uy = leading_underscores(y->name);
  if (ux != uy) return ux > uy ? -1 : 1;
  size_t lx = strlen(x->name), ly = strlen(y->name);
  if (lx != ly) return lx > ly ? -1 : 1;
  return -strcmp(x->name, y->name);
}

static void load_symbols(struct ct_elf *e) {
  const char *tables[2] = {".symtab", ".dynsym"};
  e->syms_loaded = 1;
  for (int t = 0; t < 2 && !e->nsyms; t++) {
    const Elf64_Shdr *s = find_section(e, tables[t]);
    if (!s || s->sh_entsize != sizeof(Elf64_Sym) || s->sh_link >= e->nsh ||
        !in_file(e, s->sh_offset, s->sh_size))
      continue;
    const Elf64_Shdr *str = &e->sh[s->sh_link];
    if (!in_file(e, str->sh_offset, str->sh_size)) continue;
    const Elf64_Sym *sym = (const Elf64_Sym *)(e->map + s->sh_offset);
    size_t n = s->sh_size / sizeof *sym;
    e->syms = calloc(n ? n : 1, sizeof *e->syms);
    if (!e->syms) return;
    for (size_t i = 0; i < n; i++) {
      if (ELF64_ST_TYPE(sym[i].st_info) != STT_FUNC || !sym[i].st_value) continue;
      if (sym[i].st_name >= str->sh_size) continue;
      const char *name = (const char *)e->map + str->sh_offset + sym[i].st_name;
      if (!memchr(name, 0, str->sh_size - sym[i].st_name)) continue;
      e->syms[e->nsyms++] = (struct ct_sym){sym[i].st_value, sym[i].st_size, name,
                                            ELF64_ST_BIND(sym[i].st_info) == STB_LOCAL};
    }
  }
  if (e->nsyms) qsort(e->syms, e->nsyms, sizeof *e->syms, sym_cmp);
}

/* The index of the first symbol starting after addr (past_addr) or at or after it. */
static size_t sym_bound(struct ct_elf *e, uint64_t addr, int past_addr) {
  size_t lo = 0, hi;
  if (!e->syms_loaded) load_symbols(e);
  hi = e->nsyms;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (e->syms[mid].start < addr || (past_addr && e->syms[mid].start == addr)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const char *ct_elf_symbol_at(struct ct_elf *e, uint64_t addr, uint64_t *start, uint64_t *size) {
  size_t lo = sym_bound(e, addr, 1);
  if (lo == 0) return NULL;
  const struct ct_sym *s = &e->syms[lo - 1];
  if (s->size && addr >= s->start + s->size) return NULL;
  if (start) *start = s->start;
  if (size) *size = s->size;
  return s->name;
}

int ct_elf_symbol_alias(struct ct_elf *e, uint64_t start, const char *name) {
  for (size_t lo = sym_bound(e, start, 0); lo < e->nsyms && e->syms[lo].start == start; lo++)
    if (!strcmp(e->syms[lo].name, name)) return 1;
  return 0;
}

void ct_hex(const uint8_t *id, size_t len, char *out) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < len; i++) {
    out[2 * i] = digits[id[i] >> 4];
    out[2 * i + 1] = digits[id[i] & 15];
  }
  out[2 * len] = 0;
}
