/* theme.c - roles, theme files and colour fitting; no curses here. */
#include "tui/present/theme.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef MEMSCOPE_SHAREDIR
#define MEMSCOPE_SHAREDIR "/usr/local/share/memscope" /* the Makefile sets it from PREFIX */
#endif
#ifndef MEMSCOPE_SRCDIR
#define MEMSCOPE_SRCDIR "" /* the Makefile sets it to the tree theme.c was built in */
#endif

#define THEME_ROLE_NAME(name, fg, bg, attr, mono) #name,
static const char *const role_names[ROLE_COUNT] = {THEME_ROLES(THEME_ROLE_NAME)};
#undef THEME_ROLE_NAME

const char *theme_role_name(int role)
{
    return role >= 0 && role < ROLE_COUNT ? role_names[role] : "?";
}

int theme_role_parse(const char *name)
{
    for (int r = 0; r < ROLE_COUNT; r++)
        if (strcmp(name, role_names[r]) == 0)
            return r;
    return -1;
}

int theme_channel_role(int ch)
{
    return ch >= 0 && ch < 5 ? ROLE_channel_semantic + ch : ROLE_normal;
}

void theme_builtin(theme *t)
{
#define THEME_ROLE_STYLE(name, fg, bg, attr, mono) {fg, bg, attr},
    static const theme_style styles[ROLE_COUNT] = {THEME_ROLES(THEME_ROLE_STYLE)};
#undef THEME_ROLE_STYLE
    memcpy(t->role, styles, sizeof styles);
    t->mono = 0;
}

void theme_mono(theme *t)
{
#define THEME_ROLE_MONO(name, fg, bg, attr, mono) {-1, -1, mono},
    static const theme_style styles[ROLE_COUNT] = {THEME_ROLES(THEME_ROLE_MONO)};
#undef THEME_ROLE_MONO
    memcpy(t->role, styles, sizeof styles);
    t->mono = 1;
}

static const char *const color_names[16] = {
    "black",        "red",           "green",       "yellow",         "blue",
    "magenta",      "cyan",          "white",       "bright-black",   "bright-red",
    "bright-green", "bright-yellow", "bright-blue", "bright-magenta", "bright-cyan",
    "bright-white",
};

int theme_color_parse(const char *name, short *out)
{
    if (strcmp(name, "default") == 0 || strcmp(name, "-1") == 0) {
        *out = THEME_DEFAULT_COLOR;
        return 0;
    }
    if (strcmp(name, "gray") == 0 || strcmp(name, "grey") == 0) {
        *out = 8;
        return 0;
    }
    for (int c = 0; c < 16; c++)
        if (strcmp(name, color_names[c]) == 0 || (c >= 8 && strncmp(name, "bright", 6) == 0 &&
                                                  strcmp(name + 6, color_names[c] + 7) == 0)) {
            *out = (short)c;
            return 0;
        }
    char *end;
    errno = 0;
    long v = strtol(name, &end, 10);
    if (end == name || *end || errno || v < 0 || v > 255 || !isdigit((unsigned char)*name))
        return -1;
    *out = (short)v;
    return 0;
}

static const struct {
    const char *name;
    unsigned bit;
} attr_names[] = {
    {"normal", 0},
    {"bold", THEME_BOLD},
    {"dim", THEME_DIM},
    {"reverse", THEME_REVERSE},
    {"underline", THEME_UNDERLINE},
    {"standout", THEME_STANDOUT},
    {"italic", THEME_ITALIC},
    {"blink", THEME_BLINK},
};

static int attr_word(const char *w, size_t n, unsigned *bits)
{
    for (size_t k = 0; k < sizeof attr_names / sizeof *attr_names; k++)
        if (strlen(attr_names[k].name) == n && strncmp(w, attr_names[k].name, n) == 0) {
            *bits |= attr_names[k].bit;
            return 0;
        }
    return -1;
}

int theme_attrs_parse(const char *text, unsigned *out)
{
    unsigned bits = 0;
    const char *p = text;
    while (*p) {
        size_t n = strcspn(p, ",");
        if (n == 0 || attr_word(p, n, &bits))
            return -1;
        p += n;
        if (*p == ',')
            p++;
    }
    *out = bits;
    return 0;
}

