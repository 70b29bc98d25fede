/*
 * out_blocks.c - `crashtrail show --format=blocks`: every decoded block in order, per thread.
 * A testing aid: the round-trip tests compare it with an independent per-block trace of the
 * same run (-mllvm -crashtrail-block-trace), block for block.
 */
#include <stdio.h>

#include "outputs.h"

void ct_write_blocks(const struct ct_timeline *t, FILE *out) {
  for (size_t i = 0; i < t->nthreads; i++) {
    const struct ct_tl_thread *th = &t->threads[i];
    fprintf(out, "thread %u\n", th->tid);
    for (size_t k = 0; k < th->nblocks; k++)
      fprintf(out, "%s 0x%llx %u\n", th->blocks[k].module < t->nmodules ? t->modules[th->blocks[k].module].name : "?",
              (unsigned long long)th->blocks[k].fn, th->blocks[k].block);
  }
}
