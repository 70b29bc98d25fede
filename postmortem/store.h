/*
 * store.h - the crash store: crashes, their builds, modules, threads, steps, stack frames and
 * last/first traces in SQLite, grouped by signature (signal plus top frames). The schema is in
 * store_schema.c and docs/store.md; it is versioned with PRAGMA user_version and migrated
 * forward, never rebuilt.
 */
#ifndef CT_STORE_H
#define CT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "timeline.h"

struct sqlite3;
struct ct_store;

/* Opens (creating if missing) a store. Returns 0, or -1 with a reason: not a database, a
 * schema newer than this tool, an unwritable file. */
int ct_store_open(const char *path, struct ct_store **out, char *err, size_t errlen);
void ct_store_close(struct ct_store *s);
struct sqlite3 *ct_store_db(struct ct_store *s);

struct ct_ingest_result {
  int64_t crash_id, group_id;
  int existed;            /* the same dump (same SHA-256) was stored before */
  char signature[512];
};

/* Stores the crash t, read from the dump dump_path whose SHA-256 is digest, in one
 * transaction: all of it or nothing. 0, or -1 with a reason. */
int ct_store_ingest(struct ct_store *s, const struct ct_timeline *t, const char *digest,
                    const char *dump_path, struct ct_ingest_result *r, char *err, size_t errlen);

/* Loads stored crash `id` as a timeline (whose dump and mods are NULL). 0, or -1 with a reason
 * (no such crash). */
int ct_store_load(struct ct_store *s, int64_t id, struct ct_timeline **out, char *err, size_t errlen);

/* The grouping signature of a crash: "SIGSEGV at f < g < h" from the crashed thread's top
 * frames in instrumented code (or any named frames when there are none). */
void ct_store_signature(const struct ct_timeline *t, char *out, size_t len);

/* SHA-256 of a file as hex; 0, or -1 if it cannot be read. */
int ct_file_digest(const char *path, char hex[65]);

#endif
