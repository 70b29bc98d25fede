/*
 * serve_pages.c - the pages of `crashtrail serve` (serve.h).
 *
 * The crash groups, a group's crashes and the error pages are assets/serve.html with its
 * markers filled like a report's (report_page.c):
 *   @CT_CSS@      viewer.css (the report's look: colours, header, tables), then serve.css
 *   @CT_JS@       serve.js, which builds the page from the data with textContent only
 *   @CT_DATA@     the page's JSON data (below), inside <script type="application/json">
 *   @CT_VERSION@  the crashtrail version
 * A crash is the report's own page (ct_report_write) of the timeline ct_store_load reads:
 * one front end for both. Every string from the store reaches a page through ct_js_string,
 * the viewer's one escaping function; the server writes no HTML of its own around it.
 *
 * The data ("crashtrail-serve", version 1):
 *   {"format", "version", "page": "groups"|"group"|"error", "db": store path,
 *    "groups": [G...]                                                  page "groups"
 *    "group": G, "crashes": [C...]                                     page "group"
 *    "status", "reason", "message"                                     page "error" }
 *   G = {"id", "count", "signal", "signature", "function", "file", "line", "builds",
 *        "first", "last" (Unix seconds, as stored), "program"}
 *   C = {"id", "time_ms", "pid", "exe", "args": [..], "signal", "code", "fault", "message",
 *        "tid", "thread", "builds": [build-id...], "dump"}
 * "builds" of a group counts the distinct builds of instrumented modules among its crashes
 * (as `crashtrail list` does); a crash lists its instrumented modules' build-ids.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "report.h"
#include "serve.h"
#include "store.h"

#ifndef CT_VERSION
#define CT_VERSION "unknown"
#endif

/* The columns of a group (G), in the order write_group reads them. */
#define GROUP_COLUMNS                                                                        \
  "g.id, g.count, g.signal, g.signature, g.top_function, g.top_file, g.top_line,"           \
  " g.first_seen, g.last_seen,"                                                              \
  " (SELECT count(DISTINCT m.build) FROM crashes c JOIN crash_modules m ON m.crash_id = c.id" \
  "  WHERE c.group_id = g.id AND m.instrumented),"                                           \
  " (SELECT c.executable FROM crashes c WHERE c.group_id = g.id"                             \
  "  ORDER BY c.time_ns DESC, c.id DESC LIMIT 1)"

/* The columns of a crash (C), in the order write_crash reads them. */
#define CRASH_COLUMNS                                                                        \
  "c.id, c.time_ns, c.pid, c.executable, c.arguments, c.signo, c.code, c.fault_address,"     \
  " c.message, c.crashed_thread,"                                                            \
  " (SELECT t.name FROM threads t WHERE t.crash_id = c.id AND t.tid = c.crashed_thread"      \
  "  ORDER BY t.idx LIMIT 1),"                                                               \
  " (SELECT group_concat(build_id, ' ') FROM (SELECT b.build_id FROM crash_modules m"        \
  "  JOIN builds b ON b.id = m.build WHERE m.crash_id = c.id AND m.instrumented"             \
  "  ORDER BY m.idx)),"                                                                      \
  " c.dump_path"

/* What a page's data writer gets. */
struct page {
  const struct ct_serve *s;
  sqlite3 *db;
  int64_t id;
  int status;    /* for error pages */
  const char *message;
};

/* ---- the store ------------------------------------------------------------------------ */

/* Logs a message of the store's, which names the path it was opened with: the URI, written
 * back as the file's path. */
static void log_store_error(const struct ct_serve *s, const char *err) {
  size_t n = strlen(s->db_uri);
  int uri = strncmp(err, s->db_uri, n) == 0;
  fprintf(stderr, "crashtrail serve: %s%s\n", uri ? s->db_path : "", uri ? err + n : err);
}

int ct_serve_open(const struct ct_serve *s, struct ct_store **out) {
  char err[1024];
  if (ct_store_open(s->db_uri, out, err, sizeof err) == 0) return 0;
  log_store_error(s, err);
  return -1;
}

static void log_db_error(const struct page *p, const char *what) {
  fprintf(stderr, "crashtrail serve: %s: %s: %s\n", p->s->db_path, what, sqlite3_errmsg(p->db));
}

/* ---- JSON ----------------------------------------------------------------------------- */

static void key(FILE *out, const char *k) { fprintf(out, ",\"%s\":", k); }

static void text_column(FILE *out, const char *k, sqlite3_stmt *st, int col) {
  key(out, k);
  ct_js_string(out, (const char *)sqlite3_column_text(st, col));
}

