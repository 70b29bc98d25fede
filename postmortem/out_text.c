/*
 * out_text.c - the timeline for a terminal: what crashed, the stack, then each thread's steps
 * (the crashed thread first) with the source text beside each line, and summaries.
 *
 * Loop folding: at each position the shortest period p (up to 64 steps) whose body repeats at
 * least three times in a row is printed once with its count ("x 1000"); only periods whose
 * second occurrence starts with the same line are tried, so folding is near-linear in
 * practice. The iteration printed is the last (as the viewer's): it holds the crash when the
 * crash ends an iteration. A step after lost history never repeats one before (the gap's mark
 * is printed). --all prints every iteration. Colour only when writing to a terminal.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "crashtrail/abi.h"
#include "cxx_names.h"
#include "dwarf_module.h"
#include "outputs.h"
#include "source_cache.h"

struct style {
  const char *dim, *bold, *red, *cyan, *yellow, *reset;
};

static const char *module_name(const struct ct_timeline *t, int idx) {
  return idx >= 0 && (size_t)idx < t->nmodules ? t->modules[idx].name : "?";
}

static const char *short_path(const char *p) {
  const char *s = p ? strrchr(p, '/') : NULL;
  return s ? s + 1 : p ? p : "?";
}

static int same_step(const struct ct_step *a, const struct ct_step *b) {
  return a->line == b->line && a->file == b->file && a->function == b->function &&
         (a->flags & CT_STEP_GAP) == (b->flags & CT_STEP_GAP);
}

/* Repetitions of steps[i, i+p) starting at i (at least 1). */
static size_t repeats(const struct ct_step *s, size_t n, size_t i, size_t p) {
  size_t k = 1;
  while (i + (k + 1) * p <= n) {
    size_t j = 0;
    while (j < p && same_step(&s[i + j], &s[i + k * p + j])) j++;
    if (j < p) break;
    k++;
  }
  return k;
}

/* mark: what the last step's CT_STEP_CRASH says ("crash" for the thread the dump is about,
 * "dumped here" for it in a dump taken on request, "stopped here" for a thread stopped for the
 * dump). */
static void print_step(FILE *out, const struct ct_timeline *t, const struct ct_step *s, size_t seq,
                       const char *indent, struct ct_sources *src, const struct style *st,
                       const char *mark) {
  const char *text = ct_source_line(src, s->file, s->line);
  int crash = (s->flags & CT_STEP_CRASH) != 0;
  char shortened[64];
  const char *fn = s->function ? ct_cxx_short_name(s->function, shortened, sizeof shortened) : "?";
  while (text && (*text == ' ' || *text == '\t')) text++;
  fprintf(out, "%s%6zu %s%-10.10s%s %*s%s%-20.20s%s %s%s:%u%s", crash ? st->red : "", seq, st->dim,
          module_name(t, s->module), st->reset, (int)(s->depth > 12 ? 12 : s->depth), "",
          crash ? st->red : st->cyan, fn, st->reset, indent,
          short_path(s->file), s->line, crash ? st->reset : "");
  if (text) fprintf(out, "  %s| %.100s%s", st->dim, text, st->reset);
  if (s->flags & CT_STEP_UNCERTAIN) fprintf(out, "  %s(uncertain)%s", st->yellow, st->reset);
  if (crash) fprintf(out, "  %s<== %s%s", st->red, mark, st->reset);
  fputc('\n', out);
}

