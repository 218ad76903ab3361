/* cmd_calibrate.c - `memscope calibrate`: the calibration release gate as
 * one command (docs/CALIBRATION.md).
 *
 * The --db/--queries pairs before --eval are the fit split, those after it
 * the held-out split; --unanswerable FILE adds that store's plain-text
 * unanswerable questions to the pair before it. Every labelled question
 * (labels.h) is one example:
 *   raw score  the ranking score of the top result of a recall without the
 *              floor (0 when nothing is returned);
 *   label      1 when that top result is one of the question's evidence
 *              ids, 0 otherwise (always 0 for an unanswerable question).
 * Platt scaling is fitted on the fit split and the held-out split is
 * scored with it; the floor as configured gives the operating point (a
 * recall that abstains keeps nothing; one that answers is right when its
 * top result is evidence). The report is printed and saved beside every
 * store measured (calreport.h); the stores themselves are only read. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tui/present/calplot.h"
#include "tui/present/calreport.h"
#include "tui/cli/cli_recall.h"
#include "engine/calib.h"
#include "engine/digest.h"
#include "engine/identity.h"
#include "tui/cli/labels.h"

#define CAL_JOBS_MAX 64
#define CAL_UNANS_MAX 8
#define CAL_MIN_HELD_OUT 100

enum {
    OPT_JSON = OPT_RECALL_END,
    OPT_PLOT,
    OPT_QUERIES,
    OPT_UNANSWERABLE,
    OPT_EVAL,
    OPT_CORPUS,
    OPT_DISTRIBUTION,
};

enum { SPLIT_FIT, SPLIT_HELD_OUT };
static const char *const split_names[] = {"fit", "held_out"};

typedef struct cal_job {
    const char *db, *profile; /* as given (NULL: the defaults) */
    const char *queries;
    const char *unans[CAL_UNANS_MAX];
    int n_unans;
    int split;
    char path[1024]; /* the store's resolved path */
    char profile_used[STORE_PROFILE_MAX + 1];
    char content[DIGEST_HEX]; /* the store's content digest */
    int64_t memories;
    char files_sha[CAL_UNANS_MAX + 1][DIGEST_HEX]; /* queries, then each unanswerable file */
    label_set labels;
} cal_job;

typedef struct cal_example {
    double raw, p;
    int label;         /* the top result is evidence */
    int retained;      /* the floor as configured let the recall answer */
    int floor_correct; /* ... and its top result is evidence */
    int job;
    size_t q; /* index into the job's labels */
} cal_example;

typedef struct cal_state {
    cal_job jobs[CAL_JOBS_MAX];
    int nj;
    recall_opts ro;
    const char *embedder;
    const char *corpus, *distribution; /* declared by the user, or NULL */
    int json, plot;
    char *config; /* engine_config_text of the run (owned) */
    double floor_threshold;
    cal_example *ex;
    size_t n_ex;
    calib_platt platt;
    calib_metrics m;
    calib_point floor_op;
    size_t floor_kept;
    double auc;
} cal_state;

static const char calibrate_usage[] =
    "usage: memscope calibrate [--json] [--plot] --db A --queries QA [--unanswerable FILE]\n"
    "                          [--db B --queries QB ...] --eval --db C --queries QC [...]\n"
    "                          [--corpus TEXT] [--distribution TEXT] [recall options]\n"
    "\n"
    "Fit a Platt-scaling calibrator of \"the top result is evidence for the question\"\n"
    "on the pairs before --eval and report on the held-out pairs after it: Brier,\n"
    "ECE, MCE, 10 reliability bins, selective risk at 0 .5 .6 .7 .8 .9 .95, the\n"
    "risk-coverage curve with its area (AURC) and the floor's operating point.\n"
    "Query JSONL lines with \"answerable\": false, and the lines of an --unanswerable\n"
    "FILE (one question a line, for the store of the pair before it), are on-topic\n"
    "unanswerable questions. Refuses a question asked of the same store content in\n"
    "both splits, and fewer than 100 held-out examples. --corpus and --distribution\n"
    "declare in words what the stores and questions stand for. The report is saved\n"
    "beside each store as STORE.calibration.json, where health and the browser find\n"
    "it. --plot draws the reliability diagram and the risk-coverage curve (on\n"
    "stderr with --json). The runtime contract stays uncalibrated. See\n"
    "docs/CALIBRATION.md.\n";

static int run_calibrate(cli_common *c, int argc, char **argv);
const cli_command cmd_calibrate = {"calibrate", "fit and report a calibration (release gate)",
                                   calibrate_usage, run_calibrate};

/* ---- arguments ------------------------------------------------------------------ */

