/* view-test.c - the browser without a terminal: safe rows and escapes,
 * widths with wcwidth, wrapping, bars and number formats, the line editor,
 * themes (files agree with the built-in tables, errors name file:line, 256
 * to 16 colour fitting), the config file, column and pane layout, the help
 * generated from the action table, and the model over the demo store: a
 * recall laid out headless with the engine's own numbers, what-if against a
 * direct recall, why-not, the detail view and its edges, the tour's steps,
 * and hostile text that never reaches the screen raw.
 *
 * Links build/libbrowser.a (every file of tui/browser/ and tui/present/;
 * only the terminal-free ones are pulled in, so no curses) and
 * build/libcore.a. The model tests need $MEMSCOPE (make test sets it) to
 * write the demo store; without it each is reported as skipped. */
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tap.h"
#include "tui/browser/config.h"
#include "tui/browser/ledit.h"
#include "tui/browser/tour.h"
#include "tui/browser/view.h"
#include "tui/present/calplot.h"
#include "tui/present/calreport.h"
#include "tui/present/rtable.h"
#include "tui/present/text.h"
#include "tui/present/theme.h"
#include "tui/present/view_fmt.h"

static char tmpdir[] = "/tmp/memscope-view-test-XXXXXX";
#include "tests/testdir.h"

static void write_text(const char *path, const char *text)
{
    write_file(path, text, strlen(text));
}

/* ---- rows, escapes, widths ---------------------------------------------------- */

static void test_rows(void)
{
    vrow l;
    vrow_init(&l, 80);
    const char hostile[] = "a\x1b]2;pwned\x07 b\x1b[2J c\xe2\x80\xae d\xc2\x85 e\xff";
    vrow_stored(&l, ROLE_normal, hostile, strlen(hostile));
    is_str(l.s, "a\\x1b]2;pwned\\x07 b\\x1b[2J c<U+202E> d\\x85 e\\xff",
           "stored text: ESC, BEL, CSI, U+202E, C1 and a bad byte become visible escapes");
    int ok_roles = 1;
    for (size_t i = 0; i < l.n; i++)
        if (l.s[i] == '\\' && l.role[i] != ROLE_escape)
            ok_roles = 0;
    ok(ok_roles && l.role[0] == ROLE_normal, "escapes carry the escape role, text its own");
    int raw_ctl = 0;
    for (size_t i = 0; i < l.n; i++)
        raw_ctl |= (unsigned char)l.s[i] < 0x20 || (unsigned char)l.s[i] == 0x7f;
    ok(!raw_ctl, "no control byte survives");
    vrow_free(&l);

    vrow_init(&l, 10);
    vrow_add(&l, ROLE_normal, "0123456789abc");
    is_int(l.w, 10, "a row never grows past its limit");
    ok(strstr(l.s, "…") != NULL && l.cut, "cut text ends with an ellipsis");
    vrow_free(&l);

    vrow_init(&l, 5);
    vrow_add(&l, ROLE_normal, "日本語");
    is_int(l.w, 5, "wide characters are measured with wcwidth (two columns each)");
    is_str(l.s, "日本…", "and cut on a character boundary");
    vrow_free(&l);

    vrow_init(&l, 30);
    vrow_stored_cell(&l, ROLE_normal, "Róisín", 8);
    vrow_add(&l, ROLE_normal, "|");
    is_str(l.s, "Róisín  |", "a cell is padded to its width in columns, not bytes");
    vrow_free(&l);
    is_int(vfmt_stored_width("\x1b[2J", 4), 7, "escaped width of ESC[2J");

    /* A cell that an escape fills to the last column, with more after it:
     * the escape gives way to the ellipsis, which says something was cut. */
    vrow_init(&l, 30);
    vrow_stored_cell(&l, ROLE_normal, "abcdef\x1bXYZ", 10);
    vrow_add(&l, ROLE_normal, "|");
    is_str(l.s, "abcdef…   |", "a cell cut just after an escape keeps its ellipsis");
    vrow_free(&l);
    vrow_init(&l, 30);
    vrow_stored_cell(&l, ROLE_normal, "abcdef\x1b", 10);
    vrow_add(&l, ROLE_normal, "|");
    is_str(l.s, "abcdef\\x1b|", "one that ends with the escape shows it whole, no ellipsis");
    vrow_free(&l);
    vrow_init(&l, 30);
    vrow_stored_cell(&l, ROLE_normal, "abcdefghij\x1b", 10);
    vrow_add(&l, ROLE_normal, "|");
    is_str(l.s, "abcdefghi…|", "text that fills the cell before an escape ends in the ellipsis");
    vrow_free(&l);
}

typedef struct wrap_rows {
    char rows[16][64];
    int n;
} wrap_rows;

static void collect(void *ctx, const char *raw, size_t len)
{
    wrap_rows *w = ctx;
    if (w->n < 16)
        snprintf(w->rows[w->n++], sizeof w->rows[0], "%.*s", (int)len, raw);
}

static void test_wrap(void)
{
    wrap_rows w = {.n = 0};
    vfmt_wrap("the quick brown fox jumps over\nthe lazy dog", 10, collect, &w);
    is_int(w.n, 5, "wrapping at spaces and newlines");
    is_str(w.rows[0], "the quick", "first row");
    is_str(w.rows[2], "jumps over", "a row fills its width");
    is_str(w.rows[3], "the lazy", "a newline ends a row");
    is_str(w.rows[4], "dog", "last row");
    w.n = 0;
    vfmt_wrap("abcdefghijklmnop", 5, collect, &w);
    is_int(w.n, 4, "a long word is broken hard");
}

static void test_formats(void)
{
    char out_[64];
    vfmt_bar(1.0, 5, out_, sizeof out_);
    is_str(out_, "█████", "full bar");
    vfmt_bar(0.5, 4, out_, sizeof out_);
    is_str(out_, "██  ", "half bar");
    vfmt_bar(0.55, 2, out_, sizeof out_);
    is_str(out_, "█▏", "eighth blocks");
    vfmt_move(3, 0, 0, out_, sizeof out_);
    is_str(out_, "↑3", "moved up");
    vfmt_move(-1, 0, 0, out_, sizeof out_);
    is_str(out_, "↓1", "moved down");
    vfmt_move(0, 1, 0, out_, sizeof out_);
    is_str(out_, "new", "new");
    vfmt_move(0, 0, 1, out_, sizeof out_);
    is_str(out_, "gone", "gone");
    trace_channel tc = {1, 3, 0.2803, 1.0, 1.0 / 18};
    vfmt_contribution(&tc, 15, out_, sizeof out_);
    is_str(out_, "1.00/(15+3) = 0.055556", "contribution written out as w/(k+rank)");
    vfmt_size(1782784, out_, sizeof out_);
    is_str(out_, "1.7 MiB", "file size in binary units (MiB, not MB)");
    vfmt_ascii = 1;
    vfmt_bar(1.0, 3, out_, sizeof out_);
    is_str(out_, "###", "ASCII bars outside UTF-8 locales");
    vfmt_ascii = 0;
    recall_hit a[3], b[3];
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    char *ida[] = {"x", "y", "z"}, *idb[] = {"y", "q", "x"};
    for (int i = 0; i < 3; i++) {
        a[i].mem.id = ida[i];
        b[i].mem.id = idb[i];
    }
    int of, shared = vfmt_overlap(a, 3, b, 3, 10, &of);
    ok(shared == 2 && of == 3, "overlap@10 counts shared ids");
}

