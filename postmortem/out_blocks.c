/*
 * out_blocks.c - `crashtrail show --format=blocks`: every decoded block in order, per thread,
 * then every block's dumped last/first table entry (tables mode):
 *   thread TID
 *   MODULE 0xFN BLOCK                  (one line per decoded block, oldest first)
 *   table MODULE 0xFN BLOCK LAST FIRST (CT_SYM_NOW units; 0 0: the block never ran)
 * A testing aid: the round-trip tests compare it with an independent per-block trace of the
 * same run (-mllvm -crashtrail-block-trace), block for block and entry for entry.
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
  for (size_t i = 0; i < t->ntable_refs; i++) {
    const struct ct_table_ref *r = &t->table_refs[i];
    fprintf(out, "table %s 0x%llx %u %llu %llu\n",
            r->b.module < t->nmodules ? t->modules[r->b.module].name : "?",
            (unsigned long long)r->b.fn, r->b.block, (unsigned long long)r->last,
            (unsigned long long)r->first);
  }
}
