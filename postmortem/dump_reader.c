/*
 * dump_reader.c - parse and validate a crash dump.
 *
 * Two passes over the section list: the first checks the frame (magic, version, every section
 * inside the file, a CT_DS_END whose total equals the file size) and counts sections by type;
 * the second fills arrays sized by those counts. A section whose payload is shorter than its
 * fixed header, or whose declared variable parts overrun it, makes the whole dump corrupt:
 * a half-believed dump would produce a wrong timeline, which is worse than none.
 */
#include "dump_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crashtrail/abi.h"
#include "cursor.h"

static int dump_fail(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return -1;
}

static char *copy_str(const uint8_t *p, size_t n) {
  char *s = malloc(n + 1);
  if (!s) return NULL;
  memcpy(s, p, n);
  s[n] = 0;
  return s;
}

struct section {
  uint32_t type;
  struct ct_cur body;
};

/* Reads the next section header; 1 and *s on success, 0 at the end, -1 if corrupt. */
static int next_section(struct ct_cur *c, struct section *s) {
  if (ct_cur_left(c) == 0) return 0;
  s->type = ct_cur_u32(c);
  (void)ct_cur_u32(c);
  uint64_t len = ct_cur_u64(c);
  if (!c->ok || len > ct_cur_left(c)) return -1;
  const uint8_t *p = ct_cur_need(c, (size_t)len);
  s->body = ct_cur_make(p, (size_t)len);
  size_t pad = (size_t)((8 - (len & 7)) & 7);
  if (pad > ct_cur_left(c)) pad = ct_cur_left(c);
  (void)ct_cur_need(c, pad);
  return 1;
}

static int check_frame(struct ct_dump *d, size_t counts[16], char *err, size_t errlen) {
  struct ct_cur c = ct_cur_make(d->map, d->size);
  struct section s;
  int rc, ended = 0;
  const uint8_t *magic = ct_cur_need(&c, 8);
  uint32_t version = ct_cur_u32(&c), hbytes = ct_cur_u32(&c);
  (void)ct_cur_u64(&c);
  if (!magic || memcmp(magic, CT_DUMP_MAGIC, 8))
    return dump_fail(err, errlen, "%s: not a crashtrail dump (bad magic)", d->file);
  if (version > CT_DUMP_VERSION)
    return dump_fail(err, errlen, "%s: dump format version %u is newer than this tool (%u); "
                     "use a newer crashtrail", d->file, version, CT_DUMP_VERSION);
  if (version == 0 || hbytes != CT_DUMP_HEADER_BYTES)
    return dump_fail(err, errlen, "%s: corrupt dump header", d->file);
  d->version = version;
  while ((rc = next_section(&c, &s)) == 1) {
    if (s.type == CT_DS_END) {
      uint64_t total = ct_cur_u64(&s.body);
      if (!s.body.ok || total != d->size)
        return dump_fail(err, errlen, "%s: corrupt dump (end marker says %llu bytes, file has "
                         "%zu)", d->file, (unsigned long long)total, d->size);
      ended = 1;
      break;
    }
    if (s.type < 16) counts[s.type]++;
  }
  if (rc < 0 || !ended)
    return dump_fail(err, errlen, "%s: truncated dump (%zu bytes; the end marker is missing): "
                     "the process may have been killed while writing it, or the disk filled",
                     d->file, d->size);
  return 0;
}

static int read_module(struct ct_dump *d, struct ct_cur *b) {
  struct ct_dump_module *m = &d->modules[d->nmodules];
  /* Version 1 had no record_base: its records hold function addresses (record_base 0). */
  ct_cur_struct(b, &m->hdr, d->version >= 2 ? sizeof m->hdr : CT_DS_MODULE_V1_BYTES);
  if (m->hdr.build_id_len > sizeof m->build_id) return -1;
  const uint8_t *id = ct_cur_need(b, m->hdr.build_id_len);
  const uint8_t *path = ct_cur_need(b, m->hdr.path_len);
  if (!b->ok) return -1;
  memcpy(m->build_id, id, m->hdr.build_id_len);
  m->path = copy_str(path, m->hdr.path_len);
  d->nmodules++;
  return m->path ? 0 : -1;
}

static int read_process(struct ct_dump *d, struct ct_cur *b) {
  ct_cur_struct(b, &d->process, sizeof d->process);
  const uint8_t *exe = ct_cur_need(b, d->process.exe_len);
  const uint8_t *reason = ct_cur_need(b, d->process.reason_len);
  const uint8_t *cmd = ct_cur_need(b, d->process.cmdline_len);
  if (!b->ok) return -1;
  free(d->exe);
  free(d->reason);
  free(d->cmdline);
  d->exe = copy_str(exe, d->process.exe_len);
  d->reason = copy_str(reason, d->process.reason_len);
  d->cmdline = copy_str(cmd, d->process.cmdline_len);
  d->cmdline_len = d->process.cmdline_len;
  return d->exe && d->reason && d->cmdline ? 0 : -1;
}

