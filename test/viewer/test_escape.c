/*
 * test_escape.c - the report's one escaping function (viewer/escape.c): every input is written
 * as a JSON string literal that contains no `<`, `>`, `&` or `'`, no raw control character, no
 * ill-formed UTF-8 and no raw U+2028/U+2029, and that a JSON parser reads back as the input
 * (ill-formed bytes as U+FFFD). Exact expected outputs for the cases that matter, then a
 * sweep over every single byte and every pair of bytes checking the invariants.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

static int failures;

static char *escaped(const char *s, size_t n) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) abort();
  ct_js_string_n(f, s, n);
  fclose(f);
  return buf;
}

static void expect(const char *in, size_t n, const char *want, int line) {
  char *got = escaped(in, n);
  if (strcmp(got, want)) {
    fprintf(stderr, "test_escape.c:%d: got %s, want %s\n", line, got, want);
    failures++;
  }
  free(got);
}
#define EXPECT(in, want) expect(in, sizeof(in) - 1, want, __LINE__)

/* The invariants of any output: quoted, ASCII-safe for HTML, no raw controls, valid UTF-8. */
static void check_safe(const char *in, size_t n) {
  char *out = escaped(in, n);
  size_t len = strlen(out);
  int ok = len >= 2 && out[0] == '"' && out[len - 1] == '"';
  for (size_t i = 1; ok && i + 1 < len; i++) {
    unsigned char c = (unsigned char)out[i];
    if (c == '<' || c == '>' || c == '&' || c == '\'' || c < 0x20 || c == 0x7f) ok = 0;
    if (c == '"' && out[i - 1] != '\\') ok = 0;
    if (c >= 0x80) { /* only well-formed sequences are copied; U+2028/9 never */
      size_t k = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
      if (c < 0xC2 || c > 0xF4 || i + k > len - 1) ok = 0;
      for (size_t j = 1; ok && j < k; j++) if (((unsigned char)out[i + j] & 0xC0) != 0x80) ok = 0;
      if (ok && c == 0xE2 && (unsigned char)out[i + 1] == 0x80 && ((unsigned char)out[i + 2] & 0xFE) == 0xA8) ok = 0;
      i += k - 1;
    }
  }
  if (!ok) {
    fprintf(stderr, "unsafe output for input of %zu bytes (first 0x%02x): %s\n", n,
            n ? (unsigned char)in[0] : 0, out);
    failures++;
  }
  free(out);
}

int main(void) {
  EXPECT("", "\"\"");
  EXPECT("plain text 123", "\"plain text 123\"");
  EXPECT("</script><!--", "\"\\u003c/script\\u003e\\u003c!--\"");
  EXPECT("a & b 'c' \"d\" \\e", "\"a \\u0026 b \\u0027c\\u0027 \\\"d\\\" \\\\e\"");
  EXPECT("\n\t\r\x01\x1f\x7f", "\"\\n\\t\\r\\u0001\\u001f\\u007f\"");
  EXPECT("nul\0byte", "\"nul\\u0000byte\"");
  EXPECT("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x92\xa5", "\"caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x92\xa5\"");
  EXPECT("line\xe2\x80\xa8sep\xe2\x80\xa9", "\"line\\u2028sep\\u2029\"");
  EXPECT("\xff\xfe", "\"\\ufffd\\ufffd\"");                   /* never valid */
  EXPECT("\xc0\xaf", "\"\\ufffd\\ufffd\"");                   /* overlong '/' */
  EXPECT("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");        /* a surrogate */
  EXPECT("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* above U+10FFFF */
  EXPECT("ab\xe2\x86", "\"ab\\ufffd\\ufffd\"");               /* truncated at the end */
  EXPECT("\x80x", "\"\\ufffdx\"");                            /* stray continuation byte */
  {
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    ct_js_string(f, NULL);
    fclose(f);
    if (strcmp(out, "null")) fprintf(stderr, "NULL gave %s\n", out), failures++;
    free(out);
  }
  for (int a = 0; a < 256; a++) {
    char s[3] = {(char)a, 0, 0};
    check_safe(s, 1);
    for (int b = 0; b < 256; b++) {
      s[1] = (char)b;
      check_safe(s, 2);
    }
  }
  check_safe("\xe2\x80\xa8\xe2\x80\xa9\xef\xbf\xbf", 9);
  printf("%s: %d failures\n", failures ? "FAIL" : "ok", failures);
  return failures != 0;
}
