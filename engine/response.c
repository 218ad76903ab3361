/* response.c - the recall response as Retrieval Score Contract v2 JSON, the
 * consistency audit, and health as JSON.
 *
 * The six contract fields are written on every response, exactly:
 * score_contract_version "2", calibration_status "uncalibrated",
 * calibration_id null, answer_confidence null, abstained, abstention_reason.
 * Nothing here derives an answer probability from a retrieval score. */
#include "engine_int.h"

#include <cjson/cJSON.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- numbers ------------------------------------------------------------------ */

/* cJSON_Print writes a number that is not a whole one in int's range with
 * sprintf "%1.15g", reads it back with sscanf and, unless that is within
 * DBL_EPSILON of it (relative), again with "%1.17g": three calls to the C
 * library's number conversions, most of the time a recall spends writing
 * its JSON. response_number writes the same text without them (the digits
 * from one exact multiplication in long double, the reading back as one
 * correctly rounded division), for the numbers it can be sure of. */

/* Powers of ten, exact in double up to 1e22 and in long double up to 1e27. */
static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                             1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
static const long double p10l[] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,
                                   1e7L,  1e8L,  1e9L,  1e10L, 1e11L, 1e12L, 1e13L,
                                   1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L, 1e20L,
                                   1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};

/* The prec significant digits of ax > 0 as printf rounds them, in *m, and
 * the decimal exponent of the first, in *x: ax is about *m * 10^(*x - prec
 * + 1). 0 when this cannot be sure: the scale is out of the table's range,
 * or the digits after the last are within 0.02 of a half (the product's
 * error is below 0.006 of a unit there; printf rounds the exact value, and
 * a tie to even). */
static int sure_digits(double ax, int prec, uint64_t *m, int *x)
{
    int e = (int)floor(log10(ax));
    for (int tries = 0; tries < 3; tries++) {
        int k = prec - 1 - e;
        if (k < 0 || k > 27)
            return 0;
        long double y = (long double)ax * p10l[k];
        if (y < p10l[prec - 1]) {
            e--;
            continue;
        }
        if (y >= p10l[prec]) {
            e++;
            continue;
        }
        long double f = floorl(y), frac = y - f;
        if (fabsl(frac - 0.5L) < 0.02L)
            return 0;
        uint64_t v = (uint64_t)f + (frac > 0.5L);
        if (v == (uint64_t)p10l[prec]) { /* 9.99... rounded up to 10 */
            v /= 10;
            e++;
        }
        *m = v;
        *x = e;
        return 1;
    }
    return 0;
}

/* "%1.{prec}g" of the number m * 10^(x - prec + 1) (sign: neg) for x in
 * [-9, prec): fixed notation from -4, else "d.ddde-05"; trailing zeros
 * and a bare point dropped. */
static void g_text(int neg, uint64_t m, int x, int prec, char *out)
{
    char dig[24];
    for (int i = prec - 1; i >= 0; i--, m /= 10)
        dig[i] = (char)('0' + m % 10);
    int last = prec - 1; /* the last digit kept: trailing zeros go, but not the units' */
    while (last > (x < -4 ? 0 : x) && last > 0 && dig[last] == '0')
        last--;
    char *o = out;
    if (neg)
        *o++ = '-';
    if (x < -4) {
        *o++ = dig[0];
        if (last > 0)
            *o++ = '.';
        for (int i = 1; i <= last; i++)
            *o++ = dig[i];
        *o++ = 'e';
        *o++ = '-';
        *o++ = '0';
        *o++ = (char)('0' - x);
    } else if (x < 0) {
        *o++ = '0';
        *o++ = '.';
        for (int i = x + 1; i < 0; i++)
            *o++ = '0';
        for (int i = 0; i <= last; i++)
            *o++ = dig[i];
    } else {
        for (int i = 0; i <= x; i++)
            *o++ = dig[i];
        if (last > x) {
            *o++ = '.';
            for (int i = x + 1; i <= last; i++)
                *o++ = dig[i];
        }
    }
    *o = '\0';
}

