/*
 * dump_reader.h - a crash dump (docs/dump-format.md), parsed and checked.
 *
 * The file is mapped; ring, table and stack bytes point into the mapping. Strings are copied
 * and terminated. Everything the rest of the post-mortem reads from a dump has passed the
 * checks of ct_dump_load, so later code may trust lengths and counts.
 */
#ifndef CT_DUMP_READER_H
#define CT_DUMP_READER_H

#include <stddef.h>
#include <stdint.h>

#include "crashtrail/dump_format.h"

struct ct_dump_module {
  struct ct_ds_module hdr;
  uint8_t build_id[64];
  char *path;
};

struct ct_dump_ring {
  struct ct_ds_ring hdr;
  const uint8_t *data;  /* hdr.size bytes, a whole number of chunks */
  uint32_t chunk_bytes; /* CT_CHUNK_BYTES, or CT_CHUNK_BYTES_ABI4 in a dump of ABI 4 or older
                         * (0 reads as CT_CHUNK_BYTES) */
};

struct ct_dump_table {
  struct ct_ds_table hdr;
  const uint8_t *data;
  size_t len;
};

/* Another thread, stopped for the dump (CT_DS_THREAD_REGISTERS, CT_DS_THREAD_STACK). */
struct ct_dump_thread_state {
  struct ct_ds_registers regs;
  int has_stack;
  struct ct_ds_stack stack;
  const uint8_t *stack_bytes;
  size_t stack_len;
};

struct ct_dump {
  const uint8_t *map;
  size_t size;
  int mapped; /* map is an mmap of the file, unmapped by ct_dump_free */
  char *file;
  uint32_t version; /* the dump format's (CT_DUMP_VERSION or older) */
  struct ct_ds_process process;
  char *exe, *reason, *cmdline; /* cmdline: NUL-separated, cmdline_len bytes */
  size_t cmdline_len;
  int has_signal, has_regs, has_stack;
  struct ct_ds_signal signal;
  struct ct_ds_registers regs;
  struct ct_ds_stack stack;
  const uint8_t *stack_bytes;
  size_t stack_len;
  struct ct_dump_thread_state *others; /* every other thread stopped for the dump */
  size_t nothers;
  struct ct_dump_module *modules;
  size_t nmodules;
  struct ct_ds_thread *threads;
  size_t nthreads;
  struct ct_dump_ring *rings;
  size_t nrings;
  struct ct_dump_table *tables;
  size_t ntables;
  struct ct_ds_event *events;
  size_t nevents;
  char *maps; /* text of /proc/self/maps, terminated */
  uint64_t vdso_addr;  /* where the vDSO was mapped, and its ELF image (NULL: not dumped) */
  const uint8_t *vdso;
  size_t vdso_len;
};

/* Loads and validates a dump. Returns 0 and *out; or -1 with a one-line reason in err (not a
 * dump, truncated, corrupt, or from a newer format version). */
int ct_dump_load(const char *path, struct ct_dump **out, char *err, size_t errlen);
/* The same for a dump in memory (not copied: data must outlive the result). */
int ct_dump_parse(const void *data, size_t size, struct ct_dump **out, char *err, size_t errlen);
void ct_dump_free(struct ct_dump *d);

/* Copies `len` bytes of a dumped thread's memory at `addr` from the stack slices (the threads'
 * stacks do not overlap); 0 if all of it was captured, -1 otherwise. `ctx` is the dump.
 * Matches ct_mem_read_fn. */
int ct_dump_read_stack(void *ctx, uint64_t addr, void *out, size_t len);

/* The registers of thread tid (the dump's own thread or one stopped for it), or NULL. */
const struct ct_ds_registers *ct_dump_regs_of(const struct ct_dump *d, uint32_t tid);

const struct ct_dump_module *ct_dump_module_by_id(const struct ct_dump *d, uint32_t id);

#endif