static void print_steps(FILE *out, const struct ct_timeline *t, const struct ct_tl_thread *th,
                        const struct ct_text_opts *o, struct ct_sources *src, const struct style *st) {
  const struct ct_step *s = th->steps;
  size_t n = th->nsteps, i = 0, seq0 = th->first_seq;
  const char *mark = th != t->threads   ? "stopped here"
                     : t->info.has_signal ? "crash"
                                          : "dumped here";
  if (o->max_steps && n > o->max_steps) i = n - o->max_steps;
  if (seq0 + i)
    fprintf(out, "%s       ... %zu earlier steps not shown (--steps=N, 0 for all)%s\n", st->dim,
            seq0 + i, st->reset);
  while (i < n) {
    if (s[i].flags & CT_STEP_GAP)
      fprintf(out, "%s       ... history is missing here (overwritten in the ring, or see the "
                   "warnings) ...%s\n", st->yellow, st->reset);
    size_t best_p = 0, best_k = 1;
    if (!o->unfold)
      for (size_t p = 1; p <= 64 && i + 3 * p <= n; p++) {
        if (!same_step(&s[i], &s[i + p])) continue;
        size_t k = repeats(s, n, i, p);
        if (k >= 3) {
          best_p = p;
          best_k = k;
          break;
        }
      }
    if (!best_p) {
      print_step(out, t, &s[i], seq0 + i, "", src, st, mark);
      i++;
      continue;
    }
    unsigned lo = s[i].line, hi = s[i].line;
    for (size_t j = 0; j < best_p; j++) {
      if (s[i + j].line < lo) lo = s[i + j].line;
      if (s[i + j].line > hi) hi = s[i + j].line;
    }
    fprintf(out, "%s       loop: %s lines %u-%u x %zu (%zu steps folded; --all shows them)%s\n",
            st->yellow, short_path(s[i].file), lo, hi, best_k, best_p * (best_k - 1), st->reset);
    size_t last = i + best_p * (best_k - 1); /* the last iteration's first step */
    for (size_t j = last; j < last + best_p; j++)
      print_step(out, t, &s[j], seq0 + j, "  ", src, st, mark);
    i += best_p * best_k;
  }
}

/* The function entries of the steps kept, collapsed where one repeats; the newest 60. */
static int new_call(const struct ct_step *s, const char **prev) {
  if (!(s->flags & CT_STEP_ENTRY) || !s->outer) return 0;
  if (*prev && !strcmp(s->outer, *prev)) return 0;
  *prev = s->outer;
  return 1;
}

static void print_calls(FILE *out, const struct ct_timeline *t, const struct ct_tl_thread *th,
                        const struct style *st) {
  const char *prev = NULL;
  int prev_mod = -1;
  size_t calls = 0, shown = 0, transitions = 0;
  for (size_t i = 0; i < th->nsteps; i++) calls += new_call(&th->steps[i], &prev);
  fprintf(out, "\n%sCalls%s, newest last:%s ", st->bold,
          th->first_seq ? " in the steps kept" : "", st->reset);
  if (calls > 60) fprintf(out, "(%zu calls, the last 60) ... ", calls);
  prev = NULL;
  char a[64], b[64];
  for (size_t i = 0, k = 0; i < th->nsteps; i++)
    if (new_call(&th->steps[i], &prev) && k++ >= (calls > 60 ? calls - 60 : 0))
      fprintf(out, "%s%s", shown++ ? " > " : "", ct_cxx_short_name(th->steps[i].outer, a, sizeof a));
  fputc('\n', out);
  for (size_t i = 0; i < th->nsteps; i++) {
    if (prev_mod >= 0 && th->steps[i].module != prev_mod) {
      if (transitions++ == 0) fprintf(out, "%sInter-module calls:%s\n", st->bold, st->reset);
      if (transitions <= 20)
        fprintf(out, "  %s (%s) -> %s (%s)\n",
                ct_cxx_short_name(th->steps[i - 1].function, a, sizeof a), module_name(t, prev_mod),
                ct_cxx_short_name(th->steps[i].function, b, sizeof b),
                module_name(t, th->steps[i].module));
    }
    prev_mod = th->steps[i].module;
  }
}

static void print_header(FILE *out, const struct ct_timeline *t, const struct style *st) {
  const struct ct_crash_info *i = &t->info;
  char when[64];
  ct_format_time(i->realtime_ns / 1000000000, when, sizeof when);
  if (i->has_signal) {
    fprintf(out, "%s%s%s (%s", st->bold, st->red, ct_signal_name(i->signo),
            ct_signal_code_name(i->signo, i->code));
    if (i->signo == SIGSEGV || i->signo == SIGBUS)
      fprintf(out, ", address 0x%llx", (unsigned long long)i->fault_addr);
    fprintf(out, ")%s", st->reset);
    if (t->crashed >= 0) fprintf(out, " in thread %u", t->threads[t->crashed].tid);
  } else {
    fprintf(out, "%sDump on request%s%s%s%s", st->bold, i->message ? " (" : "",
            i->message ? i->message : "", i->message ? ")" : "", st->reset);
  }
  fprintf(out, " of %s, pid %u, at %s\n", i->executable, i->pid, when);
}

