/*
 * out_json.c - the timeline as JSON ("crashtrail-timeline", version 1).
 *
 * Fields named in the end-to-end interface keep their meaning forever: format, version,
 * signal, process, crashed_thread, threads[].{tid,name,crashed,steps,stack}, steps[].{seq,
 * module,function,file,line,column}, stack[].{pc,module,function,file,line,inlined,scanned},
 * last_executed, first_executed. Everything else is an addition.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "crashtrail/abi.h"
#include "json_writer.h"
#include "dwarf_module.h"
#include "outputs.h"

void ct_format_time(int64_t sec, char *buf, size_t len) {
  struct tm tm;
  time_t t = (time_t)sec;
  if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
    snprintf(buf, len, "?"); /* a year beyond what struct tm holds: a corrupted time */
}

int64_t ct_mono_to_unix_ns(const struct ct_crash_info *i, uint64_t mono_ns) {
  /* Unsigned: corrupted clocks wrap instead of overflowing. */
  return (int64_t)((uint64_t)i->realtime_ns - (i->monotonic_ns - mono_ns));
}

static const char *module_name(const struct ct_timeline *t, int idx) {
  return idx >= 0 && (size_t)idx < t->nmodules ? t->modules[idx].name : NULL;
}

static void write_signal(struct jw *w, const struct ct_crash_info *i) {
  jw_key(w, "signal");
  if (!i->has_signal) {
    jw_null(w);
    return;
  }
  jw_begin_object(w);
  jw_key(w, "number");
  jw_int(w, i->signo);
  jw_key(w, "name");
  jw_str(w, ct_signal_name(i->signo));
  jw_key(w, "code");
  jw_str(w, ct_signal_code_name(i->signo, i->code));
  jw_key(w, "fault_address");
  jw_hex(w, i->fault_addr);
  if (i->code <= 0) {
    jw_key(w, "sender_pid");
    jw_int(w, i->sender_pid);
  }
  jw_end_object(w);
}

static void write_process(struct jw *w, const struct ct_crash_info *i) {
  char when[64];
  ct_format_time(i->realtime_ns / 1000000000, when, sizeof when);
  jw_key(w, "process");
  jw_begin_object(w);
  jw_key(w, "pid");
  jw_uint(w, i->pid);
  jw_key(w, "executable");
  jw_str(w, i->executable);
  jw_key(w, "time");
  jw_str(w, when);
  jw_key(w, "arguments");
  jw_begin_array(w);
  for (size_t k = 0; k < i->narguments; k++) jw_str(w, i->arguments[k]);
  jw_end_array(w);
  jw_key(w, "reason");
  jw_str(w, i->reason == CT_REASON_SIGNAL ? "signal" : "request");
  if (i->message) {
    jw_key(w, "message");
    jw_str(w, i->message);
  }
  jw_end_object(w);
}

/* The call sites an inlined step sits in, innermost first: each names the function that
 * contains the call (the next inlined frame out, or the out-of-line function). */
static void write_inline_chain(struct jw *w, const struct ct_inline_frame *inl, const char *outer) {
  jw_key(w, "inlined_at");
  jw_begin_array(w);
  for (; inl; inl = inl->parent) {
    jw_begin_object(w);
    jw_key(w, "function");
    jw_str(w, inl->parent ? inl->parent->function : outer);
    jw_key(w, "file");
    jw_str(w, inl->call_file);
    jw_key(w, "line");
    jw_uint(w, inl->call_line);
    jw_key(w, "column");
    jw_uint(w, inl->call_col);
    jw_end_object(w);
  }
  jw_end_array(w);
}

static void write_step(struct jw *w, const struct ct_timeline *t, const struct ct_step *s,
                       size_t seq) {
  jw_begin_object(w);
  jw_key(w, "seq");
  jw_uint(w, seq);
  jw_key(w, "module");
  jw_str(w, module_name(t, s->module));
  jw_key(w, "function");
  jw_str(w, s->function);
  jw_key(w, "file");
  jw_str(w, s->file);
  jw_key(w, "line");
  jw_uint(w, s->line);
  jw_key(w, "column");
  jw_uint(w, s->col);
  jw_key(w, "depth");
  jw_uint(w, s->depth);
  if (s->repeat) {
    jw_key(w, "repeat");
    jw_uint(w, s->repeat);
  }
  if (s->time_ns) {
    jw_key(w, "time_ns");
    jw_int(w, ct_mono_to_unix_ns(&t->info, s->time_ns));
  }
  static const struct { int flag; const char *name; } flags[] = {
      {CT_STEP_CRASH, "crash"}, {CT_STEP_UNCERTAIN, "uncertain"}, {CT_STEP_ENTRY, "entry"},
      {CT_STEP_GAP, "gap"}, {CT_STEP_PENDING, "pending"}};
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
    if (s->flags & flags[i].flag) {
      jw_key(w, flags[i].name);
      jw_bool(w, 1);
    }
  if (s->inl) write_inline_chain(w, s->inl, s->outer);
  jw_end_object(w);
}

