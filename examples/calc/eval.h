/* eval.h - evaluates calc statements: NAME = EXPR; or EXPR; */
#ifndef CALC_EVAL_H
#define CALC_EVAL_H

#include "lexer.h"

/* Runs every statement of src, printing the value of each. */
void run_program(const char *src);

#endif
