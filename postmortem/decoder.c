/*
 * decoder.c - ring extraction and abstract execution of one record.
 *
 * Ring extraction: a ring is a sequence of chunks (r->chunk_bytes), each starting with a CHUNK
 * marker (generation) and a CLOCK marker. A CUT marker becomes a record with fn 0 that only
 * carries its stamp (it closes a segment, see timeline.c). Chunks are taken in generation
 * order. Where the data ends: the runtime does not clear a chunk it starts (that would cost a
 * memset per chunk started), so after the write position the newest chunk of a live ring
 * holds stale records of an earlier lap. For a live ring the dumped position ends it: the
 * chunk that holds the position is the newest, its slots after the position are stale, and a
 * chunk of a higher generation was started after the position was read (the thread kept
 * running while the dump was written) and is left out. Rings of exited threads and pre-fork
 * rings have their chunk tails cleared by the runtime (at the thread's exit, in the child of a
 * fork, and in every chunk started after that), as are rings of runtimes before this rule and
 * fresh ring memory: there, and wherever the position is unknown or inconsistent, a chunk's
 * records run until its first empty slot. The records are not copied: ct_ring_rec reads them
 * in the dump by slot index. Stamps are unwrapped against the last full counter seen
 * in the same ring: the chunk's, or a SEQ marker's (see crashtrail/abi.h for why 16 bits
 * suffice).
 *
 * Walking: the accumulator holds the sentinel, the start site, then the path bits, oldest
 * first. From the site's block: a JUMP follows its successor; a BRANCH consumes the code of
 * one successor; a check point whose flush condition holds for the bits consumed so far ends
 * the record (it was flushed on entering that block); CALL, INVOKE, RETURN, RESUME and STOP
 * end it too. A record whose bits do not end exactly at its end is reported, not trusted.
 */
#include "decoder.h"

#include <stdlib.h>
#include <string.h>

#include "crashtrail/abi.h"

struct chunk_ref {
  uint64_t gen;
  const uint64_t *w;
};

static int chunk_cmp(const void *a, const void *b) {
  const struct chunk_ref *x = a, *y = b;
  return x->gen < y->gen ? -1 : x->gen > y->gen;
}

static uint32_t tag_of(uint64_t w0) {
  return (w0 & CT_REC_STAMPED) ? 0 : (uint32_t)(w0 >> CT_REC_TAG_SHIFT);
}

static int add_stamp(struct ct_ring_records *rr, size_t index, uint64_t stamp) {
  if (rr->nstamps == rr->stamps_cap) {
    size_t cap = rr->stamps_cap ? rr->stamps_cap * 2 : 64;
    struct ct_rec_stamp *ns = realloc(rr->stamps, cap * sizeof *ns);
    if (!ns) return -1;
    rr->stamps = ns;
    rr->stamps_cap = cap;
  }
  rr->stamps[rr->nstamps++] = (struct ct_rec_stamp){index, stamp};
  return 0;
}

uint64_t ct_ring_stamp(const struct ct_ring_records *rr, size_t index) {
  size_t lo = 0, hi = rr->nstamps;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (rr->stamps[mid].index < index) lo = mid + 1;
    else hi = mid;
  }
  return lo < rr->nstamps && rr->stamps[lo].index == index ? rr->stamps[lo].stamp : CT_NO_STAMP;
}

static size_t ring_chunk_bytes(const struct ct_dump_ring *r) {
  return r->chunk_bytes ? r->chunk_bytes : CT_CHUNK_BYTES;
}

/* For a live ring with a consistent position: the chunk that holds it (its generation and its
 * words) and how many of its slots, header included, are written. Otherwise the outputs stay as
 * they are (no generation limit, no chunk): the ring ends at its first empty slot. */
static void position_end(const struct ct_dump_ring *r, uint64_t *gen, const uint64_t **words,
                        size_t *nslots) {
  uint64_t pos = r->hdr.pos;
  if ((r->hdr.flags & (CT_THR_EXITED | CT_THR_PREFORK)) || pos == CT_RING_POS_UNKNOWN ||
      pos == 0 || pos > r->hdr.size || pos % CT_RECORD_BYTES)
    return;
  const size_t chunk_bytes = ring_chunk_bytes(r);
  size_t c = (size_t)((pos - 1) / chunk_bytes);
  const uint64_t *w = (const uint64_t *)(r->data + c * chunk_bytes);
  size_t n = (size_t)((pos - 1) % chunk_bytes) / CT_RECORD_BYTES + 1;
  if (tag_of(w[0]) != CT_TAG_CHUNK || tag_of(w[2]) != CT_TAG_CLOCK || n < CT_CHUNK_HEADER_SLOTS)
    return;
  *gen = w[0] & CT_REC_ADDR_MASK;
  *words = w;
  *nslots = n;
}

