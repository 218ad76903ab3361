/* utf8.c - the one UTF-8 decoder (see utf8.h). */
#include "store/base/utf8.h"

#include <wchar.h>

int utf8_decode(const char *str, size_t n, unsigned *cp)
{
    const unsigned char *s = (const unsigned char *)str;
    if (n == 0)
        return 0;
    unsigned c = s[0], v;
    int len;
    *cp = c;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        v = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        v = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        v = c & 0x07;
    } else {
        return 0;
    }
    if ((size_t)len > n)
        return 0;
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3f);
    }
    if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10ffff)) ||
        (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return len;
}

int utf8_next_multi(const char *s, size_t n, unsigned *cp)
{
    if (n == 0)
        return 0;
    int len = utf8_decode(s, n, cp);
    if (len == 0) {
        *cp = 0xfffd;
        len = 1;
    }
    return len;
}

int utf8_cp_width(unsigned cp)
{
    int w = wcwidth((wchar_t)cp);
    return w < 0 ? 1 : w;
}
