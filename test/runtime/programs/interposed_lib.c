/*
 * interposed_lib.c - a library whose own function the program interposes (the defer_interposed
 * case, interposed_main.c). lib_run calls shared_helper by name; built with -fPIC the call goes
 * through the PLT, and the dynamic linker binds it to the executable's shared_helper, which
 * comes first in the global scope, not to the library's own copy. (A C++ template instantiated
 * in both a library and its program is the common case: jsoncpp's std::deque members.)
 */
__attribute__((noinline)) int shared_helper(int x) { return x & 1 ? 3 * x + 1 : x / 2; }

int lib_run(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += shared_helper(i) + (i % 3 ? 1 : 2);
  return s;
}
