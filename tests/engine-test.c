/* engine-test.c - the retrieval engine against the Retrieval Score Contract
 * v2 (docs/SCORE_CONTRACT.md):
 *
 *  - contract: the six contract fields, exactly, on every response; score
 *    bounds; legacy aliases; rank positions; no answer probability anywhere;
 *  - abstention: no_candidates (empty store, empty profile, every channel
 *    disabled, words that resemble nothing) and evidence_floor (off-topic);
 *  - recompute: fused, boosted, ranking and relevance rebuilt from the JSON
 *    trace alone, within 1e-9 relative, and recall_audit agreeing;
 *  - determinism, channel top-N cut, hostile query strings, query limits,
 *    --require-channels, --explain verdicts, health, a store changed (or
 *    broken) under an open engine, and recall never writing.
 *
 * Builds its own small stores with store_put and the built-in embedder in
 * one temporary directory that it removes at the end. Links only libcore. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "engine/embed.h"
#include "engine/engine.h"
#include "engine/stopwords.h"
#include "store/store.h"
#include "tests/tap.h"

static char tmpdir[] = "/tmp/memscope-engine-test-XXXXXX";
#include "tests/testdir.h"
static embedder *emb; /* the built-in embedder, shared by every store */

/* ---- building stores ------------------------------------------------------ */

typedef struct mem_spec {
    const char *id, *speaker, *session, *created, *event, *content;
    double conf, alpha, beta; /* 0: the store's default */
    int pinned;
} mem_spec;

/* A small life: a dentist booking, a dog, a training plan, a pinned note, an
 * isolated note and a low-trust rumour. Sessions make adjacency edges; names
 * make entities. */
static const mem_spec life[] = {
    {"d1", "Leah", "s1", "2025-09-24T08:00:00Z", "2025-10-14T07:40:00Z",
     "Leah: I booked the dentist for Tuesday 14 October at 08:40.", 0.9, 9, 1, 0},
    {"d2", "Assistant", "s1", "2025-09-24T08:01:00Z", NULL,
     "Assistant: Noted. I will remind you the evening before.", 0.8, 3, 1, 0},
    {"d3", "Leah", "s1", "2025-09-24T08:02:00Z", NULL,
     "Leah: Thanks. Remind me to bring the insurance card too.", 0, 0, 0, 0},
    {"g1", "Sam", "s2", "2025-08-02T17:00:00Z", NULL,
     "Sam: My greyhound Biscuit loves long walks in Ashton Court.", 0, 0, 0, 0},
    {"g2", "Leah", "s2", "2025-08-02T17:01:00Z", NULL,
     "Leah: Biscuit is the gentlest dog I have ever met.", 0, 0, 0, 0},
    {"g3", "Sam", "s2", "2025-08-02T17:02:00Z", NULL, "Sam: He sleeps on the sofa all afternoon.",
     0, 0, 0, 0},
    {"r1", "Leah", "s3", "2025-06-10T07:00:00Z", NULL,
     "Leah: The marathon training plan starts with three short runs a week.", 0, 0, 0, 0},
    {"r2", "Assistant", "s3", "2025-06-10T07:01:00Z", NULL,
     "Assistant: Start slowly and rest on Sundays.", 0, 0, 0, 0},
    {"p1", NULL, "notes-p", "2024-01-01T09:00:00Z", NULL,
     "Emergency contact: Priya Shah, phone 07700 900123.", 1.0, 9, 1, 1},
    {"x1", NULL, "notes-x", "2025-03-03T09:00:00Z", NULL,
     "The boiler service is booked with Hartley Heating.", 0, 0, 0, 0},
    {"t1", NULL, "notes-t", "2025-05-05T09:00:00Z", NULL,
     "Rumour: the office moves to Temple Quay next spring.", 0.3, 1, 4, 0},
};
#define N_LIFE (sizeof life / sizeof *life)

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static ms_status put_spec(store *s, const mem_spec *sp)
{
    store_memory m;
    store_memory_init(&m);
    m.id = dup_or_null(sp->id);
    m.speaker = dup_or_null(sp->speaker);
    m.session = dup_or_null(sp->session);
    m.created_at = dup_or_null(sp->created);
    m.event_time = dup_or_null(sp->event);
    m.content = dup_or_null(sp->content);
    if (sp->conf > 0)
        m.memory_confidence = sp->conf;
    if (sp->alpha > 0) {
        m.trust_alpha = sp->alpha;
        m.trust_beta = sp->beta;
    }
    m.pinned = sp->pinned;
    ms_error err;
    ms_error_clear(&err);
    ms_status st = store_put(s, &m, STORE_DUP_ERROR, NULL, &err);
    if (st)
        diag("put %s: %s", sp->id, err.msg);
    store_memory_clear(&m);
    return st;
}

/* A new store at tmpdir/name holding the n memories of specs, with vectors
 * from the built-in embedder when vectors. NULL (with a diagnostic) on
 * failure. */
static store *make_store(const char *name, const mem_spec *specs, size_t n, int vectors)
{
    store *s = NULL;
    ms_error err;
    ms_error_clear(&err);
    unlink(tpath(name));
    if (store_open(tpath(name), 0, &s, &err)) {
        diag("store_open %s: %s", name, err.msg);
        return NULL;
    }
    if (vectors) {
        store_vectorizer v;
        embed_vectorizer(emb, &v);
        store_set_vectorizer(s, &v);
    }
    ms_status st = n ? store_begin(s, &err) : MS_OK;
    for (size_t i = 0; !st && i < n; i++)
        st = put_spec(s, &specs[i]);
    if (n && !st)
        st = store_end(s, &err);
    else if (n)
        store_rollback(s);
    store_set_vectorizer(s, NULL);
    if (st) {
        diag("building %s: %s", name, err.msg);
        store_close(s);
        return NULL;
    }
    return s;
}

static engine *open_engine(store *s)
{
    engine *e = NULL;
    ms_error err;
    ms_error_clear(&err);
    if (!s || engine_open(s, NULL, &e, &err)) {
        diag("engine_open: %s", s ? err.msg : "no store");
        return NULL;
    }
    return e;
}

/* ---- running recalls -------------------------------------------------------- */

typedef struct resp {
    ms_status st;
    ms_error err;
    recall_result *r;
    char *text; /* recall_json(r, trace = 1) */
    cJSON *j;   /* the parsed text */
} resp;

static void resp_free(resp *p)
{
    recall_free(p->r);
    free(p->text);
    cJSON_Delete(p->j);
    memset(p, 0, sizeof *p);
}

/* Recall with options o (query set by the caller) and parse the traced
 * JSON. */
static resp run(engine *e, const recall_opts *o)
{
    resp p;
    memset(&p, 0, sizeof p);
    ms_error_clear(&p.err);
    p.st = engine_recall(e, o, &p.r, &p.err);
    if (p.st == MS_OK && p.r) {
        p.text = recall_json(p.r, 1);
        p.j = p.text ? cJSON_Parse(p.text) : NULL;
    }
    return p;
}

static resp ask(engine *e, const char *query)
{
    recall_opts o;
    recall_opts_init(&o);
    o.query = query;
    return run(e, &o);
}