static int add_option(cal_state *st, cli_common *c, int opt, int *split)
{
    cal_job *last = st->nj ? &st->jobs[st->nj - 1] : NULL;
    switch (opt) {
    case OPT_JSON:
        st->json = 1;
        return 0;
    case OPT_PLOT:
        st->plot = 1;
        return 0;
    case OPT_CORPUS:
        st->corpus = optarg;
        return 0;
    case OPT_DISTRIBUTION:
        st->distribution = optarg;
        return 0;
    case OPT_EVAL:
        if (*split == SPLIT_HELD_OUT)
            return cli_usage(&cmd_calibrate, "--eval is given once, between the two splits");
        *split = SPLIT_HELD_OUT;
        return 0;
    case OPT_QUERIES:
        if (st->nj >= CAL_JOBS_MAX)
            return cli_usage(&cmd_calibrate, "at most %d --queries", CAL_JOBS_MAX);
        st->jobs[st->nj++] =
            (cal_job){.db = c->db, .profile = c->profile, .queries = optarg, .split = *split};
        return 0;
    case OPT_UNANSWERABLE:
        if (!last || last->split != *split)
            return cli_usage(&cmd_calibrate, "--unanswerable FILE comes after the --db and "
                                             "--queries pair it belongs to");
        if (last->n_unans >= CAL_UNANS_MAX)
            return cli_usage(&cmd_calibrate, "at most %d --unanswerable per pair", CAL_UNANS_MAX);
        last->unans[last->n_unans++] = optarg;
        return 0;
    default:
        return -1;
    }
}

static int parse_args(cal_state *st, cli_common *c, int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_COMMON_OPTIONS,
        RECALL_OPTIONS,
        {"json", no_argument, NULL, OPT_JSON},
        {"plot", no_argument, NULL, OPT_PLOT},
        {"queries", required_argument, NULL, OPT_QUERIES},
        {"unanswerable", required_argument, NULL, OPT_UNANSWERABLE},
        {"eval", no_argument, NULL, OPT_EVAL},
        {"corpus", required_argument, NULL, OPT_CORPUS},
        {"distribution", required_argument, NULL, OPT_DISTRIBUTION},
        {0, 0, 0, 0},
    };
    int split = SPLIT_FIT, opt, rc;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (cli_common_option(c, opt, &cmd_calibrate))
            continue;
        int k = cli_recall_option(&cmd_calibrate, opt, optarg, &st->ro, &st->embedder);
        if (k < 0)
            return EXIT_USAGE;
        if (k)
            continue;
        if ((rc = add_option(st, c, opt, &split)) > 0)
            return rc;
        if (rc < 0)
            return cli_bad_option(&cmd_calibrate, argv);
    }
    if (optind < argc)
        return cli_usage(&cmd_calibrate, "unexpected argument '%s'", argv[optind]);
    int fit = 0, held = 0;
    for (int j = 0; j < st->nj; j++)
        st->jobs[j].split == SPLIT_FIT ? fit++ : held++;
    if (!fit || !held)
        return cli_usage(&cmd_calibrate, "give --db A --queries QA ... --eval --db C --queries QC "
                                         "...: a fit split and a held-out split");
    return EXIT_OK;
}

/* ---- reading the splits --------------------------------------------------------- */

static store *open_job(cli_common *c, const cal_job *jb)
{
    cli_common jc = *c;
    jc.db = jb->db;
    jc.profile = jb->profile;
    jc.readonly = 1;
    return cli_open(&jc, 0, NULL);
}

static int file_digest(const char *path, char hex[DIGEST_HEX])
{
    if (digest_file(path, hex) == 0)
        return EXIT_OK;
    return cli_error(EXIT_RUNTIME, "cannot read %s", path);
}

/* The job's store identity and its labelled questions. */
static int read_job(cli_common *c, cal_job *jb)
{
    store *s = open_job(c, jb);
    if (!s)
        return EXIT_RUNTIME;
    ms_error err;
    ms_error_clear(&err);
    snprintf(jb->path, sizeof jb->path, "%s", store_path(s));
    snprintf(jb->profile_used, sizeof jb->profile_used, "%s", store_profile(s));
    int status = identity_store_digest(s, jb->content, &jb->memories, &err) ? cli_fail(&err) : 0;
    store_close(s);
    labels_init(&jb->labels);
    if (!status && labels_read_jsonl(&jb->labels, jb->queries, &err))
        status = cli_fail(&err);
    for (int u = 0; !status && u < jb->n_unans; u++)
        if (labels_read_unanswerable(&jb->labels, jb->unans[u], &err))
            status = cli_fail(&err);
    if (!status)
        status = file_digest(jb->queries, jb->files_sha[0]);
    for (int u = 0; !status && u < jb->n_unans; u++)
        status = file_digest(jb->unans[u], jb->files_sha[u + 1]);
    return status;
}

