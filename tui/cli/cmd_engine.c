/* cmd_engine.c - the commands that ask the engine: recall and health. */
#include <stdlib.h>
#include <string.h>

#include "tui/cli/cli_recall.h"
#include "tui/cli/closing.h"
#include "tui/cli/status_line.h"
#include "tui/present/calreport.h"
#include "tui/present/rtable.h"
#include "tui/present/theme.h"
#include "tui/present/view_fmt.h"

/* ---- options shared with eval and the shell --------------------------- */

enum { OPT_JSON = OPT_RECALL_END, OPT_TRACE, OPT_EXPLAIN, OPT_AUDIT, OPT_WIDE };

int cli_recall_option(const cli_command *cmd, int opt, const char *arg, recall_opts *ro,
                      const char **embedder)
{
    long n;
    double v;
    switch (opt) {
    case OPT_LIMIT:
        if (cli_parse_int(arg, 1, ENGINE_LIMIT_MAX, &n))
            return cli_usage(cmd, "--limit takes 1 to %d", ENGINE_LIMIT_MAX), -1;
        ro->limit = (int)n;
        return 1;
    case OPT_TOP_N:
        if (cli_parse_int(arg, 1, ENGINE_TOPN_MAX, &n))
            return cli_usage(cmd, "--top-n takes 1 to %d", ENGINE_TOPN_MAX), -1;
        ro->top_n = (int)n;
        return 1;
    case OPT_WEIGHTS:
        if (engine_weight_list(arg, ro->weights, &ro->weights_set))
            return cli_usage(cmd, "--weights takes channel=weight,... with channels "
                                  "semantic, bm25, temporal, hopfield, spreading and "
                                  "weights from 0 to 1000"),
                   -1;
        return 1;
    case OPT_RRF_K:
        if (cli_parse_double(arg, 0, 10000, &v))
            return cli_usage(cmd, "--rrf-k takes a number from 0 to 10000"), -1;
        ro->rrf_k = v;
        return 1;
    case OPT_DISABLE:
        if (engine_channel_list(arg, &ro->disabled))
            return cli_usage(cmd, "--disable takes a comma list of channels"), -1;
        return 1;
    case OPT_REQUIRE:
        if (engine_channel_list(arg, &ro->require))
            return cli_usage(cmd, "--require-channels takes a comma list of channels or "
                                  "all"),
                   -1;
        return 1;
    case OPT_NO_FLOOR:
        ro->no_floor = 1;
        return 1;
    case OPT_FLOOR:
        if (cli_parse_double(arg, 0, 1, &v))
            return cli_usage(cmd, "--floor takes a cosine threshold from 0 to 1"), -1;
        ro->floor_threshold = v;
        return 1;
    case OPT_FLOOR_LEXICAL:
        if (cli_parse_double(arg, 0, 1, &v))
            return cli_usage(cmd, "--floor-lexical takes a predicate coverage from 0 to 1"), -1;
        ro->floor_lexical = v;
        return 1;
    case OPT_SYNONYMS:
        if (cli_parse_double(arg, 0, 10, &v))
            return cli_usage(cmd, "--synonyms takes a weight from 0 to 10"), -1;
        ro->synonyms = v;
        return 1;
    case OPT_FIRST_STAGE:
        if (engine_first_stage_parse(arg, &ro->first_stage))
            return cli_usage(cmd, "--first-stage takes prf=K:T:W, sessions=W, aspects=W, "
                                  "seeds=N:S, kinds=W[:P], hops=W[:P], lists and sets, "
                                  "comma-separated, or none (docs/QUALITY.md)"),
                   -1;
        return 1;
    case OPT_AS_OF:
        if (store_parse_time(arg, &ro->as_of))
            return cli_usage(cmd, "--as-of takes an ISO 8601 time"), -1;
        return 1;
    case OPT_EMBEDDER:
        *embedder = arg;
        return 1;
    case OPT_RERANKER:
        if (strncmp(arg, "cmd:", 4) != 0 || !arg[4])
            return cli_usage(cmd, "--reranker takes cmd:PROGRAM"), -1;
        ro->reranker = arg;
        return 1;
    case OPT_NO_RERANK:
        ro->no_rerank = 1;
        return 1;
    case OPT_NO_ADAPTIVE:
        ro->no_adaptive = 1;
        return 1;
    default:
        return 0;
    }
}

