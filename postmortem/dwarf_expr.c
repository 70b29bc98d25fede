/*
 * dwarf_expr.c - DWARF expression evaluation and local variable values.
 *
 * Expressions are decoded into a bounded array of struct ct_dw_op, by
 * libdwarf for location lists (it knows their section context) and by
 * our own bounds-checked decoder for raw bytes (CFI rules, callers'
 * expressions; libdwarf refuses bytes outside its sections), then run on
 * a small stack machine.  The result is a
 * location (memory address, register, computed value or implicit bytes)
 * or a list of up to CT_DW_MAX_PIECES pieces; ct_dw_loc_value turns that
 * into an integer by reading registers and memory through the caller's
 * callbacks.
 *
 * Invariants: the stack never exceeds CT_DW_STACK entries; at most
 * CT_DW_MAX_STEPS operations execute (branches cannot loop forever);
 * branch targets must be the offset of a decoded op; implicit bytes are
 * copied out of libdwarf memory during evaluation, so a location outlives
 * the libdwarf objects it came from.
 *
 * ct_dwarf_variable: the scope chain at pc (innermost inlined instance
 * first, then its callers, up to the out-of-line subprogram) is searched
 * for a variable/parameter DIE with that name; lexical blocks count only
 * when they contain pc.  The frame base is the DW_AT_frame_base of that
 * out-of-line subprogram.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_module_internal.h"

struct machine {
    uint64_t st[CT_DW_STACK];
    int sp;
};

static int push(struct machine *m, uint64_t v)
{
    if (m->sp >= CT_DW_STACK)
        return CT_DW_ERR;
    m->st[m->sp++] = v;
    return CT_DW_OK;
}

static int pop(struct machine *m, uint64_t *v)
{
    if (m->sp <= 0)
        return CT_DW_ERR;
    *v = m->st[--m->sp];
    return CT_DW_OK;
}

/* Value of DWARF register r in env.  Returns CT_DW_OK or CT_DW_UNAVAIL. */
static int reg_value(const struct ct_dw_env *env, uint64_t r, uint64_t *v)
{
    if (!env->regs || r >= CT_DW_NREGS || !(env->regs->valid & (1u << r)))
        return CT_DW_UNAVAIL;
    *v = env->regs->r[r];
    return CT_DW_OK;
}

/* Reads size (1..8) bytes little-endian.  CT_DW_OK or CT_DW_UNAVAIL. */
static int mem_value(const struct ct_dw_env *env, uint64_t addr, size_t size, uint64_t *v)
{
    uint8_t buf[8] = {0};
    if (size == 0 || size > 8)
        return CT_DW_ERR;
    if (!env->read || env->read(env->ctx, addr, buf, size) != 0)
        return CT_DW_UNAVAIL;
    *v = 0;
    for (size_t i = 0; i < size; i++)
        *v |= (uint64_t)buf[i] << (8 * i);
    return CT_DW_OK;
}

/* Binary arithmetic/logic.  Returns CT_DW_OK, or CT_DW_ERR for division
 * by zero or an unknown atom. */
static int binop(uint8_t atom, uint64_t a, uint64_t b, uint64_t *r)
{
    int64_t sa = (int64_t)a, sb = (int64_t)b;
    switch (atom) {
    case DW_OP_plus: *r = a + b; return CT_DW_OK;
    case DW_OP_minus: *r = a - b; return CT_DW_OK;
    case DW_OP_mul: *r = a * b; return CT_DW_OK;
    case DW_OP_and: *r = a & b; return CT_DW_OK;
    case DW_OP_or: *r = a | b; return CT_DW_OK;
    case DW_OP_xor: *r = a ^ b; return CT_DW_OK;
    case DW_OP_shl: *r = b >= 64 ? 0 : a << b; return CT_DW_OK;
    case DW_OP_shr: *r = b >= 64 ? 0 : a >> b; return CT_DW_OK;
    case DW_OP_shra: *r = (uint64_t)(b >= 64 ? (sa < 0 ? -1 : 0) : sa >> b); return CT_DW_OK;
    case DW_OP_eq: *r = a == b; return CT_DW_OK;
    case DW_OP_ne: *r = a != b; return CT_DW_OK;
    case DW_OP_lt: *r = sa < sb; return CT_DW_OK;
    case DW_OP_gt: *r = sa > sb; return CT_DW_OK;
    case DW_OP_le: *r = sa <= sb; return CT_DW_OK;
    case DW_OP_ge: *r = sa >= sb; return CT_DW_OK;
    case DW_OP_div:
        if (b == 0 || (sa == INT64_MIN && sb == -1))
            return CT_DW_ERR;
        *r = (uint64_t)(sa / sb);
        return CT_DW_OK;
    case DW_OP_mod:
        if (b == 0)
            return CT_DW_ERR;
        *r = a % b;
        return CT_DW_OK;
    default: return CT_DW_ERR;
    }
}

static int is_binop(uint8_t a)
{
    switch (a) {
    case DW_OP_plus: case DW_OP_minus: case DW_OP_mul: case DW_OP_and: case DW_OP_or:
    case DW_OP_xor: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra: case DW_OP_eq:
    case DW_OP_ne: case DW_OP_lt: case DW_OP_gt: case DW_OP_le: case DW_OP_ge:
    case DW_OP_div: case DW_OP_mod:
        return 1;
    default:
        return 0;
    }
}

/* Stack manipulation ops.  Returns CT_DW_OK or CT_DW_ERR. */
static int stackop(struct machine *m, const struct ct_dw_op *op)
{
    uint64_t a, b, c;
    switch (op->atom) {
    case DW_OP_dup:
        return m->sp < 1 ? CT_DW_ERR : push(m, m->st[m->sp - 1]);
    case DW_OP_drop:
        return pop(m, &a);
    case DW_OP_over:
        return m->sp < 2 ? CT_DW_ERR : push(m, m->st[m->sp - 2]);
    case DW_OP_pick:
        return op->op1 >= (uint64_t)m->sp ? CT_DW_ERR : push(m, m->st[m->sp - 1 - (int)op->op1]);
    case DW_OP_swap:
        if (pop(m, &a) || pop(m, &b))
            return CT_DW_ERR;
        return push(m, a) || push(m, b) ? CT_DW_ERR : CT_DW_OK;
    case DW_OP_rot:
        if (pop(m, &a) || pop(m, &b) || pop(m, &c))
            return CT_DW_ERR;
        return push(m, a) || push(m, c) || push(m, b) ? CT_DW_ERR : CT_DW_OK;
    default:
        return CT_DW_ERR;
    }
}

