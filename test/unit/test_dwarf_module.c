/*
 * test_dwarf_module.c - tests of postmortem/dwarf_module against real
 * programs built by run_dwarf_tests.sh (fixtures in dwarf_fixtures/).
 *
 * For every fixture variant (C and C++, -O0/-O2, with and without frame
 * pointers, DWARF 4 and 5, and stripped binaries with a separate debug
 * file) the test runs the fixture twice (getcontext dump, SIGSEGV dump),
 * then checks:
 *  1. ct_dwarf_lookup of every printed call site (return address - 1 -
 *     load bias) gives the printed function/line chain, including the
 *     always_inline frames, and ct_dwarf_function_name the outer function;
 *  2. ct_dwarf_unwind_step walks the dumped stack through the expected
 *     call chain, into libc (.eh_frame only) and ends at _start;
 *  3. ct_dwarf_variable reads each printed __crashtrail_path in its frame;
 *  4. error cases (missing, truncated, random, text, corrupt files) fail
 *     cleanly, and byte-flipped DWARF never crashes;
 *  5. ct_dwarf_eval_expr covers the supported DWARF operations.
 * Usage: test_dwarf_module <workdir-with-fixtures>
 * Prints "N passed, N failed" and exits non-zero on any failure.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dwarf_module.h"
#include "dwarf_module_internal.h"

static int g_pass, g_fail;

#define CHECK(cond, ...)                                                                 \
    do {                                                                                 \
        if (cond) {                                                                      \
            g_pass++;                                                                    \
        } else {                                                                         \
            g_fail++;                                                                    \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);              \
            fprintf(stderr, __VA_ARGS__);                                                \
            fputc('\n', stderr);                                                         \
        }                                                                                \
    } while (0)

static const char *g_work;

/* ------------------------------------------------------------------ */
/* fixture variants                                                    */

struct variant {
    const char *name; /* binary in the work dir */
    const char *src;  /* source file name, for line-table file checks */
    int split;        /* run <name>.stripped, debug info from <name>.debug (1) or from the
                         compressed <name>.zdebug, read lazily (2) */
};

static const struct variant g_variants[] = {
    {"c_O0_fp_dw4", "fixture.c", 0},      {"c_O0_fp_dw5", "fixture.c", 0},
    {"c_O0_nofp_dw4", "fixture.c", 0},    {"c_O0_nofp_dw5", "fixture.c", 0},
    {"c_O2_fp_dw4", "fixture.c", 0},      {"c_O2_fp_dw5", "fixture.c", 0},
    {"c_O2_nofp_dw4", "fixture.c", 0},    {"c_O2_nofp_dw5", "fixture.c", 0},
    {"cxx_O0_dw4", "fixture_cxx.cpp", 0}, {"cxx_O0_dw5", "fixture_cxx.cpp", 0},
    {"cxx_O2_dw4", "fixture_cxx.cpp", 0}, {"cxx_O2_dw5", "fixture_cxx.cpp", 0},
    {"c_O2_nofp_dw5", "fixture.c", 1},    {"c_O0_fp_dw4", "fixture.c", 1},
    {"c_O2_nofp_dw5z", "fixture.c", 2},   {"c_O0_fp_dw4z", "fixture.c", 2},
    {"cxx_O2_dw5z", "fixture_cxx.cpp", 2},
};

/* ------------------------------------------------------------------ */
/* fixture output                                                      */

#define MAXN 16
#define NAMELEN 96

struct module {
    uint64_t bias, lo, hi;
    char build_id[80];
    char path[512];
    struct ct_dwarf *d; /* borrowed from the module cache */
};

struct mark {
    uint64_t ra;
    int n;
    char fn[4][NAMELEN];
    int line[4];
};

struct var {
    char fn[NAMELEN];
    uint64_t value;
    int checked;
};

struct run {
    struct module mods[MAXN];
    int nmods;
    struct mark marks[MAXN];
    int nmarks;
    struct var vars[4];
    int nvars;
    char chain[8][NAMELEN];
    int nchain;
};

/* Runs bin with the mode, stdout to out_path.  Returns the exit status. */
static int run_fixture(const char *bin, int mode, const char *out_path, const char *dump_path)
{
    char mode_s[8];
    int status = 0;
    pid_t pid;
    snprintf(mode_s, sizeof mode_s, "%d", mode);
    pid = fork();
    if (pid == 0) {
        int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 1) < 0)
            _exit(126);
        execl(bin, bin, mode_s, dump_path, (char *)NULL);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void parse_mark(char *rest, struct mark *m)
{
    char *save = NULL, *tok = strtok_r(rest, " \n", &save);
    m->ra = strtoull(tok ? tok : "0", NULL, 16);
    m->n = 0;
    while ((tok = strtok_r(NULL, " \n", &save)) && m->n < 4) {
        char *colon = strrchr(tok, ':');
        if (!colon)
            continue;
        *colon = '\0';
        snprintf(m->fn[m->n], NAMELEN, "%s", tok);
        m->line[m->n++] = atoi(colon + 1);
    }
}

/* Parses a fixture's stdout.  Returns 0 or -1. */
static int parse_output(const char *path, struct run *r)
{
    char line[1024];
    FILE *f = fopen(path, "r");
    memset(r, 0, sizeof *r);
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "MODULE ", 7) && r->nmods < MAXN) {
            struct module *m = &r->mods[r->nmods];
            if (sscanf(line + 7, "%lx %lx %lx %79s %511s", &m->bias, &m->lo, &m->hi,
                       m->build_id, m->path) == 5)
                r->nmods++;
        } else if (!strncmp(line, "MARK ", 5) && r->nmarks < MAXN) {
            parse_mark(line + 5, &r->marks[r->nmarks++]);
        } else if (!strncmp(line, "VAR ", 4) && r->nvars < 4) {
            struct var *v = &r->vars[r->nvars];
            if (sscanf(line + 4, "%95s %lx", v->fn, &v->value) == 2)
                r->nvars++;
        } else if (!strncmp(line, "CHAIN ", 6)) {
            char *save = NULL;
            for (char *t = strtok_r(line + 6, " \n", &save); t && r->nchain < 8;
                 t = strtok_r(NULL, " \n", &save))
                snprintf(r->chain[r->nchain++], NAMELEN, "%s", t);
        }
    }
    fclose(f);
    return 0;
}

/* ------------------------------------------------------------------ */
/* module cache: system libraries are opened once for all variants     */

