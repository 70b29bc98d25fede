/*
 * capstone_lib.h - capstone, opened on first use (lazy_lib.h): code_flow.c decodes machine code
 * only for functions DWARF does not describe well enough, and linking capstone cost every
 * `crashtrail` start 6 ms of relocations.
 */
#ifndef CT_CAPSTONE_LIB_H
#define CT_CAPSTONE_LIB_H

#include <capstone/capstone.h>

struct ct_capstone {
  __typeof__(&cs_open) open;
  __typeof__(&cs_option) option;
  __typeof__(&cs_malloc) malloc;
  __typeof__(&cs_disasm_iter) disasm_iter;
  __typeof__(&cs_free) free;
  __typeof__(&cs_close) close;
  __typeof__(&cs_insn_group) insn_group;
  __typeof__(&cs_regs_access) regs_access;
};

/* Filled by ct_capstone_open's first call. */
extern struct ct_capstone ct_cs;

/* An x86-64 decoder (with instruction details when `detail`), capstone loaded on first use.
 * CS_ERR_OK, or another code after a warning on stderr (once) when capstone cannot be loaded:
 * machine code then counts as undecodable, and what depends on it is left out. */
cs_err ct_capstone_open(csh *cs, int detail);

#endif
