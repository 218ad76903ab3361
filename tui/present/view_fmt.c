/* view_fmt.c - safe lines with roles, wrapping, bars and trace rows. */
#include "tui/present/view_fmt.h"

#include <langinfo.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "store/base/utf8.h"
#include "tui/present/text.h"
#include "tui/present/theme.h"

int vfmt_ascii;

void vfmt_use_locale(void)
{
    vfmt_ascii = strcmp(nl_langinfo(CODESET), "UTF-8") != 0;
}

void vrow_init(vrow *l, int max)
{
    memset(l, 0, sizeof *l);
    l->max = max < 0 ? 0 : max;
    l->fill = -1;
}

void vrow_free(vrow *l)
{
    free(l->s);
    free(l->role);
    memset(l, 0, sizeof *l);
    l->fill = -1;
}

void vrow_clear(vrow *l)
{
    l->n = 0;
    l->w = 0;
    l->cut = 0;
    l->fill = -1;
    if (l->s)
        l->s[0] = '\0';
}

static int vrow_grow(vrow *l, size_t add)
{
    if (l->n + add + 1 <= l->cap)
        return 0;
    size_t cap = l->cap ? l->cap : 128;
    while (cap < l->n + add + 1)
        cap *= 2;
    char *s = realloc(l->s, cap);
    if (!s)
        return -1;
    l->s = s;
    unsigned char *r = realloc(l->role, cap);
    if (!r)
        return -1;
    l->role = r;
    l->cap = cap;
    return 0;
}

static void vrow_put(vrow *l, int role, const char *s, size_t n, int w)
{
    if (vrow_grow(l, n))
        return;
    memcpy(l->s + l->n, s, n);
    memset(l->role + l->n, role, n);
    l->n += n;
    l->s[l->n] = '\0';
    l->w += w;
}

/* Columns of the code point at s (safe text): wcwidth, unknown = 1. */
static int vfmt_cp_width(const char *s, size_t n, int *len)
{
    unsigned cp;
    *len = utf8_decode(s, n, &cp);
    if (*len == 0) {
        *len = 1;
        return 1;
    }
    int w = wcwidth((wchar_t)cp);
    return w < 0 ? 1 : w;
}

/* Drop the last code point of l (a whole escape when it ends in one). */
static void vrow_pop(vrow *l)
{
    int esc = l->role[l->n - 1] == ROLE_escape;
    while (l->n > 0) {
        size_t k = l->n - 1;
        while (k > 0 && ((unsigned char)l->s[k] & 0xc0) == 0x80)
            k--;
        int len, w = vfmt_cp_width(l->s + k, l->n - k, &len);
        char first = l->s[k];
        l->n = k;
        l->w -= w;
        if (!esc || first == '\\' || first == '<' || l->n == 0 || l->role[l->n - 1] != ROLE_escape)
            break;
    }
    l->s[l->n] = '\0';
}

/* A full line that more text would follow: room for the ellipsis, which
 * says that something was cut. */
static void vrow_cut_full(vrow *l)
{
    while (l->n > 0 && l->w > l->max - 1)
        vrow_pop(l);
    if (l->w < l->max)
        vrow_put(l, l->n ? l->role[l->n - 1] : ROLE_normal, "\xe2\x80\xa6", 3, 1);
    l->cut = 1;
}

int vrow_add(vrow *l, int role, const char *safe)
{
    if (!safe || l->cut)
        return 0;
    size_t n = strlen(safe);
    int start = l->w;
    if (n > 0 && l->w >= l->max && l->max > 0) { /* full already: end it in an ellipsis */
        vrow_cut_full(l);
        return l->w - start;
    }
    if (l->w + text_width(safe) <= l->max) {
        vrow_put(l, role, safe, n, text_width(safe));
        return l->w - start;
    }
    for (size_t i = 0; i < n;) {
        int len, cw = vfmt_cp_width(safe + i, n - i, &len);
        if (l->w + cw > l->max - 1)
            break;
        vrow_put(l, role, safe + i, (size_t)len, cw);
        i += (size_t)len;
    }
    if (l->w < l->max)
        vrow_put(l, role, "\xe2\x80\xa6", 3, 1);
    l->cut = 1;
    return l->w - start;
}

