/*
 * store_ingest.c - putting one crash into the store.
 *
 * Everything happens in one IMMEDIATE transaction: a crash is stored whole or not at all, so an
 * interrupted ingest (killed process, full disk) leaves the store as it was. The dump's SHA-256
 * is unique, so ingesting the same dump twice finds the first copy instead of duplicating it.
 * Strings are interned through an in-memory map from text to id, so a step costs one INSERT
 * of integers.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crashtrail/abi.h"
#include "crashtrail/dump_format.h"
#include "sha256.h"
#include "store.h"
#include "dwarf_module.h"
#include "store_internal.h"

int ct_file_digest(const char *path, char hex[65]) {
  struct ct_sha256 s;
  char buf[65536];
  ssize_t n;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ct_sha256_init(&s);
  while ((n = read(fd, buf, sizeof buf)) > 0) ct_sha256_update(&s, buf, (size_t)n);
  close(fd);
  if (n < 0) return -1;
  ct_sha256_hex(&s, hex);
  return 0;
}

/* ---- string interning ------------------------------------------------------------------- */
struct intern {
  sqlite3_stmt *ins, *sel;
  char **keys;
  int64_t *ids;
  size_t cap, n;
};

static uint64_t hash_str(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* The id of text (NULL -> SQL NULL, returned as 0). -1 on error. */
static int64_t intern(struct intern *in, const char *text) {
  if (!text) return 0;
  if (in->n * 2 >= in->cap) {
    size_t cap = in->cap ? in->cap * 2 : 1024;
    char **keys = calloc(cap, sizeof *keys);
    int64_t *ids = calloc(cap, sizeof *ids);
    if (!keys || !ids) return free(keys), free(ids), -1;
    for (size_t i = 0; i < in->cap; i++)
      if (in->keys[i]) {
        size_t h = hash_str(in->keys[i]) & (cap - 1);
        while (keys[h]) h = (h + 1) & (cap - 1);
        keys[h] = in->keys[i];
        ids[h] = in->ids[i];
      }
    free(in->keys);
    free(in->ids);
    in->keys = keys, in->ids = ids, in->cap = cap;
  }
  size_t h = hash_str(text) & (in->cap - 1);
  while (in->keys[h]) {
    if (!strcmp(in->keys[h], text)) return in->ids[h];
    h = (h + 1) & (in->cap - 1);
  }
  sqlite3_bind_text(in->ins, 1, text, -1, SQLITE_STATIC);
  int rc = sqlite3_step(in->ins);
  sqlite3_reset(in->ins);
  if (rc != SQLITE_DONE) return -1;
  sqlite3_bind_text(in->sel, 1, text, -1, SQLITE_STATIC);
  int64_t id = sqlite3_step(in->sel) == SQLITE_ROW ? sqlite3_column_int64(in->sel, 0) : -1;
  sqlite3_reset(in->sel);
  if (id < 0 || !(in->keys[h] = strdup(text))) return -1;
  in->ids[h] = id;
  in->n++;
  return id;
}

static void intern_free(struct intern *in) {
  for (size_t i = 0; i < in->cap; i++) free(in->keys[i]);
  free(in->keys);
  free(in->ids);
  sqlite3_finalize(in->ins);
  sqlite3_finalize(in->sel);
}

/* ---- statements --------------------------------------------------------------------------- */
/* Runs a prepared statement with its bindings; resets it. SQLITE_DONE/ROW -> 0. */
static int run(sqlite3_stmt *st) {
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s) {
  if (s) sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
  else sqlite3_bind_null(st, i);
}

static void bind_id(sqlite3_stmt *st, int i, int64_t id) {
  if (id > 0) sqlite3_bind_int64(st, i, id);
  else sqlite3_bind_null(st, i);
}

void ct_store_signature(const struct ct_timeline *t, char *out, size_t len) {
  const struct ct_tl_thread *th = t->crashed >= 0 ? &t->threads[t->crashed] : NULL;
  size_t n = 0, taken = 0;
  n += (size_t)snprintf(out, len, "%s at", t->info.has_signal ? ct_signal_name(t->info.signo) : "request");
  for (int pass = 0; th && pass < 2 && taken == 0; pass++)
    for (size_t i = 0; i < th->nstack && taken < 3 && n < len; i++) {
      const struct ct_frame *f = &th->stack[i];
      int known = f->function && strcmp(f->function, "??") != 0;
      /* First choice: frames with source lines in instrumented modules (not _start & co). */
      int ours = f->module >= 0 && (size_t)f->module < t->nmodules &&
                 t->modules[f->module].instrumented && f->file;
      if (!known || (pass == 0 && !ours)) continue;
      n += (size_t)snprintf(out + n, len - n, "%s %s", taken ? " <" : "", f->function);
      taken++;
    }
  if (!taken && n < len) snprintf(out + n, len - n, " an unknown place");
}

/* The group row for t's signature, created or updated; its id, or -1. */
static int64_t upsert_group(sqlite3 *db, const struct ct_timeline *t, const char *sig, int64_t now) {
  const struct ct_tl_thread *th = t->crashed >= 0 ? &t->threads[t->crashed] : NULL;
  const struct ct_step *last = th && th->nsteps ? &th->steps[th->nsteps - 1] : NULL;
  sqlite3_stmt *st;
  int64_t id = -1;
  const char *sql = "INSERT INTO groups(signature, signal, top_function, top_file, top_line,"
                    " first_seen, last_seen, count) VALUES(?1,?2,?3,?4,?5,?6,?6,0)"
                    " ON CONFLICT(signature) DO UPDATE SET last_seen=max(last_seen, ?6),"
                    " first_seen=min(first_seen, ?6) RETURNING id";
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
  bind_text(st, 1, sig);
  bind_text(st, 2, t->info.has_signal ? ct_signal_name(t->info.signo) : NULL);
  bind_text(st, 3, last ? last->function : NULL);
  bind_text(st, 4, last ? last->file : NULL);
  sqlite3_bind_int(st, 5, last ? (int)last->line : 0);
  sqlite3_bind_int64(st, 6, now);
  if (sqlite3_step(st) == SQLITE_ROW) id = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return id;
}

struct ingest {
  sqlite3 *db;
  const struct ct_timeline *t;
  int64_t crash;
  struct intern in;
  /* inline frames already given an id: pointer -> id */
  const struct ct_inline_frame **inl_keys;
  int64_t *inl_ids;
  size_t ninl, inl_cap;
  sqlite3_stmt *inl_stmt;
};

/* The id of an inline frame in this crash, storing it (and its parents) first. -1 on error. */
static int64_t inline_id(struct ingest *g, const struct ct_inline_frame *f) {
  if (!f) return 0;
  for (size_t i = 0; i < g->ninl; i++) /* frames per crash are few; steps reuse them */
    if (g->inl_keys[i] == f) return g->inl_ids[i];
  int64_t parent = inline_id(g, f->parent);
  if (parent < 0) return -1;
  if (g->ninl == g->inl_cap) {
    size_t cap = g->inl_cap ? g->inl_cap * 2 : 64;
    const struct ct_inline_frame **k = realloc(g->inl_keys, cap * sizeof *k);
    if (!k) return -1;
    g->inl_keys = k;
    int64_t *v = realloc(g->inl_ids, cap * sizeof *v);
    if (!v) return -1;
    g->inl_ids = v;
    g->inl_cap = cap;
  }
  int64_t id = (int64_t)g->ninl + 1;
  sqlite3_stmt *st = g->inl_stmt;
  sqlite3_bind_int64(st, 1, g->crash);
  sqlite3_bind_int64(st, 2, id);
  bind_id(st, 3, parent);
  bind_id(st, 4, intern(&g->in, f->function));
  bind_id(st, 5, intern(&g->in, f->call_file));
  sqlite3_bind_int(st, 6, (int)f->call_line);
  sqlite3_bind_int(st, 7, (int)f->call_col);
  if (run(st) != 0) return -1;
  g->inl_keys[g->ninl] = f;
  g->inl_ids[g->ninl++] = id;
  return id;
}

static int insert_crash(struct ingest *g, int64_t group, const char *digest, const char *dump_path) {
  const struct ct_crash_info *i = &g->t->info;
  sqlite3_stmt *st;
  char *args = NULL;
  size_t alen = 0;
  for (size_t k = 0; k < i->narguments; k++) alen += strlen(i->arguments[k]) + 1;
  args = calloc(alen + 1, 1);
  for (size_t k = 0, at = 0; args && k < i->narguments; k++) {
    size_t n = strlen(i->arguments[k]);
    memcpy(args + at, i->arguments[k], n);
    at += n;
    if (k + 1 < i->narguments) args[at++] = '\n';
  }
  const char *sql = "INSERT INTO crashes(group_id, digest, dump_path, executable, pid, time_ns,"
                    " monotonic_ns, reason, message, arguments, signo, code, fault_address,"
                    " sender_pid, crashed_thread, pending_recovered, ingested_at,"
                    " table_resolution_ns) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
  if (!args || sqlite3_prepare_v2(g->db, sql, -1, &st, NULL) != SQLITE_OK) return free(args), -1;
  sqlite3_bind_int64(st, 1, group);
  bind_text(st, 2, digest);
  bind_text(st, 3, dump_path);
  bind_text(st, 4, i->executable);
  sqlite3_bind_int64(st, 5, i->pid);
  sqlite3_bind_int64(st, 6, i->realtime_ns);
  sqlite3_bind_int64(st, 7, (int64_t)i->monotonic_ns);
  sqlite3_bind_int(st, 8, i->reason);
  bind_text(st, 9, i->message);
  bind_text(st, 10, args);
  if (i->has_signal) {
    sqlite3_bind_int(st, 11, i->signo);
    sqlite3_bind_int(st, 12, i->code);
    sqlite3_bind_int64(st, 13, (int64_t)i->fault_addr);
    sqlite3_bind_int(st, 14, i->sender_pid);
  }
  if (g->t->crashed >= 0) sqlite3_bind_int64(st, 15, g->t->threads[g->t->crashed].tid);
  sqlite3_bind_int(st, 16, g->t->pending_recovered);
  sqlite3_bind_int64(st, 17, (int64_t)time(NULL));
  sqlite3_bind_int64(st, 18, (int64_t)g->t->table_resolution_ns);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  free(args);
  if (rc != SQLITE_DONE) return -1;
  g->crash = sqlite3_last_insert_rowid(g->db);
  return 0;
}

static int insert_modules(struct ingest *g) {
  sqlite3_stmt *mod, *build;
  int rc = 0;
  if (sqlite3_prepare_v2(g->db, "INSERT INTO crash_modules VALUES(?,?,?,?,"
                         "(SELECT id FROM builds WHERE build_id=?),?,?,?)", -1, &mod, NULL) != SQLITE_OK)
    return -1;
  if (sqlite3_prepare_v2(g->db, "INSERT INTO builds(build_id, path, first_seen) VALUES(?,?,?)"
                         " ON CONFLICT(build_id) DO NOTHING", -1, &build, NULL) != SQLITE_OK) {
    sqlite3_finalize(mod);
    return -1;
  }
  for (size_t k = 0; k < g->t->nmodules && rc == 0; k++) {
    const struct ct_tl_module *m = &g->t->modules[k];
    if (m->build_id) {
      bind_text(build, 1, m->build_id);
      bind_text(build, 2, m->path);
      sqlite3_bind_int64(build, 3, g->t->info.realtime_ns / 1000000000);
      rc = run(build);
    }
    sqlite3_bind_int64(mod, 1, g->crash);
    sqlite3_bind_int64(mod, 2, (int64_t)k);
    bind_text(mod, 3, m->name);
    bind_text(mod, 4, m->path);
    bind_text(mod, 5, m->build_id);
    bind_text(mod, 6, m->debug_file);
    sqlite3_bind_int64(mod, 7, (int64_t)m->bias);
    sqlite3_bind_int(mod, 8, m->instrumented);
    rc = rc ? rc : run(mod);
  }
  sqlite3_finalize(mod);
  sqlite3_finalize(build);
  return rc;
}

static int insert_steps(struct ingest *g, sqlite3_stmt *st, int64_t thread,
                        const struct ct_tl_thread *th) {
  for (size_t k = 0; k < th->nsteps; k++) {
    const struct ct_step *s = &th->steps[k];
    int64_t fn = intern(&g->in, s->function), outer = intern(&g->in, s->outer),
            file = intern(&g->in, s->file), inl = inline_id(g, s->inl);
    if (fn < 0 || outer < 0 || file < 0 || inl < 0) return -1;
    sqlite3_bind_int64(st, 1, thread);
    sqlite3_bind_int64(st, 2, (int64_t)(th->first_seq + k));
    sqlite3_bind_int(st, 3, s->module);
    bind_id(st, 4, fn);
    bind_id(st, 5, outer);
    bind_id(st, 6, file);
    sqlite3_bind_int(st, 7, (int)s->line);
    sqlite3_bind_int(st, 8, (int)s->col);
    bind_id(st, 9, inl);
    sqlite3_bind_int(st, 10, s->flags);
    sqlite3_bind_int(st, 11, (int)s->depth);
    sqlite3_bind_int64(st, 12, (int64_t)s->time_ns);
    sqlite3_bind_int64(st, 13, s->repeat);
    if (run(st) != 0) return -1;
  }
  return 0;
}

static int insert_frames(sqlite3_stmt *st, int64_t thread, const struct ct_tl_thread *th) {
  for (size_t k = 0; k < th->nstack; k++) {
    const struct ct_frame *f = &th->stack[k];
    sqlite3_bind_int64(st, 1, thread);
    sqlite3_bind_int64(st, 2, (int64_t)(th->first_seq + k));
    sqlite3_bind_int64(st, 3, (int64_t)f->pc);
    sqlite3_bind_int(st, 4, f->module);
    bind_text(st, 5, f->function);
    bind_text(st, 6, f->file);
    sqlite3_bind_int(st, 7, (int)f->line);
    sqlite3_bind_int(st, 8, (int)f->col);
    sqlite3_bind_int(st, 9, f->inlined);
    sqlite3_bind_int(st, 10, f->scanned);
    if (run(st) != 0) return -1;
  }
  return 0;
}

static int insert_locals(sqlite3_stmt *st, int64_t thread, const struct ct_tl_thread *th) {
  for (size_t k = 0; k < th->nlocals; k++) {
    const struct ct_local *l = &th->locals[k];
    sqlite3_bind_int64(st, 1, thread);
    sqlite3_bind_int64(st, 2, (int64_t)(th->first_seq + k));
    bind_text(st, 3, l->function);
    bind_text(st, 4, l->name);
    bind_text(st, 5, l->type);
    bind_text(st, 6, l->value);
    sqlite3_bind_int(st, 7, l->known);
    if (run(st) != 0) return -1;
  }
  return 0;
}

static int insert_threads(struct ingest *g) {
  sqlite3_stmt *thr = NULL, *step = NULL, *frame = NULL, *local = NULL;
  int rc = -1;
  if (sqlite3_prepare_v2(g->db, "INSERT INTO threads(crash_id, idx, tid, name, flags, records,"
                         " bad_records, history_lost, locals_function, locals_file, locals_line)"
                         " VALUES(?,?,?,?,?,?,?,?,?,?,?)", -1, &thr, NULL) ||
      sqlite3_prepare_v2(g->db, "INSERT INTO steps VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &step, NULL) ||
      sqlite3_prepare_v2(g->db, "INSERT INTO frames(thread_id, idx, pc, module, function, file, line, col, inlined,"
                         " scanned) VALUES(?,?,?,?,?,?,?,?,?,?)", -1, &frame, NULL) ||
      sqlite3_prepare_v2(g->db, "INSERT INTO locals VALUES(?,?,?,?,?,?,?)", -1, &local, NULL))
    goto out;
  for (size_t k = 0; k < g->t->nthreads; k++) {
    const struct ct_tl_thread *th = &g->t->threads[k];
    sqlite3_bind_int64(thr, 1, g->crash);
    sqlite3_bind_int64(thr, 2, (int64_t)k);
    sqlite3_bind_int64(thr, 3, th->tid);
    bind_text(thr, 4, th->name);
    sqlite3_bind_int64(thr, 5, th->flags | ((int)k == g->t->crashed ? CT_THR_CRASHED : 0));
    sqlite3_bind_int64(thr, 6, (int64_t)th->records);
    sqlite3_bind_int64(thr, 7, (int64_t)th->bad_records);
    sqlite3_bind_int(thr, 8, th->wrapped);
    bind_text(thr, 9, th->nlocals ? th->locals_function : NULL);
    bind_text(thr, 10, th->nlocals ? th->locals_file : NULL);
    if (th->nlocals) sqlite3_bind_int(thr, 11, (int)th->locals_line);
    else sqlite3_bind_null(thr, 11);
    if (run(thr) != 0) goto out;
    int64_t id = sqlite3_last_insert_rowid(g->db);
    if (insert_steps(g, step, id, th) != 0 || insert_frames(frame, id, th) != 0 ||
        insert_locals(local, id, th) != 0)
      goto out;
  }
  rc = 0;
out:
  sqlite3_finalize(thr);
  sqlite3_finalize(step);
  sqlite3_finalize(frame);
  sqlite3_finalize(local);
  return rc;
}

static int insert_rest(struct ingest *g) {
  sqlite3_stmt *ex = NULL, *wr = NULL;
  int rc = -1;
  if (sqlite3_prepare_v2(g->db, "INSERT INTO executed VALUES(?,?,?,?,?,?,?,?)", -1, &ex, NULL) ||
      sqlite3_prepare_v2(g->db, "INSERT INTO warnings VALUES(?,?,?)", -1, &wr, NULL))
    goto out;
  for (int kind = 0; kind < 2; kind++) {
    const struct ct_exec_entry *e = kind ? g->t->first_exec : g->t->last_exec;
    size_t n = kind ? g->t->nfirst : g->t->nlast;
    for (size_t k = 0; k < n; k++) {
      int64_t fn = intern(&g->in, e[k].function), file = intern(&g->in, e[k].file);
      if (fn < 0 || file < 0) goto out;
      sqlite3_bind_int64(ex, 1, g->crash);
      sqlite3_bind_int(ex, 2, kind);
      sqlite3_bind_int64(ex, 3, (int64_t)k);
      sqlite3_bind_int(ex, 4, e[k].module);
      bind_id(ex, 5, fn);
      bind_id(ex, 6, file);
      sqlite3_bind_int(ex, 7, (int)e[k].line);
      sqlite3_bind_int64(ex, 8, (int64_t)e[k].time_ns);
      if (run(ex) != 0) goto out;
    }
  }
  for (size_t k = 0; k < g->t->nwarnings; k++) {
    sqlite3_bind_int64(wr, 1, g->crash);
    sqlite3_bind_int64(wr, 2, (int64_t)k);
    bind_text(wr, 3, g->t->warnings[k]);
    if (run(wr) != 0) goto out;
  }
  rc = 0;
out:
  sqlite3_finalize(ex);
  sqlite3_finalize(wr);
  return rc;
}

/* The crash already stored with this digest: 1 and its ids, 0 if none, -1 on error. */
static int find_existing(sqlite3 *db, const char *digest, struct ct_ingest_result *r) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "SELECT id, group_id FROM crashes WHERE digest=?", -1, &st, NULL))
    return -1;
  bind_text(st, 1, digest);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    r->crash_id = sqlite3_column_int64(st, 0);
    r->group_id = sqlite3_column_int64(st, 1);
  }
  sqlite3_finalize(st);
  return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int ct_store_ingest(struct ct_store *s, const struct ct_timeline *t, const char *digest,
                    const char *dump_path, struct ct_ingest_result *r, char *err, size_t errlen) {
  struct ingest g = {.db = s->db, .t = t};
  int rc = -1;
  memset(r, 0, sizeof *r);
  ct_store_signature(t, r->signature, sizeof r->signature);
  if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
    return ct_store_fail(s, err, errlen, "cannot lock the store");
  int found = find_existing(s->db, digest, r);
  if (found != 0) {
    r->existed = found == 1;
    rc = found == 1 ? 0 : -1;
    goto done;
  }
  if (sqlite3_prepare_v2(s->db, "INSERT OR IGNORE INTO strings(text) VALUES(?)", -1, &g.in.ins, NULL) ||
      sqlite3_prepare_v2(s->db, "SELECT id FROM strings WHERE text=?", -1, &g.in.sel, NULL) ||
      sqlite3_prepare_v2(s->db, "INSERT INTO inlines VALUES(?,?,?,?,?,?,?)", -1, &g.inl_stmt, NULL))
    goto done;
  r->group_id = upsert_group(s->db, t, r->signature, t->info.realtime_ns / 1000000000);
  if (r->group_id < 0 || insert_crash(&g, r->group_id, digest, dump_path) != 0 ||
      insert_modules(&g) != 0 || insert_threads(&g) != 0 || insert_rest(&g) != 0)
    goto done;
  r->crash_id = g.crash;
  char sql[96];
  snprintf(sql, sizeof sql, "UPDATE groups SET count = count + 1 WHERE id = %lld",
           (long long)r->group_id);
  if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK) goto done;
  rc = 0;
done:
  if (rc == 0 && sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) rc = -1;
  if (rc != 0) {
    ct_store_fail(s, err, errlen, "storing the crash");
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
  }
  intern_free(&g.in);
  sqlite3_finalize(g.inl_stmt);
  free(g.inl_keys);
  free(g.inl_ids);
  return rc;
}
