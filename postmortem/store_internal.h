/*
 * store_internal.h - what the store's files share (never used outside store_*.c).
 */
#ifndef CT_STORE_INTERNAL_H
#define CT_STORE_INTERNAL_H

#include <sqlite3.h>

struct ct_store {
  sqlite3 *db;
  char *path;
};

/* Formats "PATH: what: sqlite's message" into err; returns -1. */
int ct_store_fail(struct ct_store *s, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
