/* vars.c - variables in a linked list, newest first. */
#include "vars.h"

#include <stdlib.h>
#include <string.h>

static struct var *vars;

struct var *var_lookup(const char *name) {
  for (struct var *v = vars; v; v = v->next)
    if (strcmp(v->name, name) == 0)
      return v;
  return NULL;
}

void var_set(const char *name, long value) {
  struct var *v = var_lookup(name);
  if (!v) {
    v = calloc(1, sizeof *v);
    strncpy(v->name, name, sizeof v->name - 1);
    v->next = vars;
    vars = v;
  }
  v->value = value;
}