static void print_stack(FILE *out, const struct ct_timeline *t, const struct ct_tl_thread *th,
                        const struct style *st) {
  if (!th->nstack) return;
  fprintf(out, "\n%sStack of thread %u%s, innermost first:%s\n", st->bold, th->tid,
          th == t->threads ? "" : " (stopped for the dump)", st->reset);
  for (size_t i = 0, n = 0; i < th->nstack; i++) {
    const struct ct_frame *f = &th->stack[i];
    fprintf(out, "  %s#%-2zu%s %s%-28s%s %s:%u  %s[%s]%s%s%s\n", st->dim, n, st->reset, st->cyan,
            f->function ? f->function : "??", st->reset, f->file ? short_path(f->file) : "?",
            f->line, st->dim, module_name(t, f->module), f->inlined ? " (inlined)" : "",
            f->scanned ? " (found by scanning the stack)" : "", st->reset);
    if (!f->inlined) n++;
  }
}

static void print_locals(FILE *out, const struct ct_tl_thread *th, const struct style *st) {
  if (!th->nlocals) return;
  fprintf(out, "\n%sVariables of %s at %s:%u:%s\n", st->bold, th->locals_function,
          th->locals_file ? short_path(th->locals_file) : "?", th->locals_line, st->reset);
  for (size_t i = 0; i < th->nlocals; i++) {
    const struct ct_local *l = &th->locals[i];
    /* inlined scopes come innermost first: name each when it changes */
    if (l->function && (i == 0 || !th->locals[i - 1].function ||
                        strcmp(l->function, th->locals[i - 1].function)))
      fprintf(out, "  %sin %s:%s\n", st->dim, l->function, st->reset);
    fprintf(out, "    %s%-20s%s %-16s = %s%s%s\n", st->dim, l->type, st->reset, l->name,
            l->known ? "" : st->dim, l->value, l->known ? "" : st->reset);
  }
}

static void print_exec(FILE *out, const struct ct_timeline *t, const char *title,
                       const struct ct_exec_entry *e, size_t n, const struct style *st) {
  double res = (double)t->table_resolution_ns;
  if (!n) return;
  /* Times this close are not ordered by the tables (same time: function and block order). */
  fprintf(out, "\n%s%s (%zu lines, newest last, times to %.1f %s; showing the last 20):%s\n",
          st->bold, title, n, res >= 1e6 ? res / 1e6 : res / 1e3, res >= 1e6 ? "ms" : "us",
          st->reset);
  for (size_t i = n > 20 ? n - 20 : 0; i < n; i++) {
    char shortened[64];
    fprintf(out, "  %-10.10s %-24.24s %s:%u\n", module_name(t, e[i].module),
            e[i].function ? ct_cxx_short_name(e[i].function, shortened, sizeof shortened) : "?",
            short_path(e[i].file), e[i].line);
  }
}

void ct_write_text(const struct ct_timeline *t, FILE *out, const struct ct_text_opts *o) {
  static const struct style plain = {"", "", "", "", "", ""};
  static const struct style ansi = {"\033[2m", "\033[1m", "\033[31m", "\033[36m", "\033[33m", "\033[0m"};
  const struct style *st = o->color ? &ansi : &plain;
  struct ct_sources *src = ct_sources_new();
  print_header(out, t, st);
  if (t->nthreads) print_stack(out, t, &t->threads[0], st);
  if (t->nthreads) print_locals(out, &t->threads[0], st);
  for (size_t i = 0; i < t->nthreads; i++) {
    const struct ct_tl_thread *th = &t->threads[i];
    if (i > 0 && !o->all_threads && !th->nsteps) continue;
    fprintf(out, "\n%sThread %u%s%s%s%s%s%s, %zu steps from %llu records, oldest first:%s\n",
            st->bold, th->tid, th->name[0] ? " (" : "", th->name, th->name[0] ? ")" : "",
            (int)i == t->crashed ? ", crashed" : "", th->flags & CT_THR_EXITED ? ", exited" : "",
            th->flags & CT_THR_PREFORK ? ", before fork" : "", th->first_seq + th->nsteps,
            (unsigned long long)th->records, st->reset);
    print_steps(out, t, th, o, src, st);
    if ((int)i == t->crashed || i == 0) print_calls(out, t, th, st);
    if (i > 0) print_stack(out, t, th, st);
  }
  print_exec(out, t, "Last-executed lines", t->last_exec, t->nlast, st);
  print_exec(out, t, "First-executed lines", t->first_exec, t->nfirst, st);
  for (size_t i = 0; i < t->nwarnings; i++)
    fprintf(out, "%swarning: %s%s\n", st->yellow, t->warnings[i], st->reset);
  ct_sources_free(src);
}