int vrow_addf(vrow *l, int role, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return vrow_add(l, role, buf);
}

/* Is the unit at raw shown as an escape? Sets *len to its byte length. */
static int vfmt_is_escape(const char *raw, size_t n, int *len)
{
    unsigned cp;
    *len = utf8_decode(raw, n, &cp);
    if (*len == 0) {
        *len = 1;
        return 1;
    }
    return cp == '\n' || cp == '\t' || text_is_hidden(cp);
}

int vrow_stored(vrow *l, int role, const char *raw, size_t n)
{
    int start = l->w;
    char run[512];
    for (size_t i = 0; i < n && !l->cut;) {
        int len;
        if (vfmt_is_escape(raw + i, n - i, &len)) {
            char *esc = text_escape(raw + i, (size_t)len, 0);
            vrow_add(l, ROLE_escape, esc ? esc : "?");
            free(esc);
            i += (size_t)len;
            continue;
        }
        size_t r = 0;
        while (i < n && r + 4 < sizeof run && !vfmt_is_escape(raw + i, n - i, &len)) {
            memcpy(run + r, raw + i, (size_t)len);
            r += (size_t)len;
            i += (size_t)len;
        }
        run[r] = '\0';
        vrow_add(l, role, run);
    }
    return l->w - start;
}

int vfmt_stored_width(const char *raw, size_t n)
{
    int w = 0;
    for (size_t i = 0; i < n;) {
        int len;
        if (vfmt_is_escape(raw + i, n - i, &len)) {
            char *esc = text_escape(raw + i, (size_t)len, 0);
            w += esc ? (int)strlen(esc) : 1;
            free(esc);
        } else {
            w += vfmt_cp_width(raw + i, n - i, &len);
        }
        i += (size_t)len;
    }
    return w;
}

void vrow_append(vrow *l, const vrow *src)
{
    if (l->w + src->w > l->max || vrow_grow(l, src->n))
        return;
    memcpy(l->s + l->n, src->s ? src->s : "", src->n);
    memcpy(l->role + l->n, src->role ? src->role : (const unsigned char *)"", src->n);
    l->n += src->n;
    l->s[l->n] = '\0';
    l->w += src->w;
}

void vrow_stored_cell(vrow *l, int role, const char *raw, int cols)
{
    if (cols > l->max - l->w)
        cols = l->max - l->w;
    if (cols <= 0)
        return;
    vrow cell;
    vrow_init(&cell, cols);
    vrow_stored(&cell, role, raw ? raw : "", raw ? strlen(raw) : 0);
    int used = cell.w;
    vrow_append(l, &cell);
    vrow_free(&cell);
    vrow_pad(l, role, l->w + (cols - used));
}

void vrow_pad(vrow *l, int role, int col)
{
    if (col > l->max)
        col = l->max;
    while (l->w < col && !l->cut)
        vrow_put(l, role, " ", 1, 1);
}

void vrow_cell_right(vrow *l, int role, const char *safe, int cols)
{
    int w = text_width(safe);
    if (w < cols)
        vrow_pad(l, role, l->w + cols - w);
    vrow_add(l, role, safe);
}

void vrow_recolor(vrow *l, int role)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->role[i] != ROLE_escape)
            l->role[i] = (unsigned char)role;
    l->fill = role;
}

/* ---- wrapping ---------------------------------------------------------- */

/* Columns the unit at raw takes once escaped. */
static int vfmt_unit_width(const char *raw, size_t n, int *len)
{
    if (vfmt_is_escape(raw, n, len)) {
        char *esc = text_escape(raw, (size_t)*len, 0);
        int w = esc ? (int)strlen(esc) : 1;
        free(esc);
        return w;
    }
    return vfmt_cp_width(raw, n, len);
}

/* The end of the row starting at pos: sets *next to where the following
 * row starts. */
