/* cmd_eval.c - `memscope eval`: Recall@k, MRR and abstention over query
 * files, with the floor's risk-coverage sweeps.
 *
 * Each --queries FILE is run against the --db and --profile given before it
 * (so several stores can be scored in one run). Categories 1-4 with
 * non-empty evidence are scored: Recall@k is the fraction of evidence ids in
 * the top k, MRR is 1/rank of the first evidence id (0 if none). A scored
 * query that abstained is a false abstention: it has evidence. Category 5
 * (LoCoMo's adversarial questions) is its own row: evidence recall, outside
 * the overall scores. On-topic unanswerable questions (a JSONL line with
 * "answerable": false and no evidence, or a line of an --unanswerable text
 * file given after the pair) should abstain, as off-topic ones should. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "tui/cli/cli_recall.h"
#include "tui/cli/labels.h"

#define K_MAX 8
#define CATS 5 /* categories 1..4 scored; index 0 = overall */
#define SWEEP_STEPS 11

enum {
    OPT_JSON = OPT_RECALL_END,
    OPT_QUERIES,
    OPT_K,
    OPT_OFFTOPIC,
    OPT_SWEEP,
    OPT_LEARN,
    OPT_UNANSWERABLE
};

/* What a file holds. */
typedef enum file_kind {
    FILE_QUERIES,     /* query JSONL: scored, adversarial and unanswerable lines */
    FILE_OFFTOPIC,    /* query JSONL asked of every store, all off-topic */
    FILE_UNANSWERABLE /* plain text, one on-topic unanswerable question a line */
} file_kind;

typedef struct job {
    const char *db, *profile, *file;
    const char *unanswerable; /* its --unanswerable FILE, or NULL */
} job;

typedef struct tally {
    long queries, abstained;
    double recall[K_MAX], mrr;
} tally;

typedef struct sweep {
    long n;
    long abst[SWEEP_STEPS];     /* abstained at cosine threshold thresholds(step) */
    long abst_lex[SWEEP_STEPS]; /* abstained at lexical threshold lex_thresholds(step) */
} sweep;

