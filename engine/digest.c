/* digest.c - content identities over SHA-256 (store/sha256.c): fields that
 * cannot run into each other, and whole files. */
#include "digest.h"

#include <stdio.h>
#include <string.h>

void digest_init(digest *c)
{
    sha256_init(&c->sha);
}

void digest_update(digest *c, const void *data, size_t n)
{
    sha256_update(&c->sha, data, n);
}

void digest_field(digest *c, const char *s)
{
    if (!s)
        s = "";
    sha256_update(&c->sha, s, strlen(s) + 1); /* with its NUL */
}

void digest_hex(digest *c, char hex[DIGEST_HEX])
{
    unsigned char d[SHA256_BYTES];
    sha256_final(&c->sha, d);
    sha256_to_hex(d, hex);
}

int digest_file(const char *path, char hex[DIGEST_HEX])
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    digest c;
    digest_init(&c);
    unsigned char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        digest_update(&c, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return -1;
    digest_hex(&c, hex);
    return 0;
}