/* ---- recall ------------------------------------------------------------ */

static const char recall_usage[] =
    "usage: memscope recall [--db PATH] [--profile NAME] [--json] [--trace] [--wide] [--limit N]\n"
    "                       [--weights ch=w,...] [--rrf-k K] [--disable ch,...]\n"
    "                       [--require-channels ch,...|all] [--no-floor] [--floor X]\n"
    "                       [--as-of TIME] [--top-n N] [--explain ID] [--audit]\n"
    "                       [--embedder hash|cmd:PROGRAM] [--reranker cmd:PROGRAM]\n"
    "                       [--no-rerank] [--no-adaptive] [--synonyms W]\n"
    "                       [--first-stage SPEC] QUERY...\n"
    "\n"
    "Recall memories for QUERY. Channels: semantic, bm25, temporal, hopfield,\n"
    "spreading. --json prints the Retrieval Score Contract v2 response; --trace adds\n"
    "each result's per-channel ranks, contributions w/(k+rank), fused sum, entity\n"
    "enhancement and adjustments. The text table is the browser's and the shell's,\n"
    "at the terminal's width (120 in a pipe); --wide prints whole contents.\n"
    "--explain ID says where that memory was cut.\n"
    "--audit recomputes every score from its trace and fails (exit 1) on a mismatch.\n"
    "--require-channels fails (exit 1) before answering when a named channel is\n"
    "inactive. --as-of sets \"now\" for relative dates. --reranker rescores the\n"
    "candidate pool with an external program (an adjustment of ranking_score);\n"
    "--no-adaptive ignores what `memscope feedback` taught. --synonyms W adds the\n"
    "WordNet synonyms of the question's words to its vector at weight W (off by\n"
    "default; needs wordnet-base). --first-stage SPEC sets the first stage: lists\n"
    "added to bm25's (prf=K:T:W pseudo-relevance feedback, sessions=W, aspects=W,\n"
    "kinds=W, hops=W) and spreading's seeds (seeds=N:S); lists or sets keeps them\n"
    "to multi-hop questions or to those asking for a set. The default is\n"
    "seeds=30:1,sets; none turns it all off (docs/QUALITY.md). Recall never writes.\n";

static int run_recall(cli_common *c, int argc, char **argv);
const cli_command cmd_recall = {"recall", "recall memories for a query (Score Contract v2)",
                                recall_usage, run_recall};

/* The limit of a row that is never cut: a trace row, or a table row under
 * --wide. */
enum { RECALL_UNCUT = 1 << 20 };

/* fmt with text for its %s: stored or user text, one line and terminal-safe (in a
 * pipe too), escapes marked on a terminal; fmt has one %s. */
static void put_safe(const char *fmt, const char *text)
{
    const char *at = strstr(fmt, "%s");
    char head[128];
    snprintf(head, sizeof head, "%.*s", (int)(at - fmt), fmt);
    cli_put_own(stdout, head);
    cli_put_safe(stdout, text);
    cli_put_own(stdout, at + 2);
}

/* Rows from the present layer (a trace, a why-not, an abstention), never
 * cut, each after indent. */
typedef int (*recall_rows_fn)(vrow *out, int max, const recall_result *r, const recall_hit *h);

static void print_rows(recall_rows_fn fmt, const recall_result *r, const recall_hit *h,
                       const char *indent)
{
    enum { MAX_ROWS = 48 };
    vrow rows[MAX_ROWS];
    for (int k = 0; k < MAX_ROWS; k++)
        vrow_init(&rows[k], RECALL_UNCUT);
    int n = fmt(rows, MAX_ROWS, r, h);
    for (int k = 0; k < n; k++) {
        cli_put_own(stdout, indent);
        cli_put_row(stdout, &rows[k]);
    }
    for (int k = 0; k < MAX_ROWS; k++)
        vrow_free(&rows[k]);
}

static int explain_rows(vrow *out, int max, const recall_result *r, const recall_hit *h)
{
    (void)h;
    return vfmt_explain(out, max, r);
}