struct cached {
    char key[1100];
    struct ct_dwarf *d;
    int has_debug;
};
static struct cached g_cache[32];
static int g_ncache;

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Opens (or reuses) a module.  Returns the handle or NULL. */
static struct ct_dwarf *module_open(const char *path, const char *debug, int *has_debug)
{
    char key[1100], err[256];
    struct ct_dwarf *d = NULL;
    snprintf(key, sizeof key, "%s|%s", path, debug ? debug : "");
    for (int i = 0; i < g_ncache; i++)
        if (!strcmp(g_cache[i].key, key)) {
            *has_debug = g_cache[i].has_debug;
            return g_cache[i].d;
        }
    if (ct_dwarf_open(path, debug, &d, err, sizeof err) != 0) {
        fprintf(stderr, "note: cannot open %s: %s\n", path, err);
        d = NULL;
    }
    if (g_ncache < 32) {
        snprintf(g_cache[g_ncache].key, sizeof key, "%s", key);
        g_cache[g_ncache].d = d;
        g_cache[g_ncache].has_debug = debug != NULL;
        g_ncache++;
    }
    *has_debug = debug != NULL;
    return d;
}

static void cache_close_all(void)
{
    for (int i = 0; i < g_ncache; i++)
        ct_dwarf_close(g_cache[i].d);
    g_ncache = 0;
}

/* Opens every module of a run: the fixture itself from the variant's
 * files, system libraries with their build-id debug file when present. */
static void open_modules(struct run *r, const char *bin, const char *dbg, int *libc_debug)
{
    *libc_debug = 0;
    for (int i = 0; i < r->nmods; i++) {
        struct module *m = &r->mods[i];
        char dpath[700];
        int has = 0;
        if (!strcmp(m->path, bin)) {
            m->d = module_open(bin, dbg, &has);
            continue;
        }
        snprintf(dpath, sizeof dpath, "/usr/lib/debug/.build-id/%.2s/%s.debug", m->build_id,
                 m->build_id + 2);
        m->d = module_open(m->path, strlen(m->build_id) > 2 && file_exists(dpath) ? dpath : NULL,
                           &has);
        if (strstr(m->path, "/libc.so"))
            *libc_debug = has;
    }
}

static struct module *module_for(struct run *r, uint64_t pc)
{
    for (int i = 0; i < r->nmods; i++)
        if (pc >= r->mods[i].lo && pc < r->mods[i].hi)
            return &r->mods[i];
    return NULL;
}

/* "want" matches a reported name: exactly, as the demangled name with its
 * parameter list, or (no demangler) as the unqualified name. */
static int name_matches(const char *got, const char *want)
{
    size_t n = strlen(want);
    const char *last = strrchr(want, ':');
    if (!got)
        return 0;
    if (!strcmp(got, want) || (!strncmp(got, want, n) && got[n] == '('))
        return 1;
    if (last) {
        char plain[NAMELEN];
        snprintf(plain, sizeof plain, "%s", last + 1);
        char *lt = strchr(plain, '<');
        if (lt)
            *lt = '\0';
        return !strcmp(got, plain);
    }
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = s ? strlen(s) : 0, b = strlen(suffix);
    return s && a >= b && !strcmp(s + a - b, suffix);
}

/* ------------------------------------------------------------------ */
/* 1. line lookups                                                     */

static void check_marks(const struct variant *v, struct run *r, struct module *self)
{
    for (int i = 0; i < r->nmarks; i++) {
        const struct mark *m = &r->marks[i];
        struct ct_srcloc fr[8];
        uint64_t link = m->ra - 1 - self->bias;
        int n = ct_dwarf_lookup(self->d, link, fr, 8);
        CHECK(n == m->n, "%s: mark %s:%d: %d frames, want %d", v->name, m->fn[0], m->line[0], n,
              m->n);
        for (int k = 0; k < n && k < m->n; k++) {
            CHECK(name_matches(fr[k].function, m->fn[k]), "%s: frame %d is %s, want %s", v->name,
                  k, fr[k].function ? fr[k].function : "(null)", m->fn[k]);
            CHECK(fr[k].line == (uint32_t)m->line[k], "%s: %s line %u, want %d", v->name,
                  m->fn[k], fr[k].line, m->line[k]);
            CHECK(ends_with(fr[k].file, v->src), "%s: %s file %s", v->name, m->fn[k],
                  fr[k].file ? fr[k].file : "(null)");
        }
        const char *outer = ct_dwarf_function_name(self->d, link);
        CHECK(m->n > 0 && name_matches(outer, m->fn[m->n - 1]),
              "%s: function_name %s, want %s", v->name, outer ? outer : "(null)",
              m->n > 0 ? m->fn[m->n - 1] : "?");
        /* Frames are named as debuggers name them, by DW_AT_name ("frob"), never by the
         * linkage name (the timeline's steps take the pass's demangled names). */
        if (n > 1 && strstr(v->name, "cxx"))
            CHECK(fr[n - 1].function && strncmp(fr[n - 1].function, "_Z", 2) != 0 &&
                      !strchr(fr[n - 1].function, '('),
                  "%s: C++ frame not named by its plain name: %s", v->name, fr[n - 1].function);
    }
}

/* ------------------------------------------------------------------ */
/* 2+3. unwinding and variables                                        */

struct dump {
    uint64_t regs[17];
    uint32_t valid, is_first;
    uint64_t sp, len;
    uint8_t *bytes;
};

static int read_stack(void *ctx, uint64_t addr, void *out, size_t len)
{
    const struct dump *dp = ctx;
    if (addr < dp->sp || addr - dp->sp > dp->len || len > dp->len - (addr - dp->sp))
        return -1;
    memcpy(out, dp->bytes + (addr - dp->sp), len);
    return 0;
}

/* Loads a dump file.  Returns 0 or -1. */
static int load_dump(const char *path, struct dump *dp)
{
    struct {
        char magic[8];
        uint64_t regs[17];
        uint32_t valid, is_first;
        uint64_t sp, len;
    } h;
    FILE *f = fopen(path, "rb");
    memset(dp, 0, sizeof *dp);
    if (!f)
        return -1;
    if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, "CTFXDMP1", 8) || h.len > (1u << 20)) {
        fclose(f);
        return -1;
    }
    memcpy(dp->regs, h.regs, sizeof dp->regs);
    dp->valid = h.valid;
    dp->is_first = h.is_first;
    dp->sp = h.sp;
    dp->len = h.len;
    dp->bytes = malloc(h.len ? h.len : 1);
    if (!dp->bytes || fread(dp->bytes, 1, h.len, f) != h.len) {
        fclose(f);
        free(dp->bytes);
        return -1;
    }
    fclose(f);
    return 0;
}

/* Name of the function at a lookup pc, from DWARF or the symbol table. */
static const char *frame_name(struct module *m, uint64_t lookup_pc)
{
    const char *n;
    if (!m || !m->d)
        return NULL;
    n = ct_dwarf_function_name(m->d, lookup_pc - m->bias);
    return n ? n : ct_dwarf_symbol_name(m->d, lookup_pc - m->bias, NULL);
}