/* Unary ops and constants with an operand.  Returns CT_DW_OK, CT_DW_ERR,
 * or 2 when the atom is not one of them. */
static int unary_or_const(struct machine *m, const struct ct_dw_op *op)
{
    uint64_t a;
    switch (op->atom) {
    case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u:
    case DW_OP_constu: case DW_OP_consts: case DW_OP_const8s:
        return push(m, op->op1);
    /* Sign-extend ourselves: libdwarf versions differ in whether they do. */
    case DW_OP_const1s: return push(m, (uint64_t)(int64_t)(int8_t)op->op1);
    case DW_OP_const2s: return push(m, (uint64_t)(int64_t)(int16_t)op->op1);
    case DW_OP_const4s: return push(m, (uint64_t)(int64_t)(int32_t)op->op1);
    case DW_OP_plus_uconst:
        return pop(m, &a) ? CT_DW_ERR : push(m, a + op->op1);
    case DW_OP_neg:
        return pop(m, &a) ? CT_DW_ERR : push(m, (uint64_t)(-(int64_t)a));
    case DW_OP_not:
        return pop(m, &a) ? CT_DW_ERR : push(m, ~a);
    case DW_OP_abs:
        return pop(m, &a) ? CT_DW_ERR : push(m, (int64_t)a < 0 ? (uint64_t)(-(int64_t)a) : a);
    case DW_OP_nop:
        return CT_DW_OK;
    default:
        return 2;
    }
}

/* Ops that read the frame: registers, memory, CFA, frame base, addresses.
 * Returns CT_DW_OK / CT_DW_UNAVAIL / CT_DW_ERR, or 2 when not one of them. */
static int frame_op(struct machine *m, const struct ct_dw_op *op, const struct ct_dw_env *env)
{
    uint64_t a = 0, v = 0;
    int rc;
    uint8_t at = op->atom;
    if (at >= DW_OP_breg0 && at <= DW_OP_breg31) {
        rc = reg_value(env, at - DW_OP_breg0, &v);
        return rc ? rc : push(m, v + op->op1);
    }
    switch (at) {
    case DW_OP_bregx:
        rc = reg_value(env, op->op1, &v);
        return rc ? rc : push(m, v + op->op2);
    case DW_OP_fbreg:
        if (!env->frame_base)
            return CT_DW_ERR;
        rc = env->frame_base(env, &v);
        return rc ? rc : push(m, v + op->op1);
    case DW_OP_call_frame_cfa:
        return env->have_cfa ? push(m, env->cfa) : CT_DW_UNAVAIL;
    case DW_OP_addr:
        return push(m, op->op1 + env->bias);
    case DW_OP_addrx: case DW_OP_GNU_addr_index: case DW_OP_constx: case DW_OP_GNU_const_index:
        if (!env->addrx || env->addrx(env, op->op1, &v) != 0)
            return CT_DW_ERR;
        return push(m, at == DW_OP_addrx || at == DW_OP_GNU_addr_index ? v + env->bias : v);
    case DW_OP_deref:
        if (pop(m, &a))
            return CT_DW_ERR;
        rc = mem_value(env, a, 8, &v);
        return rc ? rc : push(m, v);
    case DW_OP_deref_size:
        if (pop(m, &a) || op->op1 == 0 || op->op1 > 8)
            return CT_DW_ERR;
        rc = mem_value(env, a, (size_t)op->op1, &v);
        return rc ? rc : push(m, v);
    default:
        return 2;
    }
}

/* Index of the op starting at byte offset off; nops when off is the end
 * of the expression (end_off, 0 if unknown); -1 otherwise. */
static long op_at(const struct ct_dw_op *ops, size_t nops, uint64_t end_off, uint64_t off)
{
    for (size_t i = 0; i < nops; i++)
        if (ops[i].off == off)
            return (long)i;
    return end_off != 0 && off == end_off ? (long)nops : -1;
}

/* Closes the current piece.  Returns CT_DW_OK or CT_DW_ERR. */
static int end_piece(struct machine *m, struct ct_dw_piece *cur, int *have_cur,
                     uint64_t size, struct ct_dw_loc *out)
{
    if (out->n >= CT_DW_MAX_PIECES)
        return CT_DW_ERR;
    if (!*have_cur) {
        uint64_t a;
        memset(cur, 0, sizeof *cur);
        cur->kind = m->sp > 0 && pop(m, &a) == CT_DW_OK ? CT_LOC_MEM : CT_LOC_EMPTY;
        cur->v = cur->kind == CT_LOC_MEM ? a : 0;
    }
    cur->size = size;
    out->p[out->n++] = *cur;
    memset(cur, 0, sizeof *cur);
    *have_cur = 0;
    return CT_DW_OK;
}

/* Ops that end a location: registers, computed values, implicit bytes.
 * Returns CT_DW_OK / CT_DW_ERR, or 2 when not one of them. */
static int location_op(struct machine *m, const struct ct_dw_op *op, struct ct_dw_piece *cur,
                       int *have_cur)
{
    uint8_t at = op->atom;
    struct ct_dw_piece p;
    memset(&p, 0, sizeof p);
    if (at >= DW_OP_reg0 && at <= DW_OP_reg31) {
        p.kind = CT_LOC_REG;
        p.v = at - DW_OP_reg0;
    } else if (at == DW_OP_regx) {
        p.kind = CT_LOC_REG;
        p.v = op->op1;
    } else if (at == DW_OP_stack_value) {
        if (pop(m, &p.v))
            return CT_DW_ERR;
        p.kind = CT_LOC_VALUE;
    } else if (at == DW_OP_implicit_value) {
        const uint8_t *src = (const uint8_t *)(uintptr_t)op->op2;
        if (!src && op->op1 > 0)
            return CT_DW_ERR;
        p.kind = CT_LOC_BYTES;
        p.nbytes = op->op1 < 8 ? op->op1 : 8;
        if (p.nbytes)
            memcpy(p.bytes, src, (size_t)p.nbytes);
    } else {
        return 2;
    }
    *cur = p;
    *have_cur = 1;
    return CT_DW_OK;
}

/* Executes one op; *next is preset to the following op index and may be
 * changed by branches.  Returns CT_DW_OK / CT_DW_UNAVAIL / CT_DW_ERR. */
