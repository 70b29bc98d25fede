/*
 * crashtrail/abi.h - the contract between the pass, the runtime and the post-mortem.
 *
 * Everything that crosses a component boundary is defined here and nowhere else: the symbol
 * names the pass emits references to, the section names, the layout of ring records and chunk
 * markers, and the metadata unit format. pass/AbiConstants.h mirrors the symbol and section
 * names for the C++ side; the post-mortem and the runtime include this file directly.
 *
 * Ring records (16 bytes, two little-endian 64-bit words):
 *
 *   w0  bits  0..46  the instrumented function that wrote the record, as the distance from it
 *                    to its module's descriptor (CT_SYM_MODULE): desc - f, below 2^30 (a
 *                    deferred call's mark adds CT_REC_DEFER_MARK). One `movq $imm32, (slot)`
 *                    stores it (ABI 3 and older: f's runtime address)
 *       bit   47     CT_REC_STAMPED: bits 48..63 hold the low 16 bits of the thread's stamp
 *       bits 48..63  stamp (stamped records) or 0 (plain records)
 *   w1  the path accumulator: a 1 (the sentinel) at bit s+n, the start-site index in the
 *       s bits below it (s is per function, from the metadata), then n path bits, the first
 *       branch taken in the most significant of them.
 *
 *   A slot whose w0 is 0 is empty. A slot whose bit 47 is clear and whose bits 48..63 are not
 *   zero is a marker; its tag is bits 48..63 (CT_TAG_*).
 *
 * Rings are made of CT_CHUNK_BYTES chunks (16384 bytes since ABI 5, 4096 before: a chunk start
 * reads the clock, and at 4 KB that was most of the refill's cost), each starting with two
 * marker records:
 *   CT_TAG_CHUNK  w0 low 47 bits: chunk generation (1 for the first chunk written, +1 per chunk)
 *                 w1: the thread's full stamp counter when the chunk was started
 *   CT_TAG_CLOCK  w0 low 32 bits: thread id;  w1: CLOCK_MONOTONIC in nanoseconds
 * A live thread's chunks are not cleared when started: the dumped ring position ends its data
 * (exited threads' and pre-fork rings are cleared after it; see runtime/ring.c).
 *
 * Invariants:
 *  - The hot path writes records only at slots whose address is not a multiple of
 *    CT_CHUNK_BYTES; at a multiple it calls CT_SYM_RING_REFILL, which starts the next chunk
 *    (allocating the ring on first use, wrapping at its end) and leaves the slot to write in
 *    the position variable.
 *  - Records of one thread in one ring are in program order. Across the rings of one thread,
 *    order is recovered from stamps: every record after which control may leave the module
 *    (a call to a function that may live elsewhere, a return from a function that may be
 *    entered from elsewhere) is stamped. Every 65536 stamps a thread writes a CT_TAG_SEQ
 *    marker with the full counter into each of its rings, so 16 stamp bits always suffice.
 */
#ifndef CRASHTRAIL_ABI_H
#define CRASHTRAIL_ABI_H

#include <stdint.h>

