/*
 * main.c - the `crashtrail` command: post-mortem of crash dumps.
 *
 *   crashtrail show DUMP [--format=text|json] ...   the timeline of a crash
 *   crashtrail meta FILE                            the decoding metadata of a binary
 *
 * Exit status: 0 done; 1 the input is bad (not a dump, truncated, wrong binary, ...), with one
 * line on stderr saying why; 2 the command line is wrong.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} commands[] = {
    {"show", ct_cmd_show, "show DUMP          the timeline of a crash, as text or JSON"},
    {"ingest", ct_cmd_ingest, "ingest DUMP...     store crashes in the SQLite store (--db FILE)"},
    {"export", ct_cmd_export, "export DUMP -o F   the timeline for Perfetto (--format=chrome)"},
    {"list", ct_cmd_list, "list               crash groups with counts (--crashes: every crash)"},
    {"meta", ct_cmd_meta, "meta FILE          the decoding metadata of an instrumented binary"},
    {"report", ct_cmd_report, "report DUMP -o F   a self-contained HTML report of a crash"},
    {"serve", ct_cmd_serve, "serve              the crash store in a local web server (--db FILE)"},
};

static void usage(FILE *out) {
  fputs("usage: crashtrail COMMAND [options]   (crashtrail COMMAND --help for its options)\n", out);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %s\n", commands[i].summary);
}

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "crashtrail: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}
