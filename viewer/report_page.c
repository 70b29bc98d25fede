/*
 * report_page.c - the HTML page of a report: the viewer.html template with its markers
 * replaced by the embedded assets and the data.
 *
 *   @CT_CSS@      every .css asset, in the order of the asset list
 *   @CT_JS@       every .js asset, in that order (one script: the files share a scope object)
 *   @CT_DATA@     the report's JSON data (report.c), inside <script type="application/json">
 *   @CT_VERSION@  the crashtrail version
 * Nothing from outside is written here except through the data writer, which escapes every
 * string with ct_js_string_n.
 */
#include <string.h>

#include "assets.h"
#include "report.h"

#ifndef CT_VERSION
#define CT_VERSION "unknown"
#endif

static const struct ct_asset *find_asset(const char *name) {
  for (size_t i = 0; i < ct_viewer_nassets; i++)
    if (!strcmp(ct_viewer_assets[i].name, name)) return &ct_viewer_assets[i];
  return NULL;
}

static void write_assets(FILE *out, const char *suffix) {
  size_t sl = strlen(suffix);
  for (size_t i = 0; i < ct_viewer_nassets; i++) {
    const struct ct_asset *a = &ct_viewer_assets[i];
    size_t nl = strlen(a->name);
    if (nl < sl || strcmp(a->name + nl - sl, suffix)) continue;
    fprintf(out, "\n/* %s */\n", a->name);
    fwrite(a->data, 1, a->len, out);
  }
}

int ct_report_write(const struct ct_timeline *t, FILE *out, const struct ct_report_opts *o) {
  const struct ct_asset *tpl = find_asset("viewer.html");
  const char *p, *m;
  int rc = 0;
  if (!tpl) return -1;
  for (p = tpl->data; rc == 0 && (m = strstr(p, "@CT_")); ) {
    fwrite(p, 1, (size_t)(m - p), out);
    const char *end = strchr(m + 1, '@');
    size_t len = end ? (size_t)(end + 1 - m) : 4;
    if (!strncmp(m, "@CT_CSS@", len)) write_assets(out, ".css");
    else if (!strncmp(m, "@CT_JS@", len)) write_assets(out, ".js");
    else if (!strncmp(m, "@CT_DATA@", len)) rc = ct_report_write_data(t, out, o);
    else if (!strncmp(m, "@CT_VERSION@", len)) fputs(CT_VERSION, out);
    else fwrite(m, 1, len, out); /* not a marker */
    p = m + len;
  }
  fputs(p, out);
  return rc == 0 && !ferror(out) ? 0 : -1;
}
