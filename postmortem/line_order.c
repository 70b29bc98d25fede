/*
 * line_order.c - a block's source lines in the order its machine code runs them.
 *
 * The metadata lists a block's lines in IR order, the order before codegen. At -O2 the
 * machine runs them in another order (scheduling), runs some in other blocks (hoisting,
 * sinking) and some not at all (folded). The pass names each block in the line table: every
 * located instruction of plan block B carries DWARF discriminator B + 1 (pass/
 * BlockDiscriminators.cpp). Here each block's lines are rebuilt from the rows that carry its
 * discriminator, in address order:
 *
 *  - a row maps to the block's metadata line of the same file, line and column (else the same
 *    file and line), which brings the inline chain along; a row matching none is skipped;
 *  - a run is a stretch of the function's rows (of nonzero lines) that all belong to the
 *    block. Within a run a line may come back (scheduling interleaves two lines); across runs
 *    a line already shown is not shown again, because a second run is either the block's code
 *    duplicated into another path (tail duplication: only one copy runs) or the rest of the
 *    block after an instruction hoisted into it from elsewhere;
 *  - a few rows of other blocks (at most CT_MAX_GUEST_ROWS) between two rows of a block are
 *    instructions moved into its code (hoisted, merged): they run when it runs, and are shown
 *    there, with their own lines (the function's start counts as a row of the entry block, so
 *    code hoisted above the entry's first row is the entry's);
 *  - a block none of whose rows maps to one of its lines made no code of its own: it gets no
 *    lines (what a debugger or the CPU shows for it);
 *  - a block that ends in a call (the pass splits blocks after calls; a deferred call too) runs
 *    code after the call returns: the copy of the result, which carries the call's line.
 *    DWARF's call-site entries give each call's return address (clang writes them only when
 *    it optimises; without them the calls are found in the function's machine code: at -O0
 *    the register allocator spills a call's result right after it, under the call's line,
 *    which the IR does not show); the block's rows from there on are shown at the start of
 *    the block the call returns to, after the callee's steps, where the CPU runs them.
 *
 * Invariants: only functions flagged CT_FN_BLOCK_DISC are touched, and only when at least one
 * of their rows carries a block's discriminator (a binary without line tables keeps IR order);
 * the new lines are a selection of the function's metadata lines (the block's own, and another
 * block's for a moved instruction or a call's return: same pointers for file, function and
 * inline frame), so everything keyed on them keeps working.
 */
#include "line_order.h"

#include <stdlib.h>
#include <string.h>

#include "code_flow.h"
#include "crashtrail/abi.h"

static const char *base_name(const char *p) {
  const char *s = p ? strrchr(p, '/') : NULL;
  return s ? s + 1 : p ? p : "";
}

/* The index of b's line that row r is code of, or -1. */
static int match_line(const struct ct_mblock *b, const struct ct_line_row *r) {
  int by_line = -1;
  for (uint32_t j = 0; j < b->nlines; j++) {
    const struct ct_mline *l = &b->lines[j];
    if (l->line != r->line || strcmp(base_name(l->file), base_name(r->file)) != 0) continue;
    if (l->col == r->column) return (int)j;
    if (by_line < 0) by_line = (int)j;
  }
  return by_line;
}

static int same_step(const struct ct_mline *a, const struct ct_mline *b) {
  return a->line == b->line && a->file == b->file && a->inl == b->inl;
}

/* The index of the row that applies at addr (the last one at or before it), or -1. */
static long row_at(const struct ct_line_row *rows, size_t n, uint64_t addr) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (rows[mid].addr <= addr) lo = mid + 1;
    else hi = mid;
  }
  return (long)lo - 1;
}

struct fn_rows {
  const struct ct_mfunc *f;
  const struct ct_line_row *rows;
  size_t n;
  const uint32_t *owner; /* per row: the block + 1 it is shown in, 0 none */
  const uint8_t *guest;  /* per row: 1 when that is not the block it is code of */
  const uint32_t *run;  /* per row: its run */
  const size_t *byblock, *start; /* rows of block b: byblock[start[b + 1] .. start[b + 2]) */
  const uint64_t *ret;  /* per block: the return address of the call that ends it, or 0 */
};