/* cJSON's test that a number read back is the one written. */
static int cjson_same(double a, double b)
{
    double max = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= max * DBL_EPSILON;
}

int response_number(double d, char out[32])
{
    if (LDBL_MANT_DIG < 64) /* the digits need long double's 64-bit product */
        return 0;
    if (d >= (double)INT_MIN && d <= (double)INT_MAX && d == (double)(int)d) {
        snprintf(out, 32, "%d", (int)d); /* rare: counts, ranks */
        return 1;
    }
    double ax = fabs(d);
    uint64_t m;
    int x;
    if (!(ax >= 1e-9 && ax < 1e15) || !sure_digits(ax, 15, &m, &x) || x < -8 || x >= 15)
        return 0;
    if (cjson_same(copysign((double)m / p10[14 - x], d), d)) {
        g_text(d < 0, m, x, 15, out);
        return 1;
    }
    if (!sure_digits(ax, 17, &m, &x) || x < -9 || x >= 17)
        return 0;
    g_text(d < 0, m, x, 17, out);
    return 1;
}

/* cJSON_AddNumberToObject, its text written by response_number when it can. */
static void add_num(cJSON *o, const char *key, double v)
{
    char text[32];
    if (response_number(v, text))
        cJSON_AddRawToObject(o, key, text);
    else
        cJSON_AddNumberToObject(o, key, v);
}

static void add_str_or_null(cJSON *o, const char *key, const char *v)
{
    if (v)
        cJSON_AddStringToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

static void add_contract(cJSON *o, const recall_result *r)
{
    cJSON_AddStringToObject(o, "score_contract_version", "2");
    cJSON_AddStringToObject(o, "calibration_status", "uncalibrated");
    cJSON_AddNullToObject(o, "calibration_id");
    cJSON_AddNullToObject(o, "answer_confidence");
    cJSON_AddBoolToObject(o, "abstained", r->abstained);
    add_str_or_null(o, "abstention_reason", r->abstention_reason);
}

static cJSON *string_array(char **v, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
    return a;
}

static cJSON *channels_json(const recall_result *r)
{
    cJSON *o = cJSON_CreateObject();
    for (int c = 0; c < CH_COUNT; c++) {
        const channel_status *cs = &r->ch[c];
        cJSON *ch = cJSON_AddObjectToObject(o, engine_channel_name(c));
        cJSON_AddBoolToObject(ch, "active", cs->active);
        if (!cs->active)
            cJSON_AddStringToObject(ch, "reason", cs->reason);
        if (cs->note && cs->candidates == 0)
            cJSON_AddStringToObject(ch, "note", cs->note);
        if (cs->first_stage[0])
            cJSON_AddStringToObject(ch, "first_stage", cs->first_stage);
        add_num(ch, "candidates", cs->candidates);
        add_num(ch, "ms", round(cs->ms * 1000) / 1000);
    }
    return o;
}

static cJSON *trace_json(const recall_result *r, const recall_hit *h)
{
    cJSON *t = cJSON_CreateObject();
    cJSON *chs = cJSON_AddObjectToObject(t, "channels");
    for (int c = 0; c < CH_COUNT; c++) {
        const trace_channel *tc = &h->ch[c];
        if (!tc->ranked)
            continue;
        cJSON *o = cJSON_AddObjectToObject(chs, engine_channel_name(c));
        add_num(o, "rank", tc->rank);
        add_num(o, "raw", tc->raw);
        add_num(o, "weight", tc->weight);
        add_num(o, "contribution", tc->contribution);
    }
    add_num(t, "rrf_k", r->rrf_k);
    add_num(t, "fused", h->fused);
    cJSON *eg = cJSON_AddObjectToObject(t, "entity_graph");
    cJSON_AddBoolToObject(eg, "speaker_named", h->eg_spoken);
    cJSON_AddBoolToObject(eg, "entity_named", h->eg_mentions);
    add_num(eg, "score", h->eg_score);
    add_num(eg, "factor", h->eg_factor);
    add_num(t, "boosted", h->boosted);
    cJSON *adj = cJSON_AddArrayToObject(t, "adjustments");
    for (int a = 0; a < h->n_adj; a++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", h->adj[a].name);
        add_num(o, "factor", h->adj[a].factor);
        cJSON_AddStringToObject(o, "detail", h->adj[a].detail);
        cJSON_AddItemToArray(adj, o);
    }
    cJSON *rel = cJSON_AddObjectToObject(t, "relevance");
    cJSON_AddStringToObject(rel, "formula", "min(1, boosted / max_boosted)");
    add_num(rel, "boosted", h->boosted);
    add_num(rel, "max_boosted", h->max_fused);
    cJSON *fl = cJSON_AddObjectToObject(t, "floor");
    add_str_or_null(fl, "passed_by", h->passed_by);
    if (h->passed_by && strcmp(h->passed_by, "association") == 0)
        cJSON_AddStringToObject(fl, "via", h->associated);
    cJSON_AddStringToObject(fl, "rule", h->floor_why);
    add_num(fl, "coverage", h->coverage);
    add_num(fl, "predicate_coverage", h->pred_coverage);
    add_num(fl, "context_coverage", h->context_coverage);
    add_num(fl, "cosine", h->cosine);
    add_num(fl, "remainder_cosine", h->rcosine);
    return t;
}

static cJSON *hit_json(const recall_result *r, const recall_hit *h, int trace)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", h->mem.id);
    cJSON_AddStringToObject(o, "content", h->mem.content);
    cJSON_AddStringToObject(o, "created_at", h->mem.created_at);
    add_str_or_null(o, "event_time", h->mem.event_time);
    add_str_or_null(o, "speaker", h->mem.speaker);
    add_num(o, "relevance_score", h->relevance_score);
    add_num(o, "ranking_score", h->ranking_score);
    add_num(o, "memory_confidence", h->mem.memory_confidence);
    add_num(o, "trust_score", store_trust_score(&h->mem));
    if (h->rank_position)
        add_num(o, "rank_position", h->rank_position);
    add_num(o, "score", h->relevance_score);
    add_num(o, "confidence", h->mem.memory_confidence);
    if (trace)
        cJSON_AddItemToObject(o, "trace", trace_json(r, h));
    return o;
}

