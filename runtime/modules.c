/*
 * modules.c - the registry of instrumented modules (the executable and each shared object),
 * and the process event log (module load/unload, fork, thread start/exit; the latest
 * CT_MAX_EVENTS of them).
 *
 * A module is identified by its descriptor (CT_SYM_MODULE, one per ELF module). Registration
 * reads what the post-mortem needs from the module's own ELF header in memory (reached through
 * __ehdr_start): the load bias, the address range of its segments and its GNU build-id; the
 * path comes from /proc/self/maps. Both are async-signal-safe, so registration may happen
 * lazily from the ring slow path in any context (instrumented code can run before the
 * module's constructor, or inside a signal handler).
 *
 * Invariants: slots in ct_modules are claimed once (fetch-add) and never reused, so a module id
 * is stable for the life of the process; a slot is published (desc->runtime set) only after
 * it is complete.
 */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>

#include "rt_internal.h"

struct ct_module ct_modules[CT_MAX_MODULES];
_Atomic uint32_t ct_module_count;
struct ct_ds_event ct_events[CT_MAX_EVENTS];
_Atomic uint32_t ct_event_count;

/* The log is circular: a long-running process keeps its latest events (a dlclose after
 * thousands of thread starts), not its first ones. CT_MAX_EVENTS divides 2^32, so the slot
 * stays right when the counter wraps. */
void ct_event(uint32_t kind, uint32_t module_id) {
  uint32_t i = atomic_fetch_add(&ct_event_count, 1) % CT_MAX_EVENTS;
  ct_events[i].kind = kind;
  ct_events[i].tid = (uint32_t)ct_gettid();
  ct_events[i].monotonic_ns = ct_monotonic_ns();
  ct_events[i].module_id = module_id;
}

/* Reads the build-id note from a module's program headers in memory. */
/* Reads the module's load bias, extent and build-id. Returns 1 if code lies above desc_addr or
 * 2 GiB below it, which the records' function ids (desc - f, crashtrail/abi.h) cannot name. */
static int ct_module_read_elf(struct ct_module *m, const ElfW(Ehdr) *eh, uintptr_t desc_addr) {
  int bad_layout = 0;
  const ElfW(Phdr) *ph;
  uintptr_t lo = UINTPTR_MAX, hi = 0, first_vaddr = 0;
  int have_first = 0;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0) return 0;
  ph = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);
  for (int i = 0; i < eh->e_phnum; i++)
    if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0 && !have_first) {
      first_vaddr = ph[i].p_vaddr;
      have_first = 1;
    }
  m->load_bias = (uintptr_t)eh - first_vaddr;
  for (int i = 0; i < eh->e_phnum; i++) {
    if (ph[i].p_type == PT_LOAD) {
      uintptr_t s = m->load_bias + ph[i].p_vaddr, e = s + ph[i].p_memsz;
      if (s < lo) lo = s;
      if (e > hi) hi = e;
      if ((ph[i].p_flags & PF_X) && (e > desc_addr || desc_addr - s >= ((uintptr_t)1 << 31)))
        bad_layout = 1;
    } else if (ph[i].p_type == PT_NOTE) {
      const char *p = (const char *)(m->load_bias + ph[i].p_vaddr), *end = p + ph[i].p_memsz;
      while (p + sizeof(ElfW(Nhdr)) <= end) {
        const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
        const char *name = p + sizeof *n;
        const char *desc = name + ((n->n_namesz + 3) & ~3u);
        if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
            n->n_descsz <= sizeof m->build_id) {
          memcpy(m->build_id, desc, n->n_descsz);
          m->build_id_len = n->n_descsz;
        }
        p = desc + ((n->n_descsz + 3) & ~3u);
      }
    }
  }
  m->map_start = lo;
  m->map_end = hi;
  return bad_layout;
}

/* Finds the path of the mapping that contains addr in /proc/self/maps. */
static void ct_module_find_path(struct ct_module *m, uintptr_t addr) {
  static char maps[256 * 1024]; /* one registration at a time: see ct_module_for */
  ssize_t n = ct_read_file("/proc/self/maps", maps, sizeof maps);
  char *line = maps, *end = maps + (n > 0 ? n : 0);
  while (line < end) {
    char *nl = line;
    uintptr_t lo = 0, hi = 0;
    const char *p = line;
    while (nl < end && *nl != '\n') nl++;
    while (*p && *p != '-') lo = lo * 16 + (uintptr_t)(*p <= '9' ? *p - '0' : (*p | 32) - 'a' + 10), p++;
    if (*p == '-') p++;
    while (*p && *p != ' ') hi = hi * 16 + (uintptr_t)(*p <= '9' ? *p - '0' : (*p | 32) - 'a' + 10), p++;
    if (addr >= lo && addr < hi) {
      const char *path = p;
      for (int field = 0; field < 4 && path < nl; field++) { /* perms offset dev inode */
        while (path < nl && *path == ' ') path++;
        while (path < nl && *path != ' ') path++;
      }
      while (path < nl && *path == ' ') path++;
      if (path < nl && *path == '/') {
        size_t len = (size_t)(nl - path);
        if (len >= sizeof m->path) len = sizeof m->path - 1;
        memcpy(m->path, path, len);
        m->path[len] = 0;
      }
      return;
    }
    line = nl + 1;
  }
}

static atomic_flag ct_module_lock = ATOMIC_FLAG_INIT;

/* In the child of fork, a registration another thread had in progress never finishes: free
 * its lock, or the child's next registration would spin for ever. normal (atfork child) */
void ct_modules_after_fork(void) {
  atomic_flag_clear_explicit(&ct_module_lock, memory_order_release);
}