static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = get(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = get(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A short printable form of a query for test names: bytes outside
 * printable ASCII (and '#', which TAP reads as a directive) become '?'. */
static const char *label(const char *q)
{
    static char buf[40];
    size_t o = 0;
    for (; q[o] && o + 2 < sizeof buf; o++) {
        unsigned char c = (unsigned char)q[o];
        buf[o] = c < 0x20 || c >= 0x7f || c == '#' ? '?' : (char)c;
    }
    if (q[o])
        buf[o++] = '~';
    buf[o] = '\0';
    return o ? buf : "(empty)";
}

/* ---- the contract ------------------------------------------------------------- */

#define BAD(...) (bad++, diag(__VA_ARGS__))

/* The six contract fields, exactly. Returns the number of violations. */
static int contract_fields(const cJSON *j)
{
    int bad = 0;
    if (!cJSON_IsObject(j))
        return diag("the response is not a JSON object"), 1;
    const char *v = str(j, "score_contract_version");
    if (!v || strcmp(v, "2") != 0)
        BAD("score_contract_version is not the string \"2\"");
    v = str(j, "calibration_status");
    if (!v || strcmp(v, "uncalibrated") != 0)
        BAD("calibration_status is not \"uncalibrated\"");
    if (!cJSON_IsNull(get(j, "calibration_id")))
        BAD("calibration_id is not null");
    if (!cJSON_IsNull(get(j, "answer_confidence")))
        BAD("answer_confidence is not null");
    const cJSON *ab = get(j, "abstained");
    if (!cJSON_IsBool(ab))
        BAD("abstained is not a boolean");
    const cJSON *why = get(j, "abstention_reason");
    if (cJSON_IsTrue(ab)) {
        if (!cJSON_IsString(why) || (strcmp(why->valuestring, "no_candidates") != 0 &&
                                     strcmp(why->valuestring, "evidence_floor") != 0))
            BAD("abstained but abstention_reason is not no_candidates/evidence_floor");
    } else if (!cJSON_IsNull(why)) {
        BAD("not abstained but abstention_reason is not null");
    }
    const cJSON *res = get(j, "results");
    if (!cJSON_IsArray(res))
        BAD("results is not an array");
    else if (cJSON_IsTrue(ab) != (cJSON_GetArraySize(res) == 0))
        BAD("abstained is %s with %d results", cJSON_IsTrue(ab) ? "true" : "false",
            cJSON_GetArraySize(res));
    return bad;
}

/* Scores of one result (or nearest miss): bounds and aliases. */
static int result_fields(const cJSON *h, int want_rank)
{
    int bad = 0;
    const char *id = str(h, "id");
    double rel = num(h, "relevance_score"), mc = num(h, "memory_confidence"),
           tr = num(h, "trust_score");
    if (!id)
        BAD("a result has no id");
    if (!(rel >= 0 && rel <= 1))
        BAD("%s: relevance_score %g is outside 0..1", id, rel);
    if (!(mc >= 0 && mc <= 1))
        BAD("%s: memory_confidence %g is outside 0..1", id, mc);
    if (!(tr >= 0 && tr <= 1))
        BAD("%s: trust_score %g is outside 0..1", id, tr);
    if (!isfinite(num(h, "ranking_score")))
        BAD("%s: ranking_score is not a number", id);
    if (num(h, "score") != rel)
        BAD("%s: score %.17g != relevance_score %.17g", id, num(h, "score"), rel);
    if (num(h, "confidence") != mc)
        BAD("%s: confidence %.17g != memory_confidence %.17g", id, num(h, "confidence"), mc);
    if (want_rank && num(h, "rank_position") != want_rank)
        BAD("%s: rank_position %g, expected %d", id, num(h, "rank_position"), want_rank);
    if (!want_rank && get(h, "rank_position"))
        BAD("%s: a nearest miss has a rank_position", id);
    static const char *const text_fields[] = {"content", "created_at"};
    for (size_t k = 0; k < 2; k++)
        if (!str(h, text_fields[k]))
            BAD("%s: %s is not a string", id, text_fields[k]);
    static const char *const nullable[] = {"event_time", "speaker"};
    for (size_t k = 0; k < 2; k++)
        if (!str(h, nullable[k]) && !cJSON_IsNull(get(h, nullable[k])))
            BAD("%s: %s is neither a string nor null", id, nullable[k]);
    return bad;
}

/* No key anywhere derives an answer probability or a calibration: the only
 * keys that mention answers, probabilities or calibration are the contract's
 * own, at the top level. */
static int no_answer_probability(const cJSON *node, int depth)
{
    int bad = 0;
    for (const cJSON *c = node ? node->child : NULL; c; c = c->next) {
        const char *k = c->string;
        if (k && (strstr(k, "answer") || strstr(k, "probab") || strstr(k, "calibrat")) &&
            !(depth == 0 &&
              (strcmp(k, "answer_confidence") == 0 || strcmp(k, "calibration_status") == 0 ||
               strcmp(k, "calibration_id") == 0)))
            BAD("key \"%s\" at depth %d looks like an answer probability", k, depth);
        if (cJSON_IsObject(c) || cJSON_IsArray(c))
            bad += no_answer_probability(c, depth + 1);
    }
    return bad;
}

/* Each memory appears once: among the results, and among results and
 * nearest misses together. */
static int distinct_ids(const cJSON *res, const cJSON *misses)
{
    int bad = 0;
    const cJSON *lists[2] = {res, misses};
    for (int a = 0; a < 2; a++)
        for (const cJSON *h = lists[a] ? lists[a]->child : NULL; h; h = h->next)
            for (int b = a; b < 2; b++)
                for (const cJSON *g = b == a     ? h->next
                                      : lists[b] ? lists[b]->child
                                                 : NULL;
                     g; g = g->next)
                    if (str(h, "id") && str(g, "id") && strcmp(str(h, "id"), str(g, "id")) == 0)
                        BAD("memory %s appears twice in the response", str(h, "id"));
    return bad;
}

/* Every contract check of one response. */
static int contract(const cJSON *j)
{
    int bad = contract_fields(j);
    const cJSON *res = get(j, "results");
    int pos = 0;
    double prev = INFINITY;
    for (const cJSON *h = res ? res->child : NULL; h; h = h->next) {
        bad += result_fields(h, ++pos);
        double rs = num(h, "ranking_score");
        if (rs > prev)
            BAD("results are not ordered by ranking_score (%g after %g)", rs, prev);
        prev = rs;
    }
    const cJSON *misses = get(get(j, "floor"), "nearest_misses");
    if (!cJSON_IsArray(misses))
        BAD("floor.nearest_misses is not an array");
    for (const cJSON *h = misses ? misses->child : NULL; h; h = h->next)
        bad += result_fields(h, 0);
    bad += distinct_ids(res, misses);
    bad += no_answer_probability(j, 0);
    return bad;
}

/* ---- recomputing every score from the trace ---------------------------------------- */

static int close_rel(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)) || fabs(a - b) <= 1e-15;
}

#define CHECK_CLOSE(what, got, want)                                                               \
    do {                                                                                           \
        double g_ = (got), w_ = (want);                                                            \
        if (!close_rel(g_, w_))                                                                    \
            BAD("%s: %s is %.17g, recomputed %.17g", id, what, g_, w_);                            \
    } while (0)

/* Does the temporal channel apply to this query (a date, a when- or a
 * recency question)? Then the best possible score includes it. */
static int temporal_applies(const cJSON *j)
{
    const char *qt = str(j, "query_type");
    const cJSON *dates = get(get(j, "analysis"), "dates");
    return cJSON_GetArraySize(dates) > 0 ||
           (qt && (strcmp(qt, "temporal") == 0 || strcmp(qt, "recency") == 0));
}

/* The best boosted score any memory could reach, from the response's channel
 * weights and activity: each applicable active channel ranking it first. */
static double best_fused(const cJSON *j)
{
    const cJSON *w = get(j, "channel_weights"), *chs = get(j, "channels");
    double k = num(j, "rrf_k"), best = 0;
    for (int c = 0; c < CH_COUNT; c++) {
        const char *name = engine_channel_name(c);
        if (!cJSON_IsTrue(get(get(chs, name), "active")))
            continue;
        if (c == CH_TEMPORAL && !temporal_applies(j))
            continue;
        best += num(w, name) / (k + 1);
    }
    return best;
}

/* Recompute one traced result from its trace and the response-level
 * weights and k. */
static int recompute_hit(const cJSON *j, const cJSON *h)
{
    int bad = 0;
    const char *id = str(h, "id");
    const cJSON *t = get(h, "trace");
    if (!cJSON_IsObject(t))
        return diag("%s: no trace", id ? id : "?"), 1;
    if (!id)
        id = "?";
    double k = num(j, "rrf_k");
    const cJSON *w = get(j, "channel_weights"), *chs = get(j, "channels");
    CHECK_CLOSE("trace.rrf_k", num(t, "rrf_k"), k);
    double fused = 0;
    int n_ch = 0;
    for (const cJSON *c = get(t, "channels")->child; c; c = c->next, n_ch++) {
        int ch = engine_channel_parse(c->string);
        double rank = num(c, "rank"), weight = num(c, "weight");
        if (ch < 0) {
            BAD("%s: unknown channel %s in the trace", id, c->string);
            continue;
        }
        if (!cJSON_IsTrue(get(get(chs, c->string), "active")))
            BAD("%s: inactive channel %s ranked it", id, c->string);
        if (!(rank >= 1 && rank == floor(rank) && rank <= num(get(chs, c->string), "candidates")))
            BAD("%s: %s rank %g is not within 1..candidates", id, c->string, rank);
        if (weight != num(w, c->string))
            BAD("%s: %s weight %g differs from channel_weights %g", id, c->string, weight,
                num(w, c->string));
        if (!isfinite(num(c, "raw")))
            BAD("%s: %s raw is not a number", id, c->string);
        CHECK_CLOSE("contribution", num(c, "contribution"), weight / (k + rank));
        fused += weight / (k + rank);
    }
    if (n_ch == 0)
        BAD("%s: no channel ranked it, yet it is a candidate", id);
    CHECK_CLOSE("fused", num(t, "fused"), fused);
    const cJSON *eg = get(t, "entity_graph"), *egw = get(w, "entity_graph");
    double factor = (1 + num(egw, "speaker") * cJSON_IsTrue(get(eg, "speaker_named"))) *
                    (1 + num(egw, "mention") * cJSON_IsTrue(get(eg, "entity_named")));
    CHECK_CLOSE("entity_graph.factor", num(eg, "factor"), factor);
    CHECK_CLOSE("entity_graph.score", num(eg, "score"), factor - 1);
    double boosted = fused * factor;
    CHECK_CLOSE("boosted", num(t, "boosted"), boosted);
    double ranking = boosted;
    for (const cJSON *a = get(t, "adjustments")->child; a; a = a->next) {
        double f = num(a, "factor");
        if (!(f > 0))
            BAD("%s: adjustment %s has factor %g", id, str(a, "name"), f);
        ranking *= f;
    }
    CHECK_CLOSE("ranking_score", num(h, "ranking_score"), ranking);
    const cJSON *rel = get(t, "relevance");
    double maxb = num(rel, "max_boosted");
    CHECK_CLOSE("relevance.boosted", num(rel, "boosted"), boosted);
    CHECK_CLOSE("relevance_score", num(h, "relevance_score"),
                maxb > 0 ? fmin(1.0, boosted / maxb) : 0);
    /* max_boosted is the best fused score times the entity factors the
     * query's names allow: 1, 1 + speaker, 1 + mention or both. */
    double base = best_fused(j), sp = num(egw, "speaker"), me = num(egw, "mention");
    double allowed[4] = {1, 1 + sp, 1 + me, (1 + sp) * (1 + me)};
    int any = 0;
    for (int a = 0; a < 4; a++)
        any |= close_rel(maxb, base * allowed[a]);
    if (!any)
        BAD("%s: max_boosted %.17g is not the best fused %.17g times an entity factor", id, maxb,
            base);
    if (cJSON_GetArraySize(get(get(j, "analysis"), "entities")) == 0 && !close_rel(maxb, base))
        BAD("%s: no entity named, yet max_boosted %.17g != %.17g", id, maxb, base);
    if (boosted > maxb * (1 + 1e-12))
        BAD("%s: boosted %.17g exceeds max_boosted %.17g", id, boosted, maxb);
    return bad;
}

