/* cmd_eval.c - `memscope eval`: Recall@k, MRR and abstention over query
 * files, with the floor's risk-coverage sweep.
 *
 * Each --queries FILE is run against the --db and --profile given before it
 * (so several stores can be scored in one run). Categories 1-4 with
 * non-empty evidence are scored: Recall@k is the fraction of evidence ids in
 * the top k, MRR is 1/rank of the first evidence id (0 if none). A scored
 * query that abstained is a false abstention: it has evidence. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli_recall.h"

#define K_MAX 8
#define CATS 5 /* categories 1..4 scored; index 0 = overall */
#define SWEEP_STEPS 11

enum { OPT_JSON = OPT_RECALL_END, OPT_QUERIES, OPT_K, OPT_OFFTOPIC, OPT_SWEEP, OPT_LEARN };

typedef struct job {
    const char *db, *profile, *file;
} job;

typedef struct tally {
    long queries, abstained;
    double recall[K_MAX], mrr;
} tally;

typedef struct sweep {
    long n;
    long abst[SWEEP_STEPS]; /* abstained at cosine threshold thresholds(step) */
} sweep;

typedef struct eval_state {
    int k[K_MAX], nk, kmax;
    recall_opts ro;
    const char *embedder;
    tally cat[CATS];
    sweep scored, off;
    long off_n, off_abstained;
    long done, total;
    int progress;
    int learn_split; /* learn from every other scored question, score the rest */
} eval_state;

static const char *const cat_names[CATS] = {"overall", "1 multi-hop", "2 temporal", "3 open-domain",
                                            "4 single-hop"};

static int parse_k(const char *arg, eval_state *st)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", arg);
    st->nk = 0;
    st->kmax = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        long v;
        if (st->nk >= K_MAX || cli_parse_int(t, 1, ENGINE_LIMIT_MAX, &v))
            return -1;
        st->k[st->nk++] = (int)v;
        if (v > st->kmax)
            st->kmax = (int)v;
    }
    return st->nk ? 0 : -1;
}

/* Rank (1-based) of id in the results, 0 when absent. */
static int rank_of(const recall_result *r, const char *id)
{
    for (size_t i = 0; i < r->n_hits; i++)
        if (strcmp(r->hits[i].mem.id, id) == 0)
            return (int)i + 1;
    return 0;
}

static double thresholds(int step)
{
    return 0.10 + step * 0.03; /* 0.10 .. 0.40 */
}

/* Would the query abstain at each cosine threshold? From a no-floor run:
 * whether some pooled memory passes without the cosine test, and the
 * pool's best cosine. */
static void sweep_add(sweep *sw, const recall_result *r)
{
    sw->n++;
    for (int s = 0; s < SWEEP_STEPS; s++)
        if (r->candidates == 0 || (!r->floor_other_pass && r->floor_best_value < thresholds(s)))
            sw->abst[s]++;
}

static void score_query(eval_state *st, const recall_result *r, const cJSON *evidence, int cat)
{
    int n = cJSON_GetArraySize(evidence), first = 0;
    int hits[K_MAX] = {0};
    const cJSON *ev;
    cJSON_ArrayForEach(ev, evidence)
    {
        if (!cJSON_IsString(ev))
            continue;
        int rank = rank_of(r, ev->valuestring);
        for (int j = 0; j < st->nk; j++)
            hits[j] += rank && rank <= st->k[j];
        if (rank && (!first || rank < first))
            first = rank;
    }
    for (int c = 0; c < CATS; c += cat) { /* overall, then the category */
        tally *t = &st->cat[c];
        t->queries++;
        t->abstained += r->abstained;
        for (int j = 0; j < st->nk; j++)
            t->recall[j] += (double)hits[j] / n;
        t->mrr += first ? 1.0 / first : 0;
        if (c == cat)
            break;
    }
}

static void show_progress(eval_state *st)
{
    if (st->progress && (st->done % 10 == 0 || st->done == st->total))
        cli_printf(stderr, "\reval: %ld/%ld queries", st->done, st->total);
}

/* Recall q; with the floor as configured for scoring, and without it for the
 * sweep. */