/* Returns the registry slot of a module, registering it on first use. any */
struct ct_module *ct_module_for(struct ct_module_desc *desc) {
  struct ct_module *m = __atomic_load_n((struct ct_module **)&desc->runtime, __ATOMIC_ACQUIRE);
  uint32_t id;
  if (m) return m;
  /* A spin lock, not a mutex: registration is short and never blocks on anything else. A
   * signal handler that interrupts a registration in the same thread must not spin on it, so
   * that case falls through and registers without the lock (both results are valid). */
  while (atomic_flag_test_and_set_explicit(&ct_module_lock, memory_order_acquire)) {
    if (ct_self()->in_handler) break;
  }
  m = __atomic_load_n((struct ct_module **)&desc->runtime, __ATOMIC_ACQUIRE);
  if (!m) {
    id = atomic_fetch_add(&ct_module_count, 1);
    if (id >= CT_MAX_MODULES) {
      atomic_store(&ct_module_count, CT_MAX_MODULES);
      atomic_flag_clear_explicit(&ct_module_lock, memory_order_release);
      return NULL;
    }
    m = &ct_modules[id];
    m->desc = desc;
    m->id = id;
    m->flags = CT_MOD_INSTRUMENTED;
    m->load_ns = ct_monotonic_ns();
    m->tab_start = desc->tab_start;
    m->tab_stop = desc->tab_stop;
    m->tab_addr = (uintptr_t)desc->tab_start;
    if (desc->abi_version >= 8 && desc->map_start && desc->map_stop > desc->map_start) {
      /* stop before start: a fold that sees the start sees the end too */
      __atomic_store_n(&m->maps_stop, desc->map_stop, __ATOMIC_RELEASE);
      __atomic_store_n(&m->maps_start, desc->map_start, __ATOMIC_RELEASE);
      atomic_store_explicit(&ct_table_maps_present, 1, memory_order_release);
    }
    int bad_layout = desc->ehdr && ct_module_read_elf(m, desc->ehdr, (uintptr_t)desc);
    ct_module_find_path(m, (uintptr_t)desc);
    if (bad_layout) { /* a linker script that puts code above the module's data */
      struct ct_msg msg = {{0}, 0};
      ct_msg_str(&msg, "crashtrail: ");
      ct_msg_str(&msg, m->path);
      ct_msg_str(&msg, " has code above its data or 2 GiB away from it: its records cannot "
                       "name their functions");
      ct_msg_emit(&msg);
    }
    if (ct_cfg.exe_path[0] && !strcmp(m->path, ct_cfg.exe_path)) m->flags |= CT_MOD_MAIN;
    /* With two instrumented modules a thread can have two rings: from now on records after
     * which control may change module carry stamps (see crashtrail/abi.h); a chunk mask of 0
     * sends every stamped flush to its slow path, which stamps. */
    if (id >= 1) {
      __atomic_store_n(&desc->chunk_mask, 0, __ATOMIC_RELAXED);
      if (id == 1 && !(ct_modules[0].flags & CT_MOD_UNLOADED))
        __atomic_store_n((uint32_t *)&ct_modules[0].desc->chunk_mask, 0, __ATOMIC_RELAXED);
    }
    __atomic_store_n((struct ct_module **)&desc->runtime, m, __ATOMIC_RELEASE);
    ct_event(CT_EV_MODULE_LOAD, id);
    atomic_flag_clear_explicit(&ct_module_lock, memory_order_release);
    if (id == 1) ct_thread_cut_rings();
    return m;
  }
  atomic_flag_clear_explicit(&ct_module_lock, memory_order_release);
  return m;
}

const struct ct_module *ct_module_at(uintptr_t addr) {
  uint32_t n = atomic_load(&ct_module_count);
  for (uint32_t i = 0; i < n && i < CT_MAX_MODULES; i++) {
    const struct ct_module *m = &ct_modules[i];
    if (addr >= m->map_start && addr < m->map_end && !(m->flags & CT_MOD_UNLOADED)) return m;
  }
  return NULL;
}

CT_EXPORT void __crashtrail_register_module(struct ct_module_desc *desc) {
  ct_ensure_init();
  /* 5: no defer table; 6: its entries' functions relocated addresses (longjmp_save.c);
   * 7: no table maps */
  if (desc->abi_version != CT_ABI_VERSION && (desc->abi_version < 5 || desc->abi_version > 7)) {
    struct ct_msg msg = {{0}, 0};
    ct_msg_str(&msg, "crashtrail: a module was built for runtime ABI ");
    ct_msg_dec(&msg, desc->abi_version);
    ct_msg_str(&msg, ", this runtime speaks ");
    ct_msg_dec(&msg, CT_ABI_VERSION);
    ct_msg_emit(&msg);
  }
  (void)ct_module_for(desc);
}

/* dlclose: keep the module's rings and a copy of its tables for later dumps. normal */
CT_EXPORT void __crashtrail_unregister_module(struct ct_module_desc *desc) {
  struct ct_module *m = desc->runtime;
  /* At exit every module's destructor runs; the modules stay loaded (and a crash in a later
   * destructor must still see them so), so only dlclose is recorded. */
  if (!m || ct_exiting) return;
  ct_rings_module_unloaded(m);
  if (m->tab_start && m->tab_stop > m->tab_start) {
    size_t bytes = (size_t)((char *)m->tab_stop - (char *)m->tab_start);
    void *copy = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (copy != MAP_FAILED) {
      memcpy(copy, m->tab_start, bytes);
      m->tab_start = copy;
      m->tab_stop = (struct ct_table_entry *)((char *)copy + bytes);
    } else {
      m->tab_start = m->tab_stop = NULL;
    }
  }
  m->unload_ns = ct_monotonic_ns();
  m->flags |= CT_MOD_UNLOADED;
  ct_event(CT_EV_MODULE_UNLOAD, m->id);
  desc->runtime = NULL;
}
