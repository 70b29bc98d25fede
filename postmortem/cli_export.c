/*
 * cli_export.c - `crashtrail export`: the timeline in formats other tools read.
 *
 *   crashtrail export [--format=chrome] DUMP [-o FILE] [--binary PATH]... [--debug-dir DIR]...
 *   crashtrail export [--format=chrome] --db FILE CRASH [-o FILE]
 *
 * The output is written to FILE.tmp and renamed, so a failed export never leaves half a file.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "outputs.h"

static void export_usage(FILE *out) {
  fputs("usage: crashtrail export [--format=chrome] DUMP [-o FILE] [--binary PATH]... "
        "[--debug-dir DIR]... [--line-order=machine|source]\n"
        "       crashtrail export [--format=chrome] --db FILE CRASH [-o FILE]\n"
        "  --format=chrome   the Chrome trace event format: open it in ui.perfetto.dev or\n"
        "                    chrome://tracing (the default and, for now, only format)\n"
        "  -o FILE           write to FILE instead of standard output\n",
        out);
}

int ct_cmd_export(int argc, char **argv) {
  static const struct option longopts[] = {{"format", 1, 0, 'f'}, {"db", 1, 0, 'd'},
                                           {"output", 1, 0, 'o'}, {"help", 0, 0, 'h'},
                                           CT_FIND_OPTIONS, {0, 0, 0, 0}};
  struct ct_find_opts find = {0};
  const char *format = "chrome", *db = NULL, *output = NULL;
  struct ct_loaded l;
  char tmp[4096];
  int c, rc;
  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
    if ((rc = ct_find_option(&find, c, optarg)) != 0) {
      if (rc < 0) return 2;
      continue;
    }
    switch (c) {
    case 'f': format = optarg; break;
    case 'd': db = optarg; break;
    case 'o': output = optarg; break;
    case 'h': export_usage(stdout); return 0;
    default:
      fprintf(stderr, "crashtrail: unknown or incomplete option '%s'\n", argv[optind - 1]);
      export_usage(stderr);
      return 2;
    }
  }
  if (strcmp(format, "chrome"))
    return fprintf(stderr, "crashtrail: unknown export format '%s' (chrome)\n", format), 2;
  if (optind != argc - 1) {
    export_usage(stderr);
    return 2;
  }
  if (ct_load_crash(argv[optind], db, &find, &l) != 0) return 1;
  FILE *out = stdout;
  if (output) {
    snprintf(tmp, sizeof tmp, "%s.tmp", output);
    out = fopen(tmp, "w");
    if (!out) {
      perror(tmp);
      ct_loaded_free(&l);
      return 1;
    }
  }
  ct_write_chrome(l.timeline, out);
  rc = fflush(out) == 0 && !ferror(out) ? 0 : 1;
  if (output) {
    if (fclose(out) != 0) rc = 1;
    if (rc == 0 && rename(tmp, output) != 0) rc = 1;
    if (rc) unlink(tmp);
  }
  if (rc) fprintf(stderr, "crashtrail: cannot write %s\n", output ? output : "the output");
  ct_loaded_free(&l);
  return rc;
}