static void check_variable(const struct variant *v, struct run *r, struct module *m,
                           const char *name, uint64_t lookup_pc, const struct ct_regs *regs,
                           uint64_t cfa, struct dump *dp)
{
    for (int k = 0; k < r->nvars; k++) {
        uint64_t val = 0;
        if (!name_matches(name, r->vars[k].fn))
            continue;
        int rc = ct_dwarf_variable(m->d, lookup_pc - m->bias, "__crashtrail_path", regs, cfa,
                                   m->bias, read_stack, dp, &val);
        CHECK(rc == 0 && val == r->vars[k].value, "%s: %s __crashtrail_path rc=%d %#lx want %#lx",
              v->name, name, rc, (unsigned long)val, (unsigned long)r->vars[k].value);
        r->vars[k].checked = 1;
    }
    uint64_t val;
    int rc = ct_dwarf_variable(m->d, lookup_pc - m->bias, "no_such_variable", regs, cfa, m->bias,
                               read_stack, dp, &val);
    CHECK(rc == -1, "%s: missing variable rc=%d", v->name, rc);
}

/* Walks the dumped stack.  Returns the number of frames named. */
static void check_unwind(const struct variant *v, struct run *r, struct dump *dp, int libc_debug,
                         int mode)
{
    struct ct_regs regs;
    const char *names[64];
    int n = 0, first = (int)dp->is_first, ended_cleanly = 0;
    memcpy(regs.r, dp->regs, sizeof regs.r);
    regs.valid = dp->valid;
    regs.flags = 0;
    while (n < 64) {
        uint64_t pc = regs.r[16], lookup = first ? pc : pc - 1, cfa = 0;
        struct module *m = module_for(r, pc);
        struct ct_regs saved = regs;
        names[n++] = frame_name(m, lookup);
        if (!m || !m->d)
            break;
        int rc = ct_dwarf_unwind_step(m->d, m->bias, first, &regs, &cfa, read_stack, dp);
        if (rc == 0 && names[n - 1])
            check_variable(v, r, m, names[n - 1], lookup, &saved, cfa, dp);
        if (rc != 0) {
            ended_cleanly = names[n - 1] && !strcmp(names[n - 1], "_start");
            CHECK(!memcmp(&saved, &regs, sizeof regs), "%s: failed step changed regs", v->name);
            break;
        }
        CHECK(cfa > saved.r[7] || !(saved.valid & (1u << 7)), "%s: CFA did not grow", v->name);
        first = (regs.flags & CT_REGS_SIGNAL_FRAME) != 0;
    }
    int k = 0;
    for (int c = 0; c < r->nchain; c++, k++)
        CHECK(k < n && name_matches(names[k], r->chain[c]), "%s mode %d: frame %d is %s, want %s",
              v->name, mode, k, k < n && names[k] ? names[k] : "(null)", r->chain[c]);
    struct module *libc = NULL;
    for (int i = 0; i < r->nmods; i++)
        if (strstr(r->mods[i].path, "/libc.so"))
            libc = &r->mods[i];
    CHECK(libc != NULL, "%s: libc not among modules", v->name);
    if (libc_debug)
        CHECK(k < n && names[k] && !strcmp(names[k], "__libc_start_call_main"),
              "%s mode %d: frame after main is %s", v->name, mode,
              k < n && names[k] ? names[k] : "(null)");
    CHECK(ended_cleanly && n >= r->nchain + 2, "%s mode %d: walk ended at frame %d (%s)", v->name,
          mode, n - 1, n > 0 && names[n - 1] ? names[n - 1] : "(null)");
    for (int i = 0; i < r->nvars; i++)
        CHECK(r->vars[i].checked, "%s mode %d: variable of %s never evaluated", v->name, mode,
              r->vars[i].fn);
}

static void test_variant(const struct variant *v)
{
    char bin[600], dbg[600], out[600], dmp[600];
    snprintf(bin, sizeof bin, "%s/%s%s", g_work, v->name, v->split ? ".stripped" : "");
    snprintf(dbg, sizeof dbg, "%s/%s.%s", g_work, v->name, v->split == 2 ? "zdebug" : "debug");
    for (int mode = 1; mode <= 2; mode++) {
        struct run r;
        struct dump dp;
        int libc_debug = 0, st;
        snprintf(out, sizeof out, "%s/%s.%d.out", g_work, v->name, mode);
        snprintf(dmp, sizeof dmp, "%s/%s.%d.dump", g_work, v->name, mode);
        st = run_fixture(bin, mode, out, dmp);
        CHECK(st == 0, "%s: fixture exited with %d", bin, st);
        if (st != 0 || parse_output(out, &r) != 0 || r.nmods == 0 || load_dump(dmp, &dp) != 0) {
            CHECK(0, "%s: no usable fixture output", bin);
            continue;
        }
        open_modules(&r, bin, v->split ? dbg : NULL, &libc_debug);
        struct module *self = module_for(&r, r.marks[0].ra);
        CHECK(self && self->d, "%s: cannot open fixture module", bin);
        if (self && self->d && v->split == 2)
            CHECK(self->d->lazy != NULL, "%s: compressed debug file not read lazily", v->name);
        if (self && self->d) {
            CHECK(r.nmarks >= 3, "%s: only %d marks", v->name, r.nmarks);
            check_marks(v, &r, self);
            check_unwind(v, &r, &dp, libc_debug, mode);
        }
        free(dp.bytes);
    }
    printf("variant %-14s%s done (%d passed, %d failed so far)\n", v->name,
           v->split == 2 ? " zsplit" : v->split ? " split" : "      ", g_pass, g_fail);
}

/* ------------------------------------------------------------------ */
/* 4. error cases and corrupt input                                    */

static int write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, 1, len, f) == len;
    if (f)
        fclose(f);
    return ok ? 0 : -1;
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n)) && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf)
        *len = (size_t)n;
    fclose(f);
    return buf;
}

static void expect_open_fails(const char *what, const char *path, const char *debug)
{
    struct ct_dwarf *d = (struct ct_dwarf *)1;
    char err[256] = "";
    int rc = ct_dwarf_open(path, debug, &d, err, sizeof err);
    CHECK(rc == -1 && d == NULL && err[0] && !strchr(err, '\n'), "%s: rc=%d err='%s'", what, rc,
          err);
    if (rc == 0)
        ct_dwarf_close(d);
}

static uint64_t g_rng = 0x243F6A8885A308D3ull;
static uint64_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

