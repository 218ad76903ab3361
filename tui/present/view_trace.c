/* view_trace.c - the arithmetic of one recall, as rows: a hit's trace (every
 * channel's rank, raw score, weight and w/(k+rank), the fused sum, the
 * entity-graph factor, each adjustment, ranking, relevance and the floor)
 * and the why-not of a pinned memory. The numbers use the formats of
 * `recall --trace`, so a reader can check them against the JSON. */
#include "tui/present/view_fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui/present/theme.h"

/* Column widths of a channel row. */
enum {
    TW_NAME = 11,
    TW_STATE = 8,
    TW_RANK = 5,
    TW_RAW = 10,
    TW_W = 7,
    TW_CONTRIB = 25,
    TW_BAR = 6
};

static void vfmt_trace_header(vrow *l)
{
    vrow_addf(l, ROLE_trace_label, "%-*s%-*s%*s  %-*s%-*s%-*s%s", TW_NAME, "channel", TW_STATE,
              "state", TW_RANK - 2, "rank", TW_RAW, "raw", TW_W, "weight", TW_CONTRIB,
              "w/(k+rank) = contrib.", "share of fused");
}

/* "off: no_vectors", "empty: no date in the query", "not ranked". */
static void vfmt_channel_state(const recall_result *r, int c, const trace_channel *tc, vrow *l)
{
    const channel_status *cs = &r->ch[c];
    if (!cs->active) {
        vrow_addf(l, ROLE_channel_off, "off: %s", cs->reason ? cs->reason : "?");
        vrow_addf(l, ROLE_normal, "  weight %.2f, contributes nothing", tc->weight);
    } else if (cs->candidates == 0) {
        vrow_addf(l, ROLE_channel_empty, "empty%s%s", cs->note ? ": " : "",
                  cs->note ? cs->note : "");
        vrow_add(l, ROLE_normal, "  no candidates, contributes nothing");
    } else {
        vrow_addf(l, ROLE_miss, "%-*s%*s  %-*s%-*.2f%s", TW_STATE, "-", TW_RANK - 2, "-", TW_RAW,
                  "-", TW_W, tc->weight, "not ranked by this channel: 0");
    }
}

static void vfmt_channel_row(vrow *l, const recall_result *r, const recall_hit *h, int c)
{
    const trace_channel *tc = &h->ch[c];
    int role = theme_channel_role(c);
    vrow_addf(l, role, "%-*s", TW_NAME, engine_channel_name(c));
    if (!tc->ranked) {
        vfmt_channel_state(r, c, tc, l);
        return;
    }
    char raw[32], contrib[64], bar[64];
    vfmt_raw(tc->raw, raw, sizeof raw);
    vfmt_contribution(tc, r->rrf_k, contrib, sizeof contrib);
    double share = h->fused > 0 ? tc->contribution / h->fused : 0;
    vfmt_bar(share, TW_BAR, bar, sizeof bar);
    vrow_addf(l, ROLE_normal, "%-*s%*d  %-*s%-*.2f%-*s", TW_STATE, "active", TW_RANK - 2, tc->rank,
              TW_RAW, raw, TW_W, tc->weight, TW_CONTRIB, contrib);
    vrow_add(l, role, bar);
    vrow_addf(l, ROLE_normal, " %5.1f%%", share * 100);
}

static void vfmt_adjustments(vrow *out, int max, int *n, const recall_result *r,
                             const recall_hit *h)
{
    vrow *l = &out[(*n)++];
    vrow_addf(l, ROLE_trace_label, "%-*s", TW_NAME, "entity");
    vrow_addf(l, ROLE_normal,
              "x %.4f  (speaker named: %s x%.0f, entity named: %s x%.0f)  "
              "boosted = %.6f x %.4f = ",
              h->eg_factor, h->eg_spoken ? "yes" : "no", 1 + r->eg_speaker,
              h->eg_mentions ? "yes" : "no", 1 + r->eg_mention, h->fused, h->eg_factor);
    vrow_addf(l, ROLE_trace_total, "%.6f", h->boosted);
    for (int a = 0; a < h->n_adj && *n < max; a++) {
        l = &out[(*n)++];
        vrow_addf(l, ROLE_trace_label, "%-*s", TW_NAME, h->adj[a].name);
        vrow_addf(l, ROLE_normal, "x %.4f  ", h->adj[a].factor);
        vrow_stored(l, ROLE_legend, h->adj[a].detail, strlen(h->adj[a].detail));
    }
}

