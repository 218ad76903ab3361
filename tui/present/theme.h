/* theme.h - colours named by role, read from plain-text theme files.
 *
 * A theme maps each role (what a piece of screen means: a channel, the
 * selection, the abstention banner...) to a foreground, a background and
 * attributes. File format, one rule a line, '#' starts a comment:
 *
 *     color ROLE FG BG [ATTR[,ATTR...]]
 *
 * FG and BG are `default`, a name (black red green yellow blue magenta cyan
 * white, bright-black ... bright-white, gray) or a number 0..255; ATTRs are
 * normal bold dim reverse underline standout italic blink.
 *
 * This module knows no curses: paint.c turns a theme into colour pairs. The
 * built-in default and monochrome themes are the ROLE table below; the files
 * themes/default and themes/monochrome say the same (tests/view-test.c
 * checks that they agree). */
#ifndef MS_THEME_H
#define MS_THEME_H

#include <stddef.h>
#include <stdio.h>

/* Attribute bits (mapped to A_* by paint.c). */
enum {
    THEME_BOLD = 1,
    THEME_DIM = 2,
    THEME_REVERSE = 4,
    THEME_UNDERLINE = 8,
    THEME_STANDOUT = 16,
    THEME_ITALIC = 32,
    THEME_BLINK = 64,
};

#define THEME_DEFAULT_COLOR (-1)

/* Every role: name, default theme (fg, bg, attrs), monochrome attrs. */
#define THEME_ROLES(_)                                                                             \
    _(normal, -1, -1, 0, 0)                                                                        \
    _(query_prompt, 81, -1, THEME_BOLD, THEME_BOLD)                                                \
    _(query_text, 255, -1, 0, 0)                                                                   \
    _(legend, 246, -1, 0, THEME_DIM)                                                               \
    _(header, 252, 237, THEME_BOLD, THEME_BOLD | THEME_UNDERLINE)                                  \
    _(result_selected, 255, 24, THEME_BOLD, THEME_REVERSE)                                         \
    _(miss, 243, -1, 0, THEME_DIM)                                                                 \
    _(gone, 241, -1, 0, THEME_DIM)                                                                 \
    _(move_up, 114, -1, THEME_BOLD, THEME_BOLD)                                                    \
    _(move_down, 209, -1, THEME_BOLD, THEME_BOLD)                                                  \
    _(move_new, 221, -1, THEME_BOLD, THEME_BOLD | THEME_UNDERLINE)                                 \
    _(bar_relevance, 117, -1, 0, 0)                                                                \
    _(bar_trust, 150, -1, 0, 0)                                                                    \
    _(bar_confidence, 180, -1, 0, 0)                                                               \
    _(channel_semantic, 75, -1, 0, 0)                                                              \
    _(channel_bm25, 214, -1, 0, 0)                                                                 \
    _(channel_temporal, 114, -1, 0, 0)                                                             \
    _(channel_hopfield, 176, -1, 0, 0)                                                             \
    _(channel_spreading, 80, -1, 0, 0)                                                             \
    _(channel_off, 231, 88, THEME_BOLD, THEME_REVERSE)                                             \
    _(channel_empty, 16, 214, THEME_BOLD, THEME_REVERSE | THEME_UNDERLINE)                         \
    _(trace_label, 250, -1, THEME_BOLD, THEME_BOLD)                                                \
    _(trace_total, 255, -1, THEME_BOLD, THEME_BOLD)                                                \
    _(floor_pass, 114, -1, THEME_BOLD, THEME_BOLD)                                                 \
    _(floor_cut, 203, -1, THEME_BOLD, THEME_BOLD | THEME_UNDERLINE)                                \
    _(abstain_banner, 231, 124, THEME_BOLD, THEME_REVERSE | THEME_BOLD)                            \
    _(abstain_text, 217, -1, 0, 0)                                                                 \
    _(pane_title, 250, 236, 0, THEME_UNDERLINE)                                                    \
    _(pane_title_focused, 16, 81, THEME_BOLD, THEME_REVERSE | THEME_BOLD)                          \
    _(status, 252, 236, 0, THEME_REVERSE)                                                          \
    _(message, 229, -1, 0, THEME_BOLD)                                                             \
    _(error, 231, 160, THEME_BOLD, THEME_REVERSE | THEME_BOLD)                                     \
    _(escape, 16, 213, THEME_BOLD, THEME_UNDERLINE | THEME_BOLD)                                   \
    _(whatif, 16, 221, THEME_BOLD, THEME_REVERSE)                                                  \
    _(tour_caption, 16, 153, 0, THEME_REVERSE)                                                     \
    _(help, 252, 235, 0, 0)                                                                        \
    _(help_key, 221, 235, THEME_BOLD, THEME_BOLD)                                                  \
    _(detail_field, 110, -1, THEME_BOLD, THEME_BOLD)                                               \
    _(pinned, 16, 180, THEME_BOLD, THEME_REVERSE | THEME_UNDERLINE)                                \
    _(too_small, 231, 124, THEME_BOLD, THEME_REVERSE)