static int step(struct machine *m, const struct ct_dw_op *ops, size_t nops, uint64_t end_off,
                size_t i, size_t *next, const struct ct_dw_env *env, struct ct_dw_piece *cur,
                int *have_cur, struct ct_dw_loc *out)
{
    const struct ct_dw_op *op = &ops[i];
    uint64_t a, b, r;
    int rc;
    if (op->atom >= DW_OP_lit0 && op->atom <= DW_OP_lit31)
        return push(m, op->atom - DW_OP_lit0);
    if (is_binop(op->atom)) {
        if (pop(m, &b) || pop(m, &a) || binop(op->atom, a, b, &r))
            return CT_DW_ERR;
        return push(m, r);
    }
    if ((rc = unary_or_const(m, op)) != 2 || (rc = frame_op(m, op, env)) != 2 ||
        (rc = location_op(m, op, cur, have_cur)) != 2)
        return rc;
    switch (op->atom) {
    case DW_OP_dup: case DW_OP_drop: case DW_OP_over: case DW_OP_pick: case DW_OP_swap:
    case DW_OP_rot:
        return stackop(m, op);
    case DW_OP_piece:
        return end_piece(m, cur, have_cur, op->op1, out);
    case DW_OP_skip: case DW_OP_bra: {
        long t;
        if (op->atom == DW_OP_bra) {
            if (pop(m, &a))
                return CT_DW_ERR;
            if (a == 0)
                return CT_DW_OK;
        }
        /* Target is relative to the end of this 3-byte op. */
        t = op_at(ops, nops, end_off, op->off + 3 + (uint64_t)(int64_t)(int16_t)op->op1);
        if (t < 0)
            return CT_DW_ERR;
        *next = (size_t)t;
        return CT_DW_OK;
    }
    default:
        /* DW_OP_entry_value and friends need the caller's state at entry,
         * which a crash dump does not have. */
        return CT_DW_ERR;
    }
}

int ct_dw_eval(const struct ct_dw_op *ops, size_t nops, uint64_t end_off,
               const struct ct_dw_env *env, const uint64_t *init, int ninit,
               struct ct_dw_loc *out)
{
    struct machine m = {.sp = 0};
    struct ct_dw_piece cur;
    int have_cur = 0, rc = CT_DW_OK;
    size_t i = 0, steps = 0;
    memset(out, 0, sizeof *out);
    memset(&cur, 0, sizeof cur);
    for (int k = 0; k < ninit; k++)
        if (push(&m, init[k]))
            return CT_DW_ERR;
    while (i < nops && rc == CT_DW_OK) {
        size_t next = i + 1;
        if (++steps > CT_DW_MAX_STEPS)
            return CT_DW_ERR;
        rc = step(&m, ops, nops, end_off, i, &next, env, &cur, &have_cur, out);
        i = next;
    }
    if (rc != CT_DW_OK)
        return rc;
    /* No pieces: the whole object is the final location (an empty stack
     * yields CT_LOC_EMPTY, i.e. optimized out). */
    if (have_cur || out->n == 0)
        return end_piece(&m, &cur, &have_cur, 0, out);
    return CT_DW_OK;
}

/* Fills buf[0..take) from one piece.  CT_DW_OK / CT_DW_UNAVAIL. */
static int piece_bytes(const struct ct_dw_piece *p, const struct ct_dw_env *env, size_t take,
                       uint8_t *buf)
{
    uint64_t v = 0;
    int rc = CT_DW_OK;
    switch (p->kind) {
    case CT_LOC_MEM:
        if (!env->read || env->read(env->ctx, p->v, buf, take) != 0)
            return CT_DW_UNAVAIL;
        return CT_DW_OK;
    case CT_LOC_REG:
        rc = reg_value(env, p->v, &v);
        break;
    case CT_LOC_VALUE:
        v = p->v;
        break;
    case CT_LOC_BYTES:
        memset(buf, 0, take);
        memcpy(buf, p->bytes, (size_t)(p->nbytes < take ? p->nbytes : take));
        return CT_DW_OK;
    default:
        return CT_DW_UNAVAIL;
    }
    for (size_t i = 0; i < take; i++)
        buf[i] = (uint8_t)(v >> (8 * i));
    return rc;
}

int ct_dw_loc_value(const struct ct_dw_loc *loc, const struct ct_dw_env *env, size_t size,
                    uint64_t *out)
{
    uint8_t buf[8] = {0};
    size_t filled = 0;
    if (size == 0 || size > 8 || loc->n <= 0)
        return CT_DW_ERR;
    for (int i = 0; i < loc->n && filled < size; i++) {
        const struct ct_dw_piece *p = &loc->p[i];
        size_t take = size - filled;
        if (p->size != 0 && p->size < take)
            take = (size_t)p->size;
        int rc = piece_bytes(p, env, take, buf + filled);
        if (rc != CT_DW_OK)
            return rc;
        filled += take;
    }
    if (filled < size)
        return CT_DW_UNAVAIL; /* pieces describe only part of the object */
    *out = 0;
    for (size_t i = 0; i < size; i++)
        *out |= (uint64_t)buf[i] << (8 * i);
    return CT_DW_OK;
}

int ct_dw_ops_from_locdesc(struct ct_dwarf *d, Dwarf_Debug dbg, Dwarf_Locdesc_c desc,
                           Dwarf_Unsigned nops, struct ct_dw_op *ops)
{
    Dwarf_Error e = NULL;
    if (nops > CT_DW_MAX_OPS)
        return ct_dw_fail(d, NULL, NULL, "DWARF expression too long");
    for (Dwarf_Unsigned i = 0; i < nops; i++) {
        Dwarf_Small atom = 0;
        Dwarf_Unsigned o1 = 0, o2 = 0, o3 = 0, r1, r2, r3, off = 0;
        if (dwarf_get_location_op_value_d(desc, i, &atom, &o1, &o2, &o3, &r1, &r2, &r3, &off,
                                          &e) != DW_DLV_OK)
            return ct_dw_fail(d, dbg, &e, "decoding a DWARF expression");
        ops[i] = (struct ct_dw_op){atom, o1, o2, o3, off};
    }
    return (int)nops;
}

/* Operand layout of an opcode: 'u'/'s' LEB128, digits = fixed bytes,
 * 'b' = ULEB128 length + block, "" = none; NULL = unsupported opcode. */
