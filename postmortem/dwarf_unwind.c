/*
 * dwarf_unwind.c - one call-frame-information unwinding step (x86-64).
 *
 * Algorithm: find the FDE covering the lookup pc (pc itself for the
 * faulting frame, pc-1 for a return address, which points after the
 * call) in the module's FDE tables (.eh_frame first, then .debug_frame;
 * libdwarf binary-searches its sorted FDE array), let libdwarf run the
 * CIE+FDE instructions up to that pc into a register rule table, compute
 * the CFA from its rule, then derive each caller register from its rule.
 *
 * Invariants: *regs and *cfa are written only after the CFA and the
 * return address were both recovered, so a failed step leaves the
 * caller's state untouched.  A register whose rule is "same value" keeps
 * its value unless the ABI says calls clobber it (then it becomes
 * unknown); rsp without an explicit rule becomes the CFA (x86-64 ABI).
 * A callee-saved register whose save slot is not in the dump becomes
 * unknown rather than failing the step: only the CFA and return address
 * are essential to keep walking.
 */
#include <stdlib.h>
#include <string.h>

#include "dwarf_module_internal.h"

#define RA_COLUMN 16
#define RSP 7

/* Registers a call may clobber (SysV x86-64): rax rdx rcx rsi rdi r8-r11. */
#define CALLER_SAVED ((1u << 0) | (1u << 1) | (1u << 2) | (1u << 4) | (1u << 5) | \
                      (1u << 8) | (1u << 9) | (1u << 10) | (1u << 11))

struct fde_info {
    Dwarf_Fde fde;
    Dwarf_Debug dbg;
    Dwarf_Half ra_reg;
    int signal_frame; /* CIE augmentation has 'S' */
};

/* Finds the FDE covering link_pc.  Returns 0 or -1 (no CFI there). */
static int find_fde(struct ct_dwarf *d, uint64_t link_pc, struct fde_info *out)
{
    for (int i = 0; i < d->ncfi; i++) {
        Dwarf_Error e = NULL;
        Dwarf_Addr lo = 0, hi = 0;
        Dwarf_Cie cie = NULL;
        Dwarf_Unsigned bytes, caf, ilen;
        Dwarf_Signed daf;
        Dwarf_Small version;
        Dwarf_Ptr instrs;
        Dwarf_Half offsize;
        char *aug = NULL;
        if (d->cfi[i].nfdes <= 0)
            continue;
        if (dwarf_get_fde_at_pc(d->cfi[i].fdes, link_pc, &out->fde, &lo, &hi, &e) != DW_DLV_OK) {
            ct_dw_fail(NULL, d->cfi[i].dbg, &e, "");
            continue;
        }
        if (dwarf_get_cie_of_fde(out->fde, &cie, &e) != DW_DLV_OK ||
            dwarf_get_cie_info_b(cie, &bytes, &version, &aug, &caf, &daf, &out->ra_reg, &instrs,
                                 &ilen, &offsize, &e) != DW_DLV_OK)
            return ct_dw_fail(d, d->cfi[i].dbg, &e, "reading the CIE of an FDE");
        out->dbg = d->cfi[i].dbg;
        out->signal_frame = aug && strchr(aug, 'S') != NULL;
        return 0;
    }
    return -1;
}

/* Evaluates a CFI expression block; init (the CFA) is pushed first when
 * given.  The result is the value left on the stack.  Returns 0 or -1. */
static int cfi_expr(const Dwarf_Regtable_Entry3 *r, const struct ct_dw_env *env,
                    const uint64_t *init, uint64_t *out)
{
    struct ct_dw_loc loc;
    if (!r->dw_block_ptr || r->dw_offset_or_block_len == 0 ||
        ct_dw_eval_bytes(r->dw_block_ptr, (size_t)r->dw_offset_or_block_len, env, init,
                         init ? 1 : 0, &loc) != CT_DW_OK)
        return -1;
    if (loc.n != 1 || (loc.p[0].kind != CT_LOC_MEM && loc.p[0].kind != CT_LOC_VALUE))
        return -1;
    *out = loc.p[0].v;
    return 0;
}