/* Finds a section's file range with a minimal ELF64 reader.  Returns 0/-1. */
static int find_section(const uint8_t *buf, size_t len, const char *name, size_t *off,
                        size_t *size)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)buf;
    if (len < sizeof *eh || eh->e_shoff > len ||
        (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > len - eh->e_shoff || eh->e_shstrndx >= eh->e_shnum)
        return -1;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(buf + eh->e_shoff);
    const Elf64_Shdr *ss = &sh[eh->e_shstrndx];
    for (int i = 0; i < eh->e_shnum; i++) {
        if (ss->sh_offset + sh[i].sh_name >= len)
            continue;
        if (!strcmp((const char *)buf + ss->sh_offset + sh[i].sh_name, name) &&
            sh[i].sh_type != SHT_NOBITS && sh[i].sh_offset + sh[i].sh_size <= len) {
            *off = sh[i].sh_offset;
            *size = sh[i].sh_size;
            return 0;
        }
    }
    return -1;
}

/* Exercises every query on a possibly corrupt module; must not crash. */
static void poke_module(struct ct_dwarf *d)
{
    struct ct_srcloc fr[8];
    struct ct_regs regs;
    uint64_t cfa, val;
    uint8_t stack[256] = {0};
    struct dump dp = {.sp = 0x7000, .len = sizeof stack, .bytes = stack};
    for (uint64_t pc = 0x1000; pc < 0x3000; pc += 7) {
        ct_dwarf_lookup(d, pc, fr, 8);
        ct_dwarf_function_name(d, pc);
        ct_dwarf_symbol_name(d, pc, NULL);
        memset(&regs, 0, sizeof regs);
        regs.r[16] = pc;
        regs.r[7] = 0x7000;
        regs.r[6] = 0x7040;
        regs.valid = (1u << 17) - 1;
        ct_dwarf_unwind_step(d, 0, (int)(pc & 1), &regs, &cfa, read_stack, &dp);
        ct_dwarf_variable(d, pc, "__crashtrail_path", &regs, 0x7010, 0, read_stack, &dp, &val);
    }
}

static void test_errors(void)
{
    char path[600], src[600], dbg[600];
    uint8_t *buf;
    size_t len = 0;
    snprintf(src, sizeof src, "%s/c_O2_nofp_dw5", g_work);
    buf = read_file(src, &len);
    CHECK(buf && len > 4096, "cannot read %s", src);
    if (!buf)
        return;

    expect_open_fails("missing file", "/nonexistent/crashtrail/none", NULL);
    expect_open_fails("directory", "/", NULL);
    snprintf(path, sizeof path, "%s/truncated", g_work);
    write_file(path, buf, 1000);
    expect_open_fails("truncated to 1000 bytes", path, NULL);
    write_file(path, buf, len / 2);
    expect_open_fails("truncated to half", path, NULL);
    snprintf(dbg, sizeof dbg, "%s/random", g_work);
    uint8_t *rb = malloc(65536);
    for (size_t i = 0; rb && i < 65536; i++)
        rb[i] = (uint8_t)rnd();
    write_file(dbg, rb, 65536);
    expect_open_fails("random bytes", dbg, NULL);
    /* Random bytes behind a valid ELF magic. */
    memcpy(rb, buf, 64);
    write_file(dbg, rb, 65536);
    expect_open_fails("ELF header + random bytes", dbg, NULL);
    free(rb);
    snprintf(path, sizeof path, "%s/text", g_work);
    const char *txt = "this is a text file, not an ELF object\n";
    write_file(path, txt, strlen(txt));
    expect_open_fails("text file", path, NULL);
    expect_open_fails("good binary, missing debug file", src, "/nonexistent/debug");
    expect_open_fails("good binary, text debug file", src, path);
    /* Section header table pointing past the end of the file. */
    uint8_t *bad = malloc(len);
    memcpy(bad, buf, len);
    ((Elf64_Ehdr *)bad)->e_shoff = (Elf64_Off)len - 10;
    snprintf(path, sizeof path, "%s/bad_shoff", g_work);
    write_file(path, bad, len);
    expect_open_fails("section headers past EOF", path, NULL);
    free(bad);
    free(buf);
}

/* Flips random bytes inside DWARF/CFI sections; every query must return
 * without crashing (valgrind flags invalid reads). */
static void test_fuzz(void)
{
    static const char *secs[] = {".debug_info", ".debug_abbrev", ".debug_line", ".eh_frame",
                                 ".debug_rnglists", ".debug_loclists", ".debug_str_offsets",
                                 ".debug_addr"};
    char src[600], path[600], err[256];
    size_t len = 0;
    int opened = 0, iters = getenv("CT_FUZZ_ITERS") ? atoi(getenv("CT_FUZZ_ITERS")) : 120;
    snprintf(src, sizeof src, "%s/c_O2_nofp_dw5", g_work);
    uint8_t *orig = read_file(src, &len);
    if (!orig)
        return;
    uint8_t *buf = malloc(len);
    snprintf(path, sizeof path, "%s/fuzzed", g_work);
    for (int it = 0; it < iters; it++) {
        size_t off, size;
        const char *sec = secs[rnd() % (sizeof secs / sizeof secs[0])];
        memcpy(buf, orig, len);
        if (find_section(buf, len, sec, &off, &size) != 0 || size == 0)
            continue;
        int flips = 1 + (int)(rnd() % 4);
        for (int k = 0; k < flips; k++)
            buf[off + rnd() % size] ^= (uint8_t)(1u << (rnd() % 8));
        write_file(path, buf, len);
        struct ct_dwarf *d = NULL;
        if (ct_dwarf_open(path, NULL, &d, err, sizeof err) == 0) {
            opened++;
            poke_module(d);
            ct_dwarf_close(d);
        } else {
            CHECK(err[0] != '\0', "fuzz: failure without a reason");
        }
    }
    CHECK(1, "fuzz survived");
    printf("fuzz: %d mutants, %d opened and queried without crashing\n", iters, opened);
    free(buf);
    free(orig);
}

/* Lookups through a lazily read debug file (dwarf_lazy.c) against the same file uncompressed,
 * read whole by libdwarf: every frame of every answer equal. Returns the pcs that resolved. */
