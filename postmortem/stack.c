/*
 * stack.c - a dumped thread's stack (the crashed thread's, and those of the threads stopped for
 * the dump), and the unfinished path of its innermost instrumented frame.
 *
 * Unwinding starts from the thread's dumped registers and reads memory only from the dumped
 * stack slices: call-frame information first (.eh_frame/.debug_frame through libdwarf), the
 * frame pointer chain when a module has none, and above code no module holds (JIT code) a
 * return address found by scanning the stack (stack_scan.c). Each frame is symbolised with its
 * inline chain (innermost first); caller frames are looked up at pc-1, inside the call
 * instruction, except a frame a signal interrupted (the step through the trampoline flags
 * it): its pc is exact.
 *
 * The unfinished path: the records in the ring stop at the frame's last flush; the bits since
 * then are still in the accumulator at the fault. Its DWARF location (the artificial variable
 * __crashtrail_path) is evaluated against the frame's registers, and the path is walked until
 * the faulting line. What cannot be proven (no variable, optimised out, the line not found on
 * the path) is marked uncertain instead of guessed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crashtrail/abi.h"
#include "callstack.h"
#include "cxx_names.h"
#include "decoder.h"
#include "dwarf_module.h"
#include "elf_file.h"
#include "flush_fragment.h"
#include "postorder.h"
#include "stack_scan.h"
#include "timeline.h"

#define CT_MAX_FRAMES 256

struct raw_frame {
  struct ct_regs regs;
  uint64_t cfa;
  int have_cfa;
  struct ct_module *mod;
  uint64_t link; /* the pc as a link-time address in mod (caller frames: inside the call) */
  struct ct_srcloc loc[16];
  int nloc;
  int interrupted; /* a signal stopped this frame here (the frame inside it is a trampoline) */
  int scanned;     /* its pc was found by scanning the stack (stack_scan.c) */
  size_t shown;    /* the index of its innermost entry in the thread's stack */
};

static int add_frame(struct ct_tl_thread *th, const struct ct_frame *f) {
  struct ct_frame *nf = realloc(th->stack, (th->nstack + 1) * sizeof *nf);
  if (!nf) return -1;
  th->stack = nf;
  th->stack[th->nstack++] = *f;
  return 0;
}

/* The ELF symbol (linkage name) of a link-time address: the debug file's table, else the
 * binary's. *start, if not NULL, receives the symbol's address. */
static const char *module_symbol(const struct ct_module *m, uint64_t link, uint64_t *start,
                                 uint64_t *size) {
  const char *sym = m->debug_elf ? ct_elf_symbol_at(m->debug_elf, link, start, size) : NULL;
  if (!sym && m->elf) sym = ct_elf_symbol_at(m->elf, link, start, size);
  return sym;
}

static void symbolise(struct ct_timeline *t, struct ct_tl_thread *th, struct raw_frame *rf,
                      int first) {
  uint64_t pc = rf->regs.r[16];
  struct ct_frame out = {pc, -1, "??", NULL, 0, 0, 0, rf->scanned};
  const char *shown = NULL; /* a C++ symbol's name demangled, when the name is a symbol's */
  rf->nloc = 0;
  rf->shown = th->nstack;
  if (rf->mod) {
    uint64_t link = rf->link = pc - rf->mod->bias - (first ? 0 : 1);
    struct ct_dwarf *dw = ct_module_dwarf(rf->mod);
    out.module = (int)(rf->mod - t->mods->mods);
    if (dw && first) ct_dwarf_expect_locals(dw); /* frame_locals reads this frame's first */
    if (dw) rf->nloc = ct_dwarf_lookup(dw, link, rf->loc, 16);
    if (rf->nloc == 0 || !rf->loc[0].function) {
      const char *sym = module_symbol(rf->mod, link, NULL, NULL);
      char *readable = ct_cxx_demangle(sym); /* "_ZSt9terminatev" is std::terminate */
      if (readable) {
        char buf[128];
        const char *s = ct_cxx_short_name(readable, buf, sizeof buf);
        shown = ct_arena_strndup(&t->arena, s, strlen(s));
        free(readable);
      }
      if (sym) {
        rf->loc[0] = (struct ct_srcloc){sym, rf->nloc ? rf->loc[0].file : NULL,
                                        rf->nloc ? rf->loc[0].line : 0, 0};
        rf->nloc = 1;
      }
    }
  }
  for (int i = 0; i < rf->nloc; i++) {
    out.function = rf->loc[i].function ? rf->loc[i].function : "??";
    if (i == 0 && shown) out.function = shown;
    out.file = rf->loc[i].file;
    out.line = rf->loc[i].line;
    out.col = rf->loc[i].column;
    out.inlined = i + 1 < rf->nloc;
    add_frame(th, &out);
  }
  if (rf->nloc == 0) add_frame(th, &out);
}

/* Frame-pointer fallback for code without call-frame information. */
static int unwind_fp(struct ct_dump *d, struct ct_regs *r) {
  uint64_t bp = r->r[CT_REG_BP], next_bp, ret;
  if (!(r->valid & (1u << CT_REG_BP)) || bp < r->r[CT_REG_SP]) return -1;
  if (ct_dump_read_stack(d, bp, &next_bp, 8) || ct_dump_read_stack(d, bp + 8, &ret, 8)) return -1;
  r->r[CT_REG_SP] = bp + 16;
  r->r[CT_REG_BP] = next_bp;
  r->r[16] = ret;
  r->valid = (1u << CT_REG_SP) | (1u << CT_REG_BP) | (1u << 16);
  return 0;
}

/* Whether the function frame rf is in has a symbol called `name` (the linkage name, as the
 * metadata names callees): the one the unwinder shows, or another one at the same address (an
 * alias), in the debug file's table or the binary's. */
static int frame_named(const struct raw_frame *rf, const char *name) {
  struct ct_elf *tables[2] = {rf->mod ? rf->mod->debug_elf : NULL, rf->mod ? rf->mod->elf : NULL};
  for (int i = 0; i < 2; i++) {
    uint64_t start;
    const char *sym = tables[i] ? ct_elf_symbol_at(tables[i], rf->link, &start, NULL) : NULL;
    if (sym && (!strcmp(sym, name) || ct_elf_symbol_alias(tables[i], start, name))) return 1;
  }
  return 0;
}

/* Whether the function at rf is one of the flush slow paths instrumented code calls with the
 * preserve_most convention (the runtime's, the per-module stubs and the out-of-line slow paths'
 * trampolines: every register but r11 kept). A register such a function never touches has the CFI rule "same value", which the
 * unwinder takes as "clobbered" for rax, rcx, rdx, rsi, rdi, r8-r10: here it is the caller's
 * value, and the path accumulator of a frame suspended in a refill often lives there. */
static int preserves_most(const struct raw_frame *rf) {
  static const char *const names[] = {CT_SYM_RING_REFILL,   CT_SYM_STAMPED_SLOW,
                                      CT_SYM_STAMP_WRAP,    CT_SYM_REFILL_HERE,
                                      CT_SYM_STAMPED_SLOW_HERE, CT_SYM_WRITE_SLOW,
                                      CT_SYM_STAMPED_WRITE_SLOW, CT_SYM_WRITE_HERE,
                                      CT_SYM_STAMPED_WRITE_HERE, CT_SYM_WRITE_HERE_V2,
                                      CT_SYM_STAMPED_WRITE_HERE_V2, CT_SYM_WRITE_HERE_V1,
                                      CT_SYM_STAMPED_WRITE_HERE_V1};
  for (size_t i = 0; rf->mod && i < sizeof names / sizeof names[0]; i++)
    if (frame_named(rf, names[i])) return 1; /* the runtime calls them by hidden aliases too */
  return 0;
}

/* A frame stopped in a flush's out-of-line fragment (which has no unwind information) is put
 * back in its function, mid-flush (flush_fragment.c): r's pc and stack pointer change. */
static void leave_flush_fragment(struct ct_module *m, struct ct_regs *r, int exact) {
  enum { BEFORE = 32, AFTER = 48 }; /* a fragment is 21 to 25 bytes (an older pass's 38 to 43) */
  uint64_t link = r->r[16] - m->bias, fn_pc, sp_add;
  if (!m->elf || !(r->valid & (1u << CT_REG_SP))) return;
  for (uint64_t back = BEFORE;; back /= 2) { /* a window that fits in the section */
    const uint8_t *code = link >= back ? ct_elf_bytes_at(m->elf, link - back, back + AFTER) : NULL;
    if (code) {
      if (ct_flush_fragment_at(code, link - back, back + AFTER, link, exact, &fn_pc, &sp_add)) {
        r->r[16] = fn_pc + m->bias;
        r->r[CT_REG_SP] += sp_add;
      }
      return;
    }
    if (back == 0) return;
  }
}

