/*
 * dwarf_elf.c - structural ELF checks and symbol tables for dwarf_module.
 *
 * libdwarf 20210528 parses ELF itself and is not hardened against every
 * malformed header, so ct_dwarf_open first runs ct_dw_elf_scan: it reads the
 * ELF header, the section header table and the section name table with
 * pread into private buffers and rejects the file unless every table and
 * every section with file contents lies inside the file.  Only then is the
 * file handed to libdwarf.  Section contents (symbol tables, the lists
 * below) are read in place from a read-only mapping of the file: copying
 * them cost more than reading them (the copy's page faults).
 *
 * Before libdwarf also reads .debug_rnglists and .debug_loclists, their
 * unit headers, offset tables and list entries are parsed here with a
 * bounds-checked cursor, because libdwarf 20210528 mishandles corrupt
 * ones (double free, out-of-bounds reads).
 *
 * Invariants: every offset/size pair read from the file is checked with
 * overflow-safe arithmetic (range_ok) against the file size or the buffer
 * it indexes before use; strings are only used when a NUL occurs inside
 * their table.  Nothing here keeps a file descriptor or a mapping open.
 */
/* pread, O_CLOEXEC, strnlen */
#define _POSIX_C_SOURCE 200809L

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf_module_internal.h"

/* Section headers we are willing to read; real files have < 100, files
 * with -ffunction-sections objects linked in stay far below this. */
#define CT_ELF_MAX_SECTIONS 65535u
/* Largest symbol / string table we load (bytes). */
#define CT_ELF_MAX_TABLE (512u << 20)

struct elf_file {
    int fd;
    uint64_t size;
    const uint8_t *map; /* the whole file, read-only: tables are read in place, not copied */
    Elf64_Ehdr eh;
    Elf64_Shdr *sh;
    size_t shnum;
    char *shstr;
    size_t shstr_len;
};

/* Returns 1 if [off, off+len) lies within [0, limit), without overflow. */
static int range_ok(uint64_t off, uint64_t len, uint64_t limit)
{
    return off <= limit && len <= limit - off;
}

/* Reads exactly len bytes at off.  Returns 0, or -1 on a short read. */
static int read_at(int fd, uint64_t off, void *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t r = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        done += (size_t)r;
    }
    return 0;
}

static void elf_close(struct elf_file *f)
{
    if (f->fd >= 0)
        close(f->fd);
    if (f->map)
        munmap((void *)f->map, f->size);
    free(f->sh);
    free(f->shstr);
    memset(f, 0, sizeof *f);
    f->fd = -1;
}

/* Checks the ELF header.  Returns NULL if acceptable, else the reason. */
static const char *check_ehdr(const struct elf_file *f)
{
    const Elf64_Ehdr *eh = &f->eh;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
        return "not an ELF file";
    if (eh->e_ident[EI_CLASS] != ELFCLASS64)
        return "not a 64-bit ELF file";
    if (eh->e_ident[EI_DATA] != ELFDATA2LSB)
        return "not a little-endian ELF file";
    if (eh->e_machine != EM_X86_64)
        return "not an x86-64 ELF file";
    if (eh->e_shoff == 0)
        return "ELF file has no section headers";
    if (eh->e_shentsize != sizeof(Elf64_Shdr))
        return "ELF section header size is wrong";
    return NULL;
}

/* Loads the section header table and the section name table.
 * Returns NULL on success, else the reason. */
