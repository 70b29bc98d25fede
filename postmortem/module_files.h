/*
 * module_files.h - the files behind each module of a dump: the binary that was loaded (found
 * by recorded path or --binary, verified by GNU build-id), its separate debug file (by
 * build-id under --debug-dir or /usr/lib/debug, or by .gnu_debuglink), its crashtrail
 * metadata and its DWARF. Uninstrumented modules (libc, ...) come from the dumped maps and are
 * used for the stack only.
 */
#ifndef CT_MODULE_FILES_H
#define CT_MODULE_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "dump_reader.h"

struct ct_elf;
struct ct_meta;
struct ct_dwarf;
struct ct_exports;
struct ct_mfunc;

struct ct_line_order;

struct ct_module {
  int dump_id;            /* module id in the dump, -1 for one known only from the maps */
  int instrumented;
  const char *name;       /* basename, for display */
  char *recorded_path;    /* the path in the dump */
  char *path, *debug_path;/* files in use (debug_path may be NULL) */
  uint64_t bias, start, end; /* runtime */
  struct ct_elf *elf, *debug_elf;
  struct ct_meta *meta;
  struct ct_dwarf *dwarf;
  int dwarf_tried;
  int source_order;      /* keep the metadata's line order (--line-order=source) */
  struct ct_line_order *line_order; /* machine order of lines, made per function on demand */
  char *problem;          /* why it cannot be symbolised, NULL if fine */
  int image_fd;           /* > 0: the in-memory file `path` names (the vDSO's image) */
  struct ct_exports *exports, *symbols; /* functions by .dynsym and .symtab names */
  int exports_tried;
  int main_exe;           /* the dump's main executable (CT_MOD_MAIN) */
};

struct ct_modset {
  struct ct_module *mods;
  size_t n;
};

struct ct_resolve_opts {
  const char **binaries;
  size_t nbinaries;
  const char **debug_dirs;
  size_t ndebug_dirs;
  int instrumented_only; /* skip the uninstrumented modules of the maps (fuzzing) */
  int source_order;      /* keep each block's lines in IR order (see line_order.h) */
};

/* Finds and checks the files of every module. An instrumented module whose binary is missing
 * or has another build-id, or whose metadata is unreadable, is an error (-1 and a message
 * naming the module and both build-ids): decoding with the wrong metadata would produce a
 * wrong timeline. Problems with uninstrumented modules are kept in ->problem. */
int ct_modules_resolve(const struct ct_dump *d, const struct ct_resolve_opts *o,
                       struct ct_modset **out, char *err, size_t errlen);
void ct_modules_free(struct ct_modset *s);

/* The module that contains runtime address addr, or NULL. */
struct ct_module *ct_modules_at(struct ct_modset *s, uint64_t addr);
struct ct_module *ct_modules_by_dump_id(struct ct_modset *s, uint32_t id);
/* Its DWARF, opened on first use; NULL if it has none. */
struct ct_dwarf *ct_module_dwarf(struct ct_module *m);

/* The instrumented function a direct call to `name` from unit `unit` of module s->mods[from]
 * enters, as the linkers bind it: by the metadata's names, the caller's unit, its module, then
 * the other instrumented modules' exported functions; else by the ELF symbols, which name a
 * function the compiler knew by another name (a symbol version or alias: xz's lzma_cputhreads
 * is lzma_cputhreads_52): the caller's module's .symtab (its .dynsym if it has none), then
 * the other modules' .dynsym. A call the dynamic linker binds (`preemptible`: the pass's
 * CT_BB_STAMPED, a callee that is declared or may be interposed) from a shared library goes to
 * the main executable's function first when the executable exports one by that name, as the
 * global scope has it: a C++ template instantiated in both (jsoncpp's library calling
 * std::deque's members, which the test program also instantiates) runs the executable's copy.
 * NULL for code without records (or name NULL); else *mod is the callee's module. */
const struct ct_mfunc *ct_modules_resolve_call(struct ct_modset *s, size_t from, const char *name,
                                               uint32_t unit, int preemptible, uint16_t *mod);

#endif
