/*
 * cli_report.c - `crashtrail report DUMP -o FILE` (or `--db STORE ID -o FILE`, a stored crash):
 * the crash as one self-contained HTML page.
 *
 * The page is written to a temporary file beside FILE and renamed over it only when complete,
 * so a failure (bad dump, full disk) never leaves a partial report behind, and an existing
 * FILE is either kept or replaced whole. Exit status as for every command (cli.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"

static void report_usage(FILE *out) {
  fputs("usage: crashtrail report DUMP -o FILE [options]\n"
        "       crashtrail report --db STORE ID -o FILE [options]\n"
        "  -o, --output FILE    the HTML file to write (one file: opens from disk, no network)\n"
        "  --db STORE ID        crash ID of a crash store (see crashtrail list --crashes)\n"
        "  --binary PATH        the executable or library a module was loaded from, if it is\n"
        "                       not at the recorded path (matched by GNU build-id; repeatable)\n"
        "  --debug-dir DIR      where separate debug files are (repeatable)\n"
        "  --line-order=ORDER   machine (default) or source: a block's lines as its machine\n"
        "                       code runs them, or in the compiler's IR order\n"
        "  --source-budget=KB   source text embedded as whole files (default 4096); beyond it,\n"
        "                       only the lines around the lines that ran\n"
        "  --steps=N            keep each thread's newest N steps (default 1000000, 0 = all;\n"
        "                       with --db, the store keeps what ingest kept)\n",
        out);
}

/* Writes the report of l to path through a temporary file. 0, or 1 after a message. */
static int write_atomically(const struct ct_loaded *l, const char *path,
                            const struct ct_report_opts *o) {
  size_t n = strlen(path);
  char *tmp = malloc(n + 16);
  int fd, ok;
  FILE *out;
  mode_t mask = umask(0);
  umask(mask);
  if (!tmp) return fprintf(stderr, "crashtrail: out of memory\n"), 1;
  snprintf(tmp, n + 16, "%s.tmp-XXXXXX", path);
  if ((fd = mkstemp(tmp)) < 0 || !(out = fdopen(fd, "w"))) {
    fprintf(stderr, "crashtrail: cannot create %s: %s\n", tmp, strerror(errno));
    if (fd >= 0) close(fd), unlink(tmp);
    free(tmp);
    return 1;
  }
  ok = fchmod(fd, 0666 & ~mask) == 0 && ct_report_write(l->timeline, out, o) == 0;
  ok = (fclose(out) == 0) && ok;
  if (!ok || rename(tmp, path) != 0) {
    fprintf(stderr, "crashtrail: cannot write %s: %s\n", path, ok ? strerror(errno) : "write failed");
    unlink(tmp);
    free(tmp);
    return 1;
  }
  free(tmp);
  return 0;
}

int ct_cmd_report(int argc, char **argv) {
  static const struct option longopts[] = {{"output", 1, 0, 'o'}, {"source-budget", 1, 0, 'b'},
                                           {"help", 0, 0, 'h'}, {"db", 1, 0, 'd'},
                                           {"steps", 1, 0, 's'}, CT_FIND_OPTIONS, {0, 0, 0, 0}};
  struct ct_find_opts find = {.max_steps = CT_DEFAULT_KEPT_STEPS};
  struct ct_report_opts ro = {0};
  const char *output = NULL, *db = NULL;
  struct ct_loaded l;
  int c, rc;
  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
    char *end;
    if ((rc = ct_find_option(&find, c, optarg)) != 0) {
      if (rc < 0) return 2;
      continue;
    }
    switch (c) {
    case 'o': output = optarg; break;
    case 'd': db = optarg; break;
    case 's':
      if (ct_parse_steps(optarg, &find.max_steps) != 0) return 2;
      break;
    case 'b':
      ro.source_budget = strtoul(optarg, &end, 10) << 10;
      if (*end || !*optarg || !ro.source_budget)
        return fprintf(stderr, "crashtrail: --source-budget needs a number of KB\n"), 2;
      break;
    case 'h': report_usage(stdout); return 0;
    default:
      fprintf(stderr, "crashtrail: unknown or incomplete option '%s'\n", argv[optind - 1]);
      report_usage(stderr);
      return 2;
    }
  }
  if (optind != argc - 1 || !output) {
    fprintf(stderr, "crashtrail: report needs one dump file (or --db STORE and a crash number) and -o FILE\n");
    report_usage(stderr);
    return 2;
  }
  if (db && access(db, F_OK) != 0) /* opening it would make an empty store */
    return fprintf(stderr, "crashtrail: %s: %s\n", db, strerror(errno)), 1;
  if (ct_load_crash(argv[optind], db, &find, &l) != 0) return 1;
  rc = write_atomically(&l, output, &ro);
  ct_loaded_free(&l);
  return rc;
}
