/* browse.c - the browser's terminal and its one input loop. */
#include "tui/browser/browse.h"
#include "store/base/mono.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/base/utf8.h"
#include "tui/browser/action.h"
#include "tui/browser/config.h"
#include "engine/engine.h"
#include "tui/present/history.h"
#include "tui/browser/paint.h"
#include "tui/browser/qline.h"
#include "tui/browser/tour.h"
#include "tui/browser/view.h"
#include "tui/cli/closing.h"
#include "tui/cli/status_line.h"

#include <term.h> /* last: it defines macros (lines, columns) that view.h's fields use */

#define BROWSE_POLL_MS 1000              /* how often an idle browser checks the store */
#define BROWSE_DOUBLE_MS 400             /* two clicks within this are a double click */
#define BROWSE_PASTE_BEGIN (KEY_MAX + 1) /* ESC[200~, bracketed paste starts */
#define BROWSE_PASTE_END (KEY_MAX + 2)   /* ESC[201~, it ends */
#define BROWSE_PASTE_LOST_MS 3000        /* a paste with no key for this long is over */

typedef struct browse {
    view_model vm;
    view_screen scr;
    hist *hist;
    config cfg;
    theme th;
    char notice[1024]; /* a theme or config error to show at start */
    double due;        /* when the debounced query runs (ms clock), 0 = none */
    double click_at;   /* the last click, for double clicks */
    int click_y;
    int pasting;     /* inside a bracketed paste: keys are text, never commands */
    double paste_at; /* when its last key came */
} browse;

static volatile sig_atomic_t browse_signal;
static SCREEN *browse_term;

/* ---- the terminal ------------------------------------------------------------ */

/* Bracketed paste on or off: the terminal then wraps pasted text in
 * ESC[200~ ... ESC[201~, so a paste is never taken for keys. */
static void browse_paste_mode(int on)
{
    const char *seq = on ? "\033[?2004h" : "\033[?2004l";
    fflush(stdout);
    if (write(STDOUT_FILENO, seq, strlen(seq)) < 0)
        return; /* a terminal that cannot take it cannot paste either */
}

/* Restore the terminal; safe to call twice and from atexit. */
static void browse_restore(void)
{
    if (browse_term && !isendwin()) {
        endwin();
        browse_paste_mode(0);
    }
}

/* After a change made here the engine reads the snapshot from the tables
 * again (view_model_reload, the next recall): seconds at a million memories
 * (6.6 s after a delete, in tmux, docs/BROWSER.md), while the screen would still
 * show the question that asked for the change. The bottom line says what it
 * waits for and how far that has got, once a load has taken RELOAD_SHOW_MS,
 * so that a small store's reloads do not flicker on it. With
 * MEMSCOPE_BROWSE_LOAD_DELAY_MS (tests only) every step shows, held that
 * long. */
#define RELOAD_SHOW_MS 150.0
#define RELOAD_GAP_MS 500.0 /* a call this long after the last begins another load */

typedef struct reload_line {
    double began, last;       /* mono_ms of the load's first call and of the last */
    const status_line *delay; /* whose test delay each step holds */
} reload_line;

static void browse_reload_progress(void *ctx, const char *what, int percent)
{
    reload_line *r = ctx;
    if (!browse_term || isendwin())
        return;
    double now = mono_ms();
    if (now - r->last > RELOAD_GAP_MS)
        r->began = now;
    r->last = now;
    if (!r->delay->delay_ms && now - r->began < RELOAD_SHOW_MS)
        return;
    char line[160];
    snprintf(line, sizeof line, " reading the store again after the change (its %s, %d %%) ...",
             what, percent);
    attrset(A_NORMAL);
    mvaddnstr(LINES - 1, 0, line, COLS > 1 ? COLS - 1 : 1);
    clrtoeol();
    refresh();
    if (r->delay->delay_ms > 0) {
        status_line_hold(r->delay);
        r->last = mono_ms();
    }
}

