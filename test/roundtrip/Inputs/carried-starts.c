/* Records of a carried function that start in its caller's entry (round trip; the decoder's
 * record_flow_entered): pair() is static and called directly, but returns a struct that does not
 * fit one register, so it does not carry; its helper scale() does, and writes the first record
 * of pair()'s invocation (before its call of report()). main() reaches pair() through elided
 * flushes (right after another call), so the decoder must find where that record starts: the
 * caller pair() the model reaches (before record_flow_entered, the record was walked as if it
 * started in main() and the round trip differed at the 6th block). */
#include <stdio.h>
#include <stdlib.h>

struct two { long a, b; };
static volatile long sink;

__attribute__((noinline)) void report(long x) { sink += x; }

__attribute__((noinline)) static long scale(long x) {
  if (x & 1) x *= 3;
  report(x);
  if (x > 50) x -= 7;
  return x;
}

__attribute__((noinline)) static struct two pair(long x) {
  struct two t = {scale(x), scale(x + 1)};
  if (t.a > t.b) t.b = t.a;
  return t;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 40, s = 0;
  for (long i = 0; i < n; i++) {
    report(i);
    struct two t = pair(i);
    s += t.a + t.b;
  }
  printf("%ld\n", s);
  return 0;
}
