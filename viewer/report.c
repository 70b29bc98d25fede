/*
 * report.c - the data of an HTML report: a struct ct_timeline as one compact JSON object.
 *
 * A report must stay small with a million steps, so a step is never an object. Functions and
 * files are numbers in a string table; a step's (function, file, line, column, module, inline
 * chain) is a number in a location table; and per thread:
 *   loc    one location number per step (dense: the only per-step array),
 *   depth  [step, depth, step, depth, ...] where the call depth changes,
 *   flags  [step, flags, ...] for steps with CT_STEP_* flags,
 *   time   [step, ns, ...] where the time changes; ns relative to the dump (negative: before).
 * Steps inherit depth and time from the last listed step before them. The tables come last
 * (locs, inlines, sources, strings), once every step has been interned: one pass over the
 * steps. The format is documented in viewer/README.md.
 */
#include <string.h>

#include "crashtrail/abi.h"
#include "escape.h"
#include "outputs.h"
#include "dwarf_module.h"
#include "report.h"

void ct_report_int(FILE *out, int64_t v) {
  char buf[24], *p = buf + sizeof buf;
  uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
  do *--p = (char)('0' + u % 10); while (u /= 10);
  if (v < 0) *--p = '-';
  fwrite(p, 1, (size_t)(buf + sizeof buf - p), out);
}

static void key(FILE *out, const char *k) { fprintf(out, ",\"%s\":", k); }

static void write_signal(FILE *out, const struct ct_crash_info *i) {
  fputs("\"signal\":", out);
  if (!i->has_signal) {
    fputs("null", out);
    return;
  }
  fprintf(out, "{\"number\":%d,\"name\":", i->signo);
  ct_js_string(out, ct_signal_name(i->signo));
  key(out, "code");
  ct_js_string(out, ct_signal_code_name(i->signo, i->code));
  fprintf(out, ",\"fault\":\"0x%llx\"", (unsigned long long)i->fault_addr);
  if (i->code <= 0) fprintf(out, ",\"sender_pid\":%d", i->sender_pid);
  fputc('}', out);
}

static void write_summary(FILE *out, const struct ct_timeline *t) {
  const struct ct_crash_info *i = &t->info;
  char when[64];
  ct_format_time(i->realtime_ns / 1000000000, when, sizeof when);
  fputs("\"summary\":{", out);
  write_signal(out, i);
  fprintf(out, ",\"reason\":\"%s\"", i->reason == CT_REASON_SIGNAL ? "signal" : "request");
  key(out, "message");
  ct_js_string(out, i->message);
  key(out, "exe");
  ct_js_string(out, i->executable);
  fputs(",\"args\":[", out);
  for (size_t k = 0; k < i->narguments; k++) {
    if (k) putc(',', out);
    ct_js_string(out, i->arguments[k]);
  }
  fprintf(out, "],\"pid\":%u,\"time\":\"%s\",\"unix_ms\":%lld", i->pid, when,
          (long long)(i->realtime_ns / 1000000));
  fprintf(out, ",\"table_resolution_ns\":%llu", (unsigned long long)t->table_resolution_ns);
  fprintf(out, ",\"crashed\":%d,\"recovered\":%s,\"warnings\":[", t->crashed,
          t->pending_recovered ? "true" : "false");
  for (size_t k = 0; k < t->nwarnings; k++) {
    if (k) putc(',', out);
    ct_js_string(out, t->warnings[k]);
  }
  fputs("]}", out);
}

static void write_modules(FILE *out, const struct ct_timeline *t) {
  fputs("\"modules\":[", out);
  for (size_t i = 0; i < t->nmodules; i++) {
    const struct ct_tl_module *m = &t->modules[i];
    fputs(i ? ",{\"name\":" : "{\"name\":", out);
    ct_js_string(out, m->name);
    key(out, "path");
    ct_js_string(out, m->path);
    key(out, "build_id");
    ct_js_string(out, m->build_id);
    key(out, "debug");
    ct_js_string(out, m->debug_file);
    fprintf(out, ",\"bias\":\"0x%llx\",\"instrumented\":%s}", (unsigned long long)m->bias,
            m->instrumented ? "true" : "false");
  }
  putc(']', out);
}