#define CT_ABI_VERSION 8u /* 8: the descriptor's table maps; 7: defer entries name their
                           * function by distance (a read-only table); 6: the descriptor's
                           * defer table; 5: 16 KB chunks (the pass's inline chunk test) */

/* ---- symbols ------------------------------------------------------------------------------ */
/* Per loaded module (one definition per executable or shared object: linkonce_odr, hidden). */
#define CT_SYM_RING_POS "__crashtrail_ring_pos"   /* TLS uint64_t *: next slot of this thread */
#define CT_SYM_MODULE "__crashtrail_module"       /* struct ct_module_desc */
#define CT_SYM_MODULE_CTOR "__crashtrail_module_ctor"
#define CT_SYM_CHECK_LIMITS "__crashtrail_check_limits" /* uint64_t[64], per module:
                                                  [D] = 2^(63-D) - 1, a check's limit */
#define CT_SYM_REFILL_HERE "__crashtrail_refill_here" /* void (void), preserve_most: calls
                                                       * CT_SYM_RING_REFILL for this module */
#define CT_SYM_STAMPED_SLOW_HERE "__crashtrail_stamped_slow_here" /* likewise for
                                                       * CT_SYM_STAMPED_SLOW */
#define CT_SYM_WRITE_HERE "__crashtrail_write_here3" /* the per-module trampolines of the
                                                       * out-of-line slow paths (hidden, in a
                                                       * comdat; pass/SlowPathAsm.cpp). The 3:
                                                       * fragments of 21 to 25 bytes that the
                                                       * trampoline returns to (its call
                                                       * predicted), which jump to the flush's
                                                       * end; objects of older passes call
                                                       * theirs, so a link of both keeps each
                                                       * its own */
#define CT_SYM_STAMPED_WRITE_HERE "__crashtrail_stamped_write_here3"
#define CT_SYM_WRITE_HERE_V2 "__crashtrail_write_here2" /* older passes' (the post-mortem): */
#define CT_SYM_STAMPED_WRITE_HERE_V2 "__crashtrail_stamped_write_here2" /* returned to the
                                                       * flush's end themselves */
#define CT_SYM_WRITE_HERE_V1 "__crashtrail_write_here" /* older passes' (the post-mortem) */
#define CT_SYM_STAMPED_WRITE_HERE_V1 "__crashtrail_stamped_write_here"
/* In the runtime core (one per process). */
/* The slow paths use the preserve_most calling convention (all registers but r11 kept). */
#define CT_SYM_RING_REFILL "__crashtrail_ring_refill" /* void (uint64_t **, desc *): sets
                                                       * *pos to the slot to write */
#define CT_SYM_STAMPED_SLOW "__crashtrail_stamped_slow" /* void (uint64_t **, desc *): a
                                                       * stamped flush's slow path: the next
                                                       * stamp into CT_SYM_STAMP_OR if the
                                                       * module stamps (else 0), then a refill
                                                       * if *pos is at a chunk boundary */
#define CT_SYM_WRITE_SLOW "__crashtrail_write_slow" /* void (uint64_t **, desc *, uint64_t
                                                       * id, uint64_t acc): writes the record
                                                       * {id, acc}, refilling first at a chunk
                                                       * boundary */
#define CT_SYM_STAMPED_WRITE_SLOW "__crashtrail_stamped_write_slow" /* likewise, with the
                                                       * next stamp ored into id if the module
                                                       * stamps */
#define CT_SYM_STAMP "__crashtrail_stamp"             /* TLS uint64_t, starts at CT_REC_STAMPED */
#define CT_SYM_STAMP_OR "__crashtrail_stamp_or"       /* TLS uint64_t: what the slow path's
                                                       * caller ors into w0 */
#define CT_SYM_STAMP_WRAP "__crashtrail_stamp_wrap"   /* void (void): low 16 bits wrapped */
#define CT_SYM_NOW "__crashtrail_now"                 /* TLS uint64_t: coarse time for tables */
#define CT_SYM_REGISTER_MODULE "__crashtrail_register_module"
#define CT_SYM_LONGJMP_PREFIX "__crashtrail_" /* + longjmp, _longjmp, siglongjmp,
                                                * __longjmp_chk: the defer slots of the frames
                                                * it discards written first (defer-calls) */
#define CT_SYM_CXA_ATEXIT "__crashtrail___cxa_atexit" /* __cxa_atexit's signature: the handler
                                                * run after a CT_TAG_TOPLEVEL marker */
#define CT_SYM_ATEXIT "__crashtrail_atexit"     /* int (void (*)(void), void *dso): atexit,
                                                * the calling module's __dso_handle added */
#define CT_SYM_PTHREAD_CREATE "__crashtrail_pthread_create" /* pthread_create's signature: the
                                                       * thread set up before its routine */
#define CT_SYM_PRELOAD_UNWINDER "__crashtrail_preload_unwinder" /* void (void): called at load
                                                * by a module that calls sigsetjmp or siglongjmp
                                                * (defer-calls; runtime/longjmp_save.c) */

/* ---- sections ----------------------------------------------------------------------------- */
#define CT_SECTION_META ".debug_crashtrail" /* not allocated; a debug section, so linkers keep
                                                * it under --gc-sections and objcopy
                                                * --only-keep-debug moves it */
