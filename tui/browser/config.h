/* config.h - the browser's config file, $XDG_CONFIG_HOME/memscope/config
 * (default ~/.config/memscope/config). One setting a line, '#' comments:
 *
 *     theme NAME              a theme name or path (--theme wins)
 *     ranking on|off          show the Ranking column
 *     limit N                 results per query, 1..100
 *     debounce MS             pause in typing before the query runs, 0..2000
 *     color ROLE FG BG [ATTRS]   override one role over the theme
 *
 * A malformed file is reported as "PATH:LINE: reason" and ignored as a
 * whole: the defaults are used. No terminal here. */
#ifndef MS_CONFIG_H
#define MS_CONFIG_H

#include <stddef.h>

#include "tui/present/theme.h"

#define CONFIG_COLORS_MAX 64

typedef struct config {
    char theme[256]; /* "" = default */
    int ranking;     /* 1 = show the Ranking column */
    int limit;
    int debounce_ms;
    char colors[CONFIG_COLORS_MAX][512]; /* "color ..." lines, in order */
    int n_colors;
} config;

/* The defaults: no theme named, ranking on, limit 10, debounce 150 ms. */
void config_defaults(config *c);

/* The config file's path into out. */
void config_path(char *out, size_t len);

/* Read path into c (defaults first). A missing file is fine (returns 0).
 * On an error c holds the defaults, why says "PATH:LINE: reason" and -1 is
 * returned. */
int config_load(config *c, const char *path, char *why, size_t len);

/* Apply the color overrides to t; -1 with why on a bad one (cannot happen
 * after a successful config_load). */
int config_apply_colors(const config *c, theme *t, char *why, size_t len);

#endif
