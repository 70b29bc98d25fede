/*
 * test_decoder.c - unit tests of ring extraction and of walking records through a CFG
 * (postmortem/decoder.c), on hand-built rings and functions whose right answers are written
 * here, independently of the pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crashtrail/abi.h"
#include "decoder.h"

static int failures;
#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);      \
      failures++;                                                                   \
    }                                                                               \
  } while (0)

#define CHUNK_WORDS (CT_CHUNK_BYTES / 8)

/* The records of rr in order, with their slot indexes; returns how many (at most max). */
static size_t records(const struct ct_ring_records *rr, struct ct_rec *recs, size_t *slot, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < rr->n && n < max; i++)
    if (ct_ring_rec(rr, i, &recs[n])) slot[n++] = i;
  return n;
}

/* A zeroed ring of nchunks chunks of chunk_bytes, as a dump would hold it (*ring: its words). */
static struct ct_dump_ring make_ring(uint64_t **ring, size_t nchunks, uint32_t chunk_bytes) {
  struct ct_dump_ring r = {{0}, NULL, chunk_bytes};
  *ring = calloc(nchunks * chunk_bytes / 8, 8);
  r.data = (const uint8_t *)*ring;
  r.hdr.size = nchunks * chunk_bytes;
  return r;
}

/* Starts chunk c (of `words` words) of a ring: its two markers; returns the next free word. */
static size_t chunk_of(uint64_t *ring, size_t words, size_t c, uint64_t gen, uint64_t stamp,
                       uint64_t time) {
  uint64_t *w = ring + c * words;
  w[0] = (uint64_t)CT_TAG_CHUNK << 48 | gen;
  w[1] = stamp;
  w[2] = (uint64_t)CT_TAG_CLOCK << 48 | 42;
  w[3] = time;
  return c * words + 4;
}

static size_t chunk(uint64_t *ring, size_t c, uint64_t gen, uint64_t stamp, uint64_t time) {
  return chunk_of(ring, CHUNK_WORDS, c, gen, stamp, time);
}

/* A CUT marker becomes a record without function that only carries its full stamp, and later
 * stamps in the ring unwrap against it. */
static void test_ring_cut(void) {
  uint64_t *ring;
  struct ct_dump_ring r = make_ring(&ring, 1, CT_CHUNK_BYTES);
  struct ct_ring_records rr;
  size_t at = chunk(ring, 0, 1, 0, 1000);
  ring[at++] = 0x1000; /* unstamped: written before stamping turned on */
  ring[at++] = 0x5;
  ring[at++] = (uint64_t)CT_TAG_CUT << 48;
  ring[at++] = 0x2fffe;
  ring[at++] = 0x1000 | CT_REC_STAMPED | (uint64_t)0xffff << 48; /* stamp 0x2ffff */
  ring[at++] = 0x6;
  CHECK(ct_ring_extract(&r, 2000, &rr) == 0);
  struct ct_rec recs[8];
  size_t slot[8];
  size_t n = records(&rr, recs, slot, 8);
  CHECK(n == 3 && rr.skipped == 0 && rr.n == CT_CHUNK_RECORD_SLOTS);
  if (n == 3) {
    CHECK(recs[0].fn == 0x1000 && ct_ring_stamp(&rr, slot[0]) == CT_NO_STAMP);
    CHECK(recs[1].fn == 0 && ct_ring_stamp(&rr, slot[1]) == 0x2fffe);
    CHECK(recs[2].fn == 0x1000 && ct_ring_stamp(&rr, slot[2]) == 0x2ffff && recs[2].acc == 6);
    CHECK(rr.nstamps == 2);
  }
  ct_ring_records_free(&rr);
  free(ring);
}

