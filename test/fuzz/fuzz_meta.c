/*
 * fuzz_meta.c - libFuzzer target: a .debug_crashtrail section, parsed, then every function
 * walked with accumulators taken from the input's own bytes (full records and partial paths),
 * so the metadata reader and the decoder see hostile metadata and hostile records together.
 */
#include <stdint.h>
#include <string.h>

#include "decoder.h"
#include "meta_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct ct_meta *m;
  char err[512];
  if (ct_meta_load(data, size, size & 1, &m, err, sizeof err) != 0) return 0;
  for (size_t f = 0; f < m->nfuncs; f++) {
    if (!ct_meta_ready(m, &m->funcs[f])) continue;
    for (size_t k = 0; k + 8 <= size && k < 256; k += 8) {
      uint64_t acc;
      struct ct_walk w;
      memcpy(&acc, data + k, 8);
      int st = ct_walk_start(&w, &m->funcs[f], acc);
      for (int steps = 0; st == CT_WALK_BLOCK && steps < 100000; steps++)
        st = ct_walk_next(&w, (int)(k & 8));
    }
    (void)ct_meta_find(m, m->funcs[f].addr);
  }
  ct_meta_free(m);
  return 0;
}
