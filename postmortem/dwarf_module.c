/*
 * dwarf_module.c - opening a module's DWARF and symbolizing addresses.
 *
 * Algorithm:
 *  - ct_dwarf_open validates both files structurally (dwarf_elf.c), opens
 *    them with libdwarf, loads the CFI tables once, loads ELF function
 *    symbols, and builds the module index: every CU DIE's pc ranges,
 *    flattened into sorted, non-overlapping segments -> CU (a more specific
 *    range wins where ranges overlap).
 *  - On the first lookup that lands in a CU, that CU is loaded once: its
 *    line table becomes an array of rows with whole sequences sorted by
 *    start address (so one binary search finds the row for a pc), and a
 *    preorder walk of its DIEs collects subprogram/inlined_subroutine
 *    "scopes" (name, parent scope, call site) whose pc ranges are
 *    flattened into segments -> innermost scope (deepest DIE wins).
 *  - A lookup is then: binary search CU segment, binary search scope
 *    segment, binary search row, and a walk up the parent scopes.
 *
 * Invariants: a scope's parent index is smaller than its own (preorder),
 * so parent walks terminate; ranges outside the module's executable
 * sections are dropped (linker tombstones for discarded code); every
 * libdwarf object obtained here is released before return except those
 * owned by struct ct_dwarf, which ct_dwarf_close releases.
 */
#include <elf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_lazy.h"
#include "dwarf_module_internal.h"

#define CT_DW_CHUNK 65536

struct ct_dw_chunk {
    struct ct_dw_chunk *next;
    size_t used, cap;
    char data[];
};

/* Cached names of a DIE reached through a reference. */
struct ct_dw_name {
    Dwarf_Off off;
    int used;
    const char *plain;   /* DW_AT_name (section data) */
    const char *linkage; /* DW_AT_linkage_name (section data) */
    const char *display; /* what ct_dwarf_lookup reports */
};

/* A pc range tagged with what it belongs to and how specific it is. */
struct tagged_range {
    uint64_t lo, hi;
    int32_t idx;
    int64_t prio; /* higher wins where ranges overlap */
};

/* ------------------------------------------------------------------ */
/* small utilities                                                     */

const char *ct_dw_pool_strndup(struct ct_dw_pool *p, const char *s, size_t len)
{
    struct ct_dw_chunk *c = p->head;
    if (len > (SIZE_MAX >> 2))
        return NULL;
    if (!c || c->cap - c->used < len + 1) {
        size_t cap = len + 1 > CT_DW_CHUNK ? len + 1 : CT_DW_CHUNK;
        c = malloc(sizeof *c + cap);
        if (!c)
            return NULL;
        c->next = p->head;
        c->used = 0;
        c->cap = cap;
        p->head = c;
    }
    char *out = c->data + c->used;
    memcpy(out, s, len);
    out[len] = '\0';
    c->used += len + 1;
    return out;
}

void ct_dw_pool_free(struct ct_dw_pool *p)
{
    while (p->head) {
        struct ct_dw_chunk *next = p->head->next;
        free(p->head);
        p->head = next;
    }
}

int ct_dw_grow(void **arr, size_t *cap, size_t need, size_t size)
{
    size_t nc = *cap ? *cap : 16;
    void *p;
    if (need <= *cap)
        return 0;
    while (nc < need) {
        if (nc > SIZE_MAX / 4)
            return -1;
        nc *= 2;
    }
    if (nc > SIZE_MAX / size)
        return -1;
    p = realloc(*arr, nc * size);
    if (!p)
        return -1;
    *arr = p;
    *cap = nc;
    return 0;
}

int ct_dw_fail(struct ct_dwarf *d, Dwarf_Debug dbg, Dwarf_Error *e, const char *what)
{
    if (d) {
        if (e && *e)
            snprintf(d->last_err, sizeof d->last_err, "%s: %s", what, dwarf_errmsg(*e));
        else
            snprintf(d->last_err, sizeof d->last_err, "%s", what);
        /* Callers promise a one-line reason. */
        for (char *c = d->last_err; *c; c++)
            if (*c == '\n' || *c == '\r')
                *c = ' ';
    }
    if (e && *e) {
        dwarf_dealloc_error(dbg, *e);
        *e = NULL;
    }
    return -1;
}

/* ------------------------------------------------------------------ */
/* range flattening                                                    */

static int cmp_tagged_lo(const void *a, const void *b)
{
    const struct tagged_range *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Max-heap order: priority, then later index (deterministic ties). */
static int heap_above(const struct tagged_range *a, const struct tagged_range *b)
{
    return a->prio != b->prio ? a->prio > b->prio : a->idx > b->idx;
}

static void heap_push(struct tagged_range *h, size_t *n, struct tagged_range v)
{
    size_t i = (*n)++;
    while (i > 0 && heap_above(&v, &h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = v;
}

static void heap_pop(struct tagged_range *h, size_t *n)
{
    struct tagged_range last = h[--(*n)];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && heap_above(&h[c + 1], &h[c]))
            c++;
        if (!heap_above(&h[c], &last))
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n > 0)
        h[i] = last;
}

/* Appends [lo,hi)->idx to *segs, merging with an adjacent equal one. */
static int emit_seg(struct ct_dw_seg **segs, size_t *n, size_t *cap, uint64_t lo,
                    uint64_t hi, int32_t idx)
{
    if (*n > 0 && (*segs)[*n - 1].hi == lo && (*segs)[*n - 1].idx == idx) {
        (*segs)[*n - 1].hi = hi;
        return 0;
    }
    if (ct_dw_grow((void **)segs, cap, *n + 1, sizeof **segs) != 0)
        return -1;
    (*segs)[*n] = (struct ct_dw_seg){lo, hi, idx};
    (*n)++;
    return 0;
}

/* Turns possibly overlapping ranges into sorted disjoint segments where
 * each point maps to the covering range of highest priority: a sweep over
 * the sorted boundaries with a lazily pruned max-heap of open ranges.
 * Sorts r in place.  Returns 0 and *out (malloc'd) or -1 on OOM. */
static int flatten(struct tagged_range *r, size_t n, struct ct_dw_seg **out, size_t *nout)
{
    uint64_t *bounds = malloc((2 * n + 1) * sizeof *bounds);
    struct tagged_range *heap = malloc((n + 1) * sizeof *heap);
    size_t nb = 0, nh = 0, j = 0, cap = 0;
    int rc = 0;
    *out = NULL;
    *nout = 0;
    if (n == 0 || !bounds || !heap) {
        free(bounds);
        free(heap);
        return n == 0 ? 0 : -1;
    }
    qsort(r, n, sizeof *r, cmp_tagged_lo);
    for (size_t i = 0; i < n; i++) {
        bounds[nb++] = r[i].lo;
        bounds[nb++] = r[i].hi;
    }
    qsort(bounds, nb, sizeof *bounds, cmp_u64);
    for (size_t k = 0; k + 1 < nb && rc == 0; k++) {
        if (bounds[k] == bounds[k + 1])
            continue;
        while (j < n && r[j].lo <= bounds[k])
            heap_push(heap, &nh, r[j++]);
        while (nh > 0 && heap[0].hi <= bounds[k])
            heap_pop(heap, &nh);
        if (nh > 0)
            rc = emit_seg(out, nout, &cap, bounds[k], bounds[k + 1], heap[0].idx);
    }
    free(bounds);
    free(heap);
    if (rc != 0) {
        free(*out);
        *out = NULL;
        *nout = 0;
    }
    return rc;
}

/* Returns the segment containing pc, or NULL. */
static const struct ct_dw_seg *find_seg(const struct ct_dw_seg *s, size_t n, uint64_t pc)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].lo <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || pc >= s[lo - 1].hi)
        return NULL;
    return &s[lo - 1];
}

/* ------------------------------------------------------------------ */
/* DIE helpers                                                         */

int ct_dw_ref(struct ct_dwarf *d, Dwarf_Die die, Dwarf_Half at, Dwarf_Off *off)
{
    Dwarf_Attribute attr = NULL;
    Dwarf_Error e = NULL;
    int rc = dwarf_attr(die, at, &attr, &e);
    if (rc == DW_DLV_NO_ENTRY)
        return 1;
    if (rc != DW_DLV_OK)
        return ct_dw_fail(d, d->info, &e, "reading a DIE reference");
    rc = dwarf_global_formref(attr, off, &e);
    dwarf_dealloc_attribute(attr);
    if (rc != DW_DLV_OK)
        return ct_dw_fail(d, d->info, &e, "decoding a DIE reference");
    return 0;
}

/* Reads an unsigned constant attribute.  Returns 0, 1 if absent, -1. */
static int attr_udata(struct ct_dwarf *d, Dwarf_Die die, Dwarf_Half at, Dwarf_Unsigned *v)
{
    Dwarf_Attribute attr = NULL;
    Dwarf_Error e = NULL;
    int rc = dwarf_attr(die, at, &attr, &e);
    if (rc == DW_DLV_NO_ENTRY)
        return 1;
    if (rc != DW_DLV_OK)
        return ct_dw_fail(d, d->info, &e, "reading an attribute");
    Dwarf_Half form = 0;
    Dwarf_Signed sv = 0;
    rc = dwarf_whatform(attr, &form, &e);
    /* GCC puts call_file/call_line in DW_FORM_implicit_const, which only
     * the signed reader accepts. */
    if (rc == DW_DLV_OK && (form == DW_FORM_implicit_const || form == DW_FORM_sdata)) {
        rc = dwarf_formsdata(attr, &sv, &e);
        *v = sv < 0 ? 0 : (Dwarf_Unsigned)sv;
    } else if (rc == DW_DLV_OK) {
        rc = dwarf_formudata(attr, v, &e);
    }
    dwarf_dealloc_attribute(attr);
    if (rc != DW_DLV_OK)
        return ct_dw_fail(d, d->info, &e, "decoding a constant attribute");
    return 0;
}

/* Reads a section-offset attribute (DW_FORM_sec_offset or older data
 * forms).  Returns 0 or -1. */
