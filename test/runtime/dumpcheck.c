/*
 * dumpcheck.c - prints the raw structure of a crashtrail dump as one line of JSON, for the
 * runtime tests: what `crashtrail show` does not show (every thread section with its flags,
 * every ring with its owner and record count, the module list, the event log).
 *
 *   ct-dumpcheck DUMP
 *   {"ok":true,"pid":..,"reason":1,"reason_text":"..","signal":{..}|null,
 *    "threads":[{"tid":..,"flags":..,"name":".."}],
 *    "rings":[{"module":..,"tid":..,"flags":..,"size":..,"pos":..,"records":..,"stamped":..,
 *              "marks":..,"cuts":..,"seqs":..,"after_pos":..}],
 *    "modules":[{"id":..,"flags":..,"path":"..","build_id_len":..}],
 *    "events":[{"kind":..,"tid":..,"module":..}],
 *    "tables":[{"module":..,"grain":..,"now":..,"entries":..,"used":..}], "has_regs":..,"stack_bytes":..,
 *    "stopped":[{"tid":..,"sp":..,"stack_bytes":..}] (threads stopped for the dump),
 *    "vdso":{"bytes":..,"elf":0|1,"in_maps":0|1}|null}
 *   {"ok":false,"error":".."}   (exit status 1) when the reader refuses the file.
 *
 * "records" counts the ring's path records: slots that are neither empty nor markers;
 * "stamped" those of them that carry a stamp, "marks" those that are deferred calls' marks (an
 * id with CT_REC_DEFER_MARK), "cuts" the CT_TAG_CUT markers, "seqs" the
 * CT_TAG_SEQ markers (one per wrap of the stamps' low 16 bits); "after_pos" the non-empty slots
 * after the ring's position in its chunk (an earlier lap's, which the decoder must not read).
 * "vdso": the VDSO section's image size, whether it starts with the ELF magic, and whether the
 * dumped maps have the [vdso] mapping at its address.
 */
#include <stdio.h>
#include <string.h>

#include "crashtrail/abi.h"
#include "dump_reader.h"

static void put_str(const char *s) {
  putchar('"');
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') printf("\\%c", c);
    else if (c < 0x20 || c >= 0x7f) printf("\\u%04x", c);
    else putchar(c);
  }
  putchar('"');
}

struct ring_counts {
  unsigned long records, stamped, marks, cuts, seqs;
  unsigned long after_pos; /* non-empty slots after the position in its chunk (stale laps) */
};

static struct ring_counts ring_count(const struct ct_dump_ring *r) {
  struct ring_counts n = {0, 0, 0, 0, 0, 0};
  uint64_t pos = r->hdr.pos, chunk = r->chunk_bytes, chunk_end = (pos + chunk - 1) / chunk * chunk;
  for (uint64_t off = 0; off + CT_RECORD_BYTES <= r->hdr.size; off += CT_RECORD_BYTES) {
    uint64_t w0;
    memcpy(&w0, r->data + off, sizeof w0);
    if (w0 == 0) continue;
    n.after_pos += pos != CT_RING_POS_UNKNOWN && off >= pos && off < chunk_end;
    if (!(w0 & CT_REC_STAMPED) && (w0 >> CT_REC_TAG_SHIFT) != 0) { /* a marker */
      n.cuts += (w0 >> CT_REC_TAG_SHIFT) == CT_TAG_CUT;
      n.seqs += (w0 >> CT_REC_TAG_SHIFT) == CT_TAG_SEQ;
      continue;
    }
    n.records++;
    n.stamped += (w0 & CT_REC_STAMPED) != 0;
    n.marks += (w0 & CT_REC_ADDR_MASK & CT_REC_DEFER_MARK) != 0;
  }
  return n;
}