typedef struct eval_state {
    int k[K_MAX], nk, kmax;
    recall_opts ro;
    const char *embedder;
    tally cat[CATS];
    tally adv;                 /* category 5, not in the overall row */
    double sweep_other[2];     /* the lexical and cosine thresholds the sweeps hold */
    sweep scored, off, unans;  /* for the risk-coverage tables */
    long off_n, off_abstained; /* off-topic */
    long un_n, un_abstained;   /* on-topic unanswerable */
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

static double thresholds(int step)
{
    return 0.10 + step * 0.03; /* 0.10 .. 0.40 */
}

static double lex_thresholds(int step)
{
    return 0.10 + step * 0.06; /* 0.10 .. 0.70 */
}

/* Would the floor abstain at cosine threshold c and lexical threshold l?
 * From the run's pool: a pooled memory that passes by a rule with no
 * threshold, else each pooled memory's predicate coverage and remainder
 * cosine, among those holding the kind of answer asked for; and for each
 * pool-wide rule the question applies (the asked word, the kind, who or
 * where, the verb: floor_checks), one of those that pass must hold what it
 * asks, or the floor cuts them all (engine.c cut_unheld). */
static int would_abstain(const recall_result *r, double c, double l)
{
    if (r->candidates == 0)
        return 1;
    if (r->floor_other_pass)
        return 0;
    int any = 0;
    unsigned held = 0;
    for (size_t i = 0; i < r->floor_pool_n; i++)
        if (r->floor_pool_ok[i] &&
            (r->floor_pool_cos[i] >= c ||
             (r->floor_lexical_open && r->floor_pool_cov[i] > 0 && r->floor_pool_cov[i] >= l))) {
            any = 1;
            held |= r->floor_pool_held[i];
        }
    return !any || (held & r->floor_checks) != r->floor_checks;
}

/* Each threshold of both sweeps, the other threshold at its value in
 * this run (the default unless --floor or --floor-lexical). */
static void sweep_add(eval_state *st, sweep *sw, const recall_result *r)
{
    st->sweep_other[0] = r->floor_lexical;
    st->sweep_other[1] = r->floor_threshold;
    sw->n++;
    for (int s = 0; s < SWEEP_STEPS; s++) {
        sw->abst[s] += would_abstain(r, thresholds(s), r->floor_lexical);
        sw->abst_lex[s] += would_abstain(r, r->floor_threshold, lex_thresholds(s));
    }
}

/* Add one question's evidence ranks to t. */
static void tally_add(eval_state *st, tally *t, const recall_result *r, const cJSON *evidence)
{
    int n = cJSON_GetArraySize(evidence), first = 0;
    int hits[K_MAX] = {0};
    const cJSON *ev;
    cJSON_ArrayForEach(ev, evidence)
    {
        if (!cJSON_IsString(ev))
            continue;
        int rank = recall_rank_of(r, ev->valuestring);
        for (int j = 0; j < st->nk; j++)
            hits[j] += rank && rank <= st->k[j];
        if (rank && (!first || rank < first))
            first = rank;
    }
    t->queries++;
    t->abstained += r->abstained;
    for (int j = 0; j < st->nk; j++)
        t->recall[j] += (double)hits[j] / n;
    t->mrr += first ? 1.0 / first : 0;
}

/* Categories 1-4 count in the overall row and their own; 5 only in its. */
static void score_query(eval_state *st, const recall_result *r, const cJSON *evidence, int cat)
{
    if (cat == 5) {
        tally_add(st, &st->adv, r, evidence);
        return;
    }
    tally_add(st, &st->cat[0], r, evidence);
    tally_add(st, &st->cat[cat], r, evidence);
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

/* How one question counts. */
typedef enum qkind { Q_SCORED, Q_OFFTOPIC, Q_UNANSWERABLE } qkind;

/* Ask q and count it as k (with its evidence and category when scored). */
static int ask_and_count(eval_state *st, engine *e, const char *q, qkind k, const cJSON *ev,
                         int cat)
{
    recall_result *r = NULL, *raw = NULL;
    ms_error err;
    ms_error_clear(&err);
    if (ask(st, e, q, &r, &raw, &err))
        return cli_fail(&err);
    if (k == Q_OFFTOPIC) {
        st->off_n++;
        st->off_abstained += r->abstained;
        sweep_add(st, &st->off, raw);
    } else if (k == Q_UNANSWERABLE) {
        st->un_n++;
        st->un_abstained += r->abstained;
        sweep_add(st, &st->unans, raw);
    } else {
        score_query(st, r, ev, cat);
        if (cat != 5)
            sweep_add(st, &st->scored, raw);
    }
    recall_free(r);
    recall_free(raw);
    st->done++;
    show_progress(st);
    return EXIT_OK;
}

/* One query JSONL line (lineno of file), parsed into o. */
static int run_line(eval_state *st, engine *e, const cJSON *o, const char *file, long lineno,
                    int offtopic, long *nth_scored)
{
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(o, "question");
    const cJSON *cat = cJSON_GetObjectItemCaseSensitive(o, "category");
    const cJSON *ev = cJSON_GetObjectItemCaseSensitive(o, "evidence");
    int has_ev = cJSON_IsArray(ev) && cJSON_GetArraySize(ev) > 0;
    if (offtopic)
        return ask_and_count(st, e, q->valuestring, Q_OFFTOPIC, NULL, 0);
    if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "answerable"))) {
        if (has_ev)
            return cli_error(EXIT_RUNTIME, "%s:%ld: \"answerable\": false, but it has evidence",
                             file, lineno);
        return ask_and_count(st, e, q->valuestring, Q_UNANSWERABLE, NULL, 0);
    }
    int c = cJSON_IsNumber(cat) ? cat->valueint : 0;
    if (c < 1 || c > 5 || !has_ev)
        return EXIT_OK;
    if (c <= 4 && st->learn_split && (*nth_scored)++ % 2 == 0) {
        st->done++;
        return learn(st, e, q->valuestring, ev);
    }
    return ask_and_count(st, e, q->valuestring, Q_SCORED, ev, c);
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
        if (o && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "question")))
            status = run_line(st, e, o, file, lineno, offtopic, &nth_scored);
        else if (line[strspn(line, " \t\r\n")] != '\0')
            status = cli_error(EXIT_RUNTIME, "%s:%ld: expected {\"question\": ...}", file, lineno);
        cJSON_Delete(o);
    }
    free(line);
    fclose(f);
    return status;
}

/* A plain-text file of on-topic unanswerable questions, one a line (blank
 * lines and lines starting with # skipped). */
