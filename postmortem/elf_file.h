/*
 * elf_file.h - just enough ELF64 (little-endian) to find sections, the GNU build-id, the
 * .gnu_debuglink and symbols, with every offset checked against the file.
 */
#ifndef CT_ELF_FILE_H
#define CT_ELF_FILE_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

struct ct_elf;

/* Maps and checks an ELF64 file. Returns 0 and *out, or -1 with a reason in err. */
int ct_elf_open(const char *path, struct ct_elf **out, char *err, size_t errlen);
void ct_elf_close(struct ct_elf *e);
const char *ct_elf_path(const struct ct_elf *e);

/* The section header table (validated at open to lie inside the file): its length, the table
 * in *sh. */
size_t ct_elf_sections(const struct ct_elf *e, const Elf64_Shdr **sh);
/* Section i's name ("" if it has none or i is out of range). */
const char *ct_elf_section_name(const struct ct_elf *e, size_t i);
/* Section i's bytes in the file, as stored (compressed or not), or NULL if it has none, is
 * SHT_NOBITS or lies outside the file. */
const uint8_t *ct_elf_section_bytes(const struct ct_elf *e, size_t i);

/* The contents of a section with file data, or NULL if absent, empty or SHT_NOBITS. */
const void *ct_elf_section(const struct ct_elf *e, const char *name, size_t *len);

/* The file's bytes at link-time addresses [vaddr, vaddr + len) of one allocated section with
 * file data (code, say), or NULL if they are not all in one such section. */
const uint8_t *ct_elf_bytes_at(const struct ct_elf *e, uint64_t vaddr, size_t len);

/* The GNU build-id; returns its length (0 if none). */
size_t ct_elf_build_id(const struct ct_elf *e, const uint8_t **id);

/* 1 for a relocatable object (.o), whose addresses are not linked yet. */
int ct_elf_is_object(const struct ct_elf *e);

/* The file name in .gnu_debuglink, or NULL. */
const char *ct_elf_debuglink(const struct ct_elf *e);

/* The vaddr of the first PT_LOAD segment with offset 0 (what a load bias is measured from). */
uint64_t ct_elf_base_vaddr(const struct ct_elf *e);

/* Name of the function symbol (.symtab, else .dynsym) containing addr, its start and size (0
 * when the symbol has none; either pointer may be NULL); NULL if none. Sorted on first use,
 * then binary search. */
const char *ct_elf_symbol_at(struct ct_elf *e, uint64_t addr, uint64_t *start, uint64_t *size);

/* Whether a function symbol called `name` starts at `start` (another name of the function
 * there, as fflush is _IO_fflush in glibc). */
int ct_elf_symbol_alias(struct ct_elf *e, uint64_t start, const char *name);

/* Lowercase hex of a build-id into out (2*len+1 bytes). */
void ct_hex(const uint8_t *id, size_t len, char *out);

#endif