/* Recompute every result and nearest miss of a traced response. */
static int recompute(const cJSON *j)
{
    int bad = 0;
    const cJSON *res = get(j, "results");
    for (const cJSON *h = res ? res->child : NULL; h; h = h->next)
        bad += recompute_hit(j, h);
    const cJSON *misses = get(get(j, "floor"), "nearest_misses");
    for (const cJSON *h = misses ? misses->child : NULL; h; h = h->next)
        bad += recompute_hit(j, h);
    return bad;
}

/* The documented adjustments: trust 0.5 + trust_score, confidence 0.75 +
 * 0.25 * memory_confidence (stored as float: compared within 1e-6), and
 * recency only for recency questions. */
static int adjustments_documented(const cJSON *j)
{
    int bad = 0;
    int recency_q = str(j, "query_type") && strcmp(str(j, "query_type"), "recency") == 0;
    for (const cJSON *h = get(j, "results")->child; h; h = h->next) {
        const char *id = str(h, "id");
        int seen_trust = 0, seen_conf = 0, seen_recency = 0;
        for (const cJSON *a = get(get(h, "trace"), "adjustments")->child; a; a = a->next) {
            const char *name = str(a, "name");
            double f = num(a, "factor");
            if (name && strcmp(name, "trust") == 0) {
                seen_trust = 1;
                if (fabs(f - (0.5 + num(h, "trust_score"))) > 1e-6)
                    BAD("%s: trust factor %g != 0.5 + trust_score %g", id, f,
                        num(h, "trust_score"));
            } else if (name && strcmp(name, "confidence") == 0) {
                seen_conf = 1;
                if (fabs(f - (0.75 + 0.25 * num(h, "memory_confidence"))) > 1e-6)
                    BAD("%s: confidence factor %g != 0.75 + 0.25 * %g", id, f,
                        num(h, "memory_confidence"));
            } else if (name && strcmp(name, "recency") == 0) {
                seen_recency = 1;
                if (!(f >= 0.8 && f <= 1.1))
                    BAD("%s: recency factor %g outside 0.8..1.1", id, f);
            }
        }
        if (!seen_trust || !seen_conf || seen_recency != recency_q)
            BAD("%s: adjustments are not trust, confidence%s", id, recency_q ? " and recency" : "");
    }
    return bad;
}

/* ---- the checks every response gets ------------------------------------------------- */

/* Contract, recompute and audit of one response; name says which. */
static void check_response(const resp *p, const char *name)
{
    if (!ok(p->st == MS_OK && p->j, "%s: recall answers (MS_OK, JSON parses)", name)) {
        diag("status %d: %s", p->st, p->err.msg);
        return;
    }
    ok(contract(p->j) == 0, "%s: contract fields, bounds, aliases, rank positions", name);
    ok(recompute(p->j) == 0, "%s: every score recomputes from the trace", name);
    char report[2048];
    int audit = recall_audit(p->r, report, sizeof report);
    if (!ok(audit == 0, "%s: recall_audit finds no mismatch", name))
        diag("%s", report);
}

/* ---- tests ------------------------------------------------------------------------------ */

static store *life_store;
static engine *life_engine;

/* Questions over the life store that exercise every channel, entity names,
 * dates, recency and the floor (with as_of fixed). */
static const char *const fixture_queries[] = {
    "When is my dentist appointment?",
    "dentist",
    "What does Biscuit like?",
    "What did Sam say about the greyhound?",
    "marathon training runs",
    "Who is my emergency contact?",
    "What happened on 14 October 2025?",
    "What is the most recent news about the office?",
    "Tell me about Leah and Sam",
    "boiler service Hartley",
    "What is the weather forecast for the week?",
    "Did Leah talk to Sam about Biscuit in Ashton Court?",
};
#define N_FIXTURE (sizeof fixture_queries / sizeof *fixture_queries)

static void test_contract_and_recompute(void)
{
    int64_t as_of;
    store_parse_time("2025-10-01T12:00:00Z", &as_of);
    int answered = 0, abstained = 0, with_entity = 0, with_temporal = 0;
    for (size_t q = 0; q < N_FIXTURE; q++) {
        recall_opts o;
        recall_opts_init(&o);
        o.query = fixture_queries[q];
        o.as_of = as_of;
        resp p = run(life_engine, &o);
        check_response(&p, fixture_queries[q]);
        if (p.j) {
            ok(adjustments_documented(p.j) == 0, "%s: adjustments are the documented ones",
               fixture_queries[q]);
            answered += !p.r->abstained;
            abstained += p.r->abstained;
            for (size_t i = 0; i < p.r->n_hits; i++) {
                with_entity += p.r->hits[i].eg_factor > 1;
                with_temporal += p.r->hits[i].ch[CH_TEMPORAL].ranked;
            }
        }
        resp_free(&p);
        /* the same with --no-floor: more results, same arithmetic */
        o.no_floor = 1;
        o.limit = 50;
        p = run(life_engine, &o);
        if (p.j)
            ok(contract(p.j) == 0 && recompute(p.j) == 0 && recall_audit(p.r, NULL, 0) == 0,
               "%s: --no-floor --limit 50 is consistent too", fixture_queries[q]);
        resp_free(&p);
    }
    /* the fixture set must exercise what it claims to */
    ok(answered >= 8 && abstained >= 1, "the fixture queries answer (%d) and abstain (%d)",
       answered, abstained);
    ok(with_entity > 0, "some fixture result carries an entity-graph factor above 1");
    ok(with_temporal > 0, "some fixture result was ranked by the temporal channel");

    /* weight and k overrides are followed by the arithmetic */
    recall_opts o;
    recall_opts_init(&o);
    o.query = "What does Biscuit like?";
    o.rrf_k = 0;
    o.weights[CH_BM25] = 2.5;
    o.weights[CH_SPREADING] = 0;
    o.weights_set = CH_MASK(CH_BM25) | CH_MASK(CH_SPREADING);
    resp p = run(life_engine, &o);
    check_response(&p, "--rrf-k 0 --weights bm25=2.5,spreading=0");
    ok(p.j && num(p.j, "rrf_k") == 0 && num(get(p.j, "channel_weights"), "bm25") == 2.5 &&
           num(get(p.j, "channel_weights"), "spreading") == 0,
       "the response states the overridden k and weights");
    resp_free(&p);

    /* weight 0 is allowed: a memory ranked only by zero-weight channels
     * (fused 0) must still be one candidate, not one per channel */
    static const char *const zero[] = {"bm25=0", "semantic=0,bm25=0,temporal=0,spreading=0",
                                       "semantic=0,bm25=0,temporal=0,hopfield=0,spreading=0"};
    for (size_t z = 0; z < sizeof zero / sizeof *zero; z++) {
        recall_opts_init(&o);
        o.query = "What does Biscuit like?";
        o.no_floor = 1;
        o.limit = 50;
        engine_weight_list(zero[z], o.weights, &o.weights_set);
        p = run(life_engine, &o);
        char name[96];
        snprintf(name, sizeof name, "--weights %s --no-floor", zero[z]);
        check_response(&p, name);
        ok(p.r && p.r->n_hits > 0, "%s still returns its candidates", name);
        resp_free(&p);
    }
}

static void test_recompute_can_fail(void)
{
    /* The recompute must notice a wrong number: corrupt one contribution,
     * one factor and one relevance and expect three complaints. */
    resp p = ask(life_engine, "What does Biscuit like?");
    const cJSON *h = p.j ? get(p.j, "results")->child : NULL;
    cJSON *t = h ? cJSON_GetObjectItemCaseSensitive(h, "trace") : NULL;
    if (!ok(t != NULL, "a traced result to tamper with")) {
        resp_free(&p);
        return;
    }
    cJSON *c = cJSON_GetObjectItemCaseSensitive(t, "channels")->child;
    cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(c, "contribution"),
                         num(c, "contribution") * (1 + 1e-6));
    diag("the next diagnostics are expected: the recompute catches tampered numbers");
    ok(recompute_hit(p.j, h) > 0, "a contribution off by 1e-6 relative is caught");
    cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(c, "contribution"),
                         num(get(p.j, "channel_weights"), c->string) /
                             (num(p.j, "rrf_k") + num(c, "rank")));
    cJSON *rel = cJSON_GetObjectItemCaseSensitive((cJSON *)h, "relevance_score");
    double keep = rel->valuedouble;
    cJSON_SetNumberValue(rel, keep * 0.5);
    ok(recompute_hit(p.j, h) > 0, "a relevance_score that is not min(1, boosted/max) is caught");
    cJSON_SetNumberValue(rel, keep);
    /* and recall_audit notices a hit whose stored numbers disagree */
    p.r->hits[0].ranking_score *= 1.001;
    ok(recall_audit(p.r, NULL, 0) > 0, "recall_audit catches a ranking_score off by 0.1 %%");
    p.r->hits[0].ranking_score /= 1.001;
    int c0 = 0;
    while (c0 < CH_COUNT - 1 && !p.r->hits[0].ch[c0].ranked)
        c0++;
    p.r->hits[0].ch[c0].contribution += 1e-3;
    ok(p.r->hits[0].ch[c0].ranked && recall_audit(p.r, NULL, 0) > 0,
       "recall_audit catches a wrong contribution");
    resp_free(&p);
}