int ct_ring_extract(const struct ct_dump_ring *r, uint64_t end_ns, struct ct_ring_records *out) {
  const size_t chunk_bytes = ring_chunk_bytes(r);
  size_t nchunks = r->hdr.size / chunk_bytes, nc = 0;
  const size_t slots = chunk_bytes / CT_RECORD_BYTES;
  uint64_t end_gen = UINT64_MAX;
  const uint64_t *end_words = NULL;
  size_t end_slots = slots;
  position_end(r, &end_gen, &end_words, &end_slots);
  struct chunk_ref *ch = calloc(nchunks ? nchunks : 1, sizeof *ch);
  memset(out, 0, sizeof *out);
  out->slots = CT_CHUNK_RECORD_SLOTS_OF(chunk_bytes);
  if (!ch) return -1;
  for (size_t i = 0; i < nchunks; i++) {
    const uint64_t *w = (const uint64_t *)(r->data + i * chunk_bytes);
    if (tag_of(w[0]) != CT_TAG_CHUNK || tag_of(w[2]) != CT_TAG_CLOCK) {
      out->skipped += w[0] != 0;
      continue;
    }
    if ((w[0] & CT_REC_ADDR_MASK) > end_gen) continue; /* started after the position was read */
    ch[nc++] = (struct chunk_ref){w[0] & CT_REC_ADDR_MASK, w};
  }
  if (nc) qsort(ch, nc, sizeof *ch, chunk_cmp);
  /* A lap rewrites chunks in order, so live generations are the last nchunks ones. */
  size_t first = 0;
  while (first < nc && ch[first].gen + nchunks <= ch[nc - 1].gen) first++;
  out->skipped += first;
  size_t live = nc - first;
  out->live = malloc((live ? live : 1) * sizeof *out->live);
  out->clock = malloc((live ? live : 1) * sizeof *out->clock);
  out->step = malloc((live ? live : 1) * sizeof *out->step);
  out->fill = malloc((live ? live : 1) * sizeof *out->fill);
  if (!out->live || !out->clock || !out->step || !out->fill) goto oom;
  for (size_t c = first; c < nc; c++) {
    const uint64_t *w = ch[c].w;
    uint64_t base = w[1], time = w[3];
    uint64_t until = c + 1 < nc ? ch[c + 1].w[3] : end_ns;
    size_t k = out->nlive++, s = CT_CHUNK_HEADER_SLOTS;
    if (out->chunks++ == 0) out->oldest_generation = ch[c].gen;
    out->newest_generation = ch[c].gen;
    /* One pass over the slots: where the chunk ends, the damage, and the stamps (they unwrap
     * against the last full counter seen: the chunk's, or a SEQ marker's). */
    size_t limit = w == end_words ? end_slots : slots;
    for (; s < limit; s++) {
      if ((s & 3) == 0) __builtin_prefetch(&w[2 * s + 512]);
      uint64_t w0 = w[2 * s], w1 = w[2 * s + 1];
      if (w0 == 0) break;
      if (ct_slot_plain_record(w0, w1)) continue; /* nothing to note */
      enum ct_slot_kind kind = ct_slot_kind(w0, w1);
      if (kind == CT_SLOT_SEQ) {
        base = w1;
        continue;
      }
      if (kind == CT_SLOT_ABANDON || kind == CT_SLOT_TOPLEVEL)
        continue; /* read by postorder.c (timeline.c's po_gather) */
      if (kind == CT_SLOT_BAD) {
        out->skipped++;
        continue;
      }
      int cut = kind == CT_SLOT_CUT;
      if (cut || (w0 & CT_REC_STAMPED)) {
        uint64_t low = w0 >> CT_REC_TAG_SHIFT;
        uint64_t stamp = cut ? (base = w1) : base + ((low - (base & 0xffff)) & 0xffff);
        if (add_stamp(out, k * out->slots + (s - CT_CHUNK_HEADER_SLOTS), stamp) != 0)
          goto oom;
      }
    }
    size_t fill = s - CT_CHUNK_HEADER_SLOTS;
    out->live[k] = w;
    out->clock[k] = time;
    out->fill[k] = (uint16_t)fill;
    out->step[k] = until > time && fill > 1
                       ? (uint64_t)(((unsigned __int128)(until - time) << 32) / fill)
                       : 0;
  }
  out->n = out->nlive * out->slots;
  free(ch);
  return 0;
oom:
  free(ch);
  ct_ring_records_free(out);
  return -1;
}