int main(int argc, char **argv) {
  struct ct_dump *d;
  char err[512];
  if (argc != 2) {
    fprintf(stderr, "usage: ct-dumpcheck DUMP\n");
    return 2;
  }
  if (ct_dump_load(argv[1], &d, err, sizeof err) != 0) {
    printf("{\"ok\":false,\"error\":");
    put_str(err);
    printf("}\n");
    return 1;
  }
  printf("{\"ok\":true,\"pid\":%u,\"ppid\":%u,\"reason\":%u,\"reason_text\":", d->process.pid,
         d->process.ppid, d->process.reason);
  put_str(d->reason);
  if (d->has_signal)
    printf(",\"signal\":{\"signo\":%d,\"code\":%d,\"tid\":%u,\"addr\":%llu}", d->signal.signo,
           d->signal.code, d->signal.tid, (unsigned long long)d->signal.fault_addr);
  else
    printf(",\"signal\":null");
  printf(",\"has_regs\":%d,\"regs_tid\":%u,\"stack_bytes\":%zu", d->has_regs, d->regs.tid,
         d->has_stack ? d->stack_len : 0);
  printf(",\"stopped\":[");
  for (size_t i = 0; i < d->nothers; i++)
    printf("%s{\"tid\":%u,\"sp\":%llu,\"stack_bytes\":%zu}", i ? "," : "", d->others[i].regs.tid,
           (unsigned long long)d->others[i].regs.regs[CT_REG_SP],
           d->others[i].has_stack ? d->others[i].stack_len : 0);
  printf("]");
  if (d->vdso) {
    char line[64];
    snprintf(line, sizeof line, "%llx-", (unsigned long long)d->vdso_addr);
    const char *at = d->maps ? strstr(d->maps, line) : NULL;
    const char *eol = at ? strchr(at, '\n') : NULL;
    const char *tag = at ? strstr(at, "[vdso]") : NULL;
    int in_maps = tag && (!eol || tag < eol) && (at == d->maps || at[-1] == '\n');
    printf(",\"vdso\":{\"bytes\":%zu,\"elf\":%d,\"in_maps\":%d}", d->vdso_len,
           d->vdso_len >= 4 && !memcmp(d->vdso, "\177ELF", 4), in_maps);
  } else {
    printf(",\"vdso\":null");
  }
  printf(",\"threads\":[");
  for (size_t i = 0; i < d->nthreads; i++) {
    char name[17];
    memcpy(name, d->threads[i].name, 16);
    name[16] = 0;
    printf("%s{\"tid\":%u,\"flags\":%u,\"name\":", i ? "," : "", d->threads[i].tid,
           d->threads[i].flags);
    put_str(name);
    printf("}");
  }
  printf("],\"rings\":[");
  for (size_t i = 0; i < d->nrings; i++) {
    const struct ct_dump_ring *r = &d->rings[i];
    struct ring_counts n = ring_count(r);
    printf("%s{\"module\":%u,\"tid\":%u,\"flags\":%u,\"size\":%llu,\"pos\":%lld,"
           "\"records\":%lu,\"stamped\":%lu,\"marks\":%lu,\"cuts\":%lu,\"seqs\":%lu,"
           "\"after_pos\":%lu}",
           i ? "," : "", r->hdr.module_id, r->hdr.tid, r->hdr.flags,
           (unsigned long long)r->hdr.size,
           r->hdr.pos == CT_RING_POS_UNKNOWN ? -1LL : (long long)r->hdr.pos, n.records, n.stamped,
           n.marks, n.cuts, n.seqs, n.after_pos);
  }
  printf("],\"modules\":[");
  for (size_t i = 0; i < d->nmodules; i++) {
    const struct ct_dump_module *m = &d->modules[i];
    printf("%s{\"id\":%u,\"flags\":%u,\"build_id_len\":%u,\"path\":", i ? "," : "", m->hdr.id,
           m->hdr.flags, m->hdr.build_id_len);
    put_str(m->path);
    printf("}");
  }
  printf("],\"events\":[");
  for (size_t i = 0; i < d->nevents; i++)
    printf("%s{\"kind\":%u,\"tid\":%u,\"module\":%u}", i ? "," : "", d->events[i].kind,
           d->events[i].tid, d->events[i].module_id);
  printf("],\"tables\":[");
  for (size_t i = 0; i < d->ntables; i++) {
    const struct ct_dump_table *t = &d->tables[i];
    size_t used = 0;
    for (size_t k = 0; k + 16 <= t->len; k += 16) {
      uint64_t last;
      memcpy(&last, t->data + k, 8);
      used += last != 0;
    }
    printf("%s{\"module\":%u,\"grain\":%u,\"now\":%llu,\"entries\":%zu,\"used\":%zu}",
           i ? "," : "", t->hdr.module_id, t->hdr.grain, (unsigned long long)t->hdr.now,
           t->len / 16, used);
  }
  printf("]}\n");
  ct_dump_free(d);
  return 0;
}
