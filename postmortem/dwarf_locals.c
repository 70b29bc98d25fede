/*
 * dwarf_locals.c - the variables in scope at a pc, with their values where DWARF can tell (the
 * crashing frame's state, next to its timeline).
 *
 * The scope chain at pc (innermost inlined instance first, then its callers, up to the
 * out-of-line subprogram) is searched as ct_dwarf_variable searches it: lexical blocks count
 * only when they contain pc, nested functions and inlined calls are scopes of their own. An
 * inlined or out-of-line instance of a variable keeps its name and type on its abstract
 * origin. Values come from the same expression evaluator as the path accumulator; a variable
 * whose location list has no entry at pc is "optimised out", never guessed. The type decides
 * the formatting: base types by their encoding, pointers in hex, enumerations as numbers,
 * aggregates by their size only (their bytes may be spread over registers and pieces).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "crashtrail/abi.h"
#include "dwarf_module_internal.h"

#define CT_LOCALS_MAX_DIES 128

struct collect {
    struct ct_dwarf *d;
    uint64_t pc, cu_base;
    Dwarf_Off dies[CT_LOCALS_MAX_DIES];
    int n;
};

static int visit(void *arg, Dwarf_Die die, Dwarf_Half tag, int depth, int64_t *tok)
{
    struct collect *c = arg;
    Dwarf_Error e = NULL;
    (void)depth;
    if (tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) {
        Dwarf_Off off = 0;
        if (*tok && c->n < CT_LOCALS_MAX_DIES) {
            if (dwarf_dieoffset(die, &off, &e) != DW_DLV_OK)
                return ct_dw_fail(c->d, c->d->info, &e, "reading DIE offset");
            c->dies[c->n++] = off;
        }
        return 0;
    }
    if (tag != DW_TAG_lexical_block)
        return 0;
    int inside = ct_dw_block_contains(c->d, die, c->cu_base, c->pc);
    if (inside < 0)
        return -1;
    *tok = *tok && inside;
    return 1;
}

/* The DIE itself or the first of its abstract origins that has a name: where a variable's
 * name and type are. Returns a DIE the caller frees, or NULL. */
static Dwarf_Die declaring_die(struct ct_dwarf *d, Dwarf_Off off)
{
    Dwarf_Error e = NULL;
    Dwarf_Die die = NULL;
    for (int hop = 0; hop < CT_DW_MAX_REF_HOPS; hop++) {
        char *name = NULL;
        if (ct_dw_offdie(d, off, &die, &e) != DW_DLV_OK)
            break;
        if (dwarf_diename(die, &name, &e) == DW_DLV_OK)
            return die;
        ct_dw_fail(NULL, d->info, &e, "");
        int rc = ct_dw_ref(d, die, DW_AT_abstract_origin, &off);
        dwarf_dealloc_die(die);
        die = NULL;
        if (rc != 0)
            break;
    }
    ct_dw_fail(NULL, d->info, &e, "");
    return NULL;
}

enum kind { K_NONE, K_SIGNED, K_UNSIGNED, K_BOOL, K_FLOAT, K_CHAR, K_POINTER, K_ENUM, K_AGGREGATE };

struct type_info {
    enum kind kind;
    uint64_t size;
    char name[48];
};

/* Name of a type for display, following typedefs only as far as a name is found. */
static void type_name(struct ct_dwarf *d, Dwarf_Off off, char *out, size_t cap, int depth)
{
    Dwarf_Error e = NULL;
    Dwarf_Die die = NULL;
    Dwarf_Half tag = 0;
    char *name = NULL;
    snprintf(out, cap, "?");
    if (depth > 4 || ct_dw_offdie(d, off, &die, &e) != DW_DLV_OK ||
        dwarf_tag(die, &tag, &e) != DW_DLV_OK) {
        ct_dw_fail(NULL, d->info, &e, "");
        if (die)
            dwarf_dealloc_die(die);
        return;
    }
    Dwarf_Off next = 0;
    int has_next = ct_dw_ref(d, die, DW_AT_type, &next) == 0;
    int named = dwarf_diename(die, &name, &e) == DW_DLV_OK;
    ct_dw_fail(NULL, d->info, &e, "");
    char inner[40];
    /* what a pointer, qualifier or array is of ("void" when DWARF gives no type) */
    if (has_next)
        type_name(d, next, inner, sizeof inner, depth + 1);
    else
        snprintf(inner, sizeof inner, "void");
    size_t k = strlen(inner);
    int glued = k && (inner[k - 1] == '*' || inner[k - 1] == '&');
    switch (tag) {
    case DW_TAG_pointer_type:
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type:
        snprintf(out, cap, "%s%s%s", inner, glued ? "" : " ", tag == DW_TAG_pointer_type ? "*" : "&");
        break;
    case DW_TAG_const_type:
    case DW_TAG_volatile_type:
    case DW_TAG_restrict_type:
    case DW_TAG_atomic_type:
        snprintf(out, cap, "%s%s", tag == DW_TAG_const_type ? "const " : "", inner);
        break;
    case DW_TAG_structure_type:
    case DW_TAG_class_type:
    case DW_TAG_union_type:
    case DW_TAG_enumeration_type:
        snprintf(out, cap, "%s %s",
                 tag == DW_TAG_union_type ? "union" : tag == DW_TAG_enumeration_type ? "enum"
                 : tag == DW_TAG_class_type ? "class" : "struct",
                 named ? name : "(anonymous)");
        break;
    case DW_TAG_array_type:
        snprintf(out, cap, "%s[]", inner);
        break;
    case DW_TAG_subroutine_type:
        snprintf(out, cap, "function");
        break;
    default:
        snprintf(out, cap, "%s", named ? name : "?");
    }
    dwarf_dealloc_die(die);
}

