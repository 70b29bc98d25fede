/*
 * meta_reader.h - the decoding metadata of one module (the .debug_crashtrail section), parsed.
 *
 * One ct_meta per ELF module holds every unit of its section: functions (by link-time
 * address), their blocks, successor codes, sites and lines, and the inline frames lines refer
 * to. Strings are interned per module, so a file or function name has one pointer and
 * comparing names is comparing pointers.
 */
#ifndef CT_META_READER_H
#define CT_META_READER_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"

struct ct_inline_frame {
  const struct ct_inline_frame *parent; /* NULL: called from the function itself */
  const char *function;                 /* the inlined callee */
  const char *call_file;                /* where it was called (in the parent) */
  uint32_t call_line, call_col;
};

struct ct_mline {
  const char *file;
  uint32_t line, col;
  const struct ct_inline_frame *inl; /* NULL when not inlined */
};

struct ct_msucc {
  uint32_t block, len;
  uint64_t code;
};

struct ct_mblock {
  uint32_t flags, budget, term, nsucc, nlines;
  uint64_t table_addr;  /* link-time address of its last/first entry, 0 if none */
  const char *callee;  /* CALL/INVOKE: direct callee's name, NULL for an indirect call */
  struct ct_msucc *succ;
  struct ct_mline *lines;
};

struct ct_mfunc {
  uint64_t addr; /* link-time address */
  const char *name, *display, *file;
  uint32_t line, flags, site_bits, nsites, nblocks;
  uint32_t *site_block;
  uint32_t *site_kind;
  int32_t *block_site;  /* per block: its site index, or -1 */
  struct ct_mblock *blocks;
  uint32_t unit;   /* which unit (translation unit or comdat) of the module described it */
  uint32_t module; /* set by the caller: which dump module this belongs to */
};

struct ct_meta {
  struct ct_arena arena;
  struct ct_mfunc *funcs;
  size_t nfuncs;
  uint64_t *index_keys; /* open-addressing hash: address -> function */
  uint32_t *index_vals;
  size_t index_cap;
  uint32_t *name_head;  /* open-addressing hash of names: first function + 1, 0 empty */
  uint32_t *name_next;  /* per function: the next one with the same name + 1, 0 none */
  size_t name_cap;
  size_t nunits, ninline;
};

/* Parses a .debug_crashtrail section. Returns 0 and *out, or -1 with a reason (a corrupt unit,
 * an unknown version). Functions the linker discarded (address 0 or ~0) are dropped unless
 * keep_unlinked (an object file, whose addresses are still relocations, has only zeros). */
int ct_meta_load(const void *sec, size_t len, int keep_unlinked, struct ct_meta **out, char *err,
                 size_t errlen);
void ct_meta_free(struct ct_meta *m);

/* The function whose entry is at link address addr, or NULL. O(1). */
const struct ct_mfunc *ct_meta_find(const struct ct_meta *m, uint64_t addr);

/* The function a direct call to `name` from unit `unit` reaches, as the linker binds it: the
 * unit's own definition, else one with external linkage; with unit == UINT32_MAX (a call from
 * another module) only external ones. NULL if m has none. */
const struct ct_mfunc *ct_meta_resolve(const struct ct_meta *m, const char *name, uint32_t unit);

#endif