static const char *file_of(const cal_job *jb, const label_question *q)
{
    return jb->labels.files[q->file];
}

/* A held-out question asked of the same store content in the fit split is
 * not held out. Quadratic, over a few thousand questions at most. */
static int refuse_overlap(const cal_state *st)
{
    for (int a = 0; a < st->nj; a++)
        for (int b = 0; b < st->nj; b++) {
            const cal_job *f = &st->jobs[a], *h = &st->jobs[b];
            if (f->split != SPLIT_FIT || h->split != SPLIT_HELD_OUT ||
                strcmp(f->content, h->content) != 0 || strcmp(f->profile_used, h->profile_used))
                continue;
            for (size_t i = 0; i < f->labels.n; i++) {
                char *x = labels_normalize(f->labels.q[i].question);
                for (size_t k = 0; x && k < h->labels.n; k++) {
                    char *y = labels_normalize(h->labels.q[k].question);
                    int same = y && strcmp(x, y) == 0;
                    free(y);
                    if (same) {
                        free(x);
                        return cli_error(
                            EXIT_RUNTIME,
                            "a question is in both splits on the same store content "
                            "(%s:%ld and %s:%ld): held-out questions must be new to the fit",
                            file_of(f, &f->labels.q[i]), f->labels.q[i].line,
                            file_of(h, &h->labels.q[k]), h->labels.q[k].line);
                    }
                }
                free(x);
            }
        }
    return EXIT_OK;
}

static int refuse_small(const cal_state *st)
{
    size_t held = 0;
    for (int j = 0; j < st->nj; j++)
        if (st->jobs[j].split == SPLIT_HELD_OUT)
            held += st->jobs[j].labels.n;
    if (held < CAL_MIN_HELD_OUT)
        return cli_error(EXIT_RUNTIME,
                         "%zu held-out examples (the pairs after --eval): a calibration report "
                         "needs at least %d",
                         held, CAL_MIN_HELD_OUT);
    return EXIT_OK;
}

/* ---- running the questions ------------------------------------------------------ */

static int is_evidence(const label_question *q, const recall_result *r)
{
    if (!q->answerable || r->n_hits == 0)
        return 0;
    for (size_t i = 0; i < q->n_evidence; i++)
        if (strcmp(q->evidence[i], r->hits[0].mem.id) == 0)
            return 1;
    return 0;
}

static int ask(cal_state *st, engine *e, int j, size_t i, ms_error *err)
{
    const label_question *q = &st->jobs[j].labels.q[i];
    recall_opts ro = st->ro;
    ro.query = q->question;
    recall_result *r = NULL, *raw = NULL;
    if (engine_recall(e, &ro, &r, err))
        return -1;
    ro.no_floor = 1;
    if (engine_recall(e, &ro, &raw, err)) {
        recall_free(r);
        return -1;
    }
    cal_example *x = &st->ex[st->n_ex++];
    x->raw = raw->n_hits ? raw->hits[0].ranking_score : 0;
    x->label = is_evidence(q, raw);
    x->retained = !r->abstained;
    x->floor_correct = x->retained && is_evidence(q, r);
    x->job = j;
    x->q = i;
    st->floor_threshold = r->floor_threshold;
    recall_free(r);
    recall_free(raw);
    return 0;
}

static int run_job(cal_state *st, cli_common *c, int j)
{
    store *s = open_job(c, &st->jobs[j]);
    if (!s)
        return EXIT_RUNTIME;
    engine *e = NULL;
    ms_error err;
    ms_error_clear(&err);
    int status = engine_open(s, st->embedder, &e, &err) ? cli_fail(&err) : EXIT_OK;
    if (!status && !st->config && !(st->config = engine_config_text(e, &st->ro)))
        status = cli_error(EXIT_RUNTIME, "out of memory");
    for (size_t i = 0; !status && i < st->jobs[j].labels.n; i++)
        if (ask(st, e, j, i, &err))
            status = cli_fail(&err);
    engine_close(e);
    store_close(s);
    return status;
}

/* ---- fitting and scoring -------------------------------------------------------- */

