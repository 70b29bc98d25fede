/*
 * source_cache.h - source lines for display, read once per file. A file that cannot be read
 * (moved, another machine) yields NULL lines, never an error: the timeline stands without it.
 */
#ifndef CT_SOURCE_CACHE_H
#define CT_SOURCE_CACHE_H

#include <stddef.h>

struct ct_sources;
struct ct_sources *ct_sources_new(void);
void ct_sources_free(struct ct_sources *s);
/* Line `line` (1-based) of `path` without its newline, or NULL. Valid until freed. */
const char *ct_source_line(struct ct_sources *s, const char *path, unsigned line);
/* Number of lines of path (0 if unreadable). */
size_t ct_source_count(struct ct_sources *s, const char *path);

#endif