static void browse_on_signal(int sig)
{
    browse_signal = sig;
}

static void browse_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = browse_on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

static int browse_terminal(browse *b)
{
    browse_term = newterm(NULL, stdout, stdin);
    if (!browse_term)
        return -1;
    set_term(browse_term);
    atexit(browse_restore);
    raw();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    set_escdelay(25);
    define_key("\033[200~", BROWSE_PASTE_BEGIN);
    define_key("\033[201~", BROWSE_PASTE_END);
    browse_paste_mode(1);
    mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    mouseinterval(0);
    paint_theme(&b->th);
    browse_signals();
    return 0;
}

/* Run the user's editor on path with the terminal given back to it, as
 * git does: $VISUAL, else $EDITOR, else vi, through sh (so "code -w"
 * works). 0 when it exited 0. */
static int browse_run_editor(const char *path)
{
    const char *ed = getenv("VISUAL");
    if (!ed || !*ed)
        ed = getenv("EDITOR");
    if (!ed || !*ed)
        ed = "vi";
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s \"$@\"", ed);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, ed, path, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* e: the memory in a temporary file, the editor, the change written. */
static int browse_edit(browse *b)
{
    view_model *vm = &b->vm;
    const char *tmp = getenv("TMPDIR");
    char p[1024];
    if (!tmp || !*tmp || strlen(tmp) > sizeof p - 40)
        tmp = "/tmp";
    snprintf(p, sizeof p, "%s/memscope-edit-XXXXXX.txt", tmp);
    int fd = mkstemps(p, 4);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        view_message(vm, ROLE_error, "memscope: cannot write a file for the editor: %s",
                     strerror(errno));
        return VIEW_HANDLED | VIEW_REDRAW;
    }
    int rc = view_edit_write(vm, f);
    if (fclose(f) != 0 || rc) {
        unlink(p);
        return VIEW_HANDLED | VIEW_REDRAW;
    }
    endwin();
    browse_paste_mode(0);
    int ed = browse_run_editor(p);
    refresh();
    browse_paste_mode(1);
    int flags = VIEW_HANDLED | VIEW_REDRAW | VIEW_FULL;
    if (ed)
        view_message(vm, ROLE_error, "memscope: the editor failed: nothing written");
    else
        flags |= view_edit_apply(vm, p);
    unlink(p);
    return flags;
}

static void browse_suspend(void)
{
    endwin();
    browse_paste_mode(0);
    raise(SIGSTOP);
    refresh();
    browse_paste_mode(1);
}

/* ---- themes and config ----------------------------------------------------------- */

/* Pick the theme: NO_COLOR -> monochrome; else --theme, the config's, or
 * the default; a broken file leaves the default and a notice. */
static void browse_theme(browse *b, const char *name)
{
    char path[1024], why[768];
    const char *nc = getenv("NO_COLOR");
    theme_builtin(&b->th);
    if (nc && *nc) {
        theme_mono(&b->th);
        return;
    }
    if (!name || !*name)
        name = b->cfg.theme[0] ? b->cfg.theme : NULL;
    if (name && theme_find(name, path, sizeof path))
        snprintf(b->notice, sizeof b->notice,
                 "memscope: no theme '%s' (looked in $MEMSCOPE_THEME_PATH, the XDG config "
                 "and data folders, the installed, the binary's and the source tree's "
                 "themes); using the default",
                 name);
    else if (name && theme_load_file(&b->th, path, why, sizeof why))
        snprintf(b->notice, sizeof b->notice, "memscope: %s; using the default theme", why);
    else if (name && strcmp(name, "monochrome") == 0)
        b->th.mono = 1;
    if (config_apply_colors(&b->cfg, &b->th, why, sizeof why))
        snprintf(b->notice, sizeof b->notice, "memscope: %s", why);
}