static void test_abstention(void)
{
    /* an empty store: every channel store_empty, no_candidates */
    store *s = make_store("empty.db", NULL, 0, 1);
    engine *e = open_engine(s);
    resp p = ask(e, "When is my dentist appointment?");
    check_response(&p, "empty store");
    ok(p.r && p.r->abstained && p.r->abstention_reason &&
           strcmp(p.r->abstention_reason, "no_candidates") == 0,
       "empty store: abstains with no_candidates");
    int empty_reasons = 0;
    for (int c = 0; p.j && c < CH_COUNT; c++) {
        const cJSON *ch = get(get(p.j, "channels"), engine_channel_name(c));
        empty_reasons += cJSON_IsFalse(get(ch, "active")) && str(ch, "reason") &&
                         strcmp(str(ch, "reason"), "store_empty") == 0;
    }
    is_int(empty_reasons, CH_COUNT, "empty store: every channel inactive with store_empty");
    ok(p.j && str(p.j, "no_candidates_why") && strstr(str(p.j, "no_candidates_why"), "no memories"),
       "empty store: no_candidates_why says the profile holds no memories");
    resp_free(&p);
    engine_close(e);
    store_close(s);

    /* an empty profile of a full store */
    ms_error err;
    store_use_profile(life_store, "nobody-here", &err);
    p = ask(life_engine, "When is my dentist appointment?");
    check_response(&p, "empty profile");
    ok(p.r && p.r->abstained && strcmp(p.r->abstention_reason, "no_candidates") == 0,
       "an empty profile abstains with no_candidates");
    ok(p.j && strstr(str(p.j, "no_candidates_why"), "nobody-here"),
       "no_candidates_why names the empty profile");
    resp_free(&p);
    store_use_profile(life_store, STORE_DEFAULT_PROFILE, &err);

    /* every channel disabled */
    recall_opts o;
    recall_opts_init(&o);
    o.query = "dentist";
    o.disabled = CH_ALL;
    p = run(life_engine, &o);
    check_response(&p, "all channels disabled");
    ok(p.r && p.r->abstained && strcmp(p.r->abstention_reason, "no_candidates") == 0,
       "every channel disabled: no_candidates");
    int disabled = 0;
    for (int c = 0; p.r && c < CH_COUNT; c++)
        disabled += !p.r->ch[c].active && strcmp(p.r->ch[c].reason, "disabled") == 0;
    is_int(disabled, CH_COUNT, "every channel disabled: each says disabled");
    resp_free(&p);

    /* words that resemble nothing in the store */
    static const char *const nothing[] = {"zzqxj vbnmw", "What is the capital city of Australia?",
                                          "Which planet has the most moons?"};
    for (size_t i = 0; i < sizeof nothing / sizeof *nothing; i++) {
        p = ask(life_engine, nothing[i]);
        check_response(&p, nothing[i]);
        ok(p.r && p.r->abstained && strcmp(p.r->abstention_reason, "no_candidates") == 0 &&
               p.r->candidates == 0,
           "%s: no_candidates (no channel found anything)", nothing[i]);
        resp_free(&p);
    }

    /* off-topic with a word the store knows: candidates, none with evidence */
    static const char *const offtopic[] = {"What is the weather forecast for the week?",
                                           "Recommend a good spring jacket"};
    for (size_t i = 0; i < sizeof offtopic / sizeof *offtopic; i++) {
        p = ask(life_engine, offtopic[i]);
        check_response(&p, offtopic[i]);
        ok(p.r && p.r->abstained && strcmp(p.r->abstention_reason, "evidence_floor") == 0 &&
               p.r->candidates > 0 && p.r->n_hits == 0,
           "%s: evidence_floor (candidates, none past the floor)", offtopic[i]);
        const cJSON *fl = p.j ? get(p.j, "floor") : NULL;
        ok(fl && cJSON_GetArraySize(get(fl, "nearest_misses")) > 0 && str(get(fl, "best"), "id") &&
               num(get(fl, "best"), "value") < num(fl, "threshold") && str(fl, "rule"),
           "%s: the floor names its rule, threshold, best candidate and misses", offtopic[i]);
        const cJSON *m = fl ? get(fl, "nearest_misses")->child : NULL;
        ok(m && cJSON_IsNull(get(get(get(m, "trace"), "floor"), "passed_by")),
           "%s: a nearest miss's trace says it passed by nothing", offtopic[i]);
        resp_free(&p);
        /* --no-floor keeps the same candidates */
        recall_opts_init(&o);
        o.query = offtopic[i];
        o.no_floor = 1;
        p = run(life_engine, &o);
        int all_no_floor = p.r && p.r->n_hits > 0;
        for (size_t h = 0; p.r && h < p.r->n_hits; h++)
            all_no_floor &= strcmp(p.r->hits[h].passed_by, "no_floor") == 0;
        ok(p.r && !p.r->abstained && all_no_floor,
           "%s: --no-floor answers, every result passed_by no_floor", offtopic[i]);
        resp_free(&p);
    }
    /* a looser floor threshold lets the same off-topic query through (the
     * one that asks about no word: the first asks about a "forecast",
     * which nothing holds, at any threshold) */
    recall_opts_init(&o);
    o.query = offtopic[1];
    o.floor_threshold = 0.0;
    p = run(life_engine, &o);
    ok(p.r && !p.r->abstained && p.j && num(get(p.j, "floor"), "threshold") == 0,
       "floor threshold 0: the off-topic query is answered and the threshold reported");
    resp_free(&p);
}

/* Every response field except timings, as text. */
static void strip_timings(cJSON *o)
{
    for (cJSON *c = o ? o->child : NULL; c;) {
        cJSON *next = c->next;
        if (c->string && (strcmp(c->string, "ms") == 0 || strcmp(c->string, "timing_ms") == 0))
            cJSON_Delete(cJSON_DetachItemViaPointer(o, c));
        else if (cJSON_IsObject(c) || cJSON_IsArray(c))
            strip_timings(c);
        c = next;
    }
}

static char *untimed(const resp *p)
{
    if (!p->text)
        return NULL;
    cJSON *j = cJSON_Parse(p->text);
    strip_timings(j);
    char *t = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return t;
}

static void test_determinism(void)
{
    engine *other = open_engine(life_store);
    int same = 0, same_fresh = 0, stripped = 1;
    for (size_t q = 0; q < N_FIXTURE; q++) {
        recall_opts o;
        recall_opts_init(&o);
        o.query = fixture_queries[q];
        store_parse_time("2025-10-01T12:00:00Z", &o.as_of);
        o.explain_id = "g2";
        resp a = run(life_engine, &o), b = run(life_engine, &o), c = run(other, &o);
        char *ta = untimed(&a), *tb = untimed(&b), *tc = untimed(&c);
        same += ta && tb && strcmp(ta, tb) == 0;
        same_fresh += ta && tc && strcmp(ta, tc) == 0;
        stripped &= ta && !strstr(ta, "\"ms\"") && !strstr(ta, "timing_ms");
        free(ta);
        free(tb);
        free(tc);
        resp_free(&a);
        resp_free(&b);
        resp_free(&c);
    }
    is_int(same, N_FIXTURE, "the same query twice gives identical JSON apart from timings");
    is_int(same_fresh, N_FIXTURE, "a second engine on the same store gives identical JSON");
    ok(stripped, "the comparison ignored exactly the ms and timing_ms fields");
    engine_close(other);
}

/* A store big enough that a channel's top-N cut selects (more than 2N + 16
 * candidates), with duplicated texts so that scores tie. */
static void test_top_n(void)
{
    enum { N = 120 };
    mem_spec specs[N];
    char ids[N][16], texts[N][160];
    static const char *const topics[] = {
        "walks the greyhound along the river path", "books a dentist check-up for Tuesday",
        "plans a long training run before the marathon", "repairs the boiler in the cellar",
        "reads about the office move to the harbour"};
    for (int i = 0; i < N; i++) {
        snprintf(ids[i], sizeof ids[i], "n%03d", i);
        /* every fourth text repeats an earlier one exactly: equal scores */
        if (i % 4 == 3)
            memcpy(texts[i], texts[i - 2], sizeof texts[i]); /* no snprintf: -Werror=restrict */
        else
            snprintf(texts[i], sizeof texts[i], "Person %d %s with friend %d", i % 17,
                     topics[i % 5], i % 7);
        specs[i] =
            (mem_spec){ids[i], NULL, NULL, "2025-01-01T00:00:00Z", NULL, texts[i], 0, 0, 0, 0};
    }
    store *s = make_store("topn.db", specs, N, 1);
    engine *e = open_engine(s);
    const char *query = "greyhound walks along the river with a friend";
    int lists_ok = 1, prefix_ok = 1, ties_seen = 0, selects = 0;
    for (int c = CH_SEMANTIC; c <= CH_BM25; c++) {
        recall_opts o;
        recall_opts_init(&o);
        o.query = query;
        o.no_floor = 1;
        o.limit = ENGINE_LIMIT_MAX;
        resp full = run(e, &o);
        o.top_n = 5;
        resp cut = run(e, &o);
        if (!full.r || !cut.r) {
            lists_ok = prefix_ok = 0;
            resp_free(&full);
            resp_free(&cut);
            continue;
        }
        /* the channel's list, by rank, from the full run */
        const recall_hit *by_rank[N + 1] = {0};
        for (size_t i = 0; i < full.r->n_hits; i++) {
            const trace_channel *tc = &full.r->hits[i].ch[c];
            if (tc->ranked && tc->rank >= 1 && tc->rank <= N) {
                if (by_rank[tc->rank])
                    lists_ok = 0; /* two memories share a rank */
                by_rank[tc->rank] = &full.r->hits[i];
            }
        }
        int n = full.r->ch[c].candidates;
        for (int r = 1; r <= n; r++)
            if (!by_rank[r])
                lists_ok = 0;
        for (int r = 2; r <= n && by_rank[r] && by_rank[r - 1]; r++) {
            double a = by_rank[r - 1]->ch[c].raw, b = by_rank[r]->ch[c].raw;
            if (a < b || (a == b && by_rank[r - 1]->mem.rid > by_rank[r]->mem.rid))
                lists_ok = 0;
            ties_seen += a == b;
        }
        /* top_n 5 keeps exactly the first five of the full list */
        int kept = 0;
        for (size_t i = 0; i < cut.r->n_hits; i++) {
            const trace_channel *tc = &cut.r->hits[i].ch[c];
            if (!tc->ranked)
                continue;
            kept++;
            const recall_hit *want = tc->rank <= N ? by_rank[tc->rank] : NULL;
            if (!want || strcmp(want->mem.id, cut.r->hits[i].mem.id) != 0 ||
                want->ch[c].raw != tc->raw)
                prefix_ok = 0;
        }
        if (kept != 5 || cut.r->ch[c].candidates != 5)
            prefix_ok = 0;
        if (n > 2 * 5 + 16)
            selects = 1;
        diag("%s: %d candidates in full, %d kept with top_n 5", engine_channel_name(c), n, kept);
        resp_free(&full);
        resp_free(&cut);
    }
    ok(lists_ok, "semantic and bm25 lists are best first, one memory per rank, ties by rid");
    ok(ties_seen > 0, "the store produced tied scores (%d) to order by rid", ties_seen);
    ok(selects, "a channel had more than 2 * 5 + 16 candidates, so top-N 5 had to select");
    ok(prefix_ok, "--top-n 5 keeps exactly the first five of the full channel list");
    engine_close(e);
    store_close(s);
}

