/*
 * dwarf_lazy.c - a debug file whose compressed DWARF is inflated only as far as it is read (see
 * dwarf_lazy.h).
 *
 * The file is mapped read-only by elf_file.c, which checks its section headers. Every section is
 * described to libdwarf with its uncompressed size; uncompressed sections are served straight
 * from the mapping, compressed ones from a zero-filled buffer of the full size that a zlib
 * stream fills from the front (a section is never inflated twice). Units of .debug_info are walked in order as far as a requested offset
 * (a unit's header gives the next one), so the walked units are a prefix whose starts are kept
 * sorted for the lookup of an offset already passed.
 *
 * Invariants: a section's `ready` never decreases and never exceeds its size; bytes past it are
 * zero; every offset read from the file is checked against the section's size before use.
 */
#define _POSIX_C_SOURCE 200809L

#include "dwarf_lazy.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <libdwarf/dwarf.h>

#include "dwarf_module_internal.h"
#include "elf_file.h"

/* Largest section we inflate (bytes): beyond it the file is treated as malformed. */
#define LZ_MAX_SECTION (1ull << 31)
/* Inflate at least this much per step: fewer zlib calls for small requests. */
#define LZ_STEP (64u << 10)

struct lz_sec {
    const char *name;
    const Elf64_Shdr *sh;
    const uint8_t *raw; /* the section's bytes in the mapping (a compressed stream's start) */
    uint64_t raw_len;
    uint64_t size;      /* uncompressed */
    int compressed;
    uint8_t *data;      /* size + 1 bytes (compressed) or the mapping (plain) */
    uint64_t ready;
    z_stream zs;
    int zs_live, broken;
};

struct ct_dw_lazy {
    struct ct_elf *elf;                 /* the mapping and its checked section headers */
    size_t shnum;
    struct lz_sec *secs;                /* one per section header */
    struct lz_sec *named[CT_LZ_NSEC];   /* .debug_info, .debug_abbrev, .debug_line, aranges */
    struct lz_sec *loclists;            /* .debug_loclists, shown to libdwarf once asked for */
    int loclists_shown;
    int plain;                          /* ct_dw_lazy_open_plain: every section served whole */
    uint64_t units_end;                 /* units of .debug_info walked up to here */
    uint64_t *unit_start, *unit_die;    /* the walked units, in order */
    size_t nunits, units_cap;
    Dwarf_Obj_Access_Interface iface;
};

static const char *const lazy_names[CT_LZ_NSEC] = {".debug_info", ".debug_abbrev",
                                                   ".debug_line", ".debug_aranges"};

static int range_ok(uint64_t off, uint64_t len, uint64_t limit)
{
    return off <= limit && len <= limit - off;
}