static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static long compare_lazy(const char *what, const char *bin, const char *zdbg, const char *dbg,
                         int npcs)
{
    char err[256];
    struct ct_dwarf *lz = NULL, *full = NULL;
    long resolved = 0, differ = 0;
    CHECK(ct_dwarf_open(bin, zdbg, &lz, err, sizeof err) == 0, "%s: lazy open: %s", what, err);
    CHECK(ct_dwarf_open(bin, dbg, &full, err, sizeof err) == 0, "%s: open: %s", what, err);
    if (!lz || !full) {
        ct_dwarf_close(lz);
        ct_dwarf_close(full);
        return 0;
    }
    CHECK(lz->lazy != NULL && full->lazy == NULL, "%s: lazy %p, full %p", what, (void *)lz->lazy,
          (void *)full->lazy);
    for (size_t r = 0; r < full->nexec; r++) {
        uint64_t lo = full->exec[r].lo, span = full->exec[r].hi - lo;
        long n = npcs > 0 ? npcs : (long)span;
        for (long i = 0; i < n; i++) {
            uint64_t pc = lo + (npcs > 0 ? rnd() % span : (uint64_t)i);
            struct ct_srcloc a[8], b[8];
            int na = ct_dwarf_lookup(lz, pc, a, 8), nb = ct_dwarf_lookup(full, pc, b, 8);
            int same = na == nb &&
                       same_str(ct_dwarf_function_name(lz, pc), ct_dwarf_function_name(full, pc));
            for (int k = 0; same && k < na; k++)
                same = same_str(a[k].function, b[k].function) && same_str(a[k].file, b[k].file) &&
                       a[k].line == b[k].line && a[k].column == b[k].column;
            if (!same && differ++ < 5)
                printf("  %s: pc %#llx: %d frames lazily (%s:%u), %d read whole (%s:%u)\n", what,
                       (unsigned long long)pc, na, na ? a[0].file : "", na ? a[0].line : 0, nb,
                       nb ? b[0].file : "", nb ? b[0].line : 0);
            resolved += nb > 0;
        }
    }
    CHECK(differ == 0, "%s: %ld pcs answered differently through the lazy debug file", what,
          differ);
    CHECK(resolved > 0, "%s: no pc resolved", what);
    printf("lazy: %s: %ld pcs resolved, the same either way\n", what, resolved);
    ct_dwarf_close(lz);
    ct_dwarf_close(full);
    return resolved;
}

static void test_lazy_debug_files(void)
{
    char bin[600], zdbg[600], dbg[600];
    for (size_t i = 0; i < sizeof g_variants / sizeof g_variants[0]; i++) {
        if (g_variants[i].split != 2)
            continue;
        snprintf(bin, sizeof bin, "%s/%s.stripped", g_work, g_variants[i].name);
        snprintf(zdbg, sizeof zdbg, "%s/%s.zdebug", g_work, g_variants[i].name);
        snprintf(dbg, sizeof dbg, "%s/%s.debug", g_work, g_variants[i].name);
        compare_lazy(g_variants[i].name, bin, zdbg, dbg, 0); /* every byte of code */
    }
    /* libc6-dbg, the file this was built for, when the machine has it. */
    const char *libc_dbg = "/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug";
    snprintf(dbg, sizeof dbg, "%s/libc.debug.plain", g_work);
    if (file_exists(libc_dbg) && file_exists(dbg))
        compare_lazy("libc", "/lib/x86_64-linux-gnu/libc.so.6", libc_dbg, dbg,
                     getenv("CT_LIBC_PCS") ? atoi(getenv("CT_LIBC_PCS")) : 3000);
}

/* Corrupt compressed debug files: sections mutated before compression (the lazy reader's own
 * parsing of unit headers, abbreviation and line tables, aranges) or after it (the zlib stream,
 * its declared size). Every mutant is opened and queried: an error or an answer, never a crash
 * (valgrind runs this). */
static void test_fuzz_lazy(void)
{
    static const char *secs[] = {".debug_info", ".debug_abbrev", ".debug_line", ".debug_aranges",
                                 ".debug_str", ".debug_rnglists", ".debug_str_offsets"};
    char bin[600], src[600], path[600], zpath[600], cmd[2000], err[256];
    int iters = getenv("CT_FUZZ_ITERS") ? atoi(getenv("CT_FUZZ_ITERS")) : 120, opened = 0, lazy = 0;
    size_t len = 0, zlen = 0;
    snprintf(bin, sizeof bin, "%s/c_O2_nofp_dw5z.stripped", g_work);
    snprintf(src, sizeof src, "%s/c_O2_nofp_dw5z.debug", g_work);
    snprintf(path, sizeof path, "%s/fuzzed.debug", g_work);
    snprintf(zpath, sizeof zpath, "%s/fuzzed.zdebug", g_work);
    uint8_t *orig = read_file(src, &len);
    snprintf(src, sizeof src, "%s/c_O2_nofp_dw5z.zdebug", g_work);
    uint8_t *zorig = read_file(src, &zlen);
    if (!orig || !zorig) {
        CHECK(0, "fuzz lazy: no compressed fixture");
        free(orig);
        free(zorig);
        return;
    }
    uint8_t *buf = malloc(len > zlen ? len : zlen);
    for (int it = 0; it < iters; it++) {
        size_t off, size;
        const char *sec = secs[rnd() % (sizeof secs / sizeof secs[0])];
        int before = it % 2 == 0; /* mutate the plain section, then compress */
        const uint8_t *from = before ? orig : zorig;
        size_t n = before ? len : zlen;
        memcpy(buf, from, n);
        if (find_section(buf, n, sec, &off, &size) != 0 || size <= sizeof(Elf64_Chdr))
            continue;
        if (!before && rnd() % 4 == 0) {
            Elf64_Chdr ch; /* a declared size the stream does not reach, or overshoots */
            memcpy(&ch, buf + off, sizeof ch);
            ch.ch_size = rnd() % 2 ? ch.ch_size + 1 + rnd() % 4096 : ch.ch_size / 2;
            memcpy(buf + off, &ch, sizeof ch);
        } else {
            size_t skip = before ? 0 : sizeof(Elf64_Chdr);
            for (int k = 1 + (int)(rnd() % 4); k > 0; k--)
                buf[off + skip + rnd() % (size - skip)] ^= (uint8_t)(1u << (rnd() % 8));
        }
        if (before) {
            write_file(path, buf, n);
            snprintf(cmd, sizeof cmd, "objcopy --compress-debug-sections=zlib '%s' '%s'", path,
                     zpath);
            if (system(cmd) != 0)
                continue;
        } else {
            write_file(zpath, buf, n);
        }
        struct ct_dwarf *d = NULL;
        if (ct_dwarf_open(bin, zpath, &d, err, sizeof err) == 0) {
            opened++;
            lazy += d->lazy != NULL;
            poke_module(d);
            for (size_t r = 0; r < d->nexec; r++)
                for (uint64_t pc = d->exec[r].lo; pc < d->exec[r].hi; pc += 7) {
                    struct ct_srcloc fr[8];
                    ct_dwarf_lookup(d, pc, fr, 8);
                }
            ct_dwarf_close(d);
        } else {
            CHECK(err[0] != '\0', "fuzz lazy: failure without a reason");
        }
    }
    CHECK(lazy > 0, "fuzz lazy: no mutant was read lazily");
    printf("fuzz lazy: %d mutants, %d opened (%d lazily) and queried without crashing\n", iters,
           opened, lazy);
    free(buf);
    free(orig);
    free(zorig);
}

/* ------------------------------------------------------------------ */
/* 5. expression operations                                            */

static uint8_t g_mem[64];
static int read_mem(void *ctx, uint64_t addr, void *out, size_t len)
{
    (void)ctx;
    if (addr < 0x5000 || addr - 0x5000 > sizeof g_mem || len > sizeof g_mem - (addr - 0x5000))
        return -1;
    memcpy(out, g_mem + (addr - 0x5000), len);
    return 0;
}