/* Computes the CFA from its rule.  Returns 0 or -1. */
static int compute_cfa(const Dwarf_Regtable3 *t, const struct ct_dw_env *env, uint64_t *cfa)
{
    const Dwarf_Regtable_Entry3 *r = &t->rt3_cfa_rule;
    const struct ct_regs *regs = env->regs;
    switch (r->dw_value_type) {
    case DW_EXPR_OFFSET:
    case DW_EXPR_VAL_OFFSET:
        if (r->dw_regnum >= CT_DW_NREGS || !(regs->valid & (1u << r->dw_regnum)))
            return -1;
        *cfa = regs->r[r->dw_regnum] + (uint64_t)(int64_t)r->dw_offset_or_block_len;
        return 0;
    case DW_EXPR_EXPRESSION:
    case DW_EXPR_VAL_EXPRESSION:
        /* DW_CFA_def_cfa_expression: the CFA is the expression's value. */
        return cfi_expr(r, env, NULL, cfa);
    default:
        return -1;
    }
}

/* Applies the rule for column col.  Returns 1 with *val when the caller's
 * value is known, 0 when unknown. */
static int apply_rule(const Dwarf_Regtable_Entry3 *r, unsigned col, uint64_t cfa,
                      const struct ct_dw_env *env, uint64_t *val)
{
    const struct ct_regs *in = env->regs;
    int64_t off = (int64_t)r->dw_offset_or_block_len;
    uint64_t addr;
    switch (r->dw_value_type) {
    case DW_EXPR_OFFSET:
        if (r->dw_regnum == DW_FRAME_UNDEFINED_VAL)
            return 0;
        if (r->dw_regnum == DW_FRAME_SAME_VAL) {
            if (col == RSP) {
                *val = cfa;
                return 1;
            }
            if ((CALLER_SAVED & (1u << col)) || !(in->valid & (1u << col)))
                return 0;
            *val = in->r[col];
            return 1;
        }
        if (r->dw_offset_relevant)
            return env->read(env->ctx, cfa + (uint64_t)off, val, 8) == 0;
        if (r->dw_regnum >= CT_DW_NREGS || !(in->valid & (1u << r->dw_regnum)))
            return 0;
        *val = in->r[r->dw_regnum];
        return 1;
    case DW_EXPR_VAL_OFFSET:
        *val = cfa + (uint64_t)off;
        return 1;
    case DW_EXPR_EXPRESSION:
        if (cfi_expr(r, env, &cfa, &addr) != 0)
            return 0;
        return env->read(env->ctx, addr, val, 8) == 0;
    case DW_EXPR_VAL_EXPRESSION:
        return cfi_expr(r, env, &cfa, val) == 0;
    default:
        return 0;
    }
}

int ct_dwarf_unwind_step(struct ct_dwarf *d, uint64_t bias, int is_first, struct ct_regs *regs,
                         uint64_t *cfa, ct_mem_read_fn read, void *ctx)
{
    Dwarf_Regtable_Entry3 rules[CT_DW_REG_TABLE];
    Dwarf_Regtable3 table;
    Dwarf_Error e = NULL;
    Dwarf_Addr row_pc = 0;
    struct fde_info f;
    struct ct_regs out;
    uint64_t pc, the_cfa = 0, ra = 0;
    if (!d || !regs || !cfa || !read || !(regs->valid & (1u << RA_COLUMN)))
        return -1;
    pc = regs->r[RA_COLUMN];
    if (!is_first)
        pc -= 1; /* stay inside the call instruction's FDE */
    if (find_fde(d, pc - bias, &f) != 0)
        return -1;
    memset(&table, 0, sizeof table);
    memset(rules, 0, sizeof rules);
    table.rt3_reg_table_size = CT_DW_REG_TABLE;
    table.rt3_rules = rules;
    if (dwarf_get_fde_info_for_all_regs3(f.fde, pc - bias, &table, &row_pc, &e) != DW_DLV_OK)
        return ct_dw_fail(d, f.dbg, &e, "evaluating call-frame instructions");
    struct ct_dw_env env = {
        .regs = regs, .have_cfa = 0, .bias = bias, .read = read, .ctx = ctx,
    };
    if (compute_cfa(&table, &env, &the_cfa) != 0)
        return -1;
    env.cfa = the_cfa;
    env.have_cfa = 1;
    if (f.ra_reg >= CT_DW_REG_TABLE ||
        !apply_rule(&rules[f.ra_reg], f.ra_reg, the_cfa, &env, &ra) || ra == 0)
        return -1; /* undefined return address: the outermost frame */
    memset(&out, 0, sizeof out);
    for (unsigned col = 0; col < RA_COLUMN; col++)
        if (apply_rule(&rules[col], col, the_cfa, &env, &out.r[col]))
            out.valid |= 1u << col;
    out.r[RA_COLUMN] = ra;
    out.valid |= 1u << RA_COLUMN;
    out.flags = f.signal_frame ? CT_REGS_SIGNAL_FRAME : 0;
    *regs = out;
    *cfa = the_cfa;
    return 0;
}