/* What the value of a variable of type off looks like: typedefs and qualifiers followed. */
static void type_kind(struct ct_dwarf *d, Dwarf_Off off, struct type_info *t)
{
    Dwarf_Error e = NULL;
    t->kind = K_NONE;
    t->size = 0;
    for (int hop = 0; hop < CT_DW_MAX_REF_HOPS; hop++) {
        Dwarf_Die die = NULL;
        Dwarf_Half tag = 0;
        Dwarf_Unsigned size = 0, enc = 0;
        if (ct_dw_offdie(d, off, &die, &e) != DW_DLV_OK ||
            dwarf_tag(die, &tag, &e) != DW_DLV_OK) {
            if (die)
                dwarf_dealloc_die(die);
            break;
        }
        if (dwarf_bytesize(die, &size, &e) == DW_DLV_OK)
            t->size = size;
        ct_dw_fail(NULL, d->info, &e, "");
        int more = 0;
        switch (tag) {
        case DW_TAG_base_type:
            {
                Dwarf_Attribute a = NULL;
                if (dwarf_attr(die, DW_AT_encoding, &a, &e) == DW_DLV_OK) {
                    if (dwarf_formudata(a, &enc, &e) != DW_DLV_OK)
                        enc = 0;
                    dwarf_dealloc_attribute(a);
                }
            }
            t->kind = enc == DW_ATE_signed ? K_SIGNED
                      : enc == DW_ATE_unsigned ? K_UNSIGNED
                      : enc == DW_ATE_boolean ? K_BOOL
                      : enc == DW_ATE_float ? K_FLOAT
                      : enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char ? K_CHAR
                      : K_AGGREGATE;
            break;
        case DW_TAG_pointer_type:
        case DW_TAG_reference_type:
        case DW_TAG_rvalue_reference_type:
            t->kind = K_POINTER;
            if (!t->size)
                t->size = 8;
            break;
        case DW_TAG_enumeration_type:
            t->kind = K_ENUM;
            break;
        case DW_TAG_typedef:
        case DW_TAG_const_type:
        case DW_TAG_volatile_type:
        case DW_TAG_restrict_type:
        case DW_TAG_atomic_type:
            more = ct_dw_ref(d, die, DW_AT_type, &off) == 0;
            break;
        default:
            t->kind = K_AGGREGATE;
        }
        ct_dw_fail(NULL, d->info, &e, "");
        dwarf_dealloc_die(die);
        if (!more)
            break;
    }
}

static void format_value(const struct type_info *t, uint64_t v, char *out, size_t cap)
{
    unsigned bits = t->size && t->size < 8 ? (unsigned)t->size * 8 : 64;
    uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    v &= mask;
    int64_t sv = bits == 64 ? (int64_t)v : (int64_t)(v << (64 - bits)) >> (64 - bits);
    switch (t->kind) {
    case K_SIGNED:
    case K_ENUM:
        snprintf(out, cap, "%" PRId64, sv);
        break;
    case K_UNSIGNED:
        snprintf(out, cap, "%" PRIu64, v);
        break;
    case K_BOOL:
        snprintf(out, cap, "%s", v ? "true" : "false");
        break;
    case K_CHAR:
        if (v >= 0x20 && v < 0x7f && v != '\'' && v != '\\')
            snprintf(out, cap, "%" PRId64 " '%c'", sv, (char)v);
        else
            snprintf(out, cap, "%" PRId64, sv);
        break;
    case K_FLOAT:
        if (t->size == 4) {
            float f;
            uint32_t u = (uint32_t)v;
            memcpy(&f, &u, 4);
            snprintf(out, cap, "%g", (double)f);
        } else {
            double f;
            memcpy(&f, &v, 8);
            snprintf(out, cap, "%g", f);
        }
        break;
    case K_POINTER:
        if (v)
            snprintf(out, cap, "0x%" PRIx64, v);
        else
            snprintf(out, cap, "NULL");
        break;
    default:
        snprintf(out, cap, "0x%" PRIx64, v);
    }
}

