/* vars.h - the calc program's variables. */
#ifndef CALC_VARS_H
#define CALC_VARS_H

struct var {
  char name[32];
  long value;
  struct var *next;
};

/* The variable called name, or NULL if it was never assigned. */
struct var *var_lookup(const char *name);
void var_set(const char *name, long value);

#endif