static void vfmt_floor_row(vrow *l, const recall_result *r, const recall_hit *h)
{
    (void)r;
    vrow_addf(l, ROLE_trace_label, "%-*s", TW_NAME, "floor");
    if (!h->passed_by) {
        vrow_add(l, ROLE_floor_cut, "cut");
        vrow_addf(l, ROLE_normal, ": %s; not pinned, no edge to a passing memory", h->floor_why);
        return;
    }
    vrow_addf(l, ROLE_floor_pass, "passed by %s", h->passed_by);
    if (strcmp(h->passed_by, "association") == 0) {
        vrow_add(l, ROLE_normal, " via ");
        vrow_stored(l, ROLE_normal, h->associated, strlen(h->associated));
    }
    vrow_addf(l, ROLE_normal, "  (%s)", h->floor_why);
}

/* The row saying what the first stage added to channel c's list (the
 * JSON's channels.X.first_stage): the same for every hit of a recall, and
 * why one was ranked at all. It may quote stored words (prf's, kinds'). */
static void vfmt_first_stage_row(vrow *f, const recall_result *r, int c)
{
    const char *fs = r->ch[c].first_stage;
    vrow_addf(f, ROLE_trace_label, "%-*s", TW_NAME, "");
    vrow_addf(f, theme_channel_role(c), "%s", engine_channel_name(c));
    vrow_add(f, ROLE_legend, " first stage: ");
    vrow_stored(f, ROLE_legend, fs, strlen(fs));
}

int vfmt_first_stage(vrow *out, int max, const recall_result *r)
{
    int n = 0;
    for (int c = 0; c < CH_COUNT && n < max; c++)
        if (r->ch[c].first_stage[0])
            vfmt_first_stage_row(&out[n++], r, c);
    return n;
}

static int trace_rows(vrow *out, int max, const recall_result *r, const recall_hit *h,
                      int first_stage)
{
    int n = 0;
    if (max < 6 + CH_COUNT + h->n_adj)
        return 0;
    vfmt_trace_header(&out[n++]);
    for (int c = 0; c < CH_COUNT; c++)
        vfmt_channel_row(&out[n++], r, h, c);
    /* a row only while the rest still fits */
    for (int c = 0; first_stage && c < CH_COUNT; c++)
        if (r->ch[c].first_stage[0] && n + 6 + h->n_adj <= max)
            vfmt_first_stage_row(&out[n++], r, c);
    vrow *l = &out[n++];
    vrow_addf(l, ROLE_trace_label, "%-*s", TW_NAME, "fused");
    vrow_add(l, ROLE_normal, "sum of contributions = ");
    vrow_addf(l, ROLE_trace_total, "%.6f", h->fused);
    vfmt_adjustments(out, max, &n, r, h);
    l = &out[n++];
    vrow_addf(l, ROLE_trace_label, "%-*s", TW_NAME, "ranking");
    vrow_add(l, ROLE_normal, "boosted x adjustments = ");
    vrow_addf(l, ROLE_trace_total, "%.6f", h->ranking_score);
    l = &out[n++];
    vrow_addf(l, ROLE_trace_label, "%-*s", TW_NAME, "relevance");
    vrow_addf(l, ROLE_normal, "min(1, boosted / max_boosted) = %.6f / %.6f = ", h->boosted,
              h->max_fused);
    vrow_addf(l, ROLE_trace_total, "%.4f", h->relevance_score);
    vfmt_floor_row(&out[n++], r, h);
    return n;
}

int vfmt_trace(vrow *out, int max, const recall_result *r, const recall_hit *h)
{
    return trace_rows(out, max, r, h, 1);
}