static int fit_and_score(cal_state *st)
{
    size_t n = st->n_ex, nf = 0, nh = 0;
    double *raw = malloc((n + 1) * sizeof *raw), *p = malloc((n + 1) * sizeof *p);
    int *y = malloc((n + 1) * sizeof *y), *kept = malloc((n + 1) * sizeof *kept),
        *right = malloc((n + 1) * sizeof *right);
    int status =
        raw && p && y && kept && right ? EXIT_OK : cli_error(EXIT_RUNTIME, "out of memory");
    for (size_t i = 0; !status && i < n; i++)
        if (st->jobs[st->ex[i].job].split == SPLIT_FIT) {
            raw[nf] = st->ex[i].raw;
            y[nf++] = st->ex[i].label;
        }
    if (!status) {
        calib_platt_fit(raw, y, nf, &st->platt);
        if (!st->platt.positives || !st->platt.negatives)
            status = cli_error(EXIT_RUNTIME,
                               "the fit split has %zu examples whose top result is evidence and "
                               "%zu whose is not: it needs both to fit a calibrator",
                               st->platt.positives, st->platt.negatives);
    }
    for (size_t i = 0; !status && i < n; i++) {
        cal_example *x = &st->ex[i];
        x->p = calib_platt_apply(&st->platt, x->raw);
        if (st->jobs[x->job].split != SPLIT_HELD_OUT)
            continue;
        raw[nh] = x->raw;
        p[nh] = x->p;
        y[nh] = x->label;
        kept[nh] = x->retained;
        right[nh++] = x->floor_correct;
    }
    if (!status && calib_metrics_compute(p, y, nh, &st->m))
        status = cli_error(EXIT_RUNTIME, "out of memory");
    if (!status) {
        st->floor_op = calib_operating_point(kept, right, nh);
        st->auc = calib_auc(raw, y, nh);
        st->floor_kept = 0;
        for (size_t i = 0; i < nh; i++)
            st->floor_kept += kept[i] != 0;
    }
    free(raw);
    free(p);
    free(y);
    free(kept);
    free(right);
    return status;
}

/* ---- the report ----------------------------------------------------------------- */

static double round12(double v)
{
    return round(v * 1e12) / 1e12;
}

static void add_num(cJSON *o, const char *key, double v)
{
    cJSON_AddNumberToObject(o, key, round12(v));
}

/* SHA-256 over the identities of one split's (or both splits') jobs. */
static void split_digest(const cal_state *st, int split, char hex[DIGEST_HEX])
{
    digest c;
    digest_init(&c);
    for (int j = 0; j < st->nj; j++) {
        const cal_job *jb = &st->jobs[j];
        if (split >= 0 && jb->split != split)
            continue;
        digest_field(&c, split_names[jb->split]);
        digest_field(&c, jb->profile_used);
        digest_field(&c, jb->content);
        for (int f = 0; f <= jb->n_unans; f++)
            digest_field(&c, jb->files_sha[f]);
    }
    digest_hex(&c, hex);
}

static void calibration_id(const cal_state *st, char hex[DIGEST_HEX])
{
    char both[DIGEST_HEX];
    split_digest(st, -1, both);
    digest c;
    digest_init(&c);
    digest_field(&c, CALREPORT_SCHEMA);
    digest_field(&c, MEMSCOPE_VERSION);
    digest_field(&c, st->config);
    digest_field(&c, both);
    digest_hex(&c, hex);
}

static cJSON *identity_json(const cal_state *st)
{
    cJSON *o = cJSON_CreateObject();
    char cfg[DIGEST_HEX];
    calreport_text_digest(st->config, cfg);
    cJSON_AddStringToObject(o, "digest", "sha256");
    cJSON_AddStringToObject(o, "memscope_version", MEMSCOPE_VERSION);
    cJSON_AddStringToObject(o, "engine_configuration", st->config);
    cJSON_AddStringToObject(o, "engine_configuration_sha256", cfg);
    cJSON *stores = cJSON_AddArrayToObject(o, "stores");
    cJSON *files = cJSON_AddArrayToObject(o, "label_files");
    for (int j = 0; j < st->nj; j++) {
        const cal_job *jb = &st->jobs[j];
        cJSON *s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "path", jb->path);
        cJSON_AddStringToObject(s, "profile", jb->profile_used);
        cJSON_AddStringToObject(s, "split", split_names[jb->split]);
        cJSON_AddNumberToObject(s, "memories", (double)jb->memories);
        cJSON_AddStringToObject(s, "content_sha256", jb->content);
        cJSON_AddItemToArray(stores, s);
        for (int f = 0; f <= jb->n_unans; f++) {
            cJSON *l = cJSON_CreateObject();
            cJSON_AddStringToObject(l, "path", f ? jb->unans[f - 1] : jb->queries);
            cJSON_AddStringToObject(l, "kind", f ? "unanswerable" : "queries");
            cJSON_AddStringToObject(l, "split", split_names[jb->split]);
            cJSON_AddStringToObject(l, "store", jb->path);
            cJSON_AddStringToObject(l, "sha256", jb->files_sha[f]);
            cJSON_AddItemToArray(files, l);
        }
    }
    return o;
}

