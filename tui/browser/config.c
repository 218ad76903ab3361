/* config.c - the browser's config file. */
#include "tui/browser/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void config_defaults(config *c)
{
    memset(c, 0, sizeof *c);
    c->ranking = 1;
    c->limit = 10;
    c->debounce_ms = 150;
}

void config_path(char *out, size_t len)
{
    const char *cfg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (cfg && *cfg == '/')
        snprintf(out, len, "%s/memscope/config", cfg);
    else if (home && *home == '/') /* never a config from the current directory */
        snprintf(out, len, "%s/.config/memscope/config", home);
    else
        snprintf(out, len, "%s", ""); /* none: fopen("") is ENOENT */
}

static int config_int(const char *v, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (end == v || *end || errno || n < lo || n > hi)
        return -1;
    *out = (int)n;
    return 0;
}

static int config_color(config *c, const char *line, char *why, size_t len)
{
    theme scratch;
    theme_builtin(&scratch);
    if (theme_parse_line(&scratch, line, why, len))
        return -1;
    if (c->n_colors == CONFIG_COLORS_MAX) {
        snprintf(why, len, "more than %d color lines", CONFIG_COLORS_MAX);
        return -1;
    }
    snprintf(c->colors[c->n_colors++], sizeof c->colors[0], "%s", line);
    return 0;
}

/* One "KEY VALUE" setting. */
static int config_setting(config *c, const char *key, const char *val, char *why, size_t len)
{
    if (strcmp(key, "theme") == 0 && strlen(val) < sizeof c->theme) {
        snprintf(c->theme, sizeof c->theme, "%s", val);
        return 0;
    }
    if (strcmp(key, "ranking") == 0 && (!strcmp(val, "on") || !strcmp(val, "off"))) {
        c->ranking = strcmp(val, "on") == 0;
        return 0;
    }
    if (strcmp(key, "limit") == 0 && config_int(val, 1, 100, &c->limit) == 0)
        return 0;
    if (strcmp(key, "debounce") == 0 && config_int(val, 0, 2000, &c->debounce_ms) == 0)
        return 0;
    if (!strcmp(key, "theme") || !strcmp(key, "ranking") || !strcmp(key, "limit") ||
        !strcmp(key, "debounce"))
        snprintf(why, len, "bad value '%.60s' for %s", val, key);
    else
        snprintf(why, len, "unknown setting '%.60s' (theme, ranking, limit, debounce, color)", key);
    return -1;
}

/* The 1-based column of word in line (1 when it is not there). */
static int config_column(const char *line, const char *word)
{
    const char *at = word && *word ? strstr(line, word) : NULL;
    return at ? (int)(at - line) + 1 : 1;
}

static int config_line(void *ctx, char *line, char *why, size_t len, int *col)
{
    config *c = ctx;
    *col = 1;
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    line[strcspn(line, "\r\n")] = '\0';
    char key[32], val[256], extra[8];
    int n = sscanf(line, " %31s %255s %7s", key, val, extra);
    if (n <= 0)
        return 0;
    if (strcmp(key, "color") == 0) {
        int rc = config_color(c, line, why, len);
        *col = theme_last_column();
        return rc;
    }
    if (n != 2) {
        *col = n > 2 ? config_column(line, extra) : config_column(line, key);
        snprintf(why, len, "expected 'SETTING VALUE'");
        return -1;
    }
    int rc = config_setting(c, key, val, why, len);
    if (rc) /* the value of a known setting, else the setting's name */
        *col = strstr(why, "bad value") ? config_column(line + strlen(key), val) + (int)strlen(key)
                                        : config_column(line, key);
    return rc;
}

int config_load(config *c, const char *path, char *why, size_t len)
{
    config_defaults(c);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return 0;
        snprintf(why, len, "%s: %s", path, strerror(errno));
        return -1;
    }
    int rc = theme_read_lines(f, path, config_line, c, why, len);
    fclose(f);
    if (rc)
        config_defaults(c);
    return rc;
}

int config_apply_colors(const config *c, theme *t, char *why, size_t len)
{
    for (int i = 0; i < c->n_colors; i++)
        if (theme_parse_line(t, c->colors[i], why, len))
            return -1;
    return 0;
}