static uint64_t rd(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* ------------------------------------------------------------------ */
/* sections                                                            */

static int sec_init(struct ct_dw_lazy *lz, size_t i)
{
    const Elf64_Shdr *sh;
    ct_elf_sections(lz->elf, &sh);
    struct lz_sec *s = &lz->secs[i];
    s->name = ct_elf_section_name(lz->elf, i);
    s->sh = &sh[i];
    if (!(s->raw = ct_elf_section_bytes(lz->elf, i)))
        return 0;
    s->raw_len = s->sh->sh_size;
    s->size = s->sh->sh_size;
    if (s->sh->sh_flags & SHF_COMPRESSED) {
        Elf64_Chdr ch;
        if (s->raw_len < sizeof ch)
            return -1;
        memcpy(&ch, s->raw, sizeof ch);
        if (ch.ch_type != ELFCOMPRESS_ZLIB || ch.ch_size > LZ_MAX_SECTION)
            return -1;
        s->compressed = 1;
        s->size = ch.ch_size;
        s->raw += sizeof ch;
        s->raw_len -= sizeof ch;
    }
    return 0;
}

/* Inflates section s up to `upto` bytes. Returns 0, or -1 (corrupt stream, OOM). */
static int sec_need(struct lz_sec *s, uint64_t upto)
{
    if (!s->compressed) {
        s->data = (uint8_t *)s->raw;
        s->ready = s->size;
        return 0;
    }
    if (upto > s->size)
        upto = s->size;
    if (s->ready >= upto && s->data)
        return 0;
    if (s->broken)
        return -1;
    if (!s->data && !(s->data = calloc(1, s->size + 1)))
        return -1;
    if (!s->zs_live) {
        /* The zlib wrapper's two header bytes are checked here and the deflate data inflated
         * raw: zlib's Adler-32 of every inflated byte (a sixth of the inflating) buys nothing
         * that the bounds-checked parsing after it does not already guard. */
        if (s->raw_len < 2 || (s->raw[0] & 0x0f) != Z_DEFLATED || (s->raw[1] & 0x20) ||
            ((unsigned)s->raw[0] << 8 | s->raw[1]) % 31 != 0) {
            s->broken = 1;
            return -1;
        }
        memset(&s->zs, 0, sizeof s->zs);
        if (inflateInit2(&s->zs, -MAX_WBITS) != Z_OK)
            return -1;
        s->zs_live = 1;
        s->zs.next_in = (Bytef *)s->raw + 2;
        s->zs.avail_in = (uInt)(s->raw_len - 2 > UINT32_MAX ? UINT32_MAX : s->raw_len - 2);
    }
    uint64_t target = upto - s->ready < LZ_STEP ? s->ready + LZ_STEP : upto;
    if (target > s->size)
        target = s->size;
    while (s->ready < target) {
        uint64_t want = target - s->ready;
        s->zs.next_out = s->data + s->ready;
        s->zs.avail_out = (uInt)(want > UINT32_MAX ? UINT32_MAX : want);
        int rc = inflate(&s->zs, Z_NO_FLUSH);
        uint64_t got = (uint64_t)(s->zs.next_out - (s->data + s->ready));
        s->ready += got;
        if (rc == Z_STREAM_END) {
            if (s->ready != s->size)
                break;
            return 0;
        }
        if ((rc != Z_OK && rc != Z_BUF_ERROR) || got == 0)
            break;
    }
    if (s->ready >= target)
        return 0;
    s->broken = 1; /* what was inflated stays; nothing past it ever will be */
    memset(s->data + s->ready, 0, s->size - s->ready);
    return -1;
}

const uint8_t *ct_dw_lazy_need(struct ct_dw_lazy *lz, enum ct_dw_lazy_sec which, uint64_t upto,
                               uint64_t *len)
{
    struct lz_sec *s = lz->named[which];
    if (!s || !s->raw || sec_need(s, upto) != 0)
        return NULL;
    if (len)
        *len = s->size;
    return s->data;
}

/* ------------------------------------------------------------------ */
/* units of .debug_info, their abbreviations, their line tables        */

/* Parses one abbreviation table from c up to its terminating 0 code. Returns 0, or -1 if the
 * cursor ran out first. */
static int parse_abbrev_table(struct ct_dw_cursor *c)
{
    uint64_t code, tag, children, attr, form, v;
    for (;;) {
        if (ct_dw_rd_leb(c, 0, &code) != 0)
            return -1;
        if (code == 0)
            return 0;
        if (ct_dw_rd_leb(c, 0, &tag) != 0 || ct_dw_rd_fixed(c, 1, &children) != 0)
            return -1;
        do {
            if (ct_dw_rd_leb(c, 0, &attr) != 0 || ct_dw_rd_leb(c, 0, &form) != 0 ||
                (form == DW_FORM_implicit_const && ct_dw_rd_leb(c, 1, &v) != 0))
                return -1;
        } while (attr != 0 || form != 0);
    }
}

/* Makes the abbreviation table at off readable up to its terminating 0 code. */
static int need_abbrev_table(struct ct_dw_lazy *lz, uint64_t off)
{
    struct lz_sec *s = lz->named[CT_LZ_ABBREV];
    if (!s || off >= s->size)
        return -1;
    for (uint64_t chunk = 4096;; chunk *= 2) {
        if (sec_need(s, off + chunk) != 0)
            return -1;
        struct ct_dw_cursor c = {s->data + off, s->data + s->ready};
        if (parse_abbrev_table(&c) == 0 || s->ready >= s->size)
            return 0; /* complete, or unterminated: libdwarf reports that */
    }
}

/* Walks one more unit header at lz->units_end. Returns 0, 1 at the section's end, -1 if
 * malformed. */
static int walk_unit(struct ct_dw_lazy *lz)
{
    struct lz_sec *s = lz->named[CT_LZ_INFO];
    uint64_t at = lz->units_end;
    if (at >= s->size)
        return 1;
    if (sec_need(s, at + 32) != 0 || !range_ok(at, 4, s->size))
        return -1;
    const uint8_t *p = s->data + at;
    uint64_t len = rd(p, 4), hdr = 4;
    unsigned osz = 4;
    if (len == 0xffffffffu) {
        if (!range_ok(at, 12, s->size))
            return -1;
        len = rd(p + 4, 8);
        hdr = 12;
        osz = 8;
    } else if (len >= 0xfffffff0u) {
        return -1;
    }
    if (!range_ok(at + hdr, len, s->size) || len < 4 + osz) /* version 5's fixed part */
        return -1;
    uint64_t next = at + hdr + len;
    unsigned ver = (unsigned)rd(p + hdr, 2);
    uint64_t abbrev, die = at + hdr + 2;
    if (ver >= 2 && ver <= 4) {
        abbrev = rd(p + hdr + 2, osz);
        die += osz + 1;
    } else if (ver == 5) {
        unsigned ut = p[hdr + 2];
        abbrev = rd(p + hdr + 4, osz);
        die += 2 + osz;
        if (ut == DW_UT_skeleton || ut == DW_UT_split_compile)
            die += 8;
        else if (ut == DW_UT_type || ut == DW_UT_split_type)
            die += 8 + osz;
    } else {
        return -1;
    }
    if (die > next || sec_need(s, next) != 0 || need_abbrev_table(lz, abbrev) != 0)
        return -1;
    if (lz->nunits == lz->units_cap) {
        size_t cap = lz->units_cap ? lz->units_cap * 2 : 256;
        uint64_t *a = realloc(lz->unit_start, cap * sizeof *a);
        if (!a)
            return -1;
        lz->unit_start = a;
        uint64_t *b = realloc(lz->unit_die, cap * sizeof *b);
        if (!b)
            return -1;
        lz->unit_die = b;
        lz->units_cap = cap;
    }
    lz->unit_start[lz->nunits] = at;
    lz->unit_die[lz->nunits] = die;
    lz->nunits++;
    lz->units_end = next;
    return 0;
}

int ct_dw_lazy_unit(struct ct_dw_lazy *lz, uint64_t off, uint64_t *unit_off, uint64_t *die_off)
{
    if (!lz->named[CT_LZ_INFO] || off >= lz->named[CT_LZ_INFO]->size)
        return -1;
    while (lz->units_end <= off)
        if (walk_unit(lz) != 0)
            return -1;
    size_t lo = 0, hi = lz->nunits; /* the last unit starting at or before off */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (lz->unit_start[mid] <= off)
            lo = mid;
        else
            hi = mid;
    }
    if (lz->nunits == 0 || lz->unit_start[lo] > off)
        return -1;
    if (unit_off)
        *unit_off = lz->unit_start[lo];
    if (die_off)
        *die_off = lz->unit_die[lo];
    return 0;
}