static cJSON *calibrator_json(const cal_state *st)
{
    cJSON *o = cJSON_CreateObject();
    char fit[DIGEST_HEX];
    split_digest(st, SPLIT_FIT, fit);
    cJSON_AddStringToObject(o, "method", "platt_scaling");
    cJSON_AddStringToObject(o, "formula", "p = 1 / (1 + exp(-(a * raw_score + b)))");
    add_num(o, "a", st->platt.a);
    add_num(o, "b", st->platt.b);
    cJSON_AddStringToObject(o, "fit_split", "fit");
    cJSON_AddStringToObject(o, "fit_dataset_id", fit);
    cJSON_AddNumberToObject(o, "fit_example_count",
                            (double)(st->platt.positives + st->platt.negatives));
    cJSON_AddNumberToObject(o, "fit_positive_count", (double)st->platt.positives);
    cJSON_AddNumberToObject(o, "newton_iterations", st->platt.iterations);
    cJSON_AddBoolToObject(o, "converged", st->platt.converged);
    cJSON *sig = cJSON_AddObjectToObject(o, "signal");
    cJSON_AddStringToObject(sig, "name", "top_result_is_evidence");
    cJSON_AddStringToObject(sig, "raw_score",
                            "ranking_score of the top result of a recall without the floor "
                            "(0 when nothing is returned)");
    cJSON_AddStringToObject(sig, "label",
                            "1 when that top result is one of the question's evidence ids; "
                            "0 otherwise, and always 0 for an unanswerable question");
    return o;
}

static cJSON *distribution_json(const cal_state *st)
{
    cJSON *o = cJSON_CreateObject();
    size_t ans = 0, marked = 0, listed = 0, skipped = 0, cats[6] = {0};
    for (int j = 0; j < st->nj; j++) {
        const cal_job *jb = &st->jobs[j];
        if (jb->split != SPLIT_HELD_OUT)
            continue;
        skipped += jb->labels.skipped;
        for (size_t i = 0; i < jb->labels.n; i++) {
            const label_question *q = &jb->labels.q[i];
            if (q->answerable) {
                ans++;
                cats[q->category >= 0 && q->category <= 5 ? q->category : 0]++;
            } else {
                q->file == 0 ? marked++ : listed++;
            }
        }
    }
    if (st->distribution)
        cJSON_AddStringToObject(o, "declared", st->distribution);
    else
        cJSON_AddNullToObject(o, "declared");
    cJSON_AddNumberToObject(o, "answerable", (double)ans);
    cJSON *bc = cJSON_AddObjectToObject(o, "answerable_by_category");
    for (int k = 0; k <= 4; k++) {
        char key[16];
        snprintf(key, sizeof key, "%d", k);
        if (cats[k])
            cJSON_AddNumberToObject(bc, key, (double)cats[k]);
    }
    cJSON_AddNumberToObject(o, "unanswerable_marked", (double)marked);
    cJSON_AddNumberToObject(o, "unanswerable_listed", (double)listed);
    cJSON_AddNumberToObject(o, "skipped_lines", (double)skipped);
    return o;
}

static cJSON *evaluation_json(const cal_state *st)
{
    cJSON *o = cJSON_CreateObject();
    char held[DIGEST_HEX], ex[DIGEST_HEX];
    split_digest(st, SPLIT_HELD_OUT, held);
    digest c;
    digest_init(&c);
    for (size_t i = 0; i < st->n_ex; i++) {
        const cal_example *x = &st->ex[i];
        char buf[96];
        if (st->jobs[x->job].split != SPLIT_HELD_OUT)
            continue;
        digest_field(&c, st->jobs[x->job].labels.q[x->q].qid);
        snprintf(buf, sizeof buf, "%.17g %.17g %d", x->raw, x->p, x->label);
        digest_field(&c, buf);
    }
    digest_hex(&c, ex);
    cJSON_AddStringToObject(o, "dataset_id", held);
    cJSON_AddStringToObject(o, "split", "held_out");
    cJSON_AddStringToObject(o, "examples_sha256", ex);
    add_num(o, "raw_score_auc", st->auc);
    cJSON *corpus = cJSON_AddObjectToObject(o, "corpus");
    if (st->corpus)
        cJSON_AddStringToObject(corpus, "declared", st->corpus);
    else
        cJSON_AddNullToObject(corpus, "declared");
    cJSON *stores = cJSON_AddArrayToObject(corpus, "stores");
    for (int j = 0; j < st->nj; j++)
        if (st->jobs[j].split == SPLIT_HELD_OUT)
            cJSON_AddItemToArray(stores, cJSON_CreateString(st->jobs[j].path));
    cJSON_AddItemToObject(o, "query_distribution", distribution_json(st));
    return o;
}