static cJSON *floor_json(const recall_result *r, int trace)
{
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "rule", r->floor_rule ? r->floor_rule : "not reached");
    cJSON_AddBoolToObject(f, "applied", r->floor_applied);
    add_num(f, "threshold", r->floor_threshold);
    add_num(f, "lexical_threshold", r->floor_lexical);
    cJSON *pr = cJSON_AddObjectToObject(f, "predicate");
    cJSON_AddStringToObject(pr, "words", r->floor_predicate);
    cJSON_AddStringToObject(pr, "unheld", r->floor_unheld);
    cJSON_AddStringToObject(pr, "subject", r->floor_subject);
    add_str_or_null(pr, "focus", r->floor_focus[0] ? r->floor_focus : NULL);
    add_str_or_null(pr, "kind", r->floor_kind[0] ? r->floor_kind : NULL);
    if (r->floor_kind[0])
        cJSON_AddBoolToObject(pr, "kind_which", r->floor_kind_which);
    add_str_or_null(pr, "verb", r->floor_verb[0] ? r->floor_verb : NULL);
    add_num(pr, "best_coverage", r->floor_best_coverage);
    cJSON *terms = cJSON_AddArrayToObject(pr, "terms");
    for (int t = 0; t < r->n_floor_terms; t++) {
        const floor_term *ft = &r->floor_terms[t];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "word", ft->word);
        add_num(o, "idf", ft->idf);
        add_num(o, "df", (double)ft->df);
        cJSON_AddBoolToObject(o, "held", ft->held);
        cJSON_AddItemToArray(terms, o);
    }
    add_str_or_null(f, "no_support", r->floor_no_support[0] ? r->floor_no_support : NULL);
    cJSON *best = cJSON_AddObjectToObject(f, "best");
    add_str_or_null(best, "id", r->floor_best_id);
    add_num(best, "value", r->floor_best_value);
    add_num(f, "entities_named", r->floor_named);
    add_num(f, "unknown_terms", r->floor_unknown_terms);
    cJSON *m = cJSON_AddArrayToObject(f, "nearest_misses");
    for (size_t i = 0; i < r->n_misses; i++) {
        const recall_hit *h = &r->misses[i];
        cJSON *o = trace ? hit_json(r, h, 1) : cJSON_CreateObject();
        if (!trace)
            cJSON_AddStringToObject(o, "id", h->mem.id);
        add_num(o, "value", h->rcosine);
        cJSON_AddItemToArray(m, o);
    }
    return f;
}

