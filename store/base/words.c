/* words.c - the one word splitter (words.h). */
#include "store/base/words.h"

#include "store/base/utf8.h"

/* The code point at s, of which avail >= 1 bytes may be read, and its length
 * in *n (utf8_next: malformed or cut-short bytes are U+FFFD, one byte). */
static unsigned decode(const unsigned char *s, size_t avail, int *n)
{
    unsigned cp;
    *n = utf8_next((const char *)s, avail, &cp);
    return cp;
}

int words_is_upper(unsigned cp)
{
    return (cp >= 'A' && cp <= 'Z') || (cp >= 0xc0 && cp <= 0xde && cp != 0xd7) ||
           (cp >= 0x100 && cp <= 0x17f && cp % 2 == 0) || (cp >= 0x391 && cp <= 0x3a9) ||
           (cp >= 0x410 && cp <= 0x42f);
}

int words_is_apostrophe(unsigned cp)
{
    return cp == '\'' || cp == 0x2019;
}

/* Letters and digits: ASCII alnum and any non-ASCII code point that is not
 * punctuation we know of. */
int words_is_word(unsigned cp)
{
    if (cp < 0x80)
        return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9');
    return !(cp >= 0x2000 && cp <= 0x206f) && cp != 0xa0 && cp != 0xab && cp != 0xbb &&
           !(cp >= 0x3000 && cp <= 0x303f) && !(cp >= 0xfe00 && cp <= 0xfe0f) && !(cp >= 0x1f000);
}

size_t words_split(const char *text, size_t len, words_span *w, size_t cap)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t n = 0, i = 0;
    int sentence = 1, only_space = 0;
    while (i < len && n < cap) {
        int k;
        unsigned cp = decode(s + i, len - i, &k);
        if (!words_is_word(cp)) {
            if (cp == '.' || cp == '!' || cp == '?' || cp == '\n' || cp == ':' || cp == '"' ||
                cp == 0x201c || cp == 0x201d || cp == '(' || cp == ')')
                sentence = 1;
            only_space = only_space && (cp == ' ');
            i += (size_t)k;
            continue;
        }
        words_span *cur = &w[n];
        cur->start = (int)i;
        cur->cap = words_is_upper(cp);
        cur->first = sentence;
        cur->joined = only_space && n > 0;
        size_t j = i;
        while (j < len) {
            unsigned c = decode(s + j, len - j, &k);
            if (words_is_word(c)) {
                j += (size_t)k;
                continue;
            }
            /* an apostrophe or hyphen inside a word keeps it going */
            int k2;
            if ((words_is_apostrophe(c) || c == '-') && j + (size_t)k < len &&
                words_is_word(decode(s + j + k, len - j - (size_t)k, &k2))) {
                j += (size_t)k;
                continue;
            }
            break;
        }
        cur->end = (int)j;
        /* drop a possessive 's */
        if (cur->end - cur->start > 2 && (s[j - 1] == 's' || s[j - 1] == 'S')) {
            if (s[j - 2] == '\'')
                cur->end -= 2;
            else if (j >= 4 && s[j - 4] == 0xe2 && s[j - 3] == 0x80 && s[j - 2] == 0x99)
                cur->end -= 4;
        }
        n++;
        i = j;
        sentence = 0;
        only_space = 1;
    }
    return n;
}
