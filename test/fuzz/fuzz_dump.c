/*
 * fuzz_dump.c - libFuzzer target: a dump, parsed, its modules resolved against the fixed
 * binary the corpus was made with (corpus/target.bin, matched by build-id), decoded into a
 * timeline (rings, records, CFG walks, stack unwinding from the dumped registers and stack)
 * and rendered as JSON. Any crash, leak, hang or sanitizer report is a bug.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "dump_reader.h"
#include "module_files.h"
#include "outputs.h"
#include "timeline.h"

#ifndef CT_FUZZ_BINARY
#error "define CT_FUZZ_BINARY (the binary the corpus dumps come from)"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static FILE *sink;
  struct ct_dump *d = NULL;
  struct ct_modset *m = NULL;
  struct ct_timeline *t = NULL;
  const char *bins[1] = {CT_FUZZ_BINARY};
  struct ct_resolve_opts ro = {bins, 1, NULL, 0, 1};
  char err[1024];
  if (!sink) sink = fopen("/dev/null", "w");
  if (ct_dump_parse(data, size, &d, err, sizeof err) == 0 &&
      ct_modules_resolve(d, &ro, &m, err, sizeof err) == 0 &&
      ct_timeline_build(d, m, 1, 0, &t, err, sizeof err) == 0) {
    ct_write_json(t, sink);
    ct_write_blocks(t, sink);
    ct_timeline_free(t);
    t = NULL;
    /* windowed decoding (crashtrail show's default): counted steps, record summaries */
    if (ct_timeline_build(d, m, 0, 3, &t, err, sizeof err) == 0) ct_write_json(t, sink);
  }
  ct_timeline_free(t);
  ct_modules_free(m);
  ct_dump_free(d);
  return 0;
}
