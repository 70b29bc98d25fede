/*
 * module_files.c - find, verify and open the files of each module in a dump.
 *
 * Order of search for an instrumented module's binary: a --binary with the same build-id,
 * then the recorded path. For its debug information (when the binary has no crashtrail
 * metadata or no .debug_info, as after `objcopy --only-keep-debug` + strip): DIR/.build-id/
 * xx/rest.debug under each --debug-dir and /usr/lib/debug, then the .gnu_debuglink name next
 * to the binary, in its .debug/ directory and under each debug directory. A debug file is
 * used only if its build-id equals the binary's. Uninstrumented modules of the maps (libc)
 * look for theirs the same way, for the stack (Debian's libc6-dbg and -dbgsym packages):
 * internal functions' names (__pthread_kill_implementation, not ??) and source lines.
 *
 * The vDSO has no file: its image, when the dump carries it, is put in an anonymous in-memory
 * file (memfd) that the ELF reader and libdwarf open by its /proc/self/fd path, like any
 * binary; the descriptor lives as long as the module.
 */
#include "module_files.h"

#include "line_order.h"

#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "crashtrail/abi.h"
#include "dwarf_module.h"
#include "elf_exports.h"
#include "elf_file.h"
#include "line_order.h"
#include "meta_reader.h"

static int mf_fail(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return -1;
}

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

static int same_id(struct ct_elf *e, const uint8_t *id, size_t len) {
  const uint8_t *eid;
  size_t n = ct_elf_build_id(e, &eid);
  return n == len && n > 0 && !memcmp(eid, id, n);
}

static void id_hex(struct ct_elf *e, char *out) {
  const uint8_t *id;
  size_t n = ct_elf_build_id(e, &id);
  if (n > 64) n = 64;
  if (n) ct_hex(id, n, out);
  else strcpy(out, "none");
}

/* Opens path if it is an ELF file with build-id id; NULL otherwise. */
static struct ct_elf *open_matching(const char *path, const uint8_t *id, size_t len) {
  struct ct_elf *e;
  char err[256];
  if (access(path, R_OK) != 0 || ct_elf_open(path, &e, err, sizeof err) != 0) return NULL;
  if (same_id(e, id, len)) return e;
  ct_elf_close(e);
  return NULL;
}

static int has_debug(struct ct_elf *e) {
  size_t n;
  return ct_elf_section(e, ".debug_info", &n) != NULL;
}

static void find_debug_file(struct ct_module *m, const struct ct_resolve_opts *o) {
  const uint8_t *id;
  size_t n = ct_elf_build_id(m->elf, &id);
  char hex[140], path[4096];
  const char *dirs[64];
  size_t ndirs = 0;
  for (size_t i = 0; i < o->ndebug_dirs && ndirs < 63; i++) dirs[ndirs++] = o->debug_dirs[i];
  dirs[ndirs++] = "/usr/lib/debug";
  if (!n) return;
  ct_hex(id, n > 64 ? 64 : n, hex);
  for (size_t i = 0; i < ndirs && !m->debug_elf; i++) {
    snprintf(path, sizeof path, "%s/.build-id/%.2s/%s.debug", dirs[i], hex, hex + 2);
    if ((m->debug_elf = open_matching(path, id, n))) m->debug_path = strdup(path);
  }
  const char *link = ct_elf_debuglink(m->elf);
  if (!link || m->debug_elf) return;
  char *copy = strdup(m->path), *dir = dirname(copy);
  const char *patterns[3] = {"%s/%s", "%s/.debug/%s", NULL};
  for (int p = 0; patterns[p] && !m->debug_elf; p++) {
    snprintf(path, sizeof path, patterns[p], dir, link);
    if ((m->debug_elf = open_matching(path, id, n))) m->debug_path = strdup(path);
  }
  for (size_t i = 0; i < ndirs && !m->debug_elf; i++) {
    snprintf(path, sizeof path, "%s/%s", dirs[i], link);
    if (!(m->debug_elf = open_matching(path, id, n))) {
      snprintf(path, sizeof path, "%s%s/%s", dirs[i], dir, link);
      m->debug_elf = open_matching(path, id, n);
    }
    if (m->debug_elf) m->debug_path = strdup(path);
  }
  free(copy);
}