void ct_ring_records_free(struct ct_ring_records *rr) {
  free(rr->live);
  free(rr->clock);
  free(rr->step);
  free(rr->fill);
  free(rr->stamps);
  memset(rr, 0, sizeof *rr);
}

int ct_walk_start(struct ct_walk *w, const struct ct_mfunc *f, uint64_t acc) {
  memset(w, 0, sizeof *w);
  w->f = f;
  w->acc = acc;
  if (!f->wb) { /* not made ready (ct_meta_ready), or it ran out of memory */
    w->why = "function without decoder tables";
    return CT_WALK_BAD;
  }
  if (acc == 0) {
    w->why = "empty accumulator";
    return CT_WALK_BAD;
  }
  uint32_t top = 63u - (uint32_t)__builtin_clzll(acc);
  if (top < f->site_bits) {
    w->why = "accumulator shorter than its site field";
    return CT_WALK_BAD;
  }
  w->nbits = top - f->site_bits;
  w->site = (uint32_t)((acc >> w->nbits) & ((1ull << f->site_bits) - 1));
  if (w->site >= f->nsites) {
    w->why = "unknown site";
    return CT_WALK_BAD;
  }
  w->block = f->site_block[w->site];
  return CT_WALK_BLOCK;
}

int ct_walk_resume(struct ct_walk *w, const struct ct_mfunc *f, uint32_t block,
                   uint32_t start_bits) {
  if (!f->wb || block >= f->nblocks) {
    w->why = "a carried call into a function without decoder tables";
    return CT_WALK_BAD;
  }
  w->f = f;
  w->fill_off = (int32_t)start_bits - (int32_t)f->site_bits;
  w->block = block;
  w->idle = 0;
  if ((int64_t)w->used + w->fill_off >= (int64_t)f->wb[block].flush_used) {
    if (w->used != w->nbits) {
      w->why = "bits left at a check point that flushed";
      return CT_WALK_BAD;
    }
    w->end = block;
    return CT_WALK_END;
  }
  return CT_WALK_BLOCK;
}

int ct_walk_read_code(struct ct_walk *w, const struct ct_mblock *b) {
  uint32_t left = w->nbits - w->used;
  if (b->table_bits) {
    /* Fewer bits left than the table's width: pad with zeros. The entry found is the only
     * code that can match the real bits, and does if it is not longer than them. */
    uint32_t tb = b->table_bits;
    uint64_t idx = left >= tb ? w->acc >> (left - tb) : w->acc << (tb - left);
    uint32_t i = b->code_table[idx & ((1u << tb) - 1)];
    if (i == UINT32_MAX || b->succ[i].len > left) return -1;
    w->used += b->succ[i].len;
    return (int)b->succ[i].block;
  }
  for (uint32_t i = 0; i < b->nsucc; i++) {
    const struct ct_msucc *s = &b->succ[i];
    if (s->len > left) continue;
    uint64_t bits = (w->acc >> (left - s->len)) & ((1ull << s->len) - 1);
    if (bits == s->code) {
      w->used += s->len;
      return (int)b->succ[i].block;
    }
  }
  return -1;
}

int ct_walk_to_segment(struct ct_walk *w, const struct ct_mfunc *f, uint64_t acc, uint32_t seg) {
  int st = ct_walk_start(w, f, acc);
  for (uint32_t k = 0; k < seg; k++) {
    while (st == CT_WALK_BLOCK) st = ct_walk_next(w, 0);
    if (st != CT_WALK_DEFER) return CT_WALK_BAD;
    st = ct_walk_after_defer(w, 0);
  }
  return st;
}