static int attr_secoffset(struct ct_dwarf *d, Dwarf_Attribute attr, Dwarf_Unsigned *v)
{
    Dwarf_Error e = NULL;
    Dwarf_Off off = 0;
    if (dwarf_global_formref(attr, &off, &e) == DW_DLV_OK) {
        *v = off;
        return 0;
    }
    ct_dw_fail(NULL, d->info, &e, "");
    if (dwarf_formudata(attr, v, &e) == DW_DLV_OK)
        return 0;
    return ct_dw_fail(d, d->info, &e, "decoding a section offset");
}

/* Returns 1 if addr lies in an executable section (or none are known).
 * Linkers leave discarded functions' DWARF at tombstone addresses (0,
 * -1, ...) that would otherwise shadow real code. */
static int in_exec(const struct ct_dwarf *d, uint64_t addr)
{
    if (d->nexec == 0)
        return 1;
    for (size_t i = 0; i < d->nexec; i++)
        if (addr >= d->exec[i].lo && addr < d->exec[i].hi)
            return 1;
    return 0;
}

/* Adds [lo,hi) to the vector if non-empty and inside executable code.
 * Returns 0 or -1 on OOM. */
static int push_range(struct ct_dwarf *d, uint64_t lo, uint64_t hi, struct ct_dw_range **v,
                      size_t *n, size_t *cap)
{
    if (lo >= hi || !in_exec(d, lo))
        return 0;
    if (ct_dw_grow((void **)v, cap, *n + 1, sizeof **v) != 0)
        return ct_dw_fail(d, NULL, NULL, "out of memory");
    (*v)[*n].lo = lo;
    (*v)[*n].hi = hi;
    (*n)++;
    return 0;
}

/* DWARF 5 DW_AT_ranges: .debug_rnglists through libdwarf's cooked
 * (absolute) addresses.  Returns 0 or -1. */
static int ranges_v5(struct ct_dwarf *d, Dwarf_Attribute attr, struct ct_dw_range **v,
                     size_t *n, size_t *cap)
{
    Dwarf_Error e = NULL;
    Dwarf_Half form = 0;
    Dwarf_Unsigned val = 0, count = 0, goff = 0;
    Dwarf_Rnglists_Head head = NULL;
    int rc = 0;
    if (dwarf_whatform(attr, &form, &e) != DW_DLV_OK)
        return ct_dw_fail(d, d->info, &e, "reading DW_AT_ranges form");
    if (form == DW_FORM_rnglistx ? dwarf_formudata(attr, &val, &e) != DW_DLV_OK
                                 : attr_secoffset(d, attr, &val) != 0)
        return ct_dw_fail(d, d->info, &e, "decoding DW_AT_ranges");
    if (dwarf_rnglists_get_rle_head(attr, form, val, &head, &count, &goff, &e) != DW_DLV_OK)
        return ct_dw_fail(d, d->info, &e, "reading .debug_rnglists");
    for (Dwarf_Unsigned i = 0; i < count && rc == 0; i++) {
        unsigned len = 0, code = 0;
        Dwarf_Unsigned r1, r2, c1, c2;
        Dwarf_Bool unavail = 0;
        if (dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &r1, &r2, &unavail, &c1,
                                              &c2, &e) != DW_DLV_OK) {
            rc = ct_dw_fail(d, d->info, &e, "decoding .debug_rnglists entry");
            break;
        }
        if (code == DW_RLE_end_of_list)
            break;
        if (code == DW_RLE_base_address || code == DW_RLE_base_addressx || unavail)
            continue;
        rc = push_range(d, c1, c2, v, n, cap);
    }
    dwarf_dealloc_rnglists_head(head);
    return rc;
}

/* DWARF 2-4 DW_AT_ranges: .debug_ranges, relative to the CU base unless
 * a base-address-selection entry says otherwise.  Returns 0 or -1. */
static int ranges_v4(struct ct_dwarf *d, Dwarf_Die die, Dwarf_Attribute attr, uint64_t base,
                     struct ct_dw_range **v, size_t *n, size_t *cap)
{
    Dwarf_Error e = NULL;
    Dwarf_Unsigned off = 0, bytes = 0;
    Dwarf_Off real = 0;
    Dwarf_Ranges *r = NULL;
    Dwarf_Signed cnt = 0;
    int rc = 0;
    if (attr_secoffset(d, attr, &off) != 0)
        return -1;
    if (dwarf_get_ranges_b(d->info, off, die, &real, &r, &cnt, &bytes, &e) != DW_DLV_OK)
        return ct_dw_fail(d, d->info, &e, "reading .debug_ranges");
    for (Dwarf_Signed i = 0; i < cnt && rc == 0; i++) {
        if (r[i].dwr_type == DW_RANGES_END)
            break;
        if (r[i].dwr_type == DW_RANGES_ADDRESS_SELECTION)
            base = r[i].dwr_addr2;
        else
            rc = push_range(d, base + r[i].dwr_addr1, base + r[i].dwr_addr2, v, n, cap);
    }
    dwarf_ranges_dealloc(d->info, r, cnt);
    return rc;
}

/* DW_AT_ranges of die, by the DWARF version of its CU. */
static int die_ranges_attr(struct ct_dwarf *d, Dwarf_Die die, Dwarf_Attribute attr,
                           uint64_t base, struct ct_dw_range **v, size_t *n, size_t *cap)
{
    Dwarf_Error e = NULL;
    Dwarf_Half version = 0, offsize = 0;
    if (dwarf_get_version_of_die(die, &version, &offsize) != DW_DLV_OK)
        return ct_dw_fail(d, d->info, &e, "reading the DWARF version of a DIE");
    if (version >= 5)
        return ranges_v5(d, attr, v, n, cap);
    return ranges_v4(d, die, attr, base, v, n, cap);
}

int ct_dw_die_ranges(struct ct_dwarf *d, Dwarf_Die die, uint64_t cu_base,
                     struct ct_dw_range **v, size_t *n, size_t *cap)
{
    Dwarf_Error e = NULL;
    Dwarf_Addr lo = 0, hi = 0;
    Dwarf_Half form = 0;
    enum Dwarf_Form_Class cls = DW_FORM_CLASS_UNKNOWN;
    Dwarf_Attribute attr = NULL;
    int rc = dwarf_lowpc(die, &lo, &e);
    if (rc == DW_DLV_ERROR)
        return ct_dw_fail(d, d->info, &e, "reading DW_AT_low_pc");
    if (rc == DW_DLV_OK) {
        rc = dwarf_highpc_b(die, &hi, &form, &cls, &e);
        if (rc == DW_DLV_ERROR)
            return ct_dw_fail(d, d->info, &e, "reading DW_AT_high_pc");
        if (rc == DW_DLV_OK) {
            if (cls == DW_FORM_CLASS_CONSTANT)
                hi = hi > UINT64_MAX - lo ? UINT64_MAX : lo + hi;
            return push_range(d, lo, hi, v, n, cap) == 0 ? 1 : -1;
        }
        /* low_pc without high_pc: a CU base address next to DW_AT_ranges,
         * or a bare entry point covering nothing. */
    }
    rc = dwarf_attr(die, DW_AT_ranges, &attr, &e);
    if (rc == DW_DLV_NO_ENTRY)
        return 0;
    if (rc == DW_DLV_ERROR)
        return ct_dw_fail(d, d->info, &e, "reading DW_AT_ranges");
    rc = die_ranges_attr(d, die, attr, cu_base, v, n, cap);
    dwarf_dealloc_attribute(attr);
    return rc == 0 ? 1 : -1;
}

/* Advances the walk stack to the next DIE in preorder after the subtree
 * of st[*depth].  Returns 0 (possibly with *depth < 0: walk done) or -1. */
struct walk_slot {
    Dwarf_Die die;
    Dwarf_Off off;
    int64_t ptok;
};

static int walk_next(struct ct_dwarf *d, struct walk_slot *st, int *depth)
{
    Dwarf_Error e = NULL;
    while (*depth >= 0) {
        struct walk_slot *s = &st[*depth];
        Dwarf_Die sib = NULL;
        Dwarf_Off off = 0;
        int rc = dwarf_siblingof_b(d->info, s->die, 1, &sib, &e);
        if (rc == DW_DLV_ERROR)
            return ct_dw_fail(d, d->info, &e, "reading DIE sibling");
        if (rc == DW_DLV_OK) {
            rc = dwarf_dieoffset(sib, &off, &e);
            if (rc != DW_DLV_OK || off <= s->off) {
                dwarf_dealloc_die(sib);
                return ct_dw_fail(d, d->info, &e, "DIE sibling chain is corrupt");
            }
            dwarf_dealloc_die(s->die);
            s->die = sib;
            s->off = off;
            return 0;
        }
        dwarf_dealloc_die(s->die);
        s->die = NULL;
        (*depth)--;
    }
    return 0;
}

/* Pushes the first child of st[*depth] (or of root when *depth is -1).
 * Returns 1 if pushed, 0 if there is none, -1 on error. */
static int walk_child(struct ct_dwarf *d, Dwarf_Die parent, Dwarf_Off parent_off,
                      struct walk_slot *st, int *depth, int64_t tok)
{
    Dwarf_Error e = NULL;
    Dwarf_Die child = NULL;
    Dwarf_Off off = 0;
    int rc = dwarf_child(parent, &child, &e);
    if (rc == DW_DLV_NO_ENTRY)
        return 0;
    if (rc != DW_DLV_OK)
        return ct_dw_fail(d, d->info, &e, "reading DIE children");
    rc = dwarf_dieoffset(child, &off, &e);
    if (rc != DW_DLV_OK || off <= parent_off) {
        dwarf_dealloc_die(child);
        return ct_dw_fail(d, d->info, &e, "DIE child offset is corrupt");
    }
    (*depth)++;
    st[*depth] = (struct walk_slot){child, off, tok};
    return 1;
}

