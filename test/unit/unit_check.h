/* unit_check.h - CHECK(cond, fmt, ...) for the C unit tests: on failure, says where and why on
 * stderr and counts it in `failures` (the test exits non-zero when it is not 0). */
#ifndef CT_UNIT_CHECK_H
#define CT_UNIT_CHECK_H

#include <stdio.h>

static int failures;

#define CHECK(cond, ...)                                \
  do {                                                  \
    if (!(cond)) {                                      \
      fprintf(stderr, "FAIL line %d: ", __LINE__);      \
      fprintf(stderr, __VA_ARGS__);                     \
      fputc('\n', stderr);                              \
      failures++;                                       \
    }                                                   \
  } while (0)

#endif
