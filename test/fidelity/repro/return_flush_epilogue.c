/* Reproducer (docs/fidelity.md, bug T), -O0: a signal after a function's return record is in
 * the ring, in the code between the position's store and the `ret` (at -O0 the return value is
 * reloaded from its stack slot there). The frame's accumulator still holds the record's bits,
 * but the post-mortem took the frame as not yet recorded only when the store was the
 * instruction right before the pc; otherwise it walked the bits again and showed the call twice
 * (seen in `jsoncpp.O0.kill.5`: jsoncpp's getNextChar()). check.py sends SIGSEGV at every
 * instruction from the last position store of next_char() to its `ret` (the 3rd arrival) and
 * compares the last lines. */
#include <stdio.h>

struct reader {
  const char *cur, *end;
};

static volatile long sink;

__attribute__((noinline)) static char next_char(struct reader *r) {
  if (r->cur == r->end)
    return 0;
  return *r->cur++;
}

__attribute__((noinline)) static long count_vowels(const char *text, long len) {
  struct reader r = {text, text + len};
  long n = 0;
  char c;
  while ((c = next_char(&r)) != 0)
    n += c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
  return n;
}

int main(void) {
  for (int i = 0; i < 100; i++) sink += count_vowels("a quiet evening", 15);
  printf("%ld\n", sink);
  return 0;
}
