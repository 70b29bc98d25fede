/* Calls into an instrumented shared library, which crashes.
 *
 * crashtrail-e2e
 * signal: SIGSEGV
 * library: shape.c
 * expect-O0: m1 m2 p1 m2 m3 a1
 * expect-O2: m1 m2 p1 m2 m3 a1
 * stack: area main
 */
#include <stdio.h>

#include "shape.h"

int main(int argc, char **argv) {
  struct shape box = {argc + 1, argc + 2}, *none = argc > 5 ? &box : NULL; //@m1
  printf("perimeter %d\n", perimeter(&box));           //@m2
  printf("area %d\n", area(none));                     //@m3
  return argv[0][0] == 0; }