#define CT_SECTION_TABLES "crashtrail_tab" /* allocated, zero: last/first-execution tables */
#define CT_SECTION_DEFER "crashtrail_defer" /* allocated, read-only (ABI 7; writable and
                                               * relocated in ABI 6): struct ct_defer_entry,
                                               * one per function with a defer slot */
#define CT_SECTION_TABLE_MAPS "crashtrail_maps" /* allocated (ABI 8): struct ct_table_map, one
                                                 * per unit whose blocks mark a byte map */

/* ---- records ------------------------------------------------------------------------------ */
#define CT_RECORD_BYTES 16u
#define CT_CHUNK_BYTES 16384u
#define CT_CHUNK_BYTES_ABI4 4096u /* the chunks of dumps written by ABI 4 and older runtimes */
#define CT_CHUNK_HEADER_SLOTS 2u
#define CT_REC_ADDR_MASK ((UINT64_C(1) << 47) - 1)
#define CT_REC_STAMPED (UINT64_C(1) << 47)
#define CT_REC_TAG_SHIFT 48
/* Added to the record id of a deferred call's mark (defer-calls, while stamping is on): a
 * stamped record of the accumulator so far that only cuts the ring for ordering; the record
 * goes on across the call. Record ids of functions are below it. */
#define CT_REC_DEFER_MARK (UINT64_C(1) << 30)
#define CT_STAMP_INCREMENT (UINT64_C(1) << 48)

#define CT_TAG_CHUNK 0xC7A0u
#define CT_TAG_CLOCK 0xC7A1u
#define CT_TAG_SEQ 0xC7A2u /* w1: full stamp counter; the next stamp has low bits 0 */
#define CT_TAG_CUT 0xC7A3u /* w1: a full stamp taken for it: orders like a stamped record */
/* A frame that a longjmp discarded while it was suspended in a deferred call (defer-calls;
 * runtime/longjmp_save.c): written at the longjmp, innermost frame first, so it follows its
 * callees' records as its own record would have (post-order).
 *   w0 bits  0..29  desc - f, f the frame's function (its record id)
 *      bits 30..46  the frame's return address - f, or 0 when that is 2^17 or more
 *   w1 the accumulator f stored in its defer slot at its newest deferred call (a record's w1).
 * The frame may not be in a deferred call (the slot then holds an older call's path): the
 * post-mortem keeps it only if the return address is a deferred call's. */
#define CT_TAG_ABANDON 0xC7A4u
/* An exit handler that instrumented code registered starts here (defer-calls;
 * runtime/exit_handlers.c): the records after it are no callees of calls before it. w1: 1. */
#define CT_TAG_TOPLEVEL 0xC7A5u
#define CT_ABANDON_FN_BITS 30u
#define CT_ABANDON_RET_BITS 17u

/* Accumulator: a check point with budget D flushes when acc >= 2^(63 - D). */
#define CT_ACC_BITS 63u
#define CT_MAX_CHECK_BUDGET 48u

/* ---- tables -------------------------------------------------------------------------------- */
/* One entry per table slot: when the slot's blocks last and first ran, in CT_SYM_NOW units. */
struct ct_table_entry {
  uint64_t last;
  uint64_t first;
};
/* CT_SYM_NOW counts CLOCK_MONOTONIC in units of 2^CT_NOW_SHIFT ns (~65 us). Once a second thread
 * runs instrumented code the runtime rounds it down to a multiple of 2^grain units
 * (CRASHTRAIL_TABLE_GRAIN_US, default CT_NOW_THREADED_GRAIN_US): a shared table's hot entries are
 * then rewritten, and their cache lines moved between CPUs, once per grain instead of once per
 * unit (docs/design.md, "Last- and first-execution tables"). */
#define CT_NOW_SHIFT 16u
#define CT_NOW_THREADED_GRAIN_US 1000u

