/* Four threads doing the same kind of work on their own data (a chained hash table, an insertion
 * sort, string building), so the oracle has to keep the crashed thread's instructions apart from
 * the others'.
 *
 *   threads crash   worker 2, in its 40th round, calls crash_soon(), which looks up a key that
 *                   is not there and dereferences the NULL it gets (a real crash)
 *   threads kill    three workers work for a while, the main thread (which blocks SIGSEGV, as
 *                   servers block signals outside one thread) waits for them; the test sends
 *                   SIGSEGV to the process from outside, and whichever worker the kernel picks
 *                   is the crashed one */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBUCKET 64
#define NTHREAD 4

struct entry {
  unsigned key;
  int value;
  struct entry *next;
};

struct work {
  int id, rounds, crash;
  struct entry *bucket[NBUCKET];
  struct entry pool[512];
  int used;
  int sorted[48];
  char text[256];
  long result;
};

static struct entry *lookup(struct work *w, unsigned key) {
  for (struct entry *e = w->bucket[key % NBUCKET]; e; e = e->next)
    if (e->key == key)
      return e;
  return NULL;
}

static void insert(struct work *w, unsigned key, int value) {
  struct entry *e = lookup(w, key);
  if (e) {
    e->value += value;
    return;
  }
  if (w->used == 512)
    return;
  e = &w->pool[w->used++];
  e->key = key;
  e->value = value;
  e->next = w->bucket[key % NBUCKET];
  w->bucket[key % NBUCKET] = e;
}

static void sort(int *a, int n) {
  for (int i = 1; i < n; i++) {
    int x = a[i], j = i - 1;
    while (j >= 0 && a[j] > x) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = x;
  }
}

/* noinline: the kill case counts its calls (a breakpoint), also at -O2. */
__attribute__((noinline)) static void round_of_work(struct work *w, int round) {
  for (int i = 0; i < 48; i++) {
    unsigned key = (unsigned)(i * 2654435761u + round * 40503u + w->id) % 1000;
    insert(w, key, i);
    w->sorted[i] = (int)key;
  }
  sort(w->sorted, 48);
  int len = 0;
  for (int i = 0; i < 8 && len < 200; i++)
    len += snprintf(w->text + len, sizeof w->text - len, "%d,", w->sorted[i * 6]);
  w->result += len + w->sorted[47];
}

/* The bug: key 1001 is never inserted (keys are below 1000), so lookup returns NULL. */
__attribute__((noinline)) static void crash_soon(struct work *w) {
  long sum = 0;
  for (unsigned k = 0; k < 60; k++) {
    struct entry *e = lookup(w, k * 17 % 1000);
    if (e)
      sum += e->value;
  }
  struct entry *missing = lookup(w, 1001);
  w->result = sum + missing->value;
}

static void *worker(void *arg) {
  struct work *w = arg;
  for (int r = 0; r < w->rounds; r++) {
    round_of_work(w, r);
    if (w->crash && r == 40)
      crash_soon(w);
  }
  return NULL;
}

int main(int argc, char **argv) {
  int kill_mode = argc > 1 && strcmp(argv[1], "kill") == 0;
  static struct work work[NTHREAD];
  pthread_t tid[NTHREAD];
  for (int i = 0; i < NTHREAD; i++) {
    work[i].id = i;
    work[i].rounds = kill_mode ? 3000 : 200;
    work[i].crash = !kill_mode && i == 2;
  }
  for (int i = 1; i < NTHREAD; i++)
    pthread_create(&tid[i], NULL, worker, &work[i]);
  if (kill_mode) {
    sigset_t segv;
    sigemptyset(&segv);
    sigaddset(&segv, SIGSEGV);
    pthread_sigmask(SIG_BLOCK, &segv, NULL);
  } else {
    worker(&work[0]);
  }
  long total = 0;
  for (int i = 1; i < NTHREAD; i++) {
    pthread_join(tid[i], NULL);
    total += work[i].result;
  }
  printf("%ld\n", total + work[0].result);
  return 0;
}