static void test_ledit(void)
{
    ledit e;
    ledit_set(&e, "hello big world");
    ledit_kill_word(&e);
    char out[64];
    ledit_get(&e, out, sizeof out);
    is_str(out, "hello big ", "Ctrl-W deletes the word before the cursor");
    ledit_home(&e);
    ledit_word_right(&e);
    ledit_kill_start(&e);
    ledit_get(&e, out, sizeof out);
    is_str(out, " big ", "Ctrl-U deletes before the cursor");
    ledit_set(&e, "日本");
    is_int(ledit_cursor_col(&e), 4, "cursor column counts wide characters twice");
    ok(ledit_insert(&e, 0x1b) == -1 && ledit_insert(&e, 0x202e) == -1,
       "controls and bidi overrides are refused");
    ledit_set(&e, "abcdefghij");
    int skipped, from = ledit_scroll(&e, 5, &skipped);
    ok(from == 6 && skipped == 6, "horizontal scroll keeps the cursor in view");
    ledit_left(&e);
    ledit_backspace(&e);
    ledit_delete(&e);
    ledit_get(&e, out, sizeof out);
    is_str(out, "abcdefgh", "backspace and delete around the cursor");
}

/* ---- themes and config ------------------------------------------------------ */

static int same_theme(const theme *a, const theme *b)
{
    for (int r = 0; r < ROLE_COUNT; r++)
        if (a->role[r].fg != b->role[r].fg || a->role[r].bg != b->role[r].bg ||
            a->role[r].attrs != b->role[r].attrs)
            return 0;
    return 1;
}

static void test_themes(void)
{
    theme t, want;
    char why[512];
    short c;
    ok(theme_color_parse("bright-red", &c) == 0 && c == 9, "colour names");
    ok(theme_color_parse("208", &c) == 0 && c == 208, "colour numbers");
    ok(theme_color_parse("256", &c) == -1 && theme_color_parse("pink", &c) == -1,
       "bad colours refused");
    unsigned a;
    ok(theme_attrs_parse("bold,reverse", &a) == 0 && a == (THEME_BOLD | THEME_REVERSE),
       "attribute lists");
    int bold = 0;
    is_int(theme_color_fit(196, 16, &bold), 9, "256 colours fall back to the nearest of 16");
    is_int(theme_color_fit(9, 8, &bold), 1, "bright colours fall back to 8 ...");
    ok(bold, "... with bold");
    is_int(theme_color_fit(75, 256, NULL), 75, "256-colour terminals keep the colour");
    {
        int bt = 0, bc = 0;
        short t8 = theme_color_fit(150, 8, &bt), c8 = theme_color_fit(180, 8, &bc);
        ok(t8 != c8 && t8 != 0 && c8 != 0,
           "on 8 colours the default Trust (150) and Mem.Conf (180) bars differ and are not "
           "black (got %d%s, %d%s)",
           t8, bt ? " bold" : "", c8, bc ? " bold" : "");
        is_int(theme_color_fit(244, 16, NULL), 8, "a grey still falls back to a grey");
    }
    ok(theme_load_file(&t, "themes/default", why, sizeof why) == 0, "themes/default loads");
    theme_builtin(&want);
    ok(same_theme(&t, &want), "themes/default says what the built-in default says");
    ok(theme_load_file(&t, "themes/monochrome", why, sizeof why) == 0, "themes/monochrome loads");
    theme_mono(&want);
    ok(same_theme(&t, &want), "themes/monochrome says what the built-in monochrome says");
    ok(theme_load_file(&t, "themes/light", why, sizeof why) == 0, "themes/light loads");
    ok(theme_load_file(&t, "themes/high-contrast", why, sizeof why) == 0,
       "themes/high-contrast loads");
    write_text(tpath("bad"), "# ok\ncolor normal default default\ncolor escape red pink\n");
    ok(theme_load_file(&t, tpath("bad"), why, sizeof why) == -1, "a malformed theme fails");
    char want_why[600];
    snprintf(want_why, sizeof want_why, "%s:3:18: unknown colour 'pink'", tpath("bad"));
    ok(strncmp(why, want_why, strlen(want_why)) == 0, "the error names file, line and column");
    theme_builtin(&want);
    ok(same_theme(&t, &want), "and the default theme is used");
    ok(theme_parse_line(&t, "color selection red blue", why, sizeof why) == -1 &&
           strstr(why, "unknown role"),
       "unknown role");
    ok(theme_parse_line(&t, "colour normal red blue", why, sizeof why) == -1, "unknown keyword");
    ok(theme_parse_line(&t, "color normal red", why, sizeof why) == -1, "too few words");
    ok(theme_parse_line(&t, "color normal red blue bold underline # note", why, sizeof why) == 0 &&
           t.role[ROLE_normal].attrs == (THEME_BOLD | THEME_UNDERLINE),
       "attributes as words");
}

/* theme_dirs' folders, each followed by a newline, into the buffer. */
typedef struct dir_list {
    char text[4096];
    size_t n;
} dir_list;

static int add_dir(void *ctx, const char *dir)
{
    dir_list *l = ctx;
    int w = snprintf(l->text + l->n, sizeof l->text - l->n, "%s\n", dir);
    if (w > 0 && (size_t)w < sizeof l->text - l->n)
        l->n += (size_t)w;
    return 0;
}

static const char *theme_dir_text(dir_list *l)
{
    l->n = 0;
    l->text[0] = '\0';
    theme_dirs(add_dir, l);
    return l->text;
}

