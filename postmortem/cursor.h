/*
 * cursor.h - bounds-checked reading of little-endian binary data (dumps, metadata, ELF).
 *
 * Every read goes through ct_cur_need(): once a read would run past the end, the cursor is
 * marked failed, every later read returns zero, and the caller checks `ok` once at the end of
 * a structure instead of after every field. A failed cursor never reads out of bounds.
 */
#ifndef CT_CURSOR_H
#define CT_CURSOR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct ct_cur {
  const uint8_t *p, *end;
  int ok;
};

static inline struct ct_cur ct_cur_make(const void *p, size_t len) {
  struct ct_cur c = {(const uint8_t *)p, (const uint8_t *)p + len, 1};
  return c;
}

/* Returns the n bytes at the cursor and advances past them, or NULL (and fails the cursor). */
static inline const uint8_t *ct_cur_need(struct ct_cur *c, size_t n) {
  const uint8_t *at = c->p;
  if (!c->ok || (size_t)(c->end - c->p) < n) {
    c->ok = 0;
    return NULL;
  }
  c->p += n;
  return at;
}

static inline size_t ct_cur_left(const struct ct_cur *c) { return c->ok ? (size_t)(c->end - c->p) : 0; }

static inline uint8_t ct_cur_u8(struct ct_cur *c) {
  const uint8_t *p = ct_cur_need(c, 1);
  return p ? p[0] : 0;
}

static inline uint16_t ct_cur_u16(struct ct_cur *c) {
  const uint8_t *p = ct_cur_need(c, 2);
  return p ? (uint16_t)(p[0] | p[1] << 8) : 0;
}

static inline uint32_t ct_cur_u32(struct ct_cur *c) {
  const uint8_t *p = ct_cur_need(c, 4);
  uint32_t v = 0;
  if (p) memcpy(&v, p, 4);
  return v;
}

static inline uint64_t ct_cur_u64(struct ct_cur *c) {
  const uint8_t *p = ct_cur_need(c, 8);
  uint64_t v = 0;
  if (p) memcpy(&v, p, 8);
  return v;
}

/* Unsigned LEB128; more than 10 bytes, or bits beyond 64, fail the cursor. */
static inline uint64_t ct_cur_uleb(struct ct_cur *c) {
  uint64_t v = 0;
  for (unsigned shift = 0; shift < 70; shift += 7) {
    uint8_t b = ct_cur_u8(c);
    if (!c->ok) return 0;
    if (shift == 63 && (b & 0x7e)) break;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  c->ok = 0;
  return 0;
}

/* Copies a fixed-size struct out (the dump's structs are packed little-endian on x86-64). */
static inline int ct_cur_struct(struct ct_cur *c, void *out, size_t n) {
  const uint8_t *p = ct_cur_need(c, n);
  if (!p) {
    memset(out, 0, n);
    return 0;
  }
  memcpy(out, p, n);
  return 1;
}

#endif
