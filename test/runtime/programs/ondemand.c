/*
 * ondemand.c - four threads (ct-w0..ct-w3) work while dumps are taken, and go on working.
 *
 *   api      the main thread calls crashtrail_dump("first"), then crashtrail_dump("second")
 *   signal   prints "ready", then waits for lines on stdin while the test sends
 *            CRASHTRAIL_DUMP_SIGNAL from outside; "q" ends it
 *   plant    first plants symbolic links (to $CT_PLANT_TARGET) under every name the dump
 *            could take in the next seconds, then calls crashtrail_dump("planted") once
 *
 * Each worker counts its iterations; the program checks they kept counting after the dumps,
 * prints "work continued", and exits 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

int crashtrail_dump(const char *reason) __attribute__((weak));
const char *crashtrail_last_dump_path(void) __attribute__((weak));

#define NWORKERS 4

static atomic_int stop;
static atomic_long done[NWORKERS];
static volatile int sink;

__attribute__((noinline)) static int work(int i) { return i % 5 ? i * 3 : i - 2; }

static void *worker(void *arg) {
  int id = (int)(intptr_t)arg;
  char name[16];
  snprintf(name, sizeof name, "ct-w%d", id);
  pthread_setname_np(pthread_self(), name);
  while (!atomic_load(&stop)) {
    for (int i = 0; i < 1000; i++) sink += work(i + id);
    atomic_fetch_add(&done[id], 1);
  }
  return NULL;
}

static void snapshot(long out[NWORKERS]) {
  for (int i = 0; i < NWORKERS; i++) out[i] = atomic_load(&done[i]);
}

/* Waits until every worker has finished at least one more round than in `base`. */
static void wait_progress(const long base[NWORKERS]) {
  struct timespec ms = {0, 1000000};
  for (int i = 0; i < NWORKERS; i++)
    while (atomic_load(&done[i]) <= base[i]) nanosleep(&ms, NULL);
}

/* Symbolic links named like this process's dumps (docs/runtime.md) for the next seconds. */
static void plant_links(void) {
  const char *dir = getenv("CRASHTRAIL_DIR"), *target = getenv("CT_PLANT_TARGET");
  time_t now = time(NULL);
  if (!dir || !target) exit(4);
  for (time_t t = now - 1; t <= now + 3; t++) {
    char stamp[32], path[4096];
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", gmtime(&t));
    snprintf(path, sizeof path, "%s/crashtrail-ondemand-%d-%s.ctd", dir, (int)getpid(), stamp);
    if (symlink(target, path) != 0) exit(5);
  }
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "api";
  pthread_t t[NWORKERS];
  long base[NWORKERS] = {0};
  char line[64];
  pthread_setname_np(pthread_self(), "ct-main");
  for (int i = 0; i < NWORKERS; i++) pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
  wait_progress(base);
  if (!strcmp(mode, "plant")) {
    plant_links();
    printf("dump rc %d path %s\n", crashtrail_dump ? crashtrail_dump("planted") : -9,
           crashtrail_last_dump_path ? crashtrail_last_dump_path() : "-");
  } else if (!strcmp(mode, "api")) {
    if (!crashtrail_dump) return 3;
    for (int k = 0; k < 2; k++) {
      int rc = crashtrail_dump(k == 0 ? "first" : "second");
      printf("dump %d rc %d path %s\n", k, rc, crashtrail_last_dump_path());
      snapshot(base);
      wait_progress(base);
    }
  } else {
    puts("ready");
    fflush(stdout);
    while (fgets(line, sizeof line, stdin) && line[0] != 'q') {
      snapshot(base);
      wait_progress(base);
      puts("working");
      fflush(stdout);
    }
  }
  snapshot(base);
  wait_progress(base);
  atomic_store(&stop, 1);
  for (int i = 0; i < NWORKERS; i++) pthread_join(t[i], NULL);
  puts("work continued");
  return 0;
}
