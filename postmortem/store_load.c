/*
 * store_load.c - reading a stored crash back as a timeline, so `show --db`, `report --db` and
 * the server render it exactly as they would from its dump.
 *
 * Strings are fetched by id once per load and kept in the timeline's arena; inline frames are
 * loaded in id order, so a frame's parent (a smaller id) is always built first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crashtrail/dump_format.h"
#include "store.h"
#include "dwarf_module.h"
#include "store_internal.h"

struct loader {
  sqlite3 *db;
  struct ct_timeline *t;
  sqlite3_stmt *str;
  int64_t *ids;
  const char **texts;
  size_t cap, n;
  struct ct_inline_frame *inl;
  size_t ninl;
};

static const char *keep(struct ct_timeline *t, const unsigned char *s) {
  return s ? ct_arena_strndup(&t->arena, (const char *)s, strlen((const char *)s)) : NULL;
}

static int grow(struct loader *l) {
  size_t cap = l->cap ? l->cap * 2 : 4096;
  int64_t *ids = calloc(cap, sizeof *ids);
  const char **texts = calloc(cap, sizeof *texts);
  if (!ids || !texts) return free(ids), free(texts), -1;
  for (size_t i = 0; i < l->cap; i++)
    if (l->ids[i]) {
      size_t h = (size_t)(l->ids[i] * 0x9E3779B97F4A7C15ull) & (cap - 1);
      while (ids[h]) h = (h + 1) & (cap - 1);
      ids[h] = l->ids[i];
      texts[h] = l->texts[i];
    }
  free(l->ids);
  free(l->texts);
  l->ids = ids, l->texts = texts, l->cap = cap;
  return 0;
}

/* The text of string id (NULL for 0/NULL), fetched once per load. */
static const char *text_of(struct loader *l, int64_t id) {
  if (id <= 0) return NULL;
  if (l->n * 2 >= l->cap && grow(l) != 0) return NULL;
  size_t h = (size_t)(id * 0x9E3779B97F4A7C15ull) & (l->cap - 1);
  while (l->ids[h]) {
    if (l->ids[h] == id) return l->texts[h];
    h = (h + 1) & (l->cap - 1);
  }
  sqlite3_bind_int64(l->str, 1, id);
  const char *s = sqlite3_step(l->str) == SQLITE_ROW ? keep(l->t, sqlite3_column_text(l->str, 0)) : NULL;
  sqlite3_reset(l->str);
  l->ids[h] = id;
  l->texts[h] = s;
  l->n++;
  return s;
}

static int64_t count_of(sqlite3 *db, const char *sql, int64_t arg) {
  sqlite3_stmt *st;
  int64_t n = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
  sqlite3_bind_int64(st, 1, arg);
  if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return n;
}

