/*
 * sha256.h - SHA-256 (FIPS 180-4), to recognise a dump that was already stored.
 */
#ifndef CT_SHA256_H
#define CT_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct ct_sha256 {
  uint32_t h[8];
  uint64_t len;
  uint8_t buf[64];
  size_t nbuf;
};

void ct_sha256_init(struct ct_sha256 *s);
void ct_sha256_update(struct ct_sha256 *s, const void *data, size_t len);
/* Writes the digest as 64 lowercase hex digits and a terminator into hex[65]. */
void ct_sha256_hex(struct ct_sha256 *s, char hex[65]);

#endif
