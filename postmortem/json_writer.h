/*
 * json_writer.h - streaming JSON output with correct escaping. Every string from a dump, a
 * binary or DWARF goes through jw_str, which escapes quotes, backslashes and control bytes and
 * replaces invalid UTF-8 with U+FFFD, so the output always parses.
 */
#ifndef CT_JSON_WRITER_H
#define CT_JSON_WRITER_H

#include <stdint.h>
#include <stdio.h>

struct jw {
  FILE *out;
  int depth;
  int first[64]; /* per nesting level: no element written yet */
  int pretty;
  int after_key; /* the next value follows a key: no separator */
};

void jw_init(struct jw *w, FILE *out, int pretty);
void jw_begin_object(struct jw *w);
void jw_end_object(struct jw *w);
void jw_begin_array(struct jw *w);
void jw_end_array(struct jw *w);
void jw_key(struct jw *w, const char *key);
void jw_str(struct jw *w, const char *s); /* NULL writes null */
void jw_int(struct jw *w, int64_t v);
void jw_uint(struct jw *w, uint64_t v);
void jw_bool(struct jw *w, int v);
void jw_null(struct jw *w);
void jw_hex(struct jw *w, uint64_t v);    /* "0x..." as a string */
/* Writes s as the contents of a JSON string (no quotes): for callers with their own framing. */
void jw_escape(FILE *out, const char *s);

#endif
