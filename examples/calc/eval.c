/* eval.c - a recursive-descent evaluator: expr := term (('+'|'-') term)*,
 * term := factor (('*'|'/') factor)*, factor := NUM | NAME | '(' expr ')'. */
#include "eval.h"

#include <stdio.h>

#include "vars.h"

static long expr(struct lexer *lx);

static long factor(struct lexer *lx) {
  long v = 0;
  if (lx->cur.kind == TOK_NUM) {
    v = lx->cur.num;
    lexer_next(lx);
  } else if (lx->cur.kind == TOK_NAME) {
    struct var *var = var_lookup(lx->cur.text);
    v = var->value; /* BUG: an unknown name is not reported */
    lexer_next(lx);
  } else if (lx->cur.kind == TOK_OP && lx->cur.text[0] == '(') {
    lexer_next(lx);
    v = expr(lx);
    lexer_next(lx);
  }
  return v;
}

static long term(struct lexer *lx) {
  long v = factor(lx);
  while (lx->cur.kind == TOK_OP && (lx->cur.text[0] == '*' || lx->cur.text[0] == '/')) {
    char op = lx->cur.text[0];
    lexer_next(lx);
    long r = factor(lx);
    v = op == '*' ? v * r : v / r;
  }
  return v;
}

static long expr(struct lexer *lx) {
  long v = term(lx);
  while (lx->cur.kind == TOK_OP && (lx->cur.text[0] == '+' || lx->cur.text[0] == '-')) {
    char op = lx->cur.text[0];
    lexer_next(lx);
    long r = term(lx);
    v = op == '+' ? v + r : v - r;
  }
  return v;
}

void run_program(const char *src) {
  struct lexer lx;
  lexer_init(&lx, src);
  while (lx.cur.kind != TOK_EOF) {
    char name[32] = "";
    if (lx.cur.kind == TOK_NAME) {
      struct lexer save = lx;
      lexer_next(&lx);
      if (lx.cur.kind == TOK_ASSIGN) {
        snprintf(name, sizeof name, "%s", save.cur.text);
        lexer_next(&lx);
      } else {
        lx = save;
      }
    }
    long v = expr(&lx);
    if (name[0]) var_set(name, v);
    printf("%s%s%ld\n", name, name[0] ? " = " : "", v);
    if (lx.cur.kind == TOK_END_STMT) lexer_next(&lx);
  }
}