/* Bytes 1..255 cycled, NUL-free junk of length n. */
static char *junk(size_t n, unsigned seed)
{
    char *b = malloc(n + 1);
    for (size_t i = 0; b && i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        b[i] = (char)(1 + (seed >> 16) % 255);
    }
    if (b)
        b[n] = '\0';
    return b;
}

static char *repeat(const char *unit, size_t bytes)
{
    char *b = malloc(bytes + 1);
    size_t u = strlen(unit);
    for (size_t i = 0; b && i < bytes; i++)
        b[i] = unit[i % u];
    if (b)
        b[bytes] = '\0';
    return b;
}

static void hostile_one(const char *q, const char *name)
{
    resp p = ask(life_engine, q);
    check_response(&p, name);
    const char *echo = p.j ? str(p.j, "query") : NULL;
    ok(echo && store_utf8_invalid_at(echo, strlen(echo)) < 0, "%s: the echoed query is valid UTF-8",
       name);
    resp_free(&p);
}

static void test_hostile(void)
{
    static const char *const hostile[] = {
        "\"",
        "\"\"",
        "\"dentist",
        "dentist\"",
        "the \"unbalanced \"quotes",
        "NEAR(",
        "NEAR(dentist biscuit, 2)",
        "NEAR(dentist",
        "col:",
        "content:",
        "content: dentist",
        "context: dentist",
        "ptag: default",
        "{content}",
        "{content context}: dentist",
        "- content : dentist",
        "AND",
        "OR",
        "NOT",
        "AND OR NOT",
        "dentist AND",
        "OR biscuit",
        "NOT dentist",
        "*",
        "dent*",
        "^",
        "^dentist",
        "[",
        "]",
        "[dentist]",
        "(",
        ")",
        "((((",
        "(dentist",
        "dentist)",
        "-",
        "+",
        "-dentist",
        "+biscuit",
        "- + * ^ : ( ) [ ] { } \" ' , .",
        "'",
        "dentist's",
        "\\",
        "%",
        "_",
        "; DROP TABLE memories; --",
        "' OR 1=1 --",
        "\xff\xfe\xfd",
        "dentist \xc3\x28 biscuit",
        "\xe2\x82",
        "\xed\xa0\x80 surrogate",
        "\xf4\x90\x80\x80",
        "\xc0\xaf overlong",
        "\x01\x02\x03 \x1b[31mred\x1b[0m",
        "🦷 dentist 🐕",
        "🦷🐕🏃‍♀️",
        "مرحبا بالعالم",
        "שלום עולם dentist",
        "\xe2\x80\x8f\xe2\x80\xae override dentist",
        "the of and a to in is it",
        "What is it?",
        "",
        "   ",
        "\t\n\r",
        "?",
        "!!!",
        "0",
        "08:40",
        "2025-13-45",
        "on 31 February 2025",
        "14 October",
        "in 99999999999 days",
        "last",
        "Leah Leah Leah Sam",
        "LEAH",
        "Leah's",
        "Biscuit'",
        "'s",
        "a'b'c'd",
        "Ashton Court Ashton Court Ashton Court Ashton Court Ashton Court Ashton Court",
    };
    for (size_t i = 0; i < sizeof hostile / sizeof *hostile; i++)
        hostile_one(hostile[i], label(hostile[i]));

    /* generated: junk, long words, many terms, long runs of capitals */
    char *b;
    for (unsigned seed = 1; seed <= 3; seed++) {
        b = junk(300 * seed, seed);
        char name[40];
        snprintf(name, sizeof name, "NUL-free binary junk #%u", seed);
        hostile_one(b, name);
        free(b);
    }
    b = repeat("x", 300);
    hostile_one(b, "one 300-letter word");
    free(b);
    b = repeat("dentist ", ENGINE_QUERY_MAX);
    hostile_one(b, "'dentist' 512 times (exactly ENGINE_QUERY_MAX bytes)");
    free(b);
    b = repeat("Leah Sam Biscuit Ashton Court Priya ", ENGINE_QUERY_MAX);
    hostile_one(b, "capitalised names for 4096 bytes");
    free(b);
    b = repeat("🦷", ENGINE_QUERY_MAX);
    hostile_one(b, "1024 emoji (4096 bytes)");
    free(b);
    b = repeat("ab\xe2\x82", ENGINE_QUERY_MAX);
    hostile_one(b, "4096 bytes of cut UTF-8 sequences");
    free(b);
    {
        char many[ENGINE_QUERY_MAX + 1];
        size_t o = 0;
        for (int i = 0; o + 12 < sizeof many; i++)
            o += (size_t)snprintf(many + o, sizeof many - o, "w%dq ", i);
        hostile_one(many, "hundreds of distinct terms");
    }
}

static void test_limits(void)
{
    recall_opts o;
    recall_opts_init(&o);
    recall_result *r = (recall_result *)1;
    ms_error err;

    char *big = repeat("dentist ", 100 * 1024);
    o.query = big;
    ms_error_clear(&err);
    ms_status st = engine_recall(life_engine, &o, &r, &err);
    ok(st == MS_LIMIT && r == NULL, "a 100 KB query is MS_LIMIT with no result");
    ok(strstr(err.msg, "102400") && strstr(err.msg, "4096") && !strchr(err.msg, '\n'),
       "the error is one line naming the size and the limit: %s", err.msg);
    big[ENGINE_QUERY_MAX + 1] = '\0';
    r = (recall_result *)1;
    ok(engine_recall(life_engine, &o, &r, &err) == MS_LIMIT && r == NULL,
       "ENGINE_QUERY_MAX + 1 bytes is MS_LIMIT");
    big[ENGINE_QUERY_MAX] = '\0';
    resp p = run(life_engine, &o);
    check_response(&p, "exactly ENGINE_QUERY_MAX bytes");
    resp_free(&p);
    free(big);

    o.query = NULL;
    r = (recall_result *)1;
    ok(engine_recall(life_engine, &o, &r, &err) == MS_USAGE && r == NULL, "no query: MS_USAGE");
    o.query = "dentist";
    o.limit = 0;
    ok(engine_recall(life_engine, &o, &r, &err) == MS_USAGE && r == NULL, "limit 0: MS_USAGE");
    o.limit = ENGINE_LIMIT_MAX + 1;
    ok(engine_recall(life_engine, &o, &r, &err) == MS_USAGE, "limit above the maximum: MS_USAGE");
    o.limit = 10;
    o.top_n = 0;
    ok(engine_recall(life_engine, &o, &r, &err) == MS_USAGE, "top_n 0: MS_USAGE");
    o.top_n = ENGINE_TOPN_MAX + 1;
    ok(engine_recall(life_engine, &o, &r, &err) == MS_USAGE, "top_n above the maximum: MS_USAGE");
    o.top_n = 50;
    o.limit = 1;
    p = run(life_engine, &o);
    ok(p.r && p.r->n_hits == 1, "limit 1 returns one result");
    resp_free(&p);

    /* the option parsers */
    unsigned mask = 0;
    ok(engine_channel_list("all", &mask) == 0 && mask == CH_ALL, "channel list 'all'");
    ok(engine_channel_list("bm25,semantic", &mask) == 0 &&
           mask == (CH_MASK(CH_BM25) | CH_MASK(CH_SEMANTIC)),
       "channel list 'bm25,semantic'");
    ok(engine_channel_list("bm25,nope", &mask) != 0, "an unknown channel is refused");
    ok(engine_channel_list("", &mask) != 0 && engine_channel_list(",", &mask) != 0,
       "an empty channel list is refused");
    double w[CH_COUNT] = {0};
    mask = 0;
    ok(engine_weight_list("bm25=0,semantic=2.5", w, &mask) == 0 && w[CH_BM25] == 0 &&
           w[CH_SEMANTIC] == 2.5 && mask == (CH_MASK(CH_BM25) | CH_MASK(CH_SEMANTIC)),
       "weight list 'bm25=0,semantic=2.5'");
    static const char *const bad_weights[] = {"bm25",     "bm25=",   "bm25=-1", "bm25=nan",
                                              "bm25=inf", "bm25=1x", "x=1",     "bm25=1001"};
    int refused = 0;
    for (size_t i = 0; i < sizeof bad_weights / sizeof *bad_weights; i++)
        refused += engine_weight_list(bad_weights[i], w, &mask) != 0;
    is_int(refused, (int)(sizeof bad_weights / sizeof *bad_weights),
           "malformed weight lists are refused");
    for (int c = 0; c < CH_COUNT; c++)
        is_int(engine_channel_parse(engine_channel_name(c)), c, "channel name %s round-trips",
               engine_channel_name(c));
}

