/*
 * store_schema.c - opening the crash store: the schema and its migrations.
 *
 * The schema version is PRAGMA user_version. Migration N brings a store from version N-1 to N
 * and runs in the same transaction as the version bump, so an interrupted migration leaves the
 * old version intact. A store with a version above the newest migration was written by a newer
 * crashtrail and is refused, not modified. Text that repeats across steps (function and file
 * names) is kept once in `strings`.
 */
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "store_internal.h"

static const char *const migrations[] = {
    /* 1: the first schema */
    "CREATE TABLE strings(id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE);"
    "CREATE TABLE builds(id INTEGER PRIMARY KEY, build_id TEXT NOT NULL UNIQUE,"
    "  path TEXT, first_seen INTEGER NOT NULL);"
    "CREATE TABLE groups(id INTEGER PRIMARY KEY, signature TEXT NOT NULL UNIQUE, signal TEXT,"
    "  top_function TEXT, top_file TEXT, top_line INTEGER, first_seen INTEGER NOT NULL,"
    "  last_seen INTEGER NOT NULL, count INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE crashes(id INTEGER PRIMARY KEY, group_id INTEGER NOT NULL REFERENCES groups(id),"
    "  digest TEXT NOT NULL UNIQUE, dump_path TEXT, executable TEXT, pid INTEGER,"
    "  time_ns INTEGER, monotonic_ns INTEGER, reason INTEGER, message TEXT, arguments TEXT,"
    "  signo INTEGER, code INTEGER, fault_address INTEGER, sender_pid INTEGER,"
    "  crashed_thread INTEGER, pending_recovered INTEGER, ingested_at INTEGER NOT NULL);"
    "CREATE INDEX crashes_by_group ON crashes(group_id, time_ns);"
    "CREATE TABLE crash_modules(crash_id INTEGER NOT NULL REFERENCES crashes(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL, name TEXT, path TEXT, build INTEGER REFERENCES builds(id),"
    "  debug_file TEXT, bias INTEGER, instrumented INTEGER, PRIMARY KEY(crash_id, idx)) WITHOUT ROWID;"
    "CREATE TABLE threads(id INTEGER PRIMARY KEY,"
    "  crash_id INTEGER NOT NULL REFERENCES crashes(id) ON DELETE CASCADE, idx INTEGER NOT NULL,"
    "  tid INTEGER, name TEXT, flags INTEGER, records INTEGER, bad_records INTEGER,"
    "  history_lost INTEGER);"
    "CREATE INDEX threads_by_crash ON threads(crash_id, idx);"
    "CREATE TABLE inlines(crash_id INTEGER NOT NULL REFERENCES crashes(id) ON DELETE CASCADE,"
    "  id INTEGER NOT NULL, parent INTEGER, function INTEGER, call_file INTEGER,"
    "  call_line INTEGER, call_col INTEGER, PRIMARY KEY(crash_id, id)) WITHOUT ROWID;"
    "CREATE TABLE steps(thread_id INTEGER NOT NULL REFERENCES threads(id) ON DELETE CASCADE,"
    "  seq INTEGER NOT NULL, module INTEGER, function INTEGER, outer INTEGER, file INTEGER,"
    "  line INTEGER, col INTEGER, inline INTEGER, flags INTEGER, depth INTEGER, time_ns INTEGER,"
    "  PRIMARY KEY(thread_id, seq)) WITHOUT ROWID;"
    "CREATE TABLE frames(thread_id INTEGER NOT NULL REFERENCES threads(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL, pc INTEGER, module INTEGER, function TEXT, file TEXT, line INTEGER,"
    "  col INTEGER, inlined INTEGER, PRIMARY KEY(thread_id, idx)) WITHOUT ROWID;"
    "CREATE TABLE executed(crash_id INTEGER NOT NULL REFERENCES crashes(id) ON DELETE CASCADE,"
    "  kind INTEGER NOT NULL, idx INTEGER NOT NULL, module INTEGER, function INTEGER,"
    "  file INTEGER, line INTEGER, time_ns INTEGER, PRIMARY KEY(crash_id, kind, idx)) WITHOUT ROWID;"
    "CREATE TABLE warnings(crash_id INTEGER NOT NULL REFERENCES crashes(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL, text TEXT, PRIMARY KEY(crash_id, idx)) WITHOUT ROWID;",
    /* 2: consecutive runs of a line merged through a loop */
    "ALTER TABLE steps ADD COLUMN repeat INTEGER NOT NULL DEFAULT 0;",
    /* 3: the crashing frame's variables (the frame: threads.locals_*) */
    "ALTER TABLE threads ADD COLUMN locals_function TEXT;"
    "ALTER TABLE threads ADD COLUMN locals_file TEXT;"
    "ALTER TABLE threads ADD COLUMN locals_line INTEGER;"
    "CREATE TABLE locals(thread_id INTEGER NOT NULL REFERENCES threads(id) ON DELETE CASCADE,"
    "  idx INTEGER NOT NULL, function TEXT, name TEXT, type TEXT, value TEXT, known INTEGER,"
    "  PRIMARY KEY(thread_id, idx)) WITHOUT ROWID;",
    /* 4: the execution tables' time resolution (0: no tables); crashes stored before it had
     * tables of the clock's unit, 2^16 ns (CT_NOW_SHIFT) */
    "ALTER TABLE crashes ADD COLUMN table_resolution_ns INTEGER NOT NULL DEFAULT 0;"
    "UPDATE crashes SET table_resolution_ns = 65536"
    "  WHERE id IN (SELECT crash_id FROM executed);",
    /* 5: stack frames found by scanning the stack (above code without unwind information) */
    "ALTER TABLE frames ADD COLUMN scanned INTEGER NOT NULL DEFAULT 0;",
};
#define CT_STORE_VERSION ((int)(sizeof migrations / sizeof migrations[0]))