static int first_stage_rows(vrow *out, int max, const recall_result *r, const recall_hit *h)
{
    (void)h;
    return vfmt_first_stage(out, max, r);
}

static int abstention_rows(vrow *out, int max, const recall_result *r, const recall_hit *h)
{
    (void)h;
    return rtab_abstention(out, max, r);
}

/* How the table is printed: its columns, each row's limit, traces. */
typedef struct recall_page {
    rtab_cols c;
    int row_max; /* the width, or RECALL_UNCUT under --wide */
    int trace;
} recall_page;

/* One line of our own text (with stored parts escaped) from a vrow. */
static void print_line(void (*fmt)(vrow *, const recall_result *), const recall_result *r)
{
    vrow l;
    vrow_init(&l, RECALL_UNCUT);
    fmt(&l, r);
    cli_put_row(stdout, &l);
    vrow_free(&l);
}

/* The rows of hits h[0..n): rank_position, or m1.. for nearest misses. */
static void print_hits(const recall_page *p, const recall_result *r, const recall_hit *h, size_t n,
                       int miss)
{
    for (size_t i = 0; i < n; i++) {
        char rank[24];
        if (miss)
            snprintf(rank, sizeof rank, "m%zu", i + 1);
        else
            snprintf(rank, sizeof rank, "%d", h[i].rank_position);
        rtab_mark m = {.rank = rank, .id_role = ROLE_normal};
        vrow l;
        vrow_init(&l, p->row_max);
        rtab_row(&l, &p->c, &h[i], &m);
        cli_put_row(stdout, &l);
        vrow_free(&l);
        if (p->trace) /* what the first stage added is said once, above the table */
            print_rows(vfmt_trace_hit, r, &h[i], "      ");
    }
}

static void print_header(const recall_page *p)
{
    vrow l;
    vrow_init(&l, p->row_max);
    rtab_header(&l, &p->c, ROLE_header);
    cli_put_row(stdout, &l);
    vrow_free(&l);
}

static void print_footer(const recall_result *r)
{
    cli_printf(stdout, "%s\n", rtab_legend);
    if (strcmp(r->rerank_status, "failed") == 0)
        put_safe("reranker failed, ranking kept as fused: %s\n", r->rerank_error);
    else if (strcmp(r->rerank_status, "applied") == 0)
        cli_printf(stdout, "reranked by an external program (the \"rerank\" adjustment)\n");
    if (r->feedback_judgements)
        cli_printf(stdout,
                   "feedback: %zu judgement(s) adjust the ranking (--no-adaptive to ignore)\n",
                   r->feedback_judgements);
}

/* The table of rtable.h at width columns (every byte of the content under
 * wide), the traces under trace. */
static void print_table(const recall_result *r, int trace, int width, int wide)
{
    recall_page p = {.row_max = wide ? RECALL_UNCUT : width, .trace = trace};
    int idw = rtab_id_width(rtab_id_width(2, r->hits, r->n_hits), r->misses, r->n_misses);
    rtab_layout(width, 0, 1, idw, &p.c);
    print_line(rtab_summary, r);
    print_line(rtab_channels, r);
    if (trace)
        print_rows(first_stage_rows, r, NULL, "");
    if (r->abstained) {
        print_rows(abstention_rows, r, NULL, "");
        if (r->n_misses) {
            cli_printf(stdout, "nearest misses, cut by the evidence floor:\n");
            print_header(&p);
            print_hits(&p, r, r->misses, r->n_misses, 1);
        }
        return;
    }
    print_header(&p);
    print_hits(&p, r, r->hits, r->n_hits, 0);
    print_footer(r);
}

