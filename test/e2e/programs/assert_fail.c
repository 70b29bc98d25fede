/* abort() from a failed assert().
 *
 * crashtrail-e2e
 * signal: SIGABRT
 * expect-O0: m1 m2 v1 v2 v3 v2 v3 v2 v4 m2 m3
 * expect-O2: m1 m2 v2 v3 v2 v3 v2 v4 m3
 * stack-contains: main
 */
#include <assert.h>

__attribute__((noinline)) static int count_vowels(const char *s) {
  int n = 0;                                          //@v1
  for (; *s; s++)                                     //@v2
    n += *s == 'a' || *s == 'e';                      //@v3
  return n; }                                         //@v4

int main(int argc, char **argv) {
  const char *word = argc > 3 ? argv[1] : "ax";       //@m1
  int vowels = count_vowels(word);                    //@m2
  assert(vowels == 2 && "every word has two vowels"); //@m3
  return vowels; }
