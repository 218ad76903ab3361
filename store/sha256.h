/* sha256.h - SHA-256 (FIPS 180-4), for checking files against the digests a
 * manifest lists and for stable ids made from text.
 *
 * Streaming: sha256_init, sha256_update as often as needed, sha256_final.
 * No allocation; the context lives wherever the caller puts it. */
#ifndef MS_SHA256_H
#define MS_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES 32
#define SHA256_HEX (2 * SHA256_BYTES + 1) /* lower-case hex and its NUL */

typedef struct sha256_ctx {
    uint32_t h[8];       /* the running hash value */
    uint64_t bits;       /* message length so far, in bits */
    unsigned char b[64]; /* the block being filled */
    size_t n;            /* bytes in b */
} sha256_ctx;

/* Start a new digest in *c. */
void sha256_init(sha256_ctx *c);

/* Add len bytes at p (p may be NULL when len is 0). */
void sha256_update(sha256_ctx *c, const void *p, size_t len);

/* Finish: the 32-byte digest into out. *c must be initialised again before
 * further use. */
void sha256_final(sha256_ctx *c, unsigned char out[SHA256_BYTES]);

/* The digest of p[0..len) as lower-case hex into hex[SHA256_HEX]. */
void sha256_hex(const void *p, size_t len, char hex[SHA256_HEX]);

/* A finished digest as lower-case hex into hex[SHA256_HEX]. */
void sha256_to_hex(const unsigned char d[SHA256_BYTES], char hex[SHA256_HEX]);

#endif
