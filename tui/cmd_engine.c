/* cmd_engine.c - the commands that ask the engine: recall and health. */
#include <stdlib.h>
#include <string.h>

#include "cli_recall.h"

/* ---- options shared with eval and the shell --------------------------- */

enum { OPT_JSON = OPT_RECALL_END, OPT_TRACE, OPT_EXPLAIN, OPT_AUDIT };

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
    "usage: memscope recall [--db PATH] [--profile NAME] [--json] [--trace] [--limit N]\n"
    "                       [--weights ch=w,...] [--rrf-k K] [--disable ch,...]\n"
    "                       [--require-channels ch,...|all] [--no-floor] [--floor X]\n"
    "                       [--as-of TIME] [--top-n N] [--explain ID] [--audit]\n"
    "                       [--embedder hash|cmd:PROGRAM] [--reranker cmd:PROGRAM]\n"
    "                       [--no-rerank] [--no-adaptive] QUERY...\n"
    "\n"
    "Recall memories for QUERY. Channels: semantic, bm25, temporal, hopfield,\n"
    "spreading. --json prints the Retrieval Score Contract v2 response; --trace adds\n"
    "each result's per-channel ranks, contributions w/(k+rank), fused sum, entity\n"
    "enhancement and adjustments. --explain ID says where that memory was cut.\n"
    "--audit recomputes every score from its trace and fails (exit 1) on a mismatch.\n"
    "--require-channels fails (exit 1) before answering when a named channel is\n"
    "inactive. --as-of sets \"now\" for relative dates. --reranker rescores the\n"
    "candidate pool with an external program (an adjustment of ranking_score);\n"
    "--no-adaptive ignores what `memscope feedback` taught. Recall never writes.\n";

static int run_recall(cli_common *c, int argc, char **argv);
const cli_command cmd_recall = {"recall", "recall memories for a query (Score Contract v2)",
                                recall_usage, run_recall};

static void bar(double v, int width)
{
    int n = (int)(v * width + 0.5);
    for (int i = 0; i < width; i++)
        fputs(i < n ? "#" : ".", stdout);
}

static void print_channels(const recall_result *r)
{
    printf("channels:");
    for (int ch = 0; ch < CH_COUNT; ch++) {
        const channel_status *cs = &r->ch[ch];
        if (cs->active)
            printf("  %s %d (%.1f ms)%s", engine_channel_name(ch), cs->candidates, cs->ms,
                   cs->candidates ? "" : " EMPTY");
        else
            printf("  %s OFF (%s)", engine_channel_name(ch), cs->reason);
    }
    putchar('\n');
}

/* printf(fmt) of stored or user text, one line and terminal-safe, escapes
 * marked on a terminal. */
static void put_safe(const char *fmt, const char *text)
{
    char *safe = cli_safe(text, -1, cli_mark(1), NULL);
    printf(fmt, safe ? safe : "?");
    free(safe);
}

/* Text cut to cols columns and padded to them. */
static void put_column(const char *text, int cols)
{
    int w = 0;
    char *safe = cli_safe(text, cols, cli_mark(1), &w);
    fputs(safe ? safe : "?", stdout);
    printf("%*s", cols > w ? cols - w : 0, "");
    free(safe);
}

static void print_trace(const recall_result *r, const recall_hit *h)
{
    for (int ch = 0; ch < CH_COUNT; ch++) {
        const trace_channel *tc = &h->ch[ch];
        if (!tc->ranked)
            printf("      %-9s  -\n", engine_channel_name(ch));
        else
            printf("      %-9s  rank %-3d raw %-10.4g w %-5.2f  %.2f/(%.0f+%d) = %.6f\n",
                   engine_channel_name(ch), tc->rank, tc->raw, tc->weight, tc->weight, r->rrf_k,
                   tc->rank, tc->contribution);
    }
    printf("      fused %.6f  x entity %.4f%s%s = %.6f", h->fused, h->eg_factor,
           h->eg_spoken ? " (speaker named)" : "", h->eg_mentions ? " (entity named)" : "",
           h->boosted);
    for (int a = 0; a < h->n_adj; a++)
        printf("  x %s %.4f", h->adj[a].name, h->adj[a].factor);
    printf("  = ranking %.6f\n", h->ranking_score);
    printf("      relevance %.6f / %.6f = %.4f   floor: %s%s", h->boosted, h->max_fused,
           h->relevance_score, h->passed_by ? h->passed_by : "cut",
           h->associated[0] ? " via " : "");
    put_safe("%s", h->associated); /* an id: stored text */
    printf(" (%s)\n", h->floor_why);
}

static void print_row(const recall_hit *h, int rank)
{
    char date[11] = "-";
    if (h->mem.created_at)
        snprintf(date, sizeof date, "%.10s", h->mem.created_at);
    printf("%3d  %.3f ", rank, h->relevance_score);
    bar(h->relevance_score, 5);
    printf("  %.2f  %.2f   %-10.4g %s  ", store_trust_score(&h->mem), h->mem.memory_confidence,
           h->ranking_score, date);
    put_column(h->mem.speaker ? h->mem.speaker : "-", 10);
    char *snip = cli_safe(h->mem.content, 60, cli_mark(1), NULL);
    printf(" %s\n", snip ? snip : "?");
    free(snip);
}

/* What found no support, and the floor's numbers (stored text: the query's
 * own words, filtered). */
static void print_no_support(const recall_result *r)
{
    put_safe("  %s", r->floor_no_support);
    if (r->floor_unheld[0])
        put_safe("; no candidate holds: %s", r->floor_unheld);
    printf("\n  floor: %s.\n  best predicate coverage %.3f (threshold %.2f); best remainder "
           "cosine %.3f (threshold %.2f)\n",
           r->floor_rule, r->floor_best_coverage, r->floor_lexical, r->floor_best_value,
           r->floor_threshold);
}

