/* Reproducer (docs/fidelity.md, "a signal inside an edge's code"), -O0: the code an edge adds
 * to the path accumulator sits at the start of the edge's successor, and at -O0 it is a load, an
 * operation and a store to the accumulator's stack slot. A signal that lands before the store
 * finds the slot one edge behind while the CPU is already in the successor: the unfinished
 * path's walk stopped at the branch, the crash line was looked up in the blocks walked, and an
 * earlier loop iteration's copy of it was taken (seen in `sqlite-shell.O0.kill.4`: five lines of
 * sqlite3_complete's tokenizer loop shown from the iteration before). check.py sends SIGSEGV at
 * the store of each accumulator update in scan() (its 3rd arrival) and compares the last lines. */
#include <stdio.h>

static volatile long sink;

__attribute__((noinline)) static long scan(const char *s) {
  long n = 0;
  while (*s) {
    switch (*s) {
    case 'a':
      n += 1;
      break;
    case 'b':
      n += 20;
      break;
    default:
      n += 300;
      break;
    }
    s++;
  }
  return n;
}

int main(void) {
  for (int i = 0; i < 1000; i++) sink += scan("abcabbcaacb");
  printf("%ld\n", sink);
  return 0;
}