static int load_crash(struct loader *l, int64_t id) {
  struct ct_crash_info *i = &l->t->info;
  sqlite3_stmt *st;
  int rc = -1;
  if (sqlite3_prepare_v2(l->db, "SELECT executable, pid, time_ns, monotonic_ns, reason, message,"
                         " arguments, signo, code, fault_address, sender_pid, pending_recovered,"
                         " table_resolution_ns FROM crashes WHERE id=?", -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(st, 1, id);
  if (sqlite3_step(st) == SQLITE_ROW) {
    i->executable = keep(l->t, sqlite3_column_text(st, 0));
    i->pid = (uint32_t)sqlite3_column_int64(st, 1);
    i->realtime_ns = sqlite3_column_int64(st, 2);
    i->monotonic_ns = (uint64_t)sqlite3_column_int64(st, 3);
    i->reason = sqlite3_column_int(st, 4);
    i->message = keep(l->t, sqlite3_column_text(st, 5));
    char *args = (char *)keep(l->t, sqlite3_column_text(st, 6));
    for (char *p = args; p && *p; p++) i->narguments += *p == '\n';
    if (args && *args) i->narguments++;
    i->arguments = ct_arena_alloc(&l->t->arena, (i->narguments + 1) * sizeof *i->arguments);
    for (size_t k = 0; args && *args && i->arguments && k < i->narguments; k++) {
      i->arguments[k] = args;
      char *nl = strchr(args, '\n');
      if (nl) *nl = 0, args = nl + 1;
    }
    i->has_signal = sqlite3_column_type(st, 7) != SQLITE_NULL;
    i->signo = sqlite3_column_int(st, 7);
    i->code = sqlite3_column_int(st, 8);
    i->fault_addr = (uint64_t)sqlite3_column_int64(st, 9);
    i->sender_pid = sqlite3_column_int(st, 10);
    l->t->pending_recovered = sqlite3_column_int(st, 11);
    l->t->table_resolution_ns = (uint64_t)sqlite3_column_int64(st, 12);
    rc = 0;
  }
  sqlite3_finalize(st);
  return rc;
}

static int load_modules(struct loader *l, int64_t id) {
  sqlite3_stmt *st;
  int64_t n = count_of(l->db, "SELECT count(*) FROM crash_modules WHERE crash_id=?", id);
  l->t->modules = ct_arena_alloc(&l->t->arena, (size_t)(n > 0 ? n : 1) * sizeof *l->t->modules);
  if (n < 0 || !l->t->modules ||
      sqlite3_prepare_v2(l->db, "SELECT m.name, m.path, b.build_id, m.debug_file, m.bias,"
                         " m.instrumented FROM crash_modules m LEFT JOIN builds b ON b.id=m.build"
                         " WHERE m.crash_id=? ORDER BY m.idx", -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(st, 1, id);
  while (sqlite3_step(st) == SQLITE_ROW && l->t->nmodules < (size_t)n) {
    struct ct_tl_module *m = &l->t->modules[l->t->nmodules++];
    m->name = keep(l->t, sqlite3_column_text(st, 0));
    m->path = keep(l->t, sqlite3_column_text(st, 1));
    m->build_id = keep(l->t, sqlite3_column_text(st, 2));
    m->debug_file = keep(l->t, sqlite3_column_text(st, 3));
    m->bias = (uint64_t)sqlite3_column_int64(st, 4);
    m->instrumented = sqlite3_column_int(st, 5);
  }
  sqlite3_finalize(st);
  return 0;
}

static int load_inlines(struct loader *l, int64_t id) {
  sqlite3_stmt *st;
  int64_t n = count_of(l->db, "SELECT count(*) FROM inlines WHERE crash_id=?", id);
  l->inl = ct_arena_alloc(&l->t->arena, (size_t)(n > 0 ? n : 1) * sizeof *l->inl);
  if (n < 0 || !l->inl ||
      sqlite3_prepare_v2(l->db, "SELECT id, parent, function, call_file, call_line, call_col FROM"
                         " inlines WHERE crash_id=? ORDER BY id", -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(st, 1, id);
  while (sqlite3_step(st) == SQLITE_ROW && l->ninl < (size_t)n) {
    int64_t parent = sqlite3_column_int64(st, 1);
    struct ct_inline_frame *f = &l->inl[l->ninl++];
    f->parent = parent > 0 && (size_t)parent < l->ninl ? &l->inl[parent - 1] : NULL;
    f->function = text_of(l, sqlite3_column_int64(st, 2));
    f->call_file = text_of(l, sqlite3_column_int64(st, 3));
    f->call_line = (uint32_t)sqlite3_column_int(st, 4);
    f->call_col = (uint32_t)sqlite3_column_int(st, 5);
  }
  sqlite3_finalize(st);
  return 0;
}

static int load_steps(struct loader *l, struct ct_tl_thread *th, int64_t thread) {
  sqlite3_stmt *st;
  int64_t n = count_of(l->db, "SELECT count(*) FROM steps WHERE thread_id=?", thread);
  th->steps = malloc((size_t)(n > 0 ? n : 1) * sizeof *th->steps);
  if (n < 0 || !th->steps ||
      sqlite3_prepare_v2(l->db, "SELECT module, function, outer, file, line, col, inline, flags,"
                         " depth, time_ns, repeat, seq FROM steps WHERE thread_id=? ORDER BY seq", -1, &st,
                         NULL) != SQLITE_OK)
    return -1;
  th->cap = (size_t)n;
  sqlite3_bind_int64(st, 1, thread);
  while (sqlite3_step(st) == SQLITE_ROW && th->nsteps < (size_t)n) {
    struct ct_step *s = &th->steps[th->nsteps++];
    int64_t inl = sqlite3_column_int64(st, 6);
    if (th->nsteps == 1) th->first_seq = (size_t)sqlite3_column_int64(st, 11); /* ingest kept the newest */
    memset(s, 0, sizeof *s);
    s->module = (uint16_t)sqlite3_column_int(st, 0);
    s->function = text_of(l, sqlite3_column_int64(st, 1));
    s->outer = text_of(l, sqlite3_column_int64(st, 2));
    s->file = text_of(l, sqlite3_column_int64(st, 3));
    s->line = (uint32_t)sqlite3_column_int(st, 4);
    s->col = (uint32_t)sqlite3_column_int(st, 5);
    s->inl = inl > 0 && (size_t)inl <= l->ninl ? &l->inl[inl - 1] : NULL;
    s->flags = (uint16_t)sqlite3_column_int(st, 7);
    s->depth = (uint32_t)sqlite3_column_int(st, 8);
    s->time_ns = (uint64_t)sqlite3_column_int64(st, 9);
    s->repeat = (uint32_t)sqlite3_column_int64(st, 10);
  }
  sqlite3_finalize(st);
  return 0;
}

static int load_frames(struct loader *l, struct ct_tl_thread *th, int64_t thread) {
  sqlite3_stmt *st;
  int64_t n = count_of(l->db, "SELECT count(*) FROM frames WHERE thread_id=?", thread);
  th->stack = malloc((size_t)(n > 0 ? n : 1) * sizeof *th->stack);
  if (n < 0 || !th->stack ||
      sqlite3_prepare_v2(l->db, "SELECT pc, module, function, file, line, col, inlined, scanned FROM frames"
                         " WHERE thread_id=? ORDER BY idx", -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(st, 1, thread);
  while (sqlite3_step(st) == SQLITE_ROW && th->nstack < (size_t)n) {
    struct ct_frame *f = &th->stack[th->nstack++];
    f->pc = (uint64_t)sqlite3_column_int64(st, 0);
    f->module = sqlite3_column_int(st, 1);
    f->function = keep(l->t, sqlite3_column_text(st, 2));
    f->file = keep(l->t, sqlite3_column_text(st, 3));
    f->line = (uint32_t)sqlite3_column_int(st, 4);
    f->col = (uint32_t)sqlite3_column_int(st, 5);
    f->inlined = sqlite3_column_int(st, 6);
    f->scanned = sqlite3_column_int(st, 7);
  }
  sqlite3_finalize(st);
  return 0;
}

static int load_locals(struct loader *l, struct ct_tl_thread *th, int64_t thread) {
  sqlite3_stmt *st;
  int64_t n = count_of(l->db, "SELECT count(*) FROM locals WHERE thread_id=?", thread);
  if (n <= 0) return n < 0 ? -1 : 0;
  th->locals = calloc((size_t)n, sizeof *th->locals);
  if (!th->locals ||
      sqlite3_prepare_v2(l->db, "SELECT name, type, value, known, function FROM locals WHERE thread_id=?"
                         " ORDER BY idx", -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(st, 1, thread);
  while (sqlite3_step(st) == SQLITE_ROW && th->nlocals < (size_t)n) {
    struct ct_local *v = &th->locals[th->nlocals++];
    const unsigned char *name = sqlite3_column_text(st, 0), *type = sqlite3_column_text(st, 1),
                        *value = sqlite3_column_text(st, 2);
    snprintf(v->name, sizeof v->name, "%s", name ? (const char *)name : "");
    snprintf(v->type, sizeof v->type, "%s", type ? (const char *)type : "");
    snprintf(v->value, sizeof v->value, "%s", value ? (const char *)value : "");
    v->known = sqlite3_column_int(st, 3);
    v->function = keep(l->t, sqlite3_column_text(st, 4));
  }
  sqlite3_finalize(st);
  return 0;
}

static int load_threads(struct loader *l, int64_t id) {
  sqlite3_stmt *st;
  int64_t n = count_of(l->db, "SELECT count(*) FROM threads WHERE crash_id=?", id);
  l->t->threads = calloc((size_t)(n > 0 ? n : 1), sizeof *l->t->threads);
  if (n < 0 || !l->t->threads ||
      sqlite3_prepare_v2(l->db, "SELECT id, tid, name, flags, records, bad_records, history_lost,"
                         " locals_function, locals_file, locals_line"
                         " FROM threads WHERE crash_id=? ORDER BY idx", -1, &st, NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(st, 1, id);
  int rc = 0;
  while (rc == 0 && sqlite3_step(st) == SQLITE_ROW && l->t->nthreads < (size_t)n) {
    struct ct_tl_thread *th = &l->t->threads[l->t->nthreads++];
    int64_t tid_row = sqlite3_column_int64(st, 0);
    th->tid = (uint32_t)sqlite3_column_int64(st, 1);
    snprintf(th->name, sizeof th->name, "%s", sqlite3_column_text(st, 2) ? (const char *)sqlite3_column_text(st, 2) : "");
    th->flags = (uint32_t)sqlite3_column_int64(st, 3);
    th->records = (size_t)sqlite3_column_int64(st, 4);
    th->bad_records = (size_t)sqlite3_column_int64(st, 5);
    th->wrapped = sqlite3_column_int(st, 6);
    if (th->flags & CT_THR_CRASHED) l->t->crashed = (int)(l->t->nthreads - 1);
    th->locals_function = keep(l->t, sqlite3_column_text(st, 7));
    th->locals_file = keep(l->t, sqlite3_column_text(st, 8));
    th->locals_line = (uint32_t)sqlite3_column_int(st, 9);
    rc = load_steps(l, th, tid_row) || load_frames(l, th, tid_row) || load_locals(l, th, tid_row);
  }
  sqlite3_finalize(st);
  return rc;
}

static int load_rest(struct loader *l, int64_t id) {
  sqlite3_stmt *st;
  struct ct_timeline *t = l->t;
  for (int kind = 0; kind < 2; kind++) {
    int64_t n = count_of(l->db, kind ? "SELECT count(*) FROM executed WHERE crash_id=? AND kind=1"
                                     : "SELECT count(*) FROM executed WHERE crash_id=? AND kind=0", id);
    struct ct_exec_entry *e = malloc((size_t)(n > 0 ? n : 1) * sizeof *e);
    size_t k = 0;
    if (n < 0 || !e) return free(e), -1;
    if (kind) t->first_exec = e;
    else t->last_exec = e;
    if (sqlite3_prepare_v2(l->db, "SELECT module, function, file, line, time_ns FROM executed"
                           " WHERE crash_id=? AND kind=? ORDER BY idx", -1, &st, NULL) != SQLITE_OK)
      return -1;
    sqlite3_bind_int64(st, 1, id);
    sqlite3_bind_int(st, 2, kind);
    while (sqlite3_step(st) == SQLITE_ROW && k < (size_t)n)
      e[k++] = (struct ct_exec_entry){text_of(l, sqlite3_column_int64(st, 1)),
                                      text_of(l, sqlite3_column_int64(st, 2)),
                                      (uint32_t)sqlite3_column_int(st, 3),
                                      (uint16_t)sqlite3_column_int(st, 0),
                                      (uint64_t)sqlite3_column_int64(st, 4)};
    sqlite3_finalize(st);
    if (kind) t->nfirst = k;
    else t->nlast = k;
  }
  if (sqlite3_prepare_v2(l->db, "SELECT text FROM warnings WHERE crash_id=? ORDER BY idx", -1, &st,
                         NULL) != SQLITE_OK)
    return -1;
  sqlite3_bind_int64(st, 1, id);
  while (sqlite3_step(st) == SQLITE_ROW) ct_timeline_warn(t, "%s", sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  return 0;
}

int ct_store_load(struct ct_store *s, int64_t id, struct ct_timeline **out, char *err, size_t errlen) {
  struct loader l = {.db = s->db};
  int rc = -1;
  *out = NULL;
  l.t = calloc(1, sizeof *l.t);
  if (!l.t || grow(&l) != 0) goto out;
  l.t->crashed = -1;
  if (sqlite3_prepare_v2(s->db, "SELECT text FROM strings WHERE id=?", -1, &l.str, NULL) != SQLITE_OK)
    goto out;
  if (load_crash(&l, id) != 0) {
    snprintf(err, errlen, "%s: there is no crash %lld", s->path, (long long)id);
    goto fail;
  }
  if (load_modules(&l, id) == 0 && load_inlines(&l, id) == 0 && load_threads(&l, id) == 0 &&
      load_rest(&l, id) == 0)
    rc = 0;
out:
  if (rc != 0) ct_store_fail(s, err, errlen, "reading crash %lld", (long long)id);
fail:
  sqlite3_finalize(l.str);
  free(l.ids);
  free(l.texts);
  if (rc == 0) *out = l.t;
  else ct_timeline_free(l.t);
  return rc;
}