static void browse_config(browse *b, const char *theme_name)
{
    char path[1024], why[768];
    config_path(path, sizeof path);
    if (config_load(&b->cfg, path, why, sizeof why))
        snprintf(b->notice, sizeof b->notice, "memscope: %s; the config file is ignored", why);
    char keep[sizeof b->notice];
    snprintf(keep, sizeof keep, "%s", b->notice);
    browse_theme(b, theme_name);
    if (keep[0] && !b->notice[0])
        snprintf(b->notice, sizeof b->notice, "%s", keep);
}

/* ---- keys ---------------------------------------------------------------------- */

typedef struct browse_binding {
    int key;
    action_id action;
} browse_binding;

static browse_binding bindings[128];
static int n_bindings;

static void browse_bind(int key, action_id a)
{
    if (n_bindings < (int)(sizeof bindings / sizeof *bindings))
        bindings[n_bindings++] = (browse_binding){key, a};
}

/* The key table, generated from ACTIONS. */
static void browse_keys(void)
{
    n_bindings = 0;
#define BROWSE_BIND(id, section, keys, help, ...)                                                  \
    {                                                                                              \
        static const int k[] = {__VA_ARGS__};                                                      \
        for (size_t i = 0; i < sizeof k / sizeof *k; i++)                                          \
            browse_bind(k[i], A_##id);                                                             \
    }
    ACTIONS(BROWSE_BIND)
#undef BROWSE_BIND
}

static int browse_lookup(int key)
{
    for (int i = 0; i < n_bindings; i++)
        if (bindings[i].key == key)
            return (int)bindings[i].action;
    return -1;
}

static int browse_mouse(browse *b)
{
    MEVENT ev;
    if (getmouse(&ev) != OK)
        return 0;
    view_model *vm = &b->vm;
    vm->mouse_y = ev.y;
    vm->mouse_x = ev.x;
    if (ev.bstate & BUTTON4_PRESSED)
        vm->mouse_kind = VIEW_MOUSE_WHEEL_UP;
    else if (ev.bstate & BUTTON5_PRESSED)
        vm->mouse_kind = VIEW_MOUSE_WHEEL_DOWN;
    else if (ev.bstate & BUTTON1_PRESSED) {
        double now = mono_ms();
        int dbl = now - b->click_at < BROWSE_DOUBLE_MS && ev.y == b->click_y;
        vm->mouse_kind = dbl ? VIEW_MOUSE_DOUBLE : VIEW_MOUSE_CLICK;
        b->click_at = dbl ? 0 : now;
        b->click_y = ev.y;
    } else
        return 0;
    return view_act(vm, A_MOUSE);
}

/* Keys between ESC[200~ and ESC[201~ are text for the query line. */
static int browse_paste(browse *b, int kind, wint_t ch)
{
    if (kind == KEY_CODE_YES && ch == BROWSE_PASTE_BEGIN) {
        b->pasting = 1;
        b->paste_at = mono_ms();
        return qline_paste_begin(&b->vm);
    }
    if (kind == KEY_CODE_YES && ch == BROWSE_PASTE_END) {
        b->pasting = 0;
        return VIEW_HANDLED | VIEW_REDRAW;
    }
    if (!b->pasting)
        return 0;
    b->paste_at = mono_ms();
    return qline_paste(&b->vm, kind, ch);
}

static int browse_dispatch(browse *b, int kind, wint_t ch)
{
    view_model *vm = &b->vm;
    int pasted = browse_paste(b, kind, ch);
    if (pasted)
        return pasted;
    if (kind == KEY_CODE_YES && ch == KEY_RESIZE)
        return VIEW_REDRAW | VIEW_FULL;
    if (kind == KEY_CODE_YES && ch == KEY_MOUSE)
        return browse_mouse(b);
    if ((vm->focus == FOCUS_QUERY || vm->prompting) && !vm->help) {
        int f = qline_key(vm, b->hist, kind, ch);
        if (f)
            return f;
    }
    if (kind == OK && ch > 127)
        return 0;
    int a = browse_lookup((int)ch);
    if (a < 0)
        return 0;
    vm->key = (int)ch;
    return view_act(vm, (action_id)a);
}

/* A message lasts until the next key that means something, unless that
 * key put up a message of its own or the store changed (R clears that). */
static int browse_key(browse *b, int kind, wint_t ch)
{
    view_model *vm = &b->vm;
    unsigned gen = vm->msg_gen;
    int pasting = b->pasting; /* a paste is one event: its keys keep the message */
    int f = browse_dispatch(b, kind, ch);
    if ((f & VIEW_HANDLED) && vm->msg_gen == gen && vm->msg[0] && !vm->store_changed && !pasting &&
        !b->pasting) {
        vm->msg[0] = '\0';
        f |= VIEW_REDRAW;
    }
    return f;
}

/* ---- the loop ---------------------------------------------------------------------- */

static void browse_draw(browse *b, int full)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    if (view_layout(&b->vm, cols, rows, &b->scr) == 0)
        paint_screen(&b->scr, full);
}

