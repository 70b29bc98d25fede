// C++ static destructors with deferred calls (-crashtrail-defer-calls): the compiler registers
// each with __cxa_atexit, and at exit the C library runs them one after the other, each calling
// operator delete (code without records, deferred). See deferred-atexit.c: each runs behind the
// runtime's marker (runtime/exit_handlers.c), so no destructor is taken for a callback of the
// next one's operator delete.
#include <cstdio>
#include <vector>

struct Table {
  std::vector<int> *rows;
  explicit Table(int n) : rows(new std::vector<int>(n, n)) {}
  ~Table() {
    if (rows->size() > 2) std::fflush(stdout);
    delete rows;
  }
  int sum() const {
    int s = 0;
    for (int v : *rows) s += v & 1 ? v : -v;
    return s;
  }
};

static Table first(3), second(5), third(7);

int main() {
  std::printf("%d\n", first.sum() + second.sum() + third.sum());
  return 0;
}