/* Split line into at most max words (in place); returns the count, or
 * max + 1 when there are more. */
static int theme_split(char *line, char **w, int max)
{
    int n = 0;
    for (char *p = strtok(line, " \t\r\n"); p; p = strtok(NULL, " \t\r\n")) {
        if (n == max)
            return max + 1;
        w[n++] = p;
    }
    return n;
}

/* Where in the line the last theme_parse_line error is (1-based column of
 * the offending word), and the start of the copy its words point into. */
static int err_col = 1;
static const char *err_base;

static void theme_blame(const char *word)
{
    err_col = err_base && word >= err_base ? (int)(word - err_base) + 1 : 1;
}

int theme_last_column(void)
{
    return err_col;
}

/* Attributes may be given as one comma list or as separate words. */
static int theme_rule_attrs(char **w, int n, unsigned *attrs, char *why, size_t len)
{
    *attrs = 0;
    for (int i = 4; i < n; i++) {
        unsigned bits;
        if (theme_attrs_parse(w[i], &bits)) {
            theme_blame(w[i]);
            snprintf(why, len,
                     "unknown attribute '%.40s' (bold dim reverse underline "
                     "standout italic blink normal)",
                     w[i]);
            return -1;
        }
        *attrs |= bits;
    }
    return 0;
}

static int theme_rule(theme *t, char **w, int n, char *why, size_t len)
{
    if (n < 4 || n > 8) {
        theme_blame(n > 8 ? w[8] : w[0]);
        snprintf(why, len, "expected 'color ROLE FG BG [ATTRS]'");
        return -1;
    }
    int role = theme_role_parse(w[1]);
    if (role < 0) {
        theme_blame(w[1]);
        snprintf(why, len, "unknown role '%.60s'", w[1]);
        return -1;
    }
    theme_style st;
    for (int k = 0; k < 2; k++)
        if (theme_color_parse(w[2 + k], k ? &st.bg : &st.fg)) {
            theme_blame(w[2 + k]);
            snprintf(why, len, "unknown colour '%.40s' (a name, default, or 0 to 255)", w[2 + k]);
            return -1;
        }
    if (theme_rule_attrs(w, n, &st.attrs, why, len))
        return -1;
    t->role[role] = st;
    return 0;
}

int theme_parse_line(theme *t, const char *line, char *why, size_t len)
{
    char buf[512];
    err_base = buf;
    err_col = 1;
    if (strlen(line) >= sizeof buf) {
        snprintf(why, len, "line too long");
        return -1;
    }
    strcpy(buf, line);
    char *hash = strchr(buf, '#');
    if (hash)
        *hash = '\0';
    char *w[9];
    int n = theme_split(buf, w, 8);
    if (n == 0)
        return 0;
    if (strcmp(w[0], "color") != 0) {
        theme_blame(w[0]);
        snprintf(why, len,
                 "unknown keyword '%.40s' (a theme line is 'color ROLE FG BG "
                 "[ATTRS]')",
                 w[0]);
        return -1;
    }
    return theme_rule(t, w, n, why, len);
}

int theme_read_lines(FILE *f, const char *path, theme_line_fn fn, void *ctx, char *why, size_t len)
{
    char line[512], reason[256];
    int lineno = 0, rc = 0, col = 1;
    while (!rc && fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            snprintf(reason, sizeof reason, "line too long");
            col = (int)sizeof line;
            rc = -1;
        } else {
            rc = fn(ctx, line, reason, sizeof reason, &col);
        }
    }
    if (rc)
        snprintf(why, len, "%s:%d:%d: %s", path, lineno, col, reason);
    return rc;
}

static int theme_line(void *ctx, char *line, char *reason, size_t len, int *col)
{
    int rc = theme_parse_line(ctx, line, reason, len);
    *col = theme_last_column();
    return rc;
}

int theme_load_file(theme *t, const char *path, char *why, size_t len)
{
    theme_builtin(t);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, len, "%s: %s", path, strerror(errno));
        return -1;
    }
    theme tmp;
    theme_builtin(&tmp);
    int rc = theme_read_lines(f, path, theme_line, &tmp, why, len);
    fclose(f);
    if (rc)
        return -1;
    *t = tmp;
    return 0;
}