static int ask(eval_state *st, engine *e, const char *q, recall_result **r, recall_result **raw,
               ms_error *err)
{
    recall_opts ro = st->ro;
    ro.query = q;
    ro.limit = st->kmax > 10 ? st->kmax : 10;
    if (engine_recall(e, &ro, r, err))
        return -1;
    ro.no_floor = 1;
    if (engine_recall(e, &ro, raw, err)) {
        recall_free(*r);
        return -1;
    }
    return 0;
}

/* Teach the engine with one question's labels: its evidence ids are marked
 * relevant, in memory only. Nothing is marked not relevant: LoCoMo's
 * evidence is sparse, and a turn that is not evidence for one question is
 * often relevant to the next (measured: marking the other top three as not
 * relevant lowered held-out MRR). */
static int learn(eval_state *st, engine *e, const char *question, const cJSON *evidence)
{
    recall_opts ro = st->ro;
    ro.query = question;
    ro.limit = 10;
    recall_result *r = NULL;
    ms_error err;
    ms_error_clear(&err);
    if (engine_recall(e, &ro, &r, &err))
        return cli_fail(&err);
    const cJSON *ev;
    cJSON_ArrayForEach(ev, evidence)
    {
        ms_error e2;
        if (cJSON_IsString(ev))
            engine_learn(e, r, ev->valuestring, 1, &e2); /* an id not in the store: skipped */
    }
    recall_free(r);
    return EXIT_OK;
}

static int run_file(eval_state *st, engine *e, const char *file, int offtopic)
{
    long nth_scored = 0;
    FILE *f = fopen(file, "r");
    if (!f)
        return cli_error(EXIT_RUNTIME, "cannot open %s", file);
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    int status = EXIT_OK;
    while (status == EXIT_OK && getline(&line, &cap, f) > 0) {
        lineno++;
        cJSON *o = cJSON_Parse(line);
        const cJSON *q = cJSON_GetObjectItemCaseSensitive(o, "question");
        const cJSON *cat = cJSON_GetObjectItemCaseSensitive(o, "category");
        const cJSON *ev = cJSON_GetObjectItemCaseSensitive(o, "evidence");
        if (!o || !cJSON_IsString(q)) {
            cJSON_Delete(o);
            if (line[strspn(line, " \t\r\n")] == '\0')
                continue;
            status = cli_error(EXIT_RUNTIME, "%s:%ld: expected {\"question\": ...}", file, lineno);
            break;
        }
        int c = cJSON_IsNumber(cat) ? cat->valueint : 0;
        int scored =
            !offtopic && c >= 1 && c <= 4 && cJSON_IsArray(ev) && cJSON_GetArraySize(ev) > 0;
        if (scored && st->learn_split && nth_scored++ % 2 == 0) {
            status = learn(st, e, q->valuestring, ev);
            st->done++;
            scored = 0;
        }
        if (scored || offtopic) {
            recall_result *r = NULL, *raw = NULL;
            ms_error err;
            ms_error_clear(&err);
            if (ask(st, e, q->valuestring, &r, &raw, &err)) {
                status = cli_fail(&err);
            } else if (offtopic) {
                st->off_n++;
                st->off_abstained += r->abstained;
                sweep_add(&st->off, raw);
            } else {
                score_query(st, r, ev, c);
                sweep_add(&st->scored, raw);
            }
            recall_free(r);
            recall_free(raw);
            st->done++;
            show_progress(st);
        }
        cJSON_Delete(o);
    }
    free(line);
    fclose(f);
    return status;
}

static long count_lines(const char *file)
{
    FILE *f = fopen(file, "r");
    long n = 0;
    int ch;
    while (f && (ch = getc(f)) != EOF)
        n += ch == '\n';
    if (f)
        fclose(f);
    return n;
}

static cJSON *tally_json(const eval_state *st, const tally *t)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "queries", (double)t->queries);
    cJSON *rc = cJSON_AddObjectToObject(o, "recall");
    for (int j = 0; j < st->nk; j++) {
        char key[16];
        snprintf(key, sizeof key, "%d", st->k[j]);
        cJSON_AddNumberToObject(rc, key,
                                t->queries ? round(t->recall[j] / t->queries * 1e4) / 1e4 : 0);
    }
    cJSON_AddNumberToObject(o, "mrr", t->queries ? round(t->mrr / t->queries * 1e4) / 1e4 : 0);
    return o;
}