int vfmt_trace_hit(vrow *out, int max, const recall_result *r, const recall_hit *h)
{
    return trace_rows(out, max, r, h, 0);
}

/* ---- why not ------------------------------------------------------------- */

const char *vfmt_verdict_text(const char *verdict)
{
    static const struct {
        const char *verdict, *text;
    } texts[] = {
        {"returned", "it was returned"},
        {"not_a_candidate", "no channel ranked it at all"},
        {"below_channel_top_n", "channels ranked it, but below their top N: it never reached "
                                "fusion"},
        {"below_floor", "it has no evidence of its own (a named entity, cosine, words, a pin, "
                        "or an edge to a memory that has) and the floor cut it"},
        {"below_limit", "it passed the floor but ranked below the result limit"},
        {"not_in_store", "no memory has this id in this profile"},
    };
    for (size_t k = 0; verdict && k < sizeof texts / sizeof *texts; k++)
        if (strcmp(verdict, texts[k].verdict) == 0)
            return texts[k].text;
    return "unknown";
}

static void vfmt_explain_channel(vrow *l, const recall_result *r, int c)
{
    const recall_explain *ex = r->explain;
    const trace_channel *tc = &ex->ch[c];
    vrow_addf(l, theme_channel_role(c), "%-*s", TW_NAME, engine_channel_name(c));
    if (!r->ch[c].active) {
        vrow_addf(l, ROLE_channel_off, "off: %s", r->ch[c].reason ? r->ch[c].reason : "?");
        return;
    }
    if (!tc->ranked) {
        vrow_add(l, ROLE_miss, "not a candidate");
        return;
    }
    char raw[32];
    vfmt_raw(tc->raw, raw, sizeof raw);
    vrow_addf(l, ROLE_normal, "%-*s%*d  %-*s", TW_STATE, ex->in_top_n[c] ? "top N" : "below",
              TW_RANK - 2, tc->rank, TW_RAW, raw);
    if (ex->in_top_n[c])
        vrow_addf(l, ROLE_normal, "%.2f/(%g+%d) = %.6f", tc->weight, r->rrf_k, tc->rank,
                  tc->contribution);
    else
        vrow_add(l, ROLE_floor_cut, "below the channel's top N: contributes 0");
}

int vfmt_explain(vrow *out, int max, const recall_result *r)
{
    const recall_explain *ex = r->explain;
    if (!ex || max < 4 + CH_COUNT)
        return 0;
    int n = 0;
    vrow *l = &out[n++];
    vrow_add(l, ROLE_pinned, "Why not ");
    vrow_stored(l, ROLE_pinned, ex->id, strlen(ex->id));
    vrow_add(l, ROLE_pinned, "?");
    vrow_addf(l, ex->rank_position ? ROLE_floor_pass : ROLE_floor_cut, " %s",
              ex->verdict ? ex->verdict : "unknown");
    if (ex->rank_position)
        vrow_addf(l, ROLE_normal, " (rank %d)", ex->rank_position);
    vrow_addf(&out[n++], ROLE_normal, "%s", vfmt_verdict_text(ex->verdict));
    if (!ex->found)
        return n;
    for (int c = 0; c < CH_COUNT; c++)
        vfmt_explain_channel(&out[n++], r, c);
    l = &out[n++];
    if (ex->fused_rank == 0) /* no channel ranked it: there is no fused position */
        vrow_addf(l, ROLE_normal, "not among the %zu fused candidates: no score to compare",
                  r->candidates);
    else
        vrow_addf(l, ROLE_normal,
                  "fused %.6f (position %d of %zu candidates), boosted %.6f, "
                  "ranking %.6f, relevance %.4f",
                  ex->fused, ex->fused_rank, r->candidates, ex->boosted, ex->ranking_score,
                  ex->relevance_score);
    l = &out[n++];
    vrow_addf(l, ROLE_normal, "evidence: %s; cosine %.3f (floor %.2f)%s",
              ex->passes_floor ? "has evidence of its own" : "no evidence of its own", ex->cosine,
              r->floor_threshold, r->floor_applied ? "" : "; the floor is off");
    return n;
}