int ct_dw_walk(struct ct_dwarf *d, Dwarf_Die root, ct_dw_visit_fn visit, void *arg,
               int64_t root_tok)
{
    struct walk_slot st[CT_DW_MAX_DIE_DEPTH];
    Dwarf_Error e = NULL;
    Dwarf_Off root_off = 0;
    int depth = -1, ret = 0;
    if (dwarf_dieoffset(root, &root_off, &e) != DW_DLV_OK)
        return ct_dw_fail(d, d->info, &e, "reading DIE offset");
    if (walk_child(d, root, root_off, st, &depth, root_tok) < 0)
        return -1;
    while (depth >= 0) {
        struct walk_slot *s = &st[depth];
        Dwarf_Half tag = 0;
        int64_t tok = s->ptok;
        int r;
        if (dwarf_tag(s->die, &tag, &e) != DW_DLV_OK) {
            ret = ct_dw_fail(d, d->info, &e, "reading DIE tag");
            break;
        }
        r = visit(arg, s->die, tag, depth, &tok);
        if (r < 0) {
            ret = -1;
            break;
        }
        if (r > 0 && depth + 1 < CT_DW_MAX_DIE_DEPTH) {
            r = walk_child(d, s->die, s->off, st, &depth, tok);
            if (r < 0) {
                ret = -1;
                break;
            }
            if (r > 0)
                continue;
        }
        if (walk_next(d, st, &depth) != 0) {
            ret = -1;
            break;
        }
    }
    for (; depth >= 0; depth--)
        dwarf_dealloc_die(st[depth].die);
    return ret;
}

/* ------------------------------------------------------------------ */
/* names                                                               */

/* Returns the display form: the plain name (DW_AT_name: "readToken", as debuggers show a
 * frame), else the raw linkage name, else NULL. */
static const char *display_name(const char *plain, const char *linkage)
{
    return plain ? plain : linkage;
}

static struct ct_dw_name *names_for_off(struct ct_dwarf *d, Dwarf_Off off, int hops);

/* Collects DW_AT_name / linkage name of die, following abstract_origin or
 * specification (bounded) for whichever is missing. */
static void die_names(struct ct_dwarf *d, Dwarf_Die die, int hops, const char **plain,
                      const char **linkage)
{
    Dwarf_Error e = NULL;
    char *s = NULL;
    Dwarf_Off ref = 0;
    *plain = *linkage = NULL;
    if (dwarf_diename(die, &s, &e) == DW_DLV_OK)
        *plain = s;
    ct_dw_fail(NULL, d->info, &e, "");
    if (dwarf_die_text(die, DW_AT_linkage_name, &s, &e) == DW_DLV_OK)
        *linkage = s;
    ct_dw_fail(NULL, d->info, &e, "");
    if (!*linkage && dwarf_die_text(die, DW_AT_MIPS_linkage_name, &s, &e) == DW_DLV_OK)
        *linkage = s;
    ct_dw_fail(NULL, d->info, &e, "");
    if ((*plain && *linkage) || hops >= CT_DW_MAX_REF_HOPS)
        return;
    if (ct_dw_ref(d, die, DW_AT_abstract_origin, &ref) != 0 &&
        ct_dw_ref(d, die, DW_AT_specification, &ref) != 0)
        return;
    struct ct_dw_name *n = names_for_off(d, ref, hops + 1);
    if (n && !*plain)
        *plain = n->plain;
    if (n && !*linkage)
        *linkage = n->linkage;
}

/* Finds or creates the cache slot for off.  Returns NULL on OOM. */
static struct ct_dw_name *names_slot(struct ct_dwarf *d, Dwarf_Off off)
{
    if (d->names_used * 2 >= d->names_cap) {
        size_t ncap = d->names_cap ? d->names_cap * 2 : 1024;
        struct ct_dw_name *nt = calloc(ncap, sizeof *nt);
        if (!nt)
            return NULL;
        for (size_t i = 0; i < d->names_cap; i++) {
            if (!d->names[i].used)
                continue;
            size_t h = (size_t)(d->names[i].off * 0x9E3779B97F4A7C15ull) & (ncap - 1);
            while (nt[h].used)
                h = (h + 1) & (ncap - 1);
            nt[h] = d->names[i];
        }
        free(d->names);
        d->names = nt;
        d->names_cap = ncap;
    }
    size_t h = (size_t)(off * 0x9E3779B97F4A7C15ull) & (d->names_cap - 1);
    while (d->names[h].used && d->names[h].off != off)
        h = (h + 1) & (d->names_cap - 1);
    return &d->names[h];
}

/* Names of the DIE at global offset off, cached.  NULL if unreadable. */
static struct ct_dw_name *names_for_off(struct ct_dwarf *d, Dwarf_Off off, int hops)
{
    Dwarf_Error e = NULL;
    Dwarf_Die die = NULL;
    const char *plain, *linkage;
    struct ct_dw_name *n = names_slot(d, off);
    if (!n || n->used)
        return n;
    if (ct_dw_offdie(d, off, &die, &e) != DW_DLV_OK) {
        ct_dw_fail(d, d->info, &e, "reading a referenced DIE");
        return NULL;
    }
    die_names(d, die, hops, &plain, &linkage);
    dwarf_dealloc_die(die);
    /* die_names may have grown the table: look the slot up again. */
    n = names_slot(d, off);
    if (!n)
        return NULL;
    if (!n->used) {
        n->used = 1;
        n->off = off;
        n->plain = plain;
        n->linkage = linkage;
        n->display = display_name(plain, linkage);
        d->names_used++;
    }
    return n;
}

/* Display name of a scope DIE.  Inlined instances carry no names of their
 * own, so the (cached) abstract origin usually answers. */
static const char *scope_name(struct ct_dwarf *d, Dwarf_Die die)
{
    const char *plain = NULL, *linkage = NULL;
    Dwarf_Error e = NULL;
    Dwarf_Bool has = 0;
    Dwarf_Off ref = 0;
    if (dwarf_hasattr(die, DW_AT_name, &has, &e) == DW_DLV_OK && !has &&
        ct_dw_ref(d, die, DW_AT_abstract_origin, &ref) == 0) {
        struct ct_dw_name *n = names_for_off(d, ref, 1);
        return n ? n->display : NULL;
    }
    ct_dw_fail(NULL, d->info, &e, "");
    die_names(d, die, 0, &plain, &linkage);
    return display_name(plain, linkage);
}

/* ------------------------------------------------------------------ */
/* per-CU loading: files and lines                                     */

struct cu_files {
    const char **names;
    Dwarf_Signed count;
    unsigned base; /* file number of names[0]: 0 in DWARF 5, 1 before */
    int same_0_1;  /* entries 0 and 1 name the same file (GCC's DWARF 5) */
};

static const char *base_of(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : p;
}

/* Maps a DWARF file number to its path, or NULL. */
static const char *file_name(const struct cu_files *f, Dwarf_Unsigned num)
{
    if (num < f->base || num - f->base >= (Dwarf_Unsigned)f->count)
        return NULL;
    return f->names[num - f->base];
}

/* Lazy debug file: makes the unit's line table readable before libdwarf reads it.  Returns 0,
 * or -1 when the unit has none or it is malformed. */
static int lazy_line_table(struct ct_dwarf *d, Dwarf_Die cu_die)
{
    Dwarf_Error e = NULL;
    Dwarf_Attribute attr = NULL;
    Dwarf_Unsigned off = 0;
    int rc = dwarf_attr(cu_die, DW_AT_stmt_list, &attr, &e);
    if (rc == DW_DLV_ERROR)
        dwarf_dealloc_error(d->info, e);
    if (rc != DW_DLV_OK)
        return -1;
    rc = attr_secoffset(d, attr, &off);
    dwarf_dealloc_attribute(attr);
    return rc == 0 ? ct_dw_lazy_line_table(d->lazy, off) : -1;
}

/* Loads the CU's file table into the pool.  Returns 0 (possibly empty)
 * or -1 on OOM. */
static int load_files(struct ct_dwarf *d, Dwarf_Die cu_die, struct cu_files *f)
{
    Dwarf_Error e = NULL;
    char **list = NULL;
    Dwarf_Signed cnt = 0;
    Dwarf_Half version = 0, offsize = 0;
    int rc = 0;
    memset(f, 0, sizeof *f);
    if (dwarf_get_version_of_die(cu_die, &version, &offsize) == DW_DLV_OK && version >= 5)
        f->base = 0;
    else
        f->base = 1;
    if (d->lazy && lazy_line_table(d, cu_die) != 0)
        return 0; /* no readable line table: no files, no rows */
    if (dwarf_srcfiles(cu_die, &list, &cnt, &e) != DW_DLV_OK) {
        ct_dw_fail(d, d->info, &e, "reading the file table");
        return 0;
    }
    f->names = calloc(cnt > 0 ? (size_t)cnt : 1, sizeof *f->names);
    for (Dwarf_Signed i = 0; i < cnt; i++) {
        if (f->names && list[i])
            f->names[i] = ct_dw_pool_strndup(&d->pool, list[i], strlen(list[i]));
        dwarf_dealloc(d->info, list[i], DW_DLA_STRING);
    }
    dwarf_dealloc(d->info, list, DW_DLA_LIST);
    if (f->names)
        f->count = cnt;
    else
        rc = -1;
    if (f->names && cnt > 1 && f->names[0] && f->names[1])
        f->same_0_1 = strcmp(base_of(f->names[0]), base_of(f->names[1])) == 0;
    return rc;
}

