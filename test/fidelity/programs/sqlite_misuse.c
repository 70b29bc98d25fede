/* A real crash in SQLite through its public API: an application-defined SQL function passes a
 * NULL sqlite3_value* to sqlite3_value_bytes(), which dereferences it inside the library
 * (sqlite3ValueBytes, vdbemem.c). This is the kind of bug that API armor would catch, and
 * Debian's amalgamation is built without SQLITE_ENABLE_API_ARMOR, like most.
 *
 *   sqlite_misuse WORKLOAD.sql
 *
 * It runs the whole SQL workload first (schema, inserts, triggers, joins, aggregates), then
 * final_phase(): registers label(x), whose "cache" has no entry for a NULL argument, and runs a
 * join over the customers; the row with a NULL city crashes. The fidelity test starts its oracle
 * at final_phase (a breakpoint), so it is noinline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"

static sqlite3_value *label_cache[4]; /* the bug: never filled */

static void label(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  sqlite3_value *v = argv[0];
  (void)argc;
#ifndef CT_NO_MISUSE /* the round trip (test/roundtrip/sqlite_roundtrip.py) runs it to the end */
  if (sqlite3_value_type(v) == SQLITE_NULL)
    v = label_cache[0]; /* "use the cached default": NULL */
#endif
  int n = sqlite3_value_bytes(v);
  const unsigned char *s = sqlite3_value_text(v);
  char buf[64];
  snprintf(buf, sizeof buf, "%.3s/%d", s ? (const char *)s : "", n);
  sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

static int print_row(void *unused, int n, char **val, char **col) {
  (void)unused;
  (void)col;
  for (int i = 0; i < n; i++) printf("%s%s", i ? "|" : "", val[i] ? val[i] : "NULL");
  printf("\n");
  return 0;
}

static void check(sqlite3 *db, int rc, const char *what) {
  if (rc != SQLITE_OK) {
    fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
  }
}

__attribute__((noinline)) static void final_phase(sqlite3 *db) {
  char *err = NULL;
  check(db, sqlite3_create_function(db, "label", 1, SQLITE_UTF8, NULL, label, NULL, NULL),
        "create_function");
  check(db, sqlite3_exec(db, "UPDATE customer SET city = NULL WHERE id = 25", NULL, NULL, &err),
        "update");
  int rc = sqlite3_exec(db,
                        "SELECT c.id, label(c.city), count(o.id) FROM customer c "
                        "LEFT JOIN orders o ON o.customer_id = c.id "
                        "WHERE c.id <= 40 GROUP BY c.id ORDER BY c.id",
                        print_row, NULL, &err);
  check(db, rc, "final query");
}

int main(int argc, char **argv) {
  sqlite3 *db;
  if (argc != 2) {
    fprintf(stderr, "usage: sqlite_misuse WORKLOAD.sql\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "r");
  if (!f) {
    perror(argv[1]);
    return 2;
  }
  static char sql[1 << 16];
  size_t n = fread(sql, 1, sizeof sql - 1, f);
  fclose(f);
  sql[n] = 0;
  check(NULL, sqlite3_open(":memory:", &db), "open");
  char *err = NULL;
  if (sqlite3_exec(db, sql, print_row, NULL, &err) != SQLITE_OK) {
    fprintf(stderr, "workload: %s\n", err);
    return 1;
  }
  final_phase(db);
  sqlite3_close(db);
  return 0;
}