static const char *operand_layout(uint8_t at)
{
    if ((at >= DW_OP_lit0 && at <= DW_OP_lit31) || (at >= DW_OP_reg0 && at <= DW_OP_reg31))
        return "";
    if (at >= DW_OP_breg0 && at <= DW_OP_breg31)
        return "s";
    switch (at) {
    case DW_OP_addr: case DW_OP_const8u: case DW_OP_const8s: return "8";
    case DW_OP_const1u: case DW_OP_const1s: case DW_OP_pick: case DW_OP_deref_size: return "1";
    case DW_OP_const2u: case DW_OP_const2s: case DW_OP_skip: case DW_OP_bra: return "2";
    case DW_OP_const4u: case DW_OP_const4s: return "4";
    case DW_OP_constu: case DW_OP_plus_uconst: case DW_OP_regx: case DW_OP_piece:
    case DW_OP_addrx: case DW_OP_constx: case DW_OP_GNU_addr_index:
    case DW_OP_GNU_const_index:
        return "u";
    case DW_OP_consts: case DW_OP_fbreg: return "s";
    case DW_OP_bregx: return "us";
    case DW_OP_implicit_value: case DW_OP_entry_value: case DW_OP_GNU_entry_value: return "b";
    case DW_OP_deref: case DW_OP_dup: case DW_OP_drop: case DW_OP_over: case DW_OP_swap:
    case DW_OP_rot: case DW_OP_abs: case DW_OP_and: case DW_OP_div: case DW_OP_minus:
    case DW_OP_mod: case DW_OP_mul: case DW_OP_neg: case DW_OP_not: case DW_OP_or:
    case DW_OP_plus: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra: case DW_OP_xor:
    case DW_OP_eq: case DW_OP_ge: case DW_OP_gt: case DW_OP_le: case DW_OP_lt: case DW_OP_ne:
    case DW_OP_nop: case DW_OP_call_frame_cfa: case DW_OP_stack_value:
        return "";
    default:
        return NULL;
    }
}

/* Decodes one op's operands per its layout.  Returns 0 or -1. */
static int decode_operands(struct ct_dw_cursor *c, const char *layout, struct ct_dw_op *op)
{
    uint64_t *dst[2] = {&op->op1, &op->op2};
    for (int k = 0; layout[k]; k++) {
        uint64_t *v = dst[k < 2 ? k : 1];
        char l = layout[k];
        if (l == 'u' || l == 's') {
            if (ct_dw_rd_leb(c, l == 's', v))
                return -1;
        } else if (l == 'b') {
            if (ct_dw_rd_leb(c, 0, &op->op1) || op->op1 > (uint64_t)(c->end - c->p))
                return -1;
            op->op2 = (uint64_t)(uintptr_t)c->p; /* as libdwarf reports blocks */
            c->p += op->op1;
        } else if (ct_dw_rd_fixed(c, (size_t)(l - '0'), v)) {
            return -1;
        }
    }
    return 0;
}

/* Decodes raw expression bytes into ops.  Returns the op count or -1
 * (truncated operand, unsupported opcode, too many ops). */
static int decode_expr(const uint8_t *bytes, size_t len, struct ct_dw_op *ops)
{
    struct ct_dw_cursor c = {bytes, bytes + len};
    int n = 0;
    while (c.p < c.end) {
        struct ct_dw_op *op = &ops[n];
        const char *layout;
        if (n >= CT_DW_MAX_OPS)
            return -1;
        memset(op, 0, sizeof *op);
        op->off = (uint64_t)(c.p - bytes);
        op->atom = *c.p++;
        layout = operand_layout(op->atom);
        if (!layout || decode_operands(&c, layout, op) != 0)
            return -1;
        n++;
    }
    return n;
}

int ct_dw_eval_bytes(const uint8_t *bytes, size_t len, const struct ct_dw_env *env,
                     const uint64_t *init, int ninit, struct ct_dw_loc *out)
{
    struct ct_dw_op ops[CT_DW_MAX_OPS];
    int n;
    if (!bytes || len == 0)
        return CT_DW_ERR;
    n = decode_expr(bytes, len, ops);
    if (n < 0)
        return CT_DW_ERR;
    return ct_dw_eval(ops, (size_t)n, len, env, init, ninit, out);
}

/* ------------------------------------------------------------------ */
/* location attributes                                                 */

/* Classifies one location-list entry: 0 bounded entry, 1 skip (base
 * address / end marker), 2 default location, 3 single expression. */
static int entry_class(unsigned kind, Dwarf_Small lle)
{
    if (kind == DW_LKIND_expression)
        return 3;
    if (kind == DW_LKIND_loclists) {
        if (lle == DW_LLE_default_location)
            return 2;
        return lle == DW_LLE_base_address || lle == DW_LLE_base_addressx ||
               lle == DW_LLE_end_of_list;
    }
    return lle == DW_LLEX_base_address_selection_entry || lle == DW_LLEX_end_of_list_entry;
}

/* Reads entry i of a location list.  Returns 0 or -1. */
/* One location-list entry as libdwarf reports it (bounds are absolute "cooked" addresses). */
struct loc_entry {
    Dwarf_Small lle;
    Dwarf_Bool unavail;
    Dwarf_Addr lo, hi;
    Dwarf_Unsigned nops;
    Dwarf_Locdesc_c desc;
};

static int get_entry(struct ct_dwarf *d, Dwarf_Loc_Head_c head, Dwarf_Unsigned i,
                     struct loc_entry *en)
{
    Dwarf_Error e = NULL;
    Dwarf_Small src = 0;
    Dwarf_Unsigned r1, r2, eoff, doff;
    if (dwarf_get_locdesc_entry_d(head, i, &en->lle, &r1, &r2, &en->unavail, &en->lo, &en->hi,
                                  &en->nops, &en->desc, &src, &eoff, &doff, &e) != DW_DLV_OK)
        return ct_dw_fail(d, d->info, &e, "reading a location list entry");
    return 0;
}

/* Finds the entry that applies at pc (libdwarf reports entry bounds as
 * absolute "cooked" addresses).  Returns CT_DW_OK with *index,
 * CT_DW_UNAVAIL if none covers pc, CT_DW_ERR. */
static int pick_entry(struct ct_dwarf *d, Dwarf_Loc_Head_c head, unsigned kind,
                      Dwarf_Unsigned count, uint64_t pc, Dwarf_Unsigned *index)
{
    int have_default = 0;
    for (Dwarf_Unsigned i = 0; i < count; i++) {
        struct loc_entry en;
        if (get_entry(d, head, i, &en) != 0)
            return CT_DW_ERR;
        switch (entry_class(kind, en.lle)) {
        case 3:
            *index = i;
            return CT_DW_OK;
        case 2:
            if (!have_default)
                *index = i;
            have_default = 1;
            break;
        case 0:
            if (!en.unavail && pc >= en.lo && pc < en.hi) {
                *index = i;
                return CT_DW_OK;
            }
            break;
        default:
            break;
        }
    }
    return have_default ? CT_DW_OK : CT_DW_UNAVAIL;
}