/* Walks the stack from the dumped registers; returns the number of raw frames. */
static int unwind(struct ct_timeline *t, struct ct_tl_thread *th, struct raw_frame *frames) {
  struct ct_dump *d = t->dump;
  const struct ct_ds_registers *dr = ct_dump_regs_of(d, th->tid);
  struct ct_regs regs;
  int n = 0;
  if (!dr) return 0;
  memset(&regs, 0, sizeof regs);
  for (int i = 0; i < CT_DW_NREGS && i < (int)dr->nregs; i++) regs.r[i] = dr->regs[i];
  regs.valid = (1u << CT_DW_NREGS) - 1;
  int scanned = 0;
  while (n < CT_MAX_FRAMES && regs.r[16]) {
    struct raw_frame *rf = &frames[n];
    /* The innermost frame's pc is where it stopped, and so is that of a frame a signal
     * interrupted (restored by a trampoline whose CIE says "S"): neither points after a call,
     * and looking them up at pc-1 would take the previous instruction's CFI row and line. */
    int exact = n == 0 || (regs.flags & CT_REGS_SIGNAL_FRAME);
    memset(rf, 0, sizeof *rf);
    rf->regs = regs;
    rf->interrupted = n > 0 && exact;
    rf->scanned = scanned;
    scanned = 0;
    rf->mod = ct_modules_at(t->mods, regs.r[16]);
    if (rf->mod) {
      leave_flush_fragment(rf->mod, &regs, exact);
      rf->regs = regs;
    }
    symbolise(t, th, rf, exact);
    n++;
    uint64_t sp = regs.r[CT_REG_SP];
    struct ct_dwarf *dw = rf->mod ? ct_module_dwarf(rf->mod) : NULL;
    regs.flags = 0; /* set again only by a step through a signal trampoline */
    if (dw && ct_dwarf_unwind_step(dw, rf->mod->bias, exact, &regs, &rf->cfa, ct_dump_read_stack, d) == 0) {
      rf->have_cfa = 1;
      /* A signal trampoline (libc's __restore_rt has no symbol in a stripped libc): named as
       * debuggers name it, so the stack reads handler, signal, interrupted frame. */
      if ((regs.flags & CT_REGS_SIGNAL_FRAME) && th->nstack &&
          !strcmp(th->stack[th->nstack - 1].function, "??"))
        th->stack[th->nstack - 1].function = "<signal handler called>";
      if (preserves_most(rf))
        for (int col = 0; col <= 10; col++) /* r11 is the one register it may clobber */
          if (col != 3 && col != 6 && col != CT_REG_SP && !(regs.valid & (1u << col)) &&
              (rf->regs.valid & (1u << col))) {
            regs.r[col] = rf->regs.r[col];
            regs.valid |= 1u << col;
          }
    } else if (n == 1 && !rf->mod) { /* a call to a bad address: the return address is on top */
      uint64_t ret;
      if (ct_dump_read_stack(d, sp, &ret, 8) != 0) break;
      regs.r[16] = ret;
      regs.r[CT_REG_SP] = sp + 8;
    } else if (!rf->mod) {
      /* Code no module holds: the vDSO (whose callers, the runtime among them, keep frame
       * pointers), or JIT code, which keeps none: the frame pointer's word above it must be a
       * return address, else the stack is scanned for one. */
      struct ct_regs by_fp = regs;
      if (unwind_fp(d, &by_fp) == 0 && ct_stack_follows_call(t->mods, by_fp.r[16], 0)) {
        regs = by_fp;
      } else if (ct_stack_scan_for_return(t->mods, t->dump, &regs) == 0) {
        scanned = 1;
      } else {
        break;
      }
    } else if (unwind_fp(d, &regs) != 0) {
      break;
    }
    if (regs.r[CT_REG_SP] <= sp) break; /* no progress: corrupt stack */
  }
  return n;
}

/* The function of the metadata that contains a frame's pc, or NULL. */
static const struct ct_mfunc *instrumented_function(struct raw_frame *rf, uint64_t *fn_start) {
  struct ct_module *m = rf->mod;
  uint64_t start = 0;
  if (!m || !m->meta) return NULL;
  const char *sym = module_symbol(m, rf->link, &start, NULL);
  *fn_start = start;
  return sym ? ct_meta_find(m->meta, start) : NULL;
}

static int same_line(const struct ct_mline *l, const struct ct_srcloc *loc) {
  return loc->file && l->line == loc->line && !strcmp(l->file, loc->file);
}

/* Appends the crash line (from DWARF) unless the timeline already ends there. */
static void mark_crash_line(struct ct_timeline *t, struct ct_tl_thread *th, struct raw_frame *rf,
                            const struct ct_mfunc *f, int certain) {
  struct ct_step *last = th->nsteps ? &th->steps[th->nsteps - 1] : NULL;
  const struct ct_srcloc *loc = rf->nloc ? &rf->loc[0] : NULL;
  /* Line 0 (code of no line: after a call, crashtrail's own code) says nothing of where in
   * the source the thread was: the crash is after the last step. */
  if (!loc || !loc->file || loc->line == 0) {
    if (last) last->flags |= (uint16_t)(CT_STEP_CRASH | (certain ? 0 : CT_STEP_UNCERTAIN));
    return;
  }
  if (last && last->line == loc->line && last->file && !strcmp(last->file, loc->file)) {
    last->flags |= (uint16_t)(CT_STEP_CRASH | (certain ? 0 : CT_STEP_UNCERTAIN));
    return;
  }
  struct ct_step s = {.function = loc->function ? loc->function : "??",
                      .outer = f ? f->display : loc->function,
                      .file = ct_arena_strndup(&t->arena, loc->file, strlen(loc->file)),
                      .line = loc->line, .col = loc->column, .fn = f,
                      .module = (uint16_t)(rf->mod ? rf->mod - t->mods->mods : 0),
                      .flags = (uint16_t)(CT_STEP_CRASH | (certain ? 0 : CT_STEP_UNCERTAIN)),
                      .depth = last ? last->depth : CT_DEPTH_BIAS, .time_ns = last ? last->time_ns : 0};
  ct_tl_add_step(th, &s);
}

/* Whether block mb ends in a call that returns to block `target`. */
static int calls_into(const struct ct_mblock *mb, uint32_t target) {
  return (mb->term == CT_TERM_CALL || mb->term == CT_TERM_INVOKE) && mb->nsucc &&
         mb->succ[0].block == target;
}

/* Whether the frame, stopped at an after-call site with no bits since, is suspended in the
 * very call that ended its last record. Calls the pass does not flush (strlen, memcpy, the
 * runtime's ring refill) leave the accumulator at an earlier after-call site while the code
 * between runs. The call before the site is the one when its line and column are those of
 * the frame's return address, or when it names the function the unwinder found called (the
 * frame `inner`, NULL for the innermost frame; a callee without a symbol, as libc's internal
 * strlen variants, matches no name), under that symbol's name or an alias of it: a library
 * exports one function under several names (fflush is _IO_fflush, clock_gettime is
 * __clock_gettime), and the unwinder finds whichever its symbol table lists. */
static int suspended_in_flushed_call(const struct ct_mfunc *f, uint32_t site,
                                     const struct raw_frame *inner, const struct raw_frame *rf) {
  uint32_t target = f->site_block[site];
  for (uint32_t b = 0; b < f->nblocks; b++) {
    const struct ct_mblock *mb = &f->blocks[b];
    if (!calls_into(mb, target)) continue;
    if (inner && mb->callee && frame_named(inner, mb->callee)) return 1;
    if (mb->nlines && rf->nloc) {
      const struct ct_mline *call = &mb->lines[mb->nlines - 1];
      if (same_line(call, &rf->loc[0]) && call->col == rf->loc[0].column) return 1;
    }
  }
  return 0;
}

/* The first line of mb that is loc's, or -1. */
static long block_line(const struct ct_mblock *mb, const struct ct_srcloc *loc) {
  for (uint32_t l = 0; l < mb->nlines; l++)
    if (same_line(&mb->lines[l], loc)) return (long)l;
  return -1;
}