static int run_text(eval_state *st, engine *e, const char *file)
{
    label_set ls;
    labels_init(&ls);
    ms_error err;
    ms_error_clear(&err);
    int status = labels_read_unanswerable(&ls, file, &err) ? cli_fail(&err) : EXIT_OK;
    for (size_t i = 0; status == EXIT_OK && i < ls.n; i++)
        status = ask_and_count(st, e, ls.q[i].question, Q_UNANSWERABLE, NULL, 0);
    labels_free(&ls);
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

static double share(long k, long n)
{
    return n ? (double)k / (double)n : 0;
}

static cJSON *abstention_json(long n, long abstained)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "queries", (double)n);
    cJSON_AddNumberToObject(o, "abstained", (double)abstained);
    cJSON_AddNumberToObject(o, "rate", round(share(abstained, n) * 1e4) / 1e4);
    return o;
}

/* One sweep as a JSON array: each threshold's three abstention rates. */
static cJSON *sweep_json(const eval_state *st, int lexical)
{
    cJSON *a = cJSON_CreateArray();
    for (int s = 0; s < SWEEP_STEPS; s++) {
        cJSON *row = cJSON_CreateObject();
        const long *sc = lexical ? st->scored.abst_lex : st->scored.abst;
        const long *of = lexical ? st->off.abst_lex : st->off.abst;
        const long *un = lexical ? st->unans.abst_lex : st->unans.abst;
        cJSON_AddNumberToObject(row, "threshold", lexical ? lex_thresholds(s) : thresholds(s));
        cJSON_AddNumberToObject(row, "false_abstention", share(sc[s], st->scored.n));
        cJSON_AddNumberToObject(row, "offtopic_abstention", share(of[s], st->off.n));
        cJSON_AddNumberToObject(row, "unanswerable_abstention", share(un[s], st->unans.n));
        cJSON_AddItemToArray(a, row);
    }
    return a;
}

static void print_json(const eval_state *st, int with_sweep)
{
    cJSON *o = tally_json(st, &st->cat[0]);
    cJSON_AddNumberToObject(o, "abstained", (double)st->cat[0].abstained);
    cJSON_AddNumberToObject(o, "false_abstention",
                            round(share(st->cat[0].abstained, st->cat[0].queries) * 1e4) / 1e4);
    cJSON *bc = cJSON_AddObjectToObject(o, "by_category");
    for (int c = 1; c < CATS; c++) {
        char key[16];
        snprintf(key, sizeof key, "%d", c);
        cJSON_AddItemToObject(bc, key, tally_json(st, &st->cat[c]));
    }
    if (st->adv.queries) {
        cJSON *adv = tally_json(st, &st->adv);
        cJSON_AddNumberToObject(adv, "abstained", (double)st->adv.abstained);
        cJSON_AddItemToObject(o, "adversarial", adv);
    }
    if (st->off_n)
        cJSON_AddItemToObject(o, "offtopic", abstention_json(st->off_n, st->off_abstained));
    if (st->un_n)
        cJSON_AddItemToObject(o, "unanswerable", abstention_json(st->un_n, st->un_abstained));
    if (with_sweep) {
        cJSON_AddItemToObject(o, "floor_sweep", sweep_json(st, 0));
        cJSON_AddItemToObject(o, "floor_sweep_lexical", sweep_json(st, 1));
    }
    char *text = cJSON_PrintUnformatted(o);
    cli_print_json(stdout, text ? text : "{}");
    cli_printf(stdout, "\n");
    free(text);
    cJSON_Delete(o);
}

static void print_row(const eval_state *st, const char *name, const tally *t)
{
    cli_printf(stdout, "%-15s %7ld", name, t->queries);
    for (int j = 0; j < st->nk; j++)
        cli_printf(stdout, "  %6.3f", t->recall[j] / t->queries);
    cli_printf(stdout, "  %6.3f  %5ld (%.1f %%)\n", t->mrr / t->queries, t->abstained,
               100.0 * t->abstained / t->queries);
}

