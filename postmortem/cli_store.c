/*
 * cli_store.c - `crashtrail ingest` and `crashtrail list`: the crash store from the command line.
 *
 *   crashtrail ingest DUMP... [--db FILE] [--steps N] [--binary PATH]... [--debug-dir DIR]...
 *   crashtrail list [--db FILE] [--crashes] [--group N]
 *
 * The store is --db, else $CRASHTRAIL_DB, else ./crashtrail.db. Ingesting goes on past a bad
 * dump (and exits 1 at the end), so one corrupt file does not block a batch.
 */
#include <getopt.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "store.h"

const char *ct_default_db(const char *given) {
  const char *env = getenv("CRASHTRAIL_DB");
  return given ? given : env && *env ? env : "crashtrail.db";
}

int ct_cmd_ingest(int argc, char **argv) {
  static const struct option longopts[] = {{"db", 1, 0, 'd'}, {"steps", 1, 0, 's'},
                                           {"help", 0, 0, 'h'}, CT_FIND_OPTIONS, {0, 0, 0, 0}};
  struct ct_find_opts find = {.max_steps = CT_DEFAULT_KEPT_STEPS};
  const char *db = NULL;
  struct ct_store *store;
  char err[1024];
  int c, rc = 0;
  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    int r = ct_find_option(&find, c, optarg);
    if (r < 0) return 2;
    if (r > 0) continue;
    if (c == 'd') db = optarg;
    else if (c == 's') {
      if (ct_parse_steps(optarg, &find.max_steps) != 0) return 2;
    } else if (c == 'h')
      return puts("usage: crashtrail ingest DUMP... [--db FILE] [--binary PATH]... [--debug-dir DIR]...\n"
                  "  --line-order=machine|source   a block's lines as its machine code runs them\n"
                  "                                (default) or in the compiler's IR order\n"
                  "  --steps=N   keep each thread's newest N steps (default 1000000, 0 = all)"), 0;
    else return fprintf(stderr, "crashtrail: unknown or incomplete option '%s'\n", argv[optind - 1]), 2;
  }
  if (optind >= argc) return fprintf(stderr, "usage: crashtrail ingest DUMP... [--db FILE]\n"), 2;
  if (ct_store_open(ct_default_db(db), &store, err, sizeof err) != 0)
    return fprintf(stderr, "crashtrail: %s\n", err), 1;
  for (int i = optind; i < argc; i++) {
    struct ct_loaded l;
    struct ct_ingest_result r;
    char digest[65], path[4096];
    if (ct_file_digest(argv[i], digest) != 0) {
      fprintf(stderr, "crashtrail: %s: cannot read\n", argv[i]);
      rc = 1;
      continue;
    }
    if (ct_load(argv[i], &find, &l) != 0) {
      rc = 1;
      continue;
    }
    if (!realpath(argv[i], path)) snprintf(path, sizeof path, "%s", argv[i]);
    if (ct_store_ingest(store, l.timeline, digest, path, &r, err, sizeof err) != 0) {
      fprintf(stderr, "crashtrail: %s\n", err);
      rc = 1;
    } else if (r.existed) {
      printf("%s: already stored as crash %lld (group %lld)\n", argv[i], (long long)r.crash_id,
             (long long)r.group_id);
    } else {
      printf("%s: stored as crash %lld in group %lld: %s\n", argv[i], (long long)r.crash_id,
             (long long)r.group_id, r.signature);
    }
    ct_loaded_free(&l);
  }
  ct_store_close(store);
  return rc;
}

static void print_time(int64_t sec) {
  char buf[32];
  time_t t = (time_t)sec;
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  printf("%s", buf);
}