/* The line of the call that the after-call site `site` follows (the last line of the block
 * whose call returns to it), or NULL. */
static const struct ct_mline *call_before_site(const struct ct_mfunc *f, uint32_t site) {
  uint32_t target = f->site_block[site];
  for (uint32_t b = 0; b < f->nblocks; b++) {
    const struct ct_mblock *mb = &f->blocks[b];
    if (calls_into(mb, target) && mb->nlines) return &mb->lines[mb->nlines - 1];
  }
  return NULL;
}

/* Where a pc of line 0 falls in the path's last block: at the block's line of the nearest
 * line-table row before the pc (in address order, in the function starting at fn_start): the
 * code after that line (a switch's dispatch, a branch's bit, a flush), so the block has run
 * up to it. Returns that line's index in mb (its first occurrence: no line shown that may not
 * have run), or -1 when the row's line is not in the block (the code of line 0 is then most
 * likely at the block's start, a check or edge code, and none of its lines has run), or when
 * it is `call`'s row (its line and column): the pc is where that call returned to, and the
 * block has run nothing yet. (The row after the pc says nothing sure: its line may not have
 * begun.) */
static long line0_position(const struct raw_frame *rf, uint64_t fn_start,
                           const struct ct_mblock *mb, const struct ct_mline *call) {
  struct ct_dwarf *dw = rf->mod ? ct_module_dwarf(rf->mod) : NULL;
  struct ct_srcloc before;
  if (!dw || !fn_start || !ct_dwarf_line_before(dw, fn_start, rf->link, &before)) return -1;
  /* the call's own row: the return address's code (a different column on the same line is a
   * later row: the block ran up to it, as -O0's `return f();` after the callee returned) */
  if (call && same_line(call, &before) &&
      (!call->col || !before.column || call->col == before.column))
    return -1;
  return block_line(mb, &before);
}

/* len bytes of rf's module's code at link-time address addr, or NULL. */
static const uint8_t *code_at(const struct raw_frame *rf, uint64_t addr, size_t len) {
  const struct ct_elf *e = rf->mod ? rf->mod->elf : NULL;
  return e ? ct_elf_bytes_at(e, addr, len) : NULL;
}

/* The machine code of the function containing link-time address link, from the module's file
 * (bytes NULL if its symbol has no size or its code is not in the file), and the file's other
 * bytes for its jump tables. */
static const uint8_t *file_bytes(void *elf, uint64_t addr, size_t len) {
  return ct_elf_bytes_at(elf, addr, len);
}

static struct ct_code_view function_code(const struct raw_frame *rf, uint64_t link) {
  struct ct_code_view v = {NULL, 0, 0, file_bytes, rf->mod ? rf->mod->elf : NULL};
  uint64_t start = 0, size = 0;
  if (rf->mod && module_symbol(rf->mod, link, &start, &size) && size && size < (64u << 20) &&
      (v.bytes = code_at(rf, start, (size_t)size))) {
    v.lo = start;
    v.hi = start + size;
  }
  return v;
}

/* Whether the code from link-time address addr up to `to` cannot leave that range: no byte
 * that could start a jump, a call or a return (jcc 70-7F and 0F 80-8F, jmp EB E9, call E8, ret
 * C2 C3, FF's indirect forms; conservative: an immediate or a ModRM byte of such a value says
 * "may"), or it is exactly one direct jmp to `to`. */
static int falls_through_to(const struct raw_frame *rf, uint64_t addr, uint64_t to) {
  size_t len = (size_t)(to - addr);
  const uint8_t *p = code_at(rf, addr, len);
  if (!p) return 0;
  if ((len == 2 && p[0] == 0xEB && p[1] == 0) ||
      (len == 5 && p[0] == 0xE9 && !p[1] && !p[2] && !p[3] && !p[4]))
    return 1; /* a jump to the next instruction: -O0's jump between blocks laid out in order */
  for (size_t i = 0; i < len; i++) {
    uint8_t b = p[i];
    if ((b >= 0x70 && b <= 0x7F) || b == 0xEB || b == 0xE9 || b == 0xE8 || b == 0xC2 ||
        b == 0xC3 || b == 0xFF || (b == 0x0F && i + 1 < len && (p[i + 1] & 0xF0) == 0x80))
      return 0;
  }
  return 1;
}

/* For a pc of line 0 (code a compiler or crashtrail made, which has no discriminator): the
 * block whose code the pc is right before, named by the discriminator of the next line-table
 * row with a line, when control cannot go elsewhere on the way (at most 16 bytes) and the row
 * with a line before the pc is another block's (else the pc is inside that block: a branch's
 * bit between two of its rows). A register copy the allocator put at a block's start, a jump
 * to the next block: that block has begun, none of its lines has run. -1 when unknown. */
static long block_ahead(const struct raw_frame *rf, const struct ct_mfunc *f) {
  struct ct_dwarf *dw = rf->mod ? ct_module_dwarf(rf->mod) : NULL;
  uint64_t at;
  uint32_t before;
  if (!dw || !(f->flags & CT_FN_BLOCK_DISC)) return -1;
  uint32_t disc = ct_dwarf_discriminator_ahead(dw, rf->link, 16, &at, &before) & ~CT_DISC_COLD;
  if (!disc || disc > f->nblocks || (before & ~CT_DISC_COLD) == disc ||
      !falls_through_to(rf, rf->link, at))
    return -1;
  return (long)disc - 1;
}

/* Whether the pc's block has already run its edge code, the accumulator's update on entry:
 * at -O0 a load of the accumulator's stack slot, a shift, a store back, at the start of the
 * block. Then the walk, which went on through branch-free blocks after the bit that edge
 * added (to a loop's header, say), has passed the pc's block already, and the pc is in that
 * visit, not in another one still to come (pc_in_successor: bug J, a signal before the store).
 * Proven by the run of the block's code before the pc rewriting a stack slot that holds the
 * accumulator's value now. */
static int edge_code_ran(struct ct_timeline *t, const struct raw_frame *rf, uint64_t acc) {
  struct ct_dwarf *dw = rf->mod ? ct_module_dwarf(rf->mod) : NULL;
  uint64_t from = dw ? ct_dwarf_run_start(dw, rf->link) : 0, slot_value;
  struct ct_code_view code = function_code(rf, rf->link);
  int base;
  int64_t disp;
  if (!from || !code.bytes || from < code.lo || from >= rf->link ||
      !ct_flow_slot_rewritten(&code, from, rf->link, &base, &disp) || base < 0 ||
      base >= CT_DW_NREGS || !(rf->regs.valid & (1u << base)))
    return 0;
  return ct_dump_read_stack(t->dump, rf->regs.r[base] + (uint64_t)disp, &slot_value, 8) == 0 &&
         slot_value == acc;
}

/* The block the path's walk stopped short of: the walk ran out of bits at a branch (st is
 * CT_WALK_OUT), but the line table's discriminator at the pc names one of that branch's
 * successors, so control is already there and the edge's bits were not stored yet. (An edge's
 * code sits at its successor's start; at -O0 it is a load, an operation and a store to the
 * accumulator's stack slot, and a signal can land between them.) A pc of line 0 has no
 * discriminator: there the next row's counts, when no jump, call or return can lie between
 * (a register copy the allocator put at a successor's start, before the accumulator's DWARF
 * location changes to the successor's value: the location still names the value before the
 * branch there: `ahead`, block_ahead's answer). Not when the pc's block has run its edge code
 * already (edge_code_ran): the walk passed it then, and the pc is in that visit. Returns the
 * successor, or -1. */
static long pc_in_successor(struct ct_timeline *t, const struct raw_frame *rf,
                            const struct ct_mfunc *f, uint64_t acc, int st,
                            const uint32_t *blocks, size_t nb, size_t cap, long ahead) {
  struct ct_dwarf *dw = rf->mod ? ct_module_dwarf(rf->mod) : NULL;
  if (st != CT_WALK_OUT || !nb || nb >= cap || !dw || !(f->flags & CT_FN_BLOCK_DISC)) return -1;
  uint32_t disc = ct_dwarf_discriminator(dw, rf->link) & ~CT_DISC_COLD;
  if (!disc) disc = (uint32_t)(ahead + 1);
  if (disc == 0 || disc > f->nblocks) return -1;
  const struct ct_mblock *last = &f->blocks[blocks[nb - 1]];
  for (uint32_t s = 0; s < last->nsucc; s++)
    if (last->succ[s].block == disc - 1 && disc - 1 != blocks[nb - 1])
      return edge_code_ran(t, rf, acc) ? -1 : (long)(disc - 1);
  return -1;
}

