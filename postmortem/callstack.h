/*
 * callstack.h - the decoder's model of one thread's call stack, which turns its records (in
 * true order) into steps and re-creates the records the program did not write.
 *
 * A flush whose record would hold no path bits is skipped by the instrumented code when its
 * block says CT_BB_ELIDE: from the frame's site there is only one path to it, so the decoder
 * walks it itself. That needs to know, for every frame, where its next record starts; this
 * model keeps it: a record ending at a call pushes the callee (resolved by name, as the linker
 * binds it), a return pops, and before each record the innermost frame is advanced along its
 * branch-free paths to elided flushes (emitting their steps) until it needs bits.
 *
 * Where the records do not fit the model (the history starts inside calls, records were
 * overwritten, a signal handler or a callback from uninstrumented code ran, longjmp or an
 * exception unwound frames) the model resynchronises on the record itself, which always
 * names its function and start site: an entry record starts a frame on top of the current
 * one, a record of a deeper frame unwinds to it, anything else restarts the model there.
 */
#ifndef CT_CALLSTACK_H
#define CT_CALLSTACK_H

#include "decoder.h"
#include "timeline.h"

struct ct_callstack;

struct ct_callstack *ct_callstack_new(struct ct_timeline *t, struct ct_tl_thread *th);
void ct_callstack_free(struct ct_callstack *cs);
/* The innermost frame, entered by a call of f whose record was the newest, was not entered
 * after all (the thread stopped at the call instruction): pops it. 0 if the frame below is not
 * f's. */
int ct_callstack_uncall(struct ct_callstack *cs, const struct ct_mfunc *f);
/* The newest record given to ct_callstack_chunk (its module, function address at run time and
 * accumulator); 0 if none. */
int ct_callstack_last_record(const struct ct_callstack *cs, const struct ct_module **m,
                             uint64_t *fn, uint64_t *acc);

/* Appends the steps of each record in slots [from, to) of live chunk c of rr (holes and CUT
 * markers skipped), of module m (index mod_index in t->mods), and of the elided records before
 * each. `gap`: history before the first was lost; returned if there was no record. A chunk per
 * call: the decoder's loop keeps its state in registers across a chunk's records. */
int ct_callstack_chunk(struct ct_callstack *cs, const struct ct_ring_records *rr, size_t c,
                       size_t from, size_t to, struct ct_module *m, uint16_t mod_index, int gap);

/* Appends the steps of records recs[0..n) (in ct_postorder's order: ct_po_arrange; the records
 * read through src), each with the callback flag and lost calls ct_postorder wrote into it,
 * and of the elided records before each. times: the time each position's steps are given
 * (step_times.h). NULL when windowed (ct_callstack_windowed): the same times, worked out for
 * the kept steps alone at the end; NULL otherwise: each record's own. */
struct ct_po_rec;
struct ct_po_src;
struct ct_step_times;
void ct_callstack_records(struct ct_callstack *cs, const struct ct_po_src *src,
                          const struct ct_po_rec *recs, size_t n,
                          const struct ct_step_times *times);

/* The crashed frame's unfinished record starts at `site` of f: appends the steps of the
 * elided records since the last written one (e.g. the branch-free ends of callees that
 * returned), so the unfinished path continues from the right place. */
void ct_callstack_reach(struct ct_callstack *cs, const struct ct_mfunc *f, struct ct_module *m,
                        uint16_t mod_index, uint32_t site, int empty, uint64_t time_ns);

/* Whether a record of f (or the crashed frame's unfinished path in f) may start in another
 * function (carried accumulators, CT_FN_FLOW): f or the model's innermost frame carries an
 * accumulator or makes carried calls. */
int ct_callstack_may_flow(const struct ct_callstack *cs, const struct ct_mfunc *f);

/* The crashed frame's unfinished path when its accumulator may have been carried in from a
 * caller (f: the crashed frame's function): walked from the model's innermost frame (with an
 * empty model, from f or a function reaching f by carried calls) across carried calls and
 * returns as far as its bits go, its steps appended. Returns the function the walk stopped in,
 * or NULL if the accumulator does not start where that frame stands (nothing appended). */
const struct ct_mfunc *ct_callstack_flow_pending(struct ct_callstack *cs, const struct ct_mfunc *f,
                                                 struct ct_module *m, uint16_t mod_index,
                                                 uint64_t acc, uint64_t time_ns);

/* Ends windowed decoding (timeline max_steps): makes the kept steps (step_window.c) and sets
 * th->first_seq; later steps are added directly. */
void ct_callstack_end_window(struct ct_callstack *cs);
/* Whether steps are windowed (the timeline's max_steps): only the newest are made. */
int ct_callstack_windowed(const struct ct_callstack *cs);

/* Every frame of the model has returned (the thread exited, or no instrumented function is on
 * its stack at the dump): appends the steps of their elided ends, as far as they are elided. */
void ct_callstack_return_all(struct ct_callstack *cs);

#endif