static void test_require_channels(void)
{
    /* a store without vectors: semantic and hopfield are no_vectors */
    store *s = make_store("novec.db", life, N_LIFE, 0);
    engine *e = open_engine(s);
    recall_opts o;
    recall_opts_init(&o);
    o.query = "What does Biscuit like?";
    resp p = run(e, &o);
    check_response(&p, "store without vectors");
    ok(p.r && !p.r->ch[CH_SEMANTIC].active &&
           strcmp(p.r->ch[CH_SEMANTIC].reason, "no_vectors") == 0 && !p.r->ch[CH_HOPFIELD].active &&
           strcmp(p.r->ch[CH_HOPFIELD].reason, "no_vectors") == 0,
       "without vectors: semantic and hopfield inactive with no_vectors");
    ok(p.r && p.r->n_hits > 0, "without vectors the other channels still answer");
    resp_free(&p);

    o.require = CH_MASK(CH_SEMANTIC);
    p = run(e, &o);
    ok(p.st == MS_CHANNEL && p.r == NULL,
       "--require-channels semantic without vectors: MS_CHANNEL");
    ok(strstr(p.err.msg, "semantic") && strstr(p.err.msg, "no_vectors") && !strchr(p.err.msg, '\n'),
       "the error names the channel and its reason: %s", p.err.msg);
    resp_free(&p);
    o.require = CH_ALL;
    p = run(e, &o);
    ok(p.st == MS_CHANNEL, "--require-channels all without vectors: MS_CHANNEL");
    resp_free(&p);
    o.require = CH_MASK(CH_BM25) | CH_MASK(CH_TEMPORAL) | CH_MASK(CH_SPREADING);
    p = run(e, &o);
    ok(p.st == MS_OK && p.r, "--require-channels of active channels answers");
    resp_free(&p);
    engine_close(e);
    store_close(s);

    /* vectors from another embedder: embedder_mismatch */
    s = make_store("other.db", NULL, 0, 0);
    store_memory m;
    store_memory_init(&m);
    m.id = strdup("v1");
    m.content = strdup("Biscuit the greyhound likes long walks");
    m.embedding = malloc(3 * sizeof *m.embedding);
    m.embedding[0] = 1, m.embedding[1] = 0, m.embedding[2] = 0;
    m.dim = 3;
    m.embedder_id = strdup("other-model:3");
    ms_error err;
    ms_status st = store_begin(s, &err);
    if (!st)
        st = store_put(s, &m, STORE_DUP_ERROR, NULL, &err);
    if (!st)
        st = store_end(s, &err);
    store_memory_clear(&m);
    ok(st == MS_OK, "a store whose vectors come from other-model:3");
    e = open_engine(s);
    o.require = 0;
    o.query = "greyhound";
    p = run(e, &o);
    ok(p.r && strcmp(p.r->ch[CH_SEMANTIC].reason, "embedder_mismatch") == 0 &&
           strcmp(p.r->ch[CH_HOPFIELD].reason, "embedder_mismatch") == 0 && p.r->n_hits == 1,
       "vectors of another embedder: embedder_mismatch, bm25 still finds it");
    resp_free(&p);
    o.require = CH_ALL;
    p = run(e, &o);
    ok(p.st == MS_CHANNEL && strstr(p.err.msg, "embedder_mismatch"),
       "--require-channels all: MS_CHANNEL naming embedder_mismatch");
    resp_free(&p);
    /* a disabled channel that is also required */
    o.require = CH_MASK(CH_BM25);
    o.disabled = CH_MASK(CH_BM25);
    p = run(e, &o);
    ok(p.st == MS_CHANNEL && strstr(p.err.msg, "disabled"),
       "a required channel that is disabled: MS_CHANNEL naming disabled");
    resp_free(&p);
    engine_close(e);
    store_close(s);

    /* on the full store, every channel is active */
    recall_opts_init(&o);
    o.query = "What does Biscuit like?";
    o.require = CH_ALL;
    p = run(life_engine, &o);
    ok(p.st == MS_OK, "--require-channels all on a store with vectors and edges answers");
    resp_free(&p);
}

static resp explain_run(const char *query, const char *id, int limit)
{
    recall_opts o;
    recall_opts_init(&o);
    o.query = query;
    o.explain_id = id;
    o.limit = limit;
    return run(life_engine, &o);
}

static const char *verdict_of(const resp *p)
{
    return p->r && p->r->explain ? p->r->explain->verdict : NULL;
}

static void test_explain(void)
{
    resp p = explain_run("What does Biscuit like?", "g1", 10);
    is_str(verdict_of(&p), "returned", "explain a returned memory: returned");
    ok(p.r && p.r->explain && p.r->explain->rank_position >= 1 &&
           p.r->explain->ch[CH_BM25].ranked && p.r->explain->fused > 0,
       "explain gives its rank position, channel ranks and fused score");
    const cJSON *ex = p.j ? get(p.j, "explain") : NULL;
    ok(ex && str(ex, "verdict") && strcmp(str(ex, "verdict"), "returned") == 0 &&
           cJSON_IsObject(get(ex, "channels")) && num(ex, "rank_position") >= 1,
       "the JSON carries the explain object");
    resp_free(&p);

    p = explain_run("What does Biscuit like?", "x1", 10);
    is_str(verdict_of(&p), "not_a_candidate", "explain an unrelated memory: not_a_candidate");
    resp_free(&p);

    p = explain_run("What does Biscuit like?", "no-such-id", 10);
    is_str(verdict_of(&p), "not_in_store", "explain an unknown id: not_in_store");
    ok(p.j && str(get(p.j, "explain"), "verdict") &&
           strcmp(str(get(p.j, "explain"), "verdict"), "not_in_store") == 0,
       "the JSON says not_in_store too");
    resp_free(&p);

    p = explain_run("What is the weather forecast for the week?", "r1", 10);
    is_str(verdict_of(&p), "below_floor",
           "explain the best candidate of an off-topic query: "
           "below_floor");
    ok(p.r && p.r->explain && !p.r->explain->passes_floor, "it has no evidence of its own");
    resp_free(&p);

    /* the second result, with limit 1 */
    p = explain_run("What does Biscuit like?", "x1", 10);
    const char *second = p.r && p.r->n_hits >= 2 ? p.r->hits[1].mem.id : NULL;
    char id[STORE_ID_MAX + 1] = "";
    if (second)
        snprintf(id, sizeof id, "%s", second);
    resp_free(&p);
    p = explain_run("What does Biscuit like?", id, 1);
    ok(second != NULL, "the query has a second result (%s)", id);
    is_str(verdict_of(&p), "below_limit", "explain the second result with limit 1: below_limit");
    resp_free(&p);

    /* explaining changes nothing about the answer */
    resp a = explain_run("What does Biscuit like?", "g2", 10),
         b = ask(life_engine, "What does Biscuit like?");
    int same = a.r && b.r && a.r->n_hits == b.r->n_hits;
    for (size_t i = 0; same && i < a.r->n_hits; i++)
        same = strcmp(a.r->hits[i].mem.id, b.r->hits[i].mem.id) == 0 &&
               a.r->hits[i].ranking_score == b.r->hits[i].ranking_score;
    ok(same, "--explain does not change the results");
    resp_free(&a);
    resp_free(&b);
}

static void test_health(void)
{
    engine_health h;
    ms_error err;
    ok(engine_health_get(life_engine, &h, &err) == MS_OK, "health of the life store");
    int active = 0;
    for (int c = 0; c < CH_COUNT; c++)
        active += h.ch[c].active && h.ch[c].reason == NULL;
    is_int(active, CH_COUNT, "every channel active on a store with vectors and edges");
    is_int(h.counts.memories, N_LIFE, "health counts the memories");
    is_int(h.vectors_missing, 0, "no vector missing");
    is_str(h.embedder_id, h.store_embedder_id, "the query side uses the store's embedder");
    char *text = engine_health_json(&h);
    cJSON *j = text ? cJSON_Parse(text) : NULL;
    int listed = 0;
    for (int c = 0; j && c < CH_COUNT; c++)
        listed += cJSON_IsBool(get(get(get(j, "channels"), engine_channel_name(c)), "active"));
    is_int(listed, CH_COUNT, "health JSON lists the five channels with active");
    ok(j && str(get(j, "embedder"), "id") &&
           num(get(j, "embedder"), "dimension") == EMBED_HASH_DIM &&
           num(get(j, "store"), "memories") == (double)N_LIFE &&
           num(get(j, "store"), "pinned") == 1,
       "health JSON has the embedder and the store counts");
    cJSON_Delete(j);
    free(text);

    store *s = make_store("novec2.db", life, 3, 0);
    engine *e = open_engine(s);
    ok(e && engine_health_get(e, &h, &err) == MS_OK && !h.ch[CH_SEMANTIC].active &&
           strcmp(h.ch[CH_SEMANTIC].reason, "no_vectors") == 0 && h.vectors_missing == 3,
       "health of a store without vectors: semantic no_vectors, 3 vectors missing");
    text = e ? engine_health_json(&h) : NULL;
    j = text ? cJSON_Parse(text) : NULL;
    ok(j && str(get(get(j, "channels"), "semantic"), "reason") &&
           strcmp(str(get(get(j, "channels"), "semantic"), "reason"), "no_vectors") == 0,
       "health JSON gives the inactive reason");
    cJSON_Delete(j);
    free(text);
    engine_close(e);
    store_close(s);

    /* one memory without session, entities or time: spreading has no edges */
    static const mem_spec lone = {
        "l1", NULL, NULL, "2025-01-01T00:00:00Z", NULL, "a single lowercase note", 0, 0, 0, 0};
    s = make_store("lone.db", &lone, 1, 1);
    e = open_engine(s);
    ok(e && engine_health_get(e, &h, &err) == MS_OK && !h.ch[CH_SPREADING].active &&
           strcmp(h.ch[CH_SPREADING].reason, "no_edges") == 0 && h.ch[CH_BM25].active,
       "a store without edges or entity links: spreading no_edges");
    engine_close(e);
    store_close(s);
}

