/*
 * vdso.c - where the kernel's vDSO image is, so that a dump can carry it.
 *
 * The vDSO (clock_gettime, gettimeofday, ...) is code no file holds: a post-mortem on another
 * machine, or after a kernel update, cannot read its symbols or its call-frame information from
 * anywhere but the dump. It is a small ELF image (two pages on x86-64) mapped read-only;
 * its extent is the end of its last loaded segment or of its section headers, whichever is
 * later (the post-mortem needs both). Located once at start-up (getauxval is not
 * async-signal-safe); the dump writer copies it (CT_DS_VDSO).
 */
#include <elf.h>
#include <string.h>
#include <sys/auxv.h>

#include "rt_internal.h"

uintptr_t ct_vdso_addr;
size_t ct_vdso_len;

/* normal */
void ct_vdso_locate(void) {
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
  uint64_t end;
  if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_phentsize != sizeof(Elf64_Phdr))
    return;
  end = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
  const Elf64_Phdr *ph = (const Elf64_Phdr *)((const char *)eh + eh->e_phoff);
  for (unsigned i = 0; i < eh->e_phnum; i++)
    if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > end)
      end = ph[i].p_offset + ph[i].p_filesz;
  if (end == 0 || end > CT_VDSO_MAX_BYTES) return; /* not what a vDSO looks like */
  ct_vdso_addr = (uintptr_t)eh;
  ct_vdso_len = (size_t)((end + 4095) & ~(uint64_t)4095);
}
