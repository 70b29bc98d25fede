/*
 * main.c - the `crashtrail` command: post-mortem of crash dumps.
 *
 *   crashtrail show DUMP [--format=text|json] [--binary PATH]... [--debug-dir DIR]...
 *                        [--all] [--steps=N] [--threads] [--color=auto|always|never]
 *
 * Exit status: 0 done; 1 the input is bad (not a dump, truncated, wrong binary, ...), with one
 * line on stderr saying why; 2 the command line is wrong.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump_reader.h"
#include "module_files.h"
#include "outputs.h"
#include "timeline.h"

static void usage(FILE *out) {
  fputs("usage: crashtrail show DUMP [options]\n"
        "  --format=text|json   text for people (default), json for tools\n"
        "  --binary PATH        the executable or library a module was loaded from, if it is\n"
        "                       not at the recorded path (matched by GNU build-id; repeatable)\n"
        "  --debug-dir DIR      where separate debug files are (DIR/.build-id/xx/yyyy.debug or\n"
        "                       the .gnu_debuglink name; repeatable; /usr/lib/debug is searched)\n"
        "  --all                print every loop iteration instead of folding repeats\n"
        "  --steps=N            print the last N steps per thread (default 400, 0 = all)\n"
        "  --threads            print threads that recorded nothing too\n"
        "  --color=WHEN         auto (default), always or never\n",
        out);
}

struct show_opts {
  const char *format, *dump;
  const char *binaries[64], *debug_dirs[64];
  size_t nbinaries, ndebug_dirs;
  struct ct_text_opts text;
};

static int parse_show(int argc, char **argv, struct show_opts *o) {
  static const struct option longopts[] = {
      {"format", required_argument, 0, 'f'}, {"binary", required_argument, 0, 'b'},
      {"debug-dir", required_argument, 0, 'd'}, {"all", no_argument, 0, 'a'},
      {"steps", required_argument, 0, 's'}, {"threads", no_argument, 0, 't'},
      {"color", required_argument, 0, 'c'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  int c, color = -1;
  memset(o, 0, sizeof *o);
  o->format = "text";
  o->text.max_steps = 400;
  opterr = 0;
  optind = 1;
  while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
    char *end;
    switch (c) {
    case 'f': o->format = optarg; break;
    case 'b':
      if (o->nbinaries == 64) return fprintf(stderr, "crashtrail: too many --binary\n"), -1;
      o->binaries[o->nbinaries++] = optarg;
      break;
    case 'd':
      if (o->ndebug_dirs == 64) return fprintf(stderr, "crashtrail: too many --debug-dir\n"), -1;
      o->debug_dirs[o->ndebug_dirs++] = optarg;
      break;
    case 'a': o->text.unfold = 1; break;
    case 't': o->text.all_threads = 1; break;
    case 's':
      o->text.max_steps = strtoul(optarg, &end, 10);
      if (*end || !*optarg) return fprintf(stderr, "crashtrail: --steps needs a number\n"), -1;
      break;
    case 'c':
      color = !strcmp(optarg, "always") ? 1 : !strcmp(optarg, "never") ? 0 : !strcmp(optarg, "auto") ? -1 : -2;
      if (color == -2) return fprintf(stderr, "crashtrail: --color is auto, always or never\n"), -1;
      break;
    case 'h': usage(stdout); exit(0);
    default:
      fprintf(stderr, "crashtrail: unknown or incomplete option '%s'\n", argv[optind - 1]);
      return -1;
    }
  }
  if (strcmp(o->format, "text") && strcmp(o->format, "json"))
    return fprintf(stderr, "crashtrail: unknown format '%s' (text or json)\n", o->format), -1;
  if (optind != argc - 1)
    return fprintf(stderr, "crashtrail: show needs exactly one dump file\n"), -1;
  o->dump = argv[optind];
  o->text.color = color >= 0 ? color : isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
  return 0;
}

static int cmd_show(int argc, char **argv) {
  struct show_opts o;
  struct ct_dump *d = NULL;
  struct ct_modset *mods = NULL;
  struct ct_timeline *t = NULL;
  char err[1024];
  int rc = 1;
  if (parse_show(argc, argv, &o) != 0) {
    usage(stderr);
    return 2;
  }
  struct ct_resolve_opts ro = {o.binaries, o.nbinaries, o.debug_dirs, o.ndebug_dirs};
  if (ct_dump_load(o.dump, &d, err, sizeof err) != 0 ||
      ct_modules_resolve(d, &ro, &mods, err, sizeof err) != 0 ||
      ct_timeline_build(d, mods, &t, err, sizeof err) != 0) {
    fprintf(stderr, "crashtrail: %s\n", err);
    goto out;
  }
  if (!strcmp(o.format, "json")) ct_write_json(t, stdout);
  else ct_write_text(t, stdout, &o.text);
  rc = fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
  if (rc) fprintf(stderr, "crashtrail: cannot write the output\n");
out:
  ct_timeline_free(t);
  ct_modules_free(mods);
  ct_dump_free(d);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "show")) return cmd_show(argc - 1, argv + 1);
  if (!strcmp(argv[1], "meta")) {
    if (argc != 3) {
      fprintf(stderr, "usage: crashtrail meta FILE   (an object, executable or debug file)\n");
      return 2;
    }
    return ct_meta_print_file(argv[2], stdout);
  }
  fprintf(stderr, "crashtrail: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}