static const char *load_sections(struct elf_file *f)
{
    Elf64_Shdr first;
    uint64_t shnum = f->eh.e_shnum, strndx = f->eh.e_shstrndx;
    if (!range_ok(f->eh.e_shoff, sizeof first, f->size) ||
        read_at(f->fd, f->eh.e_shoff, &first, sizeof first) != 0)
        return "ELF section header table is outside the file";
    /* Extended numbering keeps the real counts in section 0. */
    if (shnum == 0)
        shnum = first.sh_size;
    if (strndx == SHN_XINDEX)
        strndx = first.sh_link;
    if (shnum == 0 || shnum > CT_ELF_MAX_SECTIONS)
        return "ELF section count is invalid";
    if (!range_ok(f->eh.e_shoff, shnum * sizeof(Elf64_Shdr), f->size))
        return "ELF section header table is outside the file";
    f->sh = malloc(shnum * sizeof(Elf64_Shdr));
    if (!f->sh)
        return "out of memory";
    if (read_at(f->fd, f->eh.e_shoff, f->sh, shnum * sizeof(Elf64_Shdr)) != 0)
        return "ELF section header table is truncated";
    f->shnum = shnum;
    if (strndx >= shnum)
        return "ELF section name table index is invalid";
    const Elf64_Shdr *ss = &f->sh[strndx];
    if (ss->sh_type == SHT_NOBITS || ss->sh_size == 0 ||
        ss->sh_size > CT_ELF_MAX_TABLE ||
        !range_ok(ss->sh_offset, ss->sh_size, f->size))
        return "ELF section name table is outside the file";
    f->shstr = malloc(ss->sh_size + 1);
    if (!f->shstr)
        return "out of memory";
    if (read_at(f->fd, ss->sh_offset, f->shstr, ss->sh_size) != 0)
        return "ELF section name table is truncated";
    f->shstr[ss->sh_size] = '\0';
    f->shstr_len = ss->sh_size;
    return NULL;
}

/* Opens and validates path into *f.  Returns 0, or -1 with err set. */
static int elf_open(const char *path, struct elf_file *f, char *err, size_t errlen)
{
    struct stat st;
    const char *why;
    memset(f, 0, sizeof *f);
    f->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (f->fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: not a regular file", path);
        elf_close(f);
        return -1;
    }
    f->size = (uint64_t)st.st_size;
    if (f->size < sizeof f->eh || read_at(f->fd, 0, &f->eh, sizeof f->eh) != 0)
        why = "file too small for an ELF header";
    else if ((why = check_ehdr(f)) == NULL)
        why = load_sections(f);
    if (!why) {
        void *m = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, f->fd, 0);
        if (m == MAP_FAILED)
            why = strerror(errno);
        else
            f->map = m;
    }
    if (why) {
        snprintf(err, errlen, "%s: %s", path, why);
        elf_close(f);
        return -1;
    }
    return 0;
}

/* Returns the name of section i, or "" if its name offset is invalid. */
static const char *sec_name(const struct elf_file *f, size_t i)
{
    uint32_t off = f->sh[i].sh_name;
    return off < f->shstr_len ? f->shstr + off : "";
}

static int has_contents(const Elf64_Shdr *s)
{
    return s->sh_type != SHT_NOBITS && s->sh_size > 0;
}

/* Records one section's relevance in *info.  Returns 0 or -1 (OOM). */
static int note_section(const struct elf_file *f, size_t i, struct ct_dw_elf_info *info,
                        size_t *exec_cap)
{
    const Elf64_Shdr *s = &f->sh[i];
    const char *name = sec_name(f, i);
    if (has_contents(s)) {
        if (strcmp(name, ".debug_info") == 0 || strcmp(name, ".zdebug_info") == 0)
            info->has_debug_info = 1;
        else if (strcmp(name, ".eh_frame") == 0)
            info->has_eh_frame = 1;
        else if (strcmp(name, ".debug_frame") == 0 || strcmp(name, ".zdebug_frame") == 0)
            info->has_debug_frame = 1;
    }
    if (s->sh_type == SHT_SYMTAB)
        info->has_symtab = 1;
    /* The debug file keeps .text as NOBITS with its address: still counts. */
    if ((s->sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) == (SHF_ALLOC | SHF_EXECINSTR) &&
        s->sh_size > 0 && s->sh_addr + s->sh_size > s->sh_addr) {
        if (ct_dw_grow((void **)&info->exec, exec_cap, info->nexec + 1,
                       sizeof *info->exec) != 0)
            return -1;
        info->exec[info->nexec].lo = s->sh_addr;
        info->exec[info->nexec].hi = s->sh_addr + s->sh_size;
        info->nexec++;
    }
    return 0;
}

/* A whole section's contents in the mapping, or NULL (no contents, bounds, size limit). */
static const char *section_view(const struct elf_file *f, const Elf64_Shdr *s)
{
    if (!has_contents(s) || s->sh_size > CT_ELF_MAX_TABLE ||
        !range_ok(s->sh_offset, s->sh_size, f->size))
        return NULL;
    return (const char *)f->map + s->sh_offset;
}