static void test_ring_order_and_stamps(void) {
  uint64_t *ring;
  struct ct_dump_ring r = make_ring(&ring, 3, CT_CHUNK_BYTES);
  struct ct_ring_records rr;
  /* Written in order: chunk gen 4 (slot 1), gen 5 (slot 2), gen 6 (slot 0, wrapped). */
  size_t at = chunk(ring, 1, 4, 0xfffe, 1000);
  ring[at++] = 0x1000;                                 /* plain record of fn 0x1000 */
  ring[at++] = 0x5;
  ring[at++] = 0x1000 | CT_REC_STAMPED | (uint64_t)0xffff << 48; /* stamp 0xffff */
  ring[at++] = 0x6;
  ring[at++] = (uint64_t)CT_TAG_SEQ << 48;             /* the low bits wrapped: full 0x10000 */
  ring[at++] = 0x10000;
  ring[at++] = 0x2000 | CT_REC_STAMPED;                /* stamp 0x10000 */
  ring[at++] = 0x7;
  at = chunk(ring, 2, 5, 0x10000, 2000);
  ring[at++] = 0x2000 | CT_REC_STAMPED | (uint64_t)3 << 48; /* stamp 0x10003 */
  ring[at++] = 0x8;
  ring[at++] = 0x3000;                                 /* torn: w1 == 0, skipped */
  ring[at++] = 0;
  at = chunk(ring, 0, 6, 0x10003, 3000);
  ring[at++] = 0x3000;
  ring[at++] = 0x9;
  CHECK(ct_ring_extract(&r, 4000, &rr) == 0);
  struct ct_rec recs[8];
  size_t slot[8];
  size_t n = records(&rr, recs, slot, 8);
  CHECK(n == 5);
  CHECK(rr.skipped == 1);
  CHECK(rr.oldest_generation == 4 && rr.newest_generation == 6);
  if (n == 5) {
    uint64_t accs[5] = {5, 6, 7, 8, 9};
    uint64_t stamps[5] = {CT_NO_STAMP, 0xffff, 0x10000, 0x10003, CT_NO_STAMP};
    for (int i = 0; i < 5; i++) {
      CHECK(recs[i].acc == accs[i]);
      CHECK(ct_ring_stamp(&rr, slot[i]) == stamps[i]);
    }
    CHECK(recs[0].fn == 0x1000 && recs[2].fn == 0x2000 && recs[4].fn == 0x3000);
    /* chunk 4's 4 slots spread over 1000..2000; the SEQ marker is a hole */
    CHECK(recs[0].time_ns == 1000 && recs[1].time_ns == 1250 && recs[2].time_ns == 1750);
    CHECK(slot[2] == 3 && slot[3] == CT_CHUNK_RECORD_SLOTS);
    CHECK(recs[3].time_ns == 2000);
    CHECK(recs[4].time_ns == 3000); /* the newest chunk ends at the dump (4000) */
  }
  ct_ring_records_free(&rr);
  /* An overwritten lap: generations older than the last nchunks are not trusted. */
  memset(ring, 0, 3 * CT_CHUNK_BYTES);
  chunk(ring, 0, 9, 0, 1);
  chunk(ring, 1, 2, 0, 1); /* stale: 2 + 3 <= 9 */
  chunk(ring, 2, 8, 0, 1);
  CHECK(ct_ring_extract(&r, 0, &rr) == 0);
  CHECK(rr.chunks == 2 && rr.oldest_generation == 8 && rr.skipped == 1);
  ct_ring_records_free(&rr);
  free(ring);
}

/* A dump of ABI 4 or older has 4096-byte chunks (struct ct_dump_ring.chunk_bytes, set by the
 * dump reader from the process section's ABI version): 254 record slots each, not 1022. */
static void test_ring_abi4_chunks(void) {
  uint64_t *ring;
  struct ct_dump_ring r = make_ring(&ring, 2, CT_CHUNK_BYTES_ABI4);
  struct ct_ring_records rr;
  struct ct_rec recs[4];
  size_t slot[4];
  for (size_t c = 0; c < 2; c++) {
    size_t at = chunk_of(ring, CT_CHUNK_BYTES_ABI4 / 8, c, c + 1, 0, 1000 * (c + 1));
    ring[at] = 0x1000, ring[at + 1] = 0x30 + c;
  }
  CHECK(ct_ring_extract(&r, 3000, &rr) == 0);
  size_t n = records(&rr, recs, slot, 4);
  CHECK(rr.slots == 254 && rr.n == 2 * 254 && rr.skipped == 0);
  CHECK(n == 2 && slot[1] == 254 && recs[1].acc == 0x31 && recs[1].time_ns == 2000);
  ct_ring_records_free(&rr);
  free(ring);
}

