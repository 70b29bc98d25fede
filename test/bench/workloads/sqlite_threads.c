/*
 * sqlite_threads.c - the multi-threaded workload: THREADS threads, each with its own in-memory
 * SQLite database, run the same CPU-bound mix at once (inserts in a transaction, an index
 * build, range and LIKE queries, GROUP BY, ORDER BY, updates and deletes). All threads execute
 * the same SQLite code concurrently, which is what exposes contention in shared
 * instrumentation state (counters, tables) and per-thread rings.
 *
 *   sqlite_threads THREADS ROWS
 *
 * Prints one checksum per thread (the same for every thread and every build).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sqlite3.h"

struct stWorker {
  pthread_t id;
  int rows;
  int rc;
  int64_t sum;
};

static int stExec(sqlite3 *db, const char *sql) {
  char *err = NULL;
  int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
  if (rc != SQLITE_OK) fprintf(stderr, "sqlite_threads: %s: %s\n", sql, err ? err : "?");
  sqlite3_free(err);
  return rc;
}

/* Runs SQL with up to two integer parameters; adds every integer column of every row to *sum. */
static int stQuery(sqlite3 *db, const char *sql, int a, int b, int64_t *sum) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  if (rc == SQLITE_OK) {
    int np = sqlite3_bind_parameter_count(st);
    if (np >= 1) sqlite3_bind_int(st, 1, a);
    if (np >= 2) sqlite3_bind_int(st, 2, b);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
      for (int c = 0; c < sqlite3_column_count(st); c++) *sum += sqlite3_column_int64(st, c);
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
  }
  if (rc != SQLITE_OK) fprintf(stderr, "sqlite_threads: %s: %s\n", sql, sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return rc;
}

static void *stRun(void *arg) {
  struct stWorker *w = arg;
  sqlite3 *db = NULL;
  uint32_t x = 12345;
  int rc = sqlite3_open(":memory:", &db);
  if (rc == SQLITE_OK) rc = stExec(db, "CREATE TABLE t(a INTEGER, b INTEGER, c TEXT);BEGIN");
  for (int i = 0; rc == SQLITE_OK && i < w->rows; i++) {
    x = x * 1103515245u + 12345u;
    char sql[160];
    snprintf(sql, sizeof sql, "INSERT INTO t VALUES(%d, %u, 'item %u of %d')", i, x % 100000,
             x % 977, i % 13);
    rc = stExec(db, sql);
  }
  if (rc == SQLITE_OK) rc = stExec(db, "COMMIT;CREATE INDEX tb ON t(b);CREATE INDEX tc ON t(c)");
  for (int q = 0; rc == SQLITE_OK && q < 200; q++)
    rc = stQuery(db, "SELECT count(*), sum(a) FROM t WHERE b BETWEEN ?1 AND ?2", q * 400,
                 q * 400 + 5000, &w->sum);
  for (int q = 0; rc == SQLITE_OK && q < 20; q++)
    rc = stQuery(db, "SELECT count(*) FROM t WHERE c LIKE '%7 of 1%'", 0, 0, &w->sum);
  if (rc == SQLITE_OK)
    rc = stQuery(db, "SELECT b % 97, count(*), max(a) FROM t GROUP BY 1 ORDER BY 2 DESC", 0, 0,
                 &w->sum);
  if (rc == SQLITE_OK)
    rc = stQuery(db, "SELECT a FROM t ORDER BY c, b LIMIT 50 OFFSET ?1", w->rows / 2, 0, &w->sum);
  if (rc == SQLITE_OK) rc = stExec(db, "UPDATE t SET b = b + 1 WHERE a % 3 = 0");
  if (rc == SQLITE_OK) rc = stExec(db, "DELETE FROM t WHERE b % 5 = 0");
  if (rc == SQLITE_OK) rc = stQuery(db, "SELECT count(*), sum(b) FROM t", 0, 0, &w->sum);
  sqlite3_close(db);
  w->rc = rc;
  return NULL;
}

int main(int argc, char **argv) {
  int nthreads = argc > 1 ? atoi(argv[1]) : 4, rows = argc > 2 ? atoi(argv[2]) : 20000, failed = 0;
  struct stWorker *w = calloc(nthreads > 0 ? nthreads : 1, sizeof *w);
  if (nthreads < 1 || rows < 1 || !w)
    return fprintf(stderr, "usage: sqlite_threads THREADS ROWS\n"), 2;
  for (int i = 0; i < nthreads; i++) {
    w[i].rows = rows;
    if (pthread_create(&w[i].id, NULL, stRun, &w[i])) return perror("pthread_create"), 1;
  }
  for (int i = 0; i < nthreads; i++) {
    pthread_join(w[i].id, NULL);
    failed |= w[i].rc != SQLITE_OK;
    printf("thread %d: checksum %lld\n", i, (long long)w[i].sum);
  }
  free(w);
  return failed;
}
