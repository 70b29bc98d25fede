/*
 * serve.c - `crashtrail serve [--db FILE] [--port N] [--bind ADDR]`: the crash store in a
 * local web server (serve.h), until SIGINT or SIGTERM.
 *
 *   main thread                              libmicrohttpd's threads (a pool of POOL)
 *   -----------                              -------------------------------------------
 *   options (bad: usage, exit 2)
 *   the store: exists, is a crashtrail store,
 *     opens read-only (else exit 1)
 *   bind + listen (port taken: exit 1)
 *   block SIGINT/SIGTERM (threads inherit)
 *   start the daemon on the socket  ------>  accept, parse, ct_serve_handle (serve_http.c):
 *   print "serving http://HOST:PORT/"          each request its own read-only connection
 *   sigwait(SIGINT, SIGTERM)
 *   stop the daemon (joins the threads)      <------
 *   exit 0
 *
 * The socket is made here rather than by libmicrohttpd so that a port already in use (or an
 * address this machine does not have) is reported with its reason, and --port 0 can say
 * which port the kernel chose. The signals are taken synchronously with sigwait, so nothing
 * runs in a signal handler and the daemon is stopped from normal context.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "serve.h"
#include "mhd_loader.h"
#include "serve_http.h"
#include "store.h"

enum { DEFAULT_PORT = 7411, POOL = 4, TIMEOUT_S = 60, MAX_CONNECTIONS = 64 };

static void serve_usage(FILE *out) {
  fprintf(out,
          "usage: crashtrail serve [--db FILE] [--port N] [--bind ADDR]\n"
          "  --db FILE      the crash store (default: $CRASHTRAIL_DB, else ./crashtrail.db);\n"
          "                 read only: `crashtrail ingest` can add crashes meanwhile\n"
          "  --port N       the TCP port (default %d; 0: any free port)\n"
          "  --bind ADDR    the address to listen on (default 127.0.0.1: this machine only);\n"
          "                 a numeric IPv4 or IPv6 address, or localhost\n"
          "Prints \"serving http://ADDR:PORT/\" once it listens; SIGINT or SIGTERM stop it.\n",
          DEFAULT_PORT);
}

/* The address to listen on, from --bind. 0, or -1 if it is not a numeric address. */
static int parse_bind(const char *arg, unsigned port, struct sockaddr_storage *ss, socklen_t *len) {
  struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
  memset(ss, 0, sizeof *ss);
  if (!strcmp(arg, "localhost")) arg = "127.0.0.1";
  if (inet_pton(AF_INET, arg, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons((uint16_t)port);
    *len = sizeof *v4;
    return 0;
  }
  if (inet_pton(AF_INET6, arg, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)port);
    *len = sizeof *v6;
    return 0;
  }
  return -1;
}

/* The SQLite URI that opens path read-only: file:PATH?mode=ro with PATH percent-encoded. */
static char *readonly_uri(const char *path) {
  static const char hex[] = "0123456789ABCDEF";
  size_t n = strlen(path);
  char *uri = malloc(3 * n + 16), *q = uri;
  if (!uri) return NULL;
  q += sprintf(q, "file:");
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
        strchr("-._~/", *p))
      *q++ = (char)*p;
    else
      *q++ = '%', *q++ = hex[*p >> 4], *q++ = hex[*p & 15];
  }
  strcpy(q, "?mode=ro");
  return uri;
}

/* Whether the file is a crashtrail store this crashtrail can read: it has the store's tables
 * and a schema version, and the store opens read-only (which refuses a newer schema). 0, or 1
 * after a message. Nothing is created or modified. */
static int check_store(const struct ct_serve *s) {
  struct stat st;
  sqlite3 *db = NULL;
  sqlite3_stmt *q = NULL;
  struct ct_store *store;
  int ok = 0;
  if (stat(s->db_path, &st) != 0)
    return fprintf(stderr, "crashtrail: %s: %s (`crashtrail ingest DUMP --db %s` makes a store)\n",
                   s->db_path, strerror(errno), s->db_path), 1;
  if (sqlite3_open_v2(s->db_uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND"
                         " name IN ('groups', 'crashes', 'crash_modules', 'builds', 'threads',"
                         " 'steps')), (SELECT user_version FROM pragma_user_version)",
                         -1, &q, NULL) == SQLITE_OK &&
      sqlite3_step(q) == SQLITE_ROW)
    ok = sqlite3_column_int(q, 0) == 6 && sqlite3_column_int(q, 1) >= 1;
  sqlite3_finalize(q);
  sqlite3_close(db);
  if (!ok) return fprintf(stderr, "crashtrail: %s: not a crashtrail store\n", s->db_path), 1;
  if (ct_serve_open(s, &store) != 0) return 1;
  ct_store_close(store);
  return 0;
}

/* A listening TCP socket on addr; s->port and s->url_host get what it is bound to. The
 * socket, or -1 after a message. */
