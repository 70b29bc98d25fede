/*
 * fixture_common.h - helpers for the dwarf_module test fixtures (one
 * translation unit per fixture, C or C++).
 *
 * A fixture prints, on stdout, what the test must find in its DWARF:
 *   MODULE <bias> <lo> <hi> <build-id|-> <path>   every loaded object
 *   MARK <ra> <fn>:<line> [<fn>:<line>...]        a call site, innermost
 *                                                 inline frame first
 *   VAR <fn> <value>                              __crashtrail_path of fn
 *   CHAIN <fn>...                                 expected innermost frames
 * and, in dump modes, writes registers plus the raw stack (from rsp up to
 * 64 KiB, bounded by the end of the [stack] mapping) to a file:
 *   mode 1: from getcontext() in fx_dump_ctx (callee-saved registers only,
 *           pc is a return address);
 *   mode 2: from a SIGSEGV handler (all registers, pc is the fault).
 */
#ifndef CT_FIXTURE_COMMON_H
#define CT_FIXTURE_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

static volatile unsigned long long fx_sink;
static int *volatile fx_null;
static const char *fx_dump_path;
static uintptr_t fx_stack_end;

#define FX_DUMP_MAGIC "CTFXDMP1"
#define FX_STACK_MAX 65536

struct fx_dump_hdr {
    char magic[8];
    uint64_t regs[17];
    uint32_t valid;
    uint32_t is_first;
    uint64_t sp;
    uint64_t len;
};

/* Prints the caller's return address and n (function, line) pairs. */
__attribute__((noinline)) static unsigned long long fx_mark(int n, ...)
{
    void *ra = __builtin_return_address(0);
    va_list ap;
    va_start(ap, n);
    printf("MARK %p", ra);
    for (int i = 0; i < n; i++) {
        const char *fn = va_arg(ap, const char *);
        int line = va_arg(ap, int);
        printf(" %s:%d", fn, line);
    }
    va_end(ap);
    printf("\n");
    return (uintptr_t)ra & 1;
}

/* Writes the GNU build-id of a loaded object as hex, or "-". */
static void fx_print_build_id(const struct dl_phdr_info *info)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        const unsigned char *p, *end;
        if (ph->p_type != PT_NOTE)
            continue;
        p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        end = p + ph->p_memsz;
        while (p + 12 <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            size_t nsz = (nh->n_namesz + 3) & ~3u, dsz = (nh->n_descsz + 3) & ~3u;
            const unsigned char *desc = p + 12 + nsz;
            if (desc + dsz > end)
                break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(p + 12, "GNU", 4)) {
                for (unsigned k = 0; k < nh->n_descsz; k++)
                    printf("%02x", desc[k]);
                return;
            }
            p = desc + dsz;
        }
    }
    printf("-");
}

static int fx_phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    char exe[4096];
    const char *name = info->dlpi_name;
    (void)size;
    (void)data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type != PT_LOAD)
            continue;
        if (a < lo)
            lo = a;
        if (a + ph->p_memsz > hi)
            hi = a + ph->p_memsz;
    }
    if (!name || !name[0]) {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = '\0';
        name = exe;
    }
    if (lo < hi && name[0] == '/') {
        printf("MODULE %#lx %#lx %#lx ", (unsigned long)info->dlpi_addr, (unsigned long)lo,
               (unsigned long)hi);
        fx_print_build_id(info);
        printf(" %s\n", name);
    }
    return 0;
}

/* Writes registers and the stack slice; async-signal-safe. */
static void fx_write_dump(const ucontext_t *uc, int is_first, uint32_t valid)
{
    static const int map[17] = {REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI,
                                REG_RBP, REG_RSP, REG_R8,  REG_R9,  REG_R10, REG_R11,
                                REG_R12, REG_R13, REG_R14, REG_R15, REG_RIP};
    struct fx_dump_hdr h;
    int fd;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, FX_DUMP_MAGIC, 8);
    for (int i = 0; i < 17; i++)
        h.regs[i] = (uint64_t)uc->uc_mcontext.gregs[map[i]];
    h.valid = valid;
    h.is_first = (uint32_t)is_first;
    h.sp = h.regs[7];
    h.len = fx_stack_end > h.sp ? fx_stack_end - h.sp : 0;
    if (h.len > FX_STACK_MAX)
        h.len = FX_STACK_MAX;
    fd = open(fx_dump_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        _exit(3);
    if (write(fd, &h, sizeof h) != (ssize_t)sizeof h ||
        write(fd, (const void *)(uintptr_t)h.sp, h.len) != (ssize_t)h.len)
        _exit(4);
    close(fd);
}

/* Mode 1: capture with getcontext; only callee-saved registers, rsp and
 * rip mean anything after the call returns. */
__attribute__((noinline)) static void fx_dump_ctx(void)
{
    ucontext_t uc;
    if (getcontext(&uc) != 0)
        _exit(5);
    fx_write_dump(&uc, 0, (1u << 3) | (1u << 6) | (1u << 7) | (0xfu << 12) | (1u << 16));
    fx_sink += 1;
}

static void fx_segv(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    (void)si;
    fx_write_dump((const ucontext_t *)ctx, 1, (1u << 17) - 1);
    _exit(0);
}

/* Finds the end of the [stack] mapping. */
static void fx_find_stack_end(void)
{
    char line[512];
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (strstr(line, "[stack]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
            fx_stack_end = hi;
    }
    fclose(f);
}

static void fx_init(const char *dump_path)
{
    struct sigaction sa;
    setvbuf(stdout, NULL, _IOLBF, 0);
    fx_dump_path = dump_path;
    fx_find_stack_end();
    dl_iterate_phdr(fx_phdr_cb, NULL);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = fx_segv;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
}

/* Runs the capture for mode 1 or faults for mode 2. */
#define FX_CAPTURE(mode)                                                                   \
    do {                                                                                   \
        if ((mode) == 1)                                                                   \
            fx_dump_ctx();                                                                 \
        else if ((mode) == 2)                                                              \
            *fx_null = 42;                                                                 \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif
