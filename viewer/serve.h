/*
 * serve.h - `crashtrail serve`: the crash store in a local web server.
 *
 *   serve.c        the command: options, the store check, the listening socket, the daemon
 *                  (libmicrohttpd), SIGINT/SIGTERM
 *   serve_http.c   one request: method, Host, route, strict ids, the response and its headers
 *   serve_pages.c  the pages: the crash groups, one group's crashes (assets/serve.*), a crash
 *                  (the report's own page, report_page.c), errors
 *
 * Nothing is written to the store: every request opens its own read-only connection
 * (SQLite URI mode=ro) and reads in one transaction, so it sees a consistent snapshot that
 * includes every ingest committed before it (the store is in WAL mode: `crashtrail ingest`
 * can run meanwhile).
 */
#ifndef CT_VIEWER_SERVE_H
#define CT_VIEWER_SERVE_H

#include <stdint.h>
#include <stdio.h>

#include "assets.h"

struct ct_store;

struct ct_serve {
  const char *db_path; /* as given, for messages */
  char *db_uri;        /* "file:PATH?mode=ro", percent-encoded */
  char url_host[64];   /* the bound address as a URL writes it: 127.0.0.1, [::1] */
  unsigned port;       /* the port listened on (the chosen one for --port 0) */
  int loopback;        /* bound to a loopback address: the Host header must name one */
};

/* The server pages' assets (serve.html, serve.css, serve.js), generated like ct_viewer_assets. */
extern const struct ct_asset ct_serve_assets[];
extern const size_t ct_serve_nassets;

/* HTTP statuses a page can end with. */
enum { CT_HTTP_OK = 200, CT_HTTP_BAD_REQUEST = 400, CT_HTTP_NOT_FOUND = 404,
       CT_HTTP_BAD_METHOD = 405, CT_HTTP_ERROR = 500 };

/* Opens the store read-only for one request. 0, or -1 after logging why on stderr. */
int ct_serve_open(const struct ct_serve *s, struct ct_store **out);

/* Each writes a whole page to out and returns its status: CT_HTTP_OK, CT_HTTP_NOT_FOUND (no
 * such group or crash: nothing useful written, the caller sends an error page instead) or
 * CT_HTTP_ERROR (logged on stderr). */
int ct_serve_groups_page(const struct ct_serve *s, FILE *out);
int ct_serve_group_page(const struct ct_serve *s, int64_t id, FILE *out);
int ct_serve_crash_page(const struct ct_serve *s, int64_t id, FILE *out);

/* An error page: status with its reason phrase and a sentence that says what to do. The
 * sentence is the server's own text (never the request's), escaped like everything else.
 * 0, or -1 if the output failed. */
int ct_serve_error_page(FILE *out, int status, const char *message);

/* The HTTP reason phrase of a status the server sends. */
const char *ct_serve_reason(int status);

#endif
