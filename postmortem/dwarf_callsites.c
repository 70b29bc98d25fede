/*
 * dwarf_callsites.c - the return addresses of a unit's call-site DIEs, read straight from
 * .debug_info and .debug_abbrev.
 *
 * Lines in machine order (line_order.c) need, per function, the return address of each call
 * (DW_TAG_call_site's DW_AT_call_return_pc; DW_AT_low_pc of DWARF 4's DW_TAG_GNU_call_site).
 * Reading them through libdwarf walks the unit's whole DIE tree with an allocated handle per
 * DIE and a call per attribute: half a billion instructions for SQLite's amalgamation, more
 * than decoding its 4 million records. This scanner reads the unit once, linearly: a DIE is an
 * abbreviation code and attribute values whose sizes the forms give, so a DIE whose forms all
 * have a fixed size is skipped in one step (the size is computed once per abbreviation), and
 * only call-site DIEs are decoded.
 *
 * Invariants: every read is bounds-checked against its section (and the unit's end); a form
 * it does not know, a unit type other than compile/partial, or an addrx without an address
 * table make it return -1, and the caller falls back to libdwarf. The addresses come out
 * sorted. Nesting is not tracked: every call-site DIE of the unit is taken, wherever it is (a
 * call site only exists in code-bearing scopes).
 */
#include <stdlib.h>
#include <string.h>

#include "dwarf_module_internal.h"

#define MAX_ABBREV_CODE 65536u /* codes are dense from 1 in compilers' output */
#define VAR_SIZE UINT32_MAX    /* an abbreviation with a variable-size form */

struct abbrev {
    uint64_t tag;
    uint32_t first, nattrs; /* its attributes: attrs[first .. first + nattrs) */
    uint32_t fixed;         /* bytes of all its values, or VAR_SIZE */
    uint8_t children, defined;
};

struct attr_spec {
    uint64_t name, form;
};

struct unit {
    unsigned version, addr_size, off_size;
    const uint8_t *die_start, *end; /* the unit's DIEs */
    uint64_t abbrev_off;
};

struct scan {
    struct abbrev *ab;
    size_t nab;
    struct attr_spec *attrs;
    size_t nattrs, attrs_cap;
    uint64_t addr_base;
    int has_addr_base;
};

/* A form's size when it does not depend on the value (0 for none), VAR_SIZE when it does, or
 * -1 for a form this scanner does not know. */
static int64_t form_fixed_size(uint64_t form, const struct unit *u)
{
    switch (form) {
    case DW_FORM_addr: return u->addr_size;
    case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag: case DW_FORM_strx1:
    case DW_FORM_addrx1: return 1;
    case DW_FORM_data2: case DW_FORM_ref2: case DW_FORM_strx2: case DW_FORM_addrx2: return 2;
    case DW_FORM_strx3: case DW_FORM_addrx3: return 3;
    case DW_FORM_data4: case DW_FORM_ref4: case DW_FORM_ref_sup4: case DW_FORM_strx4:
    case DW_FORM_addrx4: return 4;
    case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8: case DW_FORM_ref_sup8: return 8;
    case DW_FORM_data16: return 16;
    case DW_FORM_strp: case DW_FORM_sec_offset: case DW_FORM_strp_sup: case DW_FORM_line_strp:
    case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt: return u->off_size;
    case DW_FORM_ref_addr: return u->version <= 2 ? u->addr_size : u->off_size;
    case DW_FORM_flag_present: case DW_FORM_implicit_const: return 0;
    case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4: case DW_FORM_block:
    case DW_FORM_exprloc: case DW_FORM_string: case DW_FORM_sdata: case DW_FORM_udata:
    case DW_FORM_ref_udata: case DW_FORM_strx: case DW_FORM_addrx: case DW_FORM_loclistx:
    case DW_FORM_rnglistx: case DW_FORM_indirect: case DW_FORM_GNU_addr_index:
    case DW_FORM_GNU_str_index: return VAR_SIZE;
    default: return -1;
    }
}