/* Chooses and verifies the binary of an instrumented module. */
static int open_instrumented(struct ct_module *m, const struct ct_dump_module *dm,
                             const struct ct_resolve_opts *o, int *used, char *err, size_t errlen) {
  char want[140], have[140], e2[512];
  const uint8_t *id = dm->build_id;
  size_t n = dm->hdr.build_id_len;
  if (n) ct_hex(id, n, want);
  else strcpy(want, "none");
  for (size_t i = 0; i < o->nbinaries && !m->elf; i++)
    if ((m->elf = open_matching(o->binaries[i], id, n))) {
      m->path = strdup(o->binaries[i]);
      used[i] = 1;
    }
  if (!m->elf) {
    struct ct_elf *e;
    if (ct_elf_open(dm->path, &e, e2, sizeof e2) != 0)
      return mf_fail(err, errlen, "module %s: cannot open the binary (%s); pass it with "
                     "--binary PATH", m->name, e2);
    if (n && !same_id(e, id, n)) {
      id_hex(e, have);
      ct_elf_close(e);
      return mf_fail(err, errlen, "module %s: %s has build-id %s, but the crashed process ran "
                     "build-id %s (rebuilt since?); pass the original with --binary PATH",
                     m->name, dm->path, have, want);
    }
    m->elf = e;
    m->path = strdup(dm->path);
  }
  return 0;
}

/* Blocks named in the line table (CT_FN_BLOCK_DISC) get their lines in machine order, each
 * function's when the decoder first asks for it (ct_meta_ready). Without DWARF they keep IR
 * order: not an error, the stack and the locals will say what is missing. */
static int order_lines(struct ct_meta *meta, struct ct_mfunc *f, void *arg) {
  struct ct_module *m = arg;
  if (m->source_order || !(f->flags & CT_FN_BLOCK_DISC)) return 0;
  if (!m->line_order) {
    struct ct_dwarf *d = ct_module_dwarf(m); /* opened once, failure included */
    if (!d) return 0;
    if (!(m->line_order = ct_line_order_new(d, m->elf))) return -1;
  }
  return ct_line_order_function(m->line_order, meta, f) < 0 ? -1 : 0;
}

static int load_metadata(struct ct_module *m, char *err, size_t errlen) {
  size_t len = 0;
  const void *sec = ct_elf_section(m->elf, CT_SECTION_META, &len);
  char e2[256];
  if ((!sec || !has_debug(m->elf)) && m->debug_elf) {
    size_t dlen = 0;
    const void *dsec = ct_elf_section(m->debug_elf, CT_SECTION_META, &dlen);
    if (dsec) sec = dsec, len = dlen;
  }
  if (!sec)
    return mf_fail(err, errlen, "module %s: %s has no crashtrail metadata (section %s): was it "
                   "stripped without keeping a debug file (see --debug-dir)?", m->name, m->path,
                   CT_SECTION_META);
  if (ct_meta_load_refined(sec, len, 0, &m->meta, e2, sizeof e2, order_lines, m) != 0)
    return mf_fail(err, errlen, "module %s: %s", m->name, e2);
  return 0;
}

/* Adds the file-backed modules of /proc/self/maps that crashtrail did not register. */
static void add_mapped(struct ct_modset *s, const struct ct_dump *d, const struct ct_resolve_opts *o) {
  const char *line = d->maps;
  while (line && *line) {
    const char *nl = strchr(line, '\n');
    unsigned long long lo, hi, off;
    char perms[8], path[4096];
    int consumed = 0;
    path[0] = 0;
    if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perms, &off, &consumed) >= 4 &&
        consumed > 0 && (!nl || line + consumed <= nl)) { /* a pathless line: %n ran past it */
      size_t len = nl ? (size_t)(nl - (line + consumed)) : strlen(line + consumed);
      if (len >= sizeof path) len = sizeof path - 1;
      memcpy(path, line + consumed, len);
      path[len] = 0;
    }
    if (path[0] == '/' && off == 0) {
      int known = 0;
      for (size_t i = 0; i < s->n; i++)
        if (s->mods[i].recorded_path && !strcmp(s->mods[i].recorded_path, path)) {
          known = 1;
          if (lo < s->mods[i].start || !s->mods[i].start) s->mods[i].start = lo;
        }
      if (!known) {
        struct ct_module *m = &s->mods[s->n++];
        char err[512];
        memset(m, 0, sizeof *m);
        m->dump_id = -1;
        m->recorded_path = strdup(path);
        m->name = base_name(m->recorded_path);
        m->start = lo;
        if (ct_elf_open(path, &m->elf, err, sizeof err) == 0) {
          m->path = strdup(path);
          m->bias = lo - ct_elf_base_vaddr(m->elf);
          /* libc6-dbg and the -dbgsym packages: names of internal functions, and lines */
          if (!has_debug(m->elf) && m->path) find_debug_file(m, o);
        } else {
          m->problem = strdup(err);
        }
      }
    }
    /* The end of each module: the end of its last mapping. */
    for (size_t i = 0; i < s->n && path[0] == '/'; i++)
      if (s->mods[i].recorded_path && !strcmp(s->mods[i].recorded_path, path) && hi > s->mods[i].end)
        s->mods[i].end = hi;
    line = nl ? nl + 1 : NULL;
  }
}