/* The register of a location description that is exactly one DW_OP_regN / DW_OP_regx, or -1. */
static int64_t single_register(struct ct_dwarf *d, const struct loc_entry *en)
{
    struct ct_dw_op ops[CT_DW_MAX_OPS];
    int n = ct_dw_ops_from_locdesc(d, d->info, en->desc, en->nops, ops);
    if (n != 1)
        return -1;
    if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
        return ops[0].atom - DW_OP_reg0;
    return ops[0].atom == DW_OP_regx ? (int64_t)ops[0].op1 : -1;
}

/* No entry covers pc. When the entries that end just before pc and begin just after it (a gap
 * of at most CT_DW_MAX_BRIDGE bytes) both say "in register R", the optimizer updated the value
 * in R in place and had no register for an intermediate value (two shifts of the path
 * accumulator folded into one `shl $2`), or lost the description of a value it kept in R: a
 * threaded interpreter's dispatch, tail-duplicated into every handler, has none for the phi it
 * copies (the last 8 instructions before 709 of the 711 `jmp *` of Lua's luaV_execute, 35-40
 * bytes each), while R carries the accumulator into the handlers. Until the update that ends
 * the gap, R still holds the earlier value. Picks the earlier entry (the caller flags the steps
 * read this way uncertain). */
enum { CT_DW_MAX_BRIDGE = 64 };
static int pick_gap_entry(struct ct_dwarf *d, Dwarf_Loc_Head_c head, unsigned kind,
                          Dwarf_Unsigned count, uint64_t pc, Dwarf_Unsigned *index)
{
    Dwarf_Unsigned prev = count, next = count;
    Dwarf_Addr prev_hi = 0, next_lo = 0;
    int64_t regs[2];
    for (Dwarf_Unsigned i = 0; i < count; i++) {
        struct loc_entry en;
        if (get_entry(d, head, i, &en) != 0)
            return CT_DW_ERR;
        if (entry_class(kind, en.lle) != 0 || en.unavail)
            continue;
        if (en.hi <= pc && (prev == count || en.hi > prev_hi)) {
            prev = i;
            prev_hi = en.hi;
        }
        if (en.lo > pc && (next == count || en.lo < next_lo)) {
            next = i;
            next_lo = en.lo;
        }
    }
    if (prev == count || next == count || next_lo - prev_hi > CT_DW_MAX_BRIDGE)
        return CT_DW_UNAVAIL;
    for (int k = 0; k < 2; k++) {
        struct loc_entry en;
        if (get_entry(d, head, k ? next : prev, &en) != 0)
            return CT_DW_ERR;
        regs[k] = single_register(d, &en);
    }
    if (regs[0] < 0 || regs[0] != regs[1])
        return CT_DW_UNAVAIL;
    *index = prev;
    return CT_DW_OK;
}

/* The machine code's view of a location list, for ct_flow_bridge. */
struct flow_cover {
    struct ct_dwarf *d;
    Dwarf_Loc_Head_c head;
    unsigned kind;
    Dwarf_Unsigned count;
};

/* The registers a location description reads, into *reads, when it reads nothing else: a
 * register, or registers and constants combined by arithmetic. Returns 0, or -1 for one that
 * may read memory (a stack slot, a dereference), whose value a store on the way could change. */
static int reads_registers_only(const struct ct_dw_op *ops, int n, uint64_t *reads)
{
    *reads = 0;
    for (int i = 0; i < n; i++) {
        uint8_t a = ops[i].atom;
        uint64_t reg = 64;
        if (a >= DW_OP_reg0 && a <= DW_OP_reg31)
            reg = a - DW_OP_reg0;
        else if (a >= DW_OP_breg0 && a <= DW_OP_breg31)
            reg = a - DW_OP_breg0;
        else if (a == DW_OP_regx || a == DW_OP_bregx)
            reg = ops[i].op1;
        else if ((a >= DW_OP_lit0 && a <= DW_OP_lit31) || (a >= DW_OP_const1u && a <= DW_OP_consts))
            continue;
        else {
            switch (a) {
            case DW_OP_stack_value: case DW_OP_plus: case DW_OP_plus_uconst: case DW_OP_minus:
            case DW_OP_mul: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra: case DW_OP_and:
            case DW_OP_or: case DW_OP_xor: case DW_OP_not: case DW_OP_neg: case DW_OP_dup:
            case DW_OP_drop: case DW_OP_swap: case DW_OP_over:
                continue;
            default:
                return -1;
            }
        }
        if (reg >= 64)
            return -1;
        *reads |= 1ull << reg;
    }
    return n > 0 ? 0 : -1;
}

static struct ct_flow_loc flow_cover_at(void *ctx, uint64_t addr)
{
    const struct flow_cover *c = ctx;
    struct ct_flow_loc none = {CT_FLOW_NONE, 0, 0}, other = {CT_FLOW_OTHER, 0, 0};
    struct ct_dw_op ops[CT_DW_MAX_OPS];
    Dwarf_Unsigned i = 0;
    struct loc_entry en;
    int rc = pick_entry(c->d, c->head, c->kind, c->count, addr, &i);
    if (rc == CT_DW_UNAVAIL)
        return none;
    if (rc != CT_DW_OK || get_entry(c->d, c->head, i, &en) != 0 || en.unavail)
        return other;
    int n = ct_dw_ops_from_locdesc(c->d, c->d->info, en.desc, en.nops, ops);
    struct ct_flow_loc v = {CT_FLOW_VALUE, 14695981039346656037ull, 0};
    if (n <= 0 || reads_registers_only(ops, n, &v.reads) != 0)
        return other;
    /* The description's identity: FNV-1a over its operations. */
    for (int k = 0; k < n; k++) {
        uint64_t w[3] = {ops[k].atom, ops[k].op1, ops[k].op2};
        for (int j = 0; j < 3; j++)
            for (int b = 0; b < 8; b++)
                v.key = (v.key ^ ((w[j] >> (8 * b)) & 0xff)) * 1099511628211ull;
    }
    return v;
}

/* No entry covers pc, and the entries around it in address order do not bridge it: follows
 * the ways into pc back to covered instructions (ct_flow_bridge), every one with the same
 * description, from registers nothing on the way writes; failing that, the one way on from pc
 * to a covered instruction whose description reads registers nothing on the way writes
 * (ct_flow_forward). Picks the entry of that instruction. */