/* Parses the abbreviation table at u->abbrev_off.  Returns 0 or -1. */
static int read_abbrevs(struct scan *s, const uint8_t *sec, size_t len, const struct unit *u)
{
    if (u->abbrev_off >= len)
        return -1;
    struct ct_dw_cursor c = {sec + u->abbrev_off, sec + len};
    size_t cap = 0;
    for (;;) {
        uint64_t code, tag, name, form, konst;
        if (ct_dw_rd_leb(&c, 0, &code) || code == 0)
            return code == 0 ? 0 : -1;
        if (code >= MAX_ABBREV_CODE || ct_dw_rd_leb(&c, 0, &tag) || c.p >= c.end)
            return -1;
        if (code >= s->nab) {
            size_t n = s->nab;
            if (ct_dw_grow((void **)&s->ab, &cap, code + 1, sizeof *s->ab))
                return -1;
            memset(s->ab + n, 0, (code + 1 - n) * sizeof *s->ab);
            s->nab = code + 1;
        }
        struct abbrev *a = &s->ab[code];
        if (a->defined)
            return -1;
        *a = (struct abbrev){tag, (uint32_t)s->nattrs, 0, 0, *c.p++ != 0, 1};
        for (;;) {
            if (ct_dw_rd_leb(&c, 0, &name) || ct_dw_rd_leb(&c, 0, &form))
                return -1;
            if (name == 0 && form == 0)
                break;
            if (form == DW_FORM_implicit_const && ct_dw_rd_leb(&c, 1, &konst))
                return -1;
            int64_t size = form_fixed_size(form, u);
            if (size < 0 || s->nattrs >= UINT32_MAX - 1 ||
                ct_dw_grow((void **)&s->attrs, &s->attrs_cap, s->nattrs + 1, sizeof *s->attrs))
                return -1;
            s->attrs[s->nattrs++] = (struct attr_spec){name, form};
            a->nattrs++;
            if (a->fixed != VAR_SIZE)
                a->fixed = size == VAR_SIZE ? VAR_SIZE : a->fixed + (uint32_t)size;
        }
    }
}

/* Reads one value of the given form (not DW_FORM_indirect, which the caller resolves):
 * integers and addresses into *v (an index for strx/addrx, an offset for references), other
 * values skipped.  Returns 0 or -1. */
static int read_value(struct ct_dw_cursor *c, uint64_t form, const struct unit *u, uint64_t *v)
{
    uint64_t n = 0;
    *v = 0;
    switch (form) {
    case DW_FORM_string: {
        const uint8_t *z = memchr(c->p, 0, (size_t)(c->end - c->p));
        if (!z)
            return -1;
        c->p = z + 1;
        return 0;
    }
    case DW_FORM_sdata:
        return ct_dw_rd_leb(c, 1, v);
    case DW_FORM_udata: case DW_FORM_ref_udata: case DW_FORM_strx: case DW_FORM_addrx:
    case DW_FORM_loclistx: case DW_FORM_rnglistx: case DW_FORM_GNU_addr_index:
    case DW_FORM_GNU_str_index:
        return ct_dw_rd_leb(c, 0, v);
    case DW_FORM_block1: case DW_FORM_block2: case DW_FORM_block4:
        if (ct_dw_rd_fixed(c, form == DW_FORM_block1 ? 1 : form == DW_FORM_block2 ? 2 : 4, &n))
            return -1;
        break;
    case DW_FORM_block: case DW_FORM_exprloc:
        if (ct_dw_rd_leb(c, 0, &n))
            return -1;
        break;
    default: {
        int64_t size = form_fixed_size(form, u);
        if (size < 0 || size == VAR_SIZE)
            return -1;
        if (size <= 8)
            return ct_dw_rd_fixed(c, (size_t)size, v);
        n = (uint64_t)size;
        break;
    }
    }
    if ((uint64_t)(c->end - c->p) < n)
        return -1;
    c->p += n;
    return 0;
}

static int is_addrx(uint64_t form)
{
    return form == DW_FORM_addrx || form == DW_FORM_GNU_addr_index ||
           (form >= DW_FORM_addrx1 && form <= DW_FORM_addrx4);
}

/* Reads the unit header at off.  Returns 0, or -1 when it is malformed or not a unit whose DIEs
 * this scanner reads. */
static int read_unit(const uint8_t *info, size_t len, uint64_t off, struct unit *u)
{
    struct ct_dw_cursor c = {info + off, info + len};
    uint64_t ulen = 0, ver = 0, type = 1, asz = 0;
    if (off >= len || ct_dw_rd_fixed(&c, 4, &ulen))
        return -1;
    u->off_size = 4;
    if (ulen == 0xffffffffu) {
        u->off_size = 8;
        if (ct_dw_rd_fixed(&c, 8, &ulen))
            return -1;
    } else if (ulen >= 0xfffffff0u) {
        return -1;
    }
    if (ulen > (uint64_t)(c.end - c.p))
        return -1;
    u->end = c.p + ulen;
    c.end = u->end;
    if (ct_dw_rd_fixed(&c, 2, &ver) || ver < 2 || ver > 5)
        return -1;
    if (ver >= 5 && (ct_dw_rd_fixed(&c, 1, &type) || ct_dw_rd_fixed(&c, 1, &asz) ||
                     ct_dw_rd_fixed(&c, u->off_size, &u->abbrev_off)))
        return -1;
    if (ver < 5 && (ct_dw_rd_fixed(&c, u->off_size, &u->abbrev_off) ||
                    ct_dw_rd_fixed(&c, 1, &asz)))
        return -1;
    if ((type != DW_UT_compile && type != DW_UT_partial) || (asz != 4 && asz != 8))
        return -1;
    u->version = (unsigned)ver;
    u->addr_size = (unsigned)asz;
    u->die_start = c.p;
    return 0;
}

