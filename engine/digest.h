/* digest.h - SHA-256 (FIPS 180-4), for content identities: the calibration
 * id, the store's content digest and the label files' digests.
 *
 * The hash itself is store/sha256.c; this adds NUL-separated fields and
 * whole files. Streaming: digest_init, any number of digest_update,
 * digest_hex. No allocation; a digest lives wherever the caller puts it. */
#ifndef MS_DIGEST_H
#define MS_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include "store/sha256.h"

typedef struct digest {
    sha256_ctx sha; /* the running SHA-256 */
} digest;

#define DIGEST_HEX SHA256_HEX /* 64 hex digits and a NUL */

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