static int pick_flow_entry(struct ct_dwarf *d, Dwarf_Loc_Head_c head, unsigned kind,
                           Dwarf_Unsigned count, uint64_t pc, const struct ct_code_view *code,
                           Dwarf_Unsigned *index)
{
    struct flow_cover c = {d, head, kind, count};
    uint64_t at = 0;
    if (ct_flow_bridge(code, pc, flow_cover_at, &c, &at) < 0 &&
        ct_flow_forward(code, pc, flow_cover_at, &c, &at) < 0)
        return CT_DW_UNAVAIL;
    return pick_entry(d, head, kind, count, at, index);
}

/* Chooses the location-list entry covering pc (or the single expression)
 * and evaluates it.  Returns CT_DW_OK, CT_DW_UNAVAIL (no entry covers pc,
 * empty expression, missing register/memory) or CT_DW_ERR. */
static int eval_attr_at(struct ct_dwarf *d, Dwarf_Attribute attr, uint64_t pc,
                        const struct ct_dw_env *env, struct ct_dw_loc *out)
{
    Dwarf_Error e = NULL;
    Dwarf_Loc_Head_c head = NULL;
    Dwarf_Unsigned count = 0, index = 0;
    unsigned kind = 0;
    struct loc_entry en;
    struct ct_dw_op ops[CT_DW_MAX_OPS];
    int rc, n;
    if (dwarf_get_loclist_c(attr, &head, &count, &e) != DW_DLV_OK)
        return ct_dw_fail(d, d->info, &e, "reading a location");
    if (dwarf_get_loclist_head_kind(head, &kind, &e) != DW_DLV_OK)
        rc = ct_dw_fail(d, d->info, &e, "reading a location list kind");
    else
        rc = pick_entry(d, head, kind, count, pc, &index);
    if (rc == CT_DW_UNAVAIL && env->bridged) {
        rc = pick_gap_entry(d, head, kind, count, pc, &index);
        if (rc == CT_DW_UNAVAIL && env->code)
            rc = pick_flow_entry(d, head, kind, count, pc, env->code, &index);
        if (rc == CT_DW_OK)
            *env->bridged = 1;
    }
    if (rc == CT_DW_OK)
        rc = get_entry(d, head, index, &en);
    if (rc == CT_DW_OK) {
        n = ct_dw_ops_from_locdesc(d, d->info, en.desc, en.nops, ops);
        /* An empty expression is how DWARF says "optimized out here". */
        rc = n < 0 ? CT_DW_ERR : n == 0 ? CT_DW_UNAVAIL
                                        : ct_dw_eval(ops, (size_t)n, 0, env, NULL, 0, out);
    }
    dwarf_loc_head_c_dealloc(head);
    return rc;
}

/* ------------------------------------------------------------------ */
/* variables                                                           */

struct var_owner {
    struct ct_dwarf *d;
    Dwarf_Off fb_die; /* out-of-line subprogram: DW_AT_frame_base */
    Dwarf_Off cu_die;
    uint64_t pc;
};

/* DW_AT_frame_base of the function, evaluated at pc.  Returns
 * CT_DW_OK / CT_DW_UNAVAIL / CT_DW_ERR. */
static int frame_base_cb(const struct ct_dw_env *env, uint64_t *out)
{
    const struct var_owner *o = env->owner;
    struct ct_dwarf *d = o->d;
    Dwarf_Error e = NULL;
    Dwarf_Die die = NULL;
    Dwarf_Attribute attr = NULL;
    struct ct_dw_env inner = *env;
    struct ct_dw_loc loc = {.n = 0};
    int rc;
    inner.frame_base = NULL; /* a frame base defined by itself is malformed */
    if (ct_dw_offdie(d, o->fb_die, &die, &e) != DW_DLV_OK)
        return ct_dw_fail(d, d->info, &e, "reading the function DIE");
    rc = dwarf_attr(die, DW_AT_frame_base, &attr, &e);
    if (rc == DW_DLV_OK) {
        rc = eval_attr_at(d, attr, o->pc, &inner, &loc);
        dwarf_dealloc_attribute(attr);
    } else {
        rc = rc == DW_DLV_NO_ENTRY ? CT_DW_ERR : ct_dw_fail(d, d->info, &e, "DW_AT_frame_base");
    }
    dwarf_dealloc_die(die);
    if (rc != CT_DW_OK)
        return rc;
    /* A register location here means "the register's contents". */
    if (loc.n == 1 && loc.p[0].kind == CT_LOC_REG)
        return reg_value(env, loc.p[0].v, out);
    if (loc.n == 1 && (loc.p[0].kind == CT_LOC_MEM || loc.p[0].kind == CT_LOC_VALUE)) {
        *out = loc.p[0].v;
        return CT_DW_OK;
    }
    return CT_DW_ERR;
}

/* DW_OP_addrx: index into .debug_addr of the variable's CU. */
static int addrx_cb(const struct ct_dw_env *env, uint64_t index, uint64_t *out)
{
    const struct var_owner *o = env->owner;
    Dwarf_Error e = NULL;
    Dwarf_Die die = NULL;
    Dwarf_Addr a = 0;
    int rc;
    if (ct_dw_offdie(o->d, o->cu_die, &die, &e) != DW_DLV_OK)
        return ct_dw_fail(o->d, o->d->info, &e, "reading the CU DIE");
    rc = dwarf_debug_addr_index_to_addr(die, index, &a, &e);
    dwarf_dealloc_die(die);
    if (rc != DW_DLV_OK)
        return ct_dw_fail(o->d, o->d->info, &e, "resolving DW_OP_addrx");
    *out = a;
    return 0;
}

/* Byte size of the variable's type (typedefs and qualifiers followed),
 * clamped to 1..8; 8 when unknown. */
static size_t var_size(struct ct_dwarf *d, Dwarf_Die var)
{
    Dwarf_Error e = NULL;
    Dwarf_Die cur = var, next = NULL;
    Dwarf_Off off = 0;
    Dwarf_Unsigned size = 0;
    size_t result = 8;
    for (int hop = 0; hop < CT_DW_MAX_REF_HOPS; hop++) {
        if (ct_dw_ref(d, cur, DW_AT_type, &off) != 0 ||
            ct_dw_offdie(d, off, &next, &e) != DW_DLV_OK)
            break;
        if (cur != var)
            dwarf_dealloc_die(cur);
        cur = next;
        if (dwarf_bytesize(cur, &size, &e) == DW_DLV_OK) {
            result = size == 0 ? 8 : size > 8 ? 8 : (size_t)size;
            break;
        }
        /* A pointer usually has no byte size of its own: its type is what it points to. */
        Dwarf_Half tag = 0;
        if (dwarf_tag(cur, &tag, &e) == DW_DLV_OK &&
            (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
             tag == DW_TAG_rvalue_reference_type || tag == DW_TAG_ptr_to_member_type)) {
            result = 8;
            break;
        }
        ct_dw_fail(NULL, d->info, &e, "");
    }
    ct_dw_fail(NULL, d->info, &e, "");
    if (cur != var)
        dwarf_dealloc_die(cur);
    return result;
}

