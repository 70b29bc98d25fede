/*
 * report_sources.c - the source text a report carries: whole files while they fit the
 * budget, and otherwise the lines around the lines that ran.
 *
 * Algorithm:
 *   1. Collect every (file, line) the report names: step locations (with how many steps use
 *      them), inline call sites, stack frames, last/first-execution entries. Sort, dedupe.
 *   2. Per file: its line count, the bytes of the whole file, of its windows (each named line
 *      +-CONTEXT lines, windows closer than MERGE lines merged) and of its named lines alone.
 *   3. Order files by importance: the crash's file first, then by the number of steps in it.
 *   4. Every file gets its windows, in that order, while the total stays under WINDOW_CAP x
 *      budget; past that, files get their named lines only. Then, in the same order, a file
 *      is upgraded to whole when the total stays under the budget.
 * Invariant: every line of a step, frame or execution entry is in the report when its file is
 * readable (and under 16 MiB, source_cache.c); with CONTEXT lines around it unless the report
 * is already large. Lines longer than MAX_LINE are cut (at a UTF-8 character boundary).
 * Output: [{"file":S,"lines":N,"whole":B,"chunks":[first,[text...],...]}], readable files only.
 */
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "report.h"
#include "source_cache.h"

enum { CONTEXT = 4, MERGE = 3, MAX_LINE = 2000, WINDOW_CAP = 4 };

struct want {
  int32_t file;
  uint32_t line;
  uint64_t uses;
};

struct src {
  int32_t file;
  size_t first, count;  /* its wants */
  size_t nlines;
  uint64_t uses, whole_bytes, window_bytes, line_bytes;
  size_t context;       /* lines around each named line in its windows */
  int crash, whole;
};

static int want_cmp(const void *a, const void *b) {
  const struct want *x = a, *y = b;
  if (x->file != y->file) return x->file < y->file ? -1 : 1;
  return x->line < y->line ? -1 : x->line > y->line;
}

static int src_cmp(const void *a, const void *b) {
  const struct src *x = a, *y = b;
  if (x->crash != y->crash) return y->crash - x->crash;
  if (x->uses != y->uses) return x->uses > y->uses ? -1 : 1;
  return x->file - y->file;
}

static int add_want(struct want **w, size_t *n, size_t *cap, int32_t file, uint32_t line, uint64_t uses) {
  if (file < 0 || !line) return 0;
  if (*n == *cap) {
    size_t nc = *cap ? *cap * 2 : 256;
    struct want *nw = realloc(*w, nc * sizeof *nw);
    if (!nw) return -1;
    *w = nw;
    *cap = nc;
  }
  (*w)[(*n)++] = (struct want){file, line, uses};
  return 0;
}

/* Step 1. 0, or -1 when out of memory. */
static int collect(const struct ct_timeline *t, struct ct_intern *in, struct want **w, size_t *n) {
  size_t cap = 0;
  for (size_t i = 0; i < in->nlocs; i++)
    if (add_want(w, n, &cap, in->locs[i].file, in->locs[i].line, in->loc_uses[i])) return -1;
  for (size_t i = 0; i < in->ninls; i++)
    if (add_want(w, n, &cap, in->inls[i].call_file, in->inls[i].call_line, 0)) return -1;
  for (size_t k = 0; k < t->nthreads; k++)
    for (size_t i = 0; i < t->threads[k].nstack; i++) {
      const struct ct_frame *f = &t->threads[k].stack[i];
      int32_t file = ct_intern_str(in, f->file);
      if (file == -2 || add_want(w, n, &cap, file, f->line, 0)) return -1;
    }
  for (int pass = 0; pass < 2; pass++) {
    const struct ct_exec_entry *e = pass ? t->first_exec : t->last_exec;
    for (size_t i = 0, ne = pass ? t->nfirst : t->nlast; i < ne; i++) {
      int32_t file = ct_intern_str(in, e[i].file);
      if (file == -2 || add_want(w, n, &cap, file, e[i].line, 0)) return -1;
    }
  }
  return 0;
}

static size_t line_len(const char *text) {
  size_t n = strlen(text);
  if (n <= MAX_LINE) return n;
  n = MAX_LINE;
  while (n && ((unsigned char)text[n] & 0xC0) == 0x80) n--;
  return n;
}

static size_t range_bytes(struct ct_sources *cache, const char *path, size_t lo, size_t hi) {
  size_t b = 0;
  for (size_t l = lo; l <= hi; l++) {
    const char *text = ct_source_line(cache, path, (unsigned)l);
    b += (text ? line_len(text) : 0) + 3;
  }
  return b;
}

/* The next window of f at or after want index *at: [*lo, *hi]. 0 when there is none. */
static int next_window(const struct src *f, const struct want *w, size_t *at, size_t *lo, size_t *hi) {
  size_t end = f->first + f->count;
  while (*at < end && w[*at].line > f->nlines) (*at)++;
  if (*at >= end) return 0;
  *lo = w[*at].line > f->context ? w[*at].line - f->context : 1;
  *hi = w[*at].line + f->context;
  for ((*at)++; *at < end && w[*at].line <= f->nlines && w[*at].line <= *hi + MERGE + f->context; (*at)++)
    *hi = w[*at].line + f->context;
  if (*hi > f->nlines) *hi = f->nlines;
  return 1;
}