/* Depth-first search for path_to_pc: the ways from block b (bits used so far) to target that
 * pass no flush (a call, a return, a check point that would fire), visiting no block twice.
 * Counts them up to 2 in *found, keeping the first in out[0..*nout). */
struct path_search {
  const struct ct_mfunc *f;
  uint32_t target, *path, *out;
  size_t depth, cap, nout, found, budget;
  uint8_t *on_path;
};

static void search_paths(struct path_search *ps, uint32_t b, uint64_t used) {
  if (ps->found > 1 || ps->budget == 0) return;
  ps->budget--;
  const struct ct_wblock *wb = &ps->f->wb[b];
  const struct ct_mblock *mb = &ps->f->blocks[b];
  unsigned kind = wb->info & CT_WB_KIND;
  if (kind == CT_WB_END || ps->depth == ps->cap) return;
  for (uint32_t s = 0; s < mb->nsucc && ps->found <= 1; s++) {
    uint32_t next = mb->succ[s].block;
    uint64_t bits = used + (kind == CT_WB_JUMP ? 0 : mb->succ[s].len);
    if (next >= ps->f->nblocks || ps->on_path[next] || bits >= ps->f->wb[next].flush_used)
      continue;
    ps->path[ps->depth++] = next;
    if (next == ps->target) {
      if (ps->found++ == 0) {
        memcpy(ps->out, ps->path, ps->depth * sizeof *ps->path);
        ps->nout = ps->depth;
      }
    } else {
      ps->on_path[next] = 1;
      search_paths(ps, next, bits);
      ps->on_path[next] = 0;
    }
    ps->depth--;
  }
}

/* When the accumulator was read across a gap in its location list (it may lack the updates of
 * the last blocks: a switch case's code that codegen sank below the case's first loads), the
 * walk can run out of bits several blocks before the pc's block (its discriminator, or for a
 * pc of line 0 the block its code is right before, `ahead`). If exactly one way leads there
 * from the walk's last block without passing a flush (which would have restarted the
 * accumulator) and within the bits a check point allows, those blocks ran: appends them, the
 * pc's block last, to blocks[nb..cap). Returns how many. */
static size_t path_to_pc(const struct raw_frame *rf, const struct ct_mfunc *f, const struct ct_walk *w,
                         uint32_t *blocks, size_t nb, size_t cap, long ahead) {
  enum { MAX_DEPTH = 32, MAX_VISITS = 1 << 16 };
  struct ct_dwarf *dw = rf->mod ? ct_module_dwarf(rf->mod) : NULL;
  if (!nb || nb >= cap || !dw || !(f->flags & CT_FN_BLOCK_DISC)) return 0;
  uint32_t disc = ct_dwarf_discriminator(dw, rf->link) & ~CT_DISC_COLD;
  if (!disc) disc = (uint32_t)(ahead + 1);
  if (disc == 0 || disc > f->nblocks) return 0;
  uint32_t path[MAX_DEPTH], out[MAX_DEPTH];
  struct path_search ps = {.f = f, .target = disc - 1, .path = path, .out = out,
                           .cap = cap - nb < MAX_DEPTH ? cap - nb : MAX_DEPTH,
                           .budget = MAX_VISITS, .on_path = calloc(f->nblocks, 1)};
  if (!ps.on_path) return 0;
  ps.on_path[blocks[nb - 1]] = 1;
  search_paths(&ps, blocks[nb - 1], w->nbits);
  free(ps.on_path);
  if (ps.found != 1 || ps.budget == 0) return 0;
  memcpy(&blocks[nb], out, ps.nout * sizeof *out);
  return ps.nout;
}

/* Whether a walk that ended (CT_WALK_END) did so at a check point that fired, rather than at a
 * flush block (a call, a return). */
static int ended_at_check(const struct ct_mfunc *f, const struct ct_walk *w) {
  return (f->wb[w->block].info & CT_WB_KIND) != CT_WB_END;
}

/* Whether the instruction that ends at link-time address `end` of rf's module stores a
 * register to a TLS variable, `mov %r, %fs:...` (the store of a ring position that commits a
 * record): with an absolute offset (64 REX.W 89 /r, SIB 25, disp32: executables) or through a
 * register holding it (64 REX.W 89 /r, mod 00: initial-exec TLS in a shared object). */
static int tls_store_ends_at(const struct raw_frame *rf, uint64_t end) {
  const uint8_t *p = end >= 9 ? code_at(rf, end - 9, 9) : NULL;
  if (!p) return 0;
  if (p[0] == 0x64 && (p[1] & 0xFB) == 0x48 && p[2] == 0x89 && (p[3] & 0xC7) == 0x04 && p[4] == 0x25)
    return 1;
  p += 5; /* the last 4 bytes */
  return p[0] == 0x64 && (p[1] & 0xFA) == 0x48 && p[2] == 0x89 && (p[3] & 0xC0) == 0 &&
         (p[3] & 7) != 4 && (p[3] & 7) != 5;
}

/* Whether the thread's newest record is one of f's in rf's module whose walk ends at its flush
 * (a check that fired, a call, a return): *acc is its accumulator, w the walk at its end. */
static int newest_record_end(struct ct_callstack *cs, const struct raw_frame *rf,
                             const struct ct_mfunc *f, uint64_t fn_start, uint64_t *acc,
                             struct ct_walk *w) {
  const struct ct_module *m;
  uint64_t fn;
  if (!cs || !ct_callstack_last_record(cs, &m, &fn, acc) || m != rf->mod || fn - m->bias != fn_start)
    return 0;
  int st = ct_walk_start(w, f, *acc);
  while (st == CT_WALK_BLOCK) st = ct_walk_next(w, 1);
  return st == CT_WALK_END;
}

/* Whether the instruction before the pc stores a ring position, or one a few bytes before it
 * (at most 32) with straight-line code between (no jump, call or return): -O0 reloads a
 * return value from its stack slot after a return's flush (`mov -0x31(%rbp),%al`). */
static int position_stored_before(const struct raw_frame *rf) {
  for (uint64_t end = rf->link; end + 32 >= rf->link && end > 9; end--)
    if (tls_store_ends_at(rf, end)) return end == rf->link || falls_through_to(rf, end, rf->link);
  return 0;
}

/* The frame stopped after a flush stored the ring position (the record is in the ring) and
 * before its accumulator restarted or control left (a call, a return): the accumulator
 * still holds the record's bits, which its DWARF location names until the register is
 * overwritten. Requires the newest record to be this frame's function, its walk to end at a
 * flush, and the position's store to end at the pc or just before it with nothing between
 * that could leave (position_stored_before).
 * Returns 0 if not; 1 for a check point that fired (*acc becomes what the frame has in effect:
 * the check's site with no bits); 2 for a call's or a return's flush (nothing has run since). */
static int after_flush_commit(struct ct_callstack *cs, const struct raw_frame *rf,
                              const struct ct_mfunc *f, uint64_t fn_start, uint64_t *acc) {
  uint64_t racc;
  struct ct_walk w;
  /* The store ran and nothing after it could have written another record: the newest record
   * is the one it committed. Its value is not compared with the frame's accumulator, which
   * DWARF may no longer find after the epilogue's `pop %rbp` (-O0's frame base). */
  if (!newest_record_end(cs, rf, f, fn_start, &racc, &w) || !position_stored_before(rf))
    return 0;
  *acc = racc;
  if (!ended_at_check(f, &w)) return 2;
  if (f->block_site[w.end] < 0) return 0;
  *acc = (1ull << f->site_bits) | (uint64_t)f->block_site[w.end];
  return 1;
}

/* Whether the frame's pc is a call instruction (e8 rel32, or ff /2 with an optional REX). */
static int at_call_instruction(const struct raw_frame *rf) {
  const uint8_t *p = code_at(rf, rf->link, 3);
  if (!p) return 0;
  if ((p[0] & 0xF0) == 0x40) p++; /* REX */
  return p[0] == 0xE8 || (p[0] == 0xFF && ((p[1] >> 3) & 7) == 2);
}

/* Whether the frame's pc is at a call instruction, or between the store of a ring position
 * and the call after it (an argument's move): the next call return address DWARF knows after
 * the pc is at most 32 bytes on, and a position's store ends at or before the pc, after the
 * return address before it (so not the flush of a call that has returned already). */
