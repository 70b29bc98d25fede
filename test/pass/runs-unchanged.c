// The instrumented program prints exactly what the plain one prints, at -O0 and -O2.
// RUN: %clang -O0 %s -o %t.plain && %t.plain > %t.want
// RUN: %clang -fplugin=%plugin -O0 %s %rt -o %t.o0 && %t.o0 > %t.got0 && diff %t.want %t.got0
// RUN: %clang -fplugin=%plugin -O2 %s %rt -o %t.o2 && %t.o2 > %t.got2 && diff %t.want %t.got2
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf env;
static int depth(int n) {
  if (n == 0) longjmp(env, 7);
  return depth(n - 1) + 1;
}
static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

int main(void) {
  int v[] = {5, 3, 9, 1, 7};
  qsort(v, 5, sizeof v[0], cmp);
  for (int i = 0; i < 5; i++) printf("%d ", v[i]);
  int r = setjmp(env);
  if (r == 0) depth(50);
  printf("\nlongjmp gave %d\n", r);
  switch (v[0] + v[4]) {
  case 10: puts("ten"); break;
  default: puts("other");
  }
  return 0;
}