static int run_recall(cli_common *c, int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_COMMON_OPTIONS,
        RECALL_OPTIONS,
        {"json", no_argument, NULL, OPT_JSON},
        {"trace", no_argument, NULL, OPT_TRACE},
        {"explain", required_argument, NULL, OPT_EXPLAIN},
        {"audit", no_argument, NULL, OPT_AUDIT},
        {"wide", no_argument, NULL, OPT_WIDE},
        {0, 0, 0, 0},
    };
    recall_opts ro;
    recall_opts_init(&ro);
    const char *embedder = NULL;
    int json = 0, trace = 0, audit = 0, wide = 0, opt;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (cli_common_option(c, opt, &cmd_recall))
            continue;
        int k = cli_recall_option(&cmd_recall, opt, optarg, &ro, &embedder);
        if (k < 0)
            return EXIT_USAGE;
        if (k)
            continue;
        if (opt == OPT_JSON)
            json = 1;
        else if (opt == OPT_TRACE)
            trace = 1;
        else if (opt == OPT_EXPLAIN)
            ro.explain_id = optarg;
        else if (opt == OPT_AUDIT)
            audit = 1;
        else if (opt == OPT_WIDE)
            wide = 1;
        else
            return cli_bad_option(&cmd_recall, argv);
    }
    if (optind >= argc)
        return cli_usage(&cmd_recall, "give a QUERY");
    char *query = cli_join(argc, argv, optind);
    if (!query)
        return cli_error(EXIT_RUNTIME, "out of memory");
    ro.query = query;
    c->readonly = 1; /* recall never writes */
    store *s = cli_open(c, 0, NULL);
    if (!s) {
        free(query);
        return EXIT_RUNTIME;
    }
    ms_error err;
    ms_error_clear(&err);
    engine *e = NULL;
    recall_result *r = NULL;
    /* seconds at a million memories when the snapshot is read from the
       tables, or its file written at the end: a line on the terminal says
       so (tui/cli/status_line.h) */
    status_line line;
    ms_status st = cli_open_engine(s, embedder, cli_db_path(c), &line, &e, &err);
    if (!st)
        st = engine_recall(e, &ro, &r, &err);
    status_line_clear(&line);
    if (e && engine_snapshot_note(e))
        cli_printf(stderr, "memscope: %s\n", engine_snapshot_note(e));
    int status = EXIT_OK;
    if (st) {
        status = cli_fail(&err);
    } else {
        if (json) {
            char *text = recall_json(r, trace);
            cli_print_json(stdout, text ? text : "{}");
            cli_printf(stdout, "\n");
            free(text);
        } else {
            print_table(r, trace, cli_width(stdout), wide);
            if (r->explain)
                print_rows(explain_rows, r, NULL, "");
        }
        if (audit) {
            char report[4096];
            int bad = recall_audit(r, report, sizeof report);
            if (bad) {
                cli_put_text(stderr, report);
                status = cli_error(EXIT_RUNTIME,
                                   "audit: %d score(s) do not follow from their "
                                   "trace",
                                   bad);
            } else if (!json) {
                cli_printf(stdout, "audit: every score recomputed from its trace\n");
            }
        }
    }
    recall_free(r);
    fflush(stdout); /* the answer before the line below */
    cli_close_engine(e, s, &line, "recall");
    free(query);
    return status;
}

/* ---- health ------------------------------------------------------------ */

static const char health_usage[] =
    "usage: memscope health [--db PATH] [--profile NAME] [--json] [--embedder SPEC]\n"
    "\n"
    "Say which channels can run on this store and why not, which embedder made the\n"
    "stored vectors, and how many memories, entities, edges and vectors there are.\n";

static int run_health(cli_common *c, int argc, char **argv);

/* The calibration report beside the store, checked against its content
 * and the default configuration now (calreport.h). */
static ms_status health_calibration(engine *e, store *s, calreport_status *cal, ms_error *err)
{
    recall_opts ro;
    recall_opts_init(&ro);
    char *config = engine_config_text(e, &ro);
    if (!config)
        return ms_fail(err, MS_NOMEM, "out of memory");
    int rc = calreport_check(s, store_path(s), config, cal, err);
    free(config);
    return rc ? err->code : MS_OK;
}

static void health_print_json(const engine_health *h, const calreport_status *cal)
{
    char *text = engine_health_json(h);
    cJSON *o = text ? cJSON_Parse(text) : NULL;
    free(text);
    if (o)
        cJSON_AddItemToObject(o, "calibration", calreport_status_json(cal));
    text = o ? cJSON_PrintUnformatted(o) : NULL;
    cli_print_json(stdout, text ? text : "{}");
    cli_printf(stdout, "\n");
    free(text);
    cJSON_Delete(o);
}