static int before_call(const struct raw_frame *rf, uint64_t fn_start) {
  if (at_call_instruction(rf)) return 1;
  struct ct_dwarf *dw = ct_module_dwarf(rf->mod);
  const uint64_t *rets;
  long n = dw ? ct_dwarf_call_returns(dw, fn_start, &rets) : 0;
  long i = 0;
  while (i < n && rets[i] <= rf->link) i++;
  if (i == n || rets[i] - rf->link > 32) return 0;
  uint64_t after = i ? rets[i - 1] : fn_start;
  for (uint64_t end = rf->link; end + 32 >= rets[i] && end > after; end--)
    if (tls_store_ends_at(rf, end)) return 1;
  return 0;
}

/* The crashing frame stopped at the call of a call whose flush is the newest record (a stack
 * overflow faults at the call instruction; a kill may land there or on an argument's move after
 * the flush): its accumulator has already restarted at the after-call site, but the callee has
 * not been entered, although the record made the model enter it. The callee's frame is taken
 * back, so that its branch-free code is not shown as run. */
static int stopped_at_recorded_call(struct ct_callstack *cs, const struct raw_frame *rf,
                                    const struct ct_mfunc *f, uint64_t fn_start,
                                    const struct ct_walk *pending) {
  uint64_t racc;
  struct ct_walk w;
  if (pending->nbits || f->site_kind[pending->site] != CT_SITE_AFTER_CALL ||
      !newest_record_end(cs, rf, f, fn_start, &racc, &w))
    return 0;
  const struct ct_mblock *mb = &f->blocks[w.block];
  if (mb->term != CT_TERM_CALL || !mb->nsucc ||
      mb->succ[0].block != f->site_block[pending->site] || !before_call(rf, fn_start))
    return 0;
  return ct_callstack_uncall(cs, f);
}

/* The block of f frame rf's pc is in, by the line table's block discriminator (for a caller
 * frame: the call it is in); UINT32_MAX when the table does not say. */
static uint32_t pc_block(const struct raw_frame *rf, const struct ct_mfunc *f) {
  struct ct_dwarf *dw = rf->mod ? ct_module_dwarf(rf->mod) : NULL;
  if (!dw || !(f->flags & CT_FN_BLOCK_DISC)) return UINT32_MAX;
  return (ct_dwarf_discriminator(dw, rf->link) & ~CT_DISC_COLD) - 1;
}

/* Walks the live accumulator of frame rf up to its crash line. `inner`: the frame of the
 * function rf is suspended in, NULL for the innermost frame; fn_start: the
 * function's link-time address. */
static void pending_path(struct ct_timeline *t, struct ct_tl_thread *th, struct ct_callstack *cs,
                         struct raw_frame *rf, const struct ct_mfunc *f, uint64_t acc, int first,
                         const struct raw_frame *inner, uint64_t fn_start, int bridged) {
  struct ct_walk w;
  uint32_t blocks[4096];
  size_t nb = 0, determined = 0;
  if (first && after_flush_commit(cs, rf, f, fn_start, &acc) == 2) {
    mark_crash_line(t, th, rf, f, 1); /* the record's last step is the frame's last */
    return;
  }
  int st = ct_walk_start(&w, f, acc);
  if (st != CT_WALK_BLOCK) {
    ct_timeline_warn(t, "thread %u: the innermost frame's unfinished path is unreadable (%s)",
                     th->tid, w.why);
    mark_crash_line(t, th, rf, f, 0);
    return;
  }
  if (first && stopped_at_recorded_call(cs, rf, f, fn_start, &w)) {
    mark_crash_line(t, th, rf, f, 1); /* the call's line, the record's last step */
    return;
  }
  /* With deferred calls the decoder already walked the path up to its last deferred call,
   * with the callees' records (ct_stack_deferred_frames): it goes on from there. */
  size_t skip = t->pending_skip_fn == f ? t->pending_skip : 0;
  /* The records the program skipped since its last one (the branch-free ends of callees
   * that returned, say) come before the unfinished path. */
  if (cs && !skip)
    ct_callstack_reach(cs, f, rf->mod, (uint16_t)(rf->mod - t->mods->mods), w.site, w.nbits == 0,
                       th->nsteps ? th->steps[th->nsteps - 1].time_ns : 0);
  int flushed_call = !first && w.nbits == 0 && f->site_kind[w.site] == CT_SITE_AFTER_CALL;
  if (flushed_call && suspended_in_flushed_call(f, w.site, inner, rf)) {
    mark_crash_line(t, th, rf, f, 1); /* suspended in a call: nothing ran since the record */
    return;
  }
  /* A frame inside a call (not the crashed one) that the line table names as a deferred call:
   * reached with every bit read, the frame is in it (its callee has not returned). */
  uint32_t in_call = !first && (f->flags & CT_FN_DEFERS) ? pc_block(rf, f) : UINT32_MAX;
  size_t last_call = 0; /* blocks up to the last deferred call passed with every bit read */
  int in_that_call = 0;
  for (;;) {
    blocks[nb++] = w.block;
    if (w.used > 0 || nb == 1) determined = nb;
    if (nb == sizeof blocks / sizeof blocks[0]) break;
    st = ct_walk_next(&w, 1);
    if (st == CT_WALK_DEFER && w.block == in_call && w.used == w.nbits) {
      determined = nb; /* the call's block ran up to the call */
      in_that_call = 1;
      break;
    }
    if (st == CT_WALK_DEFER && w.used == w.nbits) last_call = nb;
    if (st == CT_WALK_DEFER) st = ct_walk_after_defer(&w, 1); /* its callee returned */
    if (st != CT_WALK_BLOCK) break;
  }
  if (st == CT_WALK_BAD)
    ct_timeline_warn(t, "thread %u: the unfinished path does not fit %s (%s)", th->tid,
                     f->display, w.why);
  /* A frame inside a call whose line table does not say which (a call of line 0: xz's
   * worker_decoder in pthread_cond_wait): past the last deferred call its walk passed with
   * every bit read, there is no call it could be in when the walk ends at a check point, a
   * return or a branch without bits. It is in that call; nothing after it ran. Not when the
   * pc's line is on the path after that call: the frame is in a call the metadata does not
   * list there (a C library function that never calls back: strlen(NULL) after a deferred
   * call returned, fidelity/repro/libc_call.c), and ran up to it. */
  int line_after_call = 0;
  for (size_t b = last_call; b < nb && rf->nloc && !line_after_call; b++)
    line_after_call = block_line(&f->blocks[blocks[b]], &rf->loc[0]) >= 0;
  if (!first && (f->flags & CT_FN_DEFERS) && !in_that_call && last_call && !line_after_call &&
      (st == CT_WALK_OUT ||
       (st == CT_WALK_END && (ended_at_check(f, &w) ||
                              (f->blocks[w.block].term != CT_TERM_CALL &&
                               f->blocks[w.block].term != CT_TERM_INVOKE))))) {
    nb = determined = last_call;
    in_that_call = 1;
    st = CT_WALK_DEFER;
  }
  /* The walk ended where a check point fires (the bits are exactly what its record will hold):
   * the frame is in that check's flush, at the start of the block, whose record is not written
   * yet (else the accumulator would have restarted at the check's site). The block has begun:
   * its check carries its first line. */
  if (st == CT_WALK_END && ended_at_check(f, &w) &&
      nb < sizeof blocks / sizeof blocks[0]) {
    blocks[nb++] = w.end;
    determined = nb;
  }
  long ahead = block_ahead(rf, f); /* -1 unless the pc's row has line 0 */
  /* blocks[inferred..nb) ran by what the pc says, not by recorded bits: shown uncertain. */
  size_t inferred = nb;
  long behind = pc_in_successor(t, rf, f, acc, st, blocks, nb, sizeof blocks / sizeof blocks[0],
                                ahead);
  if (behind >= 0) blocks[nb++] = (uint32_t)behind;
  else if (bridged && st == CT_WALK_OUT)
    nb += path_to_pc(rf, f, &w, blocks, nb, sizeof blocks / sizeof blocks[0], ahead);
  /* The crash line: in the last block of the path that has it. A block can list the line
   * more than once (a rotated loop: 26:12, 25:54, 26:9, whose machine code runs 25 first):
   * the occurrence whose column is the faulting instruction's is the one; else the first,
   * flagged uncertain, so that no line is shown run that may not have. */
  long hit_block = -1, hit_line = -1;
  int hit_certain = 1;
  for (size_t b = nb; b-- > 0 && hit_block < 0 && rf->nloc;) {
    const struct ct_mblock *mb = &f->blocks[blocks[b]];
    int seen = 0;
    long by_column = -1;
    for (uint32_t l = mb->nlines; l-- > 0;)
      if (same_line(&mb->lines[l], &rf->loc[0])) {
        hit_block = (long)b;
        hit_line = l; /* scanning backwards: ends on the first occurrence */
        seen++;
        if (by_column < 0 && rf->loc[0].column && mb->lines[l].col == rf->loc[0].column)
          by_column = l;
      }
    if (seen > 1) {
      if (by_column >= 0) hit_line = by_column;
      else hit_certain = 0;
    }
  }
  int no_line = !rf->nloc || !rf->loc[0].file || rf->loc[0].line == 0;
  if (flushed_call && hit_block < 0 && !no_line) {
    /* Not the call the site follows, and the call line is not on the branch-free path from
     * it either: the unwinder's callee is a name the metadata spells otherwise (a tail call,
     * an alias). Nothing is shown rather than a guess. */
    mark_crash_line(t, th, rf, f, 0);
    return;
  }
  /* A fault of line 0 (code a compiler or crashtrail made: a flush, a branch's bit, a switch's
   * dispatch) after a line of the last determined block, in address order: the block ran up to
   * that line, as far as the machine code tells (uncertain: the block's order is the IR's).
   * Not when that block's own code starts right after the pc (block_ahead): the row before
   * the pc in address order is then another way into the block (a call's slow path laid out
   * before a join), and none of the block's lines has run. */
  if (no_line && hit_block < 0 && determined > 0 &&
      !(ahead >= 0 && blocks[determined - 1] == (uint32_t)ahead)) {
    const struct ct_mline *call =
        determined == 1 && f->site_kind[w.site] == CT_SITE_AFTER_CALL ? call_before_site(f, w.site)
                                                                       : NULL;
    long l = line0_position(rf, fn_start, &f->blocks[blocks[determined - 1]], call);
    if (l >= 0) {
      hit_block = (long)determined - 1;
      hit_line = l;
      hit_certain = 0;
    }
  }
  /* Without the crash line, the path's last determined block is known to have begun, not to
   * have run any of its lines; when the fault has no line at all (line 0: code a compiler or
   * crashtrail made, which sits at block boundaries), its lines are most likely still ahead. */
  size_t upto = hit_block >= 0 ? (size_t)hit_block + 1
              : no_line && determined > 0 ? determined - 1 : determined;
  /* A fault of line 0 right before a block's code: that block and what follows it on the path
   * have run none of their lines; every block before it ran whole. */
  for (size_t b = nb; no_line && hit_block < 0 && ahead >= 0 && b-- > 0;)
    if (blocks[b] == (uint32_t)ahead) {
      upto = b;
      break;
    }
  /* The bits of a block's branch are added before the branch, and the compiler may schedule
   * that before the block's faulting load: the accumulator can already point into the next
   * block. When the block before the crash line's has the line too, the fault may have been
   * there: its lines after it and the last block's up to the crash are shown uncertain. (A
   * rotated loop, whose one block runs the compare last: in IR order it lists the compare
   * first and last.) */
  long doubt_block = -1;
  uint32_t doubt_from = 0;
  if (hit_block >= 1) {
    const struct ct_mblock *prev = &f->blocks[blocks[hit_block - 1]];
    for (uint32_t l = 0; l < prev->nlines; l++)
      if (same_line(&prev->lines[l], &rf->loc[0])) {
        doubt_block = hit_block - 1;
        doubt_from = l + 1;
        hit_certain = 0;
        break;
      }
  }
  uint16_t mod = (uint16_t)(rf->mod - t->mods->mods);
  uint64_t time = th->nsteps ? th->steps[th->nsteps - 1].time_ns : 0;
  for (size_t b = skip; b < upto; b++) {
    const struct ct_mblock *mb = &f->blocks[blocks[b]];
    uint32_t nl = (long)b == hit_block ? (uint32_t)hit_line + 1 : mb->nlines;
    for (uint32_t l = 0; l < nl; l++) {
      int doubt = ((long)b == doubt_block && l >= doubt_from) || ((long)b == hit_block && doubt_block >= 0);
      const struct ct_mline *ml = &mb->lines[l];
      struct ct_step s = {.function = ml->inl ? ml->inl->function : f->display,
                          .outer = f->display, .file = ml->file, .line = ml->line, .col = ml->col,
                          .inl = ml->inl, .fn = f, .module = mod, .flags = CT_STEP_PENDING,
                          .depth = (uint32_t)(th->depth + CT_DEPTH_BIAS), .time_ns = time};
      if (b == 0 && l == 0 && w.site == 0) s.flags |= CT_STEP_ENTRY;
      if (doubt || b >= inferred) s.flags |= CT_STEP_UNCERTAIN;
      ct_tl_add_step(th, &s);
    }
  }
  /* The blocks the unfinished path proves ran (its bits say so, not the pc) go with the
   * records' (--format=blocks): a thread stopped for the dump while waiting in a deferred call
   * entered them since its last record (round trips compare them with the trace). */
  if (t->keep_blocks) /* in a call: its block ran up to it, whatever its lines say */
    for (size_t b = skip; b < (in_that_call ? determined : upto) && b < inferred; b++)
      ct_tl_log_block(th, f, blocks[b], mod);
  mark_crash_line(t, th, rf, f, hit_block >= 0 && hit_certain && nb == inferred);
}

