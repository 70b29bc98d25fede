/* lexer.h - tokens of the calc language: numbers, names, operators, '=' and ';'. */
#ifndef CALC_LEXER_H
#define CALC_LEXER_H

enum tok_kind { TOK_NUM, TOK_NAME, TOK_OP, TOK_ASSIGN, TOK_END_STMT, TOK_EOF };

struct token {
  enum tok_kind kind;
  long num;
  char text[32];
};

struct lexer {
  const char *p;
  struct token cur;
};

void lexer_init(struct lexer *lx, const char *src);
void lexer_next(struct lexer *lx);

#endif
