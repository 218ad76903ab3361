/* cmd_feedback.c - `memscope feedback`: tell the engine what was (not)
 * relevant, list what it learned from, or forget it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/cli/cli.h"
#include "tui/cli/closing.h"
#include "engine/engine.h"
#include "tui/present/text.h"

static const char feedback_usage[] =
    "usage: memscope feedback [--db PATH] [--profile NAME] --query QUERY ID +|-\n"
    "       memscope feedback [--db PATH] [--profile NAME] --list\n"
    "       memscope feedback [--db PATH] [--profile NAME] --reset [--yes]\n"
    "\n"
    "Mark memory ID relevant (+) or not relevant (-) to QUERY. The engine learns\n"
    "bounded adjustments from these judgements (channel nudges for the query's type,\n"
    "boosts for memories judged on similar queries; docs/ENGINE.md) and shows them\n"
    "as the \"feedback\" adjustment of ranking_score. recall --no-adaptive ignores\n"
    "them. One judgement per memory and query: a new one replaces the earlier.\n"
    "--reset forgets every judgement of the profile after asking on the terminal;\n"
    "--yes confirms without asking (needed when standard input is not a terminal).\n";

enum { OPT_QUERY = OPT_FIRST_OWN, OPT_LIST, OPT_RESET, OPT_YES };

static int run_feedback(cli_common *c, int argc, char **argv);
const cli_command cmd_feedback = {"feedback", "mark a memory relevant or not to a query",
                                  feedback_usage, run_feedback};

static int list_feedback(store *s)
{
    store_feedback *fb = NULL;
    size_t n = 0;
    ms_error err;
    ms_error_clear(&err);
    if (store_feedback_all(s, &fb, &n, &err))
        return cli_fail(&err);
    for (size_t i = 0; i < n; i++) {
        store_memory m;
        ms_error e2;
        const char *id = store_get(s, NULL, fb[i].rid, &m, &e2) ? "?" : m.id;
        char *q = text_escape(fb[i].query, strlen(fb[i].query), 0);
        char *safe = text_escape(id, strlen(id), 0);
        cli_printf(stdout, "%c %s\t%s\t%s\n", fb[i].label > 0 ? '+' : '-', safe ? safe : "?",
                   fb[i].query_type ? fb[i].query_type : "-", q ? q : "?");
        free(q);
        free(safe);
        if (strcmp(id, "?") != 0)
            store_memory_clear(&m);
    }
    cli_printf(stdout, "%zu judgement%s\n", n, n == 1 ? "" : "s");
    store_feedback_free(fb, n);
    return EXIT_OK;
}

/* Judge id for query: recall it, so the channels that ranked it are known,
 * and record the judgement. When the answer does not hold id, recall again
 * explaining id: that follows every channel to its end (at 1M the command
 * took 0.03-0.10 s that way against 0.02 s without), which the usual case, a
 * memory the answer showed, does not need. Closes s, as a recall does
 * (closing.h: after a write at a million memories the snapshot file is
 * written by a child, not while the command waits). */
static int judge(cli_common *c, store *s, const char *query, const char *id, int label)
{
    ms_error err;
    ms_error_clear(&err);
    engine *e = NULL;
    recall_result *r = NULL;
    recall_opts ro;
    recall_opts_init(&ro);
    ro.query = query;
    status_line line;
    ms_status st = cli_open_engine(s, NULL, cli_db_path(c), &line, &e, &err);
    if (!st)
        st = engine_recall(e, &ro, &r, &err);
    if (!st && !recall_find(r, id)) {
        recall_free(r);
        r = NULL;
        ro.explain_id = id;
        st = engine_recall(e, &ro, &r, &err);
    }
    if (!st)
        st = engine_feedback(e, r, id, label, &err);
    status_line_clear(&line);
    if (!st) {
        char *safe = text_escape(id, strlen(id), 0);
        cli_printf(stdout, "recorded: %s is %s to this query\n", safe ? safe : "?",
                   label > 0 ? "relevant" : "not relevant");
        free(safe);
    }
    recall_free(r);
    int status = st ? cli_fail(&err) : cli_committed("the judgement");
    cli_close_engine(e, s, &line, "recall");
    return status;
}