/* Chunks are not cleared when a live thread starts them: the dumped position ends the data.
 * Slots after it in its chunk are an earlier lap's, and a chunk of a higher generation was
 * started after the position was read. Rings of exited threads end at their first empty slot
 * (the runtime clears their tails), and so does a ring whose position is inconsistent. */
static void test_ring_position_end(void) {
  uint64_t *ring;
  struct ct_dump_ring r = make_ring(&ring, 4, CT_CHUNK_BYTES);
  struct ct_ring_records rr;
  struct ct_rec recs[16];
  size_t slot[16];
  size_t at = chunk(ring, 1, 5, 0, 1000);
  ring[at++] = 0x1000, ring[at++] = 0x11;
  at = chunk(ring, 2, 6, 0, 2000);
  ring[at++] = 0x1000, ring[at++] = 0x12;
  at = chunk(ring, 0, 7, 0, 3000);
  ring[at++] = 0x1000, ring[at++] = 0x13;
  ring[at++] = 0x1000, ring[at++] = 0x14;
  r.hdr.pos = at * 8;                      /* the next slot to write */
  ring[at++] = 0x2000, ring[at++] = 0x99;  /* stale: an earlier lap's */
  ring[at++] = 0x2000, ring[at++] = 0x98;
  at = chunk(ring, 3, 8, 0, 4000);         /* started while the dump was written */
  ring[at++] = 0x3000, ring[at++] = 0x15;
  CHECK(ct_ring_extract(&r, 5000, &rr) == 0);
  size_t n = records(&rr, recs, slot, 16);
  CHECK(n == 4 && rr.chunks == 3 && rr.newest_generation == 7 && rr.skipped == 0);
  for (size_t i = 0; i < n && i < 4; i++) CHECK(recs[i].acc == 0x11 + i && recs[i].fn == 0x1000);
  if (n == 4) CHECK(recs[3].time_ns < 5000 && recs[2].time_ns == 3000);
  ct_ring_records_free(&rr);

  /* The position at the very end of a full chunk: every slot of it counts. */
  uint64_t *c0 = ring + 0 * CHUNK_WORDS;
  for (size_t w = at = 8; w < CHUNK_WORDS; w += 2) c0[w] = 0x1000, c0[w + 1] = 0x20;
  r.hdr.pos = CT_CHUNK_BYTES;
  CHECK(ct_ring_extract(&r, 5000, &rr) == 0);
  n = records(&rr, recs, slot, 16);
  CHECK(rr.fill[rr.nlive - 1] == CT_CHUNK_RECORD_SLOTS && rr.newest_generation == 7);
  ct_ring_records_free(&rr);

  /* An exited thread's ring: its tail was cleared at exit, records written after the saved
   * position (by later destructors) still count, up to the first empty slot. */
  memset(ring, 0, 4 * CT_CHUNK_BYTES);
  at = chunk(ring, 0, 1, 0, 1000);
  ring[at++] = 0x1000, ring[at++] = 0x21;
  r.hdr.pos = at * 8;
  ring[at++] = 0x1000, ring[at++] = 0x22;
  r.hdr.flags = CT_THR_EXITED;
  CHECK(ct_ring_extract(&r, 2000, &rr) == 0);
  n = records(&rr, recs, slot, 16);
  CHECK(n == 2 && recs[1].acc == 0x22);
  ct_ring_records_free(&rr);

  /* A live ring whose position falls in a chunk without markers: the first empty slot. */
  r.hdr.flags = 0;
  r.hdr.pos = 2 * CT_CHUNK_BYTES + 64;
  CHECK(ct_ring_extract(&r, 2000, &rr) == 0);
  n = records(&rr, recs, slot, 16);
  CHECK(n == 2);
  ct_ring_records_free(&rr);
  free(ring);
}

