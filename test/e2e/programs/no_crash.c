/* A program that does not crash: no dump, same output, same exit status.
 *
 * crashtrail-e2e
 * exit: 3
 */
#include <stdio.h>
#include <string.h>

static int collatz(long n) {
  int steps = 0;
  while (n != 1) {
    n = n % 2 ? 3 * n + 1 : n / 2;
    steps++;
  }
  return steps;
}

int main(int argc, char **argv) {
  long best = 0, at = 0;
  for (long i = 1; i < 20000 + argc; i++) {
    int s = collatz(i);
    if (s > best) best = s, at = i;
  }
  printf("longest chain below %d starts at %ld (%ld steps)\n", 20000 + argc, at, best);
  fprintf(stderr, "stderr works too: %zu\n", strlen(argv[0]) > 0 ? (size_t)1 : (size_t)0);
  return 3;
}