/* The variables of the innermost frame whose module's DWARF describes any (a crash inside the
 * C library shows its caller's). */
static void frame_locals(struct ct_timeline *t, struct ct_tl_thread *th, struct raw_frame *frames,
                         int n) {
  enum { MAX_LOCALS = 64 };
  for (int i = 0; i < n && i < 8; i++) {
    struct raw_frame *rf = &frames[i];
    struct ct_dwarf *dw = rf->mod ? ct_module_dwarf(rf->mod) : NULL;
    if (!dw || !rf->have_cfa || !rf->nloc) continue;
    struct ct_local *l = calloc(MAX_LOCALS, sizeof *l);
    if (!l) return;
    int k = ct_dwarf_locals(dw, rf->link, &rf->regs, rf->cfa, rf->mod->bias, ct_dump_read_stack,
                            t->dump, l, MAX_LOCALS);
    if (k <= 0) {
      free(l);
      continue;
    }
    th->locals = l;
    th->nlocals = (size_t)k;
    th->locals_function = rf->loc[0].function ? rf->loc[0].function : "??";
    th->locals_file = rf->loc[0].file;
    th->locals_line = rf->loc[0].line;
    return;
  }
}

/* Reads frame rf's accumulator (f's __crashtrail_path) at its pc: 0 and *acc, *bridged (read
 * across a gap of its location list) on success; 1 optimised out there; -1 no location, or
 * built without debug information. */
static int frame_accumulator(struct ct_timeline *t, struct raw_frame *rf, const struct ct_mfunc *f,
                             uint64_t *acc, int *bridged) {
  struct ct_dwarf *dw = ct_module_dwarf(rf->mod);
  struct ct_code_view code = function_code(rf, rf->link);
  *bridged = 0;
  if (!dw || !(f->flags & CT_FN_ACC_VAR) || !rf->have_cfa) return -1;
  return ct_dwarf_variable_bridged(dw, rf->link, CT_ACC_VAR_NAME, &rf->regs, rf->cfa,
                                   rf->mod->bias, ct_dump_read_stack, t->dump,
                                   code.bytes ? &code : NULL, acc, bridged);
}

/* A program's own handler of a fatal signal that ends in abort() (gawk's catchsig): the crash
 * is the abort, and the frame the signal interrupted, deeper in the stack (frames[j], after the
 * trampoline frames[j-1] and the handler frames[j-2]), is where the fault was. Its bits since
 * its last record were in its accumulator then; the trampoline restored its registers, so they
 * are read as the crashing frame's are, and its steps go before the handler's latest entry.
 * With windowed decoding (--steps=N) that entry may be older than the kept steps: the steps then
 * only count as not kept, so every window stays the tail of the full timeline. Requires the
 * handler to be instrumented (its entry is a step); otherwise, or when the accumulator cannot be
 * read, the timeline says what it lacks. */