static int browse_wait(const browse *b)
{
    if (b->due <= 0)
        return BROWSE_POLL_MS;
    double left = b->due - mono_ms();
    return left <= 0 ? 0 : (int)left + 1;
}

/* No key before the timeout: run a due query, check the store. A paste
 * whose end never came is over. */
static int browse_idle(browse *b)
{
    int flags = 0;
    if (b->pasting && mono_ms() - b->paste_at > BROWSE_PASTE_LOST_MS)
        b->pasting = 0;
    if (b->due > 0 && mono_ms() >= b->due)
        flags |= VIEW_RECALL;
    if (view_poll_store(&b->vm))
        flags |= VIEW_REDRAW;
    return flags;
}

static void browse_loop(browse *b)
{
    int flags = VIEW_REDRAW | VIEW_FULL;
    while (!browse_signal) {
        if (flags & VIEW_DEBOUNCE)
            b->due = mono_ms() + b->cfg.debounce_ms;
        if (flags & VIEW_RECALL) {
            b->due = 0;
            view_model_update(&b->vm);
        }
        if (flags & (VIEW_REDRAW | VIEW_RECALL))
            browse_draw(b, flags & VIEW_FULL);
        if (flags & VIEW_EDITOR) {
            flags = browse_edit(b);
            continue;
        }
        if (flags & VIEW_SUSPEND) {
            browse_suspend();
            flags = VIEW_REDRAW | VIEW_FULL;
            continue;
        }
        timeout(browse_wait(b));
        wint_t ch;
        int kind = get_wch(&ch);
        flags = kind == ERR ? browse_idle(b) : browse_key(b, kind, ch);
        if (flags & VIEW_QUIT)
            break;
    }
}

/* ---- entry ------------------------------------------------------------------------- */

static int browse_start(browse *b, cli_common *c, int tour)
{
    vfmt_ascii = strcmp(nl_langinfo(CODESET), "UTF-8") != 0;
    browse_config(b, c->theme);
    b->vm.base_limit = b->vm.limit = b->cfg.limit;
    b->vm.show_ranking = b->cfg.ranking;
    if (!(b->hist = hist_open("history")))
        return cli_error(EXIT_RUNTIME, "out of memory");
    browse_keys();
    if (browse_terminal(b))
        return cli_error(EXIT_RUNTIME, "cannot open the terminal (TERM=%s)",
                         getenv("TERM") ? getenv("TERM") : "unset");
    if (b->notice[0])
        view_message(&b->vm, ROLE_error, "%s", b->notice);
    if (tour)
        tour_go(&b->vm, 0);
    browse_loop(b);
    browse_restore();
    return EXIT_OK;
}

/* Can the terminal move the cursor? TERM=dumb, an unknown TERM and
 * terminals without cursor addressing (cup) cannot draw the browser. */
static int browse_can_address(void)
{
    int errret = 0;
    if (setupterm(NULL, STDOUT_FILENO, &errret) != OK)
        return 0;
    const char *cup = tigetstr("cup");
    int ok = cup && cup != (char *)-1 && !tigetflag("hc");
    del_curterm(cur_term);
    return ok;
}

