/*
 * capstone_lib.c - capstone opened on first use (see capstone_lib.h).
 */
#include "capstone_lib.h"

#include <stdio.h>

#include "lazy_lib.h"

#ifndef CT_CAPSTONE_SONAME
#define CT_CAPSTONE_SONAME "libcapstone.so.4"
#endif

struct ct_capstone ct_cs;

static int load(void) {
  static int failed;
#define SYM(f) {"cs_" #f, offsetof(struct ct_capstone, f)}
  static const struct ct_lazy_sym syms[] = {SYM(open), SYM(option),     SYM(malloc),
                                            SYM(disasm_iter), SYM(free), SYM(close),
                                            SYM(insn_group),  SYM(regs_access)};
#undef SYM
  char err[300];
  if (ct_cs.open) return 0;
  if (failed) return -1;
  if (ct_lazy_lib_load(CT_CAPSTONE_SONAME, syms, sizeof syms / sizeof syms[0], &ct_cs,
                       sizeof ct_cs, err, sizeof err) != 0) {
    failed = 1;
    fprintf(stderr, "crashtrail: warning: %s; machine code is not decoded (some calls' lines "
            "and some frames' values may be missing)\n", err);
    return -1;
  }
  return 0;
}

cs_err ct_capstone_open(csh *cs, int detail) {
  if (load() != 0) return CS_ERR_MEM;
  cs_err rc = ct_cs.open(CS_ARCH_X86, CS_MODE_64, cs);
  if (rc == CS_ERR_OK && detail) ct_cs.option(*cs, CS_OPT_DETAIL, CS_OPT_ON);
  return rc;
}