/* A section's contents copied into a fresh buffer with one extra NUL, or NULL. */
static char *read_section(const struct elf_file *f, const Elf64_Shdr *s)
{
    const char *view = section_view(f, s);
    char *buf = view ? malloc(s->sh_size + 1) : NULL;
    if (!buf)
        return NULL;
    memcpy(buf, view, s->sh_size);
    buf[s->sh_size] = '\0';
    return buf;
}

/* Skips a ULEB128 of at most 10 bytes.  Returns 0 or -1. */
static inline int skip_leb(struct ct_dw_cursor *c)
{
    for (int i = 0; i < 10; i++) {
        if (c->p >= c->end)
            return -1;
        if (!(*c->p++ & 0x80))
            return 0;
    }
    return -1;
}

static inline int skip_bytes(struct ct_dw_cursor *c, uint64_t n)
{
    if (n > (uint64_t)(c->end - c->p))
        return -1;
    c->p += n;
    return 0;
}

/* Skips a counted location expression (ULEB length, bytes). */
static inline int skip_expr(struct ct_dw_cursor *c)
{
    uint64_t n;
    return ct_dw_rd_leb(c, 0, &n) || skip_bytes(c, n) ? -1 : 0;
}

/* Parses one list from c up to and including its end-of-list entry: each entry kind's
 * operands (ULEB128s, 8-byte addresses, counted expressions), DWARF 5 section 2.6.2 and
 * 2.17.3, plus DW_LLE_GNU_view_pair.  A switch per kind rather than a table walk: an
 * optimised build's location lists run to megabytes, checked on every load.
 * Returns 0, or -1 if an entry is unknown or leaves the unit. */
static int check_one_list(struct ct_dw_cursor *c, int loclists)
{
    for (;;) {
        if (c->p >= c->end)
            return -1;
        uint8_t kind = *c->p++;
        int bad;
        if (kind == 0) /* DW_LLE_end_of_list, DW_RLE_end_of_list */
            return 0;
        if (loclists) {
            switch (kind) {
            case 1: bad = skip_leb(c); break;                                  /* base_addressx */
            case 2: case 3: case 4:                                            /* startx_endx, startx_length, offset_pair */
                bad = skip_leb(c) || skip_leb(c) || skip_expr(c); break;
            case 5: bad = skip_expr(c); break;                                 /* default_location */
            case 6: bad = skip_bytes(c, 8); break;                             /* base_address */
            case 7: bad = skip_bytes(c, 16) || skip_expr(c); break;            /* start_end */
            case 8: bad = skip_bytes(c, 8) || skip_leb(c) || skip_expr(c); break; /* start_length */
            case 9: bad = skip_leb(c) || skip_leb(c); break;                   /* GNU_view_pair */
            default: return -1;
            }
        } else {
            switch (kind) {
            case 1: bad = skip_leb(c); break;                                  /* base_addressx */
            case 2: case 3: case 4: bad = skip_leb(c) || skip_leb(c); break;   /* startx_endx, startx_length, offset_pair */
            case 5: bad = skip_bytes(c, 8); break;                             /* base_address */
            case 6: bad = skip_bytes(c, 16); break;                            /* start_end */
            case 7: bad = skip_bytes(c, 8) || skip_leb(c); break;              /* start_length */
            default: return -1;
            }
        }
        if (bad)
            return -1;
    }
}

/* The i-th offset of a unit's table (checked to lie inside the unit before). */
static uint64_t table_off(const uint8_t *base, size_t offsize, uint64_t i)
{
    uint64_t v = 0;
    struct ct_dw_cursor t = {base + i * offsize, base + (i + 1) * offsize};
    ct_dw_rd_fixed(&t, offsize, &v);
    return v;
}

/* Whether the list the i-th table entry names parses. */
static int list_at_ok(const uint8_t *base, const uint8_t *end, size_t offsize, uint64_t i,
                      int loclists)
{
    struct ct_dw_cursor l = {base + table_off(base, offsize, i), end};
    return check_one_list(&l, loclists) == 0;
}

/* Checks one unit of a list section: header, offset table and every list
 * (both the ones the table points at and the run from the table's end).
 * Returns NULL or the reason. */