static void print_table(const recall_result *r, int trace)
{
    put_safe("query: %s", r->query);
    printf("   type: %s   k: %g   candidates: %zu   %.1f ms\n", r->query_type, r->rrf_k,
           r->candidates, r->timing_ms);
    print_channels(r);
    if (r->abstained) {
        printf("ABSTAINED: %s\n", r->abstention_reason);
        if (strcmp(r->abstention_reason, "no_candidates") == 0)
            put_safe("  %s\n", r->no_candidates_why); /* names the profile */
        else
            print_no_support(r);
        for (size_t i = 0; i < r->n_misses; i++) {
            printf("  miss ");
            print_row(&r->misses[i], (int)i + 1);
            if (trace)
                print_trace(r, &r->misses[i]);
        }
        return;
    }
    printf("  #  Relevance    Trust Mem.Conf Ranking    Date        Speaker    Content\n");
    for (size_t i = 0; i < r->n_hits; i++) {
        print_row(&r->hits[i], r->hits[i].rank_position);
        if (trace)
            print_trace(r, &r->hits[i]);
    }
    printf("Relevance is query-relative; Trust and Mem.Conf belong to the memory; none is "
           "an answer probability.\n");
    if (strcmp(r->rerank_status, "failed") == 0)
        put_safe("reranker failed, ranking kept as fused: %s\n", r->rerank_error);
    else if (strcmp(r->rerank_status, "applied") == 0)
        printf("reranked by an external program (the \"rerank\" adjustment)\n");
    if (r->feedback_judgements)
        printf("feedback: %zu judgement(s) adjust the ranking (--no-adaptive to ignore)\n",
               r->feedback_judgements);
}

static void print_explain(const recall_result *r)
{
    const recall_explain *ex = r->explain;
    put_safe("explain %s", ex->id);
    printf(": %s\n", ex->verdict);
    if (!ex->found)
        return;
    for (int ch = 0; ch < CH_COUNT; ch++) {
        if (!r->ch[ch].active)
            printf("  %-9s inactive (%s)\n", engine_channel_name(ch), r->ch[ch].reason);
        else if (!ex->ch[ch].ranked)
            printf("  %-9s not a candidate\n", engine_channel_name(ch));
        else
            printf("  %-9s rank %d%s, raw %.4g, contribution %.6f\n", engine_channel_name(ch),
                   ex->ch[ch].rank, ex->in_top_n[ch] ? "" : " (below top N)", ex->ch[ch].raw,
                   ex->ch[ch].contribution);
    }
    printf("  fused %.6f (position %d among candidates), ranking %.6f, relevance %.4f, "
           "coverage %.3f, cosine %.3f\n",
           ex->fused, ex->fused_rank, ex->ranking_score, ex->relevance_score, ex->coverage,
           ex->cosine);
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
        {0, 0, 0, 0},
    };
    recall_opts ro;
    recall_opts_init(&ro);
    const char *embedder = NULL;
    int json = 0, trace = 0, audit = 0, opt;
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
    ms_status st = engine_open(s, embedder, &e, &err);
    if (!st)
        st = engine_recall(e, &ro, &r, &err);
    int status = EXIT_OK;
    if (st) {
        status = cli_fail(&err);
    } else {
        if (json) {
            char *text = recall_json(r, trace);
            cli_print_json(stdout, text ? text : "{}");
            putchar('\n');
            free(text);
        } else {
            print_table(r, trace);
            if (r->explain)
                print_explain(r);
        }
        if (audit) {
            char report[4096];
            int bad = recall_audit(r, report, sizeof report);
            if (bad) {
                fputs(report, stderr);
                status = cli_error(EXIT_RUNTIME,
                                   "audit: %d score(s) do not follow from their "
                                   "trace",
                                   bad);
            } else if (!json) {
                printf("audit: every score recomputed from its trace\n");
            }
        }
    }
    recall_free(r);
    engine_close(e);
    store_close(s);
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
    ms_status st = engine_open(s, embedder, &e, &err);
    if (!st)
        st = engine_health_get(e, &h, &err);
    int status = EXIT_OK;
    if (st) {
        status = cli_fail(&err);
    } else if (json) {
        char *text = engine_health_json(&h);
        cli_print_json(stdout, text ? text : "{}");
        putchar('\n');
        free(text);
    } else {
        put_safe("store      %s", store_path(s));
        put_safe(" (profile %s)\n", store_profile(s));
        printf("memories   %lld, entities %lld, links %lld, edges %lld, vectors %lld, pinned "
               "%lld\n",
               (long long)h.counts.memories, (long long)h.counts.entities,
               (long long)h.counts.links, (long long)h.counts.edges, (long long)h.counts.vectors,
               (long long)h.counts.pinned);
        put_safe("embedder   %s", h.embedder_id ? h.embedder_id : "none");
        printf(" (%d dimensions); ", h.embedder_dim);
        /* the stored one comes from the file: hostile */
        put_safe("stored vectors from %s", h.store_embedder_id ? h.store_embedder_id : "none");
        printf("; %lld missing\n", (long long)h.vectors_missing);
        for (int ch = 0; ch < CH_COUNT; ch++)
            printf("%-10s %s%s%s\n", engine_channel_name(ch),
                   h.ch[ch].active ? "active" : "inactive", h.ch[ch].active ? "" : ": ",
                   h.ch[ch].active ? "" : h.ch[ch].reason);
    }
    engine_close(e);
    store_close(s);
    return status;
}
