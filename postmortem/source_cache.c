/*
 * source_cache.c - source lines for display, read from each file as far as they are asked for.
 *
 * A timeline shows a few hundred lines, often of one amalgamation of megabytes (SQLite's 9 MB
 * sqlite3.c). Reading such a file whole into memory costs more than everything else a small
 * `crashtrail show` does: the copy and, above all, the page faults of a buffer the size of the
 * file. So a file is scanned through one reused buffer: the scan records where each line starts
 * (offsets, 4 bytes a line) and stops at the line asked for; a line shown is read once with
 * pread and kept (its own string). Files over 16 MiB are not read (generated code; nobody reads
 * those lines beside a timeline).
 *
 * Invariants: start[0..nstart) are the offsets of lines 1..nstart, increasing; `scanned` is the
 * offset the scan has reached (every newline before it is counted); when `complete`, line
 * nstart ends at the file's end. At most CT_SRC_OPEN_FILES descriptors stay open (the least
 * recently used is closed and reopened when needed), so a timeline across thousands of headers
 * does not run out of them.
 */
#include "source_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CT_SRC_MAX_FILE (16l << 20)
#define CT_SRC_CHUNK (64u << 10)
#define CT_SRC_OPEN_FILES 16

struct src_file {
  char *path;
  int fd;           /* -1 when closed */
  int broken;       /* unreadable, too large, or changed under us */
  uint64_t size, used; /* size at first open; `used`: the cache's clock at the last read */
  uint32_t *start;  /* offsets of the lines found so far */
  size_t nstart, cap;
  uint64_t scanned;
  int complete;
  char **text;      /* per line: its text once read, else NULL */
  size_t ntext;
};

struct ct_sources {
  struct src_file *files;
  size_t n, nopen;
  uint64_t clock;
  char *chunk;
};

struct ct_sources *ct_sources_new(void) { return calloc(1, sizeof(struct ct_sources)); }

static void close_file(struct ct_sources *s, struct src_file *f) {
  if (f->fd < 0) return;
  close(f->fd);
  f->fd = -1;
  s->nopen--;
}

void ct_sources_free(struct ct_sources *s) {
  if (!s) return;
  for (size_t i = 0; i < s->n; i++) {
    struct src_file *f = &s->files[i];
    close_file(s, f);
    free(f->path);
    free(f->start);
    for (size_t k = 0; k < f->ntext; k++) free(f->text[k]);
    free(f->text);
  }
  free(s->files);
  free(s->chunk);
  free(s);
}

/* f's descriptor, opened (and checked to be the file first seen) if needed; -1 if it cannot. */
static int file_fd(struct ct_sources *s, struct src_file *f) {
  f->used = ++s->clock;
  if (f->fd >= 0 || f->broken) return f->fd;
  if (s->nopen >= CT_SRC_OPEN_FILES) { /* close the least recently used */
    struct src_file *lru = NULL;
    for (size_t i = 0; i < s->n; i++)
      if (s->files[i].fd >= 0 && (!lru || s->files[i].used < lru->used)) lru = &s->files[i];
    if (lru) close_file(s, lru);
  }
  struct stat st;
  int fd = open(f->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    f->broken = 1;
    return -1;
  }
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > CT_SRC_MAX_FILE ||
      (f->nstart && (uint64_t)st.st_size != f->size)) {
    close(fd);
    f->broken = 1;
    return -1;
  }
  f->size = (uint64_t)st.st_size;
  f->fd = fd;
  s->nopen++;
  return fd;
}

static int add_start(struct src_file *f, uint64_t off) {
  if (f->nstart == f->cap) {
    size_t cap = f->cap ? 2 * f->cap : 1024;
    uint32_t *ns = realloc(f->start, cap * sizeof *ns);
    if (!ns) return -1;
    f->start = ns;
    f->cap = cap;
  }
  f->start[f->nstart++] = (uint32_t)off;
  return 0;
}

/* Scans f until it knows line `line` and where it ends (line 0: to the end). memchr: a byte
 * loop over an amalgamation's 9 MB is a visible share of `show`. */
static void scan_to(struct ct_sources *s, struct src_file *f, size_t line) {
  if (!s->chunk && !(s->chunk = malloc(CT_SRC_CHUNK))) return;
  while (!f->complete && !f->broken && (line == 0 || f->nstart <= line)) {
    int fd = file_fd(s, f);
    if (fd < 0) return;
    if (f->scanned == 0 && !f->nstart && add_start(f, 0) != 0) return;
    ssize_t got = pread(fd, s->chunk, CT_SRC_CHUNK, (off_t)f->scanned);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      f->complete = 1;
      break;
    }
    for (const char *q = s->chunk, *end = s->chunk + got;
         (q = memchr(q, '\n', (size_t)(end - q))); q++) {
      uint64_t next = f->scanned + (uint64_t)(q - s->chunk) + 1;
      if (next < f->size && add_start(f, next) != 0) return;
    }
    f->scanned += (uint64_t)got;
    if (f->scanned >= f->size) f->complete = 1;
  }
}

static struct src_file *find(struct ct_sources *s, const char *path) {
  if (!s || !path) return NULL;
  for (size_t i = 0; i < s->n; i++)
    if (!strcmp(s->files[i].path, path)) return &s->files[i];
  struct src_file *nf = realloc(s->files, (s->n + 1) * sizeof *nf);
  if (!nf) return NULL;
  s->files = nf;
  struct src_file *f = &s->files[s->n];
  memset(f, 0, sizeof *f);
  f->fd = -1;
  if (!(f->path = strdup(path))) return NULL;
  s->n++;
  if (file_fd(s, f) < 0) return f;
  if (f->size == 0) f->complete = 1;
  return f;
}

/* Line `line` (1-based, known to the scan) read from the file and kept. */
static const char *line_text(struct ct_sources *s, struct src_file *f, size_t line) {
  if (line > f->ntext) {
    size_t n = f->complete ? f->nstart : line + 1024;
    char **nt = realloc(f->text, n * sizeof *nt);
    if (!nt) return NULL;
    memset(nt + f->ntext, 0, (n - f->ntext) * sizeof *nt);
    f->text = nt;
    f->ntext = n;
  }
  if (f->text[line - 1]) return f->text[line - 1];
  uint64_t lo = f->start[line - 1], hi = line < f->nstart ? f->start[line] : f->size;
  int fd = file_fd(s, f);
  char *t = malloc(hi - lo + 1);
  if (fd < 0 || !t) return free(t), NULL;
  size_t len = 0;
  while (len < hi - lo) {
    ssize_t got = pread(fd, t + len, hi - lo - len, (off_t)(lo + len));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    len += (size_t)got;
  }
  if (len && t[len - 1] == '\n') len--;
  if (len && t[len - 1] == '\r') len--;
  t[len] = 0;
  return f->text[line - 1] = t;
}

const char *ct_source_line(struct ct_sources *s, const char *path, unsigned line) {
  struct src_file *f = find(s, path);
  if (!f || line == 0) return NULL;
  if (line <= f->ntext && f->text[line - 1]) return f->text[line - 1];
  scan_to(s, f, line);
  if (line > f->nstart || f->broken) return NULL;
  return line_text(s, f, line);
}

size_t ct_source_count(struct ct_sources *s, const char *path) {
  struct src_file *f = find(s, path);
  if (!f) return 0;
  scan_to(s, f, 0);
  return f->broken ? 0 : f->nstart;
}