/* Writes G from a row of GROUP_COLUMNS. */
static void write_group(FILE *out, sqlite3_stmt *st) {
  fprintf(out, "{\"id\":%lld,\"count\":%lld", (long long)sqlite3_column_int64(st, 0),
          (long long)sqlite3_column_int64(st, 1));
  text_column(out, "signal", st, 2);
  text_column(out, "signature", st, 3);
  text_column(out, "function", st, 4);
  text_column(out, "file", st, 5);
  fprintf(out, ",\"line\":%lld,\"first\":%lld,\"last\":%lld,\"builds\":%lld",
          (long long)sqlite3_column_int64(st, 6), (long long)sqlite3_column_int64(st, 7),
          (long long)sqlite3_column_int64(st, 8), (long long)sqlite3_column_int64(st, 9));
  text_column(out, "program", st, 10);
  putc('}', out);
}

/* Writes the JSON array of the strings in s separated by sep (a NULL s: an empty array). */
static void write_split(FILE *out, const char *s, char sep) {
  putc('[', out);
  for (const char *p = s; p && *p;) {
    const char *e = strchr(p, sep);
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (p != s) putc(',', out);
    ct_js_string_n(out, p, n);
    p += n + (e != NULL);
  }
  putc(']', out);
}

/* Writes C from a row of CRASH_COLUMNS. */
static void write_crash(FILE *out, sqlite3_stmt *st) {
  int has_signal = sqlite3_column_type(st, 5) != SQLITE_NULL;
  int signo = sqlite3_column_int(st, 5), code = sqlite3_column_int(st, 6);
  fprintf(out, "{\"id\":%lld,\"time_ms\":%lld,\"pid\":%lld", (long long)sqlite3_column_int64(st, 0),
          (long long)(sqlite3_column_int64(st, 1) / 1000000), (long long)sqlite3_column_int64(st, 2));
  text_column(out, "exe", st, 3);
  key(out, "args");
  write_split(out, (const char *)sqlite3_column_text(st, 4), '\n');
  key(out, "signal");
  ct_js_string(out, has_signal ? ct_signal_name(signo) : NULL);
  key(out, "code");
  ct_js_string(out, has_signal ? ct_signal_code_name(signo, code) : NULL);
  fprintf(out, ",\"fault\":\"0x%llx\"", (unsigned long long)sqlite3_column_int64(st, 7));
  text_column(out, "message", st, 8);
  fprintf(out, ",\"tid\":%lld", (long long)sqlite3_column_int64(st, 9));
  text_column(out, "thread", st, 10);
  key(out, "builds");
  write_split(out, (const char *)sqlite3_column_text(st, 11), ' ');
  text_column(out, "dump", st, 12);
  putc('}', out);
}

/* ---- the data of each page: a status (CT_HTTP_*) -------------------------------------- */

static int groups_data(FILE *out, struct page *p) {
  sqlite3_stmt *st;
  int rc, n = 0;
  if (sqlite3_prepare_v2(p->db, "SELECT " GROUP_COLUMNS " FROM groups g"
                         " ORDER BY g.last_seen DESC, g.id", -1, &st, NULL) != SQLITE_OK)
    return log_db_error(p, "listing the groups"), CT_HTTP_ERROR;
  fputs(",\"groups\":[", out);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (n++) putc(',', out);
    write_group(out, st);
  }
  putc(']', out);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return log_db_error(p, "listing the groups"), CT_HTTP_ERROR;
  return CT_HTTP_OK;
}

static int group_data(FILE *out, struct page *p) {
  sqlite3_stmt *st;
  int rc, n = 0;
  if (sqlite3_prepare_v2(p->db, "SELECT " GROUP_COLUMNS " FROM groups g WHERE g.id = ?", -1, &st,
                         NULL) != SQLITE_OK)
    return log_db_error(p, "reading a group"), CT_HTTP_ERROR;
  sqlite3_bind_int64(st, 1, p->id);
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    fputs(",\"group\":", out);
    write_group(out, st);
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW)
    return rc == SQLITE_DONE ? CT_HTTP_NOT_FOUND : (log_db_error(p, "reading a group"), CT_HTTP_ERROR);
  if (sqlite3_prepare_v2(p->db, "SELECT " CRASH_COLUMNS " FROM crashes c WHERE c.group_id = ?"
                         " ORDER BY c.time_ns DESC, c.id DESC", -1, &st, NULL) != SQLITE_OK)
    return log_db_error(p, "listing a group's crashes"), CT_HTTP_ERROR;
  sqlite3_bind_int64(st, 1, p->id);
  fputs(",\"crashes\":[", out);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (n++) putc(',', out);
    write_crash(out, st);
  }
  putc(']', out);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return log_db_error(p, "listing a group's crashes"), CT_HTTP_ERROR;
  return CT_HTTP_OK;
}

static int error_data(FILE *out, struct page *p) {
  fprintf(out, ",\"status\":%d,\"reason\":", p->status);
  ct_js_string(out, ct_serve_reason(p->status));
  key(out, "message");
  ct_js_string(out, p->message);
  return CT_HTTP_OK;
}

/* ---- the page ------------------------------------------------------------------------- */

static void write_assets(FILE *out, const struct ct_asset *a, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(a[i].name, name)) {
      fprintf(out, "\n/* %s */\n", name);
      fwrite(a[i].data, 1, a[i].len, out);
    }
}

