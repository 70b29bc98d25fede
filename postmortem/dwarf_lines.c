/*
 * dwarf_lines.c - a DWARF 2-5 line-number program decoded straight into rows.
 *
 * libdwarf 20210528 builds one allocated Dwarf_Line per row and is read through a call per
 * field: for SQLite's amalgamation at -O2 (400 thousand rows, more since the pass names blocks
 * with discriminators) that took a quarter of a second, before a single record was decoded.
 * This decoder runs the line program's state machine over the raw .debug_line bytes and
 * writes struct ct_line_row directly. It reads only what rows need: the header's parameters and
 * the program (the directory and file tables are skipped through header_length; file names
 * come from libdwarf's file list, as before). Every read is bounds-checked: a program it does
 * not understand, or a truncated one, returns -1 and the caller falls back to libdwarf.
 *
 * The state machine is the standard's (DWARF 5, 6.2.5), with maximum_operations_per_
 * instruction taken as 1 (no VLIW on x86-64). Unlike libdwarf 20210528 the file register
 * starts at 1 in DWARF 5 as the standard says, and a row with the epilogue_begin flag is
 * not the end of its sequence.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "dwarf_module_internal.h"

struct lcur {
    const uint8_t *p, *end;
    int bad;
};

static uint64_t get_u(struct lcur *c, unsigned n)
{
    uint64_t v = 0;
    if ((size_t)(c->end - c->p) < n) {
        c->bad = 1;
        c->p = c->end;
        return 0;
    }
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)c->p[i] << (8 * i);
    c->p += n;
    return v;
}

static uint64_t get_uleb(struct lcur *c)
{
    uint64_t v = 0;
    for (unsigned shift = 0; c->p < c->end; shift += 7) {
        uint8_t b = *c->p++;
        if (shift < 64)
            v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    c->bad = 1;
    return 0;
}

static int64_t get_sleb(struct lcur *c)
{
    int64_t v = 0;
    unsigned shift = 0;
    while (c->p < c->end) {
        uint8_t b = *c->p++;
        if (shift < 64)
            v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
        shift += 7;
        if (!(b & 0x80)) {
            if (shift < 64 && (b & 0x40))
                v |= -((int64_t)1 << shift);
            return v;
        }
    }
    c->bad = 1;
    return 0;
}

struct lstate {
    uint64_t addr, file, line, column, discriminator;
    int prologue_end, end_seq;
};

static void reset(struct lstate *s)
{
    memset(s, 0, sizeof *s);
    s->file = 1; /* DWARF 5 too: the standard's initial value */
    s->line = 1;
}

static int emit(const struct lstate *s, const struct ct_dw_line_files *files,
                struct ct_line_row **rows, size_t *n, size_t *cap)
{
    if (ct_dw_grow((void **)rows, cap, *n + 1, sizeof **rows) != 0)
        return -1;
    struct ct_line_row *r = &(*rows)[(*n)++];
    uint64_t f = s->file;
    r->addr = s->addr;
    r->file = f >= files->base && f - files->base < files->count ? files->names[f - files->base]
                                                                   : NULL;
    r->line = s->line > UINT32_MAX ? UINT32_MAX : (uint32_t)s->line;
    r->column = s->column > UINT16_MAX ? UINT16_MAX : (uint16_t)s->column;
    r->end_seq = (uint8_t)s->end_seq;
    r->prologue_end = (uint8_t)s->prologue_end;
    r->discriminator = s->discriminator > UINT32_MAX ? UINT32_MAX : (uint32_t)s->discriminator;
    return 0;
}

/* Asks for huge pages under the 2 MiB-aligned part of a large block (malloc maps such blocks
 * on their own): an amalgamation's rows are megabytes written once, and on 4 KiB pages every
 * first touch is a page fault, which on a VM costs more than decoding the rows on it. Advice
 * only: without transparent huge pages nothing changes. */
static void advise_huge(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + len) & ~(huge - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)len;
#endif
}