static void expr_case(struct ct_dwarf *d, const char *what, const uint8_t *e, size_t n,
                      int want_rc, uint64_t want)
{
    struct ct_regs regs;
    uint64_t val = 0;
    memset(&regs, 0, sizeof regs);
    regs.r[3] = 100;
    regs.r[7] = 0x5000;
    regs.r[14] = 0x1122334455667788ull;
    regs.valid = (1u << 3) | (1u << 7) | (1u << 14);
    int rc = ct_dwarf_eval_expr(d, e, n, &regs, 0x9000, 0x400000, read_mem, NULL, &val);
    CHECK(rc == want_rc && (rc != 0 || val == want),
          "expr %s: rc=%d val=%#lx want rc=%d %#lx (%s)", what, rc, (unsigned long)val, want_rc,
          (unsigned long)want, ct_dwarf_last_error(d));
}

#define EXPR(d, what, rc, want, ...)                                                       \
    do {                                                                                   \
        static const uint8_t e_[] = {__VA_ARGS__};                                         \
        expr_case(d, what, e_, sizeof e_, rc, want);                                       \
    } while (0)

static void test_expressions(void)
{
    char src[600], err[256];
    struct ct_dwarf *d = NULL;
    snprintf(src, sizeof src, "%s/c_O0_fp_dw5", g_work);
    CHECK(ct_dwarf_open(src, NULL, &d, err, sizeof err) == 0, "open %s: %s", src, err);
    if (!d)
        return;
    for (size_t i = 0; i < sizeof g_mem; i++)
        g_mem[i] = (uint8_t)(0xA0 + i);
    EXPR(d, "lit minus", 0, 2, 0x35, 0x33, 0x1c, 0x9f);
    EXPR(d, "const1s plus", 0, 1, 0x09, 0xfe, 0x08, 0x03, 0x22, 0x9f);
    EXPR(d, "const2s", 0, (uint64_t)-2, 0x0b, 0xfe, 0xff, 0x9f);
    EXPR(d, "const4u xor", 0, 0x12345678 ^ 0xff, 0x0c, 0x78, 0x56, 0x34, 0x12, 0x08, 0xff, 0x27,
         0x9f);
    EXPR(d, "const8u", 0, 0x0102030405060708ull, 0x0e, 8, 7, 6, 5, 4, 3, 2, 1, 0x9f);
    EXPR(d, "constu consts", 0, 295, 0x10, 0xac, 0x02, 0x11, 0x7b, 0x22, 0x9f);
    EXPR(d, "shl", 0, 16, 0x31, 0x34, 0x24, 0x9f);
    EXPR(d, "shr", 0, 4, 0x08, 0x40, 0x34, 0x25, 0x9f);
    EXPR(d, "and or", 0, 0x0f | 0x30, 0x08, 0x3f, 0x08, 0x0f, 0x1a, 0x08, 0x30, 0x21, 0x9f);
    EXPR(d, "plus_uconst", 0, 110, 0x3a, 0x23, 100, 0x9f);
    EXPR(d, "breg3", 0, 108, 0x73, 0x08, 0x9f);
    EXPR(d, "bregx", 0, 96, 0x92, 0x03, 0x7c, 0x9f);
    EXPR(d, "reg3", 0, 100, 0x53);
    EXPR(d, "regx r14", 0, 0x1122334455667788ull, 0x90, 0x0e);
    EXPR(d, "cfa", 0, 0x9010, 0x9c, 0x23, 0x10, 0x9f);
    EXPR(d, "memory location", 0, 0xA7A6A5A4A3A2A1A0ull, 0x77, 0x00);
    EXPR(d, "deref", 0, 0xAFAEADACABAAA9A8ull, 0x77, 0x08, 0x06, 0x9f);
    EXPR(d, "deref_size", 0, 0xA1A0, 0x77, 0x00, 0x94, 0x02, 0x9f);
    EXPR(d, "addr + bias", 0, 0x401000, 0x03, 0x00, 0x10, 0, 0, 0, 0, 0, 0, 0x9f);
    EXPR(d, "implicit_value", 0, 0x0807060504030201ull, 0x9e, 8, 1, 2, 3, 4, 5, 6, 7, 8);
    EXPR(d, "pieces", 0, 0x5566778800000064ull, 0x53, 0x93, 0x04, 0x5e, 0x93, 0x04);
    EXPR(d, "whole piece", 0, 100, 0x53, 0x93, 0x08);
    EXPR(d, "skip", 0, 9, 0x2f, 0x01, 0x00, 0x37, 0x39, 0x9f);
    EXPR(d, "bra taken", 0, 9, 0x31, 0x28, 0x01, 0x00, 0x37, 0x39, 0x9f);
    EXPR(d, "bra not taken", 0, 7 + 9, 0x30, 0x28, 0x01, 0x00, 0x37, 0x39, 0x22, 0x9f);
    EXPR(d, "dup mul", 0, 49, 0x37, 0x12, 0x1e, 0x9f);
    EXPR(d, "swap minus", 0, 4, 0x33, 0x37, 0x16, 0x1c, 0x9f);
    EXPR(d, "unknown register", 1, 0, 0x71, 0x00, 0x9f);
    EXPR(d, "unknown register loc", 1, 0, 0x51);
    EXPR(d, "missing memory", 1, 0, 0x08, 0x10, 0x06, 0x9f);
    EXPR(d, "half a value", 1, 0, 0x53, 0x93, 0x04);
    EXPR(d, "entry_value", -1, 0, 0xa3, 0x01, 0x55, 0x9f);
    EXPR(d, "GNU_entry_value", -1, 0, 0xf3, 0x01, 0x55, 0x9f);
    EXPR(d, "div by zero", -1, 0, 0x31, 0x30, 0x1b, 0x9f);
    EXPR(d, "stack underflow", -1, 0, 0x22, 0x9f);
    EXPR(d, "branch out of range", -1, 0, 0x2f, 0x40, 0x00, 0x30, 0x9f);
    EXPR(d, "truncated operand", -1, 0, 0x0e, 0x01, 0x02);
    /* A backwards skip loops forever without the step limit. */
    EXPR(d, "infinite loop", -1, 0, 0x2f, 0xfd, 0xff);
    uint64_t v;
    CHECK(ct_dwarf_eval_expr(d, NULL, 0, NULL, 0, 0, read_mem, NULL, &v) == -1, "empty expr");
    ct_dwarf_close(d);
}

/* ------------------------------------------------------------------ */
/* throughput (informational)                                          */

