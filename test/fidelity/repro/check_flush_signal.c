/* Reproducer (docs/fidelity.md, bug L), -O2: a signal inside the flush of a loop check that
 * fired. A check point flushes the accumulator when its next iteration could overflow it; the
 * flush is cold code at the check's line, run before the loop header's own code. A signal that
 * lands there before the record is stored finds the accumulator full: its walk ends exactly
 * where the check fires, and the walk reported the end without that block, so the crash line
 * was looked up in the blocks before it and found an iteration earlier (seen in
 * `threads.O2.kill.3` of the full matrix: the last iteration of round_of_work's loop missing,
 * LCS/200 0.940). One instruction later in the flush, after the store of the ring position and
 * before the accumulator restarts, the record is in the ring and still in the accumulator,
 * whose DWARF location is the register until it is overwritten: the iterations were shown
 * twice. check.py sends SIGSEGV at both places of every check's flush in work() (their 2nd
 * arrival) and compares every line since work() was called with the CPU's (the iterations
 * repeat the same lines: only their number tells one missing or doubled).
 * Both loops' checks must fire: a check's limit is 2^(63 - budget), so the outer one, with
 * the most bits before the next check (the three branches on `mix`), has the lower limit and
 * fires first, and the inner one fires only in a lookup long enough to cross from below the
 * outer limit to above its own: a third of the keys are missing (the whole chain walked). */
#include <stdio.h>

struct entry {
  struct entry *next;
  unsigned key;
  int value;
};

static struct entry pool[64], *bucket[8];
static volatile int sink;

__attribute__((noinline)) static int work(int rounds) {
  int found = 0;
  for (int i = 0; i < rounds; i++) {
    unsigned key = (unsigned)(i * 2654435761u) % 96, mix = i * 40503u >> 7;
    if (mix & 1) sink = 1;
    if (mix & 2) sink = 2;
    if (mix & 4) sink = 3;
    for (struct entry *e = bucket[key % 8]; e; e = e->next)
      if (e->key == key) {
        found += e->value;
        break;
      }
  }
  return found;
}

int main(void) {
  for (int i = 0; i < 64; i++) {
    pool[i].key = (unsigned)i;
    pool[i].value = i;
    pool[i].next = bucket[i % 8];
    bucket[i % 8] = &pool[i];
  }
  printf("%d\n", work(1000));
  return 0;
}
