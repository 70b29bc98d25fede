/*
 * json_writer.c - streaming JSON. A comma is written before every element but the first of its
 * container; keys set a flag so their value is not preceded by one.
 */
#include "json_writer.h"

#include <inttypes.h>
#include <string.h>

void jw_init(struct jw *w, FILE *out, int pretty) {
  memset(w, 0, sizeof *w);
  w->out = out;
  w->pretty = pretty;
  w->first[0] = 1;
}

static void sep(struct jw *w) {
  if (w->after_key) {
    w->after_key = 0;
    return;
  }
  if (!w->first[w->depth]) fputc(',', w->out);
  if (w->pretty && w->depth) {
    fputc('\n', w->out);
    for (int i = 0; i < w->depth; i++) fputs("  ", w->out);
  }
  w->first[w->depth] = 0;
}

static void open_(struct jw *w, char c) {
  sep(w);
  fputc(c, w->out);
  if (w->depth < 63) w->depth++;
  w->first[w->depth] = 1;
}

static void close_(struct jw *w, char c) {
  int empty = w->first[w->depth];
  if (w->depth) w->depth--;
  if (w->pretty && !empty) {
    fputc('\n', w->out);
    for (int i = 0; i < w->depth; i++) fputs("  ", w->out);
  }
  fputc(c, w->out);
}

void jw_begin_object(struct jw *w) { open_(w, '{'); }
void jw_end_object(struct jw *w) { close_(w, '}'); }
void jw_begin_array(struct jw *w) { open_(w, '['); }
void jw_end_array(struct jw *w) { close_(w, ']'); }

/* Length of a valid UTF-8 sequence at s, or 0. */
static int utf8_len(const unsigned char *s) {
  int n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
  if (s[0] >= 0xf5) return 0;
  for (int i = 1; i < n; i++)
    if ((s[i] & 0xc0) != 0x80) return 0;
  return n;
}

void jw_escape(FILE *out, const char *str) {
  const unsigned char *s = (const unsigned char *)str;
  while (*s) {
    if (*s == '"' || *s == '\\') {
      fputc('\\', out);
      fputc(*s++, out);
    } else if (*s < 0x20) {
      fprintf(out, "\\u%04x", *s++);
    } else if (*s < 0x80) {
      fputc(*s++, out);
    } else {
      int n = utf8_len(s);
      if (n == 0) {
        fputs("\\ufffd", out);
        s++;
      } else {
        fwrite(s, 1, (size_t)n, out);
        s += n;
      }
    }
  }
}

void jw_key(struct jw *w, const char *key) {
  sep(w);
  fputc('"', w->out);
  jw_escape(w->out, key);
  fputs(w->pretty ? "\": " : "\":", w->out);
  w->after_key = 1;
}

void jw_str(struct jw *w, const char *s) {
  if (!s) {
    jw_null(w);
    return;
  }
  sep(w);
  fputc('"', w->out);
  jw_escape(w->out, s);
  fputc('"', w->out);
}

void jw_int(struct jw *w, int64_t v) {
  sep(w);
  fprintf(w->out, "%" PRId64, v);
}

void jw_uint(struct jw *w, uint64_t v) {
  sep(w);
  fprintf(w->out, "%" PRIu64, v);
}

void jw_bool(struct jw *w, int v) {
  sep(w);
  fputs(v ? "true" : "false", w->out);
}

void jw_null(struct jw *w) {
  sep(w);
  fputs("null", w->out);
}

void jw_hex(struct jw *w, uint64_t v) {
  sep(w);
  fprintf(w->out, "\"0x%" PRIx64 "\"", v);
}