static size_t vfmt_row_end(const char *raw, size_t n, size_t pos, int cols, size_t *next)
{
    size_t i = pos, brk = 0;
    int w = 0, len = 1;
    while (i < n && raw[i] != '\n') {
        int cw = vfmt_unit_width(raw + i, n - i, &len);
        if (w + cw > cols)
            break;
        if (raw[i] == ' ')
            brk = i;
        w += cw;
        i += (size_t)len;
    }
    if (i >= n || raw[i] == '\n') {
        *next = i + (i < n);
        return i;
    }
    if (brk > pos) {
        *next = brk + 1;
        return brk;
    }
    if (i == pos)
        i += (size_t)len; /* a unit wider than the row: give it a row */
    *next = i;
    return i;
}

void vfmt_wrap(const char *raw, int cols, vfmt_row_fn fn, void *ctx)
{
    size_t n = raw ? strlen(raw) : 0, pos = 0;
    if (cols < 1)
        cols = 1;
    if (n == 0)
        fn(ctx, "", 0);
    while (pos < n) {
        size_t next, end = vfmt_row_end(raw, n, pos, cols, &next);
        fn(ctx, raw + pos, end - pos);
        pos = next;
    }
}

/* ---- numbers and bars -------------------------------------------------- */

static double vfmt_clamp01(double v)
{
    return isfinite(v) ? fmin(1.0, fmax(0.0, v)) : 0.0;
}

void vfmt_bar(double v, int cols, char *out, size_t len)
{
    static const char *const eighth[8] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    int units = (int)lround(vfmt_clamp01(v) * cols * 8);
    size_t o = 0;
    out[0] = '\0';
    for (int c = 0; c < cols && o + 4 < len; c++, units -= 8) {
        const char *cell = units >= 8  ? (vfmt_ascii ? "#" : "█")
                           : units > 0 ? (vfmt_ascii ? "+" : eighth[units])
                                       : (vfmt_ascii ? "." : " ");
        o += (size_t)snprintf(out + o, len - o, "%s", cell);
    }
}

void vfmt_level(double v, char *out, size_t len)
{
    static const char *const level[8] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    v = vfmt_clamp01(v);
    if (vfmt_ascii)
        snprintf(out, len, "%d", (int)(v * 9.999));
    else
        snprintf(out, len, "%s", level[(int)(v * 7.999)]);
}

void vfmt_move(int move, int is_new, int gone, char *out, size_t len)
{
    if (gone)
        snprintf(out, len, "gone");
    else if (is_new)
        snprintf(out, len, "new");
    else if (move > 0)
        snprintf(out, len, "%s%d", vfmt_ascii ? "^" : "↑", move);
    else if (move < 0)
        snprintf(out, len, "%s%d", vfmt_ascii ? "v" : "↓", -move);
    else
        snprintf(out, len, "=");
}

void vfmt_contribution(const trace_channel *tc, double k, char *out, size_t len)
{
    snprintf(out, len, "%.2f/(%g+%d) = %.6f", tc->weight, k, tc->rank, tc->contribution);
}

void vfmt_raw(double raw, char *out, size_t len)
{
    snprintf(out, len, "%.4g", raw);
}

void vfmt_size(long long bytes, char *out, size_t len)
{
    if (bytes < 1024)
        snprintf(out, len, "%lld B", bytes);
    else if (bytes < 1024 * 1024)
        snprintf(out, len, "%.1f KiB", bytes / 1024.0);
    else if (bytes < 1024LL * 1024 * 1024)
        snprintf(out, len, "%.1f MiB", bytes / 1048576.0);
    else
        snprintf(out, len, "%.1f GiB", bytes / 1073741824.0);
}

int vfmt_overlap(const recall_hit *a, size_t na, const recall_hit *b, size_t nb, int n, int *of)
{
    size_t ka = na < (size_t)n ? na : (size_t)n, kb = nb < (size_t)n ? nb : (size_t)n;
    int shared = 0;
    for (size_t i = 0; i < ka; i++)
        for (size_t j = 0; j < kb; j++)
            if (strcmp(a[i].mem.id, b[j].mem.id) == 0) {
                shared++;
                break;
            }
    *of = (int)(ka > kb ? ka : kb);
    return shared;
}