/* One sweep as a table: each threshold's three abstention rates. */
static void print_sweep(const eval_state *st, int lexical)
{
    if (lexical)
        cli_printf(stdout,
                   "\nlexical sweep: the same at each predicate-coverage threshold (cosine %.2f)\n",
                   st->sweep_other[1]);
    else
        cli_printf(stdout,
                   "\nfloor sweep (risk-coverage): share of questions that abstain at each cosine "
                   "threshold (lexical %.2f)\n",
                   st->sweep_other[0]);
    cli_printf(
        stdout,
        "threshold   false abstention (scored)   off-topic abstention   on-topic unanswerable\n");
    for (int s = 0; s < SWEEP_STEPS; s++) {
        const long *sc = lexical ? st->scored.abst_lex : st->scored.abst;
        const long *of = lexical ? st->off.abst_lex : st->off.abst;
        const long *un = lexical ? st->unans.abst_lex : st->unans.abst;
        cli_printf(stdout,
                   "  %.2f          %6.1f %%                  %6.1f %%               %6.1f %%\n",
                   lexical ? lex_thresholds(s) : thresholds(s), 100 * share(sc[s], st->scored.n),
                   100 * share(of[s], st->off.n), 100 * share(un[s], st->unans.n));
    }
}

static void print_table(const eval_state *st, int with_sweep)
{
    cli_printf(stdout, "%-15s %7s", "category", "queries");
    for (int j = 0; j < st->nk; j++)
        cli_printf(stdout, "   R@%-3d", st->k[j]);
    cli_printf(stdout, "    MRR  abstained\n");
    for (int c = 1; c <= CATS; c++)
        if (st->cat[c % CATS].queries)
            print_row(st, cat_names[c % CATS], &st->cat[c % CATS]);
    if (st->adv.queries)
        print_row(st, "5 adversarial", &st->adv);
    if (st->off_n)
        cli_printf(stdout, "off-topic       %7ld  abstained %ld (%.1f %%)\n", st->off_n,
                   st->off_abstained, 100 * share(st->off_abstained, st->off_n));
    if (st->un_n)
        cli_printf(stdout, "unanswerable    %7ld  abstained %ld (%.1f %%)\n", st->un_n,
                   st->un_abstained, 100 * share(st->un_abstained, st->un_n));
    if (st->adv.queries)
        cli_printf(
            stdout,
            "(5 adversarial: evidence recall only, not in overall; no abstention expected)\n");
    if (with_sweep) {
        print_sweep(st, 0);
        print_sweep(st, 1);
    }
}

static const char eval_usage[] =
    "usage: memscope eval [--db PATH] [--profile NAME] --queries FILE [--unanswerable FILE]\n"
    "                     [--db PATH --queries FILE ...] [--k 5,10] [--offtopic FILE]\n"
    "                     [--sweep] [--json] [recall options]\n"
    "\n"
    "Score recall over query JSONL ({\"qid\", \"question\", \"category\", \"evidence\"}).\n"
    "Each --queries FILE runs against the --db and --profile given before it.\n"
    "Categories 1-4 with evidence are scored: Recall@k, MRR, and false abstentions;\n"
    "category 5 (adversarial) is its own row, evidence recall only.\n"
    "On-topic unanswerable questions should abstain: lines with \"answerable\": false\n"
    "and no evidence, and --unanswerable FILE (plain text, one question a line, for\n"
    "the store of the --queries before it).\n"
    "--offtopic FILE: questions with no evidence anywhere, run against every store;\n"
    "reports how many abstain. --sweep prints the floor's risk-coverage tables\n"
    "(false, off-topic and on-topic abstention at each cosine and lexical threshold).\n"
    "--learn-split: in each file, learn from every other scored question (its\n"
    "evidence marked relevant; in memory only, nothing is written) and score the\n"
    "rest; compare with --no-adaptive.\n"
    "Recall options: --limit --top-n --weights --rrf-k --disable --no-floor --floor\n"
    "--floor-lexical --as-of --embedder --synonyms --first-stage, as for recall.\n";

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
    if (!status && jobs[j].unanswerable)
        status = run_text(st, e, jobs[j].unanswerable);
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
        {"unanswerable", required_argument, NULL, OPT_UNANSWERABLE},
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
            jobs[nj++] = (job){c->db, c->profile, optarg, NULL};
        } else if (opt == OPT_UNANSWERABLE) {
            if (nj == 0 || jobs[nj - 1].unanswerable)
                return cli_usage(&cmd_eval, "--unanswerable FILE follows a --queries FILE "
                                            "(one for each)");
            jobs[nj - 1].unanswerable = optarg;
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
        st.total += count_lines(jobs[j].file) +
                    (jobs[j].unanswerable ? count_lines(jobs[j].unanswerable) : 0);
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
