/* response.c - the recall response as Retrieval Score Contract v2 JSON, the
 * consistency audit, and health as JSON.
 *
 * The six contract fields are written on every response, exactly:
 * score_contract_version "2", calibration_status "uncalibrated",
 * calibration_id null, answer_confidence null, abstained, abstention_reason.
 * Nothing here derives an answer probability from a retrieval score. */
#include "engine_int.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        cJSON_AddNumberToObject(ch, "candidates", cs->candidates);
        cJSON_AddNumberToObject(ch, "ms", round(cs->ms * 1000) / 1000);
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
        cJSON_AddNumberToObject(o, "rank", tc->rank);
        cJSON_AddNumberToObject(o, "raw", tc->raw);
        cJSON_AddNumberToObject(o, "weight", tc->weight);
        cJSON_AddNumberToObject(o, "contribution", tc->contribution);
    }
    cJSON_AddNumberToObject(t, "rrf_k", r->rrf_k);
    cJSON_AddNumberToObject(t, "fused", h->fused);
    cJSON *eg = cJSON_AddObjectToObject(t, "entity_graph");
    cJSON_AddBoolToObject(eg, "speaker_named", h->eg_spoken);
    cJSON_AddBoolToObject(eg, "entity_named", h->eg_mentions);
    cJSON_AddNumberToObject(eg, "score", h->eg_score);
    cJSON_AddNumberToObject(eg, "factor", h->eg_factor);
    cJSON_AddNumberToObject(t, "boosted", h->boosted);
    cJSON *adj = cJSON_AddArrayToObject(t, "adjustments");
    for (int a = 0; a < h->n_adj; a++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", h->adj[a].name);
        cJSON_AddNumberToObject(o, "factor", h->adj[a].factor);
        cJSON_AddStringToObject(o, "detail", h->adj[a].detail);
        cJSON_AddItemToArray(adj, o);
    }
    cJSON *rel = cJSON_AddObjectToObject(t, "relevance");
    cJSON_AddStringToObject(rel, "formula", "min(1, boosted / max_boosted)");
    cJSON_AddNumberToObject(rel, "boosted", h->boosted);
    cJSON_AddNumberToObject(rel, "max_boosted", h->max_fused);
    cJSON *fl = cJSON_AddObjectToObject(t, "floor");
    add_str_or_null(fl, "passed_by", h->passed_by);
    if (h->passed_by && strcmp(h->passed_by, "association") == 0)
        cJSON_AddStringToObject(fl, "via", h->associated);
    cJSON_AddStringToObject(fl, "rule", h->floor_why);
    cJSON_AddNumberToObject(fl, "coverage", h->coverage);
    cJSON_AddNumberToObject(fl, "predicate_coverage", h->pred_coverage);
    cJSON_AddNumberToObject(fl, "context_coverage", h->context_coverage);
    cJSON_AddNumberToObject(fl, "cosine", h->cosine);
    cJSON_AddNumberToObject(fl, "remainder_cosine", h->rcosine);
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
    cJSON_AddNumberToObject(o, "relevance_score", h->relevance_score);
    cJSON_AddNumberToObject(o, "ranking_score", h->ranking_score);
    cJSON_AddNumberToObject(o, "memory_confidence", h->mem.memory_confidence);
    cJSON_AddNumberToObject(o, "trust_score", store_trust_score(&h->mem));
    if (h->rank_position)
        cJSON_AddNumberToObject(o, "rank_position", h->rank_position);
    cJSON_AddNumberToObject(o, "score", h->relevance_score);
    cJSON_AddNumberToObject(o, "confidence", h->mem.memory_confidence);
    if (trace)
        cJSON_AddItemToObject(o, "trace", trace_json(r, h));
    return o;
}