static cJSON *explain_json(const recall_result *r)
{
    const recall_explain *ex = r->explain;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", ex->id);
    cJSON_AddStringToObject(o, "verdict", ex->verdict ? ex->verdict : "unknown");
    if (!ex->found)
        return o;
    cJSON *chs = cJSON_AddObjectToObject(o, "channels");
    for (int c = 0; c < CH_COUNT; c++) {
        cJSON *ch = cJSON_AddObjectToObject(chs, engine_channel_name(c));
        if (!r->ch[c].active) {
            cJSON_AddStringToObject(ch, "status", "inactive");
            continue;
        }
        if (!ex->ch[c].ranked) {
            cJSON_AddStringToObject(ch, "status", "not a candidate");
            continue;
        }
        cJSON_AddStringToObject(ch, "status", ex->in_top_n[c] ? "in top N" : "below top N");
        add_num(ch, "rank", ex->ch[c].rank);
        add_num(ch, "raw", ex->ch[c].raw);
        add_num(ch, "contribution", ex->ch[c].contribution);
    }
    add_num(o, "fused", ex->fused);
    add_num(o, "fused_rank", ex->fused_rank);
    add_num(o, "boosted", ex->boosted);
    add_num(o, "ranking_score", ex->ranking_score);
    add_num(o, "relevance_score", ex->relevance_score);
    add_num(o, "coverage", ex->coverage);
    add_num(o, "cosine", ex->cosine);
    if (ex->rank_position)
        add_num(o, "rank_position", ex->rank_position);
    return o;
}

char *recall_json(const recall_result *r, int trace)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    add_contract(o, r);
    cJSON_AddStringToObject(o, "query", r->query);
    cJSON_AddStringToObject(o, "query_type", r->query_type ? r->query_type : "general");
    add_num(o, "rrf_k", r->rrf_k);
    cJSON *w = cJSON_AddObjectToObject(o, "channel_weights");
    for (int c = 0; c < CH_COUNT; c++)
        add_num(w, engine_channel_name(c), r->weights[c]);
    cJSON *eg = cJSON_AddObjectToObject(w, "entity_graph");
    add_num(eg, "speaker", r->eg_speaker);
    add_num(eg, "mention", r->eg_mention);
    cJSON_AddItemToObject(o, "channels", channels_json(r));
    cJSON *an = cJSON_AddObjectToObject(o, "analysis");
    cJSON_AddItemToObject(an, "terms", string_array(r->terms, r->n_terms));
    if (r->n_synonyms)
        cJSON_AddItemToObject(an, "synonyms", string_array(r->synonyms, r->n_synonyms));
    cJSON_AddItemToObject(an, "entities", string_array(r->entities, r->n_entities));
    cJSON_AddItemToObject(an, "dates", string_array(r->dates, r->n_dates));
    add_num(o, "total_candidates", (double)r->candidates);
    if (r->abstention_reason && strcmp(r->abstention_reason, "no_candidates") == 0)
        cJSON_AddStringToObject(o, "no_candidates_why", r->no_candidates_why);
    cJSON *res = cJSON_AddArrayToObject(o, "results");
    for (size_t i = 0; i < r->n_hits; i++)
        cJSON_AddItemToArray(res, hit_json(r, &r->hits[i], trace));
    cJSON_AddItemToObject(o, "floor", floor_json(r, trace));
    if (r->explain)
        cJSON_AddItemToObject(o, "explain", explain_json(r));
    cJSON *rr = cJSON_AddObjectToObject(o, "reranker");
    cJSON_AddStringToObject(rr, "status", r->rerank_status ? r->rerank_status : "off");
    if (r->rerank_error[0])
        cJSON_AddStringToObject(rr, "error", r->rerank_error);
    add_num(o, "feedback_judgements", (double)r->feedback_judgements);
    add_num(o, "timing_ms", round(r->timing_ms * 1000) / 1000);
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    return text;
}