/* Set or (value NULL) unset an environment variable. */
static void set_env(const char *name, const char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

/* The source tree this test binary is in: the first folder above it that
 * holds themes/default ("" when none does). */
static void tree_of(const char *exe, char *out, size_t len)
{
    snprintf(out, len, "%s", exe);
    for (char *slash; (slash = strrchr(out, '/')) != NULL; *slash = '\0') {
        char def[2200];
        snprintf(def, sizeof def, "%s/themes/default", out);
        if (access(def, R_OK) == 0)
            return;
    }
    out[0] = '\0';
}

/* The theme search order (theme.h): the environment's folders, the XDG
 * ones, the install prefix, beside the binary, the source tree; this
 * binary is in the tree, so the tree's themes come right after the user's
 * own folders (browser.t checks a binary outside the tree). */
static void test_theme_dirs(void)
{
    static const char *const vars[] = {"MEMSCOPE_THEME_PATH", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
                                       "XDG_DATA_DIRS", "HOME"};
    char *saved[5];
    for (int k = 0; k < 5; k++)
        saved[k] = getenv(vars[k]) ? strdup(getenv(vars[k])) : NULL;
    char exe[1024], tree[1024], after[2600], want[8192];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    if (strrchr(exe, '/'))
        *strrchr(exe, '/') = '\0';
    tree_of(exe, tree, sizeof tree);
    ok(tree[0] != '\0', "this test runs from a source tree (%s)", tree);
    snprintf(after, sizeof after, "%s/themes\n%s/../share/memscope/themes\n%s/themes\n",
             MEMSCOPE_SHAREDIR, exe, exe);
    dir_list l;

    set_env("MEMSCOPE_THEME_PATH", "/p1::p2");
    set_env("XDG_CONFIG_HOME", "/cfg");
    set_env("XDG_DATA_HOME", "/data");
    set_env("XDG_DATA_DIRS", "/d1:relative:/d2:");
    snprintf(want, sizeof want,
             "/p1\np2\n/cfg/memscope/themes\n/data/memscope/themes\n%s/themes\n"
             "/d1/memscope/themes\n/d2/memscope/themes\n%s",
             tree, after);
    const char *got = theme_dir_text(&l);
    is_str(got, want,
           "themes: MEMSCOPE_THEME_PATH's folders, XDG config, XDG data home, the source tree "
           "this binary is in, each absolute XDG_DATA_DIRS folder, the install prefix, beside "
           "the binary, in that order, and the tree not again at the end");

    set_env("MEMSCOPE_THEME_PATH", NULL);
    set_env("XDG_CONFIG_HOME", NULL);
    set_env("XDG_DATA_HOME", "");
    set_env("XDG_DATA_DIRS", NULL);
    set_env("HOME", "/h");
    snprintf(want, sizeof want,
             "/h/.config/memscope/themes\n/h/.local/share/memscope/themes\n%s/themes\n"
             "/usr/local/share/memscope/themes\n/usr/share/memscope/themes\n%s",
             tree, after);
    is_str(theme_dir_text(&l), want,
           "unset or empty XDG folders are ~/.config, ~/.local/share, /usr/local/share:/usr/share");
    set_env("XDG_CONFIG_HOME", "cfg");
    set_env("HOME", "home");
    snprintf(want, sizeof want,
             "%s/themes\n/usr/local/share/memscope/themes\n/usr/share/memscope/themes\n%s", tree,
             after);
    is_str(theme_dir_text(&l), want, "relative XDG folders and HOME are not used");

    set_env("MEMSCOPE_THEME_PATH", tmpdir);
    set_env("XDG_DATA_DIRS", "/nonexistent");
    char path[1024];
    write_text(tpath("mine"), "color normal red default\n");
    ok(theme_find("mine", path, sizeof path) == 0 && strcmp(path, tpath("mine")) == 0,
       "theme_find finds a theme in MEMSCOPE_THEME_PATH");
    ok(theme_find("light", path, sizeof path) == 0 && access(path, R_OK) == 0 &&
           strcmp(path + strlen(path) - 13, "/themes/light") == 0,
       "and a shipped one past it (%s)", path);
    write_text(tpath("light"), "color normal red default\n");
    ok(theme_find("light", path, sizeof path) == 0 && strcmp(path, tpath("light")) == 0,
       "a theme in MEMSCOPE_THEME_PATH comes before the shipped one of its name");
    ok(theme_find("no-such-theme", path, sizeof path) == -1 &&
           theme_find("", path, sizeof path) == -1,
       "no theme of the name: -1");
    for (int k = 0; k < 5; k++) {
        set_env(vars[k], saved[k]);
        free(saved[k]);
    }
}

static void test_config(void)
{
    config c;
    char why[512];
    write_text(tpath("config"), "# mine\ntheme light\nranking off\nlimit 7\ndebounce 50\n"
                                "color escape black yellow bold\n");
    ok(config_load(&c, tpath("config"), why, sizeof why) == 0, "a config file loads");
    ok(!strcmp(c.theme, "light") && !c.ranking && c.limit == 7 && c.debounce_ms == 50 &&
           c.n_colors == 1,
       "its settings");
    theme t;
    theme_builtin(&t);
    ok(config_apply_colors(&c, &t, why, sizeof why) == 0 && t.role[ROLE_escape].fg == 0 &&
           t.role[ROLE_escape].bg == 3,
       "colour overrides apply over the theme");
    write_text(tpath("config"), "limit 7\nlimit lots\n");
    ok(config_load(&c, tpath("config"), why, sizeof why) == -1 && strstr(why, "config:2:7: ") &&
           c.limit == 10,
       "a bad value: file:line:col, and the defaults");
    ok(config_load(&c, tpath("none"), why, sizeof why) == 0, "no config file is fine");
}

/* ---- the one recall table (rtable.h) ---------------------------------------------- */

static void rtable_line(const char *id, int cols, char *out, size_t len)
{
    recall_hit h;
    memset(&h, 0, sizeof h);
    h.mem.id = (char *)id;
    h.mem.content = (char *)"some content";
    h.mem.created_at = (char *)"2025-10-14T09:30:00Z";
    h.mem.memory_confidence = 0.9;
    h.mem.trust_alpha = h.mem.trust_beta = 1;
    h.ranking_score = 0.19;
    h.relevance_score = 0.5;
    rtab_cols c;
    rtab_layout(cols, 0, 1, rtab_id_width(2, &h, 1), &c);
    rtab_mark m = {.rank = "1", .id_role = ROLE_normal};
    vrow l;
    vrow_init(&l, cols);
    rtab_row(&l, &c, &h, &m);
    snprintf(out, len, "%s", l.s ? l.s : "");
    vrow_free(&l);
}

static void test_rtable(void)
{
    char a[512], b[512];
    rtable_line("m1a23185e1000000", 80, a, sizeof a);
    rtable_line("m1a23185e1db0000", 80, b, sizeof b);
    ok(strstr(a, " m1a23185e1000000 ") && strstr(b, " m1a23185e1db0000 "),
       "16-character ids from memscope add are never cut, at 80 columns");
    ok(strstr(a, " 0.1900 ") != NULL, "the ranking in the browser's precision: 0.1900");
    rtable_line("conversation-42-session-7-turn-0001", 120, a, sizeof a);
    rtable_line("conversation-42-session-7-turn-0002", 120, b, sizeof b);
    ok(strstr(a, " conversatio\xe2\x80\xa6-7-turn-0001 ") && strstr(b, "\xe2\x80\xa6-7-turn-0002 "),
       "a longer id is cut in its middle: head, ellipsis and the tail that tells neighbours apart");
    rtab_cols c;
    rtab_layout(120, 0, 1, 40, &c);
    is_int(c.id, RTAB_ID_MAX, "the id column is at most RTAB_ID_MAX wide");
}

/* ---- layout without a model ------------------------------------------------------ */

static void test_columns(void)
{
    view_columns c;
    view_columns_for(120, 0, 1, 5, &c);
    ok(c.date && c.speaker && c.content >= 20, "120 columns: every column");
    view_columns_for(60, 1, 1, 5, &c);
    ok(!c.speaker && c.content >= 1, "60 columns with what-if: the speaker goes first");
    is_int(view_split(30, 8, 10), 8, "both panes fit: results take what they need");
    int r = view_split(20, 16, 16);
    ok(r >= 10 && r <= 16, "neither fits: results keep at least half");

    vrow lines[200];
    for (int k = 0; k < 200; k++)
        vrow_init(&lines[k], 300);
    int n = view_help_lines(lines, 200, 300);
    char *all = calloc(1, 65536);
    for (int k = 0; k < n && all; k++) {
        strcat(all, lines[k].s ? lines[k].s : "");
        strcat(all, "\n");
    }
    int every = 1;
    char ek[64], eh[512];
#define CHECK_HELP(id, section, keys, help, ...)                                                   \
    keytext_expand(keys, ek, sizeof ek);                                                           \
    keytext_expand(help, eh, sizeof eh);                                                           \
    if (!all || !strstr(all, eh) || !strstr(all, ek))                                              \
        every = 0;
    ACTIONS(CHECK_HELP)
#undef CHECK_HELP
    ok(every, "the help lists every action of the table with its keys");
    char names[256] = "", range[32];
    for (int ch = 0; ch < CH_COUNT; ch++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", ch ? " " : "",
                 engine_channel_name(ch));
    snprintf(range, sizeof range, "1-%d", CH_COUNT);
    ok(all && strstr(all, range) && strstr(all, names) && !strstr(all, "#N") &&
           !strstr(all, "#CHANNELS"),
       "the channel keys' help follows the engine's channels: %s (%s)", range, names);
    ok(all && strstr(all, "Relevance") && strstr(all, "not an answer probability"),
       "the help explains the columns");
    free(all);
    for (int k = 0; k < 200; k++)
        vrow_free(&lines[k]);
}

/* ---- the model over the demo store ------------------------------------------------ */

static char *layout_text(view_model *vm, view_screen *s, int cols, int rows)
{
    view_layout(vm, cols, rows, s);
    return view_screen_text(s);
}

static int has_control(const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        if ((*p < 0x20 && *p != '\n') || *p == 0x7f)
            return 1;
    return 0;
}

/* Clicks and the wheel, on the geometry of the last layout. */
static void test_mouse(view_model *vm)
{
    int y = -1;
    for (int k = 0; k < VIEW_YMAP_MAX && y < 0; k++)
        if (vm->g.ymap[k] == 2)
            y = k;
    ok(y > 0, "the layout maps screen rows to result rows");
    vm->mouse_y = y;
    vm->mouse_kind = VIEW_MOUSE_CLICK;
    view_act(vm, A_MOUSE);
    is_int(vm->sel, 2, "a click selects the row under it");
    vm->mouse_kind = VIEW_MOUSE_WHEEL_DOWN;
    view_act(vm, A_MOUSE);
    is_int(vm->sel, 3, "the wheel moves the selection");
    vm->mouse_y = 0;
    vm->mouse_kind = VIEW_MOUSE_CLICK;
    view_act(vm, A_MOUSE);
    ok(vm->focus == FOCUS_QUERY, "a click on the query line focuses it");
    vm->mouse_y = y;
    vm->mouse_kind = VIEW_MOUSE_DOUBLE;
    view_act(vm, A_MOUSE);
    ok(vm->det.open, "a double click opens the detail view");
    view_detail_close(vm);
    vm->sel = 0;
}

static void test_recall_screen(view_model *vm, view_screen *s)
{
    view_set_query(vm, "When is my dentist appointment?");
    ok(view_model_update(vm) == 0 && vm->cur && vm->cur->n_hits > 0, "a headless recall");
    char *text = layout_text(vm, s, 120, 50);
    ok(text && strstr(text, "Relevance") && strstr(text, "Mem.Conf") && strstr(text, "Trust"),
       "the column headers");
    ok(text && strstr(text, "nothing here is an answer probability"), "the legend");
    const recall_hit *h = &vm->cur->hits[0];
    char want[128];
    snprintf(want, sizeof want, "%.3f", h->relevance_score);
    ok(text && strstr(text, want), "row 1 shows its relevance %s", want);
    int all = 1;
    for (int c = 0; c < CH_COUNT; c++) {
        if (!h->ch[c].ranked)
            continue;
        vfmt_contribution(&h->ch[c], vm->cur->rrf_k, want, sizeof want);
        all &= text && strstr(text, want) != NULL;
    }
    ok(all, "the trace shows every channel's w/(k+rank) = contribution");
    snprintf(want, sizeof want, "= %.6f / %.6f = %.4f", h->boosted, h->max_fused,
             h->relevance_score);
    ok(text && strstr(text, want), "the trace shows relevance = boosted / max_boosted");
    ok(text && !has_control(text), "no control byte on the screen");
    free(text);
    test_mouse(vm);
    text = layout_text(vm, s, 40, 10);
    ok(text && strstr(text, "terminal too small") && s->too_small, "too small a screen");
    free(text);
}

/* The status bar's count is the store's (store_count), without the browser
 * asking store_count for it; it follows a memory added by another process. */
static void test_status_count(view_model *vm, view_screen *s, store *st, const char *bin)
{
    ms_error err;
    store_counts c[2] = {{0}};
    for (int k = 0; k < 2; k++) {
        if (k == 1) {
            char cmd[2048];
            snprintf(cmd, sizeof cmd,
                     "'%s' add --db '%s' 'a note for the status bar count' >/dev/null", bin,
                     tpath("demo.db"));
            ok(system(cmd) == 0 && view_model_reload(vm, &err) == 0,
               "another process adds a memory; the model reloads");
        }
        int counted = store_read_begin(st, &err) == MS_OK && store_count(st, &c[k], &err) == MS_OK;
        store_end(st, NULL);
        is_int(vm->memories, counted ? c[k].memories : -1,
               "the status bar's count is store_count's");
        char *text = layout_text(vm, s, 120, 50);
        char want[64];
        snprintf(want, sizeof want, " %lld mem ", (long long)c[k].memories);
        ok(text && strstr(text, want), "the status bar shows '%s'", want);
        free(text);
    }
    is_int(c[1].memories, c[0].memories + 1, "the count moved by the one memory added");
}

/* The rank of id among r's hits, 0 when r did not return it (recomputed
 * here, not view.c's). */
static int base_rank(const recall_result *r, const char *id)
{
    for (size_t i = 0; r && i < r->n_hits; i++)
        if (strcmp(r->hits[i].mem.id, id) == 0)
            return r->hits[i].rank_position;
    return 0;
}

/* The ids of a direct recall with bm25 weighted 3. */
static void test_whatif(view_model *vm, view_screen *s)
{
    vm->focus = FOCUS_RESULTS;
    vm->key = 'w';
    view_act(vm, A_WI_CHANNEL);
    int flags = 0;
    for (int i = 0; i < 8; i++) {
        vm->key = '+';
        flags = view_act(vm, A_WI_MORE);
    }
    ok(flags & VIEW_RECALL, "what-if asks for a recall");
    view_model_update(vm);
    ok(vm->base && vm->cur->weights[CH_BM25] == 3.0, "bm25 weight 3 under what-if");
    recall_opts o;
    recall_opts_init(&o);
    o.query = "When is my dentist appointment?";
    o.weights[CH_BM25] = 3;
    o.weights_set = CH_MASK(CH_BM25);
    recall_result *r = NULL;
    ms_error err;
    engine_recall(vm->eng, &o, &r, &err);
    int same = r && r->n_hits == vm->cur->n_hits;
    for (size_t i = 0; same && i < r->n_hits; i++)
        same = strcmp(r->hits[i].mem.id, vm->cur->hits[i].mem.id) == 0;
    ok(same, "what-if gives the order of a recall with those weights");
    recall_free(r);
    int moves_ok = 1;
    for (size_t i = 0; i < vm->n_rows; i++) {
        const view_row *row = &vm->rows[i];
        if (row->kind != ROW_HIT)
            continue;
        int was = base_rank(vm->base, row->h->mem.id);
        moves_ok &= was ? row->move == was - row->h->rank_position : row->is_new;
    }
    ok(moves_ok, "each row's movement against the baseline");
    char *text = layout_text(vm, s, 120, 50);
    ok(text && strstr(text, "WHAT-IF") && strstr(text, "overlap@10"), "the what-if line");
    free(text);
    vm->key = '1';
    view_act(vm, A_WI_TOGGLE);
    ok(vm->wi.disabled == CH_MASK(CH_SEMANTIC), "1 switches semantic off");
    vm->key = '0';
    view_act(vm, A_WI_RESET);
    view_model_update(vm);
    ok(!view_whatif_active(vm) && !vm->base, "0 resets to the baseline");
}

static void test_pin_detail(view_model *vm, view_screen *s)
{
    view_pin(vm, "m0116");
    view_model_update(vm);
    ok(vm->cur->explain && vm->cur->explain->found, "a pinned memory is explained");
    char *text = layout_text(vm, s, 120, 50);
    ok(text && strstr(text, "Why not m0116?"), "the lower pane says why not");
    free(text);
    view_pin(vm, "m0116");
    ok(vm->pinned[0] == '\0', "pinning it again unpins");
    const char *id = vm->cur->hits[0].mem.id;
    ok(view_detail_open(vm, id) == 0 && vm->det.open, "the detail view opens");
    text = layout_text(vm, s, 120, 50);
    ok(text && strstr(text, "alpha") && strstr(text, "memory_confidence") &&
           strstr(text, "entities ("),
       "detail: trust as alpha/beta, fields, entities");
    free(text);
    if (vm->det.n_edges > 0) {
        view_act(vm, A_OPEN);
        ok(vm->det.open && vm->det.depth == 1, "Enter on an edge opens the other memory");
        view_act(vm, A_BACK);
        ok(vm->det.open && vm->det.depth == 0 && strcmp(vm->det.m.id, id) == 0, "Esc comes back");
    }
    view_act(vm, A_BACK);
    ok(!vm->det.open, "Esc closes the detail view");
    ok(view_detail_open(vm, "no-such-id") == -1 && !vm->det.open, "an unknown id: a message");
}

/* The views: q closes help and detail and quits only from the main screen;
 * the first Down in the detail view moves to the next edge. */
static void test_views(view_model *vm, view_screen *s)
{
    view_set_query(vm, "dentist");
    view_model_update(vm);
    vm->focus = FOCUS_RESULTS;
    is_str(view_current(vm)->name, "main", "the main screen is the main view");
    vm->key = '?';
    view_act(vm, A_HELP);
    is_str(view_current(vm)->name, "help", "? opens the help view");
    vm->key = 'q';
    int f = view_act(vm, A_QUIT);
    ok(!(f & VIEW_QUIT) && !vm->help, "q closes the help and does not quit");
    const char *id = vm->cur->hits[0].mem.id;
    view_detail_open(vm, id);
    is_str(view_current(vm)->name, "detail", "the detail view is on screen");
    char *text = layout_text(vm, s, 120, 50);
    free(text);
    if (vm->det.n_edges > 1) {
        vm->key = 'j';
        view_act(vm, A_DOWN);
        is_int(vm->det.sel, 1, "the first Down in the detail view selects the next edge");
        view_act(vm, A_UP);
        is_int(vm->det.sel, 0, "Up goes back to the first edge");
    } else {
        ok(0, "the demo memory has two edges to walk");
        ok(0, "(skipped Up)");
    }
    vm->key = 'q';
    f = view_act(vm, A_QUIT);
    ok(!(f & VIEW_QUIT) && !vm->det.open, "q closes the detail view and does not quit");
    view_detail_open(vm, id);
    vm->key = CTRL_KEY('c');
    f = view_act(vm, A_QUIT);
    ok(f & VIEW_QUIT, "Ctrl-C in the detail view quits");
    view_detail_close(vm);
    vm->key = 'q';
    f = view_act(vm, A_QUIT);
    ok(f & VIEW_QUIT, "q on the main screen quits");
}

/* The id at position pos of the demo store's listing in order o. */
static int first_id(void *ctx, const store_memory *m)
{
    snprintf(ctx, STORE_ID_MAX + 1, "%s", m->id);
    return 1;
}

static void listed_id(store *st, const store_list_opts *o, int64_t pos, char *id)
{
    ms_error err;
    id[0] = '\0';
    store_list(st, o, pos, 1, first_id, id, &err);
}

static int count_find(void *ctx, const store_memory *m)
{
    void **c = ctx;
    *(int *)c[1] += store_find_match(c[0], m);
    return 0;
}

/* An empty query lists every memory: paged, sorted, grouped, found in;
 * the entity view and the profile picker. */
static void test_listing(view_model *vm, view_screen *s)
{
    char id[STORE_ID_MAX + 1], want[80];
    view_set_query(vm, "");
    view_model_update(vm);
    vm->focus = FOCUS_RESULTS;
    is_str(view_current(vm)->name, "list", "an empty query shows the listing");
    char *text = layout_text(vm, s, 120, 36);
    snprintf(want, sizeof want, "Every memory (%lld), by date", (long long)vm->memories);
    ok(text && strstr(text, want), "its title counts every memory of the profile");
    listed_id(vm->st, &vm->list.o, 0, id);
    ok(text && id[0] && strstr(text, id), "the first screen starts at the oldest memory");
    free(text);
    view_act(vm, A_END);
    text = layout_text(vm, s, 120, 36);
    listed_id(vm->st, &vm->list.o, vm->memories - 1, id);
    ok(vm->list.sel == vm->memories - 1 && text && id[0] && strstr(text, id),
       "End goes to the last memory, loading its page");
    free(text);
    view_act(vm, A_HOME);
    view_act(vm, A_PAGE_DOWN);
    ok(vm->list.sel == vm->g.res_h - 1, "PgDn moves a page of rows");
    vm->key = 'o';
    view_act(vm, A_SORT);
    text = layout_text(vm, s, 120, 36);
    listed_id(vm->st, &(store_list_opts){.sort = STORE_SORT_EVENT}, 0, id);
    ok(vm->list.o.sort == STORE_SORT_EVENT && vm->list.sel == 0 && text &&
           strstr(text, "by event") && strstr(text, id),
       "o sorts by the next column (event time), from the top");
    free(text);
    view_act(vm, A_SORT_DIR);
    text = layout_text(vm, s, 120, 36);
    listed_id(vm->st, &(store_list_opts){.sort = STORE_SORT_EVENT, .desc = 1}, 0, id);
    ok(text && strstr(text, "by event descending") && strstr(text, id), "O reverses it");
    free(text);
    view_act(vm, A_GROUP);
    text = layout_text(vm, s, 120, 36);
    ok(vm->list.o.sort == STORE_SORT_SESSION && text && strstr(text, "── session "),
       "t groups by session, with a line where the session changes");
    free(text);
    view_act(vm, A_GROUP);
    text = layout_text(vm, s, 120, 36);
    ok(vm->list.o.sort == STORE_SORT_DATE && text && strstr(text, "── 2026-"),
       "t again: a timeline by day");
    free(text);
    view_act(vm, A_GROUP);
    store_find f;
    int expect = 0;
    store_find_parse("speaker:calendar", &f);
    store_scan(vm->st, 0, 0, count_find, (void *[]){&f, &expect}, NULL);
    view_act(vm, A_HOME);
    view_find_set(vm, "speaker:Calendar");
    const store_memory *m = view_list_at(vm, vm->list.sel);
    ok(expect > 1 && vm->find_matches == expect && m && store_find_match(&f, m),
       "F selects the first match and counts them all (%d)", expect);
    int64_t at = vm->list.sel;
    vm->key = 'n';
    view_act(vm, A_TOUR_NEXT);
    m = view_list_at(vm, vm->list.sel);
    ok(vm->list.sel > at && m && store_find_match(&f, m), "n goes to the next match");
    vm->key = 'N';
    view_act(vm, A_TOUR_PREV);
    is_int((int)vm->list.sel, (int)at, "N goes back to the previous one");
    text = layout_text(vm, s, 120, 36);
    ok(text && strstr(text, "» "), "matches are marked");
    free(text);
    view_find_set(vm, "");

    view_act(vm, A_ENTITIES);
    is_str(view_current(vm)->name, "entities", "E opens the entity view");
    ok(vm->ents.n > 0 && vm->ents.ents[0].docs >= vm->ents.ents[vm->ents.n - 1].docs,
       "entities, most linked first");
    int64_t docs = vm->ents.ents[0].docs;
    view_act(vm, A_OPEN);
    text = layout_text(vm, s, 120, 36);
    is_str(view_current(vm)->name, "entity-list", "Enter lists the entity's memories");
    ok(vm->list.total == docs && text && strstr(text, "Memories mentioning"),
       "as many as the entity view counted");
    free(text);
    view_act(vm, A_OPEN);
    is_str(view_current(vm)->name, "detail", "Enter opens one of them");
    vm->key = 'q';
    view_act(vm, A_QUIT);
    is_str(view_current(vm)->name, "entity-list", "q goes back to the entity's list");
    view_act(vm, A_QUIT);
    is_str(view_current(vm)->name, "entities", "q again: the entity view");
    view_act(vm, A_BACK);
    is_str(view_current(vm)->name, "list", "Esc: every memory again");

    view_act(vm, A_PROFILES);
    is_str(view_current(vm)->name, "profiles", "P opens the profile picker");
    ok(vm->profiles.n == 1 && vm->profiles.profs[0].memories == vm->memories,
       "it lists the profile with its count");
    vm->key = 'q';
    int qf = view_act(vm, A_QUIT);
    ok(!(qf & VIEW_QUIT) && !vm->profiles.open && vm->profiles.profs == NULL,
       "q closes the picker (and frees it) without quitting");
    int64_t all = vm->memories;
    view_profile_use(vm, "nosuch");
    view_model_update(vm);
    text = layout_text(vm, s, 120, 36);
    snprintf(want, sizeof want, "Profiles with memories: default (%lld)", (long long)all);
    ok(vm->memories == 0 && text && strstr(text, "The profile \"nosuch\" holds no memories") &&
           strstr(text, want),
       "an empty profile's screen names the profiles that have memories");
    free(text);
    view_profile_use(vm, "default");
    view_model_update(vm);
    is_int((int)vm->memories, (int)all, "and back to the default profile");
}

/* The caption's rows on a cols x rows screen (the lines between the
 * legend and the result header or what-if line), joined by spaces. */
static void tour_caption_shown(view_model *vm, view_screen *s, int cols, int rows, char *out,
                               size_t cap)
{
    char *text = layout_text(vm, s, cols, rows);
    out[0] = '\0';
    char *line = text ? strchr(text, '\n') : NULL; /* past the query line */
    line = line ? strchr(line + 1, '\n') : NULL;   /* past the legend */
    while (line && line[1] == ' ' && line[2] != ' ' && strncmp(line + 1, " WHAT-IF  ", 10) != 0) {
        char *end = strchr(line + 1, '\n');
        size_t n = strlen(out);
        snprintf(out + n, cap - n, "%s%.*s", n ? " " : "", (int)(end ? end - line - 2 : 0),
                 line + 2);
        line = end;
    }
    free(text);
    for (size_t n = strlen(out); n > 0 && out[n - 1] == ' ';)
        out[--n] = '\0';
}

/* At 60x14, 80x24 and 120x36 every step's caption reads whole: it ends a
 * sentence, and what is shown is the caption's beginning. */
static void test_tour_fits(view_model *vm, view_screen *s)
{
    static const int size[][2] = {{60, 14}, {80, 24}, {120, 36}};
    for (size_t z = 0; z < sizeof size / sizeof *size; z++) {
        int whole = 1;
        for (int step = 0; step < tour_steps(); step++) {
            tour_go(vm, step);
            char shown[1200], full[1200];
            tour_caption_shown(vm, s, size[z][0], size[z][1], shown, sizeof shown);
            snprintf(full, sizeof full, "%s", vm->caption);
            /* the wrapped text has single spaces where the caption had them */
            size_t n = strlen(shown);
            if (n < 20 || shown[n - 1] != '.' || strncmp(full, shown, n) != 0 ||
                (full[n] && full[n] != ' ')) {
                diag("%dx%d step %d shows: %s", size[z][0], size[z][1], step + 1, shown);
                whole = 0;
            }
        }
        ok(whole, "%dx%d: every tour caption shown ends a sentence of it (none cut)", size[z][0],
           size[z][1]);
    }
}

static void test_tour(view_model *vm, view_screen *s)
{
    for (int step = 0; step < tour_steps(); step++) {
        tour_go(vm, step);
        char *text = layout_text(vm, s, 100, 40);
        char want[32];
        snprintf(want, sizeof want, "Tour %d/%d", step + 1, tour_steps());
        ok(text && strstr(text, want) && vm->cur, "tour step %d: %s", step + 1, tour_query(step));
        free(text);
    }
    tour_go(vm, 0);
    ok(vm->cur->n_hits > 0 && !strcmp(vm->cur->hits[0].mem.id, "m0037") && vm->sel == 0 &&
           strstr(vm->caption, "m0037 ranks first"),
       "step 1's confident hit is the answer (m0037, data/DEMO.md) at rank 1, and the caption "
       "names it");
    tour_go(vm, 4);
    ok(vm->cur->abstained && !strcmp(vm->cur->abstention_reason, "evidence_floor"),
       "the off-topic step abstains with evidence_floor");
    tour_go(vm, 5);
    ok(vm->cur->abstained && !strcmp(vm->cur->abstention_reason, "no_candidates"),
       "the last step shows no_candidates");
    ok(view_whatif_active(vm) && (vm->wi.disabled & CH_MASK(CH_SEMANTIC)) &&
           (vm->wi.disabled & CH_MASK(CH_HOPFIELD)) && vm->base && vm->base->abstained &&
           !strcmp(vm->base->abstention_reason, "evidence_floor"),
       "it gets there by the what-if it promises: the dense channels off, the baseline "
       "evidence_floor");
    char *text = layout_text(vm, s, 80, 24);
    ok(text && strstr(text, "WHAT-IF") && strstr(text, "sem off") && strstr(text, "hop off") &&
           strstr(vm->caption, "answers no_candidates. With every channel on it answers "
                               "evidence_floor"),
       "the screen shows the what-if line and the caption both answers");
    free(text);
    test_tour_fits(vm, s);
    tour_stop(vm);
    ok(vm->tour == -1 && !view_whatif_active(vm), "the tour ends, what-if reset");
}

static void test_hostile(view_model *vm, view_screen *s)
{
    view_set_query(vm, "wombat reversed pwned");
    view_model_update(vm);
    const recall_hit *h = NULL;
    for (size_t i = 0; i < vm->n_rows; i++)
        if (!strcmp(vm->rows[i].h->mem.id, "evil1")) {
            h = vm->rows[i].h;
            vm->sel = (int)i;
        }
    ok(h != NULL, "the hostile memory is found");
    char *text = layout_text(vm, s, 160, 40);
    ok(text && strstr(text, "\\x1b]2;pwned\\x07") && !has_control(text),
       "its escape sequences are visible, never raw");
    free(text);
    view_detail_open(vm, "evil1");
    text = layout_text(vm, s, 160, 40);
    ok(text && strstr(text, "<U+202E>") && !has_control(text), "the detail view too");
    free(text);
    view_detail_close(vm);
}

/* The c overlay: no report, then a hand-written one made for other content
 * and another version (stale, with the reasons) whose picture is drawn. */
static void test_calibration(view_model *vm, view_screen *s)
{
    int f = view_act(vm, A_CALIBRATION);
    char *text = layout_text(vm, s, 100, 40);
    ok((f & VIEW_REDRAW) && vm->help == VIEW_HELP_CALIBRATION && text &&
           strstr(text, "No usable report at") && strstr(text, "memscope calibrate --db"),
       "c without a report says how to make one");
    free(text);
    view_act(vm, A_RANKING);
    ok(vm->help == 0 && vm->show_ranking, "another key closes it (and is not swallowed by help)");
    view_act(vm, A_RANKING); /* no help open: the handler itself */
    char path[1200];
    snprintf(path, sizeof path, "%s.calibration.json", vm->db_path);
    write_text(path, "{\"schema\": \"memscope.calibration-report/v1\", \"calibration_id\": \"x\","
                     " \"identity\": {\"memscope_version\": \"0.0.0\", "
                     "\"engine_configuration_sha256\": \"0\"},"
                     " \"this_store\": {\"profile\": \"default\", \"content_sha256\": \"0\"},"
                     " \"metrics\": {\"example_count\": 120, \"brier_score\": 0.2, "
                     "\"expected_calibration_error\": 0.05, \"maximum_calibration_error\": 0.1, "
                     "\"aurc\": 0.3, \"reliability_bins\": [{\"count\": 120, "
                     "\"mean_probability\": 0.5, \"observed_accuracy\": 0.5}],"
                     " \"risk_coverage_curve\": [[0.5, 0.2], [1, 0.4]],"
                     " \"floor_operating_point\": {\"coverage\": 0.75, \"selective_risk\": 0.3,"
                     " \"cosine_threshold\": 0.28}}}\n");
    view_act(vm, A_CALIBRATION);
    text = layout_text(vm, s, 100, 40);
    ok(text && strstr(text, "STALE, because") && strstr(text, "made by another memscope version") &&
           strstr(text, "the engine configuration changed") &&
           strstr(text, "the store's content changed"),
       "a report made elsewhere is stale, with every reason");
    ok(text && strstr(text, "120 held-out examples: Brier 0.200") &&
           strstr(text, "the floor keeps 75.0 % at") && strstr(text, "Reliability") &&
           strstr(text, "Risk-coverage"),
       "what it found, and the picture with the floor marked");
    ok(text && strstr(text, "uncalibrated"), "the runtime stays uncalibrated");
    free(text);
    view_act(vm, A_HELP);
    ok(vm->help == 0, "? closes the overlay too");
    unlink(path);
}

/* The tests test_model runs, its own count check included: without
 * $MEMSCOPE each is reported as skipped, so the plan is the same either
 * way and a skip is never silent. Adding a model test means raising it
 * (the count check says so). */
enum { MODEL_TESTS = 98 };

static void skip_model(const char *why)
{
    diag("SKIPPING %d of the model tests: %s", MODEL_TESTS, why);
    for (int k = 0; k < MODEL_TESTS; k++)
        printf("ok %d # SKIP %s\n", ++tap_run, why);
}

static void test_model_run(const char *bin);
/* put one memory; its rid (0 on failure) */
static int64_t rel_put(store *st, const char *id, const char *text)
{
    store_memory m;
    store_memory_init(&m);
    m.id = strdup(id);
    m.content = strdup(text);
    m.created_at = strdup("2024-01-01T00:00:00Z");
    ms_error err;
    int64_t rid = store_put(st, &m, STORE_DUP_ERROR, NULL, &err) ? 0 : m.rid;
    store_memory_clear(&m);
    return rid;
}

/* The detail view walks supersedes and contradicts relations too. */
static void test_relations(void)
{
    store *st = NULL;
    engine *e = NULL;
    ms_error err;
    view_model vm;
    view_screen s;
    view_screen_init(&s);
    ok(store_open(tpath("rel.db"), 0, &st, &err) == MS_OK && store_begin(st, &err) == MS_OK,
       "a store for relations");
    int64_t old = rel_put(st, "old", "the office is on Baker Street"),
            nw = rel_put(st, "new", "the office moved to Quay Road"),
            other = rel_put(st, "other", "the office was never on Baker Street");
    ok(old && nw && other && store_set_supersedes(st, nw, old, "moved in May", &err) == MS_OK &&
           store_set_contradicts(st, other, old, NULL, &err) == MS_OK &&
           store_end(st, &err) == MS_OK,
       "new supersedes old; other contradicts old");
    ok(engine_open(st, NULL, &e, &err) == MS_OK && view_model_init(&vm, e, st, NULL, &err) == 0,
       "the model opens over it");
    view_detail_open(&vm, "old");
    char *text = layout_text(&vm, &s, 120, 40);
    ok(text && strstr(text, "superseded by   new") && strstr(text, "(moved in May)") &&
           strstr(text, "contradicted by other"),
       "the detail view names the relations, their direction and reason");
    ok(vm.det.n_rels == 2 && vm.det.sel == 0, "the relations come first");
    view_act(&vm, A_OPEN);
    ok(vm.det.open && strcmp(vm.det.m.id, "new") == 0, "Enter walks to the newer memory");
    free(text);
    text = layout_text(&vm, &s, 120, 40);
    ok(text && strstr(text, "supersedes      old"), "which says what it supersedes");
    free(text);
    view_act(&vm, A_BACK);
    ok(strcmp(vm.det.m.id, "old") == 0, "Esc comes back");
    view_screen_free(&s);
    view_model_free(&vm);
    engine_close(e);
    store_close(st);
}

static void test_model(void)
{
    const char *bin = getenv("MEMSCOPE");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' demo --db '%s' --force >/dev/null", bin ? bin : "",
             tpath("demo.db"));
    if (!bin || !*bin) {
        skip_model("they need $MEMSCOPE (the binary) to write the demo store");
        return;
    }
    ok(system(cmd) == 0, "$MEMSCOPE writes the demo store");
    int before = tap_run;
    test_model_run(bin);
    is_int(tap_run - before + 2, MODEL_TESTS,
           "the model block ran MODEL_TESTS tests, the number skip_model reports");
}

