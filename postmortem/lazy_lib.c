/*
 * lazy_lib.c - libraries opened on first use (see lazy_lib.h).
 */
#include "lazy_lib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int ct_lazy_lib_load(const char *soname, const struct ct_lazy_sym *syms, size_t nsyms,
                     void *table, size_t table_size, char *err, size_t errlen) {
  unsigned char filled[512];
  if (table_size > sizeof filled) return snprintf(err, errlen, "table too large"), -1;
  void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!lib) return snprintf(err, errlen, "cannot load %s: %s", soname, dlerror()), -1;
  memset(filled, 0, table_size);
  for (size_t i = 0; i < nsyms; i++) {
    void *f = dlsym(lib, syms[i].name);
    if (!f || syms[i].offset + sizeof f > table_size) {
      snprintf(err, errlen, "%s has no %s", soname, syms[i].name);
      dlclose(lib);
      return -1;
    }
    memcpy(filled + syms[i].offset, &f, sizeof f); /* POSIX: a dlsym result is a function's */
  }
  memcpy(table, filled, table_size);
  return 0;
}