/* The vDSO as a module, from the image in the dump (no file holds it). */
static void add_vdso(struct ct_modset *s, const struct ct_dump *d) {
  char path[64], err[512];
  if (!d->vdso || !d->vdso_len) return;
  struct ct_module *m = &s->mods[s->n++];
  memset(m, 0, sizeof *m);
  m->dump_id = -1;
  m->image_fd = -1;
  m->recorded_path = strdup("[vdso]");
  m->name = "vdso"; /* shown as [vdso], as in /proc/PID/maps */
  m->start = d->vdso_addr;
  m->end = d->vdso_addr + d->vdso_len;
  int fd = memfd_create("crashtrail-vdso", MFD_CLOEXEC);
  if (fd < 0 || write(fd, d->vdso, d->vdso_len) != (ssize_t)d->vdso_len) {
    m->problem = strdup("the vDSO's image could not be put in a memory file");
    if (fd >= 0) close(fd);
    return;
  }
  m->image_fd = fd;
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  if (ct_elf_open(path, &m->elf, err, sizeof err) == 0) {
    m->path = strdup(path);
    m->bias = d->vdso_addr - ct_elf_base_vaddr(m->elf);
  } else {
    m->problem = strdup(err);
  }
}

static size_t count_lines(const char *s) {
  size_t n = 0;
  for (; s && *s; s++) n += *s == '\n';
  return n + 1;
}

int ct_modules_resolve(const struct ct_dump *d, const struct ct_resolve_opts *o,
                       struct ct_modset **out, char *err, size_t errlen) {
  struct ct_modset *s = calloc(1, sizeof *s);
  int *used = calloc(o->nbinaries + 1, sizeof *used);
  *out = NULL;
  if (!s || !used) goto oom;
  s->mods = calloc(d->nmodules + count_lines(d->maps) + 1, sizeof *s->mods);
  if (!s->mods) goto oom;
  for (size_t i = 0; i < d->nmodules; i++) {
    const struct ct_dump_module *dm = &d->modules[i];
    struct ct_module *m = &s->mods[s->n++];
    m->dump_id = (int)dm->hdr.id;
    m->instrumented = 1;
    m->main_exe = (dm->hdr.flags & CT_MOD_MAIN) != 0;
    m->recorded_path = strdup(dm->path);
    m->name = base_name(m->recorded_path);
    m->bias = dm->hdr.load_bias;
    m->start = dm->hdr.map_start;
    m->end = dm->hdr.map_end;
    if (open_instrumented(m, dm, o, used, err, errlen) != 0) goto fail;
    if (!has_debug(m->elf) || !ct_elf_section(m->elf, CT_SECTION_META, NULL)) find_debug_file(m, o);
    m->source_order = o->source_order;
    if (load_metadata(m, err, errlen) != 0) goto fail;
    for (size_t f = 0; f < m->meta->nfuncs; f++) m->meta->funcs[f].module = (uint32_t)(s->n - 1);
  }
  for (size_t i = 0; i < o->nbinaries; i++)
    if (!used[i]) {
      struct ct_elf *e;
      char have[140] = "unreadable";
      if (ct_elf_open(o->binaries[i], &e, err, errlen) == 0) {
        id_hex(e, have);
        ct_elf_close(e);
      }
      mf_fail(err, errlen, "--binary %s (build-id %s) matches no instrumented module of the "
              "dump; wrong build?", o->binaries[i], have);
      goto fail;
    }
  if (!o->instrumented_only) {
    add_mapped(s, d, o);
    add_vdso(s, d);
  }
  free(used);
  *out = s;
  return 0;
oom:
  mf_fail(err, errlen, "out of memory");
fail:
  free(used);
  ct_modules_free(s);
  return -1;
}

