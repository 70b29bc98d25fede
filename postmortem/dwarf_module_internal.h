/*
 * dwarf_module_internal.h - shared internals of the dwarf_module
 * implementation (dwarf_module.c, dwarf_elf.c, dwarf_expr.c, dwarf_lines.c,
 * dwarf_callsites.c, dwarf_unwind.c).  Not part of the public API.
 *
 * Invariants of struct ct_dwarf:
 *  - `info` is the libdwarf handle whose .debug_info/.debug_line we index
 *    (the debug file's when it has .debug_info, else the binary's), or NULL.
 *  - cu_segs is sorted by lo, non-overlapping, and each entry names the
 *    most specific CU covering [lo, hi).
 *  - A CU's rows, scopes/segs and call_rets are each built at most once, when
 *    first needed (their state != 0 after the first attempt), and freed only
 *    by ct_dwarf_close.
 *  - Every string handed out lives in `pool` or in libdwarf section data,
 *    both of which live until ct_dwarf_close.
 */
#ifndef CRASHTRAIL_DWARF_MODULE_INTERNAL_H
#define CRASHTRAIL_DWARF_MODULE_INTERNAL_H

#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>

#include "dwarf_module.h"

/* Bounds that keep corrupt input from making us loop or recurse forever. */
#define CT_DW_MAX_DIE_DEPTH 128   /* nesting of DIEs we descend into */
#define CT_DW_MAX_REF_HOPS 8      /* abstract_origin/specification/type chains */
#define CT_DW_MAX_OPS 256         /* operations in one DWARF expression */
#define CT_DW_MAX_STEPS 4096      /* operations executed (branches loop) */
#define CT_DW_STACK 64            /* DWARF expression stack depth */
#define CT_DW_MAX_PIECES 8        /* DW_OP_piece parts composing one value */
#define CT_DW_REG_TABLE 128       /* CFI register columns we ask libdwarf for */

/* ---- small utilities (dwarf_module.c) ---- */

/* Arena of strings; freed as a whole. */
struct ct_dw_chunk;
struct ct_dw_pool {
    struct ct_dw_chunk *head;
};
/* Copies s[0..len) plus a NUL into the pool.  Returns the copy or NULL on
 * out-of-memory. */
const char *ct_dw_pool_strndup(struct ct_dw_pool *p, const char *s, size_t len);
void ct_dw_pool_free(struct ct_dw_pool *p);

/* Ensures *arr (of *cap elements of `size` bytes) can hold `need`
 * elements, growing geometrically.  Returns 0, or -1 on overflow / OOM
 * (the old array is kept). */
int ct_dw_grow(void **arr, size_t *cap, size_t need, size_t size);

/* Bounds-checked reader over bytes we parse ourselves: every read checks
 * the remaining length first and never moves p past end. */
struct ct_dw_cursor {
    const uint8_t *p, *end;
};

/* Reads an n-byte little-endian value.  Returns 0 or -1 past the end. */
static inline int ct_dw_rd_fixed(struct ct_dw_cursor *c, size_t n, uint64_t *v)
{
    if ((size_t)(c->end - c->p) < n)
        return -1;
    *v = 0;
    for (size_t i = 0; i < n; i++)
        *v |= (uint64_t)c->p[i] << (8 * i);
    c->p += n;
    return 0;
}

/* Reads a ULEB128 (sign-extended when is_signed).  Returns 0 or -1 if
 * truncated or longer than 10 bytes. */
static inline int ct_dw_rd_leb(struct ct_dw_cursor *c, int is_signed, uint64_t *v)
{
    unsigned shift = 0;
    uint8_t byte = 0x80;
    *v = 0;
    while (byte & 0x80) {
        if (c->p >= c->end || shift >= 70)
            return -1;
        byte = *c->p++;
        if (shift < 64)
            *v |= (uint64_t)(byte & 0x7f) << shift;
        shift += 7;
    }
    if (is_signed && shift < 64 && (byte & 0x40))
        *v |= ~0ull << shift;
    return 0;
}

/* ---- ELF structure (dwarf_elf.c) ---- */

struct ct_dw_range {
    uint64_t lo, hi; /* [lo, hi) link addresses */
};

struct ct_dw_sym {
    uint64_t lo, hi;
    const char *name;
};

struct ct_dw_elf_info {
    int has_debug_info;  /* a .debug_info with file contents */
    int has_eh_frame;    /* a .eh_frame with file contents (not NOBITS) */
    int has_debug_frame; /* a .debug_frame with file contents */
    int has_symtab;      /* a .symtab */
    struct ct_dw_range *exec; /* SHF_ALLOC|SHF_EXECINSTR sections */
    size_t nexec;
};