/* The first screen waits for the store and its snapshot: seconds on a
 * million memories with no current snapshot file, or while another
 * process holds the store locked. Until curses takes the screen, a line on
 * the terminal (stderr, when it is one: tui/cli/status_line.h) says what
 * it waits for and, while the snapshot is read from the tables, how far
 * that has got (engine_set_progress); it is erased before anything else is
 * printed. */

int browse_run(cli_common *c, int tour)
{
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
        return cli_error(EXIT_RUNTIME, "the browser needs a terminal; for scripts use "
                                       "'memscope recall' or 'memscope shell'");
    if (!browse_can_address()) {
        const char *term = getenv("TERM");
        return cli_error(EXIT_USAGE,
                         "the browser needs a terminal that can move the cursor (TERM=%s); "
                         "use 'memscope recall' or 'memscope shell'",
                         term && *term ? term : "unset");
    }
    store *s = cli_open(c, 0, NULL);
    if (!s)
        return EXIT_RUNTIME;
    status_line line;
    status_line_begin(&line, cli_db_path(c));
    status_line_opening(&line, "memories", -1);
    engine *e = NULL;
    ms_error err;
    ms_error_clear(&err);
    static browse b; /* large; one browser per process */
    memset(&b, 0, sizeof b);
    int status = EXIT_RUNTIME;
    int bad = engine_open(s, NULL, &e, &err);
    if (!bad && line.on)
        engine_set_progress(e, status_line_progress, &line);
    bad = bad || view_model_init(&b.vm, e, s, cli_db_path(c), &err);
    /* curses has the screen from here: its bottom line says how far a
     * reload after a change has got */
    reload_line reload = {0, 0, &line};
    if (e)
        engine_set_progress(e, browse_reload_progress, &reload);
    status_line_clear(&line);
    if (bad)
        cli_fail(&err);
    else
        status = browse_start(&b, c, tour);
    if (e)
        engine_set_progress(e, NULL, NULL);
    if (browse_term) {
        delscreen(browse_term);
        browse_term = NULL;
    }
    view_screen_free(&b.scr);
    view_model_free(&b.vm);
    hist_close(b.hist);
    cli_close_engine(e, s, &line, "start"); /* the file for the next start, maybe in a child */
    if (browse_signal && browse_signal != SIGINT) {
        signal(browse_signal, SIG_DFL);
        raise(browse_signal);
    }
    return status;
}

static const char browse_usage[] =
    "usage: memscope browse [--db PATH] [--profile NAME] [--read-only] [--theme NAME]\n"
    "       memscope [same options]\n"
    "\n"
    "The full-screen browser: type a question and see the ranked memories with\n"
    "Relevance, Trust and Mem.Conf as separate columns, each result's per-channel\n"
    "trace, why a memory was not returned (p, i), what-if changes of weights, k and\n"
    "the floor, and the demo tour (T). ? inside lists every key; q quits.\n"
    "Themes: --theme NAME (default, light, high-contrast, monochrome, or a file);\n"
    "NO_COLOR gives monochrome. Config: $XDG_CONFIG_HOME/memscope/config.\n"
    "History: $XDG_STATE_HOME/memscope/history. See docs/BROWSER.md.\n";

static int run_browse(cli_common *c, int argc, char **argv);
const cli_command cmd_browse = {"browse", "the full-screen browser (also with no command)",
                                browse_usage, run_browse};

static int run_browse(cli_common *c, int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS, {0, 0, 0, 0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1)
        if (!cli_common_option(c, opt, &cmd_browse))
            return cli_bad_option(&cmd_browse, argv);
    if (optind < argc)
        return cli_usage(&cmd_browse, "unexpected argument '%s'", argv[optind]);
    return browse_run(c, 0);
}

int browse_main(int argc, char **argv)
{
    cli_common c = {0};
    return run_browse(&c, argc, argv);
}
