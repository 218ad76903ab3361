/* ch_temporal.c - time channel.
 *
 * Three signals, one list:
 *  - a date named in the query: memories whose time (event time, else when
 *    stored) falls in or near the named range score exp(-d^2 / (2 s^2)),
 *    d the distance in days outside the range, s from the range's grain
 *    (day 3, week 7, month 15, season 30, year 60 days); nothing past 4 s;
 *  - a "when / how long" question: memories that match the query's terms
 *    AND carry a time expression (FTS5, bm25 order) score 0.5 + 0.5 * rank
 *    decay, so they lead the list after exact date hits;
 *  - a recency question: the newest memories, exp(-age / 30 days).
 * A memory found by several signals keeps its best score. */
#include "engine_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char time_words[] =
    "yesterday OR today OR tonight OR tomorrow OR ago OR last OR week OR weekend OR month "
    "OR year OR monday OR tuesday OR wednesday OR thursday OR friday OR saturday OR sunday "
    "OR january OR february OR march OR april OR june OR july OR august OR september OR "
    "october OR november OR december OR recently OR since OR morning OR evening OR night OR "
    "birthday OR anniversary OR 19* OR 20*";

static double grain_days(date_grain g)
{
    switch (g) {
    case GRAIN_DAY: return 3;
    case GRAIN_WEEK: return 7;
    case GRAIN_MONTH: return 15;
    case GRAIN_SEASON: return 30;
    default: return 60;
    }
}

/* Best score per memory, merged across signals. */
typedef struct best {
    double *score; /* [n], 0 = none */
} best;

static void date_signal(const channel_ctx *c, best *b)
{
    const snapshot *sn = c->sn;
    for (int k = 0; k < c->q->n_dates; k++) {
        const date_range *d = &c->q->dates[k];
        double s = grain_days(d->grain);
        for (size_t i = 0; i < sn->n; i++) {
            double t = (double)sn->when[i], dist = 0;
            if (t < (double)d->start)
                dist = ((double)d->start - t) / 86400.0;
            else if (t >= (double)d->end)
                dist = (t - (double)d->end) / 86400.0;
            if (dist > 4 * s)
                continue;
            double v = exp(-dist * dist / (2 * s * s));
            if (v > b->score[i])
                b->score[i] = v;
        }
    }
}

struct when_ctx {
    const snapshot *sn;
    best *b;
    int rank;
};

static int when_hit(void *p, int64_t rid, double score)
{
    struct when_ctx *w = p;
    (void)score;
    long i = snapshot_find(w->sn, rid);
    if (i >= 0) {
        double v = 0.5 * exp(-(double)w->rank / 10.0);
        if (v > w->b->score[i])
            w->b->score[i] = v;
    }
    w->rank++;
    return 0;
}

static ms_status when_signal(const channel_ctx *c, best *b, ms_error *err)
{
    if (c->q->n_terms == 0)
        return MS_OK;
    char *terms = bm25_match(c->q);
    if (!terms)
        return ms_fail(err, MS_NOMEM, "out of memory");
    size_t n = strlen(terms) + sizeof time_words + 16;
    char *match = malloc(n);
    if (!match) {
        free(terms);
        return ms_fail(err, MS_NOMEM, "out of memory");
    }
    snprintf(match, n, "(%s) AND (%s)", terms, time_words);
    struct when_ctx w = {c->sn, b, 0};
    ms_status st = store_fts(c->s, match, (int)c->top_n, when_hit, &w, err);
    free(terms);
    free(match);
    return st;
}

static void recency_signal(const channel_ctx *c, best *b)
{
    const snapshot *sn = c->sn;
    for (size_t i = 0; i < sn->n; i++) {
        double age = (double)(c->q->now - sn->when[i]) / 86400.0;
        if (age < 0)
            age = 0;
        double v = 0.25 * exp(-age / 30.0);
        if (v > b->score[i])
            b->score[i] = v;
    }
}

static const char *health(const snapshot *sn, embedder *emb)
{
    (void)emb;
    return sn->n == 0 ? "store_empty" : NULL;
}

static ms_status produce(const channel_ctx *c, ranked_list *out, const char **note,
                         ms_error *err)
{
    const query *q = c->q;
    if (q->n_dates == 0 && !q->asks_when && !q->asks_recent) {
        *note = "no date, when-question or recency in the query";
        return MS_OK;
    }
    best b = {calloc(c->sn->n + 1, sizeof(double))};
    if (!b.score)
        return ms_fail(err, MS_NOMEM, "out of memory");
    ms_status st = MS_OK;
    date_signal(c, &b);
    if (q->asks_when)
        st = when_signal(c, &b, err);
    if (!st && q->asks_recent && q->n_dates == 0)
        recency_signal(c, &b);
    for (size_t i = 0; !st && i < c->sn->n; i++)
        if (b.score[i] > 0 && ranked_push(out, (uint32_t)i, b.score[i]))
            st = ms_fail(err, MS_NOMEM, "out of memory");
    free(b.score);
    if (!st)
        ranked_finish(out, c->sn, c->top_n);
    return st;
}

const channel_ops ch_temporal_ops = {"temporal", health, produce};
