/*
 * escape.c - JSON string literals that are safe inside an HTML <script> element (escape.h).
 *
 * One pass over the bytes: runs of plain printable ASCII are written with one fwrite; every
 * other byte is either escaped, decoded as a UTF-8 sequence and copied when well formed, or
 * replaced by U+FFFD. The output is pure ASCII except for the copied well-formed sequences.
 */
#include "escape.h"

#include <stdint.h>

/* Length of the well-formed UTF-8 sequence at s (at most n bytes), or 0 if it is not one
 * (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF). *cp gets the code
 * point. */
static size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp) {
  size_t len;
  uint32_t c = s[0], min;
  if (c >= 0xC2 && c <= 0xDF) len = 2, c &= 0x1F, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF) len = 3, c &= 0x0F, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4) len = 4, c &= 0x07, min = 0x10000;
  else return 0;
  if (len > n) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    c = (c << 6) | (s[i] & 0x3F);
  }
  if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
  *cp = c;
  return len;
}

/* The escape for one ASCII byte, or NULL if it is written as itself. */
static const char *ascii_escape(unsigned char c, char buf[8]) {
  switch (c) {
  case '"': return "\\\"";
  case '\\': return "\\\\";
  case '\n': return "\\n";
  case '\t': return "\\t";
  case '\r': return "\\r";
  case '<': return "\\u003c";
  case '>': return "\\u003e";
  case '&': return "\\u0026";
  case '\'': return "\\u0027";
  }
  if (c < 0x20 || c == 0x7F) {
    snprintf(buf, 8, "\\u%04x", c);
    return buf;
  }
  return NULL;
}

void ct_js_string_n(FILE *out, const char *str, size_t n) {
  const unsigned char *s = (const unsigned char *)str;
  size_t i = 0, run = 0; /* s[run, i) is plain ASCII not yet written */
  char buf[8];
  putc('"', out);
  while (i < n) {
    unsigned char c = s[i];
    const char *esc;
    if (c < 0x80 && !(esc = ascii_escape(c, buf))) {
      i++;
      continue;
    }
    fwrite(s + run, 1, i - run, out);
    if (c < 0x80) {
      fputs(esc, out);
      i++;
    } else {
      uint32_t cp;
      size_t len = utf8_seq(s + i, n - i, &cp);
      if (!len) fputs("\\ufffd", out), i++;
      else if (cp == 0x2028 || cp == 0x2029) fprintf(out, "\\u%04x", cp), i += len;
      else fwrite(s + i, 1, len, out), i += len;
    }
    run = i;
  }
  fwrite(s + run, 1, i - run, out);
  putc('"', out);
}

void ct_js_string(FILE *out, const char *s) {
  if (!s) {
    fputs("null", out);
    return;
  }
  size_t n = 0;
  while (s[n]) n++;
  ct_js_string_n(out, s, n);
}