static cJSON *floor_json(const recall_result *r, int trace)
{
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "rule", r->floor_rule ? r->floor_rule : "not reached");
    cJSON_AddBoolToObject(f, "applied", r->floor_applied);
    cJSON_AddNumberToObject(f, "threshold", r->floor_threshold);
    cJSON_AddNumberToObject(f, "lexical_threshold", r->floor_lexical);
    cJSON *pr = cJSON_AddObjectToObject(f, "predicate");
    cJSON_AddStringToObject(pr, "words", r->floor_predicate);
    cJSON_AddStringToObject(pr, "unheld", r->floor_unheld);
    cJSON_AddStringToObject(pr, "subject", r->floor_subject);
    add_str_or_null(pr, "focus", r->floor_focus[0] ? r->floor_focus : NULL);
    add_str_or_null(pr, "kind", r->floor_kind[0] ? r->floor_kind : NULL);
    if (r->floor_kind[0])
        cJSON_AddBoolToObject(pr, "kind_which", r->floor_kind_which);
    add_str_or_null(pr, "verb", r->floor_verb[0] ? r->floor_verb : NULL);
    cJSON_AddNumberToObject(pr, "best_coverage", r->floor_best_coverage);
    cJSON *terms = cJSON_AddArrayToObject(pr, "terms");
    for (int t = 0; t < r->n_floor_terms; t++) {
        const floor_term *ft = &r->floor_terms[t];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "word", ft->word);
        cJSON_AddNumberToObject(o, "idf", ft->idf);
        cJSON_AddNumberToObject(o, "df", (double)ft->df);
        cJSON_AddBoolToObject(o, "held", ft->held);
        cJSON_AddItemToArray(terms, o);
    }
    add_str_or_null(f, "no_support", r->floor_no_support[0] ? r->floor_no_support : NULL);
    cJSON *best = cJSON_AddObjectToObject(f, "best");
    add_str_or_null(best, "id", r->floor_best_id);
    cJSON_AddNumberToObject(best, "value", r->floor_best_value);
    cJSON_AddNumberToObject(f, "entities_named", r->floor_named);
    cJSON_AddNumberToObject(f, "unknown_terms", r->floor_unknown_terms);
    cJSON *m = cJSON_AddArrayToObject(f, "nearest_misses");
    for (size_t i = 0; i < r->n_misses; i++) {
        const recall_hit *h = &r->misses[i];
        cJSON *o = trace ? hit_json(r, h, 1) : cJSON_CreateObject();
        if (!trace)
            cJSON_AddStringToObject(o, "id", h->mem.id);
        cJSON_AddNumberToObject(o, "value", h->rcosine);
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
        cJSON_AddNumberToObject(ch, "rank", ex->ch[c].rank);
        cJSON_AddNumberToObject(ch, "raw", ex->ch[c].raw);
        cJSON_AddNumberToObject(ch, "contribution", ex->ch[c].contribution);
    }
    cJSON_AddNumberToObject(o, "fused", ex->fused);
    cJSON_AddNumberToObject(o, "fused_rank", ex->fused_rank);
    cJSON_AddNumberToObject(o, "boosted", ex->boosted);
    cJSON_AddNumberToObject(o, "ranking_score", ex->ranking_score);
    cJSON_AddNumberToObject(o, "relevance_score", ex->relevance_score);
    cJSON_AddNumberToObject(o, "coverage", ex->coverage);
    cJSON_AddNumberToObject(o, "cosine", ex->cosine);
    if (ex->rank_position)
        cJSON_AddNumberToObject(o, "rank_position", ex->rank_position);
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
    cJSON_AddNumberToObject(o, "rrf_k", r->rrf_k);
    cJSON *w = cJSON_AddObjectToObject(o, "channel_weights");
    for (int c = 0; c < CH_COUNT; c++)
        cJSON_AddNumberToObject(w, engine_channel_name(c), r->weights[c]);
    cJSON *eg = cJSON_AddObjectToObject(w, "entity_graph");
    cJSON_AddNumberToObject(eg, "speaker", r->eg_speaker);
    cJSON_AddNumberToObject(eg, "mention", r->eg_mention);
    cJSON_AddItemToObject(o, "channels", channels_json(r));
    cJSON *an = cJSON_AddObjectToObject(o, "analysis");
    cJSON_AddItemToObject(an, "terms", string_array(r->terms, r->n_terms));
    if (r->n_synonyms)
        cJSON_AddItemToObject(an, "synonyms", string_array(r->synonyms, r->n_synonyms));
    cJSON_AddItemToObject(an, "entities", string_array(r->entities, r->n_entities));
    cJSON_AddItemToObject(an, "dates", string_array(r->dates, r->n_dates));
    cJSON_AddNumberToObject(o, "total_candidates", (double)r->candidates);
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
    cJSON_AddNumberToObject(o, "feedback_judgements", (double)r->feedback_judgements);
    cJSON_AddNumberToObject(o, "timing_ms", round(r->timing_ms * 1000) / 1000);
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
    cJSON_AddNumberToObject(e, "dimension", h->embedder_dim);
    add_str_or_null(e, "store_vectors_from", h->store_embedder_id);
    cJSON_AddNumberToObject(e, "vectors_present", (double)h->counts.vectors);
    cJSON_AddNumberToObject(e, "vectors_missing", (double)h->vectors_missing);
    cJSON *s = cJSON_AddObjectToObject(o, "store");
    cJSON_AddNumberToObject(s, "memories", (double)h->counts.memories);
    cJSON_AddNumberToObject(s, "entities", (double)h->counts.entities);
    cJSON_AddNumberToObject(s, "entity_links", (double)h->counts.links);
    cJSON_AddNumberToObject(s, "edges", (double)h->counts.edges);
    cJSON_AddNumberToObject(s, "vectors", (double)h->counts.vectors);
    cJSON_AddNumberToObject(s, "pinned", (double)h->counts.pinned);
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    return text;
}