#define THEME_ROLE_ENUM(name, fg, bg, attr, mono) ROLE_##name,
typedef enum theme_role { THEME_ROLES(THEME_ROLE_ENUM) ROLE_COUNT } theme_role;
#undef THEME_ROLE_ENUM

typedef struct theme_style {
    short fg, bg;   /* -1 (terminal default) or 0..255 */
    unsigned attrs; /* THEME_* bits */
} theme_style;

typedef struct theme {
    theme_style role[ROLE_COUNT];
    int mono; /* attributes only, no colour at all */
} theme;

/* "channel_bm25" for ROLE_channel_bm25; -1 from theme_role_parse when
 * unknown. */
const char *theme_role_name(int role);
int theme_role_parse(const char *name);

/* The role of channel ch (0..4, engine order). */
int theme_channel_role(int ch);

/* The built-in dark default / monochrome theme. */
void theme_builtin(theme *t);
void theme_mono(theme *t);

/* Parse "red", "bright-blue", "default", "208" into -1..255; -1 on success
 * with *out set, returns 0; returns -1 when unknown. */
int theme_color_parse(const char *name, short *out);

/* Parse "bold,reverse" (or one word) into bits; -1 when unknown. */
int theme_attrs_parse(const char *text, unsigned *out);

/* Apply one line of a theme or config file to t. Returns 0 (also for blank
 * and comment lines) or -1 with a reason (no file or line) in why. */
int theme_parse_line(theme *t, const char *line, char *why, size_t len);

/* After theme_parse_line failed: the 1-based column of the word it
 * refused (for FILE:LINE:COL messages). */
int theme_last_column(void);

/* Feed the lines of f (the file at path, a theme or config file) to
 * fn(ctx, line, reason, reason_len, &col) until one fails. Returns 0, or -1
 * with "PATH:LINE:COL: reason" in why; a line of 512 bytes or more fails. */
typedef int (*theme_line_fn)(void *ctx, char *line, char *reason, size_t len, int *col);
int theme_read_lines(FILE *f, const char *path, theme_line_fn fn, void *ctx, char *why, size_t len);

/* Load the theme file at path over a copy of the built-in default. On any
 * error t is the built-in default, and why says "PATH:LINE: reason";
 * returns -1. */
int theme_load_file(theme *t, const char *path, char *why, size_t len);

/* The folders themes are looked for in, first to last: each folder of
 * $MEMSCOPE_THEME_PATH (colon-separated), the user's
 * $XDG_CONFIG_HOME/memscope/themes (default ~/.config/...), the user's
 * $XDG_DATA_HOME/memscope/themes (default ~/.local/share/...), each absolute
 * folder of $XDG_DATA_DIRS (default /usr/local/share:/usr/share) with
 * /memscope/themes, the install prefix's MEMSCOPE_SHAREDIR/themes, beside
 * the executable (its ../share/memscope/themes, then its themes/), and the
 * source tree it was built from (MEMSCOPE_SRCDIR/themes). An executable
 * inside that source tree (./memscope, build/tests/) takes the tree's themes
 * right after the user's own folders instead, before $XDG_DATA_DIRS and the
 * install prefix: a build run from the tree prefers the tree's themes to an
 * older `make install`'s. Calls fn(ctx, dir) on each, whether it exists or
 * not, until fn returns non-zero; returns that, or 0. */
typedef int (*theme_dir_fn)(void *ctx, const char *dir);
int theme_dirs(theme_dir_fn fn, void *ctx);

/* Find theme NAME: a path when it holds '/', else NAME in the first of
 * theme_dirs' folders that has it. Writes the path into out; -1 when not
 * found. */
int theme_find(const char *name, char *out, size_t len);

/* A colour fitted to a terminal of `colors` colours: 16..255 map to one of
 * the 16 basic colours when colors <= 16 (by hue when clearly coloured, else
 * the nearest in RGB); 8..15 map to 0..7 with
 * *bold set when colors <= 8. -1 stays -1. */
short theme_color_fit(short c, int colors, int *bold);

#endif