/* Validates `path` as a little-endian x86-64 ELF64 file whose section
 * header table, section name table and every section with file contents
 * lie inside the file, and summarizes its sections into *info (free with
 * ct_dw_elf_info_free).  Returns 0, or -1 with a one-line reason in err. */
int ct_dw_elf_scan(const char *path, struct ct_dw_elf_info *info, char *err,
                size_t errlen);
void ct_dw_elf_info_free(struct ct_dw_elf_info *info);

/* Appends the sized STT_FUNC/STT_GNU_IFUNC symbols of the SHT_SYMTAB
 * (sh_type) or SHT_DYNSYM table of `path` to *syms, names copied into
 * pool.  Returns the number appended (0 if there is no such table), or -1
 * on a malformed table or out-of-memory. */
/* The contents of the section called `name` of `path` (NULL if it has none, it is compressed,
 * or it cannot be read), malloc'ed, its size in *len. */
char *ct_dw_elf_read_section(const char *path, const char *name, size_t *len);

long ct_dw_elf_load_syms(const char *path, unsigned sh_type,
                      struct ct_dw_pool *pool, struct ct_dw_sym **syms,
                      size_t *nsyms, size_t *cap);

/* ---- per-CU indexes (dwarf_module.c) ---- */

/* A CU's rows are struct ct_line_row (dwarf_module.h), sorted by sequence. */

enum { CT_SCOPE_SUBPROGRAM = 1, CT_SCOPE_INLINED = 2 };

/* A CU's file names, as line rows name them: row file number f is names[f - base]. */
struct ct_dw_line_files {
    const char **names;
    size_t count;
    unsigned base;
};

/* Decodes the line-number program at offset off of a .debug_line section into rows (malloc'ed,
 * in program order, end-of-sequence rows included), as libdwarf's would be read (dwarf_lines.c).
 * Returns 0, or -1 for a program it does not decode (the caller falls back to libdwarf). */
int ct_dw_decode_lines(const uint8_t *sec, size_t len, uint64_t off,
                       const struct ct_dw_line_files *files, struct ct_line_row **rows,
                       size_t *nrows);

/* The sections a unit's DIEs are read from by dwarf_callsites.c (addr may be NULL). */
struct ct_dw_info_sections {
    const uint8_t *info, *abbrev, *addr;
    size_t info_len, abbrev_len, addr_len;
};
/* The return addresses of the call-site DIEs of the unit whose first DIE is at .debug_info
 * offset die_off, sorted, in *rets (malloc'ed; NULL when none).  Returns 0, or -1 for a unit it
 * does not read (the caller falls back to libdwarf). */
int ct_dw_scan_call_returns(const struct ct_dw_info_sections *s, uint64_t die_off,
                            uint64_t **rets, size_t *nrets);
struct ct_dw_scope {
    Dwarf_Off die;       /* global .debug_info offset */
    int32_t parent;      /* enclosing scope index in the same CU, or -1 */
    uint8_t kind;        /* CT_SCOPE_* */
    const char *name;    /* display name or NULL */
    const char *call_file;
    uint32_t call_line, call_column;
};

struct ct_dw_seg {
    uint64_t lo, hi;
    int32_t idx; /* scope index (per-CU segs) or CU index (module segs) */
};

/* A CU's indexes, each loaded when first needed: the line table, the scopes (functions and
 * inlined calls), the call sites' return addresses. */
enum ct_dw_cu_index { CT_DW_CU_LINES, CT_DW_CU_SCOPES, CT_DW_CU_CALLS, CT_DW_CU_NINDEX };
struct ct_dw_cu {
    Dwarf_Off die_off;
    uint64_t unit_off; /* indexed from .debug_aranges: its unit, die_off/base unset until resolved */
    int8_t resolved;   /* 0: from aranges, not yet resolved; 1: die_off and base set; -1: bad */
    uint64_t base;    /* DW_AT_low_pc of the CU DIE: DWARF 4 range list base */
    /* per index (enum ct_dw_cu_index): 0 not loaded, 1 loaded, -1 load failed (never
     * retried) */
    int8_t state[CT_DW_CU_NINDEX];
    struct ct_line_row *rows;
    size_t nrows;
    struct ct_dw_scope *scopes;
    size_t nscopes;
    struct ct_dw_seg *segs;
    size_t nsegs;
    uint64_t *call_rets; /* return addresses of the CU's call-site DIEs, sorted */
    size_t ncall_rets;
};

struct ct_dw_cfi {
    Dwarf_Debug dbg;
    Dwarf_Cie *cies;
    Dwarf_Signed ncies;
    Dwarf_Fde *fdes;
    Dwarf_Signed nfdes;
};

struct ct_dw_name;
struct ct_dw_lazy;