/* Finds the unit whose first DIE is at die_off (units are laid end to end).  Returns 0 or -1. */
static int find_unit(const struct ct_dw_info_sections *s, uint64_t die_off, struct unit *u)
{
    uint64_t off = 0;
    while (off < s->info_len) {
        struct ct_dw_cursor c = {s->info + off, s->info + s->info_len};
        uint64_t ulen = 0;
        if (ct_dw_rd_fixed(&c, 4, &ulen))
            return -1;
        if (ulen == 0xffffffffu && ct_dw_rd_fixed(&c, 8, &ulen))
            return -1;
        if (ulen > (uint64_t)(c.end - c.p))
            return -1;
        uint64_t next = (uint64_t)(c.p - s->info) + ulen;
        if (die_off < next) {
            if (read_unit(s->info, s->info_len, off, u) != 0)
                return -1;
            return (uint64_t)(u->die_start - s->info) == die_off ? 0 : -1;
        }
        off = next;
    }
    return -1;
}

/* An address-table entry (DWARF 5 .debug_addr, from the unit's DW_AT_addr_base).  Returns 0 or
 * -1. */
static int addr_entry(const struct ct_dw_info_sections *s, const struct scan *sc,
                      const struct unit *u, uint64_t index, uint64_t *addr)
{
    if (!sc->has_addr_base || !s->addr || index > (s->addr_len / u->addr_size))
        return -1;
    uint64_t at = sc->addr_base + index * u->addr_size;
    if (at > s->addr_len || s->addr_len - at < u->addr_size)
        return -1;
    struct ct_dw_cursor c = {s->addr + at, s->addr + s->addr_len};
    return ct_dw_rd_fixed(&c, u->addr_size, addr);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int ct_dw_scan_call_returns(const struct ct_dw_info_sections *s, uint64_t die_off,
                            uint64_t **rets, size_t *nrets)
{
    struct unit u;
    struct scan sc = {0};
    size_t cap = 0, n = 0;
    uint64_t *out = NULL;
    int rc = -1, first = 1;
    *rets = NULL;
    *nrets = 0;
    if (!s->info || !s->abbrev || find_unit(s, die_off, &u) != 0 ||
        read_abbrevs(&sc, s->abbrev, s->abbrev_len, &u) != 0)
        goto out;
    struct ct_dw_cursor c = {u.die_start, u.end};
    while (c.p < c.end) {
        uint64_t code;
        if (ct_dw_rd_leb(&c, 0, &code))
            goto out;
        if (code == 0)
            continue; /* the end of a list of children */
        if (code >= sc.nab || !sc.ab[code].defined)
            goto out;
        const struct abbrev *a = &sc.ab[code];
        int call = a->tag == DW_TAG_call_site || a->tag == DW_TAG_GNU_call_site;
        uint64_t want = a->tag == DW_TAG_call_site ? DW_AT_call_return_pc : DW_AT_low_pc;
        if (!call && !first && a->fixed != VAR_SIZE) {
            if ((size_t)(c.end - c.p) < a->fixed)
                goto out;
            c.p += a->fixed;
            continue;
        }
        uint64_t ret = 0;
        int have = 0;
        for (uint32_t i = 0; i < a->nattrs; i++) {
            const struct attr_spec *at = &sc.attrs[a->first + i];
            uint64_t form = at->form, v = 0;
            if (form == DW_FORM_indirect) { /* the form is in the DIE */
                if (ct_dw_rd_leb(&c, 0, &form) || form == DW_FORM_indirect ||
                    form == DW_FORM_implicit_const)
                    goto out;
            }
            if (read_value(&c, form, &u, &v))
                goto out;
            if (first && (at->name == DW_AT_addr_base || at->name == DW_AT_GNU_addr_base) &&
                (form == DW_FORM_sec_offset || form == DW_FORM_data4 || form == DW_FORM_data8)) {
                sc.addr_base = v;
                sc.has_addr_base = 1;
            }
            if (call && at->name == want) {
                if (form == DW_FORM_addr)
                    ret = v, have = 1;
                else if (is_addrx(form))
                    have = addr_entry(s, &sc, &u, v, &ret) == 0 ? 1 : -1;
            }
        }
        first = 0;
        if (have < 0)
            goto out;
        if (have) {
            if (ct_dw_grow((void **)&out, &cap, n + 1, sizeof *out))
                goto out;
            out[n++] = ret;
        }
    }
    if (n)
        qsort(out, n, sizeof *out, cmp_u64); /* qsort(NULL, 0) is undefined */
    *rets = out;
    *nrets = n;
    out = NULL;
    rc = 0;
out:
    free(out);
    free(sc.ab);
    free(sc.attrs);
    return rc;
}
