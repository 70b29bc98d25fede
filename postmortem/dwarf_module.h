/*
 * dwarf_module.h - DWARF services for one ELF module of a crashed process.
 *
 * The post-mortem tool opens one struct ct_dwarf per loaded module (the
 * binary as loaded plus, optionally, its separate debug file) and asks it
 * to symbolize addresses, unwind one frame at a time with call-frame
 * information, and read local variables of a frame.  Implemented on top
 * of libdwarf (link with -ldwarf -lelf -lz).  x86-64 Linux only.
 *
 * Addresses: "link" addresses are those in the ELF file; "runtime"
 * addresses are link + bias, where bias is the module's load bias.
 *
 * Thread safety: a struct ct_dwarf is not thread safe (indexes are built
 * lazily); distinct handles may be used from distinct threads.
 */
#ifndef CRASHTRAIL_DWARF_MODULE_H
#define CRASHTRAIL_DWARF_MODULE_H

#include <stdint.h>
#include <stddef.h>

#include "code_flow.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers in DWARF x86-64 numbering: 0 rax 1 rdx 2 rcx 3 rbx 4 rsi 5 rdi
 * 6 rbp 7 rsp, 8..15 r8..r15, 16 = return address / rip. */
#define CT_DW_NREGS 17

/* Set in ct_regs.flags by ct_dwarf_unwind_step when the frame it produced
 * was interrupted by a signal (it was unwound through a signal-trampoline
 * FDE): its r[16] is the interrupted pc, not a return address, so the
 * caller must pass is_first=1 for the next step and look its line up at
 * r[16] itself rather than r[16]-1. */
#define CT_REGS_SIGNAL_FRAME 1u

struct ct_regs {
    uint64_t r[CT_DW_NREGS];
    uint32_t valid; /* bit i set: r[i] is known */
    uint32_t flags; /* CT_REGS_*; output of ct_dwarf_unwind_step, ignored on input */
};

/* Reads `len` bytes of the crashed process's memory at runtime address
 * `addr`; returns 0 if all bytes are available, -1 otherwise.  Supplied by
 * the caller (it serves the dumped stack slice). */
typedef int (*ct_mem_read_fn)(void *ctx, uint64_t addr, void *out, size_t len);

/* One ELF module's DWARF, from the binary and/or its separate debug file. */
struct ct_dwarf;

/* Opens `elf_path` (the module as loaded) and, if debug_path is not NULL,
 * the separate debug file (from objcopy --only-keep-debug) which holds
 * .debug_* when the binary was stripped.  Either may lack DWARF: a stripped
 * libc.so.6 has only .eh_frame, which still serves unwinding.  CFI is read
 * from the binary's .eh_frame, falling back to .debug_frame of either file;
 * line/function/variable data from the debug file if it has .debug_info,
 * else from the binary.  Both files are checked structurally (ELF headers,
 * section table bounds) before libdwarf sees them.
 * Returns 0 and *out, or -1 with a one-line reason in err (err may be NULL
 * when errlen is 0).  Never crashes on a corrupt or truncated file. */
int ct_dwarf_open(const char *elf_path, const char *debug_path,
                  struct ct_dwarf **out, char *err, size_t errlen);

/* Releases everything ct_dwarf_open and later lookups allocated; every
 * string returned by the other functions dies with it.  NULL is a no-op. */
void ct_dwarf_close(struct ct_dwarf *d);

/* Source position of a link-time address (runtime pc minus the module's
 * load bias), innermost first: frames[0] is the innermost inlined function
 * (its own file/line/column at pc), each next entry is the function it was
 * inlined into with the line/column of that inlined call site, and the last
 * entry is the concrete (out-of-line) subprogram.  `function` is the
 * demangled name when the linkage name can be demangled (__cxa_demangle is
 * used if the final program links a C++ runtime), otherwise DW_AT_name
 * (directly or via DW_AT_abstract_origin / DW_AT_specification), or NULL.
 * Strings live as long as d.  Returns the number of frames filled (0 if the
 * address has neither line info nor an enclosing function; when only the
 * functions are known, frames[0] has file NULL and line 0). */
struct ct_srcloc {
    const char *function;
    const char *file;
    uint32_t line, column;
};
int ct_dwarf_lookup(struct ct_dwarf *d, uint64_t link_pc,
                    struct ct_srcloc *frames, int max_frames);

/* Says that variables will be read from this module: a debug file read lazily gets its location
 * lists (a second libdwarf handle, made once; no DIE of the first may be live). Called for the
 * crashing frame's module before any lookup, the first handle is replaced before it has read
 * anything; ct_dwarf_locals and ct_dwarf_variable call it themselves. */
void ct_dwarf_expect_locals(struct ct_dwarf *d);