/* DW_AT_const_value of a variable.  Returns CT_DW_OK, 2 if absent, or
 * CT_DW_ERR. */
static int const_value(struct ct_dwarf *d, Dwarf_Die var, size_t size, uint64_t *value)
{
    Dwarf_Error e = NULL;
    Dwarf_Attribute attr = NULL;
    Dwarf_Unsigned u = 0;
    Dwarf_Signed s = 0;
    Dwarf_Block *blk = NULL;
    int rc = dwarf_attr(var, DW_AT_const_value, &attr, &e);
    if (rc == DW_DLV_NO_ENTRY)
        return 2;
    if (rc != DW_DLV_OK)
        return ct_dw_fail(d, d->info, &e, "reading DW_AT_const_value");
    rc = CT_DW_ERR;
    Dwarf_Half form = 0;
    if (dwarf_whatform(attr, &form, &e) != DW_DLV_OK) {
        ct_dw_fail(d, d->info, &e, "reading DW_AT_const_value form");
    } else if (form == DW_FORM_sdata || form == DW_FORM_implicit_const) {
        if (dwarf_formsdata(attr, &s, &e) == DW_DLV_OK) {
            *value = (uint64_t)s;
            rc = CT_DW_OK;
        }
    } else if (form == DW_FORM_block || form == DW_FORM_block1 || form == DW_FORM_block2 ||
               form == DW_FORM_block4 || form == DW_FORM_exprloc) {
        if (dwarf_formblock(attr, &blk, &e) == DW_DLV_OK) {
            uint8_t buf[8] = {0};
            memcpy(buf, blk->bl_data, blk->bl_len < size ? (size_t)blk->bl_len : size);
            *value = 0;
            for (size_t i = 0; i < 8; i++)
                *value |= (uint64_t)buf[i] << (8 * i);
            dwarf_dealloc(d->info, blk, DW_DLA_BLOCK);
            rc = CT_DW_OK;
        }
    } else if (dwarf_formudata(attr, &u, &e) == DW_DLV_OK) {
        *value = u;
        rc = CT_DW_OK;
    }
    ct_dw_fail(NULL, d->info, &e, "");
    dwarf_dealloc_attribute(attr);
    if (rc == CT_DW_OK && size < 8)
        *value &= (1ull << (8 * size)) - 1;
    return rc;
}

/* Evaluates the variable DIE at var_off.  Returns 0 / 1 / -1 as
 * ct_dwarf_variable. */
static int eval_var(struct ct_dwarf *d, Dwarf_Off var_off, const struct ct_dw_env *env,
                    uint64_t pc, uint64_t *value)
{
    Dwarf_Error e = NULL;
    Dwarf_Die var = NULL;
    Dwarf_Attribute attr = NULL;
    struct ct_dw_loc loc;
    size_t size;
    int rc;
    if (ct_dw_offdie(d, var_off, &var, &e) != DW_DLV_OK)
        return ct_dw_fail(d, d->info, &e, "reading the variable DIE");
    size = var_size(d, var);
    rc = const_value(d, var, size, value);
    if (rc != 2) {
        dwarf_dealloc_die(var);
        return rc;
    }
    rc = dwarf_attr(var, DW_AT_location, &attr, &e);
    if (rc == DW_DLV_OK) {
        rc = eval_attr_at(d, attr, pc, env, &loc);
        if (rc == CT_DW_OK)
            rc = ct_dw_loc_value(&loc, env, size, value);
        dwarf_dealloc_attribute(attr);
    } else {
        /* No location at all: the optimizer dropped it. */
        rc = rc == DW_DLV_NO_ENTRY ? CT_DW_UNAVAIL : ct_dw_fail(d, d->info, &e, "DW_AT_location");
    }
    dwarf_dealloc_die(var);
    return rc;
}

struct var_search {
    struct ct_dwarf *d;
    const char *name;
    uint64_t pc;
    uint64_t cu_base;
    Dwarf_Off best;
    int best_depth;
    int elsewhere; /* a same-named variable exists but not in range */
};

/* Returns 1 if die (or its abstract origin chain) is named `name`. */
static int die_named(struct ct_dwarf *d, Dwarf_Die die, const char *name)
{
    Dwarf_Error e = NULL;
    Dwarf_Die cur = die, next = NULL;
    Dwarf_Off off = 0;
    char *s = NULL;
    int match = 0;
    for (int hop = 0; hop < CT_DW_MAX_REF_HOPS; hop++) {
        if (dwarf_diename(cur, &s, &e) == DW_DLV_OK) {
            match = strcmp(s, name) == 0;
            break;
        }
        ct_dw_fail(NULL, d->info, &e, "");
        if (ct_dw_ref(d, cur, DW_AT_abstract_origin, &off) != 0 ||
            ct_dw_offdie(d, off, &next, &e) != DW_DLV_OK)
            break;
        if (cur != die)
            dwarf_dealloc_die(cur);
        cur = next;
    }
    ct_dw_fail(NULL, d->info, &e, "");
    if (cur != die)
        dwarf_dealloc_die(cur);
    return match;
}

/* Visitor: token 1 = every enclosing block contains pc. */
static int var_visit(void *arg, Dwarf_Die die, Dwarf_Half tag, int depth, int64_t *tok)
{
    struct var_search *s = arg;
    Dwarf_Error e = NULL;
    if (tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) {
        if (!die_named(s->d, die, s->name))
            return 0;
        if (*tok && depth > s->best_depth) {
            if (dwarf_dieoffset(die, &s->best, &e) != DW_DLV_OK)
                return ct_dw_fail(s->d, s->d->info, &e, "reading DIE offset");
            s->best_depth = depth;
        } else if (!*tok) {
            s->elsewhere = 1;
        }
        return 0;
    }
    if (tag != DW_TAG_lexical_block)
        return 0; /* nested functions and inlined calls are scopes of their own */
    int inside = ct_dw_block_contains(s->d, die, s->cu_base, s->pc);
    if (inside < 0)
        return -1;
    *tok = *tok && inside;
    return 1;
}