static void print_json(const eval_state *st, int with_sweep)
{
    cJSON *o = tally_json(st, &st->cat[0]);
    cJSON_AddNumberToObject(o, "abstained", (double)st->cat[0].abstained);
    cJSON *bc = cJSON_AddObjectToObject(o, "by_category");
    for (int c = 1; c < CATS; c++) {
        char key[16];
        snprintf(key, sizeof key, "%d", c);
        cJSON_AddItemToObject(bc, key, tally_json(st, &st->cat[c]));
    }
    if (st->off_n) {
        cJSON *off = cJSON_AddObjectToObject(o, "offtopic");
        cJSON_AddNumberToObject(off, "queries", (double)st->off_n);
        cJSON_AddNumberToObject(off, "abstained", (double)st->off_abstained);
    }
    if (with_sweep) {
        cJSON *sw = cJSON_AddArrayToObject(o, "floor_sweep");
        for (int s = 0; s < SWEEP_STEPS; s++) {
            cJSON *row = cJSON_CreateObject();
            cJSON_AddNumberToObject(row, "threshold", thresholds(s));
            cJSON_AddNumberToObject(row, "false_abstention",
                                    st->scored.n ? (double)st->scored.abst[s] / st->scored.n : 0);
            cJSON_AddNumberToObject(row, "offtopic_abstention",
                                    st->off.n ? (double)st->off.abst[s] / st->off.n : 0);
            cJSON_AddItemToArray(sw, row);
        }
    }
    char *text = cJSON_PrintUnformatted(o);
    cli_print_json(stdout, text ? text : "{}");
    putchar('\n');
    free(text);
    cJSON_Delete(o);
}

static void print_table(const eval_state *st, int with_sweep)
{
    cli_printf(stdout, "%-15s %7s", "category", "queries");
    for (int j = 0; j < st->nk; j++)
        cli_printf(stdout, "   R@%-3d", st->k[j]);
    cli_printf(stdout, "    MRR  abstained\n");
    for (int c = 1; c <= CATS; c++) {
        const tally *t = &st->cat[c % CATS];
        if (!t->queries)
            continue;
        cli_printf(stdout, "%-15s %7ld", cat_names[c % CATS], t->queries);
        for (int j = 0; j < st->nk; j++)
            cli_printf(stdout, "  %6.3f", t->recall[j] / t->queries);
        cli_printf(stdout, "  %6.3f  %5ld (%.1f %%)\n", t->mrr / t->queries, t->abstained,
                   100.0 * t->abstained / t->queries);
    }
    if (st->off_n)
        cli_printf(stdout, "off-topic       %7ld  abstained %ld (%.1f %%)\n", st->off_n,
                   st->off_abstained, 100.0 * st->off_abstained / st->off_n);
    if (!with_sweep)
        return;
    cli_printf(stdout,
               "\nfloor sweep (risk-coverage): share of questions that abstain at each cosine "
               "threshold\n");
    cli_printf(stdout, "threshold   false abstention (scored)   off-topic abstention\n");
    for (int s = 0; s < SWEEP_STEPS; s++)
        cli_printf(stdout, "  %.2f          %6.1f %%                  %6.1f %%\n", thresholds(s),
                   st->scored.n ? 100.0 * st->scored.abst[s] / st->scored.n : 0,
                   st->off.n ? 100.0 * st->off.abst[s] / st->off.n : 0);
}

static const char eval_usage[] =
    "usage: memscope eval [--db PATH] [--profile NAME] --queries FILE [--db PATH\n"
    "                     --queries FILE ...] [--k 5,10] [--offtopic FILE] [--sweep]\n"
    "                     [--json] [recall options]\n"
    "\n"
    "Score recall over query JSONL ({\"qid\", \"question\", \"category\", \"evidence\"}).\n"
    "Each --queries FILE runs against the --db and --profile given before it.\n"
    "Categories 1-4 with evidence are scored: Recall@k, MRR, and false abstentions.\n"
    "--offtopic FILE: questions with no evidence anywhere, run against every store;\n"
    "reports how many abstain. --sweep prints the floor's risk-coverage table.\n"
    "--learn-split: in each file, learn from every other scored question (its\n"
    "evidence marked relevant; in memory only, nothing is written) and score the\n"
    "rest; compare with --no-adaptive.\n"
    "Recall options: --limit --top-n --weights --rrf-k --disable --no-floor --floor\n"
    "--as-of --embedder, as for recall.\n";

