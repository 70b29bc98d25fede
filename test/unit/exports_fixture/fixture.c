/* A library whose functions are known to the linkers by names the compiler never gave them,
 * read by test_elf_exports.c: lib_twice is lib_twice_v2 as lib_twice@@CT_2 (the default
 * version) and lib_twice_v1 as lib_twice@CT_1 (hidden); api_alias is an alias of api; helper
 * is local; hidden_fn has hidden visibility. */
__attribute__((noinline)) static int helper(int x) { return x * 3; }
__attribute__((visibility("hidden"))) int hidden_fn(int x) { return helper(x) + 1; }
int api(int x) { return hidden_fn(x) - 1; }
int api_alias(int x) __attribute__((alias("api")));
int lib_twice_v1(int x) { return x + 4; }
int lib_twice_v2(int x) { return 2 * x; }
__asm__(".symver lib_twice_v1, lib_twice@CT_1");
__asm__(".symver lib_twice_v2, lib_twice@@CT_2");