static const char *check_list_unit(struct ct_dw_cursor *c, int loclists)
{
    uint64_t len, version, asize, ssize, count, off;
    size_t offsize = 4;
    if (ct_dw_rd_fixed(c, 4, &len))
        return "truncated unit header";
    if (len == 0xffffffffu) {
        offsize = 8;
        if (ct_dw_rd_fixed(c, 8, &len))
            return "truncated unit header";
    } else if (len >= 0xfffffff0u) {
        return "reserved unit length";
    }
    if (len > (uint64_t)(c->end - c->p) || len < 8)
        return "unit length exceeds the section";
    struct ct_dw_cursor u = {c->p, c->p + len};
    c->p += len;
    if (ct_dw_rd_fixed(&u, 2, &version) || ct_dw_rd_fixed(&u, 1, &asize) ||
        ct_dw_rd_fixed(&u, 1, &ssize) || ct_dw_rd_fixed(&u, 4, &count))
        return "truncated unit header";
    if (version != 5 || asize != 8 || ssize != 0)
        return "unsupported unit header";
    if (count > (uint64_t)(u.end - u.p) / offsize)
        return "offset table exceeds the unit";
    const uint8_t *base = u.p, *entries = u.p + count * offsize;
    int sorted = 1;
    for (uint64_t i = 0, prev = 0; i < count; i++, prev = off) {
        struct ct_dw_cursor t = {base + i * offsize, entries};
        if (ct_dw_rd_fixed(&t, offsize, &off) || off < count * offsize ||
            off >= (uint64_t)(u.end - base))
            return "list offset outside the unit";
        sorted &= i == 0 || off >= prev;
    }
    /* The run of lists after the table is walked once; a table entry (in order, as compilers
     * write them) that is the start of a walked list needs no second parse. */
    uint64_t ti = sorted ? 0 : count;
    u.p = entries;
    while (u.p < u.end) {
        uint64_t pos = (uint64_t)(u.p - base);
        for (; ti < count && table_off(base, offsize, ti) <= pos; ti++)
            if (table_off(base, offsize, ti) != pos && !list_at_ok(base, u.end, offsize, ti,
                                                                     loclists))
                return "malformed list";
        if (check_one_list(&u, loclists) != 0) {
            /* GCC (-gvariable-location-views, its default since GCC 8) puts each location list's
             * view numbers, bare ULEB128 pairs that DW_AT_GNU_locviews points at, right before
             * the list: a run cannot be walked past the first of them. Headers, offset tables
             * and the lists they name are checked; the rest of such a run is libdwarf's. */
            if (loclists)
                break;
            return "malformed list";
        }
    }
    for (uint64_t i = sorted ? ti : 0; i < count; i++)
        if (!list_at_ok(base, u.end, offsize, i, loclists))
            return "malformed list";
    return NULL;
}

/* Validates .debug_rnglists / .debug_loclists unit structure, which
 * libdwarf 20210528 trusts (it double-frees and reads out of bounds on
 * corrupt headers).  Compressed sections are left to libdwarf.
 * Returns NULL or the reason. */
static const char *check_list_section(const struct elf_file *f, const Elf64_Shdr *s,
                                      int loclists)
{
    const char *why = NULL;
    if ((s->sh_flags & SHF_COMPRESSED) || !has_contents(s))
        return NULL;
    const char *buf = section_view(f, s);
    if (!buf)
        return s->sh_size > CT_ELF_MAX_TABLE ? NULL : "cannot read section";
    struct ct_dw_cursor c = {(const uint8_t *)buf, (const uint8_t *)buf + s->sh_size};
    while (!why && c.p < c.end)
        why = check_list_unit(&c, loclists);
    return why;
}

