// An exception nobody catches: std::terminate() aborts from inside __cxa_throw, before any
// unwinding (no handler was found, so no cleanup runs: ~Guard does not). The timeline ends at the
// throw, and the stack goes from std::terminate through __cxa_throw (libstdc++'s symbols, shown
// demangled) to the throwing function and its callers. (At -O2 the guard's initialisation is a
// store merged away, and `total`'s and `guards`' zeros are constants: r1 and g1 are no steps.)
//
// crashtrail-e2e
// signal: SIGABRT
// own-files-only: yes
// expect-O0: m1 r1 g1 r2 r3 p1 p2 r3 r2 r3 p1 p2 r3 r2 r3 p1 p3
// expect-O2: m1 r2 r3 p1 p2 r3 r2 r3 p1 p2 r3 r2 r3 p1 p3
// stack: parse run main
// stack-contains: std::terminate
#include <cstdio>
#include <stdexcept>
#include <string>

struct Guard {
  int *count;
  ~Guard() { ++*count; }
};

__attribute__((noinline)) int parse(const char *word) {
  if (word[1] != 0)                                               //@p1
    return (int)(word[0] - 'a');                                  //@p2
  throw std::length_error(std::string("one letter: ") + word); }  //@p3

__attribute__((noinline)) int run(const char *const *words, int n) {
  int total = 0, guards = 0;                                      //@r1
  Guard g{&guards};                                               //@g1
  for (int i = 0; i < n; i++)                                     //@r2
    total += parse(words[i]);                                     //@r3
  return total + guards; }

int main() {
  static const char *const words[] = {"bb", "cc", "d", "ee"};
  std::printf("%d\n", run(words, 4));                             //@m1
}