/* ---- module descriptor (emitted by the pass, one per module) -------------------------------- */
struct ct_module_desc {
  uint32_t abi_version;       /* CT_ABI_VERSION */
  uint32_t chunk_mask;        /* CT_CHUNK_BYTES - 1; the runtime writes 0 once two modules
                               * registered: stamped flushes test the ring position against
                               * it, so then all of them take the slow path, which stamps */
  const void *ehdr;           /* &__ehdr_start of the module (weak; may be 0) */
  struct ct_table_entry *tab_start; /* __start_crashtrail_tab (weak; 0 without tables) */
  struct ct_table_entry *tab_stop;  /* __stop_crashtrail_tab */
  void *runtime;              /* owned by the runtime: its module slot, 0 until registered */
  /* ABI 6 on: __start_/__stop_ CT_SECTION_DEFER (weak; 0 without deferred calls) */
  const struct ct_defer_entry *defer_start;
  const struct ct_defer_entry *defer_stop;
  /* ABI 8 on: __start_/__stop_ CT_SECTION_TABLE_MAPS (weak; 0 without table maps) */
  const struct ct_table_map *map_start;
  const struct ct_table_map *map_stop;
};

/* Tables mode in code built for an executable: a unit's blocks do not compare their entry with
 * the clock; each marks its entry's byte in a per-thread map (a local-exec TLS array, one byte
 * per table entry, set to 1), and the runtime folds the marked bytes into the table (last =
 * the thread's CT_SYM_NOW if newer, first if unset, the byte cleared) before that thread's
 * CT_SYM_NOW changes, at the thread's exit and before a dump writes the tables: an entry gets
 * the time the compare would have written (runtime/table_maps.c). */
struct ct_table_map {
  int64_t table;   /* the unit's table (struct ct_table_entry[entries]) minus this field's address */
  int64_t tpoff;   /* the map's offset from the thread pointer (the same in every thread);
                    * the map is 64-byte aligned, its size `entries` rounded up to 64 */
  uint64_t entries;
};

/* A function that defers calls (defer-calls) stores its accumulator, before each deferred call,
 * into a stack slot of its frame (a volatile store; llvm.localescape names the slot's offset):
 * a longjmp that discards the frame writes it to the ring (CT_TAG_ABANDON). The offset is the
 * code generator's: negative, from the frame pointer (the CFA - 16); else from the stack
 * pointer at the call (the callee's CFA). The pass gives no slot to a function whose frame is
 * addressed otherwise (dynamic or over-aligned allocas: a base register). */
struct ct_defer_entry {
  int64_t fn;    /* the function's address minus the entry's (ABI 6: the address, relocated) */
  int64_t slot;  /* the slot's offset, as above */
};

/* ---- metadata units ------------------------------------------------------------------------ */
/*
 * The section CT_SECTION_META is a concatenation of units, one per translation unit plus one
 * per comdat function (so a discarded comdat takes its metadata with it). A unit:
 *
 *   u32 magic CT_META_MAGIC     u16 version CT_META_VERSION     u16 flags (CT_UNIT_*)
 *   u32 size (whole unit, bytes, from magic)     u32 reserved (0)
 *   u64 table address (relocated; 0 if the unit has no table)   u32 table entries  u32 nfunc
 *   strings:  uleb count, then per string: uleb length, bytes (no terminator)
 *   inlines:  uleb count, then per inline frame: uleb parent+1 (0: outermost), uleb function
 *             name, uleb call file, uleb call line, uleb call column  (names/files: string ids)
 *   functions, nfunc times:
 *     u64 address (relocated; 0 or ~0 when the linker discarded the function)
 *     uleb linkage name, uleb display name, uleb file, uleb line, uleb flags (CT_FN_*)
 *     uleb site bits (s), uleb nsites, then per site: uleb block, uleb kind (CT_SITE_*)
 *     uleb nblocks, then per block:
 *       uleb flags (CT_BB_*)
 *       [CT_BB_CHECK]  uleb budget D: on entry, flush and restart here if acc >= 2^(63-D)
 *       [CT_BB_TABLE]  uleb table entry index within the unit's table
 *       uleb terminator kind (CT_TERM_*) and its operands:
 *         CT_TERM_RETURN, CT_TERM_RESUME: flush, leave the function; no operands
 *         CT_TERM_STOP: unreachable; no operands
 *         CT_TERM_JUMP: uleb successor
 *         CT_TERM_BRANCH: uleb nsucc, then per successor: uleb block, uleb code length,
 *                         uleb code value (the code is read most significant bit first)
 *         CT_TERM_CALL: flush, call; uleb callee name (string id+1, 0: indirect),
 *                       uleb continuation block (a site) or 0 for a tail call that returns
 *         CT_TERM_INVOKE: flush, call; uleb callee, uleb normal block (site), uleb unwind
 *                         block (site)
 *         CT_TERM_FLOW: a call that carries the accumulator (no flush): uleb callee name
 *                       (string id+1, a CT_FN_FLOW function of the unit), uleb continuation
 *                       block; the walk goes on at the callee's entry and comes back there
 *         CT_TERM_DEFER: a direct call before which no record is written (the pass's
 *                        defer-calls): uleb callee name (string id+1), uleb continuation
 *                        block; the walk goes on at the continuation with the same record,
 *                        and the callee's records come before the caller's in the ring
 *                        (post-order). With CT_BB_STAMPED the callee may be in another
 *                        module: while stamping is on, the call writes a stamped mark before
 *                        it (id + CT_REC_DEFER_MARK, the accumulator so far), which only cuts
 *                        the ring for ordering; the record goes on across the call
 *       uleb nlines, then per line: uleb file, uleb line, uleb column, uleb inline frame+1
 */
