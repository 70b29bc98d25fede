/* defer_lib.c - a library the defer_marks case links its program against (defer_main.c). */
int lib_step(int x) { return x & 1 ? 3 * x + 1 : x / 2; }
