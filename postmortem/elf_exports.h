/*
 * elf_exports.h - an ELF file's functions by their symbols' names (.dynsym: what another
 * module's call binds to; .symtab: what a call inside the module bound to), also where a name
 * is one the compiler never saw for the function (a symbol version, an alias).
 */
#ifndef CT_ELF_EXPORTS_H
#define CT_ELF_EXPORTS_H

#include <stddef.h>
#include <stdint.h>

struct ct_elf;
struct ct_exports;

/* Reads e's exported functions (dynamic: .dynsym) or all its functions (.symtab). 0 and *out
 * (empty if e has no such table), or -1 and NULL when out of memory. e must outlive *out. */
int ct_exports_load(const struct ct_elf *e, int dynamic, struct ct_exports **out);
/* The link address of the function `name` (its default version if it has several; a global
 * before a local), or 0. O(log n). */
uint64_t ct_exports_find(const struct ct_exports *x, const char *name);
/* How many functions x names (0 for NULL). */
size_t ct_exports_count(const struct ct_exports *x);
void ct_exports_free(struct ct_exports *x);

#endif
