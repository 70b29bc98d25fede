/*
 * fixture.c - C program analysed by test_dwarf_module: a call chain
 * main -> level1 -> level2 -> level3 (-> fx_dump_ctx), an always_inline
 * chain inl_outer -> inl_inner inside level1, and __crashtrail_path
 * locals in level2 and main that stay live across calls.
 * Usage: fixture <mode 0|1|2> [dump-file]
 */
#include "fixture_common.h"

static inline __attribute__((always_inline)) void inl_inner(int mid_line, int outer_line)
{
    fx_sink += fx_mark(3, "inl_inner", __LINE__, "inl_outer", mid_line, "level1", outer_line);
}

static inline __attribute__((always_inline)) void inl_outer(int outer_line)
{
    inl_inner(__LINE__, outer_line);
}

__attribute__((noinline)) void level3(int mode)
{
    fx_sink += fx_mark(1, "level3", __LINE__);
    FX_CAPTURE(mode);
    fx_sink += 3;
}

__attribute__((noinline)) void level2(int mode, unsigned long long seed)
{
    unsigned long long __crashtrail_path = seed * 0x100000001b3ull ^ 0xcbf29ce484222325ull;
    printf("VAR level2 %#llx\n", __crashtrail_path);
    fx_sink += fx_mark(1, "level2", __LINE__);
    level3(mode);
    fx_sink += __crashtrail_path;
}

__attribute__((noinline)) void level1(int mode, unsigned long long seed)
{
    inl_outer(__LINE__);
    fx_sink += fx_mark(1, "level1", __LINE__);
    level2(mode, seed + 1);
    fx_sink += 1;
}

int main(int argc, char **argv)
{
    int mode = argc > 1 ? atoi(argv[1]) : 0;
    fx_init(argc > 2 ? argv[2] : NULL);
    unsigned long long __crashtrail_path = (unsigned long long)argc * 0x9E3779B97F4A7C15ull + 7;
    printf("VAR main %#llx\n", __crashtrail_path);
    printf("CHAIN %s level3 level2 level1 main\n", mode == 1 ? "fx_dump_ctx" : "");
    fx_sink += fx_mark(1, "main", __LINE__);
    level1(mode, (unsigned long long)argc);
    fx_sink += __crashtrail_path;
    printf("DONE\n");
    return 0;
}