static void splice_interrupted(struct ct_timeline *t, struct ct_tl_thread *th,
                               struct raw_frame *frames, int from, int n) {
  int j = from + 1;
  while (j < n && !frames[j].interrupted) j++;
  if (j >= n) return;
  struct raw_frame *rf = &frames[j];
  uint64_t fn_start = 0, h_start = 0, acc = 0;
  const struct ct_mfunc *f = instrumented_function(rf, &fn_start);
  if (!f) return; /* stopped outside instrumented code: its callers were flushed at their calls */
  const struct ct_mfunc *h = j >= 2 ? instrumented_function(&frames[j - 2], &h_start) : NULL;
  const struct ct_srcloc *loc = rf->nloc ? &rf->loc[0] : NULL;
  int bridged = 0, rc = h ? frame_accumulator(t, rf, f, &acc, &bridged) : -1;
  long e = -1;
  for (size_t s = th->nsteps; rc == 0 && s-- > 0;)
    if (th->steps[s].fn == h && (th->steps[s].flags & CT_STEP_ENTRY)) {
      e = (long)s;
      break;
    }
  int shown = rc == 0 && (e >= 0 || th->first_seq > 0);
  ct_timeline_warn(t, "a signal interrupted %s at %s:%u and a handler ran on top of it (the "
                   "stack's <signal handler called>): its steps since its last record%s",
                   loc && loc->function ? loc->function : "??", loc && loc->file ? loc->file : "?",
                   loc ? loc->line : 0, shown ? " are shown before the handler's"
                                              : ", up to that line, are not in the timeline");
  if (!shown) return;
  struct ct_tl_thread tmp;
  memset(&tmp, 0, sizeof tmp);
  /* The interrupted frame's depth: that of its own step just before the handler's entry; a
   * frame that never wrote a record is not in the model, and the handler took its depth. */
  const struct ct_step *at = e >= 0 ? &th->steps[e] : NULL;
  const struct ct_step *before = e > 0 ? &th->steps[e - 1] : NULL;
  uint32_t depth = before && before->fn == f ? before->depth : at ? at->depth : CT_DEPTH_BIAS;
  tmp.depth = (int32_t)(depth - CT_DEPTH_BIAS);
  pending_path(t, &tmp, NULL, rf, f, acc, 1, NULL, fn_start, bridged);
  for (size_t s = 0; s < tmp.nsteps; s++) {
    tmp.steps[s].flags &= (uint16_t)~CT_STEP_CRASH; /* the crash is the handler's */
    tmp.steps[s].depth = depth;
    tmp.steps[s].time_ns = before ? before->time_ns : at ? at->time_ns : 0;
  }
  if (bridged && tmp.nsteps) tmp.steps[tmp.nsteps - 1].flags |= CT_STEP_UNCERTAIN;
  /* An entry older than the kept window, or its first kept step (the step before it, whose
   * depth and time the spliced steps take, is not kept): they are before the window. */
  if (e < 0 || (e == 0 && th->first_seq > 0)) {
    th->first_seq += tmp.nsteps;
  } else if (tmp.nsteps) {
    struct ct_step *ns = realloc(th->steps, (th->nsteps + tmp.nsteps) * sizeof *ns);
    if (!ns) {
      free(tmp.steps);
      return;
    }
    th->steps = ns;
    memmove(ns + e + tmp.nsteps, ns + e, (th->nsteps - (size_t)e) * sizeof *ns);
    memcpy(ns + e, tmp.steps, tmp.nsteps * sizeof *ns);
    th->nsteps += tmp.nsteps;
    th->cap = th->nsteps;
  }
  free(tmp.steps);
}

/* A caller frame of line 0 is at a call the compiler merged from several lines (the abort()
 * of every failed assertion in a function, say): its return address names none of them. The
 * crash step of its own unfinished path, when certain and not inlined, is the line it was
 * called from: the recorded path reached it, so the frame shows that line. */
static void frame_line_from_path(struct ct_tl_thread *th, const struct raw_frame *rf,
                                 const struct ct_mfunc *f) {
  const struct ct_step *last = th->nsteps ? &th->steps[th->nsteps - 1] : NULL;
  if (!last || last->fn != f || last->inl || !last->file || !last->line ||
      (last->flags & (CT_STEP_CRASH | CT_STEP_UNCERTAIN)) != CT_STEP_CRASH)
    return;
  if (rf->nloc > 1 || rf->shown >= th->nstack) return;
  struct ct_frame *fr = &th->stack[rf->shown];
  if (fr->line || !fr->function || !last->function || strcmp(fr->function, last->function))
    return;
  fr->file = last->file;
  fr->line = last->line;
  fr->col = last->col;
}

/* Where frame f's unfinished path acc stops for the decoder (postorder.c), as the number of
 * blocks its walk visits up to that deferred call: an outer frame (innermost 0) at the call it
 * is in: block `call` when the line table names it (a call that is not deferred: none), else
 * the first its walk reaches once every bit is read whose callee is `inner` (any, when the
 * frame inside it is not instrumented); the innermost instrumented frame at its last deferred
 * call before its last bit (pending_path walks the rest from there), or, where the line table
 * names the block of its pc (`call`), at the last deferred call its walk passes before that
 * block: a call passed on the branch-free rest of the path returned too (a function whose
 * only bits are none, `crash` calling `leaf` and then faulting). 0 if none. */
static uint32_t deferred_stop(const struct ct_mfunc *f, uint64_t acc,
                              const struct ct_mfunc *inner, int innermost, uint32_t call,
                              int exact) {
  struct ct_walk w;
  uint32_t stop = 0, blocks = 0, any = 0, named = 0, last_call = 0, pc_stop = 0;
  int by_line = !innermost && call < f->nblocks;
  if (by_line && f->blocks[call].term != CT_TERM_DEFER) return 0; /* written before the call */
  int st = ct_walk_start(&w, f, acc);
  for (uint32_t guard = 0; guard < (1u << 24); guard++) {
    if (st == CT_WALK_BLOCK) {
      if (innermost && w.block == call) pc_stop = last_call;
      blocks++;
      st = ct_walk_next(&w, 1);
      continue;
    }
    if (st != CT_WALK_DEFER) break;
    const struct ct_mblock *mb = &f->blocks[w.block];
    if (innermost) {
      if (w.used < w.nbits) stop = blocks;
      last_call = blocks;
    } else if (w.used == w.nbits) {
      if (by_line && w.block == call) return blocks;
      if (!named && (!inner || (mb->callee && inner->name && !strcmp(mb->callee, inner->name))))
        named = blocks; /* by name: the callee may be in another module */
      if (!any) any = blocks; /* the callee may have tail-called the frame inside */
      if (named && !by_line) break;
    }
    st = ct_walk_after_defer(&w, 1);
  }
  /* without the line table's block (or not reached as it says): by the callee */
  return exact ? 0 : innermost ? (pc_stop > stop ? pc_stop : stop) : named ? named : any;
}

uint32_t ct_stack_abandoned_stop(struct ct_timeline *t, uint16_t mod, uint64_t fn, uint64_t acc,
                                 uint32_t ret) {
  struct ct_module *m = &t->mods->mods[mod];
  const struct ct_mfunc *f = m->meta ? ct_meta_find(m->meta, fn - m->bias) : NULL;
  if (!f || !(f->flags & CT_FN_DEFERS)) return 0;
  uint32_t call = UINT32_MAX; /* the call before the return address, by the line table */
  struct ct_dwarf *dw = ret && (f->flags & CT_FN_BLOCK_DISC) ? ct_module_dwarf(m) : NULL;
  if (dw) call = (ct_dwarf_discriminator(dw, f->addr + ret - 1) & ~CT_DISC_COLD) - 1;
  if (call < f->nblocks && f->blocks[call].term != CT_TERM_DEFER) return 0;
  return deferred_stop(f, acc, NULL, 0, call, 0);
}

