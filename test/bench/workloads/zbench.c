/*
 * zbench.c - the zlib workload: deflate then inflate MB megabytes of generated data, check the
 * round trip, print the sizes and a CRC.
 *
 *   zbench MB [LEVEL]      (LEVEL defaults to 6, zlib's default)
 *
 * The data is text-like (words from a small vocabulary, numbers, punctuation) mixed with runs
 * of binary noise, from a fixed-seed generator, so every variant compresses the same bytes and
 * both the match finder and the literal paths of deflate get exercised (ratio about 3:1).
 * Streams in 64 KB pieces through deflate() and inflate(), as a file compressor would.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define ZB_CHUNK 65536

static uint64_t zbSeed = 0x9E3779B97F4A7C15ull;

static uint32_t zbRand(void) {
  zbSeed ^= zbSeed << 13;
  zbSeed ^= zbSeed >> 7;
  zbSeed ^= zbSeed << 17;
  return (uint32_t)(zbSeed >> 16);
}

static void zbGenerate(unsigned char *p, size_t n) {
  static const char *words[] = {"the", "path", "record", "branch", "crash", "thread", "ring",
                                "buffer", "module", "signal", "table", "block", "loop", "call",
                                "return", "value", "index", "sqlite", "lua", "zlib", "of", "and",
                                "to", "in", "is", "a", "for", "with", "that", "on"};
  size_t i = 0;
  while (i < n) {
    uint32_t r = zbRand();
    if (r % 50 == 0) { /* a run of noise */
      size_t len = 16 + r % 200;
      for (size_t k = 0; k < len && i < n; k++) p[i++] = (unsigned char)zbRand();
    } else if (r % 7 == 0) { /* a number */
      char num[16];
      int len = snprintf(num, sizeof num, "%u ", zbRand() % 100000);
      for (int k = 0; k < len && i < n; k++) p[i++] = (unsigned char)num[k];
    } else {
      const char *w = words[(r >> 8) % (sizeof words / sizeof words[0])];
      while (*w && i < n) p[i++] = (unsigned char)*w++;
      if (i < n) p[i++] = (r >> 20) % 11 == 0 ? '\n' : (r >> 20) % 5 == 0 ? ',' : ' ';
    }
  }
}

int main(int argc, char **argv) {
  size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 16;
  int level = argc > 2 ? atoi(argv[2]) : Z_DEFAULT_COMPRESSION;
  size_t n = mb << 20, zcap = compressBound(n) + ZB_CHUNK, zlen = 0, olen = 0;
  unsigned char *in = malloc(n), *z = malloc(zcap), *out = malloc(n + ZB_CHUNK);
  z_stream s;
  int rc;
  if (!in || !z || !out || !mb) return fprintf(stderr, "zbench: usage: zbench MB [LEVEL]\n"), 2;
  zbGenerate(in, n);

  memset(&s, 0, sizeof s);
  if (deflateInit(&s, level) != Z_OK) return fprintf(stderr, "zbench: deflateInit failed\n"), 1;
  for (size_t off = 0; off < n || s.avail_in;) {
    size_t piece = n - off < ZB_CHUNK ? n - off : ZB_CHUNK;
    s.next_in = in + off;
    s.avail_in = (uInt)piece;
    off += piece;
    do {
      s.next_out = z + zlen;
      s.avail_out = ZB_CHUNK;
      rc = deflate(&s, off == n ? Z_FINISH : Z_NO_FLUSH);
      zlen += ZB_CHUNK - s.avail_out;
    } while (s.avail_out == 0);
    if (off == n) break;
  }
  deflateEnd(&s);
  if (rc != Z_STREAM_END) return fprintf(stderr, "zbench: deflate did not finish (%d)\n", rc), 1;

  memset(&s, 0, sizeof s);
  if (inflateInit(&s) != Z_OK) return fprintf(stderr, "zbench: inflateInit failed\n"), 1;
  s.next_in = z;
  s.avail_in = 0;
  do {
    size_t left = zlen - (size_t)(s.next_in - z);
    s.avail_in = (uInt)(left < ZB_CHUNK ? left : ZB_CHUNK);
    s.next_out = out + olen;
    s.avail_out = ZB_CHUNK;
    rc = inflate(&s, Z_NO_FLUSH);
    olen += ZB_CHUNK - s.avail_out;
  } while (rc == Z_OK && olen <= n);
  inflateEnd(&s);
  if (rc != Z_STREAM_END || olen != n || memcmp(in, out, n))
    return fprintf(stderr, "zbench: round trip failed (rc %d, %zu of %zu bytes)\n", rc, olen, n), 1;
  printf("zbench: %zu bytes -> %zu bytes, crc32 %08lx\n", n, zlen, crc32(0L, out, (uInt)n));
  free(in);
  free(z);
  free(out);
  return 0;
}
