/*
 * timeline.h - what an engineer reads: per thread, the source lines that ran (oldest first),
 * the stack at the crash, and the last/first-execution traces. Built from a dump and its
 * modules; every output format (text, JSON, Chrome trace, HTML, SQLite) renders this model.
 */
#ifndef CT_TIMELINE_H
#define CT_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "dump_reader.h"
#include "meta_reader.h"
#include "module_files.h"

struct ct_local;

enum ct_step_flag {
  CT_STEP_UNCERTAIN = 1, /* not proven by the record: the crash line when the unfinished path
                            could not be recovered, or steps guessed past the last bit */
  CT_STEP_CRASH = 2,     /* the faulting line (the crashed thread's last step) */
  CT_STEP_ENTRY = 4,     /* first step of a function invocation */
  CT_STEP_GAP = 8,       /* history before this step was lost (ring wrapped, records missing) */
  CT_STEP_PENDING = 16,  /* recovered from the crashing frame's live accumulator */
  CT_STEP_LOOP = 32      /* (while decoding) the line's block is a loop header */
};

struct ct_step {
  const char *function;              /* innermost function (the inlined one, if inlined) */
  const char *outer;                 /* the out-of-line function the step's code is in */
  const char *file;
  uint32_t line, col;
  const struct ct_inline_frame *inl; /* inline chain, NULL if not inlined */
  const struct ct_mfunc *fn;         /* the out-of-line function whose record this is */
  uint16_t module, flags;
  uint32_t depth;                    /* call depth, 0 for the thread's shallowest step */
  uint32_t repeat;                   /* further consecutive runs of this line merged into it
                                        through a loop (a one-line loop's iterations - 1) */
  uint64_t time_ns;                  /* CLOCK_MONOTONIC, to the chunk (approximate) */
};

struct ct_frame {
  uint64_t pc;       /* runtime address */
  int module;        /* index in the timeline's modules, -1 if unknown */
  const char *function, *file;
  uint32_t line, col;
  int inlined;       /* an inlined call inside the next (outer) frame */
  int scanned;       /* found by scanning the stack for a return address (the frame inside it
                      * is in code without unwind information: JIT code, a corrupt pc) */
};

/* A decoded block, for --format=blocks (testing the encoding against an independent trace). */
struct ct_block_ref {
  uint64_t fn;       /* the function's link-time address */
  uint32_t block;
  uint16_t module;
};

/* A block's dumped table entry as it is, for --format=blocks (testing the tables). */
struct ct_table_ref {
  struct ct_block_ref b;
  uint64_t last, first;  /* CT_SYM_NOW units, 0: never ran */
};

struct ct_tl_thread {
  uint32_t tid, flags;  /* CT_THR_* */
  struct ct_block_ref *blocks; /* only when built with keep_blocks */
  size_t nblocks, blocks_cap;
  char name[17];
  struct ct_step *steps;  /* oldest first; steps[0] is step number first_seq of the thread */
  size_t nsteps, cap;
  size_t first_seq;       /* steps decoded but not kept (the timeline's max_steps) */
  uint32_t min_depth;     /* the smallest depth of all steps, kept or not */
  struct ct_frame *stack;
  size_t nstack;
  struct ct_local *locals;  /* variables of the innermost frame DWARF describes (dumped thread) */
  size_t nlocals;
  const char *locals_function, *locals_file; /* that frame's function and line */
  uint32_t locals_line;
  size_t records, bad_records, rings;
  int wrapped;          /* some of its history was overwritten */
  int32_t depth;        /* call depth while decoding (entries minus returns) */
};

struct ct_exec_entry {
  const char *function, *file;
  uint32_t line;
  uint16_t module;
  uint64_t time_ns;     /* CLOCK_MONOTONIC, to the timeline's table_resolution_ns */
};

/* What the dump says about the process and the signal (the same whether the timeline comes
 * from a dump or from the crash store). */
struct ct_crash_info {
  uint32_t pid;
  int reason;                   /* CT_REASON_* */
  const char *executable, *message;
  const char **arguments;
  size_t narguments;
  int64_t realtime_ns;          /* Unix time of the dump, ns */
  uint64_t monotonic_ns;        /* CLOCK_MONOTONIC at the same moment (converts step times) */
  int has_signal;
  int signo, code, sender_pid;
  uint64_t fault_addr;
};

struct ct_tl_module {
  const char *name, *path, *build_id, *debug_file; /* build_id in hex */
  uint64_t bias;
  int instrumented;
};

