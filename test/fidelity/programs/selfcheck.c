/* The oracle's own check (lackey_check.py): a small single-threaded program, traced both by
 * steptrace and by valgrind's lackey, whose two instruction streams must agree. It has loops, a
 * switch, recursion, calls through a function pointer, a string routine of the C library, and
 * ends with a NULL dereference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct shape {
  int kind;
  int a, b;
  struct shape *next;
};

static int area(const struct shape *s) {
  switch (s->kind) {
  case 0:
    return s->a * s->a;
  case 1:
    return s->a * s->b;
  case 2:
    return s->a * s->b / 2;
  default:
    return -1;
  }
}

static int fib(int n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static int twice(int x) { return 2 * x; }
static int square(int x) { return x * x; }

int main(int argc, char **argv) {
  static struct shape pool[24];
  struct shape *list = NULL;
  int (*op)(int) = argc > 1 ? square : twice;
  (void)argv;
  for (int i = 0; i < 24; i++) {
    pool[i].kind = i % 4;
    pool[i].a = i + 1;
    pool[i].b = 24 - i;
    pool[i].next = list;
    list = &pool[i];
  }
  long total = 0;
  for (struct shape *s = list; s; s = s->next)
    total += op(area(s));
  char name[32];
  snprintf(name, sizeof name, "total-%ld", total);
  total += (long)strlen(name) + fib(12);
  printf("%s %ld\n", name, total);
  struct shape *missing = list;
  while (missing && missing->kind != 7)
    missing = missing->next;
  return missing->a; /* no shape of kind 7: NULL */
}