/* Reads one line row.  Returns 0 or -1. */
static int read_row(struct ct_dwarf *d, Dwarf_Line ln, const struct cu_files *files,
                    struct ct_line_row *row)
{
    Dwarf_Error e = NULL;
    Dwarf_Addr addr = 0;
    Dwarf_Unsigned line = 0, col = 0, fno = 0;
    Dwarf_Bool end = 0, prologue_end = 0, epilogue_begin = 0;
    Dwarf_Unsigned isa = 0, discriminator = 0;
    if (dwarf_lineaddr(ln, &addr, &e) != DW_DLV_OK || dwarf_lineno(ln, &line, &e) != DW_DLV_OK ||
        dwarf_lineoff_b(ln, &col, &e) != DW_DLV_OK ||
        dwarf_line_srcfileno(ln, &fno, &e) != DW_DLV_OK ||
        dwarf_lineendsequence(ln, &end, &e) != DW_DLV_OK)
        return ct_dw_fail(d, d->info, &e, "decoding a line table row");
    /* libdwarf 20210528 starts the DWARF 5 file register at 0 instead of
     * 1, so rows before the first DW_LNS_set_file report file 0.  GCC
     * duplicates the primary file as entry 1, and its rows mean entry 1;
     * clang selects entry 0 explicitly (DW_LNS_set_file 0) and its entry 1
     * is some other file (often a header).  So 0 becomes 1 only where
     * both entries name the same file. */
    if (files->base == 0 && fno == 0 && files->same_0_1)
        fno = 1;
    row->addr = addr;
    row->file = file_name(files, fno);
    row->line = line > UINT32_MAX ? UINT32_MAX : (uint32_t)line;
    row->column = col > UINT16_MAX ? UINT16_MAX : (uint16_t)col;
    row->end_seq = end ? 1 : 0;
    /* Optional: a row whose flags cannot be read is simply not a prologue end. */
    if (dwarf_prologue_end_etc(ln, &prologue_end, &epilogue_begin, &isa, &discriminator, &e) ==
        DW_DLV_ERROR)
        dwarf_dealloc_error(d->info, e);
    row->prologue_end = prologue_end ? 1 : 0;
    /* libdwarf 20210528 reports a row with DW_LNS_set_epilogue_begin (clang 19 emits them) as
     * the end of its sequence, which would cut the function's rows there; an end_sequence
     * row never carries the flag (DW_LNE_end_sequence resets the registers). */
    if (epilogue_begin)
        row->end_seq = 0;
    row->discriminator = discriminator > UINT32_MAX ? UINT32_MAX : (uint32_t)discriminator;
    return 0;
}

/* Section `name` of the file whose .debug_info is indexed: in place when that file is mapped,
 * else a copy (ct_dwarf_close frees it). */
static const char *info_section(struct ct_dwarf *d, const char *name, size_t *len)
{
    if (d->info_map) {
        uint64_t n = 0;
        const char *p = (const char *)ct_dw_lazy_section(d->info_map, name, &n);
        *len = (size_t)n;
        return p;
    }
    return ct_dw_elf_read_section(d->info_path, name, len);
}

struct seq {
    uint64_t start;
    size_t first, count;
};

static int cmp_seq(const void *a, const void *b)
{
    const struct seq *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->first > y->first) - (x->first < y->first);
}

/* Reorders rows so whole sequences are sorted by start address and drops
 * sequences that start outside executable code (discarded functions).
 * Rows within a sequence keep their order (the last of equal addresses
 * is the one that applies).  Returns 0 or -1 on OOM. */
static int sort_sequences(struct ct_dwarf *d, struct ct_line_row **rows, size_t *n)
{
    struct seq *seqs = NULL;
    size_t nseq = 0, cap = 0, start = 0, out = 0;
    struct ct_line_row *sorted;
    for (size_t i = 0; i < *n; i++) {
        if (!(*rows)[i].end_seq && i + 1 < *n)
            continue;
        if (in_exec(d, (*rows)[start].addr)) {
            if (ct_dw_grow((void **)&seqs, &cap, nseq + 1, sizeof *seqs) != 0) {
                free(seqs);
                return -1;
            }
            seqs[nseq++] = (struct seq){(*rows)[start].addr, start, i + 1 - start};
        }
        start = i + 1;
    }
    int in_order = 1;
    for (size_t s = 1; s < nseq && in_order; s++)
        in_order = cmp_seq(&seqs[s - 1], &seqs[s]) < 0;
    if (in_order) {
        /* The usual case (one text section, or sections laid out as compiled): no copy of what
         * can be megabytes of rows, only dropped sequences squeezed out, in place. */
        for (size_t s = 0; s < nseq; s++) {
            if (seqs[s].first != out)
                memmove(&(*rows)[out], &(*rows)[seqs[s].first], seqs[s].count * sizeof **rows);
            out += seqs[s].count;
        }
        free(seqs);
        *n = out;
        return 0;
    }
    qsort(seqs, nseq, sizeof *seqs, cmp_seq);
    sorted = malloc((*n ? *n : 1) * sizeof *sorted);
    if (!sorted) {
        free(seqs);
        return -1;
    }
    for (size_t s = 0; s < nseq; s++) {
        memcpy(&sorted[out], &(*rows)[seqs[s].first], seqs[s].count * sizeof *sorted);
        out += seqs[s].count;
    }
    free(seqs);
    free(*rows);
    *rows = sorted;
    *n = out;
    return 0;
}

/* Decodes the CU's line program with dwarf_lines.c, from the .debug_line of the file whose
 * .debug_info is indexed (read once).  Returns 0 with cu->rows, or -1 when it cannot (no
 * DW_AT_stmt_list, a compressed section, a program it does not decode): libdwarf then does. */
static int decode_lines(struct ct_dwarf *d, struct ct_dw_cu *cu, Dwarf_Die cu_die,
                        const struct cu_files *files)
{
    Dwarf_Error e = NULL;
    Dwarf_Attribute attr = NULL;
    Dwarf_Unsigned off = 0;
    const uint8_t *sec = (const uint8_t *)d->line_sec;
    uint64_t sec_len = d->line_len;
    if (d->lazy) {
        /* Inflated as far as this unit's table by load_files (lazy_line_table). */
        sec = ct_dw_lazy_need(d->lazy, CT_LZ_LINE, 0, &sec_len);
    } else if (!d->line_tried) {
        d->line_tried = 1;
        if (d->info_path)
            d->line_sec = info_section(d, ".debug_line", &d->line_len);
        sec = (const uint8_t *)d->line_sec;
        sec_len = d->line_len;
    }
    if (!sec)
        return -1;
    int rc = dwarf_attr(cu_die, DW_AT_stmt_list, &attr, &e);
    if (rc == DW_DLV_OK) {
        rc = attr_secoffset(d, attr, &off) == 0 ? DW_DLV_OK : DW_DLV_ERROR;
        dwarf_dealloc_attribute(attr);
    } else if (rc == DW_DLV_ERROR) {
        dwarf_dealloc_error(d->info, e);
    }
    if (rc != DW_DLV_OK)
        return -1;
    struct ct_dw_line_files lf = {files->names, files->count > 0 ? (size_t)files->count : 0,
                                  files->base};
    return ct_dw_decode_lines(sec, (size_t)sec_len, off, &lf, &cu->rows, &cu->nrows);
}

/* Reads the CU's line table with libdwarf, in program order.  A CU without one gets no rows.
 * Returns 0, or -1 on malformed data / OOM. */
static int libdwarf_lines(struct ct_dwarf *d, struct ct_dw_cu *cu, Dwarf_Die cu_die,
                          const struct cu_files *files)
{
    Dwarf_Error e = NULL;
    Dwarf_Unsigned version = 0;
    Dwarf_Small tables = 0;
    Dwarf_Line_Context lctx = NULL;
    Dwarf_Line *lines = NULL;
    Dwarf_Signed count = 0;
    int rc = dwarf_srclines_b(cu_die, &version, &tables, &lctx, &e);
    if (rc == DW_DLV_NO_ENTRY)
        return 0;
    if (rc != DW_DLV_OK)
        return ct_dw_fail(d, d->info, &e, "reading the line table header");
    rc = 0;
    if (tables == 1 &&
        dwarf_srclines_from_linecontext(lctx, &lines, &count, &e) != DW_DLV_OK)
        rc = ct_dw_fail(d, d->info, &e, "reading the line table");
    if (rc == 0 && count > 0) {
        cu->rows = malloc((size_t)count * sizeof *cu->rows);
        if (!cu->rows)
            rc = ct_dw_fail(d, NULL, NULL, "out of memory");
        else
            for (Dwarf_Signed i = 0; rc == 0 && i < count; i++)
                rc = read_row(d, lines[i], files, &cu->rows[i]);
        cu->nrows = rc == 0 ? (size_t)count : 0;
    }
    dwarf_srclines_dealloc_b(lctx);
    return rc;
}

/* Loads and sorts the CU's line table: dwarf_lines.c's decoding, else libdwarf's.  Returns 0,
 * or -1 on malformed data / OOM (then the CU has no rows). */
static int load_lines(struct ct_dwarf *d, struct ct_dw_cu *cu, Dwarf_Die cu_die,
                      const struct cu_files *files)
{
    int rc = decode_lines(d, cu, cu_die, files) == 0 ? 0 : libdwarf_lines(d, cu, cu_die, files);
    if (rc == 0 && sort_sequences(d, &cu->rows, &cu->nrows) != 0)
        rc = ct_dw_fail(d, NULL, NULL, "out of memory");
    if (rc != 0) {
        free(cu->rows);
        cu->rows = NULL;
        cu->nrows = 0;
    }
    return rc;
}

/* The number of leading elements of a sorted array (n elements of `size` bytes, each with a
 * uint64_t key at byte offset `off`) whose key is below `key`, or with or_equal at most `key`:
 * the binary search behind every address lookup here. */
