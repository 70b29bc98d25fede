/*
 * line_order.h - a block's source lines in the order its machine code runs them.
 */
#ifndef CT_LINE_ORDER_H
#define CT_LINE_ORDER_H

#include "dwarf_module.h"
#include "elf_file.h"
#include "meta_reader.h"

/* For every function of m the pass flagged CT_FN_BLOCK_DISC, rewrites each block's lines from
 * the line-table rows that carry its discriminator (line_order.c). Call before
 * ct_meta_build_walk. elf (the module's file with its code, or NULL) gives the calls of functions
 * DWARF has no call-site entries for. Returns how many functions were reordered, or -1 when out
 * of memory (m is then unchanged where it was not yet reordered, and still consistent). */
long ct_meta_order_lines(struct ct_meta *m, struct ct_dwarf *d, const struct ct_elf *elf);

#endif
