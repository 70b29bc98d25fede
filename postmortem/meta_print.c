/*
 * meta_print.c - `crashtrail meta FILE`: the decoding metadata of an object, executable or
 * debug file in readable form (for tests of the pass and for curious users).
 *
 *   function NAME (DISPLAY) at 0xADDR, FILE:LINE, site bits S, flags F
 *     site N: block B (kind)
 *     block B [check D] [table@ENTRY] TERM -> succ:len:code ... ; lines file:line:col ...
 *   (ENTRY: the link-time address of the block's last/first table entry; blocks always run
 *   together share one)
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "crashtrail/abi.h"
#include "elf_file.h"
#include "meta_reader.h"
#include "outputs.h"

static const char *term_name(uint32_t t) {
  static const char *names[] = {"return", "resume", "stop",  "jump",
                                "branch", "call",   "invoke", "carried-call",
                                "deferred-call"};
  return t < sizeof names / sizeof names[0] ? names[t] : "?";
}

static const char *site_kind(uint32_t k) {
  static const char *names[] = {"entry", "after-call", "landing", "check"};
  return k < sizeof names / sizeof names[0] ? names[k] : "?";
}

static void print_function(FILE *out, const struct ct_mfunc *f) {
  fprintf(out, "function %s (%s) at 0x%" PRIx64 ", %s:%u, site bits %u, flags %u%s%s\n", f->name,
          f->display, f->addr, f->file, f->line, f->site_bits, f->flags & ~CT_FN_FLOW_ANY,
          f->flags & CT_FN_FLOW ? ", carries its caller's accumulator" : "",
          f->flags & CT_FN_CTOR ? ", a constructor" : "");
  for (uint32_t s = 0; s < f->nsites; s++)
    fprintf(out, "  site %u: block %u (%s)\n", s, f->site_block[s], site_kind(f->site_kind[s]));
  for (uint32_t b = 0; b < f->nblocks; b++) {
    const struct ct_mblock *mb = &f->blocks[b];
    fprintf(out, "  block %u", b);
    if (mb->flags & CT_BB_CHECK) fprintf(out, " check %u", mb->budget);
    if (mb->flags & CT_BB_TABLE) fprintf(out, " table@0x%" PRIx64, mb->table_addr);
    if (mb->flags & CT_BB_STAMPED) fprintf(out, " stamped");
    if (mb->flags & CT_BB_ELIDE) fprintf(out, " elidable");
    if (mb->flags & CT_BB_LOOP) fprintf(out, " loop");
    fprintf(out, " %s", term_name(mb->term));
    if (mb->term == CT_TERM_CALL || mb->term == CT_TERM_INVOKE || mb->term == CT_TERM_FLOW ||
        mb->term == CT_TERM_DEFER)
      fprintf(out, " %s", mb->callee ? mb->callee : "(indirect)");
    for (uint32_t s = 0; s < mb->nsucc; s++) {
      fprintf(out, " -> %u", mb->succ[s].block);
      if (mb->term == CT_TERM_BRANCH) {
        fputc(':', out);
        for (uint32_t i = mb->succ[s].len; i-- > 0;) fputc((mb->succ[s].code >> i) & 1 ? '1' : '0', out);
      }
    }
    fprintf(out, ";");
    for (uint32_t l = 0; l < mb->nlines; l++) {
      const char *slash = strrchr(mb->lines[l].file, '/');
      fprintf(out, " %s:%u:%u", slash ? slash + 1 : mb->lines[l].file, mb->lines[l].line,
              mb->lines[l].col);
      if (mb->lines[l].inl) fprintf(out, "@%s", mb->lines[l].inl->function);
    }
    fputc('\n', out);
  }
}

/* Prints the metadata of path; 0, or 1 after a message on stderr. */
int ct_meta_print_file(const char *path, FILE *out) {
  struct ct_elf *e;
  struct ct_meta *m;
  char err[512];
  size_t len;
  if (ct_elf_open(path, &e, err, sizeof err) != 0) {
    fprintf(stderr, "crashtrail: %s\n", err);
    return 1;
  }
  const void *sec = ct_elf_section(e, CT_SECTION_META, &len);
  if (!sec) {
    fprintf(stderr, "crashtrail: %s has no %s section (not built with crashtrail?)\n", path,
            CT_SECTION_META);
    ct_elf_close(e);
    return 1;
  }
  if (ct_meta_load(sec, len, ct_elf_is_object(e), &m, err, sizeof err) != 0) {
    fprintf(stderr, "crashtrail: %s: %s\n", path, err);
    ct_elf_close(e);
    return 1;
  }
  fprintf(out, "%zu units, %zu functions, %zu inline frames\n", m->nunits, m->nfuncs, m->ninline);
  for (size_t i = 0; i < m->nfuncs; i++) print_function(out, &m->funcs[i]);
  ct_meta_free(m);
  ct_elf_close(e);
  return 0;
}
