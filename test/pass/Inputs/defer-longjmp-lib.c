/* The library of defer-longjmp-modules.c: lib_outer defers its calls of lib_leaf and lib_inner,
 * and lib_inner calls the executable back through a pointer, which jumps out of both. */
static volatile int lsink;

__attribute__((noinline)) static void lib_leaf(int x) {
  if (x > 2) lsink += x;
}

__attribute__((noinline)) static void lib_inner(int x, void (*cb)(int)) {
  if (x & 1) lsink++;
  cb(x);
  lsink--;
}

void lib_outer(int x, void (*cb)(int)) {
  if (x > 4) lsink += 2;
  lib_leaf(x);
  if (x > 5) lsink += 3;
  lib_inner(x, cb);
  lsink -= 2;
}