static int run_eval(cli_common *c, int argc, char **argv);
const cli_command cmd_eval = {"eval", "score recall on query files (Recall@k, MRR)", eval_usage,
                              run_eval};

static int eval_store(eval_state *st, cli_common *c, const job *jobs, int nj, int j,
                      const char *offtopic)
{
    cli_common jc = *c;
    jc.db = jobs[j].db;
    jc.profile = jobs[j].profile;
    jc.readonly = 1;
    store *s = cli_open(&jc, 0, NULL);
    if (!s)
        return EXIT_RUNTIME;
    engine *e = NULL;
    ms_error err;
    ms_error_clear(&err);
    int status = engine_open(s, st->embedder, &e, &err) ? cli_fail(&err) : EXIT_OK;
    if (!status)
        status = run_file(st, e, jobs[j].file, 0);
    /* off-topic questions go to every distinct store once */
    int first_of_store = 1;
    for (int k = 0; k < j; k++)
        first_of_store &= strcmp(jobs[k].db ? jobs[k].db : "", jobs[j].db ? jobs[j].db : "") != 0;
    if (!status && offtopic && first_of_store)
        status = run_file(st, e, offtopic, 1);
    (void)nj;
    engine_close(e);
    store_close(s);
    return status;
}

static int run_eval(cli_common *c, int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_COMMON_OPTIONS,
        RECALL_OPTIONS,
        {"json", no_argument, NULL, OPT_JSON},
        {"queries", required_argument, NULL, OPT_QUERIES},
        {"k", required_argument, NULL, OPT_K},
        {"offtopic", required_argument, NULL, OPT_OFFTOPIC},
        {"sweep", no_argument, NULL, OPT_SWEEP},
        {"learn-split", no_argument, NULL, OPT_LEARN},
        {0, 0, 0, 0},
    };
    static eval_state st;
    memset(&st, 0, sizeof st);
    recall_opts_init(&st.ro);
    parse_k("5,10", &st);
    job jobs[64];
    int nj = 0, json = 0, with_sweep = 0, opt;
    const char *offtopic = NULL;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (cli_common_option(c, opt, &cmd_eval))
            continue;
        int k = cli_recall_option(&cmd_eval, opt, optarg, &st.ro, &st.embedder);
        if (k < 0)
            return EXIT_USAGE;
        if (k)
            continue;
        if (opt == OPT_JSON)
            json = 1;
        else if (opt == OPT_SWEEP)
            with_sweep = 1;
        else if (opt == OPT_LEARN)
            st.learn_split = 1;
        else if (opt == OPT_OFFTOPIC)
            offtopic = optarg;
        else if (opt == OPT_K) {
            if (parse_k(optarg, &st))
                return cli_usage(&cmd_eval, "--k takes a comma list of up to %d numbers", K_MAX);
        } else if (opt == OPT_QUERIES) {
            if (nj >= 64)
                return cli_usage(&cmd_eval, "at most 64 --queries");
            jobs[nj++] = (job){c->db, c->profile, optarg};
        } else {
            return cli_bad_option(&cmd_eval, argv);
        }
    }
    if (optind < argc)
        return cli_usage(&cmd_eval, "unexpected argument '%s'", argv[optind]);
    if (nj == 0)
        return cli_usage(&cmd_eval, "give --queries FILE");
    st.progress = cli_tty(2);
    for (int j = 0; j < nj; j++)
        st.total += count_lines(jobs[j].file);
    int status = EXIT_OK;
    for (int j = 0; status == EXIT_OK && j < nj; j++)
        status = eval_store(&st, c, jobs, nj, j, offtopic);
    if (st.progress)
        fputc('\n', stderr);
    if (status)
        return status;
    if (json)
        print_json(&st, with_sweep);
    else
        print_table(&st, with_sweep);
    return EXIT_OK;
}
