/* main.c - calc: a tiny calculator with variables.
 *   calc 'x = 6; y = x * 7; y - 2'
 * With no argument it runs a built-in program whose last line uses an undefined variable,
 * which crashes it: the crashtrail demo. */
#include <stdio.h>

#include "eval.h"

int main(int argc, char **argv) {
  const char *program = argc > 1 ? argv[1]
                                 : "width = 12; height = 5; area = width * height;"
                                   "border = 2 * (width + height); area + border;"
                                   "total = area * depth";
  setvbuf(stdout, NULL, _IOLBF, 0);
  run_program(program);
  return 0;
}