static void health_print_calibration(const calreport_status *cal)
{
    char line[512];
    if (!cal->exists) {
        put_safe("calibration no report (memscope calibrate saves one as %s)\n", cal->path);
    } else if (!cal->valid) {
        put_safe("calibration %s", cal->path);
        put_safe(": %s\n", cal->why);
    } else {
        calreport_summary(cal->report, line, sizeof line);
        put_safe("calibration %s", cal->path);
        cli_printf(stdout, ": %s\n",
                   cal->stale ? "STALE" : "current for this store and configuration");
        if (cal->stale)
            put_safe("            stale because %s\n", cal->why);
        cli_printf(stdout, "            %s\n", line);
    }
    cli_printf(stdout, "            runtime: uncalibrated (answer_confidence stays null)\n");
}
const cli_command cmd_health = {"health", "channel status, embedder and store counts", health_usage,
                                run_health};

static int run_health(cli_common *c, int argc, char **argv)
{
    static const struct option opts[] = {CLI_COMMON_OPTIONS,
                                         {"json", no_argument, NULL, OPT_JSON},
                                         {"embedder", required_argument, NULL, OPT_EMBEDDER},
                                         {0, 0, 0, 0}};
    int json = 0, opt;
    const char *embedder = NULL;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (cli_common_option(c, opt, &cmd_health))
            continue;
        if (opt == OPT_JSON)
            json = 1;
        else if (opt == OPT_EMBEDDER)
            embedder = optarg;
        else
            return cli_bad_option(&cmd_health, argv);
    }
    if (optind < argc)
        return cli_usage(&cmd_health, "unexpected argument '%s'", argv[optind]);
    c->readonly = 1;
    store *s = cli_open(c, 0, NULL);
    if (!s)
        return EXIT_RUNTIME;
    ms_error err;
    ms_error_clear(&err);
    engine *e = NULL;
    engine_health h;
    /* after a write at a million memories: seconds to read the snapshot
       from the tables, which the line says, and as long again to write its
       file, which a child does (closing.h) */
    status_line line;
    ms_status st = cli_open_engine(s, embedder, cli_db_path(c), &line, &e, &err);
    if (!st)
        st = engine_health_get(e, &h, &err);
    calreport_status cal = {0};
    if (!st)
        st = health_calibration(e, s, &cal, &err);
    status_line_clear(&line);
    int status = EXIT_OK;
    if (st) {
        status = cli_fail(&err);
    } else if (json) {
        health_print_json(&h, &cal);
    } else {
        put_safe("store      %s", store_path(s));
        put_safe(" (profile %s)\n", store_profile(s));
        cli_printf(stdout,
                   "memories   %lld, entities %lld, links %lld, edges %lld, vectors %lld, pinned "
                   "%lld\n",
                   (long long)h.counts.memories, (long long)h.counts.entities,
                   (long long)h.counts.links, (long long)h.counts.edges,
                   (long long)h.counts.vectors, (long long)h.counts.pinned);
        put_safe("embedder   %s", h.embedder_id ? h.embedder_id : "none");
        cli_printf(stdout, " (%d dimensions); ", h.embedder_dim);
        /* the stored one comes from the file: hostile */
        put_safe("stored vectors from %s", h.store_embedder_id ? h.store_embedder_id : "none");
        cli_printf(stdout, "; %lld missing\n", (long long)h.vectors_missing);
        for (int ch = 0; ch < CH_COUNT; ch++) {
            cli_printf(stdout, "%-10s %s%s%s", engine_channel_name(ch),
                       h.ch[ch].active ? "active" : "inactive", h.ch[ch].active ? "" : ": ",
                       h.ch[ch].active ? "" : h.ch[ch].reason);
            if (!h.ch[ch].active && h.ch[ch].note) /* names the stored model: hostile */
                cli_printf(stdout, " (%s)", h.ch[ch].note);
            cli_printf(stdout, "\n");
        }
        health_print_calibration(&cal);
    }
    calreport_status_free(&cal);
    fflush(stdout); /* the report before the line cli_close_engine may leave */
    cli_close_engine(e, s, &line, "recall");
    return status;
}
