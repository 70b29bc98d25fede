/*
 * mini.c - the smoke test's workload: small, self-contained, in the repository (no download),
 * with the shapes the real workloads have (calls to small functions, nested loops,
 * data-dependent branches, a switch).
 *
 *   mini N      prints a checksum that is the same for every build
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint32_t miniState = 2463534242u;

static uint32_t miniRand(void) {
  miniState ^= miniState << 13;
  miniState ^= miniState >> 17;
  miniState ^= miniState << 5;
  return miniState;
}

static int miniCompare(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

static uint64_t miniOps(const uint32_t *v, size_t n) {
  uint64_t acc = 0;
  for (size_t i = 0; i < n; i++) {
    switch (v[i] % 5) {
    case 0: acc += v[i]; break;
    case 1: acc ^= (uint64_t)v[i] << 7; break;
    case 2: acc = acc * 31 + 1; break;
    case 3: if (acc & 1) acc >>= 1; break;
    default: acc -= v[i] & 0xff;
    }
  }
  return acc;
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
  uint32_t *v = malloc((n ? n : 1) * sizeof *v);
  uint64_t sum = 0;
  if (!v) return 1;
  for (int round = 0; round < 4; round++) {
    for (size_t i = 0; i < n; i++) v[i] = miniRand();
    sum += miniOps(v, n);
    qsort(v, n, sizeof *v, miniCompare);
    sum += v[0] + v[n ? n - 1 : 0];
  }
  printf("mini: n %zu checksum %llu\n", n, (unsigned long long)sum);
  free(v);
  return 0;
}