int ct_dw_decode_lines(const uint8_t *sec, size_t len, uint64_t off,
                       const struct ct_dw_line_files *files, struct ct_line_row **rows,
                       size_t *nrows)
{
    struct lcur c;
    size_t n = 0, cap = 0;
    struct ct_line_row *out = NULL;
    *rows = NULL;
    *nrows = 0;
    if (off >= len)
        return -1;
    c.p = sec + off;
    c.end = sec + len;
    c.bad = 0;
    unsigned offsize = 4;
    uint64_t unit_length = get_u(&c, 4);
    if (unit_length == 0xffffffffu) {
        offsize = 8;
        unit_length = get_u(&c, 8);
    }
    if (c.bad || unit_length > (uint64_t)(c.end - c.p))
        return -1;
    c.end = c.p + unit_length;
    unsigned version = (unsigned)get_u(&c, 2);
    if (version < 2 || version > 5)
        return -1;
    if (version >= 5) {
        unsigned address_size = (unsigned)get_u(&c, 1);
        get_u(&c, 1); /* segment_selector_size */
        if (address_size != 8)
            return -1;
    }
    uint64_t header_length = get_u(&c, offsize);
    if (c.bad || header_length > (uint64_t)(c.end - c.p))
        return -1;
    const uint8_t *program = c.p + header_length;
    unsigned min_inst = (unsigned)get_u(&c, 1);
    if (version >= 4 && get_u(&c, 1) != 1) /* maximum_operations_per_instruction */
        return -1;
    unsigned default_is_stmt = (unsigned)get_u(&c, 1);
    int line_base = (int8_t)get_u(&c, 1);
    unsigned line_range = (unsigned)get_u(&c, 1);
    unsigned opcode_base = (unsigned)get_u(&c, 1);
    (void)default_is_stmt;
    if (c.bad || line_range == 0 || opcode_base == 0 || (size_t)(c.end - c.p) < opcode_base - 1)
        return -1;
    const uint8_t *std_lengths = c.p; /* of opcodes 1 .. opcode_base - 1 */
    c.p = program;

    /* Every row takes at least one byte of the program: sized for that, the rows are never
     * moved by a realloc (of megabytes, for an amalgamation); pages never written are never
     * faulted in, and the unused tail is given back at the end. */
    if (ct_dw_grow((void **)&out, &cap, (size_t)(c.end - program) + 1, sizeof *out) != 0)
        return -1;
    advise_huge(out, cap * sizeof *out);
    struct lstate s;
    reset(&s);
    while (c.p < c.end && !c.bad) {
        unsigned op = *c.p++;
        if (op >= opcode_base) { /* special opcode */
            unsigned adj = op - opcode_base;
            s.addr += (uint64_t)(adj / line_range) * min_inst;
            s.line += (int64_t)line_base + (int64_t)(adj % line_range);
            if (emit(&s, files, &out, &n, &cap) != 0)
                goto fail;
            s.discriminator = 0;
            s.prologue_end = 0;
            continue;
        }
        switch (op) {
        case 0: { /* extended */
            uint64_t elen = get_uleb(&c);
            if (c.bad || elen == 0 || elen > (uint64_t)(c.end - c.p))
                goto fail;
            const uint8_t *next = c.p + elen;
            unsigned sub = *c.p++;
            if (sub == 1) { /* DW_LNE_end_sequence */
                s.end_seq = 1;
                if (emit(&s, files, &out, &n, &cap) != 0)
                    goto fail;
                reset(&s);
            } else if (sub == 2) { /* DW_LNE_set_address */
                if (elen != 9)
                    goto fail;
                s.addr = get_u(&c, 8);
            } else if (sub == 4) { /* DW_LNE_set_discriminator */
                s.discriminator = get_uleb(&c);
            }
            c.p = next; /* DW_LNE_define_file and vendor opcodes: skipped */
            break;
        }
        case 1: /* DW_LNS_copy */
            if (emit(&s, files, &out, &n, &cap) != 0)
                goto fail;
            s.discriminator = 0;
            s.prologue_end = 0;
            break;
        case 2: s.addr += get_uleb(&c) * min_inst; break;            /* advance_pc */
        case 3: s.line += (uint64_t)get_sleb(&c); break;               /* advance_line */
        case 4: s.file = get_uleb(&c); break;                          /* set_file */
        case 5: s.column = get_uleb(&c); break;                        /* set_column */
        case 6: case 7: case 11: break; /* negate_stmt, basic_block, epilogue_begin */
        case 8: s.addr += (uint64_t)((255 - opcode_base) / line_range) * min_inst; break;
        case 9: s.addr += get_u(&c, 2); break;                         /* fixed_advance_pc */
        case 10: s.prologue_end = 1; break;
        case 12: get_uleb(&c); break;                                  /* set_isa */
        default: /* an opcode of a later standard: skip its operands */
            for (unsigned k = 0; k < std_lengths[op - 1]; k++)
                get_uleb(&c);
            break;
        }
    }
    if (c.bad)
        goto fail;
    if (n < cap) { /* in place: a shrinking realloc of an mmap'd block is an mremap */
        struct ct_line_row *fit = realloc(out, (n ? n : 1) * sizeof *out);
        if (fit)
            out = fit;
    }
    *rows = out;
    *nrows = n;
    return 0;
fail:
    free(out);
    return -1;
}