/* One section into the arrays; 0 on success, -1 if its contents are inconsistent. */
static int read_section(struct ct_dump *d, struct section *s) {
  struct ct_cur *b = &s->body;
  switch (s->type) {
  case CT_DS_PROCESS:
    return read_process(d, b);
  case CT_DS_SIGNAL:
    d->has_signal = ct_cur_struct(b, &d->signal, sizeof d->signal);
    return d->has_signal ? 0 : -1;
  case CT_DS_REGISTERS:
    d->has_regs = ct_cur_struct(b, &d->regs, sizeof d->regs);
    return d->has_regs && d->regs.nregs <= CT_REG_COUNT ? 0 : -1;
  case CT_DS_THREAD_REGISTERS: {
    struct ct_dump_thread_state *o = &d->others[d->nothers];
    memset(o, 0, sizeof *o);
    if (!ct_cur_struct(b, &o->regs, sizeof o->regs) || o->regs.nregs > CT_REG_COUNT) return -1;
    d->nothers++;
    return 0;
  }
  case CT_DS_THREAD_STACK: { /* after its thread's registers */
    struct ct_ds_stack st;
    if (!ct_cur_struct(b, &st, sizeof st)) return -1;
    for (size_t i = d->nothers; i-- > 0;)
      if (d->others[i].regs.tid == st.tid && !d->others[i].has_stack) {
        d->others[i].stack = st;
        d->others[i].has_stack = 1;
        d->others[i].stack_len = ct_cur_left(b);
        d->others[i].stack_bytes = ct_cur_need(b, d->others[i].stack_len);
        return 0;
      }
    return -1;
  }
  case CT_DS_STACK:
    if (!ct_cur_struct(b, &d->stack, sizeof d->stack)) return -1;
    d->has_stack = 1;
    d->stack_len = ct_cur_left(b);
    d->stack_bytes = ct_cur_need(b, d->stack_len);
    return 0;
  case CT_DS_MODULE:
    return read_module(d, b);
  case CT_DS_THREAD:
    return ct_cur_struct(b, &d->threads[d->nthreads++], sizeof *d->threads) ? 0 : -1;
  case CT_DS_RING: {
    struct ct_dump_ring *r = &d->rings[d->nrings];
    if (!ct_cur_struct(b, &r->hdr, sizeof r->hdr)) return -1;
    /* Whole chunks: checked once the process section has said their size (dump_parse). */
    if (r->hdr.size != ct_cur_left(b)) return -1;
    r->data = ct_cur_need(b, (size_t)r->hdr.size);
    d->nrings++;
    return 0;
  }
  case CT_DS_TABLE: {
    struct ct_dump_table *t = &d->tables[d->ntables];
    if (!ct_cur_struct(b, &t->hdr, sizeof t->hdr)) return -1;
    t->len = ct_cur_left(b);
    if (t->len % sizeof(uint64_t[2])) return -1;
    t->data = ct_cur_need(b, t->len);
    d->ntables++;
    return 0;
  }
  case CT_DS_EVENTS: {
    size_t n = ct_cur_left(b) / sizeof(struct ct_ds_event);
    if (ct_cur_left(b) % sizeof(struct ct_ds_event)) return -1;
    free(d->events); /* a second EVENTS section replaces the first */
    d->events = calloc(n ? n : 1, sizeof *d->events);
    if (!d->events) return -1;
    for (size_t i = 0; i < n; i++) ct_cur_struct(b, &d->events[i], sizeof *d->events);
    d->nevents = n;
    return 0;
  }
  case CT_DS_VDSO:
    if (!ct_cur_struct(b, &d->vdso_addr, sizeof d->vdso_addr)) return -1;
    d->vdso_len = ct_cur_left(b);
    d->vdso = ct_cur_need(b, d->vdso_len);
    return 0;
  case CT_DS_MAPS:
    free(d->maps);
    d->maps = copy_str(b->p, ct_cur_left(b));
    return d->maps ? 0 : -1;
  default:
    return 0; /* CT_DS_PAD, or a newer writer's extra section: skip it */
  }
}

static const char *section_label(uint32_t t) {
  static const char *names[] = {"?", "process", "signal", "registers", "stack", "module",
                                "thread", "ring", "table", "maps", "events", "pad", "vdso",
                                "thread registers", "thread stack"};
  return t < sizeof names / sizeof names[0] ? names[t] : "unknown";
}

