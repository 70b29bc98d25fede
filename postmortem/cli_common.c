/*
 * cli_common.c - what the subcommands share: the --binary / --debug-dir options and loading a
 * dump into a timeline.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "store.h"

#include <stdlib.h>

int ct_find_option(struct ct_find_opts *o, int opt, const char *arg) {
  if (opt == 1001) {
    if (o->nbinaries == 64) return fprintf(stderr, "crashtrail: too many --binary\n"), -1;
    o->binaries[o->nbinaries++] = arg;
    return 1;
  }
  if (opt == 1002) {
    if (o->ndebug_dirs == 64) return fprintf(stderr, "crashtrail: too many --debug-dir\n"), -1;
    o->debug_dirs[o->ndebug_dirs++] = arg;
    return 1;
  }
  if (opt == 1003) {
    if (strcmp(arg, "machine") && strcmp(arg, "source"))
      return fprintf(stderr, "crashtrail: --line-order is machine or source\n"), -1;
    o->source_order = !strcmp(arg, "source");
    return 1;
  }
  return 0;
}

int ct_parse_steps(const char *arg, size_t *out) {
  char *end;
  unsigned long long n = strtoull(arg, &end, 10);
  if (*end || !*arg || *arg == '-') return fprintf(stderr, "crashtrail: --steps needs a number\n"), -1;
  *out = (size_t)n;
  return 0;
}

int ct_load(const char *dump, const struct ct_find_opts *o, struct ct_loaded *out) {
  char err[1024];
  struct ct_resolve_opts ro = {(const char **)o->binaries, o->nbinaries,
                               (const char **)o->debug_dirs, o->ndebug_dirs, 0, o->source_order};
  memset(out, 0, sizeof *out);
  if (ct_dump_load(dump, &out->dump, err, sizeof err) != 0 ||
      ct_modules_resolve(out->dump, &ro, &out->mods, err, sizeof err) != 0 ||
      ct_timeline_build(out->dump, out->mods, o->keep_blocks, o->max_steps, &out->timeline, err, sizeof err) != 0) {
    fprintf(stderr, "crashtrail: %s\n", err);
    ct_loaded_free(out);
    return 1;
  }
  return 0;
}

void ct_loaded_free(struct ct_loaded *l) {
  ct_timeline_free(l->timeline);
  ct_modules_free(l->mods);
  ct_dump_free(l->dump);
  memset(l, 0, sizeof *l);
}

int ct_load_crash(const char *arg, const char *db, const struct ct_find_opts *o, struct ct_loaded *out) {
  struct ct_store *store;
  char err[1024], *end;
  long long id;
  if (!db) return ct_load(arg, o, out);
  memset(out, 0, sizeof *out);
  id = strtoll(arg, &end, 10);
  if (*end || id <= 0) {
    fprintf(stderr, "crashtrail: with --db, give a crash number (see crashtrail list --crashes)\n");
    return 1;
  }
  if (ct_store_open(db, &store, err, sizeof err) != 0 ||
      ct_store_load(store, id, &out->timeline, err, sizeof err) != 0) {
    fprintf(stderr, "crashtrail: %s\n", err);
    if (store) ct_store_close(store);
    return 1;
  }
  ct_store_close(store);
  return 0;
}