/* The variables and parameters in scope at link_pc (innermost scope first, inlined callers
 * after their callee, up to the out-of-line function), with their values where DWARF can
 * tell: a scalar or pointer of at most 8 bytes is formatted; larger ones say their size.
 * Returns how many were filled (at most max), or -1 on error. */
struct ct_local {
    const char *function; /* the scope it belongs to: an inlined callee or the function */
    char name[48];
    char type[48];
    char value[64];   /* formatted, or "<optimised out>" */
    int known;        /* 1 when value holds the variable's value */
};
int ct_dwarf_locals(struct ct_dwarf *d, uint64_t link_pc, const struct ct_regs *regs,
                    uint64_t cfa, uint64_t bias, ct_mem_read_fn read, void *ctx,
                    struct ct_local *out, int max);

/* 1 when link_pc lies in the frame set-up of the function that starts at fn_start: before the
 * line table's first prologue_end row of that function (the row a debugger's breakpoint on
 * the function uses).  0 past it, or when the table says nothing either way. */
int ct_dwarf_in_prologue(struct ct_dwarf *d, uint64_t fn_start, uint64_t link_pc);

/* The source position of the nearest line-table row at or before link_pc, no lower than
 * fn_start and in the same sequence, whose line is not 0: where a thread whose pc has no line
 * (code a compiler or crashtrail made) was last in the source, in address order.  Fills
 * out->file, line and column (function NULL); returns 1, or 0 when there is no such row. */
int ct_dwarf_line_before(struct ct_dwarf *d, uint64_t fn_start, uint64_t link_pc,
                         struct ct_srcloc *out);

/* The discriminator of the line-table row that covers link_pc (0: none, or no row). */
uint32_t ct_dwarf_discriminator(struct ct_dwarf *d, uint64_t link_pc);

/* The address where the run of line-table rows that ends with link_pc's row, all with its
 * discriminator and in one sequence, begins (with block discriminators: where the code of
 * link_pc's block begins, as far as it is contiguous); 0 when no row covers link_pc. */
uint64_t ct_dwarf_run_start(struct ct_dwarf *d, uint64_t link_pc);

/* When the row that covers link_pc has line 0: the discriminator of the next row with a line,
 * in the same sequence and at most max_ahead bytes on, with its address in *at, and the
 * discriminator of the nearest row with a line before link_pc's in *before (0: none). 0
 * otherwise. */
uint32_t ct_dwarf_discriminator_ahead(struct ct_dwarf *d, uint64_t link_pc, uint64_t max_ahead,
                                      uint64_t *at, uint32_t *before);

/* One row of a line table. */
struct ct_line_row {
    uint64_t addr;        /* link address */
    const char *file;     /* lives as long as the ct_dwarf */
    uint32_t line;
    uint16_t column;      /* saturated */
    uint8_t end_seq;      /* DW_LNE_end_sequence: addr is the first byte past the sequence */
    uint8_t prologue_end; /* DW_LNS_set_prologue_end: the function's frame set-up is done */
    uint32_t discriminator;
};

/* The line-table rows of the function that starts at fn_start, in address order: from its
 * first row up to the end of its ELF symbol (or of its sequence, without one).  *out points
 * into d (its unit's decoded table, kept while d is open).  Returns the number of rows (0:
 * none known). */
long ct_dwarf_function_rows(struct ct_dwarf *d, uint64_t fn_start,
                            const struct ct_line_row **out);

/* The return addresses of the calls DWARF describes (call-site DIEs, emitted by optimising
 * compilers) in the function that starts at fn_start, sorted: *out points into d.  Returns how
 * many (0 when DWARF has none). */
long ct_dwarf_call_returns(struct ct_dwarf *d, uint64_t fn_start, const uint64_t **out);

/* Whether the unit of the function that starts at fn_start has call-site entries at all
 * (clang writes them only when it optimises). */
int ct_dwarf_unit_has_call_sites(struct ct_dwarf *d, uint64_t fn_start);

/* The end of the sized ELF function symbol that starts at fn_start, or UINT64_MAX. */
uint64_t ct_dwarf_function_end(struct ct_dwarf *d, uint64_t fn_start);

/* Function containing link_pc from DWARF (the innermost DW_TAG_subprogram
 * whose ranges contain it, i.e. the out-of-line function, not an inlined
 * one), or NULL.  The string lives as long as d. */
const char *ct_dwarf_function_name(struct ct_dwarf *d, uint64_t link_pc);

/* ELF symbol (.symtab of either file, else .dynsym) of type FUNC whose
 * [st_value, st_value+st_size) contains link_pc, or NULL.  Serves frames in
 * modules without DWARF (a stripped libc has .dynsym only).  *offset, if
 * not NULL, receives link_pc - st_value.  The string lives as long as d. */