int ct_dw_lazy_line_table(struct ct_dw_lazy *lz, uint64_t stmt_list)
{
    struct lz_sec *s = lz->named[CT_LZ_LINE];
    if (!s || stmt_list >= s->size || sec_need(s, stmt_list + 12) != 0 ||
        !range_ok(stmt_list, 4, s->size))
        return -1;
    uint64_t len = rd(s->data + stmt_list, 4), hdr = 4;
    if (len == 0xffffffffu) {
        if (!range_ok(stmt_list, 12, s->size))
            return -1;
        len = rd(s->data + stmt_list + 4, 8);
        hdr = 12;
    }
    if (!range_ok(stmt_list + hdr, len, s->size))
        return -1;
    return sec_need(s, stmt_list + hdr + len);
}

/* ------------------------------------------------------------------ */
/* libdwarf's object access                                            */

static int m_section_info(void *obj, Dwarf_Half i, Dwarf_Obj_Access_Section *out, int *err)
{
    struct ct_dw_lazy *lz = obj;
    (void)err;
    if (i >= lz->shnum)
        return DW_DLV_NO_ENTRY;
    const struct lz_sec *s = &lz->secs[i];
    memset(out, 0, sizeof *out);
    out->addr = s->sh->sh_addr;
    out->type = s->sh->sh_type;
    out->size = s->raw && (s != lz->loclists || lz->loclists_shown) ? s->size : 0;
    out->name = s->name;
    out->link = s->sh->sh_link;
    out->info = s->sh->sh_info;
    out->entrysize = s->sh->sh_entsize;
    return DW_DLV_OK;
}

