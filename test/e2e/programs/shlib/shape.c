/* libshape: an instrumented shared library whose area() crashes on a NULL shape. */
#include "shape.h"

int perimeter(const struct shape *s) {
  return 2 * (s->w + s->h); }                         //@p1

int area(const struct shape *s) {
  int a = s->w * s->h;                                //@a1
  return a; }                                         //@a2
