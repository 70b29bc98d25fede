/* million.c - about a million steps before a crash (100000 iterations of ~10 steps; the count
 * is argv[1]), with a pseudo-random branch per iteration so the steps do not fold away: the
 * viewer has to show most of them as rows. Run with CRASHTRAIL_RING_KB=65536 to keep them. */
#include <stdlib.h>

static unsigned long state = 12345;
static volatile long sink;

static unsigned long next_random(void) {
  state = state * 6364136223846793005ul + 1442695040888963407ul;
  return state >> 33;
}

static void left(long i) {
  sink += i;
}

static void right(long i) {
  sink -= i;
  sink ^= 5;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  for (long i = 0; i < n; i++) {
    if (next_random() & 1)
      left(i);
    else
      right(i);
  }
  volatile int *p = (volatile int *)(sink & 0);
  return *p; /* the crash: p is NULL */
}
