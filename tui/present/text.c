/* text.c - visible escapes and display widths for stored text. */
#include "tui/present/text.h"
#include "store/base/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

int text_is_hidden(unsigned cp)
{
    if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
        return 1; /* C0, DEL, C1 */
    if (cp == 0xad || cp == 0x34f || cp == 0x61c || cp == 0x115f || cp == 0x1160 || cp == 0x180e ||
        cp == 0x3164 || cp == 0xfeff || cp == 0xffa0)
        return 1; /* soft hyphen, fillers, Arabic letter mark, BOM */
    if (cp >= 0x200b && cp <= 0x200f)
        return 1; /* zero-width space/joiners, LRM, RLM */
    if (cp >= 0x2028 && cp <= 0x202e)
        return 1; /* line/paragraph separators, bidi embeddings and overrides */
    if (cp >= 0x2060 && cp <= 0x206f)
        return 1; /* word joiner, invisible operators, bidi isolates */
    if (cp >= 0xd800 && cp <= 0xdfff)
        return 1;
    if (cp >= 0xfff9 && cp <= 0xfffb)
        return 1; /* interlinear annotation */
    if ((cp & 0xfffe) == 0xfffe || (cp >= 0xfdd0 && cp <= 0xfdef))
        return 1; /* noncharacters */
    if (cp >= 0xe0000 && cp <= 0xe007f)
        return 1; /* tag characters */
    return cp > 0x10ffff;
}

typedef struct buf {
    char *p;
    size_t n, cap;
} buf;

static int put(buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->cap ? b->cap : 64);
        while (cap < b->n + n + 1)
            cap *= 2;
        char *g = realloc(b->p, cap);
        if (!g)
            return -1;
        b->p = g;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
    return 0;
}

char *text_escape(const char *s, size_t n, int keep_ws)
{
    buf b = {0};
    if (put(&b, "", 0))
        return NULL;
    for (size_t i = 0; i < n;) {
        unsigned cp;
        int len = utf8_decode(s + i, n - i, &cp);
        char esc[16];
        int bad = 0;
        if (len == 0) {
            snprintf(esc, sizeof esc, "\\x%02x", (unsigned char)s[i]);
            len = 1;
            bad = 1;
        } else if (keep_ws && (cp == '\n' || cp == '\t')) {
            bad = 0;
        } else if (cp == '\n') {
            strcpy(esc, "\\n");
            bad = 1;
        } else if (cp == '\t') {
            strcpy(esc, "\\t");
            bad = 1;
        } else if (cp < 0x100 && text_is_hidden(cp)) {
            snprintf(esc, sizeof esc, "\\x%02x", cp);
            bad = 1;
        } else if (text_is_hidden(cp)) {
            snprintf(esc, sizeof esc, "<U+%04X>", cp);
            bad = 1;
        }
        if (put(&b, bad ? esc : s + i, bad ? strlen(esc) : (size_t)len)) {
            free(b.p);
            return NULL;
        }
        i += (size_t)len;
    }
    return b.p;
}

int text_width(const char *safe)
{
    int w = 0;
    size_t n = strlen(safe);
    for (size_t i = 0; i < n;) {
        unsigned cp;
        int len = utf8_decode(safe + i, n - i, &cp);
        if (len == 0)
            len = 1;
        w += cp == '\t' ? 1 : utf8_cp_width(cp);
        i += (size_t)len;
    }
    return w;
}