/* Ask before forgetting n judgements: 0 when confirmed (--yes, or y on the
 * terminal), else the exit status, with the one-line reason printed. */
static int confirm_reset(store *s, size_t n, int yes)
{
    if (yes || n == 0)
        return 0;
    if (!isatty(STDIN_FILENO))
        return cli_error(EXIT_USAGE,
                         "feedback --reset would forget %zu judgement%s of profile %s; add --yes "
                         "to confirm (standard input is not a terminal)",
                         n, n == 1 ? "" : "s", store_profile(s));
    cli_printf(stderr, "memscope: forget all %zu judgement%s of profile %s? [y/N] ", n,
               n == 1 ? "" : "s", store_profile(s));
    fflush(stderr);
    char line[16] = "";
    if (!fgets(line, sizeof line, stdin) || (strcmp(line, "y\n") != 0 && strcmp(line, "yes\n")))
        return cli_error(EXIT_RUNTIME, "not confirmed: nothing was forgotten");
    return 0;
}

/* Closes s, as judge does. */
static int reset_feedback(cli_common *c, store *s, int yes)
{
    ms_error err;
    ms_error_clear(&err);
    store_feedback *fb = NULL;
    size_t n = 0;
    int status = store_feedback_all(s, &fb, &n, &err) ? cli_fail(&err) : EXIT_OK;
    store_feedback_free(fb, n);
    if (!status)
        status = confirm_reset(s, n, yes);
    if (status) {
        store_close(s);
        return status;
    }
    engine *e = NULL;
    status_line line;
    ms_status st = cli_open_engine(s, NULL, cli_db_path(c), &line, &e, &err);
    if (!st)
        st = engine_feedback_reset(e, &err);
    status_line_clear(&line);
    if (st) {
        status = cli_fail(&err);
    } else {
        cli_printf(stdout, "forgot every judgement of profile %s (%zu)\n", store_profile(s), n);
        status = cli_committed("the reset");
    }
    cli_close_engine(e, s, &line, "recall");
    return status;
}

static int run_feedback(cli_common *c, int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS,
                                         {"query", required_argument, NULL, OPT_QUERY},
                                         {"list", no_argument, NULL, OPT_LIST},
                                         {"reset", no_argument, NULL, OPT_RESET},
                                         {"yes", no_argument, NULL, OPT_YES},
                                         {0, 0, 0, 0}};
    const char *query = NULL;
    int list = 0, reset = 0, yes = 0, opt;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (cli_common_option(c, opt, &cmd_feedback))
            continue;
        if (opt == OPT_QUERY)
            query = optarg;
        else if (opt == OPT_LIST)
            list = 1;
        else if (opt == OPT_RESET)
            reset = 1;
        else if (opt == OPT_YES)
            yes = 1;
        else
            return cli_bad_option(&cmd_feedback, argv);
    }
    int judging = !list && !reset;
    if (list + reset > 1 || (judging && (optind != argc - 2 || !query)) ||
        (!judging && optind != argc))
        return cli_usage(&cmd_feedback, "give --query QUERY ID +|-, or --list, or --reset");
    if (yes && !reset)
        return cli_usage(&cmd_feedback, "--yes confirms --reset; it means nothing alone");
    int label = 0;
    if (judging) {
        const char *l = argv[optind + 1];
        label = strcmp(l, "+") == 0 ? 1 : strcmp(l, "-") == 0 ? -1 : 0;
        if (!label)
            return cli_usage(&cmd_feedback, "the judgement is + or -, not '%s'", l);
    }
    store *s = cli_open(c, 0, NULL);
    if (!s)
        return EXIT_RUNTIME;
    if (reset && !store_is_readonly(s))
        return reset_feedback(c, s, yes); /* each closes s */
    if (judging && !store_is_readonly(s))
        return judge(c, s, query, argv[optind], label);
    int status =
        list ? list_feedback(s)
             : cli_error(EXIT_RUNTIME, "cannot record feedback: store %s is opened read-only",
                         store_path(s));
    store_close(s);
    return status;
}