/* Appends to out[*n] the line of blk that row i is code of, if any: a line comes back within
 * a run (scheduling interleaves lines) but not in a later one (see above). */
static void add_row(const struct ct_mblock *blk, const struct fn_rows *fr, size_t i,
                    uint8_t *shown, uint32_t *cur_run, struct ct_mline *out, size_t *n) {
  if (fr->guest[i]) { /* a line of another block, whose entry brings the inline chain */
    const struct ct_mblock *own = &fr->f->blocks[fr->rows[i].discriminator - 1];
    int j = match_line(own, &fr->rows[i]);
    if (j >= 0 && !(*n && same_step(&out[*n - 1], &own->lines[j]))) out[(*n)++] = own->lines[j];
    return;
  }
  int j = match_line(blk, &fr->rows[i]);
  if (j < 0) return;
  if (fr->run[i] != *cur_run) { /* a new run: what earlier runs showed becomes 1 */
    *cur_run = fr->run[i];
    for (uint32_t t = 0; t < blk->nlines; t++) shown[t] = shown[t] ? 1 : 0;
  }
  if (shown[j] == 1) return;
  if (*n && same_step(&out[*n - 1], &blk->lines[j])) return;
  shown[j] = 2;
  out[(*n)++] = blk->lines[j];
}

/* Rewrites the lines of f's blocks from fr. A block that ends in a call: its rows in the run
 * of the call instruction (call_row) from the row that applies at the return address
 * (ret_row) on run after the call and are shown at the start of the block the call returns
 * to; its other rows, those of other runs first (code laid out apart, such as a rotated loop's
 * test, runs before the call, which ends the block), are its own. */
static int order_function(struct ct_meta *m, struct ct_mfunc *f, struct fn_rows *fr) {
  uint32_t nb = f->nblocks, maxlines = 0;
  struct ct_mline **resume = calloc(nb, sizeof *resume); /* per block: lines run on return */
  size_t *nresume = calloc(nb, sizeof *nresume);
  uint8_t *shown = NULL;
  int rc = -1;
  for (uint32_t b = 0; b < nb; b++)
    if (f->blocks[b].nlines > maxlines) maxlines = f->blocks[b].nlines;
  if (!resume || !nresume || !(shown = malloc(maxlines ? maxlines : 1))) goto out;
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t b = 0; b < nb; b++) {
      struct ct_mblock *blk = &f->blocks[b];
      size_t lo = fr->start[b + 1], hi = fr->start[b + 2], n = 0;
      uint64_t ra = fr->ret[b];
      long call_row = ra ? row_at(fr->rows, fr->n, ra - 1) : -1;
      long ret_row = ra ? row_at(fr->rows, fr->n, ra) : -1;
      uint32_t call_run = call_row >= 0 ? fr->run[call_row] : UINT32_MAX, cur_run = UINT32_MAX;
      if (pass == 0 && (!blk->nlines || call_row < 0 || !blk->nsucc || blk->succ[0].block >= nb))
        continue;
      if (pass == 1 && !blk->nlines && !nresume[b] && lo == hi) continue;
      struct ct_mline *l = ct_arena_alloc(&m->arena, (hi - lo + nresume[b] + 1) * sizeof *l);
      if (!l) goto out;
      memset(shown, 0, blk->nlines);
      if (pass == 0) { /* what runs after the call returns (from the call's own row, when the
                          row that applies at the return address began before it) */
        for (size_t k = lo; k < hi; k++) {
          size_t i = fr->byblock[k];
          if (fr->run[i] == call_run && (long)i >= ret_row) add_row(blk, fr, i, shown, &cur_run, l, &n);
        }
        uint32_t to = blk->succ[0].block;
        if (n && !nresume[to]) resume[to] = l, nresume[to] = n;
        continue;
      }
      for (size_t k = 0; k < nresume[b]; k++)
        if (!n || !same_step(&l[n - 1], &resume[b][k])) l[n++] = resume[b][k];
      for (size_t k = lo; k < hi; k++) { /* rows of other runs than the call's first */
        size_t i = fr->byblock[k];
        if (fr->run[i] != call_run) add_row(blk, fr, i, shown, &cur_run, l, &n);
      }
      for (size_t k = lo; k < hi; k++) {
        size_t i = fr->byblock[k];
        if (fr->run[i] == call_run && (long)i <= call_row) add_row(blk, fr, i, shown, &cur_run, l, &n);
      }
      blk->lines = l;
      blk->nlines = (uint32_t)n;
    }
  rc = 0;
