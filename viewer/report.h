/*
 * report.h - `crashtrail report`: a crash timeline as one self-contained HTML file.
 *
 * The page (report_page.c) is the viewer.html template from viewer/assets with the CSS, the
 * JavaScript and the data filled in; the data (report.c, report_sources.c) is one JSON object
 * described in viewer/README.md ("crashtrail-report", version 1). The page loads nothing: no
 * server, no network, and a Content-Security-Policy that forbids both.
 */
#ifndef CT_VIEWER_REPORT_H
#define CT_VIEWER_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "intern.h"
#include "timeline.h"

struct ct_report_opts {
  size_t source_budget; /* bytes of source text embedded as whole files; beyond it, only the
                           lines around executed lines. 0: the default (4 MiB). */
};

#define CT_REPORT_DEFAULT_SOURCE_BUDGET (4u << 20)

/* Writes the whole page. 0, or -1 when out of memory or the output failed (ferror). */
int ct_report_write(const struct ct_timeline *t, FILE *out, const struct ct_report_opts *o);

/* Writes the data object (report.c). 0, or -1 when out of memory. */
int ct_report_write_data(const struct ct_timeline *t, FILE *out, const struct ct_report_opts *o);

/* Writes the "sources" member's array for every file the interned locations, stacks and
 * execution lists name (report_sources.c). It may add strings to `in` (never locations).
 * 0, or -1 when out of memory. */
int ct_report_write_sources(const struct ct_timeline *t, struct ct_intern *in, FILE *out,
                            size_t budget);

/* Writes a signed integer in decimal (the data is mostly integers: this is the hot path). */
void ct_report_int(FILE *out, int64_t v);

#endif