static cJSON *bins_json(const calib_metrics *m)
{
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; k < CALIB_BINS; k++) {
        const calib_bin *b = &m->bins[k];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "bin_index", k);
        add_num(o, "lower_inclusive", b->lower);
        add_num(o, "upper", b->upper);
        cJSON_AddBoolToObject(o, "upper_inclusive", k == CALIB_BINS - 1);
        cJSON_AddNumberToObject(o, "count", (double)b->count);
        if (b->count) {
            add_num(o, "mean_probability", b->mean_p);
            add_num(o, "observed_accuracy", b->observed);
            add_num(o, "absolute_gap", b->gap);
        } else {
            cJSON_AddNullToObject(o, "mean_probability");
            cJSON_AddNullToObject(o, "observed_accuracy");
            cJSON_AddNullToObject(o, "absolute_gap");
        }
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static cJSON *selective_json(const calib_metrics *m)
{
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; k < CALIB_THRESHOLDS; k++) {
        const calib_selective *s = &m->sel[k];
        cJSON *o = cJSON_CreateObject();
        add_num(o, "threshold", s->threshold);
        cJSON_AddNumberToObject(o, "retained", (double)s->retained);
        add_num(o, "coverage", s->coverage);
        add_num(o, "abstention_rate", s->abstention_rate);
        if (s->risk_defined)
            add_num(o, "selective_risk", s->risk);
        else
            cJSON_AddNullToObject(o, "selective_risk");
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* minimum, maximum, mean, unique_count and boundary_count (values of
 * exactly 0 or 1) of the held-out raw scores (raw) or probabilities, as
 * SLM's report summarises them. */
static cJSON *summary_json(const cal_state *st, int raw)
{
    double *v = malloc((st->n_ex + 1) * sizeof *v), sum = 0;
    size_t n = 0, unique = 0, boundary = 0;
    for (size_t i = 0; v && i < st->n_ex; i++)
        if (st->jobs[st->ex[i].job].split == SPLIT_HELD_OUT)
            v[n++] = raw ? st->ex[i].raw : st->ex[i].p;
    cJSON *o = cJSON_CreateObject();
    if (v && n) {
        qsort(v, n, sizeof *v, by_value);
        for (size_t i = 0; i < n; i++) {
            sum += v[i];
            unique += i == 0 || v[i] != v[i - 1];
            boundary += v[i] == 0 || v[i] == 1;
        }
        add_num(o, "minimum", v[0]);
        add_num(o, "maximum", v[n - 1]);
        add_num(o, "mean", sum / (double)n);
        cJSON_AddNumberToObject(o, "unique_count", (double)unique);
        cJSON_AddNumberToObject(o, "boundary_count", (double)boundary);
    }
    if (raw)
        cJSON_AddBoolToObject(o, "used_in_probability_metrics", 0);
    free(v);
    return o;
}

static cJSON *metrics_json(const cal_state *st)
{
    const calib_metrics *m = &st->m;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "example_count", (double)m->n);
    cJSON_AddNumberToObject(o, "positive_count", (double)m->positives);
    add_num(o, "brier_score", m->brier);
    add_num(o, "expected_calibration_error", m->ece);
    add_num(o, "maximum_calibration_error", m->mce);
    cJSON_AddItemToObject(o, "reliability_bins", bins_json(m));
    cJSON_AddItemToObject(o, "selective_risk", selective_json(m));
    cJSON_AddItemToObject(o, "probability_summary", summary_json(st, 0));
    cJSON_AddItemToObject(o, "raw_retrieval_score_summary", summary_json(st, 1));
    add_num(o, "aurc", m->aurc);
    cJSON *curve = cJSON_AddArrayToObject(o, "risk_coverage_curve");
    for (size_t i = 0; i < m->n_curve; i++) {
        cJSON *pt = cJSON_CreateArray();
        cJSON_AddItemToArray(pt, cJSON_CreateNumber(round(m->curve[i].coverage * 1e6) / 1e6));
        cJSON_AddItemToArray(pt, cJSON_CreateNumber(round(m->curve[i].risk * 1e6) / 1e6));
        cJSON_AddItemToArray(curve, pt);
    }
    cJSON *op = cJSON_AddObjectToObject(o, "floor_operating_point");
    cJSON_AddStringToObject(op, "floor", st->ro.no_floor ? "off" : "as configured");
    add_num(op, "cosine_threshold", st->floor_threshold);
    cJSON_AddNumberToObject(op, "retained", (double)st->floor_kept);
    add_num(op, "coverage", st->floor_op.coverage);
    add_num(op, "abstention_rate", 1 - st->floor_op.coverage);
    add_num(op, "selective_risk", st->floor_op.risk);
    return o;
}