#define CT_META_MAGIC 0x444d5443u /* "CTMD" */
#define CT_META_VERSION 2u /* readers accept 1 (no elided flushes) and 2 */
#define CT_META_HEADER_BYTES 32u

#define CT_UNIT_TABLES 1u

#define CT_FN_STAMP_RETURN 1u /* returns are stamped: may be entered from another module */
#define CT_FN_NO_DEBUG 2u     /* compiled without debug locations */
#define CT_FN_ACC_VAR 4u      /* the accumulator is described to DWARF as CT_ACC_VAR_NAME */
#define CT_FN_LOCAL 8u        /* local linkage: direct calls by its name come from its unit */
#define CT_FN_BLOCK_DISC 16u   /* DWARF discriminator N on a line row: the row is code of block N - 1 */
#define CT_FN_LOOP_FLAGS 32u   /* loop headers carry CT_BB_LOOP (without it, an older pass's loop
                                * headers are its blocks with CT_BB_CHECK) */
#define CT_FN_FLOW 64u         /* takes the accumulator from its caller and returns it: its
                                * records start where its caller's did, its returns write none
                                * (the walk goes on after the CT_TERM_FLOW that called it) */
#define CT_FN_DEFERS 128u      /* has CT_TERM_DEFER blocks: its records follow its callees' */
#define CT_FN_CTOR 256u        /* a constructor (llvm.global_ctors): the loader calls it */
/* or'ed into the discriminator of crashtrail's cold code (a check point that fires, a ring
 * refill, a table update): code of the block that rarely runs, not to be shown as its order */
#define CT_DISC_COLD (1u << 24)

#define CT_SITE_ENTRY 0u
#define CT_SITE_AFTER_CALL 1u
#define CT_SITE_LANDING 2u
#define CT_SITE_CHECK 3u

#define CT_BB_CHECK 1u
#define CT_BB_TABLE 2u
#define CT_BB_STAMPED 4u /* the flush that ends this block is stamped */
#define CT_BB_ELIDE 8u   /* the flush that ends this block is not written when the record has
                          * no path bits (the decoder walks that path itself; version 2) */
#define CT_BB_LOOP 16u   /* a loop header (the target of a back edge): the timeline counts its
                          * runs on one line as iterations. Its check point, if any, sits on
                          * the back edges' source blocks */

#define CT_TERM_RETURN 0u
#define CT_TERM_RESUME 1u
#define CT_TERM_STOP 2u
#define CT_TERM_JUMP 3u
#define CT_TERM_BRANCH 4u
#define CT_TERM_CALL 5u
#define CT_TERM_INVOKE 6u
#define CT_TERM_FLOW 7u
#define CT_TERM_DEFER 8u

#define CT_ACC_VAR_NAME "__crashtrail_path"

#endif