int ct_dw_block_contains(struct ct_dwarf *d, Dwarf_Die block, uint64_t cu_base, uint64_t pc)
{
    struct ct_dw_range *r = NULL;
    size_t n = 0, cap = 0;
    int rc = ct_dw_die_ranges(d, block, cu_base, &r, &n, &cap);
    int inside = rc == 0; /* a block without ranges inherits its parent's */
    for (size_t i = 0; i < n; i++)
        inside |= pc >= r[i].lo && pc < r[i].hi;
    free(r);
    return rc < 0 ? -1 : inside;
}

/* Searches the children of the DIE at off.  Returns 1 found (*var),
 * 0 not found, -1 on error. */
static int search_scope(struct var_search *s, Dwarf_Off off, int in_range, Dwarf_Off *var)
{
    Dwarf_Error e = NULL;
    Dwarf_Die die = NULL;
    int rc;
    if (ct_dw_offdie(s->d, off, &die, &e) != DW_DLV_OK)
        return ct_dw_fail(s->d, s->d->info, &e, "reading a scope DIE");
    s->best_depth = -1;
    rc = ct_dw_walk(s->d, die, var_visit, s, in_range);
    dwarf_dealloc_die(die);
    if (rc != 0)
        return -1;
    if (s->best_depth >= 0) {
        *var = s->best;
        return 1;
    }
    return 0;
}

/* Walks the scope chain at pc.  Returns 1 with *var and *fb (function
 * DIE), 0 if only an out-of-range/abstract one exists (*elsewhere set),
 * -1 if none. */
static int find_var(struct ct_dwarf *d, const struct ct_dw_cu *cu, int32_t s, uint64_t pc,
                    const char *name, Dwarf_Off *var, Dwarf_Off *fb)
{
    struct var_search vs = {.d = d, .name = name, .pc = pc, .cu_base = cu->base};
    int32_t first = s;
    *fb = 0;
    for (int32_t c = s; c >= 0 && c < (int32_t)cu->nscopes; c = cu->scopes[c].parent) {
        if (cu->scopes[c].kind == CT_SCOPE_SUBPROGRAM) {
            *fb = cu->scopes[c].die;
            break;
        }
        if (cu->scopes[c].parent >= c)
            break;
    }
    for (int32_t c = first; c >= 0 && c < (int32_t)cu->nscopes; c = cu->scopes[c].parent) {
        int rc = search_scope(&vs, cu->scopes[c].die, 1, var);
        if (rc != 0)
            return rc;
        /* Variables the optimizer removed survive only in the origin. */
        Dwarf_Die die = NULL;
        Dwarf_Error e = NULL;
        Dwarf_Off origin = 0;
        if (ct_dw_offdie(d, cu->scopes[c].die, &die, &e) == DW_DLV_OK) {
            if (ct_dw_ref(d, die, DW_AT_abstract_origin, &origin) == 0)
                search_scope(&vs, origin, 0, var); /* only sets vs.elsewhere */
            dwarf_dealloc_die(die);
        }
        ct_dw_fail(NULL, d->info, &e, "");
        if (cu->scopes[c].kind == CT_SCOPE_SUBPROGRAM || cu->scopes[c].parent >= c)
            break;
    }
    return vs.elsewhere ? 0 : -1;
}

int ct_dwarf_variable_bridged(struct ct_dwarf *d, uint64_t link_pc, const char *name,
                              const struct ct_regs *regs, uint64_t cfa, uint64_t bias,
                              ct_mem_read_fn read, void *ctx, const struct ct_code_view *code,
                              uint64_t *value, int *bridged)
{
    struct ct_dw_cu *cu;
    int32_t s;
    ct_dwarf_expect_locals(d); /* location lists, once */
    Dwarf_Off var = 0, fb = 0;
    int rc;
    if (bridged)
        *bridged = 0;
    if (!d || !name || !value || !(cu = ct_dw_cu_for_pc(d, link_pc)))
        return -1;
    s = ct_dw_scope_for_pc(cu, link_pc);
    if (s < 0)
        return -1;
    rc = find_var(d, cu, s, link_pc, name, &var, &fb);
    if (rc <= 0)
        return rc == 0 ? 1 : -1;
    struct var_owner owner = {d, fb, cu->die_off, link_pc};
    struct ct_dw_env env = {
        .regs = regs, .cfa = cfa, .have_cfa = 1, .bias = bias, .read = read, .ctx = ctx,
        .frame_base = fb ? frame_base_cb : NULL, .addrx = addrx_cb, .owner = &owner,
        .bridged = bridged, .code = code,
    };
    return eval_var(d, var, &env, link_pc, value);
}

int ct_dwarf_variable(struct ct_dwarf *d, uint64_t link_pc, const char *name,
                      const struct ct_regs *regs, uint64_t cfa, uint64_t bias,
                      ct_mem_read_fn read, void *ctx, uint64_t *value)
{
    return ct_dwarf_variable_bridged(d, link_pc, name, regs, cfa, bias, read, ctx, NULL, value,
                                     NULL);
}

int ct_dw_var_value(struct ct_dwarf *d, Dwarf_Off var, Dwarf_Off fn_die, Dwarf_Off cu_die,
                    uint64_t link_pc, const struct ct_regs *regs, uint64_t cfa, uint64_t bias,
                    ct_mem_read_fn read, void *ctx, uint64_t *value)
{
    struct var_owner owner = {d, fn_die, cu_die, link_pc};
    struct ct_dw_env env = {
        .regs = regs, .cfa = cfa, .have_cfa = 1, .bias = bias, .read = read, .ctx = ctx,
        .frame_base = fn_die ? frame_base_cb : NULL, .addrx = addrx_cb, .owner = &owner,
    };
    return eval_var(d, var, &env, link_pc, value);
}

int ct_dwarf_eval_expr(struct ct_dwarf *d, const uint8_t *expr, size_t len,
                       const struct ct_regs *regs, uint64_t cfa, uint64_t bias,
                       ct_mem_read_fn read, void *ctx, uint64_t *value)
{
    struct ct_dw_env env = {
        .regs = regs, .cfa = cfa, .have_cfa = 1, .bias = bias, .read = read, .ctx = ctx,
    };
    struct ct_dw_loc loc;
    int rc;
    if (!d || !value)
        return -1;
    rc = ct_dw_eval_bytes(expr, len, &env, NULL, 0, &loc);
    if (rc == CT_DW_OK)
        rc = ct_dw_loc_value(&loc, &env, 8, value);
    return rc;
}