static void test_model_run(const char *bin)
{
    char cmd[2048];
    write_text(tpath("evil.jsonl"),
               "{\"id\":\"evil1\",\"content\":\"wombat \\u001b]2;pwned\\u0007 \\u001b[2J "
               "\\u202e reversed\",\"trust\":{\"alpha\":9,\"beta\":1}}\n");
    snprintf(cmd, sizeof cmd, "'%s' import --db '%s' '%s' >/dev/null", bin, tpath("demo.db"),
             tpath("evil.jsonl"));
    ok(system(cmd) == 0, "import a memory holding escape sequences");
    store *st = NULL;
    engine *e = NULL;
    ms_error err;
    view_model vm;
    view_screen s;
    view_screen_init(&s);
    ok(store_open(tpath("demo.db"), STORE_OPEN_READONLY, &st, &err) == MS_OK &&
           engine_open(st, NULL, &e, &err) == MS_OK &&
           view_model_init(&vm, e, st, tpath("demo.db"), &err) == 0,
       "the model opens over the demo store");
    test_status_count(&vm, &s, st, bin);
    test_recall_screen(&vm, &s);
    test_whatif(&vm, &s);
    test_pin_detail(&vm, &s);
    test_views(&vm, &s);
    test_listing(&vm, &s);
    test_tour(&vm, &s);
    test_hostile(&vm, &s);
    test_calibration(&vm, &s);
    view_screen_free(&s);
    view_model_free(&vm);
    engine_close(e);
    store_close(st);
}

