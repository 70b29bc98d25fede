/* Reproducer (docs/fidelity.md, "a line twice in the crashing block"), -O2. The last lookup()
 * loop, inlined into value_of(), is one IR block whose lines are, in IR order, 26:12 (e->key),
 * 25:54 (e = e->next), 26:9; the machine code runs them as 25, then 26. Key 1001 is not in its
 * chain and the compiler dropped the NULL test (the result is dereferenced), so the loop runs into
 * NULL and faults on e->key, line 26, in its 5th iteration. After line 33 the CPU ran
 *   25 26 25 26 25 26 25 26 25 26(fault)        five line-26 steps (steptrace)
 * and the timeline shows
 *   26 25 26 25 26 25 26 25 26 25 26(crash)     six: the crashing block is cut at the LAST line 26
 *                                               of its list (postmortem/stack.c, pending_path)
 * i.e. a phantom iteration, not marked uncertain.
 *   crashtrail-cc -O2 -gdwarf-4 crash_line_twice.c -o clt && CRASHTRAIL_DIR=. ./clt
 *   crashtrail show --format=json crashtrail-clt-*.ctd      (steps after the last line 33)
 * check.py compares it with the single-stepping oracle. */
#include <stdio.h>

struct entry {
  unsigned key;
  int value;
  struct entry *next;
};

static struct entry *bucket[64];

static struct entry *lookup(unsigned key) {
  for (struct entry *e = bucket[key % 64]; e; e = e->next)
    if (e->key == key)
      return e;
  return NULL;
}

__attribute__((noinline)) static int value_of(unsigned key) {
  int sum = 0;
  for (unsigned k = 0; k < 60; k++) {
    struct entry *e = lookup(k * 17 % 1000);
    if (e)
      sum += e->value;
  }
  struct entry *missing = lookup(key);
  return sum + missing->value;
}

int main(void) {
  static struct entry pool[256];
  for (unsigned i = 0; i < 256; i++) {
    pool[i].key = i * 7 % 1000;
    pool[i].value = (int)i;
    pool[i].next = bucket[pool[i].key % 64];
    bucket[pool[i].key % 64] = &pool[i];
  }
  printf("%d\n", value_of(1001));
  return 0;
}