/* One variable into *l: name and type from its declaring DIE, its value evaluated at the pc.
 * Returns 1, or 0 when it is not shown (no name, the accumulator). */
static int fill_local(struct ct_dwarf *d, Dwarf_Off var, Dwarf_Off fn_die,
                      Dwarf_Off cu_die, uint64_t link_pc, const struct ct_regs *regs,
                      uint64_t cfa, uint64_t bias, ct_mem_read_fn read, void *ctx,
                      struct ct_local *l)
{
    Dwarf_Error e = NULL;
    Dwarf_Die decl = declaring_die(d, var);
    char *name = NULL;
    Dwarf_Off type = 0;
    if (!decl)
        return 0;
    memset(l, 0, sizeof *l);
    if (dwarf_diename(decl, &name, &e) == DW_DLV_OK)
        snprintf(l->name, sizeof l->name, "%s", name);
    ct_dw_fail(NULL, d->info, &e, "");
    int typed = ct_dw_ref(d, decl, DW_AT_type, &type) == 0;
    dwarf_dealloc_die(decl);
    /* crashtrail's own accumulator is not the program's state */
    if (!l->name[0] || !strcmp(l->name, CT_ACC_VAR_NAME))
        return 0;
    struct type_info ti = {K_NONE, 0, ""};
    if (typed) {
        type_name(d, type, l->type, sizeof l->type, 0);
        type_kind(d, type, &ti);
    } else {
        snprintf(l->type, sizeof l->type, "?");
    }
    uint64_t v = 0;
    int rc = ct_dw_var_value(d, var, fn_die, cu_die, link_pc, regs, cfa, bias, read, ctx, &v);
    if (ti.kind == K_AGGREGATE && ti.size > 8) {
        snprintf(l->value, sizeof l->value, "(%" PRIu64 " bytes)", ti.size);
    } else if (rc == 0) {
        format_value(&ti, v, l->value, sizeof l->value);
        l->known = 1;
    } else {
        snprintf(l->value, sizeof l->value, "<optimised out>");
    }
    return 1;
}

int ct_dwarf_locals(struct ct_dwarf *d, uint64_t link_pc, const struct ct_regs *regs,
                    uint64_t cfa, uint64_t bias, ct_mem_read_fn read, void *ctx,
                    struct ct_local *out, int max)
{
    struct ct_dw_cu *cu;
    int32_t s;
    int n = 0;
    ct_dwarf_expect_locals(d); /* location lists, once */
    if (!d || !out || max <= 0 || !(cu = ct_dw_cu_for_pc(d, link_pc)))
        return 0;
    if ((s = ct_dw_scope_for_pc(cu, link_pc)) < 0)
        return 0;
    Dwarf_Off fn_die = 0;
    for (int32_t c = s; c >= 0 && c < (int32_t)cu->nscopes; c = cu->scopes[c].parent) {
        if (cu->scopes[c].kind == CT_SCOPE_SUBPROGRAM) {
            fn_die = cu->scopes[c].die;
            break;
        }
        if (cu->scopes[c].parent >= c)
            break;
    }
    for (int32_t c = s; c >= 0 && c < (int32_t)cu->nscopes && n < max;
         c = cu->scopes[c].parent) {
        struct collect col = {.d = d, .pc = link_pc, .cu_base = cu->base};
        Dwarf_Error e = NULL;
        Dwarf_Die scope = NULL;
        if (ct_dw_offdie(d, cu->scopes[c].die, &scope, &e) != DW_DLV_OK)
            return ct_dw_fail(d, d->info, &e, "reading a scope DIE");
        int rc = ct_dw_walk(d, scope, visit, &col, 1);
        dwarf_dealloc_die(scope);
        if (rc != 0)
            return -1;
        for (int i = 0; i < col.n && n < max; i++) {
            if (fill_local(d, col.dies[i], fn_die, cu->die_off, link_pc, regs, cfa, bias, read,
                           ctx, &out[n]))
                out[n++].function = cu->scopes[c].name;
        }
        ct_dw_fail(NULL, d->info, &e, "");
        if (cu->scopes[c].kind == CT_SCOPE_SUBPROGRAM || cu->scopes[c].parent >= c)
            break;
    }
    return n;
}
