// A C++ program that throws and catches, then crashes: the path through the catch is there.
// Steps are compared for this file only (C++ library headers inline code of their own).
//
// crashtrail-e2e
// signal: SIGSEGV
// own-files-only: yes
// expect-O0: m1 p1 p2 m4 m1 m2 m3 m4 u1
// expect-O2: m1 p1 p2 m2 m3 m4 u1
// (Unwinding lands in main's landing pad, which clang puts on the function's closing brace,
// m4's line; the temporary std::string of m1 is destroyed; the catch is dispatched on m2. At
// -O2 the landing pad's own code has no line of its own there: the accumulator's values on
// the ways into the dispatch are constants loaded on each incoming edge (pass/AccFold.cpp);
// before that fold, its shift took the closing brace's location and the machine code ran
// m2 m4 m2. The temporary's lifetime end is a no-op cast on m1 that makes no code, so m1 is
// not a step there.)
// stack: use main
#include <cstdio>
#include <stdexcept>
#include <string>

__attribute__((noinline)) int parse(const std::string &s) {
  if (s.empty())                                                  //@p1
    throw std::invalid_argument("empty");                         //@p2
  return (int)s.size(); }

__attribute__((noinline)) int use(const int *p) {
  return *p; }                                                    //@u1

int main(int argc, char **argv) {
  try {
    std::printf("%d\n", parse(argc > 3 ? argv[1] : ""));          //@m1
  } catch (const std::invalid_argument &e) {                      //@m2
    std::printf("caught %s\n", e.what()); }                       //@m3
  return use(argc > 5 ? &argc : nullptr); }                       //@m4