static void write_thread(struct jw *w, const struct ct_timeline *t, const struct ct_tl_thread *th,
                         int crashed) {
  jw_begin_object(w);
  jw_key(w, "tid");
  jw_uint(w, th->tid);
  jw_key(w, "name");
  jw_str(w, th->name);
  jw_key(w, "crashed");
  jw_bool(w, crashed);
  jw_key(w, "exited");
  jw_bool(w, (th->flags & CT_THR_EXITED) != 0);
  if (th->flags & CT_THR_PREFORK) {
    jw_key(w, "before_fork");
    jw_bool(w, 1);
  }
  jw_key(w, "history_lost");
  jw_bool(w, th->wrapped);
  jw_key(w, "records");
  jw_uint(w, th->records);
  if (th->first_seq) {
    jw_key(w, "steps_not_kept");
    jw_uint(w, th->first_seq);
  }
  jw_key(w, "steps");
  jw_begin_array(w);
  for (size_t i = 0; i < th->nsteps; i++) write_step(w, t, &th->steps[i], th->first_seq + i);
  jw_end_array(w);
  jw_key(w, "stack");
  jw_begin_array(w);
  for (size_t i = 0; i < th->nstack; i++) {
    const struct ct_frame *f = &th->stack[i];
    jw_begin_object(w);
    jw_key(w, "pc");
    jw_hex(w, f->pc);
    jw_key(w, "module");
    jw_str(w, module_name(t, f->module));
    jw_key(w, "function");
    jw_str(w, f->function);
    jw_key(w, "file");
    jw_str(w, f->file);
    jw_key(w, "line");
    jw_uint(w, f->line);
    jw_key(w, "column");
    jw_uint(w, f->col);
    jw_key(w, "inlined");
    jw_bool(w, f->inlined);
    jw_key(w, "scanned");
    jw_bool(w, f->scanned);
    jw_end_object(w);
  }
  jw_end_array(w);
  if (th->nlocals) {
    jw_key(w, "locals");
    jw_begin_object(w);
    jw_key(w, "function");
    jw_str(w, th->locals_function);
    jw_key(w, "file");
    jw_str(w, th->locals_file);
    jw_key(w, "line");
    jw_uint(w, th->locals_line);
    jw_key(w, "variables");
    jw_begin_array(w);
    for (size_t i = 0; i < th->nlocals; i++) {
      const struct ct_local *l = &th->locals[i];
      jw_begin_object(w);
      jw_key(w, "function");
      jw_str(w, l->function);
      jw_key(w, "name");
      jw_str(w, l->name);
      jw_key(w, "type");
      jw_str(w, l->type);
      jw_key(w, "value");
      if (l->known) jw_str(w, l->value);
      else jw_null(w);
      jw_key(w, "shown");
      jw_str(w, l->value);
      jw_end_object(w);
    }
    jw_end_array(w);
    jw_end_object(w);
  }
  jw_end_object(w);
}

static void write_exec(struct jw *w, const struct ct_timeline *t, const char *key,
                       const struct ct_exec_entry *e, size_t n) {
  jw_key(w, key);
  jw_begin_array(w);
  for (size_t i = 0; i < n; i++) {
    jw_begin_object(w);
    jw_key(w, "module");
    jw_str(w, module_name(t, e[i].module));
    jw_key(w, "function");
    jw_str(w, e[i].function);
    jw_key(w, "file");
    jw_str(w, e[i].file);
    jw_key(w, "line");
    jw_uint(w, e[i].line);
    jw_key(w, "time_ns");
    jw_int(w, ct_mono_to_unix_ns(&t->info, e[i].time_ns));
    jw_end_object(w);
  }
  jw_end_array(w);
}

static void write_modules(struct jw *w, const struct ct_timeline *t) {
  jw_key(w, "modules");
  jw_begin_array(w);
  for (size_t i = 0; i < t->nmodules; i++) {
    const struct ct_tl_module *m = &t->modules[i];
    if (!m->instrumented) continue;
    jw_begin_object(w);
    jw_key(w, "name");
    jw_str(w, m->name);
    jw_key(w, "path");
    jw_str(w, m->path);
    jw_key(w, "build_id");
    jw_str(w, m->build_id);
    jw_key(w, "load_bias");
    jw_hex(w, m->bias);
    jw_key(w, "debug_file");
    jw_str(w, m->debug_file);
    jw_end_object(w);
  }
  jw_end_array(w);
}

void ct_write_json(const struct ct_timeline *t, FILE *out) {
  struct jw w;
  jw_init(&w, out, 0);
  jw_begin_object(&w);
  jw_key(&w, "format");
  jw_str(&w, "crashtrail-timeline");
  jw_key(&w, "version");
  jw_int(&w, 1);
  write_signal(&w, &t->info);
  write_process(&w, &t->info);
  jw_key(&w, "crashed_thread");
  if (t->crashed >= 0) jw_uint(&w, t->threads[t->crashed].tid);
  else jw_null(&w);
  jw_key(&w, "unfinished_path_recovered");
  jw_bool(&w, t->pending_recovered);
  jw_key(&w, "threads");
  jw_begin_array(&w);
  for (size_t i = 0; i < t->nthreads; i++) write_thread(&w, t, &t->threads[i], (int)i == t->crashed);
  jw_end_array(&w);
  write_exec(&w, t, "last_executed", t->last_exec, t->nlast);
  write_exec(&w, t, "first_executed", t->first_exec, t->nfirst);
  jw_key(&w, "table_resolution_ns");
  jw_uint(&w, t->table_resolution_ns);
  write_modules(&w, t);
  jw_key(&w, "warnings");
  jw_begin_array(&w);
  for (size_t i = 0; i < t->nwarnings; i++) jw_str(&w, t->warnings[i]);
  jw_end_array(&w);
  jw_end_object(&w);
  fputc('\n', out);
}