struct ct_dwarf {
    Dwarf_Debug bin_dbg;  /* libdwarf handle of the binary, or NULL */
    Dwarf_Debug dbg_dbg;  /* libdwarf handle of the debug file, or NULL */
    Dwarf_Debug info;     /* handle whose .debug_info is indexed, or NULL */
    struct ct_dw_lazy *lazy; /* the debug file read through dwarf_lazy.c (dbg_dbg), or NULL */
    Dwarf_Debug lazy_first;  /* its first handle, without location lists, once replaced */
    struct ct_dw_lazy *bin_map, *dbg_map; /* the files behind bin_dbg / dbg_dbg when libdwarf
                                             reads them through a mapping (open_dbg) */
    struct ct_dw_lazy *info_map; /* the mapping of info_path's file (one of those), or NULL */
    int lazy_locations;      /* ct_dwarf_expect_locals has run */
    struct ct_dw_cfi cfi[3];
    int ncfi;
    struct ct_dw_cu *cus;
    size_t ncus;
    struct ct_dw_seg *cu_segs; /* idx = CU index */
    size_t ncu_segs;
    struct ct_dw_range *exec;  /* executable sections: filter for ranges */
    size_t nexec;
    struct ct_dw_sym *syms;    /* sorted by lo */
    size_t nsyms;
    struct ct_dw_name *names;  /* DIE offset -> names cache (open addressing) */
    size_t names_cap, names_used;
    struct ct_dw_pool pool;
    const char *info_path; /* the file whose .debug_info is indexed (in pool) */
    const char *line_sec; /* its .debug_line, read on first use (NULL: libdwarf decodes); a
                             copy to free unless info_map */
    size_t line_len;
    int line_tried;
    const char *info_sec, *abbrev_sec, *addr_sec; /* its .debug_info, .debug_abbrev, .debug_addr,
                                                     read on first use of dwarf_callsites.c;
                                                     copies to free unless info_map */
    size_t info_len, abbrev_len, addr_len;
    int info_tried;
    char last_err[256];
};

/* The one place where a libdwarf error becomes text: records "what:
 * <dwarf_errmsg>" (or just `what` when *e is NULL) in d->last_err, frees
 * *e and clears it.  d may be NULL (the text is dropped).  Returns -1 so
 * callers can `return ct_dw_fail(...)`. */
int ct_dw_fail(struct ct_dwarf *d, Dwarf_Debug dbg, Dwarf_Error *e,
               const char *what);

/* dwarf_offdie_b on d->info, after making the unit holding off readable when the debug file
 * is read lazily (dwarf_lazy.h). */
int ct_dw_offdie(struct ct_dwarf *d, Dwarf_Off off, Dwarf_Die *die, Dwarf_Error *e);

/* Returns the CU containing link_pc with its line table and scopes loaded, or NULL. */
struct ct_dw_cu *ct_dw_cu_for_pc(struct ct_dwarf *d, uint64_t link_pc);

/* Returns the innermost scope index of cu containing link_pc, or -1. */
int32_t ct_dw_scope_for_pc(const struct ct_dw_cu *cu, uint64_t link_pc);

/* Reads a reference attribute (DW_AT_abstract_origin, DW_AT_type, ...) of
 * die as a global .debug_info offset.  Returns 0, 1 if absent, -1 on
 * error. */
int ct_dw_ref(struct ct_dwarf *d, Dwarf_Die die, Dwarf_Half at,
              Dwarf_Off *off);

/* Appends die's pc ranges (DW_AT_low_pc/high_pc or DW_AT_ranges) to *v,
 * dropping empty ones and ones outside executable sections.  Returns 1 if
 * the DIE has pc attributes, 0 if it has none, -1 on malformed data. */
int ct_dw_die_ranges(struct ct_dwarf *d, Dwarf_Die die, uint64_t cu_base,
                     struct ct_dw_range **v, size_t *n, size_t *cap);

/* Whether a lexical block DIE contains pc: 1 yes (or it has no ranges: it inherits its
 * parent's), 0 no, -1 on malformed data.  Variable searches use it to skip blocks. */
int ct_dw_block_contains(struct ct_dwarf *d, Dwarf_Die block, uint64_t cu_base, uint64_t pc);

/* Preorder walk over the descendants of root (root itself excluded).
 * visit() returns 1 to descend into the DIE's children, 0 to skip them,
 * -1 to abort the walk; *tok (preset to the parent's token) is the token
 * handed to the children.  DIE offsets must strictly increase (the walk
 * fails otherwise, so corrupt sibling links cannot loop) and nesting is
 * capped at CT_DW_MAX_DIE_DEPTH.  Returns 0, or -1 (abort or libdwarf
 * error, recorded in d->last_err). */
