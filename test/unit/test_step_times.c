/*
 * test_step_times.c - step_times.h's 32-bit steps give back the times put: written from the
 * last position down, read from the first up, across the cases that take an escape (the first
 * position, a step of exactly 2^32 - 1 ns and more, a time below the one before it: a record
 * without a time after those with one) and more escapes than the first allocation holds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "step_times.h"
#include "unit_check.h"

/* Puts times[0..n) backwards, reads them forwards; the escapes taken, or -1 on a mismatch. */
static long round_trip(const char *what, const uint64_t *times, size_t n) {
  uint32_t *delta = malloc((n ? n : 1) * sizeof *delta);
  struct ct_step_times t;
  ct_st_begin(&t, delta, n);
  for (size_t i = n; i-- > 0;) CHECK(ct_st_put(&t, i, times[i]) == 0, "%s: put %zu", what, i);
  struct ct_st_reader r = ct_st_read(&t);
  long bad = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t got = ct_st_next(&r, i);
    if (got != times[i] && !bad++)
      CHECK(0, "%s: position %zu reads %llu, put %llu", what, i, (unsigned long long)got,
            (unsigned long long)times[i]);
  }
  CHECK(r.esc == 0, "%s: %zu escapes left unread", what, r.esc);
  long esc = bad ? -1 : (long)t.nesc;
  ct_st_free(&t);
  free(delta);
  return esc;
}

int main(void) {
  CHECK(round_trip("empty", NULL, 0) == 0, "no position, no escape");

  const uint64_t one[] = {1796055246186759905ull};
  CHECK(round_trip("one", one, 1) == 1, "the first position is an escape");

  /* non-decreasing, small steps: only the first escapes */
  uint64_t steady[1000];
  for (size_t i = 0; i < 1000; i++) steady[i] = 5000000000ull + 767 * i + (i % 7 == 0 ? 3 : 0);
  CHECK(round_trip("steady", steady, 1000) == 1, "small steps take no escape");

  /* steps at and around the limit: 2^32 - 2 fits, 2^32 - 1 and above escape */
  const uint64_t base = 1000;
  const uint64_t limit[] = {base, base + 0xfffffffeull, base + 0xfffffffeull + 0xffffffffull,
                            base + 0xfffffffeull + 0xffffffffull + 0x100000000ull,
                            base + 0xfffffffeull + 0xffffffffull + 0x100000000ull + 1,
                            base + 0xfffffffeull + 0xffffffffull + 0x100000000ull + 1 +
                                (60ull * 1000000000ull)};
  CHECK(round_trip("limit", limit, 6) == 4, "the first, 2^32 - 1, 2^32 and 60 s escape");

  /* a record without a time (0) after those with one: the times go down, then stay */
  const uint64_t tail[] = {7000, 7001, 7001, 9000, 0, 0, 0};
  CHECK(round_trip("zeros", tail, 7) == 2, "the first and the drop to 0 escape");

  /* more escapes than the first allocation (64): every step a pause of 5 s */
  uint64_t pauses[300];
  for (size_t i = 0; i < 300; i++) pauses[i] = 1000 + i * 5000000000ull + (i & 1);
  CHECK(round_trip("pauses", pauses, 300) == 300, "every 5 s step escapes");

  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  else printf("step_times: all cases give back the times put\n");
  return failures != 0;
}
