/* paint.h - draw a laid-out view_screen with ncursesw, and turn a theme
 * into colour pairs. The only file besides browse.c and qline.c that knows
 * curses. Every string it draws is already safe (view_fmt.h). */
#ifndef MS_PAINT_H
#define MS_PAINT_H

#include "tui/present/theme.h"
#include "tui/browser/view.h"

/* Set up colours for t after the terminal is open: a monochrome theme (or a
 * terminal without colours, or too few colour pairs) uses attributes only;
 * colours above the terminal's count are fitted down. Returns 1 when
 * colours are in use. */
int paint_theme(const theme *t);

/* Draw s; full repaints every cell (Ctrl-L, resize). */
void paint_screen(const view_screen *s, int full);

#endif
