/* ledit.c - the one-line editor. */
#include "tui/browser/ledit.h"

#include <stdlib.h>
#include <string.h>
#include <wctype.h>

#include "store/base/utf8.h"
#include "tui/present/text.h"

void ledit_clear(ledit *e)
{
    e->buf[0] = L'\0';
    e->len = e->cur = 0;
}

void ledit_set(ledit *e, const char *utf8)
{
    ledit_clear(e);
    size_t n = utf8 ? strlen(utf8) : 0;
    for (size_t i = 0; i < n;) {
        unsigned cp;
        int len = utf8_decode(utf8 + i, n - i, &cp);
        if (len == 0)
            len = 1;
        else
            ledit_insert(e, (wchar_t)cp);
        i += (size_t)len;
    }
}

/* Encode cp as UTF-8 into mb (4 bytes); returns the length. */
static size_t ledit_utf8(unsigned cp, char *mb)
{
    if (cp < 0x80) {
        mb[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        mb[0] = (char)(0xc0 | (cp >> 6));
        mb[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        mb[0] = (char)(0xe0 | (cp >> 12));
        mb[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        mb[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    mb[0] = (char)(0xf0 | (cp >> 18));
    mb[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    mb[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    mb[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

void ledit_get(const ledit *e, char *out, size_t len)
{
    ledit_get_range(e, 0, out, len);
}

void ledit_get_range(const ledit *e, int from, char *out, size_t len)
{
    size_t o = 0;
    char mb[4];
    if (!len)
        return;
    for (int i = from < 0 ? 0 : from; i < e->len; i++) {
        size_t k = ledit_utf8((unsigned)e->buf[i], mb);
        if (o + k + 1 > len)
            break;
        memcpy(out + o, mb, k);
        o += k;
    }
    out[o] = '\0';
}

/* UTF-8 bytes the text takes. */
static size_t ledit_bytes(const ledit *e)
{
    size_t n = 0;
    for (int i = 0; i < e->len; i++)
        n += e->buf[i] < 0x80 ? 1 : e->buf[i] < 0x800 ? 2 : e->buf[i] < 0x10000 ? 3 : 4;
    return n;
}

int ledit_full(const ledit *e)
{
    return e->len >= LEDIT_MAX || ledit_bytes(e) + 4 > 4000;
}

int ledit_insert(ledit *e, wchar_t c)
{
    if (c < 0x20 || text_is_hidden((unsigned)c) || ledit_full(e))
        return -1;
    memmove(e->buf + e->cur + 1, e->buf + e->cur, (size_t)(e->len - e->cur + 1) * sizeof *e->buf);
    e->buf[e->cur++] = c;
    e->len++;
    return 0;
}

/* Remove characters [from, to). */
static int ledit_cut(ledit *e, int from, int to)
{
    if (from >= to)
        return 0;
    memmove(e->buf + from, e->buf + to, (size_t)(e->len - to + 1) * sizeof *e->buf);
    e->len -= to - from;
    e->cur = from;
    return 1;
}

int ledit_backspace(ledit *e)
{
    return e->cur > 0 ? ledit_cut(e, e->cur - 1, e->cur) : 0;
}

int ledit_delete(ledit *e)
{
    int cur = e->cur;
    int changed = e->cur < e->len ? ledit_cut(e, e->cur, e->cur + 1) : 0;
    e->cur = cur;
    return changed;
}

static int ledit_word_start(const ledit *e, int pos)
{
    while (pos > 0 && iswspace((wint_t)e->buf[pos - 1]))
        pos--;
    while (pos > 0 && !iswspace((wint_t)e->buf[pos - 1]))
        pos--;
    return pos;
}

int ledit_kill_word(ledit *e)
{
    return ledit_cut(e, ledit_word_start(e, e->cur), e->cur);
}

int ledit_kill_start(ledit *e)
{
    return ledit_cut(e, 0, e->cur);
}

int ledit_kill_end(ledit *e)
{
    int cur = e->cur, changed = ledit_cut(e, e->cur, e->len);
    e->cur = cur;
    return changed;
}

void ledit_left(ledit *e)
{
    if (e->cur > 0)
        e->cur--;
}

void ledit_right(ledit *e)
{
    if (e->cur < e->len)
        e->cur++;
}

void ledit_home(ledit *e)
{
    e->cur = 0;
}

void ledit_end(ledit *e)
{
    e->cur = e->len;
}

void ledit_word_left(ledit *e)
{
    e->cur = ledit_word_start(e, e->cur);
}

void ledit_word_right(ledit *e)
{
    while (e->cur < e->len && iswspace((wint_t)e->buf[e->cur]))
        e->cur++;
    while (e->cur < e->len && !iswspace((wint_t)e->buf[e->cur]))
        e->cur++;
}

int ledit_cursor_col(const ledit *e)
{
    int w = 0;
    for (int i = 0; i < e->cur; i++) {
        int cw = wcwidth(e->buf[i]);
        w += cw < 0 ? 1 : cw;
    }
    return w;
}

int ledit_scroll(const ledit *e, int cols, int *skipped)
{
    int over = ledit_cursor_col(e) - (cols - 1), from = 0, w = 0;
    while (over > 0 && from < e->cur) {
        int cw = wcwidth(e->buf[from]);
        cw = cw < 0 ? 1 : cw;
        w += cw;
        over -= cw;
        from++;
    }
    *skipped = w;
    return from;
}
