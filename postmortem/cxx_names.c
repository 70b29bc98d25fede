/*
 * cxx_names.c - a demangled C++ function name made short enough for a column.
 *
 * The timeline's text output gives a function 20 columns; demangled C++ names are mostly
 * template arguments and parameter types ("std::_Deque_iterator<Json::Value*, Json::Value*&,
 * Json::Value**>::_Deque_iterator(...)"), so cutting them at 20 leaves the class's namespace and
 * loses the method. One pass over the name at nesting depth 0 of <> and () keeps what names the
 * function: a space there ends a return type (dropped), "<...>" is skipped, the first "(...)"
 * is the parameter list (the name ends there), and "operator" keeps the symbol after it
 * ("operator<<", "operator()"); "(anonymous namespace)" is a scope. Then the last two scopes.
 *
 * Demangling is libstdc++'s (__cxa_demangle, the ABI's own entry point, callable from C).
 */
#include "cxx_names.h"

#include <stdlib.h>
#include <string.h>

/* <cxxabi.h>, which is C++ only, declares it with C linkage. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *ct_cxx_demangle(const char *linkage_name) {
  int status = -1;
  if (!linkage_name || strncmp(linkage_name, "_Z", 2) != 0) return NULL;
  char *d = __cxa_demangle(linkage_name, NULL, NULL, &status);
  if (status != 0) {
    free(d);
    return NULL;
  }
  return d;
}

static const char anon[] = "(anonymous namespace)";

/* The length of the operator symbol s starts with, the longest that matches: "operator+<char>"
 * is operator+ with template arguments, "operator<< <char>" is operator<< (the demangler puts a
 * space there). */
static size_t operator_symbol(const char *s) {
  static const char *const ops[] = {"->*", "<<=", ">>=", "<=>", "<<", ">>", "<=", ">=", "==", "!=",
                                    "&&", "||", "++", "--", "->", "+=", "-=", "*=", "/=", "%=",
                                    "&=", "|=", "^=", "[]", "()", "+", "-", "*", "/", "%", "^",
                                    "&", "|", "~", "!", "=", "<", ">", ","};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (!strncmp(s, ops[i], strlen(ops[i]))) return strlen(ops[i]);
  return 0;
}

const char *ct_cxx_short_name(const char *name, char *buf, size_t cap) {
  if (!name || (!strchr(name, '(') && !strchr(name, '<') && !strchr(name, ' '))) return name;
  char out[512];
  size_t n = 0;
  int angle = 0;
  const char *p = name;
  while (*p && n < sizeof out - 1) {
    if (!angle && !strncmp(p, anon, sizeof anon - 1)) {
      size_t k = sizeof anon - 1;
      if (n + k >= sizeof out) break;
      memcpy(out + n, p, k);
      n += k;
      p += k;
      continue;
    }
    if (!angle && !strncmp(p, "operator", 8) && (p == name || p[-1] == ':' || p[-1] == ' ') &&
        (p[8] < 'a' || p[8] > 'z') && (p[8] < 'A' || p[8] > 'Z') && p[8] != '_') {
      /* the operator's symbol: "()" or everything up to its parameter list */
      const char *e = p + 8;
      if (e[0] == ' ') /* new, delete, a conversion: "operator bool" */
        while (*e && *e != '(') e++;
      else
        e += operator_symbol(e);
      while (p < e && n < sizeof out - 1) out[n++] = *p++;
      continue;
    }
    char c = *p++;
    if (c == '<') angle++;
    else if (c == '>' && angle) angle--;
    else if (angle) continue;
    else if (c == '(') break; /* the parameters: the name is complete */
    else if (c == ' ' && *p == '<') continue; /* "operator<< <T>": its template arguments */
    else if (c == ' ') n = 0; /* what came before was a return type */
    else if (c != '>') out[n++] = c;
  }
  out[n] = 0;
  /* the last two scopes: after the third "::" from the end */
  const char *start = out;
  int seps = 0;
  for (size_t i = n; i-- > 1 && seps < 2;)
    if (out[i] == ':' && out[i - 1] == ':') {
      if (++seps == 2) start = out + i + 1;
      i--;
    }
  if (!*start) return name;
  strncpy(buf, start, cap - 1);
  buf[cap - 1] = 0;
  return buf;
}
