/* digest.h - SHA-256 (FIPS 180-4), for content identities: the calibration
 * id, the store's content digest and the label files' digests.
 *
 * (Prefixed digest_ so as not to clash with any other SHA-256 in the tree.)
 * Streaming: digest_init, any number of digest_update, digest_hex. No
 * allocation; a digest lives wherever the caller puts it. */
#ifndef MS_DIGEST_H
#define MS_DIGEST_H

#include <stddef.h>
#include <stdint.h>

typedef struct digest {
    uint32_t h[8];   /* the chaining state */
    uint8_t buf[64]; /* the block being filled */
    size_t used;     /* bytes in buf */
    uint64_t total;  /* bytes hashed so far */
} digest;

#define DIGEST_HEX 65 /* 64 hex digits and a NUL */

void digest_init(digest *c);

/* Hash n more bytes of data (n may be 0; data may then be NULL). */
void digest_update(digest *c, const void *data, size_t n);

/* Hash a NUL-terminated string (NULL hashes as "") and a 0 byte after it,
 * so that fields hashed one after another cannot run into each other. */
void digest_field(digest *c, const char *s);

/* Finish: the digest as 64 lower-case hex digits into hex. c is spent. */
void digest_hex(digest *c, char hex[DIGEST_HEX]);

/* The digest of the file at path into hex: 0, or -1 when it cannot be
 * read (errno says why). */
int digest_file(const char *path, char hex[DIGEST_HEX]);

#endif