/* serve.html with its markers filled; the data is {"format", "version", "page", "db"} and
 * what data() adds. Returns data()'s status, or CT_HTTP_ERROR if the output failed. */
static int write_page(FILE *out, const char *kind, int (*data)(FILE *, struct page *),
                      struct page *p) {
  const char *t = NULL, *m, *end;
  int status = CT_HTTP_OK;
  for (size_t i = 0; i < ct_serve_nassets; i++)
    if (!strcmp(ct_serve_assets[i].name, "serve.html")) t = ct_serve_assets[i].data;
  if (!t) return CT_HTTP_ERROR;
  while (status == CT_HTTP_OK && (m = strstr(t, "@CT_"))) {
    fwrite(t, 1, (size_t)(m - t), out);
    end = strchr(m + 1, '@');
    size_t len = end ? (size_t)(end + 1 - m) : 4;
    t = m + len;
    if (!strncmp(m, "@CT_CSS@", len)) {
      write_assets(out, ct_viewer_assets, ct_viewer_nassets, "viewer.css");
      write_assets(out, ct_serve_assets, ct_serve_nassets, "serve.css");
    } else if (!strncmp(m, "@CT_JS@", len)) {
      write_assets(out, ct_serve_assets, ct_serve_nassets, "serve.js");
    } else if (!strncmp(m, "@CT_DATA@", len)) {
      fprintf(out, "{\"format\":\"crashtrail-serve\",\"version\":1,\"page\":\"%s\",\"db\":", kind);
      ct_js_string(out, p->s ? p->s->db_path : NULL);
      status = data(out, p);
      putc('}', out);
    } else if (!strncmp(m, "@CT_VERSION@", len)) {
      fputs(CT_VERSION, out);
    } else {
      fwrite(m, 1, len, out); /* not a marker */
    }
  }
  if (status == CT_HTTP_OK) fputs(t, out);
  return status == CT_HTTP_OK && ferror(out) ? CT_HTTP_ERROR : status;
}

/* Opens the store and runs the page in one read transaction (one snapshot of the store). */
static int store_page(const struct ct_serve *s, int64_t id, FILE *out, const char *kind,
                      int (*data)(FILE *, struct page *)) {
  struct ct_store *store;
  struct page p = {.s = s, .id = id};
  int status = CT_HTTP_ERROR;
  if (ct_serve_open(s, &store) != 0) return CT_HTTP_ERROR;
  p.db = ct_store_db(store);
  if (sqlite3_exec(p.db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) log_db_error(&p, "reading");
  else status = write_page(out, kind, data, &p);
  sqlite3_exec(p.db, "COMMIT", NULL, NULL, NULL);
  ct_store_close(store);
  return status;
}

int ct_serve_groups_page(const struct ct_serve *s, FILE *out) {
  return store_page(s, 0, out, "groups", groups_data);
}

int ct_serve_group_page(const struct ct_serve *s, int64_t id, FILE *out) {
  return store_page(s, id, out, "group", group_data);
}

int ct_serve_error_page(FILE *out, int status, const char *message) {
  struct page p = {.status = status, .message = message};
  return write_page(out, "error", error_data, &p) == CT_HTTP_OK ? 0 : -1;
}

/* The report's page of stored crash id. */
int ct_serve_crash_page(const struct ct_serve *s, int64_t id, FILE *out) {
  struct ct_store *store;
  struct ct_timeline *t = NULL;
  struct page p = {.s = s, .id = id};
  sqlite3_stmt *st;
  char err[1024];
  int status = CT_HTTP_ERROR;
  if (ct_serve_open(s, &store) != 0) return CT_HTTP_ERROR;
  p.db = ct_store_db(store);
  if (sqlite3_exec(p.db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(p.db, "SELECT 1 FROM crashes WHERE id = ?", -1, &st, NULL) != SQLITE_OK) {
    log_db_error(&p, "reading a crash");
    goto out;
  }
  sqlite3_bind_int64(st, 1, id);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW) {
    if (rc == SQLITE_DONE) status = CT_HTTP_NOT_FOUND;
    else log_db_error(&p, "reading a crash");
    goto out;
  }
  if (ct_store_load(store, id, &t, err, sizeof err) != 0)
    log_store_error(s, err);
  else if (ct_report_write(t, out, NULL) != 0)
    fprintf(stderr, "crashtrail serve: crash %lld: cannot write its page\n", (long long)id);
  else
    status = CT_HTTP_OK;
out:
  sqlite3_exec(p.db, "COMMIT", NULL, NULL, NULL);
  ct_timeline_free(t);
  ct_store_close(store);
  return status;
}

const char *ct_serve_reason(int status) {
  switch (status) {
  case CT_HTTP_OK: return "OK";
  case CT_HTTP_BAD_REQUEST: return "Bad Request";
  case CT_HTTP_NOT_FOUND: return "Not Found";
  case CT_HTTP_BAD_METHOD: return "Method Not Allowed";
  default: return "Internal Server Error";
  }
}