static cJSON *report_json(const cal_state *st)
{
    cJSON *o = cJSON_CreateObject();
    char id[DIGEST_HEX], when[32];
    calibration_id(st, id);
    store_format_time((int64_t)time(NULL), when, sizeof when);
    cJSON_AddStringToObject(o, "schema", CALREPORT_SCHEMA);
    cJSON_AddStringToObject(o, "evidence_status", "held_out_report");
    cJSON_AddStringToObject(o, "calibration_id", id);
    cJSON_AddStringToObject(o, "created_at", when);
    cJSON_AddItemToObject(o, "identity", identity_json(st));
    cJSON_AddItemToObject(o, "calibrator", calibrator_json(st));
    cJSON_AddItemToObject(o, "evaluation", evaluation_json(st));
    cJSON_AddItemToObject(o, "metrics", metrics_json(st));
    cJSON *sep = cJSON_AddObjectToObject(o, "separation");
    cJSON_AddStringToObject(sep, "raw_score_field", "ranking_score");
    cJSON_AddStringToObject(sep, "probability_metric_input", "platt_scaling(ranking_score)");
    cJSON_AddBoolToObject(sep, "raw_retrieval_score_used_as_probability", 0);
    cJSON_AddStringToObject(o, "runtime_calibration_status", "uncalibrated");
    cJSON_AddBoolToObject(o, "runtime_activation_allowed", 0);
    cJSON_AddNullToObject(o, "answer_confidence");
    cJSON_AddStringToObject(o, "runtime_activation_reason",
                            "memscope produces no answers: recall keeps calibration_status "
                            "\"uncalibrated\" and answer_confidence null; this report is "
                            "evidence for a release decision only");
    return o;
}

/* ---- saving --------------------------------------------------------------------- */

/* Write the report beside each distinct store: every copy to a temporary
 * file first, then all renamed, so a failure leaves no new report. */
static int save_reports(const cal_state *st, cJSON *report)
{
    char tmp[CAL_JOBS_MAX][1200], dst[CAL_JOBS_MAX][1100];
    int n = 0, status = EXIT_OK;
    for (int j = 0; j < st->nj && !status; j++) {
        int seen = 0;
        for (int k = 0; k < j; k++)
            seen |= strcmp(st->jobs[k].path, st->jobs[j].path) == 0;
        if (seen)
            continue;
        cJSON *copy = cJSON_Duplicate(report, 1);
        cJSON *me = cJSON_AddObjectToObject(copy, "this_store");
        cJSON_AddStringToObject(me, "path", st->jobs[j].path);
        cJSON_AddStringToObject(me, "profile", st->jobs[j].profile_used);
        cJSON_AddStringToObject(me, "content_sha256", st->jobs[j].content);
        char *text = cJSON_Print(copy);
        cJSON_Delete(copy);
        calreport_path(st->jobs[j].path, dst[n], sizeof dst[n]);
        snprintf(tmp[n], sizeof tmp[n], "%s.tmp%ld", dst[n], (long)getpid());
        FILE *f = text ? fopen(tmp[n], "w") : NULL;
        int bad = !f || fprintf(f, "%s\n", text) < 0;
        bad |= f && fclose(f) != 0;
        free(text);
        n++;
        struct stat sb;
        if (bad)
            status = cli_error(EXIT_RUNTIME, "cannot write the report %s", tmp[n - 1]);
        else if (stat(dst[n - 1], &sb) == 0 && !S_ISREG(sb.st_mode))
            status = cli_error(EXIT_RUNTIME, "cannot save the report %s: not a file", dst[n - 1]);
    }
    for (int k = 0; k < n && !status; k++)
        if (rename(tmp[k], dst[k]))
            status = cli_error(EXIT_RUNTIME, "cannot save the report %s", dst[k]);
    for (int k = 0; k < n; k++)
        unlink(tmp[k]); /* after a failure; a no-op after the renames */
    return status;
}

/* ---- printing ------------------------------------------------------------------- */

