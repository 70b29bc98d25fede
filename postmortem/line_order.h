/*
 * line_order.h - a block's source lines in the order its machine code runs them.
 */
#ifndef CT_LINE_ORDER_H
#define CT_LINE_ORDER_H

#include "dwarf_module.h"
#include "elf_file.h"
#include "meta_reader.h"

/* A module's reordering: its DWARF, and elf (the module's file with its code, or NULL) for the
 * calls of functions DWARF has no call-site entries for (a decoder opened on first use). Both
 * must outlive it. NULL when out of memory. */
struct ct_line_order;
struct ct_line_order *ct_line_order_new(struct ct_dwarf *d, const struct ct_elf *elf);
void ct_line_order_free(struct ct_line_order *lo);

/* When the pass flagged f CT_FN_BLOCK_DISC, rewrites each of its blocks' lines from the
 * line-table rows that carry its discriminator (see line_order.c); call before f's decoder
 * tables are built (a ct_meta_load_refined refinement). Returns 1 reordered, 0 nothing to do,
 * -1 out of memory (f is then unchanged where not yet reordered, and still consistent). */
int ct_line_order_function(struct ct_line_order *lo, struct ct_meta *m, struct ct_mfunc *f);

#endif
