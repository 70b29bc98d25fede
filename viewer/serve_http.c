/*
 * serve_http.c - one request of `crashtrail serve` (serve.h): libmicrohttpd's access handler.
 *
 * libmicrohttpd does the HTTP (parsing, limits, timeouts, HEAD, keep-alive); this file decides
 * what a request gets, in this order:
 *   1. the method: GET or HEAD (a GET without its body), else 405 with `Allow: GET, HEAD`
 *      at once (the connection is closed rather than a body read);
 *   2. the Host header, when the server is bound to a loopback address: it must name a
 *      loopback address or localhost, with the server's port, else 400. A web page elsewhere
 *      cannot then read the store by rebinding its own host name to 127.0.0.1;
 *   3. the route, matched exactly (no trailing slash, no dot segments, the query ignored):
 *        /            the crash groups
 *        /group/ID    one group's crashes
 *        /crash/ID    one crash's timeline: the report's page
 *      An ID is 1 to 18 decimal digits without a leading zero: anything else, and an ID the
 *      store does not have, is 404. The URL never becomes a file name (every page comes from
 *      the store or from the assets compiled in), so there is nothing to traverse.
 * Every response is an HTML page (errors too, with the server's own sentence) and carries a
 * Content-Security-Policy as strict as the report's (nothing loaded, no framing), nosniff,
 * no-referrer and no-store (a page reflects the store at the moment of the request).
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "serve.h"
#include "mhd_loader.h"
#include "serve_http.h"

static const char CSP[] = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline';"
                          " img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/* Queues body (malloc'ed, len bytes; freed by libmicrohttpd) as the response. */
static enum MHD_Result send_page(struct MHD_Connection *c, int status, char *body, size_t len) {
  struct MHD_Response *r = ct_mhd.create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
  enum MHD_Result ok;
  if (!r) return free(body), MHD_NO;
  ct_mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/html; charset=utf-8");
  ct_mhd.add_response_header(r, "Content-Security-Policy", CSP);
  ct_mhd.add_response_header(r, "X-Content-Type-Options", "nosniff");
  ct_mhd.add_response_header(r, "Referrer-Policy", "no-referrer");
  ct_mhd.add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
  if (status == CT_HTTP_BAD_METHOD) ct_mhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
  ok = ct_mhd.queue_response(c, (unsigned)status, r);
  ct_mhd.destroy_response(r);
  return ok;
}

/* Sends the error page of status with message. */
static enum MHD_Result send_error(struct MHD_Connection *c, int status, const char *message) {
  char *body = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&body, &len);
  int ok = out && ct_serve_error_page(out, status, message) == 0;
  if (out) ok = fclose(out) == 0 && ok;
  if (!ok) {
    /* out of memory: a constant page (libmicrohttpd does not free it) */
    static const char oom[] = "<!doctype html><title>500</title><p>crashtrail serve: out of memory";
    struct MHD_Response *r;
    free(body);
    r = ct_mhd.create_response_from_buffer(sizeof oom - 1, (void *)oom, MHD_RESPMEM_PERSISTENT);
    enum MHD_Result q = r ? ct_mhd.queue_response(c, CT_HTTP_ERROR, r) : MHD_NO;
    if (r) ct_mhd.destroy_response(r);
    return q;
  }
  return send_page(c, status, body, len);
}

/* Whether p is a strict ID (1-18 digits, no leading zero, nothing after); its value in *id. */
static int parse_id(const char *p, int64_t *id) {
  size_t n = strspn(p, "0123456789");
  if (n == 0 || n > 18 || p[n] || p[0] == '0') return 0;
  *id = strtoll(p, NULL, 10);
  return 1;
}

/* Whether the Host header is acceptable (step 2 of the header). */
static int host_ok(const struct ct_serve *s, const char *host) {
  char name[64];
  const char *port;
  size_t n;
  unsigned char addr[16];
  if (!s->loopback) return 1;
  if (!host) return 0;
  if (host[0] == '[') { /* [IPv6]:port */
    const char *close = strchr(host, ']');
    if (!close) return 0;
    n = (size_t)(close - host - 1), port = close + 1;
    host++;
  } else {
    port = strchr(host, ':');
    n = port ? (size_t)(port - host) : strlen(host);
    if (!port) port = host + n;
  }
  if (n == 0 || n >= sizeof name) return 0;
  memcpy(name, host, n);
  name[n] = 0;
  if (*port) { /* ":digits", naming our port */
    const char *digits = port + 1;
    if (*port != ':' || !*digits || strspn(digits, "0123456789") != strlen(digits) ||
        strtoul(digits, NULL, 10) != s->port)
      return 0;
  } else if (s->port != 80) {
    return 0;
  }
  if (!strcasecmp(name, "localhost")) return 1;
  if (inet_pton(AF_INET, name, addr) == 1) return addr[0] == 127;
  return inet_pton(AF_INET6, name, addr) == 1 && !memcmp(addr, &in6addr_loopback, 16);
}

/* Runs the page the route names into a buffer and sends it, or its error page. */
static enum MHD_Result route(const struct ct_serve *s, struct MHD_Connection *c, const char *url) {
  char *body = NULL, message[160];
  size_t len = 0;
  int64_t id = 0;
  int status, kind;
  FILE *out;
  if (!strcmp(url, "/")) kind = 0;
  else if (!strncmp(url, "/group/", 7) && parse_id(url + 7, &id)) kind = 1;
  else if (!strncmp(url, "/crash/", 7) && parse_id(url + 7, &id)) kind = 2;
  else return send_error(c, CT_HTTP_NOT_FOUND, "There is no such page. The crash groups are at /.");
  if (!(out = open_memstream(&body, &len)))
    return send_error(c, CT_HTTP_ERROR, "The server is out of memory.");
  status = kind == 0 ? ct_serve_groups_page(s, out)
         : kind == 1 ? ct_serve_group_page(s, id, out)
                     : ct_serve_crash_page(s, id, out);
  if (fclose(out) != 0 && status == CT_HTTP_OK) status = CT_HTTP_ERROR;
  if (status == CT_HTTP_OK) return send_page(c, status, body, len);
  free(body);
  if (status == CT_HTTP_NOT_FOUND)
    snprintf(message, sizeof message, "There is no %s %lld in this store.",
             kind == 1 ? "crash group" : "crash", (long long)id);
  else
    snprintf(message, sizeof message, "The store could not be read: the server's error output says why.");
  return send_error(c, status, message);
}

enum MHD_Result ct_serve_handle(void *cls, struct MHD_Connection *c, const char *url,
                                const char *method, const char *version, const char *upload,
                                size_t *upload_size, void **state) {
  static int seen; /* *state of a request whose headers were seen: its address */
  const struct ct_serve *s = cls;
  (void)version, (void)upload;
  if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
    return send_error(c, CT_HTTP_BAD_METHOD, "This server only shows the store: it takes GET requests.");
  /* Answer once the whole request is in (a body, which a GET should not have, is dropped):
   * a response queued earlier makes libmicrohttpd close the connection after it. */
  if (!*state || *upload_size) {
    *state = &seen;
    *upload_size = 0;
    return MHD_YES;
  }
  if (!host_ok(s, ct_mhd.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST)))
    return send_error(c, CT_HTTP_BAD_REQUEST,
                      "The Host header does not name this server (open it by its loopback address).");
  return route(s, c, url);
}