size_t ct_stack_deferred_frames(struct ct_timeline *t, struct ct_tl_thread *th,
                                struct ct_po_rec *out, uint32_t *stops, struct ct_rec *recs,
                                const struct ct_mfunc **callers, size_t max) {
  struct raw_frame *frames = calloc(CT_MAX_FRAMES, sizeof *frames);
  size_t k = 0, shown = th->nstack;
  if (!frames) return 0;
  int n = unwind(t, th, frames);
  th->nstack = shown; /* only the accumulators are wanted here */
  const struct ct_mfunc *inner = NULL;
  int innermost = 1;
  for (int i = 0; i < n && k < max; i++) {
    uint64_t fn_start = 0, acc = 0;
    struct raw_frame *rf = &frames[i];
    const struct ct_mfunc *f = instrumented_function(rf, &fn_start);
    if (!f) {
      inner = NULL;
      continue;
    }
    struct ct_dwarf *dw = ct_module_dwarf(rf->mod);
    int bridged = 0;
    if (innermost && i == 0 && dw && ct_dwarf_in_prologue(dw, fn_start, rf->link)) {
      innermost = 0; /* entered, nothing ran: no unfinished path */
      inner = f;
      continue;
    }
    if (!(f->flags & CT_FN_DEFERS) || frame_accumulator(t, rf, f, &acc, &bridged) != 0) {
      if (!innermost && (f->flags & CT_FN_DEFERS)) break; /* frames outside it: not known */
      innermost = 0;
      inner = f;
      continue;
    }
    uint32_t call = pc_block(rf, f); /* the call it is in; the innermost: its pc's block */
    uint32_t stop = deferred_stop(f, acc, inner, innermost, call, 0);
    /* The line table says which deferred call the frame is in, but its path does not reach
     * it: nothing reads the accumulator before the next flush, so the compiler is free to move
     * the last edge's code past the call and the next branch's shift before it (gawk's
     * debug_pre_execute: `add %rbx,%rbx`, `call next_command`, `or $2,%rbx`: its branch into
     * that call read the other way, with a bit too many). The path with its last bits (up to
     * two) dropped and a code of up to four bits or'ed in that ends exactly at that call is
     * taken, the smallest change first: only the last branches' ways can differ from what the
     * register read. */
    if (!stop && !innermost && call < f->nblocks && f->blocks[call].term == CT_TERM_DEFER)
      for (unsigned drop = 0; drop <= 2 && !stop; drop++)
        for (uint64_t code = drop ? 0 : 1, base = acc >> drop; code < 16 && !stop; code++)
          if ((base & code) == 0 && (stop = deferred_stop(f, base | code, inner, 0, call, 1)))
            acc = base | code;
    if (stop) {
      uint64_t time = th->nsteps ? th->steps[th->nsteps - 1].time_ns : t->dump->process.monotonic_ns;
      recs[k] = (struct ct_rec){f->addr + rf->mod->bias, acc, time};
      uint64_t outer_start = 0;
      callers[k] = i + 1 < n ? instrumented_function(&frames[i + 1], &outer_start) : NULL;
      stops[k] = stop;
      out[k++] = (struct ct_po_rec){0, (uint16_t)(rf->mod - t->mods->mods),
                                    (uint8_t)(CT_PO_FRAME | (innermost ? CT_PO_INNERMOST : 0)),
                                    0};
      if (innermost) {
        t->pending_skip_fn = f;
        t->pending_skip = stop;
      }
    }
    innermost = 0;
    inner = f;
  }
  free(frames);
  for (size_t a = 0, b = k ? k - 1 : 0; a < b; a++, b--) { /* outermost first */
    struct ct_po_rec x = out[a];
    out[a] = out[b];
    out[b] = x;
    struct ct_rec y = recs[a];
    recs[a] = recs[b];
    recs[b] = y;
    const struct ct_mfunc *z = callers[a];
    callers[a] = callers[b];
    callers[b] = z;
    const uint32_t u = stops[a];
    stops[a] = stops[b];
    stops[b] = u;
  }
  for (size_t i = 0; i < k; i++) out[i].ref = (uint32_t)i;
  return k;
}

#define CT_DUMP_API "crashtrail_dump"

/* A dump the program asked for with crashtrail_dump(): the frames from the innermost one to
 * that call are the runtime writing the dump, not the program (the registers are those of
 * the runtime's getcontext). Returns how many raw frames those are (0: none, or a crash). */
static int dump_call_frames(const struct ct_timeline *t, const struct ct_tl_thread *th,
                            const struct raw_frame *frames, int n) {
  if (t->dump->has_signal || !(th->flags & CT_THR_DUMPING)) return 0;
  for (int i = 0; i < n && i < 16; i++)
    for (int k = 0; k < frames[i].nloc; k++)
      if (frames[i].loc[k].function && !strcmp(frames[i].loc[k].function, CT_DUMP_API))
        return i + 1;
  return 0;
}

/* Leaves out of th's stack the entries up to its last one of crashtrail_dump (see above). */
static void drop_dump_call(struct ct_tl_thread *th) {
  size_t last = th->nstack;
  for (size_t j = 0; j < th->nstack; j++)
    if (th->stack[j].function && !strcmp(th->stack[j].function, CT_DUMP_API)) last = j;
  if (last == th->nstack) return;
  memmove(th->stack, th->stack + last + 1, (th->nstack - last - 1) * sizeof *th->stack);
  th->nstack -= last + 1;
}

void ct_timeline_stack(struct ct_timeline *t, struct ct_tl_thread *th, struct ct_callstack *cs) {
  struct raw_frame *frames = calloc(CT_MAX_FRAMES, sizeof *frames);
  int n, i;
  if (!frames) return;
  n = unwind(t, th, frames);
  for (i = 0; i < n; i++) {
    uint64_t fn_start = 0;
    const struct ct_mfunc *f = instrumented_function(&frames[i], &fn_start);
    if (!f) continue;
    struct raw_frame *rf = &frames[i];
    struct ct_dwarf *dw = ct_module_dwarf(rf->mod);
    uint64_t acc = 0, link = rf->link;
    int rc = -1;
    if (i == 0 && dw && ct_dwarf_in_prologue(dw, fn_start, link)) {
      /* Stopped in the frame set-up: the function has run none of its code, and its
       * accumulator (at -O0 a stack slot described for the whole function) still holds
       * whatever the slot held before. The frame is entered, nothing more. */
      if (cs)
        ct_callstack_reach(cs, f, rf->mod, (uint16_t)(rf->mod - t->mods->mods), 0, 1,
                           th->nsteps ? th->steps[th->nsteps - 1].time_ns : 0);
      mark_crash_line(t, th, rf, f, 1);
      break;
    }
    int bridged = 0;
    rc = frame_accumulator(t, rf, f, &acc, &bridged);
    if (rc == 0 && i == 0 && ct_callstack_may_flow(cs, f)) {
      /* A carried accumulator: it may have started in a caller (callstack.c walks it from
       * where the model stands). The crash line is certain when the walk, every bit read,
       * stopped in the crashed function; the pc is not placed within its path beyond that. */
      const struct ct_mfunc *end = ct_callstack_flow_pending(
          cs, f, rf->mod, (uint16_t)(rf->mod - t->mods->mods), acc,
          th->nsteps ? th->steps[th->nsteps - 1].time_ns : 0);
      if (end) {
        t->pending_recovered = 1;
        mark_crash_line(t, th, rf, f, end == f);
        break;
      }
    }
    if (rc == 0) {
      t->pending_recovered = 1;
      pending_path(t, th, cs, rf, f, acc, i == 0, i ? &frames[i - 1] : NULL,
                   fn_start, bridged);
      /* Read across a gap in its location list: the last bits may still be ahead of it. */
      if (bridged && th->nsteps) th->steps[th->nsteps - 1].flags |= CT_STEP_UNCERTAIN;
    } else {
      ct_timeline_warn(t, "thread %u: the innermost frame's unfinished path (%s) is not recoverable (%s): "
                       "steps since its last record are missing", th->tid, f->display,
                       !(f->flags & CT_FN_ACC_VAR) ? "built without debug information"
                       : rc == 1 ? "optimised out at the crash point" : "no location");
      mark_crash_line(t, th, rf, f, 0);
    }
    if (i > 0) frame_line_from_path(th, rf, f);
    break;
  }
  splice_interrupted(t, th, frames, i, n);
  const int runtime_frames = dump_call_frames(t, th, frames, n);
  frame_locals(t, th, frames + runtime_frames, n - runtime_frames);
  if (i == n && cs) ct_callstack_return_all(cs); /* every instrumented call has returned */
  if (i == n && n > 0) /* no instrumented frame: the crash line of the innermost known frame */
    for (i = 0; i < n; i++)
      if (frames[i].nloc && frames[i].loc[0].file && frames[i].loc[0].line) {
        mark_crash_line(t, th, &frames[i], NULL, 1);
        break;
      }
  if (runtime_frames) drop_dump_call(th);
  free(frames);
}