static Dwarf_Endianness m_byte_order(void *obj)
{
    (void)obj;
    return DW_OBJECT_LSB;
}

static Dwarf_Small m_length_size(void *obj)
{
    (void)obj;
    return 4;
}

static Dwarf_Small m_pointer_size(void *obj)
{
    (void)obj;
    return 8;
}

static Dwarf_Unsigned m_section_count(void *obj)
{
    return ((struct ct_dw_lazy *)obj)->shnum;
}

static int m_load_section(void *obj, Dwarf_Half i, Dwarf_Small **data, int *err)
{
    struct ct_dw_lazy *lz = obj;
    if (i >= lz->shnum || !lz->secs[i].raw)
        return DW_DLV_NO_ENTRY;
    struct lz_sec *s = &lz->secs[i];
    int lazy = 0;
    for (int k = 0; k < CT_LZ_NSEC; k++)
        lazy |= s == lz->named[k] && k != CT_LZ_ARANGES;
    if (lazy && s->compressed && !lz->plain) {
        /* Filled from the front by ct_dw_lazy_need; zeros until then. */
        if (!s->data && !(s->data = calloc(1, s->size + 1))) {
            *err = DW_DLE_ALLOC_FAIL;
            return DW_DLV_ERROR;
        }
    } else if (sec_need(s, s->size) != 0) {
        *err = DW_DLE_ZLIB_UNCOMPRESS_ERROR;
        return DW_DLV_ERROR;
    }
    *data = s->compressed ? s->data : (Dwarf_Small *)s->raw;
    return DW_DLV_OK;
}

static const Dwarf_Obj_Access_Methods lazy_methods = {
    m_section_info, m_byte_order, m_length_size, m_pointer_size,
    m_section_count, m_load_section, NULL,
};

/* libdwarf 20210528 keeps a global hook, set by its own ELF reader at every dwarf_init_path, that
 * its set-up of *any* object calls for each section's flags, passing that object as if it were
 * its ELF reader's (get_basic_section_data in dwarf_init_finish.c): with ours it reads garbage.
 * Our sections are served uncompressed and need no flags, so the hook is cleared while ours is
 * set up (the post-mortem opens modules one at a time, on one thread). Weak: a libdwarf without
 * the hook needs nothing. */
typedef int (*ct_elf_flags_hook)(void *, Dwarf_Half, Dwarf_Unsigned *, Dwarf_Unsigned *, int *);
extern ct_elf_flags_hook _dwarf_get_elf_flags_func_ptr __attribute__((weak));