static size_t keys_below(const void *base, size_t n, size_t size, size_t off, uint64_t key,
                         int or_equal)
{
    const char *p = base;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t k;
        memcpy(&k, p + mid * size + off, sizeof k);
        if (k < key || (or_equal && k == key))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The index of the CU's first row at or after addr (nrows if none). */
static size_t first_row_at(const struct ct_dw_cu *cu, uint64_t addr)
{
    return keys_below(cu->rows, cu->nrows, sizeof *cu->rows, offsetof(struct ct_line_row, addr),
                      addr, 0);
}

/* Returns the row that applies at pc, or NULL (no row, or pc after the
 * end of a sequence). */
static const struct ct_line_row *find_row(const struct ct_dw_cu *cu, uint64_t pc)
{
    size_t lo = keys_below(cu->rows, cu->nrows, sizeof *cu->rows,
                           offsetof(struct ct_line_row, addr), pc, 1);
    if (lo == 0 || cu->rows[lo - 1].end_seq)
        return NULL;
    return &cu->rows[lo - 1];
}

/* ------------------------------------------------------------------ */
/* per-CU loading: scopes                                              */

struct scope_build {
    struct ct_dwarf *d;
    struct ct_dw_cu *cu;
    const struct cu_files *files;
    size_t scope_cap;
    struct tagged_range *ranges;
    size_t nranges, ranges_cap;
    struct ct_dw_range *tmp;
    size_t ntmp, tmp_cap;
};

/* Fills call-site fields of an inlined scope.  Returns 0 or -1. */
static int scope_call_site(struct scope_build *b, Dwarf_Die die, struct ct_dw_scope *s)
{
    Dwarf_Unsigned file = 0, line = 0, col = 0;
    if (attr_udata(b->d, die, DW_AT_call_file, &file) < 0 ||
        attr_udata(b->d, die, DW_AT_call_line, &line) < 0 ||
        attr_udata(b->d, die, DW_AT_call_column, &col) < 0)
        return -1;
    s->call_file = file_name(b->files, file);
    s->call_line = line > UINT32_MAX ? UINT32_MAX : (uint32_t)line;
    s->call_column = col > UINT32_MAX ? UINT32_MAX : (uint32_t)col;
    return 0;
}

/* Whether a DIE other than a function may hold functions, inlined calls or call sites among
 * its children (the walks descend into these). */
static int holds_code_scopes(Dwarf_Half tag)
{
    return tag == DW_TAG_lexical_block || tag == DW_TAG_namespace || tag == DW_TAG_module ||
           tag == DW_TAG_try_block || tag == DW_TAG_catch_block;
}

/* Visitor: records subprograms and inlined subroutines that own code. */
static int scope_visit(void *arg, Dwarf_Die die, Dwarf_Half tag, int depth, int64_t *tok)
{
    struct scope_build *b = arg;
    struct ct_dwarf *d = b->d;
    struct ct_dw_cu *cu = b->cu;
    Dwarf_Error e = NULL;
    int rc;
    if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
        return holds_code_scopes(tag);
    b->ntmp = 0;
    rc = ct_dw_die_ranges(d, die, cu->base, &b->tmp, &b->ntmp, &b->tmp_cap);
    if (rc < 0)
        return -1;
    if (b->ntmp == 0)
        return 0; /* declaration or abstract instance: no code inside */
    if (ct_dw_grow((void **)&cu->scopes, &b->scope_cap, cu->nscopes + 1, sizeof *cu->scopes) ||
        ct_dw_grow((void **)&b->ranges, &b->ranges_cap, b->nranges + b->ntmp,
                   sizeof *b->ranges))
        return ct_dw_fail(d, NULL, NULL, "out of memory");
    struct ct_dw_scope *s = &cu->scopes[cu->nscopes];
    memset(s, 0, sizeof *s);
    if (dwarf_dieoffset(die, &s->die, &e) != DW_DLV_OK)
        return ct_dw_fail(d, d->info, &e, "reading DIE offset");
    s->parent = (int32_t)*tok;
    s->kind = tag == DW_TAG_subprogram ? CT_SCOPE_SUBPROGRAM : CT_SCOPE_INLINED;
    s->name = scope_name(d, die);
    if (s->kind == CT_SCOPE_INLINED && scope_call_site(b, die, s) != 0)
        return -1;
    for (size_t i = 0; i < b->ntmp; i++)
        b->ranges[b->nranges++] =
            (struct tagged_range){b->tmp[i].lo, b->tmp[i].hi, (int32_t)cu->nscopes, depth};
    *tok = (int64_t)cu->nscopes++;
    return 1;
}

/* Builds cu->scopes and cu->segs.  Returns 0 or -1. */
static int load_scopes(struct ct_dwarf *d, struct ct_dw_cu *cu, Dwarf_Die cu_die,
                       const struct cu_files *files)
{
    struct scope_build b = {.d = d, .cu = cu, .files = files};
    int rc = ct_dw_walk(d, cu_die, scope_visit, &b, -1);
    if (rc == 0 && cu->nscopes > INT32_MAX - 1)
        rc = ct_dw_fail(d, NULL, NULL, "too many functions in one CU");
    if (rc == 0 && flatten(b.ranges, b.nranges, &cu->segs, &cu->nsegs) != 0)
        rc = ct_dw_fail(d, NULL, NULL, "out of memory");
    free(b.ranges);
    free(b.tmp);
    if (rc != 0) {
        free(cu->scopes);
        cu->scopes = NULL;
        cu->nscopes = 0;
    }
    return rc;
}

/* ------------------------------------------------------------------ */
/* per-CU loading: call sites                                          */

struct call_build {
    struct ct_dwarf *d;
    struct ct_dw_cu *cu;
    size_t cap;
};

/* Visitor of the libdwarf fallback: the return address of a call-site DIE (DW_AT_call_return_pc;
 * DW_AT_low_pc in the GNU extension of DWARF 4); one without is skipped. */
static int call_visit(void *arg, Dwarf_Die die, Dwarf_Half tag, int depth, int64_t *tok)
{
    struct call_build *b = arg;
    Dwarf_Error e = NULL;
    Dwarf_Addr ret = 0;
    Dwarf_Attribute attr = NULL;
    int rc;
    (void)depth;
    (void)tok;
    if (tag != DW_TAG_call_site && tag != DW_TAG_GNU_call_site)
        return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
               holds_code_scopes(tag);
    if (tag == DW_TAG_GNU_call_site) {
        rc = dwarf_lowpc(die, &ret, &e);
    } else {
        rc = dwarf_attr(die, DW_AT_call_return_pc, &attr, &e);
        if (rc == DW_DLV_OK) {
            rc = dwarf_formaddr(attr, &ret, &e);
            dwarf_dealloc_attribute(attr);
        }
    }
    if (rc == DW_DLV_ERROR)
        dwarf_dealloc_error(b->d->info, e);
    if (rc != DW_DLV_OK)
        return 0;
    if (ct_dw_grow((void **)&b->cu->call_rets, &b->cap, b->cu->ncall_rets + 1,
                   sizeof *b->cu->call_rets))
        return ct_dw_fail(b->d, NULL, NULL, "out of memory");
    b->cu->call_rets[b->cu->ncall_rets++] = ret;
    return 0;
}

/* Builds cu->call_rets (sorted): dwarf_callsites.c's scan of the raw sections, else a libdwarf
 * walk of the CU's DIEs.  Returns 0 or -1. */
static int load_calls(struct ct_dwarf *d, struct ct_dw_cu *cu)
{
    if (!d->info_tried) {
        d->info_tried = 1;
        if (d->info_path) {
            d->info_sec = info_section(d, ".debug_info", &d->info_len);
            d->abbrev_sec = info_section(d, ".debug_abbrev", &d->abbrev_len);
            d->addr_sec = info_section(d, ".debug_addr", &d->addr_len);
        }
    }
    struct ct_dw_info_sections secs = {
        (const uint8_t *)d->info_sec, (const uint8_t *)d->abbrev_sec,
        (const uint8_t *)d->addr_sec, d->info_len, d->abbrev_len, d->addr_len};
    if (ct_dw_scan_call_returns(&secs, cu->die_off, &cu->call_rets, &cu->ncall_rets) == 0)
        return 0;
    Dwarf_Error e = NULL;
    Dwarf_Die cu_die = NULL;
    struct call_build b = {d, cu, 0};
    if (ct_dw_offdie(d, cu->die_off, &cu_die, &e) != DW_DLV_OK)
        return ct_dw_fail(d, d->info, &e, "reading a CU DIE");
    int rc = ct_dw_walk(d, cu_die, call_visit, &b, -1);
    dwarf_dealloc_die(cu_die);
    if (rc == 0 && cu->ncall_rets)
        qsort(cu->call_rets, cu->ncall_rets, sizeof *cu->call_rets, cmp_u64);
    if (rc != 0) {
        free(cu->call_rets);
        cu->call_rets = NULL;
        cu->ncall_rets = 0;
    }
    return rc;
}

/* ------------------------------------------------------------------ */
/* per-CU loading                                                      */

/* Loads one of a CU's indexes once.  Returns 0, or -1 if it could not be loaded (then it never
 * will be: its state stays -1).  A broken line table leaves the CU usable without rows. */
static int cu_load(struct ct_dwarf *d, struct ct_dw_cu *cu, enum ct_dw_cu_index what)
{
    int8_t *state = &cu->state[what];
    Dwarf_Error e = NULL;
    Dwarf_Die cu_die = NULL;
    struct cu_files files;
    int rc;
    if (*state != 0)
        return *state > 0 ? 0 : -1;
    *state = -1;
    if (what == CT_DW_CU_CALLS) {
        rc = load_calls(d, cu);
    } else {
        if (ct_dw_offdie(d, cu->die_off, &cu_die, &e) != DW_DLV_OK)
            return ct_dw_fail(d, d->info, &e, "reading a CU DIE");
        rc = load_files(d, cu_die, &files);
        if (rc == 0 && what == CT_DW_CU_LINES)
            load_lines(d, cu, cu_die, &files);
        if (rc == 0 && what == CT_DW_CU_SCOPES)
            rc = load_scopes(d, cu, cu_die, &files);
        free(files.names);
        dwarf_dealloc_die(cu_die);
    }
    if (rc == 0)
        *state = 1;
    return rc;
}

#define CU_WANT(index) (1u << (index))

int ct_dw_offdie(struct ct_dwarf *d, Dwarf_Off off, Dwarf_Die *die, Dwarf_Error *e)
{
    if (d->lazy && ct_dw_lazy_unit(d->lazy, off, NULL, NULL) != 0)
        return DW_DLV_NO_ENTRY;
    return dwarf_offdie_b(d->info, off, 1, die, e);
}

/* A CU indexed from .debug_aranges: its first DIE (the unit's header, made readable, says where)
 * and its base address, read once.  Sets cu->resolved to 1, or -1 if unreadable. */
static void lazy_resolve(struct ct_dwarf *d, struct ct_dw_cu *cu)
{
    Dwarf_Error e = NULL;
    Dwarf_Die cu_die = NULL;
    Dwarf_Addr base = 0;
    uint64_t die_off = 0;
    cu->resolved = -1;
    if (ct_dw_lazy_unit(d->lazy, cu->unit_off, NULL, &die_off) != 0) {
        ct_dw_fail(d, NULL, NULL, "reading a unit header of the debug file");
        return;
    }
    if (dwarf_offdie_b(d->info, die_off, 1, &cu_die, &e) != DW_DLV_OK) {
        ct_dw_fail(d, d->info, &e, "reading a CU DIE");
        return;
    }
    if (dwarf_lowpc(cu_die, &base, &e) == DW_DLV_ERROR)
        ct_dw_fail(NULL, d->info, &e, "");
    dwarf_dealloc_die(cu_die);
    cu->die_off = die_off;
    cu->base = base;
    cu->resolved = 1;
}

/* The CU containing link_pc with the indexes of the mask `want` (CU_WANT bits) loaded, or
 * NULL. */
static struct ct_dw_cu *cu_with(struct ct_dwarf *d, uint64_t link_pc, unsigned want)
{
    const struct ct_dw_seg *s;
    if (!d || !d->info)
        return NULL;
    s = find_seg(d->cu_segs, d->ncu_segs, link_pc);
    if (!s || (size_t)s->idx >= d->ncus)
        return NULL;
    struct ct_dw_cu *cu = &d->cus[s->idx];
    if (cu->resolved == 0)
        lazy_resolve(d, cu);
    if (cu->resolved < 0)
        return NULL;
    for (int i = 0; i < CT_DW_CU_NINDEX; i++)
        if ((want & CU_WANT(i)) && cu_load(d, cu, (enum ct_dw_cu_index)i) != 0)
            return NULL;
    return cu;
}

struct ct_dw_cu *ct_dw_cu_for_pc(struct ct_dwarf *d, uint64_t link_pc)
{
    return cu_with(d, link_pc, CU_WANT(CT_DW_CU_LINES) | CU_WANT(CT_DW_CU_SCOPES));
}

int32_t ct_dw_scope_for_pc(const struct ct_dw_cu *cu, uint64_t link_pc)
{
    const struct ct_dw_seg *s = find_seg(cu->segs, cu->nsegs, link_pc);
    return s ? s->idx : -1;
}

/* ------------------------------------------------------------------ */
/* module index                                                        */

/* Records one CU (its DIE offset, base and ranges); CUs without code are
 * skipped.  Returns 0 or -1. */
static int index_cu(struct ct_dwarf *d, Dwarf_Die cu_die, size_t *cu_cap,
                    struct tagged_range **r, size_t *nr, size_t *rcap)
{
    Dwarf_Error e = NULL;
    Dwarf_Half tag = 0;
    Dwarf_Addr base = 0;
    Dwarf_Off off = 0;
    struct ct_dw_range *tmp = NULL;
    size_t ntmp = 0, tcap = 0;
    int rc = 0;
    if (dwarf_tag(cu_die, &tag, &e) != DW_DLV_OK || dwarf_dieoffset(cu_die, &off, &e) != DW_DLV_OK)
        return ct_dw_fail(d, d->info, &e, "reading a CU DIE");
    if (tag != DW_TAG_compile_unit && tag != DW_TAG_partial_unit)
        return 0;
    if (dwarf_lowpc(cu_die, &base, &e) == DW_DLV_ERROR)
        ct_dw_fail(NULL, d->info, &e, "");
    if (ct_dw_die_ranges(d, cu_die, base, &tmp, &ntmp, &tcap) < 0)
        rc = -1;
    else if (ntmp > 0 && (ct_dw_grow((void **)&d->cus, cu_cap, d->ncus + 1, sizeof *d->cus) ||
                          ct_dw_grow((void **)r, rcap, *nr + ntmp, sizeof **r)))
        rc = ct_dw_fail(d, NULL, NULL, "out of memory");
    if (rc == 0 && ntmp > 0) {
        for (size_t i = 0; i < ntmp; i++) {
            /* Where CUs overlap, the tighter range is the better guess. */
            int64_t prio = -(int64_t)((tmp[i].hi - tmp[i].lo) >> 1);
            (*r)[(*nr)++] = (struct tagged_range){tmp[i].lo, tmp[i].hi, (int32_t)d->ncus, prio};
        }
        memset(&d->cus[d->ncus], 0, sizeof d->cus[d->ncus]);
        d->cus[d->ncus].die_off = off;
        d->cus[d->ncus].base = base;
        d->cus[d->ncus].resolved = 1;
        d->ncus++;
    }
    free(tmp);
    return rc;
}

/* Walks all CU headers of .debug_info.  Returns 0 or -1. */
static int build_cu_index(struct ct_dwarf *d)
{
    struct tagged_range *r = NULL;
    size_t nr = 0, rcap = 0, cu_cap = 0;
    int rc = 0;
    for (;;) {
        Dwarf_Error e = NULL;
        Dwarf_Unsigned hlen, typeoff, next;
        Dwarf_Half ver, asz, lsz, esz, ut;
        Dwarf_Off abbr;
        Dwarf_Sig8 sig;
        Dwarf_Die cu_die = NULL;
        int r1 = dwarf_next_cu_header_d(d->info, 1, &hlen, &ver, &abbr, &asz, &lsz, &esz, &sig,
                                        &typeoff, &next, &ut, &e);
        if (r1 == DW_DLV_NO_ENTRY)
            break;
        if (r1 != DW_DLV_OK || d->ncus >= INT32_MAX - 1) {
            rc = ct_dw_fail(d, d->info, &e, "reading a CU header");
            break;
        }
        r1 = dwarf_siblingof_b(d->info, NULL, 1, &cu_die, &e);
        if (r1 == DW_DLV_NO_ENTRY)
            continue;
        if (r1 != DW_DLV_OK) {
            rc = ct_dw_fail(d, d->info, &e, "reading a CU DIE");
            break;
        }
        rc = index_cu(d, cu_die, &cu_cap, &r, &nr, &rcap);
        dwarf_dealloc_die(cu_die);
        if (rc != 0)
            break;
    }
    if (rc == 0 && flatten(r, nr, &d->cu_segs, &d->ncu_segs) != 0)
        rc = ct_dw_fail(d, NULL, NULL, "out of memory");
    free(r);
    return rc;
}

/* The CU index of a lazily read debug file, from .debug_aranges: one CU per address-range set,
 * resolved (its header read) only when a lookup lands in it.  Walking every unit header instead
 * would inflate all of .debug_info.  Returns 0 or -1. */
static int aranges_index(struct ct_dwarf *d)
{
    uint64_t len = 0;
    const uint8_t *a = ct_dw_lazy_need(d->lazy, CT_LZ_ARANGES, UINT64_MAX, &len);
    struct tagged_range *r = NULL;
    size_t nr = 0, rcap = 0, cu_cap = 0;
    int rc = 0;
    if (!a)
        return ct_dw_fail(d, NULL, NULL, "reading .debug_aranges");
    struct ct_dw_cursor c = {a, a + len};
    while (rc == 0 && c.p < c.end) {
        const uint8_t *set = c.p;
        uint64_t ulen, ver, info_off, asz, ssz, lo, n;
        unsigned osz = 4;
        if (ct_dw_rd_fixed(&c, 4, &ulen) != 0)
            break;
        if (ulen == 0xffffffffu) {
            osz = 8;
            if (ct_dw_rd_fixed(&c, 8, &ulen) != 0)
                break;
        }
        if (ulen > (uint64_t)(c.end - c.p)) {
            rc = ct_dw_fail(d, NULL, NULL, "corrupt .debug_aranges");
            break;
        }
        struct ct_dw_cursor u = {c.p, c.p + ulen};
        c.p += ulen;
        if (ct_dw_rd_fixed(&u, 2, &ver) != 0 || ct_dw_rd_fixed(&u, osz, &info_off) != 0 ||
            ct_dw_rd_fixed(&u, 1, &asz) != 0 || ct_dw_rd_fixed(&u, 1, &ssz) != 0 || ver != 2 ||
            asz != 8 || ssz != 0)
            continue; /* a set we cannot read: its CU stays unindexed */
        size_t hdr = (size_t)(u.p - set), pad = (16 - hdr % 16) % 16;
        if ((size_t)(u.end - u.p) < pad)
            continue;
        u.p += pad;
        size_t first = nr;
        while (ct_dw_rd_fixed(&u, 8, &lo) == 0 && ct_dw_rd_fixed(&u, 8, &n) == 0) {
            if (lo == 0 && n == 0)
                break;
            if (n == 0 || lo + n < lo || !in_exec(d, lo))
                continue;
            if (ct_dw_grow((void **)&r, &rcap, nr + 1, sizeof *r) != 0) {
                rc = ct_dw_fail(d, NULL, NULL, "out of memory");
                break;
            }
            /* Where CUs overlap, the tighter range is the better guess. */
            r[nr++] = (struct tagged_range){lo, lo + n, (int32_t)d->ncus, -(int64_t)(n >> 1)};
        }
        if (rc != 0 || nr == first)
            continue;
        if (d->ncus >= INT32_MAX - 1 ||
            ct_dw_grow((void **)&d->cus, &cu_cap, d->ncus + 1, sizeof *d->cus) != 0) {
            rc = ct_dw_fail(d, NULL, NULL, "out of memory");
            break;
        }
        memset(&d->cus[d->ncus], 0, sizeof d->cus[d->ncus]);
        d->cus[d->ncus].unit_off = info_off;
        d->ncus++;
    }
    if (rc == 0 && flatten(r, nr, &d->cu_segs, &d->ncu_segs) != 0)
        rc = ct_dw_fail(d, NULL, NULL, "out of memory");
    free(r);
    return rc;
}

/* ------------------------------------------------------------------ */
/* open / close                                                        */

static void configure_dbg(Dwarf_Debug dbg);

/* Opens path with libdwarf, configured for x86-64 CFI.  Returns 0 (with
 * *dbg, or NULL when libdwarf finds no DWARF-related section) or -1.  A
 * linked file is read through a mapping (*map, ct_dw_lazy_open_plain):
 * libdwarf's own reader copies every section it loads, and those copies'
 * page faults were a fifth of a small `crashtrail show`. */
static int open_dbg(struct ct_dwarf *d, const char *path, Dwarf_Debug *dbg,
                    struct ct_dw_lazy **map)
{
    Dwarf_Error e = NULL;
    char what[300];
    *map = NULL;
    if (ct_dw_lazy_open_plain(path, map) == 0) {
        if (ct_dw_lazy_dwarf(*map, dbg, &e) == 0) {
            configure_dbg(*dbg);
            return 0;
        }
        /* No DWARF-related section, or one libdwarf rejects: its own reader decides. */
        dwarf_dealloc_error(NULL, e);
        e = NULL;
        *dbg = NULL;
        ct_dw_lazy_close(*map);
        *map = NULL;
    }
    int rc = dwarf_init_path(path, NULL, 0, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, dbg,
                             NULL, 0, NULL, &e);
    if (rc == DW_DLV_NO_ENTRY) {
        *dbg = NULL;
        return 0;
    }
    if (rc != DW_DLV_OK) {
        snprintf(what, sizeof what, "%s: libdwarf cannot open it", path);
        *dbg = NULL;
        return ct_dw_fail(d, NULL, &e, what);
    }
    configure_dbg(*dbg);
    return 0;
}

void ct_dwarf_expect_locals(struct ct_dwarf *d)
{
    Dwarf_Error e = NULL;
    Dwarf_Debug full = NULL;
    if (!d || !d->lazy || d->lazy_locations)
        return;
    d->lazy_locations = 1;
    if (!ct_dw_lazy_show_loclists(d->lazy))
        return;
    if (ct_dw_lazy_dwarf(d->lazy, &full, &e) != 0) {
        ct_dw_fail(d, NULL, &e, "reopening the debug file with its location lists");
        return;
    }
    configure_dbg(full);
    /* The first handle stays open: the CFI of the debug file's .debug_frame may be its. */
    d->lazy_first = d->dbg_dbg;
    if (d->info == d->dbg_dbg)
        d->info = full;
    d->dbg_dbg = full;
}

/* Opens the debug file at path through dwarf_lazy.c when it qualifies (compressed DWARF indexed
 * by .debug_aranges), else as open_dbg does.  Returns 0 or -1. */
static int open_debug_file(struct ct_dwarf *d, const char *path, Dwarf_Debug *dbg)
{
    Dwarf_Error e = NULL;
    if (ct_dw_lazy_open(path, &d->lazy) != 0)
        return open_dbg(d, path, dbg, &d->dbg_map);
    if (ct_dw_lazy_dwarf(d->lazy, dbg, &e) != 0) {
        /* libdwarf's own reading of the file may still work: it decides. */
        dwarf_dealloc_error(NULL, e);
        *dbg = NULL;
        ct_dw_lazy_close(d->lazy);
        d->lazy = NULL;
        return open_dbg(d, path, dbg, &d->dbg_map);
    }
    configure_dbg(*dbg);
    return 0;
}

static void configure_dbg(Dwarf_Debug dbg)
{
    /* Registers not mentioned by an FDE keep their value (callee-saved
     * semantics); the unwinder clears the caller-saved ones itself. */
    dwarf_set_frame_rule_table_size(dbg, CT_DW_REG_TABLE);
    dwarf_set_frame_rule_initial_value(dbg, DW_FRAME_SAME_VAL);
    dwarf_set_frame_cfa_value(dbg, DW_FRAME_CFA_COL3);
    dwarf_set_frame_same_value(dbg, DW_FRAME_SAME_VAL);
    dwarf_set_frame_undefined_value(dbg, DW_FRAME_UNDEFINED_VAL);
}

/* Loads one FDE table (.eh_frame when eh, else .debug_frame).  Returns 0
 * (also when the section is absent) or -1 on a malformed table. */
static int add_cfi(struct ct_dwarf *d, Dwarf_Debug dbg, int eh)
{
    Dwarf_Error e = NULL;
    struct ct_dw_cfi *c = &d->cfi[d->ncfi];
    int rc;
    if (!dbg || d->ncfi >= (int)(sizeof d->cfi / sizeof d->cfi[0]))
        return 0;
    rc = eh ? dwarf_get_fde_list_eh(dbg, &c->cies, &c->ncies, &c->fdes, &c->nfdes, &e)
            : dwarf_get_fde_list(dbg, &c->cies, &c->ncies, &c->fdes, &c->nfdes, &e);
    if (rc == DW_DLV_NO_ENTRY)
        return 0;
    if (rc != DW_DLV_OK)
        return ct_dw_fail(d, dbg, &e, eh ? "reading .eh_frame" : "reading .debug_frame");
    c->dbg = dbg;
    d->ncfi++;
    return 0;
}

static int cmp_sym(const void *a, const void *b)
{
    const struct ct_dw_sym *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return (x->hi < y->hi) - (x->hi > y->hi);
}

/* Loads function symbols: the fullest table available.  Returns 0/-1. */
static int load_syms(struct ct_dwarf *d, const char *bin, const struct ct_dw_elf_info *bi,
                     const char *dbgp, const struct ct_dw_elf_info *di)
{
    size_t cap = 0;
    long n;
    if (dbgp && di->has_symtab)
        n = ct_dw_elf_load_syms(dbgp, SHT_SYMTAB, &d->pool, &d->syms, &d->nsyms, &cap);
    else if (bi->has_symtab)
        n = ct_dw_elf_load_syms(bin, SHT_SYMTAB, &d->pool, &d->syms, &d->nsyms, &cap);
    else
        n = ct_dw_elf_load_syms(bin, SHT_DYNSYM, &d->pool, &d->syms, &d->nsyms, &cap);
    if (n < 0)
        return ct_dw_fail(d, NULL, NULL, "malformed ELF symbol table");
    if (d->nsyms)
        qsort(d->syms, d->nsyms, sizeof *d->syms, cmp_sym);
    return 0;
}

/* Everything after the structural checks.  Returns 0 or -1 (d->last_err). */
static int open_module(struct ct_dwarf *d, const char *elf_path, const struct ct_dw_elf_info *bi,
                       const char *debug_path, const struct ct_dw_elf_info *di)
{
    if ((bi->has_debug_info || bi->has_eh_frame || bi->has_debug_frame) &&
        open_dbg(d, elf_path, &d->bin_dbg, &d->bin_map) != 0)
        return -1;
    if (debug_path && (di->has_debug_info || di->has_debug_frame) &&
        (di->has_debug_info ? open_debug_file(d, debug_path, &d->dbg_dbg)
                            : open_dbg(d, debug_path, &d->dbg_dbg, &d->dbg_map)) != 0)
        return -1;
    d->info = d->dbg_dbg && di->has_debug_info ? d->dbg_dbg
              : d->bin_dbg && bi->has_debug_info ? d->bin_dbg : NULL;
    if (d->info) {
        const char *p = d->info == d->dbg_dbg ? debug_path : elf_path;
        d->info_map = d->info == d->dbg_dbg ? d->dbg_map : d->bin_map;
        if (!(d->info_path = ct_dw_pool_strndup(&d->pool, p, strlen(p))))
            return ct_dw_fail(d, NULL, NULL, "out of memory");
    }
    /* A --only-keep-debug file's .eh_frame is NOBITS: only the binary's. */
    if ((bi->has_eh_frame && add_cfi(d, d->bin_dbg, 1) != 0) ||
        (di->has_debug_frame && add_cfi(d, d->dbg_dbg, 0) != 0) ||
        (bi->has_debug_frame && add_cfi(d, d->bin_dbg, 0) != 0))
        return -1;
    if (load_syms(d, elf_path, bi, debug_path, di) != 0)
        return -1;
    if (d->info && (d->lazy ? aranges_index(d) : build_cu_index(d)) != 0)
        return -1;
    if (!d->info && d->ncfi == 0 && d->nsyms == 0)
        return ct_dw_fail(d, NULL, NULL, "no DWARF, call-frame information or symbols");
    return 0;
}

int ct_dwarf_open(const char *elf_path, const char *debug_path, struct ct_dwarf **out,
                  char *err, size_t errlen)
{
    struct ct_dw_elf_info bi, di;
    struct ct_dwarf *d;
    char msg[256] = "";
    int rc = -1;
    if (out)
        *out = NULL;
    memset(&di, 0, sizeof di);
    if (!elf_path || !out) {
        snprintf(msg, sizeof msg, "invalid argument");
    } else if (ct_dw_elf_scan(elf_path, &bi, msg, sizeof msg) == 0) {
        if (!debug_path || ct_dw_elf_scan(debug_path, &di, msg, sizeof msg) == 0) {
            d = calloc(1, sizeof *d);
            if (!d) {
                snprintf(msg, sizeof msg, "out of memory");
            } else {
                /* The binary's section addresses; the debug file mirrors them. */
                struct ct_dw_elf_info *ex = bi.nexec ? &bi : &di;
                d->exec = ex->exec;
                d->nexec = ex->nexec;
                ex->exec = NULL;
                rc = open_module(d, elf_path, &bi, debug_path, &di);
                if (rc == 0)
                    *out = d;
                else
                    snprintf(msg, sizeof msg, "%s", d->last_err);
                if (rc != 0)
                    ct_dwarf_close(d);
            }
            ct_dw_elf_info_free(&di);
        }
        ct_dw_elf_info_free(&bi);
    }
    if (rc != 0 && err && errlen > 0)
        snprintf(err, errlen, "%s", msg[0] ? msg : "cannot open module");
    return rc;
}

void ct_dwarf_close(struct ct_dwarf *d)
{
    Dwarf_Error e = NULL;
    if (!d)
        return;
    for (size_t i = 0; i < d->ncus; i++) {
        free(d->cus[i].rows);
        free(d->cus[i].scopes);
        free(d->cus[i].segs);
        free(d->cus[i].call_rets);
    }
    free(d->cus);
    for (int i = 0; i < d->ncfi; i++)
        dwarf_fde_cie_list_dealloc(d->cfi[i].dbg, d->cfi[i].cies, d->cfi[i].ncies,
                                   d->cfi[i].fdes, d->cfi[i].nfdes);
    if (d->bin_dbg && d->bin_map)
        dwarf_object_finish(d->bin_dbg, &e);
    else if (d->bin_dbg)
        dwarf_finish(d->bin_dbg, &e);
    if (d->lazy_first)
        dwarf_object_finish(d->lazy_first, &e);
    if (d->dbg_dbg && (d->lazy || d->dbg_map))
        dwarf_object_finish(d->dbg_dbg, &e);
    else if (d->dbg_dbg)
        dwarf_finish(d->dbg_dbg, &e);
    ct_dw_lazy_close(d->lazy);
    ct_dw_lazy_close(d->bin_map);
    ct_dw_lazy_close(d->dbg_map);
    free(d->cu_segs);
    if (!d->info_map) { /* copies (info_section) */
        free((void *)d->line_sec);
        free((void *)d->info_sec);
        free((void *)d->abbrev_sec);
        free((void *)d->addr_sec);
    }
    free(d->exec);
    free(d->syms);
    free(d->names);
    ct_dw_pool_free(&d->pool);
    free(d);
}

/* ------------------------------------------------------------------ */
/* queries                                                             */

int ct_dwarf_lookup(struct ct_dwarf *d, uint64_t link_pc, struct ct_srcloc *frames,
                    int max_frames)
{
    struct ct_dw_cu *cu;
    const struct ct_line_row *row;
    int32_t s;
    int n = 0;
    if (!frames || max_frames <= 0 || !(cu = ct_dw_cu_for_pc(d, link_pc)))
        return 0;
    row = find_row(cu, link_pc);
    s = ct_dw_scope_for_pc(cu, link_pc);
    frames[0].function = s >= 0 ? cu->scopes[s].name : NULL;
    frames[0].file = row ? row->file : NULL;
    frames[0].line = row ? row->line : 0;
    frames[0].column = row ? row->column : 0;
    if (s < 0)
        return row ? 1 : 0;
    n = 1;
    /* Parents precede children, so this walk strictly descends. */
    while (n < max_frames && cu->scopes[s].kind == CT_SCOPE_INLINED &&
           cu->scopes[s].parent >= 0 && cu->scopes[s].parent < s) {
        const struct ct_dw_scope *in = &cu->scopes[s];
        s = in->parent;
        frames[n].function = cu->scopes[s].name;
        frames[n].file = in->call_file;
        frames[n].line = in->call_line;
        frames[n].column = in->call_column;
        n++;
    }
    return n;
}

int ct_dwarf_in_prologue(struct ct_dwarf *d, uint64_t fn_start, uint64_t link_pc)
{
    struct ct_dw_cu *cu =
        link_pc >= fn_start ? cu_with(d, link_pc, CU_WANT(CT_DW_CU_LINES)) : NULL;
    size_t lo;
    if (!cu || !cu->nrows)
        return 0;
    lo = first_row_at(cu, fn_start);
    /* The set-up ends at the first prologue_end row; a row of another function (a new
     * sequence, or code past link_pc without the flag yet) means this one has none. */
    for (size_t i = lo; i < cu->nrows && !cu->rows[i].end_seq; i++) {
        if (cu->rows[i].prologue_end)
            return link_pc < cu->rows[i].addr;
        if (cu->rows[i].addr > link_pc)
            break;
    }
    return 0;
}

int ct_dwarf_line_before(struct ct_dwarf *d, uint64_t fn_start, uint64_t link_pc,
                         struct ct_srcloc *out)
{
    struct ct_dw_cu *cu =
        link_pc >= fn_start ? cu_with(d, link_pc, CU_WANT(CT_DW_CU_LINES)) : NULL;
    const struct ct_line_row *row = cu ? find_row(cu, link_pc) : NULL;
    if (!row)
        return 0;
    /* find_row's row is in link_pc's sequence; walk back to the sequence's start */
    for (; row->addr >= fn_start; row--) {
        if (row->line && row->file) {
            out->function = NULL;
            out->file = row->file;
            out->line = row->line;
            out->column = row->column;
            return 1;
        }
        if (row == cu->rows || row[-1].end_seq)
            break;
    }
    return 0;
}

uint32_t ct_dwarf_discriminator(struct ct_dwarf *d, uint64_t link_pc)
{
    struct ct_dw_cu *cu = cu_with(d, link_pc, CU_WANT(CT_DW_CU_LINES));
    const struct ct_line_row *row = cu ? find_row(cu, link_pc) : NULL;
    return row ? row->discriminator : 0;
}

uint64_t ct_dwarf_run_start(struct ct_dwarf *d, uint64_t link_pc)
{
    struct ct_dw_cu *cu = cu_with(d, link_pc, CU_WANT(CT_DW_CU_LINES));
    const struct ct_line_row *row = cu ? find_row(cu, link_pc) : NULL;
    if (!row)
        return 0;
    while (row > cu->rows && !row[-1].end_seq && row[-1].discriminator == row->discriminator)
        row--;
    return row->addr;
}

uint32_t ct_dwarf_discriminator_ahead(struct ct_dwarf *d, uint64_t link_pc, uint64_t max_ahead,
                                      uint64_t *at, uint32_t *before)
{
    struct ct_dw_cu *cu = cu_with(d, link_pc, CU_WANT(CT_DW_CU_LINES));
    const struct ct_line_row *row = cu ? find_row(cu, link_pc) : NULL;
    if (!row || row->line)
        return 0;
    *before = 0;
    for (const struct ct_line_row *b = row; b > cu->rows && !b[-1].end_seq; b--)
        if (b[-1].line) {
            *before = b[-1].discriminator;
            break;
        }
    for (row++; row < cu->rows + cu->nrows && row->addr <= link_pc + max_ahead; row++) {
        if (row[-1].end_seq)
            return 0;
        if (row->line) {
            *at = row->addr;
            return row->discriminator;
        }
    }
    return 0;
}

/* The sized function symbol that contains link_pc, or NULL.  Symbols may nest or overlap a
 * little (aliases, local labels): the last to start at or before pc, within a bounded look
 * back, that contains it. */
static const struct ct_dw_sym *symbol_at(const struct ct_dwarf *d, uint64_t link_pc)
{
    size_t lo = keys_below(d->syms, d->nsyms, sizeof *d->syms, offsetof(struct ct_dw_sym, lo),
                           link_pc, 1);
    for (size_t i = lo, k = 0; i > 0 && k < 16; i--, k++) {
        const struct ct_dw_sym *s = &d->syms[i - 1];
        if (link_pc >= s->lo && link_pc < s->hi)
            return s;
    }
    return NULL;
}

/* The end of the sized function symbol that starts at lo, or UINT64_MAX. */
static uint64_t symbol_end(const struct ct_dwarf *d, uint64_t lo)
{
    const struct ct_dw_sym *s = symbol_at(d, lo);
    return s && s->lo == lo ? s->hi : UINT64_MAX;
}

long ct_dwarf_function_rows(struct ct_dwarf *d, uint64_t fn_start,
                            const struct ct_line_row **out)
{
    struct ct_dw_cu *cu = cu_with(d, fn_start, CU_WANT(CT_DW_CU_LINES));
    uint64_t end = symbol_end(d, fn_start);
    size_t lo, hi;
    *out = NULL;
    if (!cu || !cu->nrows)
        return 0;
    lo = first_row_at(cu, fn_start);
    for (hi = lo; hi < cu->nrows && !cu->rows[hi].end_seq && cu->rows[hi].addr < end; hi++)
        ;
    if (hi == lo)
        return 0;
    *out = &cu->rows[lo];
    return (long)(hi - lo);
}

int ct_dwarf_unit_has_call_sites(struct ct_dwarf *d, uint64_t fn_start)
{
    struct ct_dw_cu *cu = cu_with(d, fn_start, CU_WANT(CT_DW_CU_CALLS));
    return cu && cu->ncall_rets > 0;
}

uint64_t ct_dwarf_function_end(struct ct_dwarf *d, uint64_t fn_start)
{
    return symbol_end(d, fn_start);
}

long ct_dwarf_call_returns(struct ct_dwarf *d, uint64_t fn_start, const uint64_t **out)
{
    struct ct_dw_cu *cu = cu_with(d, fn_start, CU_WANT(CT_DW_CU_CALLS));
    uint64_t end = symbol_end(d, fn_start);
    size_t lo, hi;
    *out = NULL;
    if (!cu || !cu->ncall_rets)
        return 0;
    lo = keys_below(cu->call_rets, cu->ncall_rets, sizeof *cu->call_rets, 0, fn_start, 1);
    hi = keys_below(cu->call_rets, cu->ncall_rets, sizeof *cu->call_rets, 0, end, 0);
    *out = cu->call_rets + lo;
    return hi > lo ? (long)(hi - lo) : 0;
}

const char *ct_dwarf_function_name(struct ct_dwarf *d, uint64_t link_pc)
{
    struct ct_dw_cu *cu = cu_with(d, link_pc, CU_WANT(CT_DW_CU_SCOPES));
    int32_t s = cu ? ct_dw_scope_for_pc(cu, link_pc) : -1;
    while (s >= 0 && cu->scopes[s].kind != CT_SCOPE_SUBPROGRAM) {
        int32_t p = cu->scopes[s].parent;
        s = p < s ? p : -1;
    }
    return s >= 0 ? cu->scopes[s].name : NULL;
}

const char *ct_dwarf_symbol_name(struct ct_dwarf *d, uint64_t link_pc, uint64_t *offset)
{
    const struct ct_dw_sym *s = d ? symbol_at(d, link_pc) : NULL;
    if (s && offset)
        *offset = link_pc - s->lo;
    return s ? s->name : NULL;
}

const char *ct_dwarf_last_error(const struct ct_dwarf *d)
{
    return d ? d->last_err : "";
}
