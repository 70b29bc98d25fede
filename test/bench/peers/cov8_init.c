/*
 * cov8_init.c - the inline-8bit-counters peer's only runtime need: the module constructor
 * emitted by -fsanitize-coverage=inline-8bit-counters calls this with its counter array.
 * The counters are incremented inline; nothing else runs.
 */
#include <stdint.h>

void __sanitizer_cov_8bit_counters_init(uint8_t *start, uint8_t *stop) {
  (void)start;
  (void)stop;
}