struct ct_timeline {
  struct ct_crash_info info;
  struct ct_tl_module *modules; /* step and frame `module` fields index this */
  size_t nmodules;
  struct ct_dump *dump;         /* NULL when loaded from the store */
  struct ct_modset *mods;       /* NULL when loaded from the store */
  struct ct_tl_thread *threads; /* the crashed (or dumping) thread first */
  size_t nthreads;
  int crashed;                  /* index of the crashed thread in threads, -1 if none */
  struct ct_exec_entry *last_exec, *first_exec;
  size_t nlast, nfirst;
  uint64_t table_resolution_ns; /* how finely the tables' times tell blocks apart; 0: no tables */
  char **warnings;
  size_t nwarnings;
  int pending_recovered;        /* the crashing frame's unfinished path was read from DWARF */
  /* deferred calls: the decoder walked the first pending_skip blocks of this function's
   * unfinished path already (with its deferred callees' records); pending_path goes on there */
  const struct ct_mfunc *pending_skip_fn;
  size_t pending_skip;
  int keep_blocks;              /* also record every decoded block (ct_tl_thread.blocks) and
                                   every block's raw table entry (table_refs) */
  struct ct_table_ref *table_refs;
  size_t ntable_refs;
  size_t max_steps;             /* keep only the newest steps of each thread, 0 = all */
  struct ct_arena arena;
};

/* Builds the timeline of a dump whose modules are resolved. Every record is decoded; with
 * max_steps > 0 only the newest max_steps steps of each thread are kept (the rest are counted:
 * first_seq), which keeps memory bounded however long the history. Returns 0, or -1 (out of
 * memory) with a reason in err. Problems that only degrade it (a corrupt record, no DWARF for a
 * frame) become warnings. */
int ct_timeline_build(struct ct_dump *d, struct ct_modset *m, int keep_blocks, size_t max_steps,
                      struct ct_timeline **out, char *err, size_t errlen);
void ct_timeline_free(struct ct_timeline *t);
void ct_timeline_warn(struct ct_timeline *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Steps store depth + CT_DEPTH_BIAS while a thread is decoded (a history that starts inside
 * calls goes below its start), then each thread is shifted so its shallowest step is 0. */
#define CT_DEPTH_BIAS (1u << 30)

/* Appends a step, merging it into the previous one when it is the same source line. */
int ct_tl_add_step(struct ct_tl_thread *th, const struct ct_step *s);
/* Appends block `block` of f to the thread's decoded blocks (--format=blocks; only when the
 * timeline keeps them). */
void ct_tl_log_block(struct ct_tl_thread *th, const struct ct_mfunc *f, uint32_t block,
                     uint16_t module);

/* Builds the stack of the thread the registers belong to, and the unfinished path of its
 * innermost instrumented frame (stack.c). */
struct ct_callstack;
void ct_timeline_stack(struct ct_timeline *t, struct ct_tl_thread *th, struct ct_callstack *cs);
/* The crashed thread's frames that were suspended in deferred calls at the dump, outermost
 * first, as ct_po_rec of CT_PO_FRAME with a stop, each naming its accumulator read from the
 * stack in recs[i] (ref i) and in callers[i] the function of the frame it was called from
 * (NULL: code without records): at most max. */
struct ct_po_rec;
struct ct_rec;
struct ct_mfunc;
/* Where the path of a frame that a longjmp discarded (a CT_TAG_ABANDON slot: its function fn,
 * its slot's accumulator acc, its return address ret bytes into fn, 0 if not known) stops,
 * as ct_stack_deferred_frames's stops count: at the deferred call it was in. 0 when it was in
 * no deferred call (its slot then held an older call's path) or the path does not get there. */
uint32_t ct_stack_abandoned_stop(struct ct_timeline *t, uint16_t mod, uint64_t fn, uint64_t acc,
                                 uint32_t ret);
size_t ct_stack_deferred_frames(struct ct_timeline *t, struct ct_tl_thread *th,
                                struct ct_po_rec *out, uint32_t *stops, struct ct_rec *recs,
                                const struct ct_mfunc **callers, size_t max);
/* The last/first-execution traces from the dumped tables (exec_tables.c). */
int ct_timeline_exec_tables(struct ct_timeline *t);

/* Human names for signal numbers and codes. */
const char *ct_signal_name(int signo);
const char *ct_signal_code_name(int signo, int code);

#endif
