/*
 * stack_scan.h - return addresses found by scanning the stack, for frames in code without
 * unwind information (stack_scan.c).
 */
#ifndef CT_STACK_SCAN_H
#define CT_STACK_SCAN_H

#include <stdint.h>

#include "dump_reader.h"
#include "dwarf_module.h"
#include "module_files.h"

/* Whether runtime address ret follows a call instruction in the code of a module of mods.
 * into_unknown: only a call that can reach code no module holds (indirect, not through a
 * RIP-relative slot). */
int ct_stack_follows_call(struct ct_modset *mods, uint64_t ret, int into_unknown);

/* From r (the stack pointer of a frame in code no module holds), the caller found by scanning
 * up to 16 KiB of the dumped stack: r gets its pc and stack pointer (and rbp, when a
 * frame-pointer function's record was found), nothing else. 0 if found, else -1. */
int ct_stack_scan_for_return(struct ct_modset *mods, struct ct_dump *d, struct ct_regs *r);

#endif