/* Step 2 for one file. */
static void measure(struct src *f, const struct want *w, struct ct_sources *cache, const char *path) {
  size_t n = ct_source_count(cache, path), at = f->first, lo, hi;
  const char *last = n ? ct_source_line(cache, path, (unsigned)n) : NULL;
  if (last && !*last) n--; /* the empty "line" after the final newline */
  f->nlines = n;
  if (!n) return;
  f->whole_bytes = range_bytes(cache, path, 1, n);
  f->context = CONTEXT;
  while (next_window(f, w, &at, &lo, &hi)) f->window_bytes += range_bytes(cache, path, lo, hi) + 16;
  f->context = 0;
  for (at = f->first; next_window(f, w, &at, &lo, &hi);) f->line_bytes += range_bytes(cache, path, lo, hi) + 16;
}

static void write_range(FILE *out, struct ct_sources *cache, const char *path, size_t lo, size_t hi) {
  ct_report_int(out, (int64_t)lo);
  fputs(",[", out);
  for (size_t l = lo; l <= hi; l++) {
    const char *text = ct_source_line(cache, path, (unsigned)l);
    if (l > lo) putc(',', out);
    ct_js_string_n(out, text ? text : "", text ? line_len(text) : 0);
  }
  putc(']', out);
}

static void write_file(FILE *out, const struct src *f, const struct want *w,
                       struct ct_sources *cache, const char *path, int comma) {
  size_t at = f->first, lo, hi, k = 0;
  fprintf(out, "%s{\"file\":%d,\"lines\":%zu,\"whole\":%s,\"chunks\":[", comma ? "," : "", f->file,
          f->nlines, f->whole ? "true" : "false");
  if (f->whole) write_range(out, cache, path, 1, f->nlines);
  else
    while (next_window(f, w, &at, &lo, &hi)) {
      if (k++) putc(',', out);
      write_range(out, cache, path, lo, hi);
    }
  fputs("]}", out);
}

/* Step 4 (the files are in order of importance). */
static void choose(struct src *files, size_t n, size_t budget) {
  uint64_t total = 0;
  for (size_t i = 0; i < n; i++) {
    struct src *f = &files[i];
    f->context = total + f->window_bytes <= WINDOW_CAP * (uint64_t)budget ? CONTEXT : 0;
    total += f->context ? f->window_bytes : f->line_bytes;
  }
  for (size_t i = 0; i < n; i++) {
    struct src *f = &files[i];
    uint64_t now = f->context ? f->window_bytes : f->line_bytes;
    if (f->nlines && total - now + f->whole_bytes <= budget) {
      f->whole = 1;
      total = total - now + f->whole_bytes;
    }
  }
}

/* The file of the crashed thread's last step, or -1. */
static int32_t crash_file(const struct ct_timeline *t, struct ct_intern *in) {
  if (t->crashed < 0 || !t->threads[t->crashed].nsteps) return -1;
  const struct ct_tl_thread *th = &t->threads[t->crashed];
  return ct_intern_str(in, th->steps[th->nsteps - 1].file);
}

int ct_report_write_sources(const struct ct_timeline *t, struct ct_intern *in, FILE *out,
                            size_t budget) {
  struct want *w = NULL;
  struct src *files = NULL;
  size_t nw = 0, nfiles = 0;
  struct ct_sources *cache = ct_sources_new();
  int32_t crash = crash_file(t, in);
  int rc = -1;
  if (!cache || crash == -2 || collect(t, in, &w, &nw) != 0) goto out;
  qsort(w, nw, sizeof *w, want_cmp);
  if (nw && !(files = calloc(nw, sizeof *files))) goto out;
  for (size_t i = 0; i < nw; i++) {
    if (i && w[i].file == w[i - 1].file && w[i].line == w[i - 1].line) {
      w[i - 1].uses += w[i].uses; /* duplicates stay in the array; windows skip them */
      files[nfiles - 1].uses += w[i].uses;
      continue;
    }
    if (!nfiles || files[nfiles - 1].file != w[i].file)
      files[nfiles++] = (struct src){.file = w[i].file, .first = i, .crash = w[i].file == crash};
    files[nfiles - 1].count = i + 1 - files[nfiles - 1].first;
    files[nfiles - 1].uses += w[i].uses;
  }
  for (size_t i = 0; i < nfiles; i++) measure(&files[i], w, cache, in->strs[files[i].file]);
  qsort(files, nfiles, sizeof *files, src_cmp);
  choose(files, nfiles, budget);
  putc('[', out);
  /* A file this machine cannot read (a library's, from its debug file: ./nptl/pthread_kill.c)
   * would carry only its name. */
  for (size_t i = 0, k = 0; i < nfiles; i++)
    if (files[i].nlines) write_file(out, &files[i], w, cache, in->strs[files[i].file], k++ > 0);
  putc(']', out);
  rc = 0;
out:
  free(w);
  free(files);
  ct_sources_free(cache);
  return rc;
}