const char *ct_dwarf_symbol_name(struct ct_dwarf *d, uint64_t link_pc,
                                 uint64_t *offset);

/* One unwinding step with call-frame information (.eh_frame, or
 * .debug_frame if that is what exists).  `bias` = runtime address - link
 * address of this module.  On entry regs describes the frame whose pc is
 * regs->r[16] (runtime address); on success regs describes the caller
 * (r[16] = return address, r[7] = CFA, callee-saved registers restored
 * from memory through `read`, caller-saved ones marked unknown), and *cfa
 * is the CFA of the frame that was unwound.  For frames other than the
 * innermost the caller passes is_first=0 and the FDE is looked up at pc-1
 * (the return address points after the call); for the innermost (faulting)
 * frame, or one whose flags has CT_REGS_SIGNAL_FRAME, pass is_first=1.
 * Returns 0 on success, -1 if there is no CFI for the pc, memory or a
 * needed register is missing, or the return address is undefined (the
 * outermost frame, e.g. _start).  regs is unchanged on failure.  A caller
 * walking a whole stack must bound the number of steps itself. */
int ct_dwarf_unwind_step(struct ct_dwarf *d, uint64_t bias, int is_first,
                         struct ct_regs *regs, uint64_t *cfa,
                         ct_mem_read_fn read, void *ctx);

/* Value of the local variable or parameter `name` (e.g. the artificial
 * "__crashtrail_path", a 64-bit unsigned) in the function containing
 * link_pc, evaluated at link_pc from its DW_AT_location (single expression
 * or location list: DWARF 4 .debug_loc and DWARF 5 .debug_loclists) or
 * DW_AT_const_value.  The innermost scope wins: inlined functions and
 * lexical blocks containing link_pc are searched before their parents.
 * regs are the frame's registers (runtime values), cfa its CFA (for
 * DW_OP_call_frame_cfa / frame base), bias as above; memory through read.
 * For a caller frame pass link_pc = return address - 1 - bias.  Values
 * wider than 8 bytes yield their first 8 bytes.
 * Returns 0 and *value; 1 if the variable exists but its value is not
 * available at this pc (optimized out, no location range covers pc, or it
 * lives in a register / memory the dump does not have); -1 if there is no
 * such variable, the expression needs DW_OP_entry_value or another
 * unsupported operation, or on error. */
int ct_dwarf_variable(struct ct_dwarf *d, uint64_t link_pc, const char *name,
                      const struct ct_regs *regs, uint64_t cfa, uint64_t bias,
                      ct_mem_read_fn read, void *ctx, uint64_t *value);
/* As ct_dwarf_variable, and where no location-list entry covers link_pc but the entries just
 * before and just after it (at most 64 bytes apart) both name the same register, the value is
 * read from that register: the optimizer updates such a value in place and the gap is the
 * span of an intermediate value it never materialised (two shifts of crashtrail's path
 * accumulator folded into one), so until the update that ends the gap the register holds the
 * earlier value. Failing that, with the function's code (may be NULL), the ways into link_pc
 * are followed back to covered instructions (code_flow.h): when all of them name one register
 * that nothing on the way writes, it is read. *bridged (if not NULL) says whether either
 * happened: the value is inferred, and may lack the last update before the pc. */
int ct_dwarf_variable_bridged(struct ct_dwarf *d, uint64_t link_pc, const char *name,
                              const struct ct_regs *regs, uint64_t cfa, uint64_t bias,
                              ct_mem_read_fn read, void *ctx, const struct ct_code_view *code,
                              uint64_t *value, int *bridged);

/* Evaluates the raw DWARF 5-encoded location expression expr[0..len) to a
 * 64-bit value, as ct_dwarf_variable does for one location (no frame base:
 * DW_OP_fbreg fails).  Exposed for tests and for tools that carry their
 * own expressions.  d must have been opened with DWARF or CFI.  Returns
 * 0/1/-1 with the same meaning as ct_dwarf_variable. */
int ct_dwarf_eval_expr(struct ct_dwarf *d, const uint8_t *expr, size_t len,
                       const struct ct_regs *regs, uint64_t cfa, uint64_t bias,
                       ct_mem_read_fn read, void *ctx, uint64_t *value);

/* The most recent internal error of d (a libdwarf message or a
 * corruption found while loading lazily), "" if none; for diagnostics:
 * lookups that fail still just return 0/NULL.  Lives as long as d. */
const char *ct_dwarf_last_error(const struct ct_dwarf *d);

#ifdef __cplusplus
}
#endif

#endif /* CRASHTRAIL_DWARF_MODULE_H */