static int list_groups(sqlite3 *db) {
  sqlite3_stmt *st;
  const char *sql = "SELECT g.id, g.count, g.signature, g.first_seen, g.last_seen,"
                    " (SELECT count(DISTINCT m.build) FROM crashes c JOIN crash_modules m"
                    "  ON m.crash_id = c.id WHERE c.group_id = g.id AND m.instrumented),"
                    " g.top_file, g.top_line FROM groups g ORDER BY g.last_seen DESC, g.id";
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
  printf("%5s %6s  %-19s  %-19s %6s  %s\n", "GROUP", "COUNT", "FIRST SEEN (UTC)", "LAST SEEN (UTC)",
         "BUILDS", "SIGNATURE");
  while (sqlite3_step(st) == SQLITE_ROW) {
    printf("%5lld %6lld  ", sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1));
    print_time(sqlite3_column_int64(st, 3));
    printf("  ");
    print_time(sqlite3_column_int64(st, 4));
    const unsigned char *file = sqlite3_column_text(st, 6);
    const char *base = file ? strrchr((const char *)file, '/') : NULL;
    printf(" %6lld  %s", sqlite3_column_int64(st, 5), sqlite3_column_text(st, 2));
    if (file) printf("  (%s:%d)", base ? base + 1 : (const char *)file, sqlite3_column_int(st, 7));
    putchar('\n');
  }
  return sqlite3_finalize(st) == SQLITE_OK ? 0 : -1;
}

static int list_crashes(sqlite3 *db, long long group) {
  sqlite3_stmt *st;
  const char *sql = "SELECT c.id, c.group_id, c.time_ns, c.pid, c.executable, g.signature"
                    " FROM crashes c JOIN groups g ON g.id = c.group_id"
                    " WHERE ?1 < 0 OR c.group_id = ?1 ORDER BY c.time_ns DESC, c.id DESC";
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
  sqlite3_bind_int64(st, 1, group);
  printf("%5s %5s  %-19s %8s  %s\n", "CRASH", "GROUP", "TIME (UTC)", "PID", "EXECUTABLE / SIGNATURE");
  while (sqlite3_step(st) == SQLITE_ROW) {
    printf("%5lld %5lld  ", sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1));
    print_time(sqlite3_column_int64(st, 2) / 1000000000);
    printf(" %8lld  %s: %s\n", sqlite3_column_int64(st, 3), sqlite3_column_text(st, 4),
           sqlite3_column_text(st, 5));
  }
  return sqlite3_finalize(st) == SQLITE_OK ? 0 : -1;
}

int ct_cmd_list(int argc, char **argv) {
  static const struct option longopts[] = {{"db", 1, 0, 'd'}, {"crashes", 0, 0, 'c'},
                                           {"group", 1, 0, 'g'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
  const char *db = NULL;
  long long group = -1;
  int c, crashes = 0, rc;
  struct ct_store *store;
  char err[1024], *end;
  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    switch (c) {
    case 'd': db = optarg; break;
    case 'c': crashes = 1; break;
    case 'g':
      group = strtoll(optarg, &end, 10);
      if (*end || group < 0) return fprintf(stderr, "crashtrail: --group needs a group number\n"), 2;
      crashes = 1;
      break;
    case 'h': return puts("usage: crashtrail list [--db FILE] [--crashes] [--group N]"), 0;
    default: return fprintf(stderr, "crashtrail: unknown or incomplete option '%s'\n", argv[optind - 1]), 2;
    }
  }
  if (optind != argc) return fprintf(stderr, "usage: crashtrail list [--db FILE] [--crashes] [--group N]\n"), 2;
  if (ct_store_open(ct_default_db(db), &store, err, sizeof err) != 0)
    return fprintf(stderr, "crashtrail: %s\n", err), 1;
  rc = crashes ? list_crashes(ct_store_db(store), group) : list_groups(ct_store_db(store));
  if (rc != 0) fprintf(stderr, "crashtrail: %s: %s\n", ct_default_db(db), sqlite3_errmsg(ct_store_db(store)));
  ct_store_close(store);
  return rc ? 1 : 0;
}