void ct_modules_free(struct ct_modset *s) {
  if (!s) return;
  for (size_t i = 0; i < s->n; i++) {
    struct ct_module *m = &s->mods[i];
    ct_line_order_free(m->line_order);
    if (m->dwarf) ct_dwarf_close(m->dwarf);
    ct_meta_free(m->meta);
    ct_exports_free(m->exports);
    ct_exports_free(m->symbols);
    ct_elf_close(m->elf);
    ct_elf_close(m->debug_elf);
    free(m->recorded_path);
    free(m->path);
    free(m->debug_path);
    free(m->problem);
    if (m->image_fd > 0) close(m->image_fd);
  }
  free(s->mods);
  free(s);
}

struct ct_module *ct_modules_at(struct ct_modset *s, uint64_t addr) {
  for (size_t i = 0; i < s->n; i++)
    if (addr >= s->mods[i].start && addr < s->mods[i].end) return &s->mods[i];
  return NULL;
}

struct ct_module *ct_modules_by_dump_id(struct ct_modset *s, uint32_t id) {
  for (size_t i = 0; i < s->n; i++)
    if (s->mods[i].dump_id == (int)id) return &s->mods[i];
  return NULL;
}

struct ct_dwarf *ct_module_dwarf(struct ct_module *m) {
  char err[512];
  if (m->dwarf_tried) return m->dwarf;
  m->dwarf_tried = 1;
  if (!m->path) return NULL;
  if (ct_dwarf_open(m->path, m->debug_path, &m->dwarf, err, sizeof err) != 0) {
    m->dwarf = NULL;
    if (!m->problem) m->problem = strdup(err);
  }
  return m->dwarf;
}

static void load_exports(struct ct_module *m) {
  if (m->exports_tried) return;
  m->exports_tried = 1;
  ct_exports_load(m->elf, 1, &m->exports); /* NULL when out of memory: nothing found */
  ct_exports_load(m->elf, 0, &m->symbols);
  if (!ct_exports_count(m->symbols) && m->debug_elf) { /* stripped: the debug file's .symtab */
    ct_exports_free(m->symbols);
    ct_exports_load(m->debug_elf, 0, &m->symbols);
  }
}

/* The function of module m that its symbol `name` names (.dynsym; for a call from inside m,
 * .symtab if it has one), or NULL. */
static const struct ct_mfunc *by_symbol(struct ct_module *m, const char *name, int inside) {
  if (!m->meta || !m->elf) return NULL;
  load_exports(m);
  const struct ct_exports *x = inside && ct_exports_count(m->symbols) ? m->symbols : m->exports;
  uint64_t addr = ct_exports_find(x, name);
  return addr ? ct_meta_find(m->meta, addr) : NULL;
}

const struct ct_mfunc *ct_modules_resolve_call(struct ct_modset *s, size_t from, const char *name,
                                               uint32_t unit, int preemptible, uint16_t *mod) {
  if (!name || from >= s->n) return NULL;
  const struct ct_mfunc *g = NULL;
  if (preemptible && !s->mods[from].main_exe)
    for (size_t k = 0; k < s->n; k++)
      if (s->mods[k].main_exe && (g = by_symbol(&s->mods[k], name, 0))) {
        *mod = (uint16_t)k;
        return g;
      }
  if (s->mods[from].meta && (g = ct_meta_resolve(s->mods[from].meta, name, unit))) {
    *mod = (uint16_t)from;
    return g;
  }
  for (size_t k = 0; k < s->n; k++)
    if (k != from && s->mods[k].meta && (g = ct_meta_resolve(s->mods[k].meta, name, UINT32_MAX))) {
      *mod = (uint16_t)k;
      return g;
    }
  if ((g = by_symbol(&s->mods[from], name, 1))) {
    *mod = (uint16_t)from;
    return g;
  }
  for (size_t k = 0; k < s->n; k++)
    if (k != from && (g = by_symbol(&s->mods[k], name, 0))) {
      *mod = (uint16_t)k;
      return g;
    }
  return NULL;
}
