/* utf8.h - decoding UTF-8 and measuring it on a terminal, for every room.
 *
 * The one decoder: the store validates with it, the tokenizers (entity
 * linking, the hashed embedder, the date parser) walk text with it, and the
 * presentation layer escapes and measures with it. */
#ifndef MS_UTF8_H
#define MS_UTF8_H

#include <stddef.h>

/* Decode one sequence at s, of which n bytes may be read. Returns its length
 * (1..4) and sets *cp; returns 0 when the bytes are not valid UTF-8 (a stray
 * continuation byte, an overlong form, a surrogate, beyond U+10FFFF, or cut
 * short by n) and then *cp is the first byte. n == 0 returns 0. */
int utf8_decode(const char *s, size_t n, unsigned *cp);

/* utf8_next past its ASCII case (utf8.c). */
int utf8_next_multi(const char *s, size_t n, unsigned *cp);

/* Like utf8_decode, for walking text that was never checked: an invalid
 * byte is U+FFFD one byte long, so the walk always moves and never reads past
 * n. Returns 0 only when n == 0. An ASCII byte is read here, without a call:
 * the tokenizers walk every byte of every text an import writes. */
static inline int utf8_next(const char *s, size_t n, unsigned *cp)
{
    if (n && (unsigned char)*s < 0x80) {
        *cp = (unsigned char)*s;
        return 1;
    }
    return utf8_next_multi(s, n, cp);
}

/* Terminal columns of code point cp (wcwidth in the current locale): 0 for
 * combining marks, 2 for wide characters, 1 for anything wcwidth does not
 * know. */
int utf8_cp_width(unsigned cp);

#endif
