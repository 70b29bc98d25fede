/*
 * flush_fragment.h - frames stopped in a flush's out-of-line fragment (flush_fragment.c).
 */
#ifndef CT_FLUSH_FRAGMENT_H
#define CT_FLUSH_FRAGMENT_H

#include <stddef.h>
#include <stdint.h>

/* Where a frame whose pc is in a flush's cold fragment stands in its function: `code` holds
 * `len` bytes of the module's text starting at link-time address `code_addr`, which contain
 * pc; `exact` is the frame's kind (1: the pc is where it stopped, the innermost frame or one a
 * signal interrupted; 0: a return address). On a match, *fn_pc is the address in the function
 * (the flush's label 2 while the record is still to be written, label 3 once it is), *sp_add
 * what to add to the stack pointer to get the function's, and 1 is returned; 0 when pc is not
 * in a fragment. */
int ct_flush_fragment_at(const uint8_t *code, uint64_t code_addr, size_t len, uint64_t pc,
                         int exact, uint64_t *fn_pc, uint64_t *sp_add);

#endif
