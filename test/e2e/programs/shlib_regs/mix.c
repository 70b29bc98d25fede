/* libmix: an instrumented shared library whose mix() keeps more values in registers than a
 * function normally does, r10 among them, across its first flush: the loop's check point fires
 * when the accumulator fills, and the first record a thread writes in a module takes the slow
 * path (a new ring). That path is a preserve_most call of the runtime, which lives in another
 * shared object: through a lazily bound PLT slot, the dynamic linker's resolver would run first
 * and clobber r10, which preserve_most callers keep values in. */
#include "mix.h"

unsigned long mix(const unsigned long *v, int rounds) {
  unsigned long a = v[0], b = v[1], c = v[2], d = v[3], e = v[4], f = v[5], g = v[6];
  unsigned long h = v[7], i = v[8], j = v[9], k = v[10], l = v[11];
  for (int t = 0; t < rounds; t++) {
    if ((a ^ (unsigned long)t) & 1) a += b * 3; else b ^= c + 7;
    if ((c >> 3) & 1) c += d; else d ^= e << 1;
    if (e & 4) e -= f; else f += g;
    if ((g ^ h) & 2) g ^= h >> 2; else h += i;
    if (i & 8) i += j; else j ^= k;
    if ((k + l) & 1) k += l * 5; else l ^= a;
  }
  return a ^ (b << 1) ^ (c << 2) ^ (d << 3) ^ (e << 4) ^ (f << 5) ^ (g << 6) ^ (h << 7) ^
         (i << 8) ^ (j << 9) ^ (k << 10) ^ (l << 11);
}

int first(const int *p) {
  return *p; }                                        //@f1
