/*
 * source_cache.c - a small cache of source files split into lines. Files over 16 MiB are not
 * loaded (generated code; nobody reads those lines beside a timeline).
 */
#include "source_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct src_file {
  char *path, *text;
  char **lines;
  size_t nlines;
};

struct ct_sources {
  struct src_file *files;
  size_t n;
};

struct ct_sources *ct_sources_new(void) { return calloc(1, sizeof(struct ct_sources)); }

void ct_sources_free(struct ct_sources *s) {
  if (!s) return;
  for (size_t i = 0; i < s->n; i++) {
    free(s->files[i].path);
    free(s->files[i].text);
    free(s->files[i].lines);
  }
  free(s->files);
  free(s);
}

static void load(struct src_file *f) {
  FILE *fp = fopen(f->path, "rb");
  long len;
  if (!fp) return;
  if (fseek(fp, 0, SEEK_END) != 0 || (len = ftell(fp)) < 0 || len > (16l << 20) ||
      fseek(fp, 0, SEEK_SET) != 0) {
    fclose(fp);
    return;
  }
  f->text = malloc((size_t)len + 1);
  if (!f->text || fread(f->text, 1, (size_t)len, fp) != (size_t)len) {
    free(f->text);
    f->text = NULL;
    fclose(fp);
    return;
  }
  fclose(fp);
  f->text[len] = 0;
  size_t n = 1; /* memchr: a byte loop over an amalgamation's 9 MB is a visible share of `show` */
  for (const char *q = f->text, *end = f->text + len; (q = memchr(q, '\n', (size_t)(end - q))); q++) n++;
  f->lines = malloc(n * sizeof *f->lines);
  if (!f->lines) return;
  char *p = f->text;
  while (p && f->nlines < n) {
    f->lines[f->nlines++] = p;
    p = strchr(p, '\n');
    if (p) {
      if (p > f->text && p[-1] == '\r') p[-1] = 0;
      *p++ = 0;
    }
  }
}

static struct src_file *find(struct ct_sources *s, const char *path) {
  if (!s || !path) return NULL;
  for (size_t i = 0; i < s->n; i++)
    if (!strcmp(s->files[i].path, path)) return &s->files[i];
  struct src_file *nf = realloc(s->files, (s->n + 1) * sizeof *nf);
  if (!nf) return NULL;
  s->files = nf;
  struct src_file *f = &s->files[s->n++];
  memset(f, 0, sizeof *f);
  f->path = strdup(path);
  load(f);
  return f;
}

const char *ct_source_line(struct ct_sources *s, const char *path, unsigned line) {
  struct src_file *f = find(s, path);
  if (!f || line == 0 || line > f->nlines) return NULL;
  return f->lines[line - 1];
}

size_t ct_source_count(struct ct_sources *s, const char *path) {
  struct src_file *f = find(s, path);
  return f ? f->nlines : 0;
}
