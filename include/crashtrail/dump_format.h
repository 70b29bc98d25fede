/*
 * crashtrail/dump_format.h - the dump file, shared by the runtime (writer) and the post-mortem
 * (reader). docs/dump-format.md describes it byte by byte; this header is the normative copy.
 *
 * A dump is a header followed by sections, all little-endian:
 *
 *   header   char magic[8] = CT_DUMP_MAGIC, u32 version, u32 header bytes (24), u64 flags (0)
 *   section  u32 type (CT_DS_*), u32 flags (0), u64 payload length, payload, zero padding to 8
 *   ...
 *   CT_DS_END  payload: u64 total file length in bytes, including this section
 *
 * Invariants the reader relies on: every length is checked against the file; a dump without a
 * CT_DS_END whose total equals the file size is truncated; unknown section types are skipped;
 * a version above CT_DUMP_VERSION is refused.
 */
#ifndef CRASHTRAIL_DUMP_FORMAT_H
#define CRASHTRAIL_DUMP_FORMAT_H

#include <stdint.h>

#define CT_DUMP_MAGIC "CTDUMP\r\n"
#define CT_DUMP_VERSION 2u /* 2: ct_ds_module.record_base (records name functions by
                            * their distance to it, ABI 4); readers take 1 too */
#define CT_DUMP_HEADER_BYTES 24u
#define CT_DUMP_SECTION_HEADER_BYTES 16u

enum ct_dump_section {
  CT_DS_PROCESS = 1,   /* struct ct_ds_process, then exe path, reason text, command line */
  CT_DS_SIGNAL = 2,    /* struct ct_ds_signal */
  CT_DS_REGISTERS = 3, /* struct ct_ds_registers */
  CT_DS_STACK = 4,     /* struct ct_ds_stack, then the bytes from start upwards */
  CT_DS_MODULE = 5,    /* struct ct_ds_module, then build-id bytes, then path bytes */
  CT_DS_THREAD = 6,    /* struct ct_ds_thread */
  CT_DS_RING = 7,      /* struct ct_ds_ring, then the ring's bytes */
  CT_DS_TABLE = 8,     /* struct ct_ds_table, then the table's bytes */
  CT_DS_MAPS = 9,      /* the text of /proc/self/maps */
  CT_DS_EVENTS = 10,   /* an array of struct ct_ds_event */
  CT_DS_PAD = 11,      /* zero bytes: puts the next ring's bytes at a multiple of 4096 */
  CT_DS_VDSO = 12,     /* u64 runtime address, then the vDSO's ELF image */
  CT_DS_THREAD_REGISTERS = 13, /* struct ct_ds_registers of another thread, stopped for the dump */
  CT_DS_THREAD_STACK = 14,     /* struct ct_ds_stack of that thread, then its bytes */
  CT_DS_END = 0xFFFF   /* u64 total file length */
};

enum ct_dump_reason { CT_REASON_SIGNAL = 1, CT_REASON_REQUEST = 2 };

struct ct_ds_process {
  uint32_t pid, ppid, uid, reason; /* reason: enum ct_dump_reason */
  int64_t realtime_sec;            /* CLOCK_REALTIME when the dump started */
  uint32_t realtime_nsec, abi_version;
  uint64_t monotonic_ns;           /* CLOCK_MONOTONIC at the same moment */
  uint32_t exe_len, reason_len, cmdline_len, reserved;
  /* followed by exe_len bytes of path, reason_len bytes of text, cmdline_len bytes (NUL-separated) */
};

struct ct_ds_signal {
  int32_t signo, code, err_no;
  uint32_t tid;                    /* the thread that received it */
  uint64_t fault_addr;
  int32_t sender_pid, sender_uid;
};

/* Registers in DWARF x86-64 numbering: 0 rax 1 rdx 2 rcx 3 rbx 4 rsi 5 rdi 6 rbp 7 rsp,
 * 8..15 r8..r15, 16 rip; then 17 eflags, 18 fs_base (0 if unknown). */
#define CT_REG_COUNT 19u
#define CT_REG_SP 7u
#define CT_REG_BP 6u
#define CT_REG_IP 16u
#define CT_ARCH_X86_64 1u
struct ct_ds_registers {
  uint32_t tid, arch, nregs, reserved;
  uint64_t regs[CT_REG_COUNT];
};

struct ct_ds_stack {
  uint32_t tid, reserved;
  uint64_t start;                  /* address of the first byte that follows */
};

#define CT_MOD_INSTRUMENTED 1u
#define CT_MOD_UNLOADED 2u
#define CT_MOD_MAIN 4u
struct ct_ds_module {
  uint32_t id, flags;
  uint64_t load_bias;              /* runtime address minus link-time address */
  uint64_t map_start, map_end;     /* lowest and highest address of its segments */
  uint64_t load_ns, unload_ns;     /* CLOCK_MONOTONIC of dlopen/registration and dlclose */
  uint32_t build_id_len, path_len;
  uint64_t record_base;            /* version 2: runtime address of the module's descriptor;
                                    * a record's function is record_base - its w0 address
                                    * bits (version 1: the bits are the address itself) */
};
#define CT_DS_MODULE_V1_BYTES 56u

#define CT_THR_CRASHED 1u
#define CT_THR_EXITED 2u
#define CT_THR_PREFORK 4u   /* a thread of the parent, before fork */
#define CT_THR_DUMPING 8u   /* the thread that wrote the dump */
struct ct_ds_thread {
  uint32_t tid, flags;
  char name[16];
};

#define CT_RING_POS_UNKNOWN UINT64_MAX
struct ct_ds_ring {
  uint32_t module_id, tid;
  uint64_t base, size;             /* runtime address and length of the ring */
  uint64_t pos;                    /* offset of the next slot to write, or CT_RING_POS_UNKNOWN */
  uint32_t flags, reserved;        /* flags: CT_THR_* of the owning thread */
};

struct ct_ds_table {
  uint32_t module_id;
  uint32_t grain;                  /* times rounded down to 2^grain units (0 in older dumps) */
  uint64_t start;                  /* runtime address of the module's first table entry */
  uint64_t now;                    /* current coarse time (CT_SYM_NOW units) at the dump */
};

enum ct_event_kind { CT_EV_MODULE_LOAD = 1, CT_EV_MODULE_UNLOAD = 2, CT_EV_FORK = 3,
                     CT_EV_THREAD_START = 4, CT_EV_THREAD_EXIT = 5 };
struct ct_ds_event {
  uint32_t kind, tid;
  uint64_t monotonic_ns;
  uint32_t module_id, reserved;
};

#endif
