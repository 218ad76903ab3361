/* paint.c - a view_screen onto the terminal. */
#include "tui/browser/paint.h"

#include <curses.h>
#include <string.h>
#include <wchar.h>

#include "store/base/utf8.h"
#include "tui/present/text.h"

static attr_t role_attr[ROLE_COUNT];

static attr_t paint_bits(unsigned bits)
{
    attr_t a = A_NORMAL;
    if (bits & THEME_BOLD)
        a |= A_BOLD;
    if (bits & THEME_DIM)
        a |= A_DIM;
    if (bits & THEME_REVERSE)
        a |= A_REVERSE;
    if (bits & THEME_UNDERLINE)
        a |= A_UNDERLINE;
    if (bits & THEME_STANDOUT)
        a |= A_STANDOUT;
    if (bits & THEME_ITALIC)
        a |= A_ITALIC;
    if (bits & THEME_BLINK)
        a |= A_BLINK;
    return a;
}

static void paint_mono(const theme *t)
{
    theme mono;
    if (!t->mono) {
        theme_mono(&mono);
        t = &mono;
    }
    for (int r = 0; r < ROLE_COUNT; r++)
        role_attr[r] = paint_bits(t->role[r].attrs);
}

int paint_theme(const theme *t)
{
    if (t->mono || !has_colors() || start_color() == ERR || COLOR_PAIRS <= ROLE_COUNT) {
        paint_mono(t);
        return 0;
    }
    use_default_colors();
    for (int r = 0; r < ROLE_COUNT; r++) {
        int bold = 0;
        short fg = theme_color_fit(t->role[r].fg, COLORS, &bold);
        short bg = theme_color_fit(t->role[r].bg, COLORS, NULL);
        init_pair((short)(r + 1), fg, bg);
        role_attr[r] = COLOR_PAIR(r + 1) | paint_bits(t->role[r].attrs) | (bold ? A_BOLD : 0);
    }
    bkgdset(' ' | role_attr[ROLE_normal]);
    return 1;
}

/* Draw n bytes of safe UTF-8 text at the cursor. */
static void paint_text(const char *s, size_t n)
{
    wchar_t w[256];
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        unsigned cp;
        int len = utf8_decode(s + i, n - i, &cp);
        if (len == 0) {
            cp = '?';
            len = 1;
        }
        w[k++] = (wchar_t)cp;
        i += (size_t)len;
        if (k == sizeof w / sizeof *w) {
            addnwstr(w, (int)k);
            k = 0;
        }
    }
    if (k)
        addnwstr(w, (int)k);
}

static void paint_line(const vrow *l, int y, int cols)
{
    move(y, 0);
    for (size_t i = 0; i < l->n;) {
        size_t j = i;
        while (j < l->n && l->role[j] == l->role[i])
            j++;
        attrset(role_attr[l->role[i] < ROLE_COUNT ? l->role[i] : ROLE_normal]);
        paint_text(l->s + i, j - i);
        i = j;
    }
    attr_t fill = role_attr[l->fill >= 0 ? l->fill : ROLE_normal];
    attrset(fill);
    if (l->w < cols)
        hline((chtype)' ' | fill, cols - l->w);
}

void paint_screen(const view_screen *s, int full)
{
    if (full)
        clearok(curscr, TRUE);
    for (int y = 0; y < s->rows; y++)
        paint_line(&s->lines[y], y, s->cols);
    attrset(role_attr[ROLE_normal]);
    if (s->cursor_on && !s->too_small) {
        curs_set(1);
        move(s->cursor_y, s->cursor_x);
    } else {
        curs_set(0);
    }
    refresh();
}