static void test_throughput(void)
{
    char src[600], err[256];
    struct ct_dwarf *d = NULL;
    struct ct_srcloc fr[8];
    int n = getenv("CT_PERF_LOOKUPS") ? atoi(getenv("CT_PERF_LOOKUPS")) : 200000, found = 0;
    struct timespec a, b;
    const char *libc_dbg = "/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug";
    uint64_t lo = 0x26380, span = 0x170000; /* libc's .text */
    snprintf(src, sizeof src, "%s/c_O2_nofp_dw5", g_work);
    if (file_exists(libc_dbg) && file_exists("/lib/x86_64-linux-gnu/libc.so.6"))
        ct_dwarf_open("/lib/x86_64-linux-gnu/libc.so.6", libc_dbg, &d, err, sizeof err);
    if (!d) {
        if (ct_dwarf_open(src, NULL, &d, err, sizeof err) != 0)
            return;
        lo = 0x1000;
        span = 0x1000;
    }
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < n; i++)
        found += ct_dwarf_lookup(d, lo + rnd() % span, fr, 8) > 0;
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    printf("throughput: %d lookups (%d resolved) in %.3f s = %.0f/s\n", n, found, s,
           s > 0 ? n / s : 0.0);
    CHECK(found > 0, "throughput: nothing resolved");
    ct_dwarf_close(d);
}

/* dwarf_lines.c against libdwarf: every CU's line program of every fixture (DWARF 4 and 5, -O0
 * and -O2, C and C++), row for row: address, line, column, file number, prologue_end,
 * discriminator and end of sequence (libdwarf 20210528 reports a row with epilogue_begin as an
 * end of sequence, and starts the DWARF 5 file register at 0: those two are its bugs). */
static void test_line_decoder(const char *name)
{
    char path[600];
    static const char *fnames[64];
    static char fbuf[64][4];
    snprintf(path, sizeof path, "%s/%s", g_work, name);
    for (int i = 0; i < 64; i++) {
        snprintf(fbuf[i], sizeof fbuf[i], "%d", i);
        fnames[i] = fbuf[i];
    }
    size_t len = 0;
    char *sec = ct_dw_elf_read_section(path, ".debug_line", &len);
    Dwarf_Debug dbg = NULL;
    Dwarf_Error e = NULL;
    CHECK(sec != NULL, "%s: no .debug_line", name);
    if (!sec || dwarf_init_path(path, NULL, 0, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, &dbg,
                                NULL, 0, NULL, &e) != DW_DLV_OK) {
        CHECK(0, "%s: libdwarf cannot open it", name);
        free(sec);
        return;
    }
    int cus = 0;
    for (;;) {
        Dwarf_Unsigned hlen = 0, abbr = 0, next = 0;
        Dwarf_Half ver = 0, asz = 0, lsz = 0, esz = 0, type = 0;
        Dwarf_Sig8 sig;
        Dwarf_Unsigned toff = 0;
        Dwarf_Die cu = NULL;
        if (dwarf_next_cu_header_d(dbg, 1, &hlen, &ver, &abbr, &asz, &lsz, &esz, &sig, &toff,
                                   &next, &type, &e) != DW_DLV_OK)
            break;
        if (dwarf_siblingof_b(dbg, NULL, 1, &cu, &e) != DW_DLV_OK)
            break;
        Dwarf_Attribute at = NULL;
        Dwarf_Off off = 0;
        Dwarf_Unsigned ver2 = 0;
        Dwarf_Small tables = 0;
        Dwarf_Line_Context lctx = NULL;
        Dwarf_Line *lines = NULL;
        Dwarf_Signed n = 0;
        if (dwarf_attr(cu, DW_AT_stmt_list, &at, &e) == DW_DLV_OK &&
            dwarf_global_formref(at, &off, &e) == DW_DLV_OK &&
            dwarf_srclines_b(cu, &ver2, &tables, &lctx, &e) == DW_DLV_OK &&
            dwarf_srclines_from_linecontext(lctx, &lines, &n, &e) == DW_DLV_OK) {
            struct ct_dw_line_files lf = {fnames, 64, ver >= 5 ? 0 : 1};
            struct ct_line_row *rows = NULL;
            size_t nrows = 0;
            int rc = ct_dw_decode_lines((const uint8_t *)sec, len, off, &lf, &rows, &nrows);
            CHECK(rc == 0 && nrows == (size_t)n, "%s CU %d: %zu rows decoded, libdwarf %lld",
                  name, cus, nrows, (long long)n);
            for (Dwarf_Signed i = 0; rc == 0 && nrows == (size_t)n && i < n; i++) {
                Dwarf_Addr a = 0;
                Dwarf_Unsigned ln = 0, col = 0, fno = 0, isa = 0, disc = 0;
                Dwarf_Bool end = 0, pe = 0, eb = 0;
                dwarf_lineaddr(lines[i], &a, &e);
                dwarf_lineno(lines[i], &ln, &e);
                dwarf_lineoff_b(lines[i], &col, &e);
                dwarf_line_srcfileno(lines[i], &fno, &e);
                dwarf_lineendsequence(lines[i], &end, &e);
                dwarf_prologue_end_etc(lines[i], &pe, &eb, &isa, &disc, &e);
                const struct ct_line_row *r = &rows[i];
                long mine_f = r->file ? atol(r->file) + (long)lf.base : -1;
                int same = r->addr == a && r->line == ln && r->column == col &&
                           r->discriminator == disc && r->prologue_end == (pe != 0) &&
                           r->end_seq == (end && !eb) &&
                           (mine_f == (long)fno || (ver >= 5 && fno == 0 && mine_f == 1) || end);
                CHECK(same, "%s CU %d row %lld: 0x%llx %u:%u f%ld d%u pe%d end%d, libdwarf "
                      "0x%llx %llu:%llu f%llu d%llu pe%d end%d", name, cus, (long long)i,
                      (unsigned long long)r->addr, r->line, r->column, mine_f, r->discriminator,
                      r->prologue_end, r->end_seq, (unsigned long long)a, (unsigned long long)ln,
                      (unsigned long long)col, (unsigned long long)fno, (unsigned long long)disc,
                      pe != 0, end != 0);
                if (!same)
                    break;
            }
            free(rows);
        }
        if (lctx)
            dwarf_srclines_dealloc_b(lctx);
        if (at)
            dwarf_dealloc_attribute(at);
        dwarf_dealloc_die(cu);
        cus++;
    }
    CHECK(cus > 0, "%s: no CU read", name);
    /* A truncated section is refused, not read past its end. */
    struct ct_dw_line_files lf = {fnames, 64, 1};
    struct ct_line_row *rows = NULL;
    size_t nrows = 0;
    for (size_t cut = 0; cut < len && cut < 4096; cut += 7) {
        if (ct_dw_decode_lines((const uint8_t *)sec, cut, 0, &lf, &rows, &nrows) == 0)
            free(rows);
    }
    dwarf_finish(dbg, &e);
    free(sec);
}

