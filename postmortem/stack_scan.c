/*
 * stack_scan.c - unwinding past code without unwind information: finding return addresses on
 * the stack.
 *
 * A frame in code no module holds (JIT-generated code: pcre2's, a JavaScript engine's; or a
 * corrupt pc) has no CFI, and such code keeps no frame-pointer chain. The walk goes on from
 * the first word above its stack pointer that (1) follows a call instruction that could have
 * entered such code (indirect, not through a RIP-relative slot: generated code is entered
 * through a pointer in a register or a structure), (2) in a module's code, and (3) whose own
 * frame unwinds, from that stack pointer alone or with the saved-rbp slot of a frame-pointer
 * function, to another return address. (3) is what rejects the stale return addresses that
 * uninitialised stack is full of. Debuggers and crash reporters scan so as a last resort; the
 * registers but the stack pointer are unknown afterwards, and the frame is marked as scanned.
 */
#include <stdint.h>
#include <stddef.h>

#include "dump_reader.h"
#include "dwarf_module.h"
#include "elf_file.h"
#include "stack_scan.h"

/* The length of a call instruction `ff /2` (an optional REX prefix, ModRM, SIB, displacement)
 * that starts at p, of the `avail` bytes there, or 0 if p holds no such call. */
static size_t indirect_call_length(const uint8_t *p, size_t avail) {
  size_t n = 0;
  if (avail < 2) return 0;
  if ((p[0] & 0xF0) == 0x40) n++; /* REX */
  if (n + 2 > avail || p[n] != 0xFF || ((p[n + 1] >> 3) & 7) != 2) return 0;
  uint8_t mod = p[n + 1] >> 6, rm = p[n + 1] & 7;
  n += 2;
  if (mod == 3) return n;
  if (rm == 4 && n >= avail) return 0;
  if (rm == 4) n += 1 + (mod == 0 && (p[n] & 7) == 5 ? 4 : 0); /* SIB (no base: disp32) */
  else if (mod == 0 && rm == 5) n += 4;                            /* RIP-relative */
  return n + (mod == 1 ? 1 : mod == 2 ? 4 : 0);
}

/* Whether runtime address ret is a return address: it follows a call instruction in the code
 * of a module of the dump. `into_unknown`: a call that can reach code no module holds, so
 * neither a direct call nor one through a RIP-relative slot (a GOT entry): generated code is
 * entered through a pointer in a register or a structure. */
int ct_stack_follows_call(struct ct_modset *mods, uint64_t ret, int into_unknown) {
  struct ct_module *m = ct_modules_at(mods, ret);
  if (!m || !m->elf || ret - m->bias < 8) return 0;
  const uint8_t *p = ct_elf_bytes_at(m->elf, ret - m->bias - 8, 8);
  if (!p) return 0;
  if (p[3] == 0xE8 && !into_unknown) return 1; /* call rel32 */
  for (size_t len = 2; len <= 8; len++) {
    const uint8_t *c = p + 8 - len;
    if (indirect_call_length(c, len) != len) continue;
    uint8_t modrm = c[(c[0] & 0xF0) == 0x40 ? 2 : 1];
    if (!into_unknown || (modrm & 0xC7) != 0x05) return 1;
  }
  return 0;
}

/* Whether a frame found by scanning (pc and stack pointer only) is a live one: its function's
 * CFI finds its caller from the stack pointer alone, and that caller's pc is a return address
 * too. A stale return address left in uninitialised stack (a slow path's call, an earlier
 * callee's) seldom passes: its CFA or its own return slot is somewhere else. */
static int live_caller(struct ct_modset *mods, struct ct_dump *d, struct ct_regs cand) {
  struct ct_module *m = ct_modules_at(mods, cand.r[16]);
  struct ct_dwarf *dw = m ? ct_module_dwarf(m) : NULL;
  uint64_t cfa;
  if (!dw || ct_dwarf_unwind_step(dw, m->bias, 0, &cand, &cfa, ct_dump_read_stack, d) != 0)
    return 0;
  return ct_stack_follows_call(mods, cand.r[16], 0);
}

/* A frame found by scanning whose function keeps a frame pointer (its CFA is rbp + 16: -O0
 * code, -fno-omit-frame-pointer) cannot be unwound without rbp, which the code below it (JIT
 * code uses rbp as it likes) need not have kept. The frame's own record is two words, saved rbp
 * and return address: the first slot above its stack pointer whose next word is a return
 * address and whose value is the caller's record (higher up, a return address after it; or 0)
 * is taken for it, if the frame then unwinds to a live caller. */
static int frame_pointer_of(struct ct_modset *mods, struct ct_dump *d, struct ct_regs *cand) {
  enum { FP_WORDS = 256 };
  uint64_t sp = cand->r[CT_REG_SP], saved, ret;
  for (uint64_t s = sp; s < sp + 8 * FP_WORDS; s += 8) {
    if (ct_dump_read_stack(d, s, &saved, 8) != 0 ||
        ct_dump_read_stack(d, s + 8, &ret, 8) != 0)
      return 0;
    if ((saved != 0 && saved <= s) || !ct_stack_follows_call(mods, ret, 0)) continue;
    /* the saved rbp is the caller's frame record, or the outermost frame's 0 */
    uint64_t outer_ret;
    if (saved != 0 && (ct_dump_read_stack(d, saved + 8, &outer_ret, 8) != 0 ||
                       !ct_stack_follows_call(mods, outer_ret, 0)))
      continue;
    struct ct_regs with_bp = *cand;
    with_bp.r[CT_REG_BP] = s;
    with_bp.valid |= 1u << CT_REG_BP;
    if (live_caller(mods, d, with_bp)) {
      *cand = with_bp;
      return 1;
    }
  }
  return 0;
}

int ct_stack_scan_for_return(struct ct_modset *mods, struct ct_dump *d, struct ct_regs *r) {
  enum { SCAN_WORDS = 2048 };
  uint64_t sp = r->r[CT_REG_SP], v;
  for (uint64_t a = sp; a < sp + 8 * SCAN_WORDS; a += 8) {
    if (ct_dump_read_stack(d, a, &v, 8) != 0) return -1;
    struct ct_regs cand = {.valid = (1u << CT_REG_SP) | (1u << 16)};
    cand.r[16] = v;
    cand.r[CT_REG_SP] = a + 8;
    if (!ct_stack_follows_call(mods, v, 1)) continue;
    if (live_caller(mods, d, cand) || frame_pointer_of(mods, d, &cand)) {
      *r = cand;
      return 0;
    }
  }
  return -1;
}
