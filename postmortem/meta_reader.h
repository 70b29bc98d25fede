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
  const char *function;              /* the innermost function: inl's, or the block's own */
};

struct ct_msucc {
  uint32_t block, len;
  uint64_t code;
};

struct ct_mblock {
  uint32_t flags, budget, term, nsucc, nlines;
  uint64_t table_addr;  /* link-time address of its last/first entry (CT_BB_TABLE) */
  const char *callee;  /* CALL/INVOKE: direct callee's name, NULL for an indirect call */
  struct ct_msucc *succ;
  struct ct_mline *lines;
  uint32_t table_bits;  /* multi-way BRANCH: successor index by the next table_bits bits (the
                           longest code, zero-padded), UINT32_MAX where no code matches;
                           0: search succ[] (meta_walk.c) */
  uint32_t *code_table;
};

/* What walking a record and counting its steps needs of a block, packed so that two share a
 * cache line (meta_walk.c): the decoder touches one per block of the whole history. */
enum {
  CT_WB_END = 0,      /* CALL, INVOKE, RETURN, RESUME, STOP: a record ends here */
  CT_WB_JUMP = 1,     /* succ[0] */
  CT_WB_BIT = 2,      /* a BRANCH whose codes are the bits 0 and 1: succ[bit] */
  CT_WB_CODES = 3,    /* another BRANCH: ct_walk_read_code */
  CT_WB_KIND = 3,
  CT_WB_LOOP = 4,     /* a loop header (its first step counts a loop iteration) */
  CT_WB_LINE_SHIFT = 8 /* info >> this: the steps its lines make (equal neighbours are one) */
};

struct ct_wblock {
  uint32_t succ[2];
  uint32_t flush_used;   /* a record that has used this many path bits is flushed on entering
                            it (a check point); UINT32_MAX: never */
  uint32_t info;         /* CT_WB_* kind and flags | steps << CT_WB_LINE_SHIFT */
  const void *first_key; /* its first and last line as merge keys: equal keys are the same */
  const void *last_key;  /* (file, line, function); NULL without lines */
};

/* Not in the metadata: set by the reader on a function that carries an accumulator
 * (CT_FN_FLOW) or makes a carried call (CT_TERM_FLOW), whose walks may cross functions. */
#define CT_FN_FLOW_ANY (1u << 30)

struct ct_mfunc {
  uint64_t addr; /* link-time address */
  const char *name, *display, *file;
  uint32_t line, flags, site_bits, nsites, nblocks;
  uint32_t *site_block;
  uint32_t *site_kind;
  struct ct_wblock *wb;   /* per block, for the decoder; NULL until ct_meta_ready */
  uint32_t *site_elided;  /* per site: the block of the elided flush its walk reaches without
                             reading a bit; UINT32_MAX if a record is written first */
  int32_t *block_site;  /* per block: its site index, or -1 */
  struct ct_mblock *blocks;
  uint32_t unit;   /* which unit (translation unit or comdat) of the module described it */
  uint32_t module; /* set by the caller: which dump module this belongs to */
  int ready;       /* ct_meta_ready: 1 done, -1 failed (out of memory), 0 not yet */
  /* the decoder's: where a record of this function may start when it carries an accumulator
   * (callstack.c carried_starts), found once: NULL until then */
  const struct ct_mfunc **starts;
  uint32_t nstarts;
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
  /* ct_meta_ready's: the caller's refinement of a function's lines, and the walk's interned
   * line keys (shared by all functions: equal keys must be the same pointer) */
  int (*refine)(struct ct_meta *, struct ct_mfunc *, void *);
  void *refine_arg;
  struct ct_walk_keys *walk_keys;
};

/* Parses a .debug_crashtrail section. Returns 0 and *out, or -1 with a reason (a corrupt unit,
 * an unknown version). Functions the linker discarded (address 0 or ~0) are dropped unless
 * keep_unlinked (an object file, whose addresses are still relocations, has only zeros). */
int ct_meta_load(const void *sec, size_t len, int keep_unlinked, struct ct_meta **out, char *err,
                 size_t errlen);
/* The same, with refine(m, f, arg) to call on each function before its decoder tables are
 * built from its lines (ct_meta_ready: when the decoder first asks for the function); a
 * non-zero return counts as out of memory. arg must live as long as the metadata. */
int ct_meta_load_refined(const void *sec, size_t len, int keep_unlinked, struct ct_meta **out,
                         char *err, size_t errlen,
                         int (*refine)(struct ct_meta *, struct ct_mfunc *, void *), void *arg);
void ct_meta_free(struct ct_meta *m);

/* Makes f ready for the decoder, once: refines its lines (ct_meta_load_refined), then builds
 * its ct_wblock table, multi-way code tables and zero-bit walk ends (meta_walk.c). Only the
 * functions a history reaches pay for it (a 64 MB SQLite dump reaches a fifth of them).
 * Returns f, or NULL when out of memory. ct_meta_find and ct_meta_resolve return ready
 * functions; code that takes a function from m->funcs calls this first. */
const struct ct_mfunc *ct_meta_ready(const struct ct_meta *m, const struct ct_mfunc *f);
/* ct_meta_ready for every function. 0, or -1 when out of memory. */
int ct_meta_build_walk(struct ct_meta *m);
/* The walk's own part of ct_meta_ready (meta_walk.c), and its teardown. */
int ct_meta_walk_function(struct ct_meta *m, struct ct_mfunc *f);
void ct_meta_walk_free(struct ct_meta *m);

/* The function whose entry is at link address addr (ready), or NULL. O(1). */
const struct ct_mfunc *ct_meta_find(const struct ct_meta *m, uint64_t addr);

/* The function a direct call to `name` from unit `unit` reaches, as the linker binds it: the
 * unit's own definition, else one with external linkage; with unit == UINT32_MAX (a call from
 * another module) only external ones. NULL if m has none. */
const struct ct_mfunc *ct_meta_resolve(const struct ct_meta *m, const char *name, uint32_t unit);
/* The hash of a function name the metadata's name index uses (FNV-1a). */
uint64_t ct_meta_hash_name(const char *s);

#endif