/* A function:           0: branch -> 1 (code 1) | 2 (code 0)
 *                       1: jump -> 3            2: call -> 3 (after-call site)
 *                       3: check (budget 32), branch -> 3 (code 1, the loop) | 4 (code 0)
 *                       4: return
 * sites: 0 entry (block 0), 1 after-call (block 3), 2 check (block 3). */
static struct ct_msucc s0[2] = {{1, 1, 1}, {2, 1, 0}}, s1[1] = {{3, 0, 0}}, s2[1] = {{3, 0, 0}},
                       s3[2] = {{3, 1, 1}, {4, 1, 0}};
static struct ct_mblock blocks[5] = {
    {.term = CT_TERM_BRANCH, .nsucc = 2, .succ = s0},
    {.term = CT_TERM_JUMP, .nsucc = 1, .succ = s1},
    {.term = CT_TERM_CALL, .nsucc = 1, .succ = s2},
    {.flags = CT_BB_CHECK, .budget = 32, .term = CT_TERM_BRANCH, .nsucc = 2, .succ = s3},
    {.term = CT_TERM_RETURN},
};
static uint32_t site_block[3] = {0, 3, 3}, site_kind[3] = {CT_SITE_ENTRY, CT_SITE_AFTER_CALL, CT_SITE_CHECK};
/* A three-way switch:    0: branch -> 1 (code 0) | 2 (code 10) | 3 (code 11); 1-3: return.
 * It decodes through a lookup table (meta_walk.c), zero-padded at the end of the bits. */
static struct ct_msucc w0[3] = {{1, 1, 0}, {2, 2, 2}, {3, 2, 3}};
static struct ct_mblock sw_blocks[4] = {
    {.term = CT_TERM_BRANCH, .nsucc = 3, .succ = w0},
    {.term = CT_TERM_RETURN}, {.term = CT_TERM_RETURN}, {.term = CT_TERM_RETURN},
};
static uint32_t sw_site_block[1] = {0}, sw_site_kind[1] = {CT_SITE_ENTRY};
static struct ct_mfunc funcs[2] = {
    {.addr = 0x1000, .name = "f", .display = "f", .site_bits = 2, .nsites = 3, .nblocks = 5,
     .site_block = site_block, .site_kind = site_kind, .blocks = blocks},
    {.addr = 0x2000, .name = "sw", .display = "sw", .site_bits = 0, .nsites = 1, .nblocks = 4,
     .site_block = sw_site_block, .site_kind = sw_site_kind, .blocks = sw_blocks},
};
#define fn funcs[0]

/* Walks acc; writes the blocks into out (terminated by -1) and returns the final status. */
static int walk(uint64_t acc, int partial, int *out, int max) {
  struct ct_walk w;
  int n = 0, st = ct_walk_start(&w, &fn, acc);
  while (st == CT_WALK_BLOCK && n < max - 1) {
    out[n++] = (int)w.block;
    st = ct_walk_next(&w, partial);
  }
  out[n] = -1;
  return st;
}

/* The blocks of sw walked from bits; returns the final status. */
static int walk_sw(const char *bits, int partial, int *out) {
  uint64_t acc = 1;
  for (const char *p = bits; *p; p++) acc = acc << 1 | (uint64_t)(*p == '1');
  struct ct_walk w;
  int n = 0, st = ct_walk_start(&w, &funcs[1], acc);
  while (st == CT_WALK_BLOCK && n < 8) {
    out[n++] = (int)w.block;
    st = ct_walk_next(&w, partial);
  }
  out[n] = -1;
  return st;
}

static uint64_t acc_of(unsigned site, const char *bits) {
  uint64_t a = (1u << 2) | site;
  for (const char *p = bits; *p; p++) a = a << 1 | (uint64_t)(*p == '1');
  return a;
}

static int same(const int *got, const int *want) {
  for (int i = 0;; i++) {
    if (got[i] != want[i]) return 0;
    if (got[i] < 0) return 1;
  }
}

