/* shell.c - `memscope shell`: a line-mode shell over the engine, with
 * libedit line editing, persistent history ($XDG_STATE_HOME/memscope/
 * shell_history) and tab completion of commands. Without a terminal on
 * stdin it reads commands line by line and prints no prompt, so scripts and
 * tests can pipe into it. Tables are the one recall table (rtable.h) and
 * traces the present layer's (view_trace.c), as `recall` and the browser
 * print them; stored text always escaped, long rows of text wrapped. */
#include <histedit.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/cli/cli_recall.h"
#include "tui/cli/closing.h"
#include "tui/cli/status_line.h"
#include "tui/present/history.h"
#include "tui/present/rtable.h"
#include "tui/present/text.h"
#include "tui/present/theme.h"
#include "tui/present/view_fmt.h"

#define SHELL_COMMANDS(_)                                                                          \
    _(recall, "recall QUERY", "recall memories for QUERY: a compact table")                        \
    _(explain, "explain ID QUERY", "why memory ID was or was not returned for QUERY")              \
    _(show, "show ID", "every stored field of one memory")                                         \
    _(weights, "weights [ch=w,...|reset]",                                                         \
      "channel weights for later recalls (sticky); "                                               \
      "without an argument, show them")                                                            \
    _(trace, "trace N", "the trace of result N of the last recall (mN: nearest miss N)")           \
    _(help, "help", "this list")                                                                   \
    _(quit, "quit", "leave (also exit, or Ctrl-D)")

typedef struct shell {
    engine *e;
    store *s;
    recall_opts opts;    /* sticky options: weights, limit, ... */
    recall_result *last; /* the last recall, for trace */
    int width;           /* columns of the tables */
    int failed;          /* a command failed */
    status_line line;    /* while the snapshot is read or its file written */
} shell;

enum { SHELL_OK = 0, SHELL_FAIL = -1, SHELL_QUIT = 1 };