int ct_dw_lazy_dwarf(struct ct_dw_lazy *lz, Dwarf_Debug *dbg, Dwarf_Error *e)
{
    ct_elf_flags_hook saved = NULL;
    lz->iface.object = lz;
    lz->iface.methods = &lazy_methods;
    if (&_dwarf_get_elf_flags_func_ptr) {
        saved = _dwarf_get_elf_flags_func_ptr;
        _dwarf_get_elf_flags_func_ptr = NULL;
    }
    int rc = dwarf_object_init_b(&lz->iface, NULL, NULL, DW_GROUPNUMBER_ANY, dbg, e);
    if (&_dwarf_get_elf_flags_func_ptr)
        _dwarf_get_elf_flags_func_ptr = saved;
    return rc == DW_DLV_OK ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* open / close                                                        */

/* The file mapped with its sections described: 0 and *out, 1 when plain and the file is for
 * libdwarf's own reader (an object file's relocations, GNU .zdebug sections), -1 on error. */
static int open_sections(const char *path, int plain, struct ct_dw_lazy **out)
{
    char err[8];
    const Elf64_Shdr *sh;
    struct ct_dw_lazy *lz = calloc(1, sizeof *lz);
    int rc = -1;
    *out = NULL;
    if (!lz || ct_elf_open(path, &lz->elf, err, sizeof err) != 0)
        goto fail;
    rc = 1;
    if (plain && ct_elf_is_object(lz->elf))
        goto fail;
    rc = -1;
    lz->shnum = ct_elf_sections(lz->elf, &sh);
    if (lz->shnum == 0 || !(lz->secs = calloc(lz->shnum, sizeof *lz->secs)))
        goto fail;
    for (size_t i = 0; i < lz->shnum; i++) {
        if (sec_init(lz, i) != 0)
            goto fail;
        if (plain && !strncmp(lz->secs[i].name, ".zdebug", 7)) {
            rc = 1;
            goto fail;
        }
        for (int k = 0; k < CT_LZ_NSEC; k++)
            if (!strcmp(lz->secs[i].name, lazy_names[k]) && lz->secs[i].raw)
                lz->named[k] = &lz->secs[i];
        if (!strcmp(lz->secs[i].name, ".debug_loclists") && lz->secs[i].raw)
            lz->loclists = &lz->secs[i];
    }
    lz->plain = plain;
    lz->loclists_shown = plain;
    *out = lz;
    return 0;
fail:
    ct_dw_lazy_close(lz);
    return rc;
}

int ct_dw_lazy_open(const char *path, struct ct_dw_lazy **out)
{
    struct ct_dw_lazy *lz;
    int rc = open_sections(path, 0, &lz);
    *out = NULL;
    if (rc != 0)
        return rc;
    if (!lz->named[CT_LZ_INFO] || !lz->named[CT_LZ_INFO]->compressed ||
        !lz->named[CT_LZ_ARANGES] || !lz->named[CT_LZ_ABBREV]) {
        ct_dw_lazy_close(lz);
        return 1;
    }
    *out = lz;
    return 0;
}

int ct_dw_lazy_open_plain(const char *path, struct ct_dw_lazy **out)
{
    return open_sections(path, 1, out);
}

const uint8_t *ct_dw_lazy_section(struct ct_dw_lazy *lz, const char *name, uint64_t *len)
{
    for (size_t i = 0; i < lz->shnum; i++) {
        struct lz_sec *s = &lz->secs[i];
        if (!s->raw || strcmp(s->name, name) != 0)
            continue;
        if (sec_need(s, s->size) != 0)
            return NULL;
        *len = s->size;
        return s->data;
    }
    return NULL;
}

int ct_dw_lazy_show_loclists(struct ct_dw_lazy *lz)
{
    lz->loclists_shown = 1;
    return lz->loclists != NULL;
}

void ct_dw_lazy_close(struct ct_dw_lazy *lz)
{
    if (!lz)
        return;
    for (size_t i = 0; lz->secs && i < lz->shnum; i++) {
        if (lz->secs[i].zs_live)
            inflateEnd(&lz->secs[i].zs);
        if (lz->secs[i].compressed)
            free(lz->secs[i].data);
    }
    free(lz->secs);
    free(lz->unit_start);
    free(lz->unit_die);
    ct_elf_close(lz->elf);
    free(lz);
}