out:
  free(resume);
  free(nresume);
  free(shown);
  return rc;
}

/* Rows a block's code surrounds: at most this many rows of other blocks between two of its
 * rows are taken for instructions moved into it (hoisted, merged), which run when it runs. */
#define CT_MAX_GUEST_ROWS 2

/* Whether every block with a row in [lo, hi) has rows outside it too (count[b + 1]: block b's
 * rows in all): then the stretch is code moved out of those blocks, not a block of its own. */
static int moved_rows(const uint32_t *owner, const size_t *count, size_t lo, size_t hi) {
  for (size_t g = lo; g < hi; g++) {
    size_t here = 0;
    for (size_t h = lo; h < hi; h++) here += owner[h] == owner[g];
    if (owner[g] && count[owner[g] + 1] <= here) return 0;
  }
  return 1;
}

/* Whether a block that ends so ends in a call that returns to its successor: a call, an
 * invoke, or a deferred call (whose walk goes on there after the callee's records). */
static int ends_in_call(uint32_t term) {
  return term == CT_TERM_CALL || term == CT_TERM_INVOKE || term == CT_TERM_DEFER;
}

/* Whether a block of f with lines ends in a call (its rows after the call may move). */
static int has_call_block(const struct ct_mfunc *f) {
  for (uint32_t b = 0; b < f->nblocks; b++)
    if (f->blocks[b].nlines && ends_in_call(f->blocks[b].term)) return 1;
  return 0;
}

/* Where the calls of a function without DWARF call sites come from: the module's code. */
struct code_source {
  const struct ct_elf *elf;    /* the module's file, or NULL */
  struct ct_flow_calls *calls; /* opened on first use */
};

/* Groups f's rows by the block they are shown in (a counting sort: each group in address
 * order), splits them into runs, finds the calls' return addresses, and reorders. 1 done, 0
 * nothing to do, -1 out of memory. */