static int theme_exists(const char *path)
{
    return access(path, R_OK) == 0;
}

/* The folder of the running executable, or "" when unknown. */
static void theme_exe_dir(char *out, size_t len)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    out[0] = '\0';
    if (n <= 0)
        return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    snprintf(out, len, "%s", exe);
}

/* fn on the folder of n bytes at dir with sub appended; 0 (and no call)
 * when it is empty or too long. */
static int theme_dir(theme_dir_fn fn, void *ctx, const char *dir, size_t n, const char *sub)
{
    char path[PATH_MAX];
    if (n == 0 || n >= sizeof path)
        return 0;
    int w = snprintf(path, sizeof path, "%.*s%s", (int)n, dir, sub);
    return w > 0 && (size_t)w < sizeof path ? fn(ctx, path) : 0;
}

/* fn on each folder of the colon-separated list with sub appended; empty
 * entries are skipped, and relative ones when absolute is set (as the XDG
 * base directory spec asks). */
static int theme_dir_list(theme_dir_fn fn, void *ctx, const char *list, int absolute,
                          const char *sub)
{
    for (const char *p = list; p && *p; p += *p == ':') {
        size_t n = strcspn(p, ":");
        int rc = !absolute || *p == '/' ? theme_dir(fn, ctx, p, n, sub) : 0;
        if (rc)
            return rc;
        p += n;
    }
    return 0;
}

/* fn on $VAR/memscope/themes when VAR is absolute, else on
 * $HOME/FALLBACK/memscope/themes when HOME is; 0 when neither is. */
static int theme_dir_xdg(theme_dir_fn fn, void *ctx, const char *var, const char *fallback)
{
    const char *v = getenv(var), *home = getenv("HOME");
    char dir[PATH_MAX];
    if (v && *v == '/')
        snprintf(dir, sizeof dir, "%s", v);
    else if (home && *home == '/')
        snprintf(dir, sizeof dir, "%s/%s", home, fallback);
    else
        return 0;
    return theme_dir(fn, ctx, dir, strlen(dir), "/memscope/themes");
}

/* Is the executable's folder exe in the source tree it was built from (the
 * tree's ./memscope, its build/tests/)? Compared as real paths. */
static int theme_exe_in_tree(const char *exe)
{
    char tree[PATH_MAX];
    if (!*exe || !*MEMSCOPE_SRCDIR || !realpath(MEMSCOPE_SRCDIR, tree))
        return 0;
    size_t n = strlen(tree);
    return strncmp(exe, tree, n) == 0 && (exe[n] == '\0' || exe[n] == '/');
}

int theme_dirs(theme_dir_fn fn, void *ctx)
{
    const char *data = getenv("XDG_DATA_DIRS"), *tree = MEMSCOPE_SRCDIR;
    char exe[PATH_MAX];
    theme_exe_dir(exe, sizeof exe);
    int in_tree = theme_exe_in_tree(exe), rc;
    if ((rc = theme_dir_list(fn, ctx, getenv("MEMSCOPE_THEME_PATH"), 0, "")) ||
        (rc = theme_dir_xdg(fn, ctx, "XDG_CONFIG_HOME", ".config")) ||
        (rc = theme_dir_xdg(fn, ctx, "XDG_DATA_HOME", ".local/share")) ||
        (in_tree && (rc = theme_dir(fn, ctx, tree, strlen(tree), "/themes"))) ||
        (rc = theme_dir_list(fn, ctx, data && *data ? data : "/usr/local/share:/usr/share", 1,
                             "/memscope/themes")) ||
        (rc = theme_dir(fn, ctx, MEMSCOPE_SHAREDIR, strlen(MEMSCOPE_SHAREDIR), "/themes")) ||
        (rc = theme_dir(fn, ctx, exe, strlen(exe), "/../share/memscope/themes")) ||
        (rc = theme_dir(fn, ctx, exe, strlen(exe), "/themes")))
        return rc;
    return in_tree ? 0 : theme_dir(fn, ctx, tree, strlen(tree), "/themes");
}

