/*
 * outputs.h - renderings of a timeline: JSON (the interface other tools and tests rely on,
 * see docs/timeline-json.md), text for a terminal, and the Chrome trace event format.
 */
#ifndef CT_OUTPUTS_H
#define CT_OUTPUTS_H

#include <stdio.h>

#include "timeline.h"

void ct_write_json(const struct ct_timeline *t, FILE *out);

/* Every decoded block, one per line ("MODULE 0xFUNCTION BLOCK"), per thread ("thread TID");
 * a testing aid: the timeline must have been built with keep_blocks. */
void ct_write_blocks(const struct ct_timeline *t, FILE *out);

struct ct_text_opts {
  int color;      /* ANSI colours */
  int unfold;     /* show every loop iteration instead of folding repeats */
  int all_threads;
  size_t max_steps; /* per thread, 0 = no limit */
};
void ct_write_text(const struct ct_timeline *t, FILE *out, const struct ct_text_opts *o);


/* The Chrome trace event format (Perfetto, chrome://tracing). */
void ct_write_chrome(const struct ct_timeline *t, FILE *out);

/* `crashtrail meta FILE`: the crashtrail metadata of a file, readable. 0, or 1 after a message. */
int ct_meta_print_file(const char *path, FILE *out);

/* ISO 8601 UTC ("2026-11-22T05:00:00Z") of a dump's time. */
void ct_format_time(int64_t sec, char *buf, size_t len);
/* A CLOCK_MONOTONIC time of the crashed process as Unix nanoseconds. */
int64_t ct_mono_to_unix_ns(const struct ct_crash_info *i, uint64_t mono_ns);

#endif
