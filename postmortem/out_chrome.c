/*
 * out_chrome.c - the timeline in the Chrome trace event format (JSON object form), which
 * Perfetto (ui.perfetto.dev) and chrome://tracing open: one track per thread, function calls as
 * nested duration events (B/E) built from the steps' call depths, every source line as an
 * instant event, and the crash as a global instant event.
 *
 * Invariants the viewers need: within a thread timestamps never decrease (step times are
 * clamped to be monotonic) and every B has its E (open calls are closed at the thread's end).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "json_writer.h"
#include "outputs.h"

struct open_call {
  const char *name;
  uint32_t depth;
};

static void event(FILE *out, int *first, const char *ph, const char *name, uint32_t pid,
                  uint32_t tid, double ts) {
  fputs(*first ? "\n" : ",\n", out);
  *first = 0;
  fprintf(out, "{\"ph\":\"%s\",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,\"name\":\"", ph, pid, tid, ts);
  jw_escape(out, name ? name : "?");
  fputc('"', out);
}

static void thread_events(FILE *out, int *first, const struct ct_timeline *t,
                          const struct ct_tl_thread *th, double origin) {
  struct open_call stack[256];
  size_t depth = 0;
  double last = 0;
  uint32_t pid = t->info.pid;
  for (size_t i = 0; i < th->nsteps; i++) {
    const struct ct_step *s = &th->steps[i];
    double ts = s->time_ns ? (double)(ct_mono_to_unix_ns(&t->info, s->time_ns)) / 1000.0 - origin : last;
    if (ts < last) ts = last;
    last = ts;
    /* Close calls deeper than this step, and a sibling call at the same depth. */
    while (depth && (stack[depth - 1].depth > s->depth ||
                     (stack[depth - 1].depth == s->depth && stack[depth - 1].name != s->outer &&
                      (s->flags & CT_STEP_ENTRY || !s->outer || !stack[depth - 1].name ||
                       strcmp(stack[depth - 1].name, s->outer))))) {
      event(out, first, "E", stack[depth - 1].name, pid, th->tid, ts);
      fputc('}', out);
      depth--;
    }
    if ((!depth || stack[depth - 1].depth < s->depth ||
         (s->flags & CT_STEP_ENTRY && stack[depth - 1].depth == s->depth)) &&
        depth < sizeof stack / sizeof stack[0]) {
      stack[depth++] = (struct open_call){s->outer, s->depth};
      event(out, first, "B", s->outer, pid, th->tid, ts);
      fputs(",\"cat\":\"call\"}", out);
    }
    char label[512];
    const char *base = s->file ? strrchr(s->file, '/') : NULL;
    snprintf(label, sizeof label, "%s:%u", base ? base + 1 : s->file ? s->file : "?", s->line);
    event(out, first, "i", label, pid, th->tid, ts);
    fputs(",\"s\":\"t\",\"cat\":\"line\",\"args\":{\"function\":\"", out);
    jw_escape(out, s->function ? s->function : "?");
    fprintf(out, "\",\"file\":\"");
    jw_escape(out, s->file ? s->file : "");
    fprintf(out, "\",\"line\":%u,\"seq\":%zu}}", s->line, i);
    if (s->flags & CT_STEP_CRASH) {
      event(out, first, "i", t->info.has_signal ? ct_signal_name(t->info.signo) : "dump", pid,
            th->tid, ts);
      fputs(",\"s\":\"g\",\"cat\":\"crash\"}", out);
    }
  }
  while (depth) {
    event(out, first, "E", stack[depth - 1].name, pid, th->tid, last);
    fputc('}', out);
    depth--;
  }
}

void ct_write_chrome(const struct ct_timeline *t, FILE *out) {
  int first = 1;
  double origin = (double)t->info.realtime_ns / 1000.0;
  /* Times relative to the oldest step, so the trace starts at 0. */
  for (size_t i = 0; i < t->nthreads; i++)
    for (size_t k = 0; k < t->threads[i].nsteps; k++)
      if (t->threads[i].steps[k].time_ns) {
        double ts = (double)ct_mono_to_unix_ns(&t->info, t->threads[i].steps[k].time_ns) / 1000.0;
        if (ts < origin) origin = ts;
        break;
      }
  fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
  event(out, &first, "M", "process_name", t->info.pid, 0, 0);
  fputs(",\"args\":{\"name\":\"", out);
  jw_escape(out, t->info.executable ? t->info.executable : "?");
  fputs("\"}}", out);
  for (size_t i = 0; i < t->nthreads; i++) {
    const struct ct_tl_thread *th = &t->threads[i];
    event(out, &first, "M", "thread_name", t->info.pid, th->tid, 0);
    fputs(",\"args\":{\"name\":\"", out);
    jw_escape(out, th->name[0] ? th->name : "thread");
    fprintf(out, "%s\"}}", (int)i == t->crashed ? " (crashed)" : "");
    thread_events(out, &first, t, th, origin);
  }
  fputs("\n]}\n", out);
}