static int listen_on(struct ct_serve *s, const char *bind_arg, struct sockaddr_storage *addr,
                     socklen_t len) {
  int one = 1, fd = socket(addr->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_storage got;
  socklen_t glen = sizeof got;
  char ip[INET6_ADDRSTRLEN];
  if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
      bind(fd, (struct sockaddr *)addr, len) != 0 || listen(fd, 64) != 0 ||
      getsockname(fd, (struct sockaddr *)&got, &glen) != 0) {
    fprintf(stderr, "crashtrail: cannot listen on %s port %u: %s\n", bind_arg, s->port, strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  if (got.ss_family == AF_INET) {
    struct sockaddr_in *a = (struct sockaddr_in *)&got;
    inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
    s->port = ntohs(a->sin_port);
    s->loopback = (ntohl(a->sin_addr.s_addr) >> 24) == 127;
    snprintf(s->url_host, sizeof s->url_host, "%s", ip);
  } else {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&got;
    inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
    s->port = ntohs(a->sin6_port);
    s->loopback = IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
    snprintf(s->url_host, sizeof s->url_host, "[%s]", ip);
  }
  return fd;
}

static void log_mhd(void *cls, const char *fmt, va_list ap) {
  (void)cls;
  fputs("crashtrail serve: ", stderr);
  vfprintf(stderr, fmt, ap);
}

/* Serves on fd until SIGINT or SIGTERM. 0, or 1 after a message. */
static int run(struct ct_serve *s, int fd) {
  sigset_t stop;
  struct MHD_Daemon *d;
  char why[256];
  int sig = 0;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGINT, SIG_DFL); /* an ignored signal (a background job's SIGINT) never reaches sigwait */
  signal(SIGTERM, SIG_DFL);
  if (ct_mhd_load(why, sizeof why) != 0) {
    close(fd);
    return fprintf(stderr, "crashtrail: cannot start the web server: %s\n", why), 1;
  }
  pthread_sigmask(SIG_BLOCK, &stop, NULL); /* before the daemon's threads exist */
  d = ct_mhd.start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG, 0, NULL,
                       NULL, ct_serve_handle, s, MHD_OPTION_EXTERNAL_LOGGER, log_mhd, NULL,
                       MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_THREAD_POOL_SIZE, (unsigned)POOL,
                       MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)TIMEOUT_S,
                       MHD_OPTION_CONNECTION_LIMIT, (unsigned)MAX_CONNECTIONS, MHD_OPTION_END);
  if (!d) {
    close(fd);
    return fprintf(stderr, "crashtrail: cannot start the web server (libmicrohttpd)\n"), 1;
  }
  printf("serving http://%s:%u/\n", s->url_host, s->port);
  fflush(stdout);
  while (sigwait(&stop, &sig) != 0) continue;
  ct_mhd.stop_daemon(d); /* closes fd */
  return 0;
}

int ct_cmd_serve(int argc, char **argv) {
  static const struct option longopts[] = {{"db", 1, 0, 'd'}, {"port", 1, 0, 'p'},
                                           {"bind", 1, 0, 'b'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
  struct ct_serve s = {.port = DEFAULT_PORT};
  struct sockaddr_storage addr;
  socklen_t alen;
  const char *db = NULL, *bind_arg = "127.0.0.1";
  char *end, real[4096];
  int c, fd, rc;
  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    switch (c) {
    case 'd': db = optarg; break;
    case 'b': bind_arg = optarg; break;
    case 'p':
      s.port = (unsigned)strtoul(optarg, &end, 10);
      if (*end || !*optarg || strspn(optarg, "0123456789") != strlen(optarg) || s.port > 65535)
        return fprintf(stderr, "crashtrail: --port needs a port number (0-65535)\n"), serve_usage(stderr), 2;
      break;
    case 'h': serve_usage(stdout); return 0;
    default:
      fprintf(stderr, "crashtrail: unknown or incomplete option '%s'\n", argv[optind - 1]);
      serve_usage(stderr);
      return 2;
    }
  }
  if (optind != argc)
    return fprintf(stderr, "crashtrail: serve takes no arguments, only options\n"), serve_usage(stderr), 2;
  if (parse_bind(bind_arg, s.port, &addr, &alen) != 0)
    return fprintf(stderr, "crashtrail: --bind needs a numeric IPv4 or IPv6 address\n"), serve_usage(stderr), 2;
  s.db_path = ct_default_db(db);
  /* SQLite reads "file:" names as URIs only when asked; the store is opened by its URI */
  sqlite3_config(SQLITE_CONFIG_URI, 1);
  if (!(s.db_uri = readonly_uri(realpath(s.db_path, real) ? real : s.db_path)))
    return fprintf(stderr, "crashtrail: out of memory\n"), 1;
  rc = check_store(&s);
  if (rc == 0 && (fd = listen_on(&s, bind_arg, &addr, alen)) < 0) rc = 1;
  if (rc == 0) rc = run(&s, fd);
  free(s.db_uri);
  return rc;
}
