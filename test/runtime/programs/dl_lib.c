/* dl_lib.c - the instrumented library dl_main.c loads, calls and unloads. */
static volatile int lib_sink;

__attribute__((noinline)) static int lib_step(int i) { return i & 2 ? i * 7 : i + 3; }

int lib_work(int n) {
  for (int i = 0; i < n; i++) lib_sink += lib_step(i);
  return lib_sink;
}