int ct_dw_elf_scan(const char *path, struct ct_dw_elf_info *info, char *err, size_t errlen)
{
    struct elf_file f;
    size_t exec_cap = 0;
    memset(info, 0, sizeof *info);
    if (elf_open(path, &f, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < f.shnum; i++) {
        const Elf64_Shdr *s = &f.sh[i];
        if (has_contents(s) && !range_ok(s->sh_offset, s->sh_size, f.size)) {
            snprintf(err, errlen, "%s: section %zu (%.40s) extends past end of file",
                     path, i, sec_name(&f, i));
            goto fail;
        }
        if (note_section(&f, i, info, &exec_cap) != 0) {
            snprintf(err, errlen, "%s: out of memory", path);
            goto fail;
        }
        const char *name = sec_name(&f, i), *why = NULL;
        if (!strcmp(name, ".debug_rnglists") || !strcmp(name, ".debug_loclists"))
            why = check_list_section(&f, s, name[7] == 'l');
        if (why) {
            snprintf(err, errlen, "%s: corrupt %s: %s", path, name, why);
            goto fail;
        }
    }
    elf_close(&f);
    return 0;
fail:
    elf_close(&f);
    ct_dw_elf_info_free(info);
    return -1;
}

void ct_dw_elf_info_free(struct ct_dw_elf_info *info)
{
    free(info->exec);
    memset(info, 0, sizeof *info);
}

/* Appends the function symbols of table `tab` (strings in `str` of
 * `strlen_` bytes; a name is read up to the table's end).  Returns count or -1. */
static long add_syms(const Elf64_Sym *tab, size_t n, const char *str, size_t strlen_,
                     struct ct_dw_pool *pool, struct ct_dw_sym **syms,
                     size_t *nsyms, size_t *cap)
{
    long added = 0;
    for (size_t i = 0; i < n; i++) {
        const Elf64_Sym *s = &tab[i];
        unsigned type = ELF64_ST_TYPE(s->st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s->st_size == 0 ||
            s->st_shndx == SHN_UNDEF || s->st_name >= strlen_ ||
            s->st_value + s->st_size < s->st_value)
            continue;
        const char *name = str + s->st_name;
        if (name[0] == '\0')
            continue;
        if (ct_dw_grow((void **)syms, cap, *nsyms + 1, sizeof **syms) != 0)
            return -1;
        const char *copy = ct_dw_pool_strndup(pool, name, strnlen(name, strlen_ - s->st_name));
        if (!copy)
            return -1;
        (*syms)[*nsyms].lo = s->st_value;
        (*syms)[*nsyms].hi = s->st_value + s->st_size;
        (*syms)[*nsyms].name = copy;
        (*nsyms)++;
        added++;
    }
    return added;
}

char *ct_dw_elf_read_section(const char *path, const char *name, size_t *len)
{
    struct elf_file f;
    char err[8];
    char *buf = NULL;
    if (elf_open(path, &f, err, sizeof err) != 0)
        return NULL;
    for (size_t i = 0; i < f.shnum; i++) {
        const Elf64_Shdr *s = &f.sh[i];
        if (strcmp(sec_name(&f, i), name) != 0)
            continue;
        if (!(s->sh_flags & SHF_COMPRESSED) && (buf = read_section(&f, s)))
            *len = s->sh_size;
        break;
    }
    elf_close(&f);
    return buf;
}

long ct_dw_elf_load_syms(const char *path, unsigned sh_type, struct ct_dw_pool *pool,
                      struct ct_dw_sym **syms, size_t *nsyms, size_t *cap)
{
    struct elf_file f;
    char err[8];
    long added = 0;
    if (elf_open(path, &f, err, sizeof err) != 0)
        return -1;
    for (size_t i = 0; i < f.shnum && added >= 0; i++) {
        const Elf64_Shdr *s = &f.sh[i];
        if (s->sh_type != sh_type || s->sh_entsize != sizeof(Elf64_Sym) ||
            s->sh_link >= f.shnum)
            continue;
        const char *tab = section_view(&f, s);
        const char *str = section_view(&f, &f.sh[s->sh_link]);
        char *aligned = NULL; /* a symbol table at an odd offset is read from a copy */
        if (tab && (uintptr_t)tab % _Alignof(Elf64_Sym))
            tab = aligned = read_section(&f, s);
        long r = 0;
        if (tab && str)
            r = add_syms((const Elf64_Sym *)tab, s->sh_size / sizeof(Elf64_Sym), str,
                         f.sh[s->sh_link].sh_size, pool, syms, nsyms, cap);
        else if (has_contents(s))
            r = -1;
        added = r < 0 ? -1 : added + r;
        free(aligned);
    }
    elf_close(&f);
    return added;
}