static int shell_fail(shell *sh, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int shell_fail(shell *sh, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cli_error(EXIT_RUNTIME, "%s", msg);
    sh->failed = 1;
    return SHELL_FAIL;
}

static void shell_print(vrow *l)
{
    cli_put_row(stdout, l);
    vrow_clear(l);
}

/* ---- tables: the one recall table (rtable.h) ------------------------------------- */

enum { SHELL_UNCUT = 1 << 16 }; /* the limit of a row before it is wrapped */

typedef struct shell_wrap {
    const vrow *l;
    const char *indent;
    int k; /* pieces printed */
} shell_wrap;

static void shell_wrap_piece(void *ctx, const char *raw, size_t len)
{
    shell_wrap *w = ctx;
    vrow part = *w->l; /* a view of the piece: cli_put_row reads s, role, n */
    part.s = (char *)raw;
    part.role = w->l->role + (raw - w->l->s);
    part.n = len;
    cli_put_own(stdout, w->indent);
    if (w->k++)
        cli_put_own(stdout, "  ");
    cli_put_row(stdout, &part);
}

/* Print a row of our own text after indent, wrapped at the shell's width
 * (each continuation two columns further in): line mode cuts no reason
 * short. */
static void shell_wrapped(const shell *sh, const char *indent, const vrow *l)
{
    int cols = sh->width - (int)strlen(indent) - 2;
    if (l->w + (int)strlen(indent) <= sh->width || cols < 20) {
        cli_put_own(stdout, indent);
        cli_put_row(stdout, l);
        return;
    }
    shell_wrap w = {l, indent, 0};
    vfmt_wrap(l->s, cols, shell_wrap_piece, &w);
}

/* Rows from the present layer (a trace, a why-not, an abstention), each
 * wrapped after indent. */
typedef int (*shell_rows_fn)(vrow *out, int max, const recall_result *r, const recall_hit *h);

static void shell_lines(shell *sh, shell_rows_fn fmt, const recall_result *r, const recall_hit *h,
                        const char *indent)
{
    enum { MAX_ROWS = 48 };
    vrow rows[MAX_ROWS];
    for (int k = 0; k < MAX_ROWS; k++)
        vrow_init(&rows[k], SHELL_UNCUT);
    int n = fmt(rows, MAX_ROWS, r, h);
    for (int k = 0; k < n; k++)
        shell_wrapped(sh, indent, &rows[k]);
    for (int k = 0; k < MAX_ROWS; k++)
        vrow_free(&rows[k]);
}

static int shell_abstention_rows(vrow *out, int max, const recall_result *r, const recall_hit *h)
{
    (void)h;
    return rtab_abstention(out, max, r);
}

static void shell_hits(shell *sh, const rtab_cols *c, const recall_hit *h, size_t n, int miss)
{
    vrow l;
    vrow_init(&l, sh->width);
    for (size_t i = 0; i < n; i++) {
        char rank[24];
        if (miss)
            snprintf(rank, sizeof rank, "m%zu", i + 1);
        else
            snprintf(rank, sizeof rank, "%d", h[i].rank_position);
        rtab_mark m = {.rank = rank, .id_role = ROLE_normal};
        rtab_row(&l, c, &h[i], &m);
        shell_print(&l);
    }
    vrow_free(&l);
}

static void shell_table(shell *sh, const recall_result *r)
{
    vrow l;
    vrow_init(&l, SHELL_UNCUT);
    rtab_summary(&l, r);
    shell_wrapped(sh, "", &l);
    vrow_clear(&l);
    rtab_channels(&l, r);
    shell_wrapped(sh, "", &l);
    vrow_free(&l);
    rtab_cols c;
    int idw = rtab_id_width(rtab_id_width(2, r->hits, r->n_hits), r->misses, r->n_misses);
    rtab_layout(sh->width, 0, 1, idw, &c);
    if (r->abstained)
        shell_lines(sh, shell_abstention_rows, r, NULL, "");
    vrow_init(&l, sh->width);
    rtab_header(&l, &c, ROLE_header);
    if (!r->abstained || r->n_misses)
        shell_print(&l);
    vrow_free(&l);
    if (r->abstained) {
        shell_hits(sh, &c, r->misses, r->n_misses, 1);
        return;
    }
    shell_hits(sh, &c, r->hits, r->n_hits, 0);
    if (r->n_misses)
        cli_printf(stdout, "(%zu nearest misses cut by the floor: trace m1..m%zu)\n", r->n_misses,
                   r->n_misses);
}

/* ---- commands ------------------------------------------------------------------ */

static int shell_run(shell *sh, const char *query, const char *explain_id, recall_result **out)
{
    recall_opts o = sh->opts;
    o.query = query;
    o.explain_id = explain_id;
    ms_error err;
    ms_error_clear(&err);
    int bad = engine_recall(sh->e, &o, out, &err) != MS_OK;
    status_line_clear(&sh->line); /* what the snapshot's read said */
    if (bad)
        return shell_fail(sh, "%s", err.msg);
    return SHELL_OK;
}

static int shell_recall(shell *sh, const char *rest)
{
    if (!*rest)
        return shell_fail(sh, "recall needs a QUERY");
    recall_result *r;
    if (shell_run(sh, rest, NULL, &r))
        return SHELL_FAIL;
    recall_free(sh->last);
    sh->last = r;
    shell_table(sh, r);
    return SHELL_OK;
}

static int shell_explain_fmt(vrow *out, int max, const recall_result *r, const recall_hit *h)
{
    (void)h;
    return vfmt_explain(out, max, r);
}

static int shell_explain(shell *sh, const char *rest)
{
    size_t n = strcspn(rest, " \t");
    const char *query = rest + n + strspn(rest + n, " \t");
    if (n == 0 || !*query)
        return shell_fail(sh, "explain needs an ID and a QUERY");
    char id[STORE_ID_MAX + 1];
    snprintf(id, sizeof id, "%.*s", (int)n, rest);
    recall_result *r;
    if (shell_run(sh, query, id, &r))
        return SHELL_FAIL;
    shell_lines(sh, shell_explain_fmt, r, NULL, "  ");
    recall_free(r);
    return SHELL_OK;
}

static int shell_trace(shell *sh, int argc, const char **argv)
{
    if (argc != 2)
        return shell_fail(sh, "trace needs N, the number of a result of the last recall");
    if (!sh->last)
        return shell_fail(sh, "no recall yet: run recall QUERY first");
    int miss = argv[1][0] == 'm';
    long n;
    size_t count = miss ? sh->last->n_misses : sh->last->n_hits;
    if (cli_parse_int(argv[1] + miss, 1, 100000, &n) || (size_t)n > count)
        return shell_fail(sh, "trace takes %s1 to %s%zu", miss ? "m" : "", miss ? "m" : "", count);
    const recall_hit *h = miss ? &sh->last->misses[n - 1] : &sh->last->hits[n - 1];
    vrow l;
    vrow_init(&l, sh->width);
    vrow_add(&l, ROLE_normal, "trace of ");
    vrow_stored(&l, ROLE_normal, h->mem.id, strlen(h->mem.id));
    shell_print(&l);
    vrow_free(&l);
    shell_lines(sh, vfmt_trace, sh->last, h, "  ");
    return SHELL_OK;
}

static void shell_field(shell *sh, const char *name, const char *value)
{
    vrow l;
    vrow_init(&l, sh->width);
    vrow_addf(&l, ROLE_normal, "%-18s", name);
    vrow_stored(&l, ROLE_normal, value ? value : "-", value ? strlen(value) : 1);
    shell_print(&l);
    vrow_free(&l);
}

static int shell_show(shell *sh, int argc, const char **argv)
{
    if (argc != 2)
        return shell_fail(sh, "show needs one ID");
    store_memory m;
    ms_error err;
    if (store_get(sh->s, argv[1], 0, &m, &err))
        return shell_fail(sh, "%s", err.msg);
    cli_put_text(stdout, m.content);
    cli_put_own(stdout, "\n");
    const char *f[][2] = {
        {"id", m.id},           {"created_at", m.created_at}, {"event_time", m.event_time},
        {"speaker", m.speaker}, {"session", m.session},       {"source", m.source}};
    for (size_t k = 0; k < sizeof f / sizeof *f; k++)
        shell_field(sh, f[k][0], f[k][1]);
    cli_printf(stdout, "%-18s%.2f\n%-18salpha %g, beta %g: %.3f\n%-18s%s\n", "memory_confidence",
               m.memory_confidence, "trust", m.trust_alpha, m.trust_beta, store_trust_score(&m),
               "pinned", m.pinned ? "yes" : "no");
    for (size_t k = 0; k < m.n_entities; k++)
        shell_field(sh, k ? "" : "entities", m.entities[k]);
    store_memory_clear(&m);
    return SHELL_OK;
}

static int shell_weights(shell *sh, int argc, const char **argv)
{
    if (argc == 2 && strcmp(argv[1], "reset") == 0) {
        sh->opts.weights_set = 0;
    } else if (argc == 2) {
        double w[CH_COUNT];
        unsigned set = 0;
        if (engine_weight_list(argv[1], w, &set))
            return shell_fail(sh, "weights takes ch=w,... (channels semantic bm25 temporal "
                                  "hopfield spreading, weights 0 to 1000) or reset");
        for (int c = 0; c < CH_COUNT; c++)
            if (set & CH_MASK(c))
                sh->opts.weights[c] = w[c];
        sh->opts.weights_set |= set;
    } else if (argc != 1) {
        return shell_fail(sh, "weights takes one argument");
    }
    cli_printf(stdout, "weights:");
    for (int c = 0; c < CH_COUNT; c++)
        if (sh->opts.weights_set & CH_MASK(c))
            cli_printf(stdout, " %s=%.2f", engine_channel_name(c), sh->opts.weights[c]);
        else
            cli_printf(stdout, " %s=profile", engine_channel_name(c));
    cli_printf(stdout, "\n");
    return SHELL_OK;
}

static void shell_help(void)
{
#define SHELL_HELP(name, syntax, help) cli_printf(stdout, "  %-26s %s\n", syntax, help);
    SHELL_COMMANDS(SHELL_HELP)
#undef SHELL_HELP
}

/* Commands with arguments parsed by libedit's Tokenizer (quotes work). */
static int shell_tokens(shell *sh, const char *word, const char *line)
{
    Tokenizer *t = tok_init(NULL);
    int argc = 0, rc;
    const char **argv = NULL;
    if (!t || tok_str(t, line, &argc, &argv) != 0)
        rc = shell_fail(sh, "unbalanced quotes");
    else if (strcmp(word, "show") == 0)
        rc = shell_show(sh, argc, argv);
    else if (strcmp(word, "trace") == 0)
        rc = shell_trace(sh, argc, argv);
    else
        rc = shell_weights(sh, argc, argv);
    if (t)
        tok_end(t);
    return rc;
}

static int shell_line(shell *sh, const char *line)
{
    line += strspn(line, " \t");
    size_t n = strcspn(line, " \t");
    const char *rest = line + n + strspn(line + n, " \t");
    char word[16];
    if (n == 0 || line[0] == '#')
        return SHELL_OK;
    snprintf(word, sizeof word, "%.*s", (int)(n < 15 ? n : 15), line);
    if (!strcmp(word, "quit") || !strcmp(word, "exit"))
        return SHELL_QUIT;
    if (!strcmp(word, "help") || !strcmp(word, "?")) {
        shell_help();
        return SHELL_OK;
    }
    if (!strcmp(word, "recall"))
        return shell_recall(sh, rest);
    if (!strcmp(word, "explain"))
        return shell_explain(sh, rest);
    if (!strcmp(word, "show") || !strcmp(word, "trace") || !strcmp(word, "weights"))
        return shell_tokens(sh, word, line);
    return shell_fail(sh, "unknown command '%s' (help lists them)", word);
}

/* ---- line editing ------------------------------------------------------------------- */

static const char *const shell_names[] = {
#define SHELL_NAME(name, syntax, help) #name,
    SHELL_COMMANDS(SHELL_NAME)
#undef SHELL_NAME
};
#define SHELL_N_NAMES (sizeof shell_names / sizeof *shell_names)

/* Tab: complete the command word. */
static unsigned char shell_complete(EditLine *el, int ch)
{
    (void)ch;
    const LineInfo *li = el_line(el);
    size_t len = (size_t)(li->cursor - li->buffer);
    if (memchr(li->buffer, ' ', len))
        return CC_ERROR;
    const char *match = NULL;
    int matches = 0;
    for (size_t k = 0; k < SHELL_N_NAMES; k++)
        if (strncmp(shell_names[k], li->buffer, len) == 0) {
            match = shell_names[k];
            matches++;
        }
    if (matches == 1) {
        char add[32];
        snprintf(add, sizeof add, "%s ", match + len);
        return el_insertstr(el, add) == 0 ? CC_REFRESH : CC_ERROR;
    }
    if (matches == 0)
        return CC_ERROR;
    cli_printf(stdout, "\n");
    for (size_t k = 0; k < SHELL_N_NAMES; k++)
        if (strncmp(shell_names[k], li->buffer, len) == 0)
            cli_printf(stdout, "%s  ", shell_names[k]);
    cli_printf(stdout, "\n");
    return CC_REDISPLAY;
}

static char *shell_prompt(EditLine *el)
{
    (void)el;
    static char prompt[] = "memscope> ";
    return prompt;
}

static void shell_interactive(shell *sh)
{
    hist *h = hist_open("shell_history");
    EditLine *el = el_init("memscope", stdin, stdout, stderr);
    if (!el || !h) {
        hist_close(h);
        shell_fail(sh, "cannot start line editing");
        return;
    }
    el_set(el, EL_PROMPT, shell_prompt);
    el_set(el, EL_EDITOR, "emacs");
    el_set(el, EL_SIGNAL, 1);
    el_set(el, EL_HIST, history, hist_libedit(h));
    /* el_wset: the narrow el_set copies the name and help and never frees them */
    el_wset(el, EL_ADDFN, L"ms-complete", L"complete a command", shell_complete);
    el_set(el, EL_BIND, "^I", "ms-complete", NULL);
    cli_printf(stdout, "memscope shell on %s (help lists the commands, Ctrl-D leaves)\n",
               store_path(sh->s));
    const char *line;
    int count;
    while ((line = el_gets(el, &count)) != NULL && count > 0) {
        char buf[ENGINE_QUERY_MAX + 64];
        snprintf(buf, sizeof buf, "%s", line);
        buf[strcspn(buf, "\r\n")] = '\0';
        hist_add(h, buf);
        if (shell_line(sh, buf) == SHELL_QUIT)
            break;
        fflush(stdout);
    }
    el_end(el);
    hist_close(h);
}

static void shell_script(shell *sh)
{
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, stdin) > 0) {
        line[strcspn(line, "\r\n")] = '\0';
        if (shell_line(sh, line) == SHELL_QUIT)
            break;
        fflush(stdout);
    }
    free(line);
}