static int64_t rel_time(const struct ct_timeline *t, uint64_t mono_ns) {
  return (int64_t)(mono_ns - t->info.monotonic_ns);
}

/* The per-step arrays of one thread (see the header). 0, or -1 when out of memory. */
static int write_steps(FILE *out, const struct ct_timeline *t, struct ct_intern *in,
                       const struct ct_tl_thread *th) {
  const struct ct_step *s = th->steps;
  size_t n = th->nsteps, k = 0;
  fputs(",\"loc\":[", out);
  for (size_t i = 0; i < n; i++) {
    int32_t loc = ct_intern_step(in, &s[i]);
    if (loc == -2) return -1;
    if (i) putc(',', out);
    ct_report_int(out, loc);
  }
  fputs("],\"depth\":[", out);
  for (size_t i = 0; i < n; i++)
    if (!i || s[i].depth != s[i - 1].depth) fprintf(out, "%s%zu,%u", k++ ? "," : "", i, s[i].depth);
  fputs("],\"flags\":[", out);
  k = 0;
  for (size_t i = 0; i < n; i++)
    if (s[i].flags) fprintf(out, "%s%zu,%u", k++ ? "," : "", i, s[i].flags);
  fputs("],\"time\":[", out);
  k = 0;
  for (size_t i = 0, last = 0; i < n; i++) {
    if (!s[i].time_ns || (k && s[i].time_ns == s[last].time_ns)) continue;
    fprintf(out, "%s%zu,", k++ ? "," : "", i);
    ct_report_int(out, rel_time(t, s[i].time_ns));
    last = i;
  }
  putc(']', out);
  return 0;
}

/* Frames as [pc, module, function, file, line, column, inlined] each, flattened. */
static int write_stack(FILE *out, struct ct_intern *in, const struct ct_tl_thread *th) {
  fputs(",\"stack\":[", out);
  for (size_t i = 0; i < th->nstack; i++) {
    const struct ct_frame *f = &th->stack[i];
    int32_t fn = ct_intern_str(in, f->function), file = ct_intern_str(in, f->file);
    if (fn == -2 || file == -2) return -1;
    fprintf(out, "%s\"0x%llx\",%d,%d,%d,%u,%u,%d", i ? "," : "", (unsigned long long)f->pc,
            f->module, fn, file, f->line, f->col, f->inlined ? 1 : 0);
  }
  putc(']', out);
  return 0;
}

/* The crashing frame's variables: {"fn","file","line","vars":[[scope, name, type, value, known]...]}.
 * Names, types and values come from the program's DWARF and memory: escaped like any string. */
static void write_locals(FILE *out, const struct ct_tl_thread *th) {
  if (!th->nlocals) return;
  fputs(",\"locals\":{\"fn\":", out);
  ct_js_string(out, th->locals_function);
  fputs(",\"file\":", out);
  ct_js_string(out, th->locals_file ? th->locals_file : "");
  fprintf(out, ",\"line\":%u,\"vars\":[", th->locals_line);
  for (size_t i = 0; i < th->nlocals; i++) {
    const struct ct_local *l = &th->locals[i];
    fputs(i ? ",[" : "[", out);
    ct_js_string(out, l->function ? l->function : "");
    putc(',', out);
    ct_js_string(out, l->name);
    putc(',', out);
    ct_js_string(out, l->type);
    putc(',', out);
    ct_js_string(out, l->value);
    fprintf(out, ",%d]", l->known ? 1 : 0);
  }
  fputs("]}", out);
}

