/*
 * cli.h - the subcommands of `crashtrail`, one file each (cli_*.c), and what they share:
 * loading a dump into a timeline with the --binary / --debug-dir options.
 *
 * Each command returns the process exit status: 0 done, 1 bad input (with one line on stderr
 * saying why), 2 a wrong command line (with the usage).
 */
#ifndef CT_CLI_H
#define CT_CLI_H

#include <stddef.h>

#include "dump_reader.h"
#include "module_files.h"
#include "timeline.h"

struct ct_loaded {
  struct ct_dump *dump;
  struct ct_modset *mods;
  struct ct_timeline *timeline;
};

struct ct_find_opts {
  const char *binaries[64], *debug_dirs[64];
  size_t nbinaries, ndebug_dirs;
  int keep_blocks; /* for --format=blocks */
  size_t max_steps; /* steps kept per thread (the newest), 0 = all */
  int source_order; /* --line-order=source: a block's lines in the compiler's IR order */
};

/* What `ingest` and `report` keep of each thread by default: the newest million steps (the
 * viewer stays fluid with that many; a 64 MB ring can hold 60 million). */
#define CT_DEFAULT_KEPT_STEPS 1000000
/* --steps=N: a number of steps, 0 for all. 0, or -1 after a message. */
int ct_parse_steps(const char *arg, size_t *out);

/* Handles --binary PATH and --debug-dir DIR (both repeatable) for getopt_long loops: returns 1
 * if `opt` was one of them, -1 on an error (message printed), 0 otherwise. */
#define CT_FIND_OPTIONS {"binary", 1, 0, 1001}, {"debug-dir", 1, 0, 1002}, {"line-order", 1, 0, 1003}
int ct_find_option(struct ct_find_opts *o, int opt, const char *arg);

/* Loads a dump, resolves its modules and builds its timeline. 0, or 1 after printing why. */
int ct_load(const char *dump, const struct ct_find_opts *o, struct ct_loaded *out);
void ct_loaded_free(struct ct_loaded *l);

/* Loads the timeline to show: from a dump, or (db != NULL) crash `id` of a store. */
int ct_load_crash(const char *arg, const char *db, const struct ct_find_opts *o, struct ct_loaded *out);
/* --db, else $CRASHTRAIL_DB, else ./crashtrail.db */
const char *ct_default_db(const char *given);

int ct_cmd_show(int argc, char **argv);
int ct_cmd_ingest(int argc, char **argv);
int ct_cmd_export(int argc, char **argv);
int ct_cmd_list(int argc, char **argv);
int ct_cmd_meta(int argc, char **argv);
int ct_cmd_report(int argc, char **argv);
int ct_cmd_serve(int argc, char **argv); /* viewer/serve.c */

#endif
