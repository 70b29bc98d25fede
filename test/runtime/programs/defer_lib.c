/*
 * defer_lib.c - a library the defer_marks case links its program against (defer_main.c).
 * lib_twice is known to the linkers by a name the compiler never gave a function: built as a
 * library (CT_SHARED, with defer_lib.map) it is lib_twice_v2 exported as lib_twice@@CT_2, the
 * default version, beside an older lib_twice_v1 as lib_twice@CT_1 (as xz's lzma_cputhreads is
 * lzma_cputhreads_52); built into the program, an alias of lib_twice_v2. The post-mortem finds
 * the function a call to lib_twice enters by the ELF symbols.
 */
int lib_step(int x) { return x & 1 ? 3 * x + 1 : x / 2; }

int lib_twice_v2(int x) { return x % 7 ? 2 * x : x + 3; }

#ifdef CT_SHARED
__asm__(".symver lib_twice_v1, lib_twice@CT_1");
__asm__(".symver lib_twice_v2, lib_twice@@CT_2");
int lib_twice_v1(int x) { return x > 4 ? x - 4 : x + 4; }
#else
int lib_twice(int x) __attribute__((alias("lib_twice_v2")));
#endif