static void test_query_types(void)
{
    static const struct {
        const char *q, *type;
    } cases[] = {
        {"What is the most recent news about the office?", "recency"},
        {"What did Leah buy recently?", "recency"},
        {"What did Leah do most recently?", "recency"},
        {"Which did Sam do more recently, the walk or the swim?", "temporal"},
        {"Did Leah run less recently than Sam?", "temporal"},
        {"When is my dentist appointment?", "temporal"},
        {"How many dogs does Sam have?", "aggregation"},
        {"What do Leah and Sam both like?", "multi_hop"},
        {"Why does Leah run?", "opinion"},
        {"Who walks Biscuit?", "entity"},
        {"Where is Ashton Court?", "factual"},
        {"dentist", "vague"},
        {"greyhound walks park", "general"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        is_str(engine_query_type(life_engine, cases[i].q), cases[i].type, "query type of '%s'",
               cases[i].q);
        resp p = ask(life_engine, cases[i].q);
        is_str(p.r ? p.r->query_type : NULL, cases[i].type, "recall reports the same type");
        resp_free(&p);
    }
}

/* The word a question asks about (its focus), from the question's form:
 * the head of the noun phrase after a copula or "how many", past the
 * possessive and the nouns that only name the answer's slot; none for
 * the forms that name the answer's category ("which car does ..."). */
static void test_focus(void)
{
    static const struct {
        const char *q, *focus;
    } cases[] = {
        {"What was Leah's salary at the bank?", "salary"},
        {"What is the name of Sam's greyhound?", "greyhound"},
        {"Who is Leah's dentist?", "dentist"},
        {"When is Leah's dentist appointment?", "appointment"},
        {"What is Leah's relationship status?", "relationship"},
        {"What is the latest on the boiler service?", "service"},
        {"Where was the sofa picture taken?", "picture"},
        {"How many short runs does the plan start with?", "runs"},
        {"In which city is the office?", ""},
        {"Which car does Leah drive?", ""},
        {"What was discussed at the office?", ""},
        {"Where does Sam walk Biscuit?", ""},
        {"How much does the service cost?", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        resp p = ask(life_engine, cases[i].q);
        is_str(p.r ? p.r->floor_focus : NULL, cases[i].focus, "the focus of '%s'", cases[i].q);
        resp_free(&p);
    }
    /* the rule: Leah's memories hold "dentist" but none holds "salary" */
    resp p = ask(life_engine, "What was Leah's salary at the dentist?");
    ok(p.r && p.r->abstained &&
           strcmp(p.r->floor_no_support, "nothing about \"salary\" for Leah") == 0,
       "a question about a word no memory holds abstains and names it (%s)",
       p.r ? p.r->floor_no_support : "no response");
    resp_free(&p);
    p = ask(life_engine, "Who is Leah's dentist?");
    ok(p.r && !p.r->abstained && p.r->floor_focus_supported,
       "the same form about a word her memories hold is answered");
    resp_free(&p);
}

/* Relative dates are read against --as-of; a date the query names anchors
 * the rest of the query, whatever --as-of says. */
static void test_date_anchor(void)
{
    static const mem_spec talk[] = {
        {"a1", "Ana", "s1", "2023-05-08T10:00:00Z", NULL, "Ana: We walked along the river.", 0, 0,
         0, 0},
        {"a2", "Ana", "s2", "2023-05-20T10:00:00Z", NULL, "Ana: I baked bread for the party.", 0, 0,
         0, 0},
    };
    store *s = make_store("anchor.db", talk, 2, 0);
    engine *e = open_engine(s);
    resp p;
    recall_opts o;
    recall_opts_init(&o);
    o.query = "What did Ana do last week?";
    store_parse_time("2025-10-01T12:00:00Z", &o.as_of);
    p = run(e, &o);
    ok(p.r && p.r->n_dates == 1 &&
           strcmp(p.r->dates[0], "2025-09-22T00:00:00Z..2025-09-29T00:00:00Z") == 0,
       "--as-of given: last week is the week before it (%s)",
       p.r && p.r->n_dates ? p.r->dates[0] : "none");
    resp_free(&p);
    o.query = "What did Ana do in the week before May 8, 2023?";
    p = run(e, &o);
    ok(p.r && p.r->n_dates == 1 &&
           strcmp(p.r->dates[0], "2023-05-01T00:00:00Z..2023-05-08T00:00:00Z") == 0,
       "a named date anchors, whatever --as-of says (%s)",
       p.r && p.r->n_dates ? p.r->dates[0] : "none");
    resp_free(&p);
    engine_close(e);
    store_close(s);
}

/* Is memory id in the temporal channel's list of the traced response? */
static int in_temporal(const resp *p, const char *id)
{
    const cJSON *res = p->j ? get(p->j, "results") : NULL, *h;
    cJSON_ArrayForEach(h, res)
    {
        const cJSON *ch = get(get(h, "trace"), "channels");
        if (strcmp(str(h, "id"), id) == 0)
            return get(ch, "temporal") != NULL;
    }
    return -1;
}

/* A when-question: the temporal channel keeps the memories that say when
 * in their own words, in the forms the date parser reads ("on the 15th",
 * "over the weekend", "at Christmas"), and not the others. */
static void test_when_marks(void)
{
    static const mem_spec said[] = {
        {"w1", "Ana", "s1", "2023-05-20T10:00:00Z", NULL, "Ana: I met the choir on the 15th.", 0, 0,
         0, 0},
        {"w2", "Ana", "s2", "2023-05-21T10:00:00Z", NULL, "Ana: I met the choir at the hall.", 0, 0,
         0, 0},
        {"w3", "Ana", "s3", "2023-05-22T10:00:00Z", NULL, "Ana: The choir sang at Christmas.", 0, 0,
         0, 0},
        {"w4", "Ana", "s4", "2023-05-23T10:00:00Z", NULL, "Ana: The choir rested over the weekend.",
         0, 0, 0, 0},
    };
    store *s = make_store("when.db", said, 4, 0);
    engine *e = open_engine(s);
    recall_opts o;
    recall_opts_init(&o);
    o.query = "When did the choir meet?";
    o.no_floor = 1;
    resp p = run(e, &o);
    is_int(in_temporal(&p, "w1"), 1, "'on the 15th' says when");
    is_int(in_temporal(&p, "w2"), 0, "'at the hall' does not");
    is_int(in_temporal(&p, "w3"), 1, "'at Christmas' says when");
    is_int(in_temporal(&p, "w4"), 1, "'over the weekend' says when");
    resp_free(&p);
    engine_close(e);
    store_close(s);
}

/* SQL on a file through a connection of its own. */
static int raw_exec(const char *path, const char *sql)
{
    sqlite3 *db;
    int rc = sqlite3_open(path, &db);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_close(db);
    return rc;
}

static long long pragma_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    long long v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    return v;
}

static void test_never_writes(void)
{
    /* PRAGMA data_version on another connection moves when anyone commits */
    sqlite3 *db;
    sqlite3_open_v2(tpath("life.db"), &db, SQLITE_OPEN_READONLY, NULL);
    long long v0 = pragma_int(db, "PRAGMA data_version");
    long long changes0 = pragma_int(db, "SELECT total(access_count) FROM memories");
    for (size_t q = 0; q < N_FIXTURE; q++) {
        resp p = ask(life_engine, fixture_queries[q]);
        resp_free(&p);
    }
    resp p = explain_run("What does Biscuit like?", "g1", 3);
    resp_free(&p);
    engine_health h;
    ms_error err;
    engine_health_get(life_engine, &h, &err);
    long long v1 = pragma_int(db, "PRAGMA data_version");
    ok(v0 >= 0 && v0 == v1, "recall, explain and health commit nothing (data_version %lld -> %lld)",
       v0, v1);
    ok(changes0 >= 0 && changes0 == pragma_int(db, "SELECT total(access_count) FROM memories"),
       "recall does not count accesses");
    sqlite3_close(db);
}

static void test_store_changes_under_engine(void)
{
    store *s = make_store("live.db", life, N_LIFE, 1);
    engine *e = open_engine(s);
    resp p = ask(e, "piano tuner");
    ok(p.r && p.r->abstained, "before: nothing about a piano tuner");
    resp_free(&p);
    /* the last recall before the change looks up words the store holds
     * (its last word too): nothing of it may keep a read transaction open
     * afterwards, or the next recall sees the store as it was */
    p = ask(e, "Biscuit loves long walks");
    ok(p.r && p.r->n_hits > 0, "a recall of known words");
    resp_free(&p);

    /* another connection adds a memory: the engine sees it on the next recall */
    store *w = NULL;
    ms_error err;
    store_open(tpath("live.db"), 0, &w, &err);
    store_vectorizer v;
    embed_vectorizer(emb, &v);
    store_set_vectorizer(w, &v);
    static const mem_spec piano = {"k1", "Leah",
                                   "s9", "2025-10-02T10:00:00Z",
                                   NULL, "Leah: The piano tuner comes on Friday morning.",
                                   0,    0,
                                   0,    0};
    ms_status st = w ? store_begin(w, &err) : MS_IO;
    if (!st)
        st = put_spec(w, &piano);
    if (!st)
        st = store_end(w, &err);
    store_close(w);
    ok(st == MS_OK, "another connection adds a memory");
    p = ask(e, "piano tuner");
    ok(p.r && p.r->n_hits >= 1 && strcmp(p.r->hits[0].mem.id, "k1") == 0,
       "the open engine finds the new memory (snapshot reloaded)");
    check_response(&p, "after a change by another connection");
    resp_free(&p);

    /* a table the snapshot reads disappears: clean errors, no crash */
    ok(raw_exec(tpath("live.db"), "DROP TABLE edges") == SQLITE_OK,
       "another connection drops the edges table");
    p = ask(e, "piano tuner");
    ok(p.st != MS_OK && p.r == NULL && p.err.msg[0],
       "recall on the broken store is a clean error: %s", p.err.msg);
    resp_free(&p);
    const char *type = engine_query_type(e, "When does the piano tuner come?");
    ok(type && strcmp(type, "general") == 0,
       "engine_query_type on the broken store falls back to general");
    engine_health h;
    ok(engine_health_get(e, &h, &err) != MS_OK, "health on the broken store is an error");
    engine_close(e);
    store_close(s);
}

/* The bytes of file path (*len of them), NULL when it cannot be read. */
static char *file_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *b = NULL;
    *len = 0;
    if (f && fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        b = n > 0 ? malloc((size_t)n) : NULL;
        if (b && (fseek(f, 0, SEEK_SET) != 0 || fread(b, 1, (size_t)n, f) != (size_t)n)) {
            free(b);
            b = NULL;
        }
        *len = b ? (size_t)n : 0;
    }
    if (f)
        fclose(f);
    return b;
}