/* ---- audit ------------------------------------------------------------------- */

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fmax(1.0, fmax(fabs(a), fabs(b)));
}

static int audit_hit(const recall_result *r, const recall_hit *h, char *out, size_t len)
{
    int bad = 0;
    double fused = 0;
    for (int c = 0; c < CH_COUNT; c++) {
        const trace_channel *tc = &h->ch[c];
        if (!tc->ranked)
            continue;
        double want = tc->weight / (r->rrf_k + tc->rank);
        if (!close_to(want, tc->contribution)) {
            bad++;
            if (out)
                snprintf(out + strlen(out), len - strlen(out),
                         "%s: %s contribution %.12g != w/(k+rank) %.12g\n", h->mem.id,
                         engine_channel_name(c), tc->contribution, want);
        }
        fused += tc->contribution;
    }
    double boosted = fused * h->eg_factor, ranking = boosted;
    for (int a = 0; a < h->n_adj; a++)
        ranking *= h->adj[a].factor;
    double rel = h->max_fused > 0 ? fmin(1.0, boosted / h->max_fused) : 0;
    const struct {
        const char *what;
        double got, want;
    } checks[] = {{"fused", h->fused, fused},
                  {"boosted", h->boosted, boosted},
                  {"ranking_score", h->ranking_score, ranking},
                  {"relevance_score", h->relevance_score, rel}};
    for (size_t k = 0; k < sizeof checks / sizeof *checks; k++) {
        if (close_to(checks[k].got, checks[k].want))
            continue;
        bad++;
        if (out)
            snprintf(out + strlen(out), len - strlen(out), "%s: %s %.12g, recomputed %.12g\n",
                     h->mem.id, checks[k].what, checks[k].got, checks[k].want);
    }
    if (h->relevance_score < 0 || h->relevance_score > 1)
        bad++;
    return bad;
}

int recall_audit(const recall_result *r, char *report, size_t len)
{
    if (report && len)
        report[0] = '\0';
    int bad = 0;
    for (size_t i = 0; i < r->n_hits; i++)
        bad += audit_hit(r, &r->hits[i], report, len);
    for (size_t i = 0; i < r->n_misses; i++)
        bad += audit_hit(r, &r->misses[i], report, len);
    return bad;
}

/* ---- health ------------------------------------------------------------------ */

char *engine_health_json(const engine_health *h)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *chs = cJSON_AddObjectToObject(o, "channels");
    for (int c = 0; c < CH_COUNT; c++) {
        cJSON *ch = cJSON_AddObjectToObject(chs, engine_channel_name(c));
        cJSON_AddBoolToObject(ch, "active", h->ch[c].active);
        if (!h->ch[c].active)
            cJSON_AddStringToObject(ch, "reason", h->ch[c].reason);
        if (!h->ch[c].active && h->ch[c].note)
            cJSON_AddStringToObject(ch, "note", h->ch[c].note);
    }
    cJSON *e = cJSON_AddObjectToObject(o, "embedder");
    add_str_or_null(e, "id", h->embedder_id);
    add_num(e, "dimension", h->embedder_dim);
    add_str_or_null(e, "store_vectors_from", h->store_embedder_id);
    add_num(e, "vectors_present", (double)h->counts.vectors);
    add_num(e, "vectors_missing", (double)h->vectors_missing);
    cJSON *s = cJSON_AddObjectToObject(o, "store");
    add_num(s, "memories", (double)h->counts.memories);
    add_num(s, "entities", (double)h->counts.entities);
    add_num(s, "entity_links", (double)h->counts.links);
    add_num(s, "edges", (double)h->counts.edges);
    add_num(s, "vectors", (double)h->counts.vectors);
    add_num(s, "pinned", (double)h->counts.pinned);
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    return text;
}