static void print_text(const cal_state *st, const cJSON *report)
{
    const calib_metrics *m = &st->m;
    cli_printf(stdout, "calibration id  %s (SHA-256)\n",
               cJSON_GetObjectItemCaseSensitive(report, "calibration_id")->valuestring);
    cli_printf(stdout,
               "signal          the top result is evidence for the question (raw score: the top\n"
               "                result's ranking score, recalled without the floor)\n");
    cli_printf(stdout,
               "calibrator      Platt scaling on %zu fit examples (%zu positive): a = %.4f, b = "
               "%.4f\n",
               st->platt.positives + st->platt.negatives, st->platt.positives, st->platt.a,
               st->platt.b);
    cli_printf(stdout, "held out        %zu examples, %zu positive; raw-score AUC %.3f\n", m->n,
               m->positives, st->auc);
    cli_printf(stdout, "metrics         Brier %.4f  ECE %.4f  MCE %.4f  AURC %.4f\n", m->brier,
               m->ece, m->mce, m->aurc);
    cli_printf(stdout, "\nreliability     bin        count  mean p  observed  gap\n");
    for (int k = 0; k < CALIB_BINS; k++) {
        const calib_bin *b = &m->bins[k];
        cli_printf(stdout, "                %.1f-%.1f%s %6zu", b->lower, b->upper,
                   k == 9 ? "]" : ")", b->count);
        if (b->count)
            cli_printf(stdout, "  %6.3f  %8.3f  %5.3f\n", b->mean_p, b->observed, b->gap);
        else
            cli_printf(stdout, "       -         -      -\n");
    }
    cli_printf(stdout, "\nselective risk  threshold  retained  coverage  abstention  risk\n");
    for (int k = 0; k < CALIB_THRESHOLDS; k++) {
        const calib_selective *s = &m->sel[k];
        cli_printf(stdout, "                %9.2f  %8zu  %8.3f  %10.3f  ", s->threshold,
                   s->retained, s->coverage, s->abstention_rate);
        if (s->risk_defined)
            cli_printf(stdout, "%.3f\n", s->risk);
        else
            cli_printf(stdout, "-\n");
    }
    cli_printf(stdout,
               "\nfloor           %s (cosine %.2f): keeps %zu of %zu (coverage %.3f), risk %.3f\n",
               st->ro.no_floor ? "off" : "as configured", st->floor_threshold, st->floor_kept, m->n,
               st->floor_op.coverage, st->floor_op.risk);
    cli_printf(stdout, "runtime         uncalibrated: recall's answer_confidence stays null\n");
}

static void print_saved(const cal_state *st, FILE *out)
{
    for (int j = 0; j < st->nj; j++) {
        int seen = 0;
        for (int k = 0; k < j; k++)
            seen |= strcmp(st->jobs[k].path, st->jobs[j].path) == 0;
        char p[1100];
        calreport_path(st->jobs[j].path, p, sizeof p);
        if (!seen)
            cli_printf(out, "saved           %s\n", p);
    }
}

static int print_report(const cal_state *st, const cJSON *report)
{
    if (st->json) {
        char *text = cJSON_PrintUnformatted(report);
        cli_print_json(stdout, text ? text : "{}");
        cli_printf(stdout, "\n");
        free(text);
    } else {
        print_text(st, report);
        print_saved(st, stdout);
    }
    if (st->plot) {
        char *pic = calplot_text(report, 72, 1);
        cli_put_own(st->json ? stderr : stdout, pic ? pic : ""); /* built from numbers */
        free(pic);
    }
    return EXIT_OK;
}

static void free_state(cal_state *st)
{
    for (int j = 0; j < st->nj; j++)
        labels_free(&st->jobs[j].labels);
    free(st->ex);
    free(st->config);
    calib_metrics_free(&st->m);
}

static int calibrate(cal_state *st, cli_common *c)
{
    int status = EXIT_OK;
    size_t total = 0;
    for (int j = 0; !status && j < st->nj; j++) {
        status = read_job(c, &st->jobs[j]);
        total += st->jobs[j].labels.n;
    }
    if (!status)
        status = refuse_overlap(st);
    if (!status)
        status = refuse_small(st);
    if (!status && !(st->ex = calloc(total + 1, sizeof *st->ex)))
        status = cli_error(EXIT_RUNTIME, "out of memory");
    for (int j = 0; !status && j < st->nj; j++)
        status = run_job(st, c, j);
    if (!status)
        status = fit_and_score(st);
    if (status)
        return status;
    cJSON *report = report_json(st);
    status = save_reports(st, report);
    if (!status)
        status = print_report(st, report);
    cJSON_Delete(report);
    return status;
}

static int run_calibrate(cli_common *c, int argc, char **argv)
{
    static cal_state st;
    memset(&st, 0, sizeof st);
    recall_opts_init(&st.ro);
    int status = parse_args(&st, c, argc, argv);
    if (!status)
        status = calibrate(&st, c);
    free_state(&st);
    return status;
}