/* Every call-site DIE's return address under the DIE die (libdwarf's reading: the oracle of
 * dwarf_callsites.c), appended to *v. */
static void libdwarf_call_sites(Dwarf_Debug dbg, Dwarf_Die die, uint64_t *v, size_t *n,
                                size_t cap, int depth)
{
    Dwarf_Error e = NULL;
    Dwarf_Die child = NULL;
    if (depth > 64 || dwarf_child(die, &child, &e) != DW_DLV_OK)
        return;
    while (child) {
        Dwarf_Half tag = 0;
        Dwarf_Addr a = 0;
        Dwarf_Attribute at = NULL;
        dwarf_tag(child, &tag, &e);
        if (tag == DW_TAG_GNU_call_site && dwarf_lowpc(child, &a, &e) == DW_DLV_OK && *n < cap)
            v[(*n)++] = a;
        if (tag == DW_TAG_call_site && dwarf_attr(child, DW_AT_call_return_pc, &at, &e) == DW_DLV_OK) {
            if (dwarf_formaddr(at, &a, &e) == DW_DLV_OK && *n < cap)
                v[(*n)++] = a;
            dwarf_dealloc_attribute(at);
        }
        libdwarf_call_sites(dbg, child, v, n, cap, depth + 1);
        Dwarf_Die next = NULL;
        int rc = dwarf_siblingof_b(dbg, child, 1, &next, &e);
        dwarf_dealloc_die(child);
        child = rc == DW_DLV_OK ? next : NULL;
    }
}

static int cmp_addr(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* dwarf_callsites.c against libdwarf: every CU of every fixture, the sorted return addresses of
 * its call sites (DW_TAG_call_site in DWARF 5, DW_TAG_GNU_call_site in DWARF 4), equal; -O2
 * fixtures have some (clang emits call-site entries only when optimising). Truncated and
 * garbled sections are refused or read within bounds (valgrind). */
static void test_call_site_scanner(const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", g_work, name);
    size_t ilen = 0, alen = 0, dlen = 0;
    char *info = ct_dw_elf_read_section(path, ".debug_info", &ilen);
    char *abbrev = ct_dw_elf_read_section(path, ".debug_abbrev", &alen);
    char *addr = ct_dw_elf_read_section(path, ".debug_addr", &dlen);
    struct ct_dw_info_sections secs = {(const uint8_t *)info, (const uint8_t *)abbrev,
                                       (const uint8_t *)addr, ilen, alen, dlen};
    Dwarf_Debug dbg = NULL;
    Dwarf_Error e = NULL;
    CHECK(info && abbrev, "%s: no .debug_info/.debug_abbrev", name);
    if (!info || !abbrev || dwarf_init_path(path, NULL, 0, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL,
                                            NULL, &dbg, NULL, 0, NULL, &e) != DW_DLV_OK) {
        CHECK(0, "%s: libdwarf cannot open it", name);
        free(info), free(abbrev), free(addr);
        return;
    }
    size_t total = 0;
    uint64_t first_cu = 0;
    for (int cus = 0;; cus++) {
        Dwarf_Unsigned hlen = 0, abbr = 0, next = 0, toff = 0;
        Dwarf_Half ver = 0, asz = 0, lsz = 0, esz = 0, type = 0;
        Dwarf_Sig8 sig;
        Dwarf_Die cu = NULL;
        Dwarf_Off off = 0;
        if (dwarf_next_cu_header_d(dbg, 1, &hlen, &ver, &abbr, &asz, &lsz, &esz, &sig, &toff,
                                   &next, &type, &e) != DW_DLV_OK)
            break;
        if (dwarf_siblingof_b(dbg, NULL, 1, &cu, &e) != DW_DLV_OK)
            break;
        dwarf_dieoffset(cu, &off, &e);
        if (cus == 0)
            first_cu = off;
        static uint64_t want[1 << 14];
        size_t nwant = 0, ngot = 0;
        libdwarf_call_sites(dbg, cu, want, &nwant, sizeof want / sizeof want[0], 0);
        qsort(want, nwant, sizeof want[0], cmp_addr);
        uint64_t *got = NULL;
        int rc = ct_dw_scan_call_returns(&secs, off, &got, &ngot);
        CHECK(rc == 0 && ngot == nwant, "%s CU %d: %zu call sites scanned (rc %d), libdwarf %zu",
              name, cus, ngot, rc, nwant);
        for (size_t i = 0; rc == 0 && i < ngot && i < nwant; i++)
            if (got[i] != want[i]) {
                CHECK(0, "%s CU %d call site %zu: 0x%llx, libdwarf 0x%llx", name, cus, i,
                      (unsigned long long)got[i], (unsigned long long)want[i]);
                break;
            }
        total += nwant;
        free(got);
        dwarf_dealloc_die(cu);
    }
    CHECK(strstr(name, "_O0") || total > 0, "%s: no call sites in an -O2 build", name);
    /* Not the offset of a unit's first DIE: refused. */
    uint64_t *got = NULL;
    size_t ngot = 0;
    CHECK(ct_dw_scan_call_returns(&secs, first_cu + 1, &got, &ngot) != 0,
          "%s: a scan from inside a DIE was accepted", name);
    free(got);
    /* Truncated .debug_info, .debug_abbrev and .debug_addr, and garbled abbreviations. */
    for (size_t cut = 0; cut < ilen; cut += 1 + ilen / 97) {
        struct ct_dw_info_sections t = secs;
        t.info_len = cut;
        if (ct_dw_scan_call_returns(&t, first_cu, &got, &ngot) == 0)
            free(got);
        t = secs;
        t.abbrev_len = cut < alen ? cut : alen / 2;
        t.addr_len = cut < dlen ? cut : dlen / 2;
        if (ct_dw_scan_call_returns(&t, first_cu, &got, &ngot) == 0)
            free(got);
    }
    for (int i = 0; i < 200 && alen; i++) {
        size_t at = (size_t)(rnd() % alen);
        char was = abbrev[at];
        abbrev[at] = (char)rnd();
        if (ct_dw_scan_call_returns(&secs, first_cu, &got, &ngot) == 0)
            free(got);
        abbrev[at] = was;
    }
    dwarf_finish(dbg, &e);
    free(info), free(abbrev), free(addr);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <workdir>\n", argv[0]);
        return 2;
    }
    g_work = argv[1];
    test_expressions();
    test_errors();
    for (size_t i = 0; i < sizeof g_variants / sizeof g_variants[0]; i++)
        test_variant(&g_variants[i]);
    for (size_t i = 0; i < sizeof g_variants / sizeof g_variants[0]; i++)
        if (!g_variants[i].split) {
            test_line_decoder(g_variants[i].name);
            test_call_site_scanner(g_variants[i].name);
        }
    cache_close_all();
    test_lazy_debug_files();
    test_fuzz();
    test_fuzz_lazy();
    test_throughput();
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
