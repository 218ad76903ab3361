/* stage2.c - the second stage: reorder the pool by what the first stage
 * already knows, each rule a traced adjustment of ranking_score (so
 * relevance_score stays query-relative, as the contract says).
 *
 * The exchange. A question that names a person is often answered by the
 * other person: "How does Priya keep calm before an exam?" is answered by
 * Sam's reply to Priya asking him (tests/fixtures/recall/exchange.test).
 * The entity enhancement multiplies a turn the named speaker spoke by
 * (1 + eg_speaker), which buries that reply. A turn that answers a pooled
 * turn of the named speaker (the next turn of the same session, spoken by
 * someone the query does not name) belongs to the named speaker's
 * exchange: it gets sqrt(1 + eg_speaker), half of the speaker boost on the
 * log scale, so it competes with the named speaker's turns on its own
 * evidence without outranking an equally matched one. Measured in
 * docs/QUALITY.md (tools/speakers-eval.py). */
#include "engine_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add(recall_hit *h, const char *name, double factor, const char *detail)
{
    if (h->n_adj >= TRACE_ADJ_MAX)
        return;
    trace_adjustment *a = &h->adj[h->n_adj++];
    a->name = name;
    a->factor = factor;
    snprintf(a->detail, sizeof a->detail, "%s", detail);
}

static int spoken_by_named(const query *q, const snapshot *sn, uint32_t i)
{
    for (int k = 0; k < q->n_named; k++)
        if (sn->speaker_ent[i] == (int32_t)q->named[k])
            return 1;
    return 0;
}

/* The turn before memory i in its session (memories are in rid order, so
 * in the order they were said), or -1. */
static long previous_turn(const snapshot *sn, uint32_t i)
{
    if (i == 0 || sn->session[i] < 0 || sn->session[i - 1] != sn->session[i])
        return -1;
    return (long)i - 1;
}

/* A pooled memory: its snapshot index and its position in the pool. */
typedef struct pooled {
    uint32_t idx;
    uint32_t pos;
} pooled;

static int by_index(const void *a, const void *b)
{
    const pooled *x = a, *y = b;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Pool position of snapshot index i in the sorted pool, or -1. */
static long pool_position(const pooled *sorted, size_t n, uint32_t i)
{
    pooled key = {i, 0};
    const pooled *p = bsearch(&key, sorted, n, sizeof *sorted, by_index);
    return p ? (long)p->pos : -1;
}

/* The exchange adjustment of pooled hit t, if it replies to a pooled turn
 * of a speaker the query names. */
static void exchange(const stage2_in *in, recall_hit *hs, const uint32_t *idx, const pooled *sorted,
                     size_t n, size_t t)
{
    const snapshot *sn = in->sn;
    if (!in->q->n_named || spoken_by_named(in->q, sn, idx[t]))
        return;
    long prev = previous_turn(sn, idx[t]);
    if (prev < 0 || !spoken_by_named(in->q, sn, (uint32_t)prev))
        return;
    long p = pool_position(sorted, n, (uint32_t)prev);
    if (p < 0)
        return;
    char d[96];
    snprintf(d, sizeof d, "sqrt(1 + speaker %.3g): replies to %.24s, a named speaker's turn",
             in->eg_speaker, hs[p].mem.id);
    add(&hs[t], "exchange", sqrt(1 + in->eg_speaker), d);
}

ms_status stage2_apply(const stage2_in *in, recall_hit *hs, const uint32_t *idx, size_t n,
                       ms_error *err)
{
    if (!in->q->n_named || n == 0)
        return MS_OK;
    pooled *sorted = malloc(n * sizeof *sorted);
    if (!sorted)
        return ms_fail(err, MS_NOMEM, "out of memory");
    for (size_t t = 0; t < n; t++)
        sorted[t] = (pooled){idx[t], (uint32_t)t};
    qsort(sorted, n, sizeof *sorted, by_index);
    for (size_t t = 0; t < n; t++)
        exchange(in, hs, idx, sorted, n, t);
    free(sorted);
    return MS_OK;
}