/* Parses a dump held in memory; takes ownership of a mapping when `mapped`. */
static int dump_parse(const uint8_t *data, size_t size, int mapped, const char *name,
                      struct ct_dump **out, char *err, size_t errlen) {
  struct ct_dump *d = calloc(1, sizeof *d);
  size_t counts[16] = {0};
  *out = NULL;
  if (!d) {
    if (mapped) munmap((void *)data, size);
    return dump_fail(err, errlen, "out of memory");
  }
  d->map = data;
  d->size = size;
  d->mapped = mapped;
  d->file = strdup(name);
  if (size < CT_DUMP_HEADER_BYTES) {
    ct_dump_free(d);
    return dump_fail(err, errlen, "%s: not a crashtrail dump (%zu bytes)", name, size);
  }
  if (check_frame(d, counts, err, errlen) != 0) {
    ct_dump_free(d);
    return -1;
  }
  d->modules = calloc(counts[CT_DS_MODULE] + 1, sizeof *d->modules);
  d->threads = calloc(counts[CT_DS_THREAD] + 1, sizeof *d->threads);
  d->rings = calloc(counts[CT_DS_RING] + 1, sizeof *d->rings);
  d->tables = calloc(counts[CT_DS_TABLE] + 1, sizeof *d->tables);
  d->others = calloc(counts[CT_DS_THREAD_REGISTERS] + 1, sizeof *d->others);
  if (!d->modules || !d->threads || !d->rings || !d->tables || !d->others) {
    ct_dump_free(d);
    return dump_fail(err, errlen, "out of memory");
  }
  struct ct_cur c = ct_cur_make(d->map + CT_DUMP_HEADER_BYTES, d->size - CT_DUMP_HEADER_BYTES);
  struct section s;
  while (next_section(&c, &s) == 1 && s.type != CT_DS_END) {
    if (read_section(d, &s) != 0) {
      dump_fail(err, errlen, "%s: corrupt dump (a %s section is malformed)", name,
                section_label(s.type));
      ct_dump_free(d);
      return -1;
    }
  }
  if (!d->exe) {
    ct_dump_free(d);
    return dump_fail(err, errlen, "%s: corrupt dump (no process section)", name);
  }
  uint32_t chunk = d->process.abi_version >= 5 ? CT_CHUNK_BYTES : CT_CHUNK_BYTES_ABI4;
  for (size_t i = 0; i < d->nrings; i++) {
    d->rings[i].chunk_bytes = chunk;
    if (d->rings[i].hdr.size % chunk) {
      ct_dump_free(d);
      return dump_fail(err, errlen, "%s: corrupt dump (a ring of %llu bytes is not a whole "
                       "number of %u-byte chunks)", name,
                       (unsigned long long)d->rings[i].hdr.size, chunk);
    }
  }
  *out = d;
  return 0;
}

int ct_dump_parse(const void *data, size_t size, struct ct_dump **out, char *err, size_t errlen) {
  return dump_parse(data, size, 0, "(memory)", out, err, errlen);
}

int ct_dump_load(const char *path, struct ct_dump **out, char *err, size_t errlen) {
  struct stat st;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  *out = NULL;
  if (fd < 0) return dump_fail(err, errlen, "%s: %s", path, strerror(errno));
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return dump_fail(err, errlen, "%s: not a regular file", path);
  }
  if (st.st_size < (off_t)CT_DUMP_HEADER_BYTES) {
    close(fd);
    return dump_fail(err, errlen, "%s: not a crashtrail dump (%lld bytes)", path,
                     (long long)st.st_size);
  }
  void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return dump_fail(err, errlen, "%s: %s", path, strerror(errno));
  return dump_parse(map, (size_t)st.st_size, 1, path, out, err, errlen);
}

void ct_dump_free(struct ct_dump *d) {
  if (!d) return;
  for (size_t i = 0; i < d->nmodules; i++) free(d->modules[i].path);
  free(d->modules);
  free(d->threads);
  free(d->rings);
  free(d->tables);
  free(d->others);
  free(d->events);
  free(d->maps);
  free(d->exe);
  free(d->reason);
  free(d->cmdline);
  free(d->file);
  if (d->map && d->mapped) munmap((void *)d->map, d->size);
  free(d);
}

static int read_slice(const struct ct_ds_stack *st, const uint8_t *bytes, size_t n,
                      uint64_t addr, void *out, size_t len) {
  if (addr < st->start) return -1;
  uint64_t off = addr - st->start;
  if (off > n || len > n - off) return -1;
  memcpy(out, bytes + off, len);
  return 0;
}

int ct_dump_read_stack(void *ctx, uint64_t addr, void *out, size_t len) {
  const struct ct_dump *d = ctx;
  if (d->has_stack && read_slice(&d->stack, d->stack_bytes, d->stack_len, addr, out, len) == 0)
    return 0;
  for (size_t i = 0; i < d->nothers; i++)
    if (d->others[i].has_stack && read_slice(&d->others[i].stack, d->others[i].stack_bytes,
                                             d->others[i].stack_len, addr, out, len) == 0)
      return 0;
  return -1;
}

const struct ct_ds_registers *ct_dump_regs_of(const struct ct_dump *d, uint32_t tid) {
  if (d->has_regs && d->regs.tid == tid) return &d->regs;
  for (size_t i = 0; i < d->nothers; i++)
    if (d->others[i].regs.tid == tid) return &d->others[i].regs;
  return NULL;
}

const struct ct_dump_module *ct_dump_module_by_id(const struct ct_dump *d, uint32_t id) {
  for (size_t i = 0; i < d->nmodules; i++)
    if (d->modules[i].hdr.id == id) return &d->modules[i];
  return NULL;
}