static void test_walks(void) {
  int b[64];
  /* Entry, took 1, looped twice, left: 0 1 3 3 3 4. */
  CHECK(walk(acc_of(0, "1" "1" "1" "0"), 0, b, 64) == CT_WALK_END);
  CHECK(same(b, (int[]){0, 1, 3, 3, 3, 4, -1}));
  /* Entry, took the call: the record ends at block 2. */
  CHECK(walk(acc_of(0, "0"), 0, b, 64) == CT_WALK_END);
  CHECK(same(b, (int[]){0, 2, -1}));
  /* After the call, straight out. */
  CHECK(walk(acc_of(1, "0"), 0, b, 64) == CT_WALK_END);
  CHECK(same(b, (int[]){3, 4, -1}));
  /* Too many bits for where the record ends: not trusted. */
  CHECK(walk(acc_of(0, "01"), 0, b, 64) == CT_WALK_BAD);
  /* A record that ends at a branch is only fine as a live (partial) path. */
  CHECK(walk(acc_of(0, "11"), 0, b, 64) == CT_WALK_BAD);
  CHECK(walk(acc_of(0, "11"), 1, b, 64) == CT_WALK_OUT);
  CHECK(same(b, (int[]){0, 1, 3, 3, -1}));
  /* No sentinel, unknown site. */
  CHECK(walk(0, 0, b, 64) == CT_WALK_BAD);
  CHECK(walk(1, 0, b, 64) == CT_WALK_BAD);
  CHECK(walk(acc_of(3, "0"), 0, b, 64) == CT_WALK_BAD);
  /* A full accumulator is flushed on entering the check once site bits + bits read reach
   * 63 - budget = 31, so a record holds at most 29 path bits: 1 entry bit and 28 loop bits end
   * before block 3 is entered again (blocks 0 1 3 and 27 more 3s), and a 30th bit cannot be. */
  char bits[64] = "1";
  for (int i = 0; i < 28; i++) strcat(bits, "1");
  CHECK(walk(acc_of(0, bits), 0, b, 64) == CT_WALK_END);
  int n = 0;
  while (b[n] >= 0) n++;
  CHECK(n == 30 && b[0] == 0 && b[1] == 1 && b[2] == 3 && b[29] == 3);
  strcat(bits, "1");
  CHECK(walk(acc_of(0, bits), 0, b, 64) == CT_WALK_BAD);
  /* ...and the next record starts at the check site. */
  CHECK(walk(acc_of(2, "10"), 0, b, 64) == CT_WALK_END);
  CHECK(same(b, (int[]){3, 3, 4, -1}));
}

static void test_switch_table(void) {
  int b[16];
  CHECK(sw_blocks[0].table_bits == 2);
  CHECK(walk_sw("0", 0, b) == CT_WALK_END && same(b, (int[]){0, 1, -1}));
  CHECK(walk_sw("10", 0, b) == CT_WALK_END && same(b, (int[]){0, 2, -1}));
  CHECK(walk_sw("11", 0, b) == CT_WALK_END && same(b, (int[]){0, 3, -1}));
  /* one bit "1" left: padded to "10", whose code is longer than the bits: no successor */
  CHECK(walk_sw("1", 1, b) == CT_WALK_BAD);
  CHECK(walk_sw("", 1, b) == CT_WALK_OUT && same(b, (int[]){0, -1}));
  CHECK(walk_sw("011", 0, b) == CT_WALK_BAD); /* bits left at the return */
}

int main(void) {
  struct ct_meta meta = {.funcs = funcs, .nfuncs = 2};
  CHECK(ct_meta_build_walk(&meta) == 0);
  test_ring_order_and_stamps();
  test_ring_cut();
  test_ring_position_end();
  test_ring_abi4_chunks();
  test_walks();
  test_switch_table();
  ct_meta_walk_free(&meta);
  ct_arena_free(&meta.arena);
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  else printf("decoder: all checks passed\n");
  return failures != 0;
}