/* ---- the command ------------------------------------------------------------------- */

static const char shell_usage[] =
    "usage: memscope shell [--db PATH] [--profile NAME] [--limit N] [--weights ch=w,...]\n"
    "                      [--rrf-k K] [--disable ch,...] [--no-floor] [--as-of TIME]\n"
    "\n"
    "A line-mode shell over the engine. Commands:\n"
    "  recall QUERY               a compact result table\n"
    "  explain ID QUERY           why memory ID was or was not returned\n"
    "  show ID                    every stored field of one memory\n"
    "  weights [ch=w,...|reset]   channel weights for later recalls (sticky)\n"
    "  trace N                    the trace of result N of the last recall (mN: miss N)\n"
    "  help, quit\n"
    "On a terminal: line editing, tab completion of commands, and history kept in\n"
    "$XDG_STATE_HOME/memscope/shell_history. Otherwise commands are read from\n"
    "standard input, one a line, with no prompt; the exit status is 1 when any\n"
    "command failed.\n";

static int run_shell(cli_common *c, int argc, char **argv);
const cli_command cmd_shell = {"shell", "line-mode shell with history and completion (libedit)",
                               shell_usage, run_shell};

static int run_shell(cli_common *c, int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS, RECALL_OPTIONS, {0, 0, 0, 0}};
    shell sh = {0};
    recall_opts_init(&sh.opts);
    const char *embedder = NULL;
    int opt;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (cli_common_option(c, opt, &cmd_shell))
            continue;
        int k = cli_recall_option(&cmd_shell, opt, optarg, &sh.opts, &embedder);
        if (k < 0)
            return EXIT_USAGE;
        if (!k)
            return cli_bad_option(&cmd_shell, argv);
    }
    if (optind < argc)
        return cli_usage(&cmd_shell, "unexpected argument '%s'", argv[optind]);
    c->readonly = 1; /* the shell never writes */
    if (!(sh.s = cli_open(c, 0, NULL)))
        return EXIT_RUNTIME;
    ms_error err;
    ms_error_clear(&err);
    int status = EXIT_OK;
    /* a recall that reads the snapshot from the tables (seconds at a
       million memories) says how far on the terminal, as recall does */
    if (cli_open_engine(sh.s, embedder, cli_db_path(c), &sh.line, &sh.e, &err)) {
        status = cli_fail(&err);
    } else {
        sh.width = cli_width(stdout);
        if (isatty(STDIN_FILENO))
            shell_interactive(&sh);
        else
            shell_script(&sh);
        status = sh.failed && !isatty(STDIN_FILENO) ? EXIT_RUNTIME : EXIT_OK;
    }
    recall_free(sh.last);
    fflush(stdout);
    cli_close_engine(sh.e, sh.s, &sh.line, "recall");
    return status;
}
