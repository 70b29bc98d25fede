// An exception leaves a frame through a cleanup (a destructor, then `resume`) into a caller
// whose invoke continues, when nothing is thrown, with a branch-free call: after the resume the
// caller goes on at its landing pad, never at that continuation. Also through a frame that
// has no landing pad of its own (a plain call): the exception passes it by.
#include <cstdio>
#include <stdexcept>

int total;

struct Guard {
  int v;
  explicit Guard(int v) : v(v) {}
  ~Guard() { total += v; }
};

__attribute__((noinline)) void check(int x) {
  if (x % 3 == 0) throw std::runtime_error("three");
}

__attribute__((noinline)) int guarded(int x) {
  Guard g(x);
  check(x);
  return x * 2;
}

__attribute__((noinline)) static void note(int x) { total += x; }

__attribute__((noinline)) int passes_by(int x) noexcept(false) { return guarded(x) + 1; }

int main(int argc, char **) {
  int caught = 0;
  for (int i = 1; i < 10 + argc; i++) {
    try {
      guarded(i);
      note(i);
    } catch (const std::exception &) {
      caught++;
    }
    try {
      passes_by(i);
      note(1);
    } catch (const std::exception &) {
      caught++;
    }
  }
  std::printf("%d %d\n", total, caught);
  return 0;
}
