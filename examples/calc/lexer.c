/* lexer.c - splits a calc program into tokens, one at a time. */
#include "lexer.h"

#include <ctype.h>
#include <string.h>

void lexer_init(struct lexer *lx, const char *src) {
  lx->p = src;
  lexer_next(lx);
}

void lexer_next(struct lexer *lx) {
  struct token *t = &lx->cur;
  while (isspace((unsigned char)*lx->p)) lx->p++;
  memset(t, 0, sizeof *t);
  if (*lx->p == 0) {
    t->kind = TOK_EOF;
  } else if (isdigit((unsigned char)*lx->p)) {
    t->kind = TOK_NUM;
    while (isdigit((unsigned char)*lx->p)) t->num = t->num * 10 + (*lx->p++ - '0');
  } else if (isalpha((unsigned char)*lx->p)) {
    size_t n = 0;
    t->kind = TOK_NAME;
    while (isalnum((unsigned char)*lx->p) && n + 1 < sizeof t->text) t->text[n++] = *lx->p++;
  } else if (*lx->p == '=') {
    t->kind = TOK_ASSIGN;
    lx->p++;
  } else if (*lx->p == ';') {
    t->kind = TOK_END_STMT;
    lx->p++;
  } else {
    t->kind = TOK_OP;
    t->text[0] = *lx->p++;
  }
}