typedef int (*ct_dw_visit_fn)(void *arg, Dwarf_Die die, Dwarf_Half tag,
                              int depth, int64_t *tok);
int ct_dw_walk(struct ct_dwarf *d, Dwarf_Die root, ct_dw_visit_fn visit,
               void *arg, int64_t root_tok);

/* ---- DWARF expressions (dwarf_expr.c) ---- */

/* The value (up to 8 bytes) of the variable DIE at var, at link_pc, in the frame of the
 * out-of-line function fn_die of the CU cu_die.  Returns 0, 1 when DWARF has no value there
 * (optimised out), -1 on error. */
int ct_dw_var_value(struct ct_dwarf *d, Dwarf_Off var, Dwarf_Off fn_die, Dwarf_Off cu_die,
                    uint64_t link_pc, const struct ct_regs *regs, uint64_t cfa, uint64_t bias,
                    ct_mem_read_fn read, void *ctx, uint64_t *value);

struct ct_dw_op {
    uint8_t atom;
    uint64_t op1, op2, op3;
    uint64_t off; /* byte offset of the op in its expression (branches) */
};

enum { CT_DW_OK = 0, CT_DW_UNAVAIL = 1, CT_DW_ERR = -1 };

struct ct_dw_env;
typedef int (*ct_dw_base_fn)(const struct ct_dw_env *env, uint64_t *out);
typedef int (*ct_dw_addrx_fn)(const struct ct_dw_env *env, uint64_t index,
                              uint64_t *out);

/* Everything an expression may read.  Callbacks may be NULL (the
 * operations needing them then fail with CT_DW_ERR). */
struct ct_dw_env {
    const struct ct_regs *regs;
    uint64_t cfa;
    int have_cfa;
    uint64_t bias;
    ct_mem_read_fn read;
    void *ctx;
    ct_dw_base_fn frame_base;
    ct_dw_addrx_fn addrx;
    void *owner; /* for the callbacks */
    int *bridged; /* not NULL: bridge a location-list gap between two entries naming one
                   * register (see ct_dwarf_variable_bridged); set to 1 when it did */
    const struct ct_code_view *code; /* with bridged: the function's code, to bridge a gap
                                      * through the ways into the pc (code_flow.h) */
};

enum { CT_LOC_EMPTY, CT_LOC_MEM, CT_LOC_REG, CT_LOC_VALUE, CT_LOC_BYTES };

struct ct_dw_piece {
    uint8_t kind;         /* CT_LOC_* */
    uint64_t v;           /* address, register number or value */
    uint8_t bytes[8];     /* CT_LOC_BYTES: first bytes of the implicit value */
    uint64_t nbytes;
    uint64_t size;        /* piece size in bytes; 0 = whole object */
};

struct ct_dw_loc {
    int n;
    struct ct_dw_piece p[CT_DW_MAX_PIECES];
};

/* Runs ops with `init` pushed first (the CFA for CFI register rules).
 * end_off is the expression's byte length when known (0 if not): a branch
 * may target it to end the expression.
 * Returns CT_DW_OK with the location in *out, CT_DW_UNAVAIL if a register
 * or memory it needs is not in the dump, CT_DW_ERR for malformed or
 * unsupported expressions (including DW_OP_entry_value). */
int ct_dw_eval(const struct ct_dw_op *ops, size_t nops, uint64_t end_off,
               const struct ct_dw_env *env, const uint64_t *init, int ninit,
               struct ct_dw_loc *out);

/* Reads the first `size` (1..8) bytes of the object at loc as a
 * little-endian unsigned value.  Returns CT_DW_OK, CT_DW_UNAVAIL (missing
 * memory/register, optimized-out piece) or CT_DW_ERR. */
int ct_dw_loc_value(const struct ct_dw_loc *loc, const struct ct_dw_env *env,
                    size_t size, uint64_t *out);

/* Decodes libdwarf's view of one location description into ops.
 * Returns the number of ops, or -1 (too many ops or libdwarf error). */
int ct_dw_ops_from_locdesc(struct ct_dwarf *d, Dwarf_Debug dbg,
                           Dwarf_Locdesc_c desc, Dwarf_Unsigned nops,
                           struct ct_dw_op *ops);

/* Decodes raw expression bytes (CFI rules, ct_dwarf_eval_expr) with a
 * bounds-checked decoder and evaluates them.  Returns like ct_dw_eval
 * (CT_DW_ERR also for truncated operands and unsupported opcodes). */
int ct_dw_eval_bytes(const uint8_t *bytes, size_t len, const struct ct_dw_env *env,
                     const uint64_t *init, int ninit, struct ct_dw_loc *out);

#endif /* CRASHTRAIL_DWARF_MODULE_INTERNAL_H */