static int order_rows(struct ct_meta *m, struct ct_mfunc *f, struct ct_dwarf *d,
                      struct code_source *code_src, const struct ct_line_row *rows, size_t n) {
  uint32_t nb = f->nblocks;
  uint32_t *run = malloc((n ? n : 1) * sizeof *run), *owner = calloc(n ? n : 1, sizeof *owner);
  uint8_t *guest = calloc(n ? n : 1, 1);
  size_t *start = calloc(nb + 2, sizeof *start), *pos = calloc(nb + 2, sizeof *pos);
  size_t *byblock = malloc((n ? n : 1) * sizeof *byblock);
  uint64_t *ret = calloc(nb, sizeof *ret), *decoded = NULL; /* decoded: calls found in the code */
  int rc = -1, tagged = 0;
  if (!run || !owner || !guest || !start || !pos || !byblock || !ret) goto out;
  /* A row is shown in its own block: one of a nonzero line with a block's discriminator
   * (crashtrail's cold code and untagged rows are skipped, line 0 is no line). */
  for (size_t k = 0; k < n; k++)
    if (rows[k].line && rows[k].discriminator && rows[k].discriminator <= nb) owner[k] = rows[k].discriminator;
  /* ...or, when a few rows of other blocks lie between two rows of one block and those blocks
   * have code elsewhere too (else it is a small block laid out inside another's code, which
   * runs on its own), in that one. The function's start counts as a row of the entry block:
   * rows before the entry's first one are code hoisted to the top of the function (common to
   * both successors of the entry's branch), which the entry runs before its own. */
  for (size_t k = 0; k < n; k++)
    if (owner[k]) start[owner[k] + 1]++;
  uint32_t host = 1;
  for (size_t k = 0; k < n; k++) {
    if (!owner[k]) continue;
    if (owner[k] != host) {
      size_t next = k, between = 0;
      while (next < n && between <= CT_MAX_GUEST_ROWS && owner[next] != host)
        between += owner[next++] != 0;
      if (next < n && between <= CT_MAX_GUEST_ROWS && moved_rows(owner, start, k, next)) {
        for (size_t g = k; g < next; g++)
          if (owner[g]) owner[g] = host, guest[g] = 1;
        k = next;
      }
    }
    host = owner[k];
  }
  /* runs: a shown row whose block differs from the previous shown row's starts one */
  memset(start, 0, (nb + 2) * sizeof *start);
  uint32_t r = 0, prev = 0;
  for (size_t k = 0; k < n; k++) {
    if (owner[k]) {
      if (owner[k] != prev) r++;
      prev = owner[k];
      tagged = 1;
      start[owner[k] + 1]++;
    }
    run[k] = r;
  }
  if (!tagged) {
    rc = 0;
    goto out;
  }
  for (uint32_t b = 1; b <= nb; b++) start[b + 1] += start[b];
  memcpy(pos, start, (nb + 2) * sizeof *pos);
  for (size_t k = 0; k < n; k++)
    if (owner[k]) byblock[pos[owner[k]]++] = k;
  /* A block ending in a call: the call is its last (the pass splits blocks after calls), so
   * its return address is the highest of the call sites whose call instruction is its code. */
  const uint64_t *rets = NULL;
  long nret = ct_dwarf_call_returns(d, f->addr, &rets);
  if (nret == 0 && code_src->elf && has_call_block(f) && !ct_dwarf_unit_has_call_sites(d, f->addr)) {
    uint64_t end = ct_dwarf_function_end(d, f->addr);
    struct ct_code_view code = {NULL, f->addr, end, NULL, NULL};
    if (end != UINT64_MAX && end > f->addr && end - f->addr < (64u << 20))
      code.bytes = ct_elf_bytes_at(code_src->elf, f->addr, (size_t)(end - f->addr));
    if (code.bytes && !code_src->calls) code_src->calls = ct_flow_calls_open();
    nret = code.bytes ? ct_flow_call_returns(code_src->calls, &code, &decoded) : 0;
    if (nret < 0) nret = 0; /* undecodable: the block keeps its rows where they are */
    rets = decoded;
  }
  for (long k = 0; k < nret; k++) {
    long at = row_at(rows, n, rets[k] - 1);
    uint32_t disc = at >= 0 && owner[at] && !guest[at] ? owner[at] : 0;
    if (!disc) continue;
    uint32_t term = f->blocks[disc - 1].term;
    if (ends_in_call(term) && rets[k] > ret[disc - 1])
      ret[disc - 1] = rets[k];
  }
  struct fn_rows fr = {f, rows, n, owner, guest, run, byblock, start, ret};
  rc = order_function(m, f, &fr) == 0 ? 1 : -1;
out:
  free(decoded);
  free(run);
  free(owner);
  free(guest);
  free(start);
  free(pos);
  free(byblock);
  free(ret);
  return rc;
}

struct ct_line_order {
  struct ct_dwarf *d;
  struct code_source code_src;
};

struct ct_line_order *ct_line_order_new(struct ct_dwarf *d, const struct ct_elf *elf) {
  struct ct_line_order *lo = calloc(1, sizeof *lo);
  if (lo) *lo = (struct ct_line_order){d, {elf, NULL}};
  return lo;
}

void ct_line_order_free(struct ct_line_order *lo) {
  if (!lo) return;
  ct_flow_calls_close(lo->code_src.calls);
  free(lo);
}

int ct_line_order_function(struct ct_line_order *lo, struct ct_meta *m, struct ct_mfunc *f) {
  if (!(f->flags & CT_FN_BLOCK_DISC) || !f->nblocks) return 0;
  const struct ct_line_row *rows = NULL;
  long n = ct_dwarf_function_rows(lo->d, f->addr, &rows);
  return n < 0 ? -1 : order_rows(m, f, lo->d, &lo->code_src, rows, (size_t)n);
}
