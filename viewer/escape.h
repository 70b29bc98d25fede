/*
 * escape.h - the one escaping function of the HTML report. Every string that came from outside
 * (a dump, a binary's metadata or DWARF, a source file, a path, a warning) reaches the page
 * through ct_js_string_n and nowhere else.
 *
 * The page carries its data as JSON inside <script type="application/json">, and the front end
 * only ever puts text on screen with textContent, so one encoding suffices: a JSON string
 * literal that also cannot end the <script> element or start an HTML comment or entity.
 */
#ifndef CT_VIEWER_ESCAPE_H
#define CT_VIEWER_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Writes the n bytes at s as a double-quoted JSON string literal such that:
 *   - `<`, `>`, `&`, `'` are written as \u003c \u003e \u0026 \u0027, so `</script`, `<!--`
 *     and `]]>` cannot appear in the output whatever the input;
 *   - `"`, `\` and control characters (C0 and DEL) are escaped, U+2028 and U+2029 too (they end
 *     lines in older JavaScript);
 *   - bytes that are not well-formed UTF-8 (stray continuation bytes, overlong forms,
 *     surrogates, code points over U+10FFFF, truncated sequences) become U+FFFD, one per byte.
 * NUL bytes inside the n bytes are written as \u0000. */
void ct_js_string_n(FILE *out, const char *s, size_t n);

/* The same for a NUL-terminated string; NULL is written as the JSON literal null. */
void ct_js_string(FILE *out, const char *s);

#endif