static int write_thread(FILE *out, const struct ct_timeline *t, struct ct_intern *in, size_t idx) {
  const struct ct_tl_thread *th = &t->threads[idx];
  fprintf(out, "%s{\"tid\":%u,\"name\":", idx ? "," : "", th->tid);
  ct_js_string_n(out, th->name, strnlen(th->name, sizeof th->name));
  fprintf(out, ",\"crashed\":%s,\"exited\":%s,\"prefork\":%s,\"lost\":%s", (int)idx == t->crashed ? "true" : "false",
          th->flags & CT_THR_EXITED ? "true" : "false", th->flags & CT_THR_PREFORK ? "true" : "false",
          th->wrapped ? "true" : "false");
  fprintf(out, ",\"records\":%zu,\"bad_records\":%zu,\"n\":%zu,\"first\":%zu", th->records,
          th->bad_records, th->nsteps, th->first_seq);
  if (write_steps(out, t, in, th) != 0 || write_stack(out, in, th) != 0) return -1;
  write_locals(out, th);
  putc('}', out);
  return 0;
}

/* Entries as [function, file, line, module, ns] each, flattened. */
static int write_exec(FILE *out, const struct ct_timeline *t, struct ct_intern *in,
                      const char *name, const struct ct_exec_entry *e, size_t n) {
  key(out, name);
  putc('[', out);
  for (size_t i = 0; i < n; i++) {
    int32_t fn = ct_intern_str(in, e[i].function), file = ct_intern_str(in, e[i].file);
    if (fn == -2 || file == -2) return -1;
    fprintf(out, "%s%d,%d,%u,%u,", i ? "," : "", fn, file, e[i].line, e[i].module);
    ct_report_int(out, rel_time(t, e[i].time_ns));
  }
  putc(']', out);
  return 0;
}

/* The location, inline-frame and string tables, flattened (7, 5 and 1 per entry). */
static void write_tables(FILE *out, const struct ct_intern *in) {
  fputs(",\"locs\":[", out);
  for (size_t i = 0; i < in->nlocs; i++) {
    const struct ct_iloc *l = &in->locs[i];
    fprintf(out, "%s%d,%d,%d,%d,%d,%d,%d", i ? "," : "", l->function, l->file, l->line, l->col,
            l->module, l->inl, l->outer);
  }
  fputs("],\"inlines\":[", out);
  for (size_t i = 0; i < in->ninls; i++) {
    const struct ct_iinline *f = &in->inls[i];
    fprintf(out, "%s%d,%d,%d,%d,%d", i ? "," : "", f->function, f->call_file, f->call_line,
            f->call_col, f->parent);
  }
  fputs("],\"strings\":[", out);
  for (size_t i = 0; i < in->nstrs; i++) {
    if (i) putc(',', out);
    ct_js_string(out, in->strs[i]);
  }
  putc(']', out);
}

int ct_report_write_data(const struct ct_timeline *t, FILE *out, const struct ct_report_opts *o) {
  struct ct_intern in = {0};
  int rc = -1;
  size_t budget = o && o->source_budget ? o->source_budget : CT_REPORT_DEFAULT_SOURCE_BUDGET;
  fputs("{\"format\":\"crashtrail-report\",\"version\":1,", out);
  write_summary(out, t);
  putc(',', out);
  write_modules(out, t);
  fputs(",\"threads\":[", out);
  for (size_t i = 0; i < t->nthreads; i++)
    if (write_thread(out, t, &in, i) != 0) goto out;
  putc(']', out);
  if (write_exec(out, t, &in, "last", t->last_exec, t->nlast) != 0 ||
      write_exec(out, t, &in, "first", t->first_exec, t->nfirst) != 0)
    goto out;
  fputs(",\"sources\":", out);
  if (ct_report_write_sources(t, &in, out, budget) != 0) goto out;
  write_tables(out, &in);
  putc('}', out);
  rc = 0;
out:
  ct_intern_free(&in);
  return rc;
}
