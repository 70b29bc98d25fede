/*
 * lazy_lib.h - a shared library opened with dlopen the first time it is needed, its functions
 * called through a table of pointers.
 *
 * For libraries most commands never call whose loading costs more than the work of a small
 * command: capstone (its relocations, 6 ms of every start; code_flow.c needs it only for
 * binaries without DWARF call sites) and libmicrohttpd (GnuTLS and eight more libraries with
 * it; only `crashtrail serve`). The sonames are read from the libraries at configure time.
 */
#ifndef CT_LAZY_LIB_H
#define CT_LAZY_LIB_H

#include <stddef.h>

/* One function: its name and where its pointer goes in the caller's table. */
struct ct_lazy_sym {
  const char *name;
  size_t offset;
};

/* Opens soname (kept loaded until exit) and fills *table (table_size bytes) from syms; the table
 * is written only when every symbol was found. 0, or -1 with the reason in err. */
int ct_lazy_lib_load(const char *soname, const struct ct_lazy_sym *syms, size_t nsyms,
                     void *table, size_t table_size, char *err, size_t errlen);

#endif