int ct_store_fail(struct ct_store *s, char *err, size_t errlen, const char *fmt, ...) {
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  snprintf(err, errlen, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
  return -1;
}

static int user_version(struct ct_store *s, int *v, char *err, size_t errlen) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
    return ct_store_fail(s, err, errlen, "not a crashtrail store");
  int rc = sqlite3_step(st);
  *v = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
  sqlite3_finalize(st);
  return rc == SQLITE_ROW ? 0 : ct_store_fail(s, err, errlen, "not a crashtrail store");
}

static int migrate(struct ct_store *s, int from, char *err, size_t errlen) {
  for (int v = from; v < CT_STORE_VERSION; v++) {
    char bump[64];
    snprintf(bump, sizeof bump, "PRAGMA user_version=%d", v + 1);
    if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
      return ct_store_fail(s, err, errlen, "cannot lock the store");
    if (sqlite3_exec(s->db, migrations[v], NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(s->db, bump, NULL, NULL, NULL) != SQLITE_OK) {
      ct_store_fail(s, err, errlen, "migrating the store to version %d", v + 1);
      sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
      return -1;
    }
    if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
      return ct_store_fail(s, err, errlen, "migrating the store to version %d", v + 1);
  }
  return 0;
}

int ct_store_open(const char *path, struct ct_store **out, char *err, size_t errlen) {
  struct ct_store *s = calloc(1, sizeof *s);
  int v = 0;
  *out = NULL;
  if (!s) return snprintf(err, errlen, "out of memory"), -1;
  s->path = strdup(path);
  if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
    ct_store_fail(s, err, errlen, "cannot open");
    ct_store_close(s);
    return -1;
  }
  sqlite3_busy_timeout(s->db, 10000);
  if (user_version(s, &v, err, errlen) != 0) {
    ct_store_close(s);
    return -1;
  }
  if (v > CT_STORE_VERSION) {
    snprintf(err, errlen, "%s: store schema version %d is newer than this crashtrail (%d); "
             "use a newer crashtrail", path, v, CT_STORE_VERSION);
    ct_store_close(s);
    return -1;
  }
  if (sqlite3_exec(s->db, "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON;", NULL, NULL, NULL) !=
          SQLITE_OK ||
      migrate(s, v, err, errlen) != 0) {
    if (!err[0]) ct_store_fail(s, err, errlen, "cannot set up");
    ct_store_close(s);
    return -1;
  }
  *out = s;
  return 0;
}

void ct_store_close(struct ct_store *s) {
  if (!s) return;
  sqlite3_close(s->db);
  free(s->path);
  free(s);
}

struct sqlite3 *ct_store_db(struct ct_store *s) { return s->db; }
