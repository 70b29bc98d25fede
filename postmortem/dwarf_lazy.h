/*
 * dwarf_lazy.h - a debug file whose compressed DWARF is inflated only as far as it is read.
 *
 * Distribution debug files (libc6-dbg and the like) compress every .debug_* section; libdwarf
 * inflates a section whole the first time it touches it, and indexing every unit touches all of
 * .debug_info: for libc that is 10 MB inflated and 2000 unit contexts built for the one or two
 * units a stack needs. This object serves the file's sections to libdwarf through its
 * object-access interface instead. .debug_info, .debug_abbrev and .debug_line are handed over as
 * full-size buffers that are filled from the front only as far as ct_dw_lazy_need says (a zlib
 * stream keeps its state between calls, so the bytes are inflated once); every other section is
 * inflated whole when libdwarf first loads it.
 *
 * Invariant: libdwarf reads .debug_info, .debug_abbrev and .debug_line only where the caller has
 * called ct_dw_lazy_need first (dwarf_module.c does so before every DIE offset it hands to
 * libdwarf, and before a unit's line table is read); bytes past a section's filled prefix are
 * zero, which libdwarf reads as ends of lists, never as pointers.
 */
#ifndef CRASHTRAIL_DWARF_LAZY_H
#define CRASHTRAIL_DWARF_LAZY_H

#include <stddef.h>
#include <stdint.h>

#include <libdwarf/libdwarf.h>

struct ct_dw_lazy;

enum ct_dw_lazy_sec { CT_LZ_INFO, CT_LZ_ABBREV, CT_LZ_LINE, CT_LZ_ARANGES, CT_LZ_NSEC };

/* Opens path (already checked by ct_dw_elf_scan) for lazy reading when its .debug_info is
 * zlib-compressed and it has a .debug_aranges to index it by. Returns 0 with *out, 1 when the
 * file does not qualify (*out NULL: open it the usual way), -1 on a malformed file or OOM. */
int ct_dw_lazy_open(const char *path, struct ct_dw_lazy **out);

/* Opens any linked file (already checked by ct_dw_elf_scan) to serve its sections to libdwarf
 * from the mapping, whole (compressed ones inflated on first load), instead of libdwarf's own
 * reader, which copies every section it loads into memory of its own. Returns 0 with *out, 1
 * when the file is for libdwarf's reader (an object file, whose debug sections need their
 * relocations; GNU .zdebug sections), -1 on a malformed file or OOM. */
int ct_dw_lazy_open_plain(const char *path, struct ct_dw_lazy **out);

/* Section `name` of lz whole (inflated if compressed), *len its size; NULL if absent or broken.
 * Lives as long as lz. */
const uint8_t *ct_dw_lazy_section(struct ct_dw_lazy *lz, const char *name, uint64_t *len);

/* A libdwarf handle reading through the object (ct_dw_lazy_close after dwarf_object_finish).
 * Until ct_dw_lazy_show_loclists, the file's .debug_loclists is left out: libdwarf loads (inflates
 * whole and parses) it with the first unit it reads, and only variables need it. Returns 0, or
 * -1 with libdwarf's error in *e. */
int ct_dw_lazy_dwarf(struct ct_dw_lazy *lz, Dwarf_Debug *dbg, Dwarf_Error *e);

/* Makes bytes [0, upto) of section s readable (clamped to its size). Returns its data (size in
 * *len, may be NULL) or NULL if the section is missing or its stream is corrupt. */
const uint8_t *ct_dw_lazy_need(struct ct_dw_lazy *lz, enum ct_dw_lazy_sec s, uint64_t upto,
                               uint64_t *len);

/* Makes the unit of .debug_info containing offset off readable, with the abbreviation tables of
 * every unit up to it and the line table at stmt_list when stmt_list is not UINT64_MAX. Sets
 * *unit_off / *die_off (either may be NULL) to the unit's header and first DIE. Returns 0, or -1
 * when off is past the section or the data is malformed. */
int ct_dw_lazy_unit(struct ct_dw_lazy *lz, uint64_t off, uint64_t *unit_off, uint64_t *die_off);
int ct_dw_lazy_line_table(struct ct_dw_lazy *lz, uint64_t stmt_list);

/* Shows .debug_loclists to handles made from now on. Returns 1 if the file has one, else 0. */
int ct_dw_lazy_show_loclists(struct ct_dw_lazy *lz);

void ct_dw_lazy_close(struct ct_dw_lazy *lz);

#endif