/* ---- the docs name every key of the action table ------------------------------- */

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    int c;
    while (out && (c = fgetc(f)) != EOF)
        if (c != '`') /* BROWSER.md's code marks are not part of a key */
            fputc(c, out);
    fclose(f);
    if (out)
        fclose(out);
    return buf;
}

/* Does text hold key as a token of its own (between spaces, bars, commas,
 * slashes or brackets)? */
static int has_key(const char *text, const char *key)
{
    size_t n = strlen(key);
    for (const char *p = text; (p = strstr(p, key)) != NULL; p++)
        if ((p == text || strchr(" |,/(\n", p[-1])) && (!p[n] || strchr(" |,/)\n", p[n])))
            return 1;
    return 0;
}

static void check_doc_keys(const char *table, const char *man, const char *keys, char *want,
                           size_t cap, int *in_md, int *in_man)
{
    char copy[64];
    snprintf(copy, sizeof copy, "%s", keys);
    for (char *save = NULL, *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
        if (!has_key(table, t)) {
            diag("BROWSER.md's key table lacks %s", t);
            *in_md = 0;
        }
    size_t n = (size_t)snprintf(want, cap, "\n.B ");
    for (const char *p = keys; *p && n + 3 < cap; p++) {
        if (*p == '-')
            want[n++] = '\\';
        want[n++] = *p;
    }
    snprintf(want + n, cap - n, "\n");
    if (!strstr(man, want)) {
        diag("the man page has no entry '.B %s'", keys);
        *in_man = 0;
    }
}

/* Each action's keys in BROWSER.md's key table, and a ".B keys" entry in
 * the man page's list (its "-" written "\-"). Run from the repository. */
static void test_docs_keys(void)
{
    char *md = read_text("docs/BROWSER.md"), *man = read_text("docs/memscope.1");
    char *table = md ? strstr(md, "\n## Keys\n") : NULL, *end;
    if (!table || !man) {
        for (int k = 0; k < 2; k++)
            printf("ok %d # SKIP docs/BROWSER.md and docs/memscope.1 are read from the "
                   "repository\n",
                   ++tap_run);
        free(md);
        free(man);
        return;
    }
    if ((end = strstr(table + 1, "\n## ")) != NULL)
        *end = '\0';
    int in_md = 1, in_man = 1;
    char keys[64], want[160];
#define CHECK_DOC(id, section, k, help, ...)                                                       \
    keytext_expand(k, keys, sizeof keys);                                                          \
    check_doc_keys(table, man, keys, want, sizeof want, &in_md, &in_man);
    ACTIONS(CHECK_DOC)
#undef CHECK_DOC
    ok(in_md, "docs/BROWSER.md's key table names every key of the action table");
    ok(in_man, "docs/memscope.1 lists every action's keys");
    free(md);
    free(man);
}

int main(void)
{
    setlocale(LC_ALL, "C.UTF-8");
    if (!mkdtemp(tmpdir))
        return 1;
    test_rows();
    test_wrap();
    test_formats();
    test_ledit();
    test_themes();
    test_theme_dirs();
    test_config();
    test_columns();
    test_rtable();
    test_model();
    test_relations();
    test_docs_keys();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        diag("could not remove %s", tmpdir);
    return done_testing();
}