/* theme_find's search: the name, and where its path goes. */
typedef struct theme_seek {
    const char *name;
    char *out;
    size_t len;
} theme_seek;

static int theme_seek_in(void *ctx, const char *dir)
{
    theme_seek *k = ctx;
    int w = snprintf(k->out, k->len, "%s/%s", dir, k->name);
    return w > 0 && (size_t)w < k->len && theme_exists(k->out);
}

int theme_find(const char *name, char *out, size_t len)
{
    if (strchr(name, '/')) {
        snprintf(out, len, "%s", name);
        return theme_exists(out) ? 0 : -1;
    }
    theme_seek k = {name, out, len};
    return *name && theme_dirs(theme_seek_in, &k) ? 0 : -1;
}

/* The xterm palette: 16..231 a 6x6x6 cube, 232..255 a grey ramp. */
static void theme_rgb(int c, int rgb[3])
{
    static const int basic[16][3] = {
        {0, 0, 0},       {205, 0, 0},   {0, 205, 0},   {205, 205, 0},
        {0, 0, 238},     {205, 0, 205}, {0, 205, 205}, {229, 229, 229},
        {127, 127, 127}, {255, 0, 0},   {0, 255, 0},   {255, 255, 0},
        {92, 92, 255},   {255, 0, 255}, {0, 255, 255}, {255, 255, 255},
    };
    if (c < 16) {
        memcpy(rgb, basic[c], sizeof basic[c]);
    } else if (c < 232) {
        static const int level[6] = {0, 95, 135, 175, 215, 255};
        c -= 16;
        rgb[0] = level[c / 36];
        rgb[1] = level[(c / 6) % 6];
        rgb[2] = level[c % 6];
    } else {
        rgb[0] = rgb[1] = rgb[2] = 8 + 10 * (c - 232);
    }
}

/* The basic colour of a clearly coloured c by its hue: red, yellow, green,
 * cyan, blue, magenta at 0, 60, ... 300 degrees (a tie goes to the larger
 * hue), bright when c is. Pastels then keep their hue where the nearest in
 * RGB is a grey: 150 (a pale green) and 180 (a tan) were both grey 8, bold
 * black on 8 colours, so Trust and Mem.Conf bars looked alike. -1 for a
 * grey. */
static short theme_hue16(const int rgb[3])
{
    int mx = rgb[0], mn = rgb[0], imax = 0;
    for (int i = 1; i < 3; i++) {
        if (rgb[i] > mx) {
            mx = rgb[i];
            imax = i;
        }
        mn = rgb[i] < mn ? rgb[i] : mn;
    }
    if (mx - mn < 48)
        return -1;
    double d = mx - mn, h;
    if (imax == 0)
        h = 60 * ((rgb[1] - rgb[2]) / d);
    else if (imax == 1)
        h = 60 * ((rgb[2] - rgb[0]) / d) + 120;
    else
        h = 60 * ((rgb[0] - rgb[1]) / d) + 240;
    h = h < 0 ? h + 360 : h;
    static const short basic[6] = {1, 3, 2,
                                   6, 4, 5}; /* by hue: red yellow green cyan blue magenta */
    int k = (int)((h + 30.0001) / 60) % 6;
    return (short)(basic[k] + (mx >= 240 ? 8 : 0));
}

static short theme_nearest16(short c)
{
    int want[3], best = 0;
    long best_d = -1;
    theme_rgb(c, want);
    short hue = theme_hue16(want);
    if (hue >= 0)
        return hue;
    for (int k = 0; k < 16; k++) {
        int have[3];
        theme_rgb(k, have);
        long d = 0;
        for (int i = 0; i < 3; i++)
            d += (long)(want[i] - have[i]) * (want[i] - have[i]);
        if (best_d < 0 || d < best_d) {
            best_d = d;
            best = k;
        }
    }
    return (short)best;
}

short theme_color_fit(short c, int colors, int *bold)
{
    if (c < 0 || c < colors)
        return c;
    if (c >= 16)
        c = theme_nearest16(c);
    if (colors <= 8 && c >= 8) {
        if (bold)
            *bold = 1;
        c = (short)(c - 8);
    }
    return c;
}
