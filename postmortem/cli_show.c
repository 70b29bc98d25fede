/*
 * cli_show.c - `crashtrail show DUMP`: the timeline as text (people) or JSON (tools).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "outputs.h"

static void show_usage(FILE *out) {
  fputs("usage: crashtrail show DUMP [options]\n"
        "       crashtrail show --db FILE CRASH [options]   (a crash stored by ingest)\n"
        "  --format=text|json   text for people (default), json for tools\n"
        "  --binary PATH        the executable or library a module was loaded from, if it is\n"
        "                       not at the recorded path (matched by GNU build-id; repeatable)\n"
        "  --debug-dir DIR      where separate debug files are (DIR/.build-id/xx/yyyy.debug or\n"
        "                       the .gnu_debuglink name; repeatable; /usr/lib/debug is searched)\n"
        "  --line-order=ORDER   machine (default): a block's lines in the order its machine\n"
        "                       code runs them (from the line table); source: in the\n"
        "                       compiler's order before code generation\n"
        "  --all                print every loop iteration instead of folding repeats\n"
        "  --steps=N            keep the last N steps per thread (text: default 400; json:\n"
        "                       default all; 0 = all); every record is decoded either way\n"
        "  --threads            print threads that recorded nothing too\n"
        "  --color=WHEN         auto (default), always or never\n"
        "  --db FILE            read crash number CRASH from this store instead of a dump\n",
        out);
}

int ct_cmd_show(int argc, char **argv) {
  static const struct option longopts[] = {
      {"format", 1, 0, 'f'}, {"all", 0, 0, 'a'}, {"steps", 1, 0, 's'}, {"threads", 0, 0, 't'},
      {"color", 1, 0, 'c'}, {"db", 1, 0, 'd'}, {"help", 0, 0, 'h'}, CT_FIND_OPTIONS, {0, 0, 0, 0}};
  struct ct_find_opts find = {0};
  struct ct_text_opts text = {0, 0, 0, 400};
  const char *format = "text", *db = NULL;
  int c, color = -1, rc, steps_given = 0;
  struct ct_loaded l;
  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    if ((rc = ct_find_option(&find, c, optarg)) != 0) {
      if (rc < 0) return 2;
      continue;
    }
    switch (c) {
    case 'f': format = optarg; break;
    case 'd': db = optarg; break;
    case 'a': text.unfold = 1; break;
    case 't': text.all_threads = 1; break;
    case 's':
      if (ct_parse_steps(optarg, &text.max_steps) != 0) return 2;
      steps_given = 1;
      break;
    case 'c':
      color = !strcmp(optarg, "always") ? 1 : !strcmp(optarg, "never") ? 0
            : !strcmp(optarg, "auto") ? -1 : -2;
      if (color == -2) return fprintf(stderr, "crashtrail: --color is auto, always or never\n"), 2;
      break;
    case 'h': show_usage(stdout); return 0;
    default:
      fprintf(stderr, "crashtrail: unknown or incomplete option '%s'\n", argv[optind - 1]);
      show_usage(stderr);
      return 2;
    }
  }
  if (strcmp(format, "text") && strcmp(format, "json") && strcmp(format, "blocks"))
    return fprintf(stderr, "crashtrail: unknown format '%s' (text or json)\n", format), 2;
  find.keep_blocks = !strcmp(format, "blocks");
  /* Text shows only the newest steps: the others are decoded and counted, not kept. Folding a
   * loop looks at most 3 * 64 steps ahead, inside the window. */
  if (!strcmp(format, "text") || steps_given) find.max_steps = text.max_steps;
  if (find.keep_blocks && db)
    return fprintf(stderr, "crashtrail: --format=blocks needs the dump, not the store\n"), 2;
  if (optind != argc - 1) {
    fprintf(stderr, "crashtrail: show needs exactly one dump file\n");
    show_usage(stderr);
    return 2;
  }
  text.color = color >= 0 ? color : isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
  if (ct_load_crash(argv[optind], db, &find, &l) != 0) return 1;
  if (!strcmp(format, "json")) ct_write_json(l.timeline, stdout);
  else if (!strcmp(format, "blocks")) ct_write_blocks(l.timeline, stdout);
  else ct_write_text(l.timeline, stdout, &text);
  rc = fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
  if (rc) fprintf(stderr, "crashtrail: cannot write the output\n");
  ct_loaded_free(&l);
  return rc;
}

int ct_cmd_meta(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: crashtrail meta FILE   (an object, executable or debug file)\n");
    return 2;
  }
  return ct_meta_print_file(argv[1], stdout);
}