/* A recall through a fresh engine on s, which writes the snapshot file at
 * its close; the file's bytes after. */
static char *snapshot_after_recall(store *s, const char *file, size_t *len)
{
    engine *e = open_engine(s);
    resp p = e ? ask(e, "When is the dentist?") : (resp){.st = MS_IO};
    ms_status st = p.st;
    resp_free(&p);
    engine_close(e);
    return st == MS_OK ? file_bytes(file, len) : NULL;
}

/* The snapshot grown after a supersession set between two memories (and
 * cleared): a curator's supersession changes the older memory's
 * superseded_* fields, which a grow reads again, so it is no rewrite. The
 * grown file is byte for byte a full read's, but for the 8 bytes at 4088
 * that say which generation it grew from. */
static void test_grow_superseded(void)
{
    setenv("MEMSCOPE_SNAPSHOT", "always", 1);
    store *s = make_store("supgrow.db", life, N_LIFE, 1);
    char file[1024];
    snprintf(file, sizeof file, "%s.snap", tpath("supgrow.db"));
    ms_error err;
    ms_error_clear(&err);
    size_t n0 = 0;
    free(snapshot_after_recall(s, file, &n0));
    ok(n0 > 4096, "a recall leaves a snapshot file (%zu bytes)", n0);
    store_memory older, newer;
    store_memory_init(&older);
    store_memory_init(&newer);
    ms_status st = s ? store_get(s, "d1", 0, &older, &err) : MS_IO;
    if (!st)
        st = store_get(s, "g1", 0, &newer, &err);
    for (int step = 0; !st && step < 2; step++) {
        st = step == 0 ? store_set_supersedes(s, newer.rid, older.rid, "moved", &err)
                       : store_clear_relation(s, newer.rid, older.rid, STORE_REL_SUPERSEDES, &err);
        size_t ng = 0, nf = 0;
        char *grown = st ? NULL : snapshot_after_recall(s, file, &ng);
        unlink(file);
        char *full = grown ? snapshot_after_recall(s, file, &nf) : NULL;
        int64_t from = 0;
        if (grown && ng > 4096)
            memcpy(&from, grown + 4088, sizeof from);
        const char *what = step == 0 ? "a supersession set" : "and cleared";
        ok(grown && from > 0, "%s: the next recall grew the file (from generation %lld)", what,
           (long long)from);
        ok(grown && full && ng == nf && memcmp(grown, full, 4088) == 0 &&
               memcmp(grown + 4096, full + 4096, ng - 4096) == 0,
           "%s: the grown file is byte for byte a full read's (%zu and %zu bytes)", what, ng, nf);
        free(grown);
        free(full);
    }
    ok(st == MS_OK, "the supersession set and cleared (%s)", err.msg);
    store_memory_clear(&older);
    store_memory_clear(&newer);
    store_close(s);
    unsetenv("MEMSCOPE_SNAPSHOT");
}

/* A relation edge (an imported store's link) carries spreading activation
 * from a memory the query finds to one it does not: without the edge the
 * spreading channel never ranks the second. */
static void test_relation_edges(void)
{
    static const mem_spec pair[] = {
        {"x1", NULL, "notes-x", "2025-03-03T09:00:00Z", NULL,
         "The boiler service is booked with Hartley Heating.", 0, 0, 0, 0},
        {"y1", NULL, "notes-y", "2025-03-04T09:00:00Z", NULL,
         "Quarterly safety certificate renewed for the flat.", 0, 0, 0, 0},
    };
    for (int linked = 0; linked < 2; linked++) {
        store *s = make_store(linked ? "relation.db" : "norelation.db", pair, 2, 0);
        ms_error err;
        ms_error_clear(&err);
        store_memory a, b;
        store_memory_init(&a);
        store_memory_init(&b);
        ms_status st = s ? store_get(s, "x1", 0, &a, &err) : MS_IO;
        if (!st)
            st = store_get(s, "y1", 0, &b, &err);
        if (!st && linked && !(st = store_begin(s, &err))) {
            st = store_add_edge(s, a.rid, b.rid, STORE_EDGE_RELATION, 1.0, &err);
            st = st ? st : store_end(s, &err);
        }
        store_memory_clear(&a);
        store_memory_clear(&b);
        engine *e = st ? NULL : open_engine(s);
        recall_opts o;
        recall_opts_init(&o);
        o.query = "When is the boiler service?";
        o.explain_id = "y1";
        resp p = e ? run(e, &o) : (resp){.st = MS_IO};
        const recall_explain *x = p.r ? p.r->explain : NULL;
        if (linked)
            ok(x && x->ch[CH_SPREADING].ranked && x->ch[CH_SPREADING].rank > 0,
               "a relation edge: spreading ranks the linked memory (rank %d)",
               x ? x->ch[CH_SPREADING].rank : -1);
        else
            ok(x && !x->ch[CH_SPREADING].ranked,
               "without the edge spreading does not rank that memory");
        resp_free(&p);
        engine_close(e);
        store_close(s);
    }
}

/* The query side splits words with the store's splitter (store/base/words.c):
 * a curly possessive names the speaker as a straight one does. */
static void test_curly_possessive(void)
{
    resp a = ask(life_engine, "Where does Sam's greyhound walk?");
    resp b = ask(life_engine, "Where does Sam\xe2\x80\x99s greyhound walk?");
    ok(a.st == MS_OK && b.st == MS_OK && a.r->n_hits > 0 && b.r->n_hits > 0,
       "both spellings of the question are answered");
    if (a.st == MS_OK && b.st == MS_OK && a.r->n_hits > 0 && b.r->n_hits > 0) {
        ok(a.r->hits[0].eg_spoken, "Sam's names the speaker Sam");
        ok(b.r->hits[0].eg_spoken, "Sam\xe2\x80\x99s (curly apostrophe) names the speaker Sam too");
        is_str(b.r->hits[0].mem.id, a.r->hits[0].mem.id, "and the same memory comes first");
    }
    resp_free(&a);
    resp_free(&b);
}

/* A query's vector (embed_hash_weighted: a table that starts small and
 * grows) is bit for bit the vector of the same text stored (embed_texts:
 * one full-size table), short or long, and past the limit of distinct
 * features a text keeps. */
static void test_query_vector_sizes(void)
{
    static const int words[] = {1, 8, 40, 300, 3000};
    for (size_t t = 0; t < sizeof words / sizeof *words; t++) {
        size_t cap = (size_t)words[t] * 24 + 1; /* "w2999q" and 8 hex digits, a space */
        char *text = malloc(cap);
        size_t len = 0;
        for (int i = 0; i < words[t]; i++) /* distinct words: many n-grams */
            len += (size_t)snprintf(text + len, cap - len, "%sw%dq%x", i ? " " : "", i,
                                    (unsigned)(i * 2654435761u));
        int dim = embed_dim(emb);
        float *a = calloc((size_t)dim, sizeof *a), *b = calloc((size_t)dim, sizeof *b);
        const char *one[1] = {text};
        ms_error err;
        ok(embed_hash_weighted(text, a, dim, NULL, NULL) == 0 &&
               embed_texts(emb, one, 1, b, &err) == MS_OK && memcmp(a, b, dim * sizeof *a) == 0,
           "%d words: the query's vector is the stored text's, bit for bit", words[t]);
        free(a);
        free(b);
        free(text);
    }
}

/* The stop list, looked up by hash: every word of the list, and words next
 * to them (prefixes, longer words, capitals, a word inside a longer text). */
static void test_stopwords(void)
{
    static const char *const stop[] = {"a", "about", "the",        "t",    "don",
                                       "y", "ain",   "yourselves", "whom", "against"};
    static const char *const not [] = {"th",  "thee",   "abou",    "yourselvesx", "x",
                                       "The", "memory", "tourney", "wh",          "againsts"};
    int wrong = 0;
    for (size_t i = 0; i < sizeof stop / sizeof *stop; i++)
        wrong += !stopword_is(stop[i], strlen(stop[i]));
    for (size_t i = 0; i < sizeof not / sizeof *not ; i++)
        wrong += stopword_is(not [i], strlen(not [i]));
    ok(wrong == 0, "stopword_is: ten stop words found, ten near them not (%d wrong)", wrong);
    ok(stopword_is("theory", 3) && !stopword_is("theory", 4) && !stopword_is("the", 0),
       "stopword_is reads n bytes: \"the\" of \"theory\" is one, \"theo\" and nothing are not");
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        printf("Bail out! cannot create a temporary directory: %s\n", strerror(errno));
        return 1;
    }
    ms_error err;
    emb = embed_open(NULL, &err);
    life_store = make_store("life.db", life, N_LIFE, 1);
    life_engine = open_engine(life_store);
    if (!emb || !life_engine) {
        printf("Bail out! cannot build the test store\n");
        remove_tmpdir();
        return 1;
    }
    test_stopwords();
    test_contract_and_recompute();
    test_query_vector_sizes();
    test_curly_possessive();
    test_recompute_can_fail();
    test_abstention();
    test_determinism();
    test_top_n();
    test_hostile();
    test_limits();
    test_require_channels();
    test_explain();
    test_health();
    test_query_types();
    test_focus();
    test_date_anchor();
    test_when_marks();
    test_relation_edges();
    test_never_writes();
    test_store_changes_under_engine();
    test_grow_superseded();
    engine_close(life_engine);
    store_close(life_store);
    embed_close(emb);
    remove_tmpdir();
    return done_testing();
}
