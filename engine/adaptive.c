/* adaptive.c - learning from relevance feedback (off with
 * recall_opts.no_adaptive; reset with engine_feedback_reset).
 *
 * A judgement says memory m was (+1) or was not (-1) relevant to a query of
 * type T, and which channels had ranked m for it. Two bounded adjustments
 * are learned, and a hit's ranking_score is multiplied by their product,
 * traced as the adjustment "feedback" (relevance_score never changes):
 *
 *  - channel nudges per query type: delta_c(T) = sum over T's judgements of
 *    label * ([c ranked m] - k/5), k the number of channels that ranked m,
 *    divided by (their number + ADAPT_SMOOTH), clipped to
 *    +-ADAPT_CHANNEL_MAX. A memory of a type-T query that channel c ranked
 *    gets (1 + delta_c(T)) for each such c. Channels that find what users
 *    mark relevant more often than the others count for more on similar
 *    questions; a memory every channel ranked teaches no channel anything.
 *  - memory boosts: a memory judged for a query that shares a content word
 *    (an FTS5 stem) with this one gets 1 + ADAPT_MEMORY_MAX * tanh(net / 2),
 *    net = the sum of those judgements' labels.
 *
 * The product is clipped to [1 - ADAPT_TOTAL_MAX, 1 + ADAPT_TOTAL_MAX].
 * docs/QUALITY.md shows its effect on LoCoMo. */
#include "engine_int.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stopwords.h"

#define ADAPT_SMOOTH 5.0
#define ADAPT_CHANNEL_MAX 0.2
#define ADAPT_MEMORY_MAX 0.25
#define ADAPT_TOTAL_MAX 0.5
#define ADAPT_STEMS_MAX 16

typedef struct judgement {
    int64_t rid;
    int label;
    unsigned channels;
    int type; /* query_type */
    char stems[ADAPT_STEMS_MAX][32];
    int n_stems;
} judgement;

struct adaptive {
    judgement *v;
    size_t n, cap;
    size_t stored; /* the first `stored` came from the store; the rest were learned now */
};

adaptive *adaptive_new(void)
{
    return calloc(1, sizeof(adaptive));
}

void adaptive_free(adaptive *a)
{
    if (!a)
        return;
    free(a->v);
    free(a);
}

size_t adaptive_count(const adaptive *a)
{
    return a ? a->n : 0;
}

struct stem_ctx {
    judgement *j;
    const char *text;
};

static int take_stem(void *p, const char *tok, int len, int start, int end)
{
    struct stem_ctx *c = p;
    char surface[64];
    int n = end - start;
    if (n <= 0 || n >= (int)sizeof surface || len <= 0 || len >= 32)
        return 0;
    for (int i = 0; i < n; i++)
        surface[i] = (char)tolower((unsigned char)c->text[start + i]);
    if (stopword_is(surface, (size_t)n) || c->j->n_stems >= ADAPT_STEMS_MAX)
        return 0;
    memcpy(c->j->stems[c->j->n_stems], tok, (size_t)len);
    c->j->stems[c->j->n_stems++][len] = '\0';
    return 0;
}

static int type_of(const char *name)
{
    for (int t = 0; t < QT_COUNT; t++)
        if (name && strcmp(name, query_type_name((query_type)t)) == 0)
            return t;
    return QT_GENERAL;
}

static ms_status reserve(adaptive *a, size_t want, ms_error *err)
{
    if (want <= a->cap)
        return MS_OK;
    size_t cap = a->cap ? a->cap : 32;
    while (cap < want)
        cap *= 2;
    judgement *g = realloc(a->v, cap * sizeof *g);
    if (!g)
        return ms_fail(err, MS_NOMEM, "out of memory");
    a->v = g;
    a->cap = cap;
    return MS_OK;
}

ms_status adaptive_add(adaptive *a, store *s, int64_t rid, const char *text, const char *type_name,
                       int label, unsigned channels, ms_error *err)
{
    ms_status st = reserve(a, a->n + 1, err);
    if (st)
        return st;
    judgement *j = &a->v[a->n];
    memset(j, 0, sizeof *j);
    j->rid = rid;
    j->label = label > 0 ? 1 : -1;
    j->channels = channels;
    j->type = type_of(type_name);
    struct stem_ctx c = {j, text ? text : ""};
    st = store_tokenize(s, c.text, (int)strlen(c.text), take_stem, &c, err);
    if (!st)
        a->n++;
    return st;
}

ms_status adaptive_load(adaptive *a, store *s, ms_error *err)
{
    store_feedback *fb = NULL;
    size_t n = 0;
    ms_status st = store_feedback_all(s, &fb, &n, err);
    if (st)
        return st;
    /* keep what was learned in this process, replace what came from the store */
    size_t learned = a->n - a->stored;
    judgement *keep = learned ? malloc(learned * sizeof *keep) : NULL;
    if (learned && !keep) {
        store_feedback_free(fb, n);
        return ms_fail(err, MS_NOMEM, "out of memory");
    }
    if (learned)
        memcpy(keep, a->v + a->stored, learned * sizeof *keep);
    a->n = 0;
    for (size_t i = 0; !st && i < n; i++)
        st = adaptive_add(a, s, fb[i].rid, fb[i].query, fb[i].query_type, fb[i].label,
                          fb[i].channels, err);
    a->stored = a->n;
    if (!st)
        st = reserve(a, a->n + learned, err);
    if (!st && learned) {
        memcpy(a->v + a->n, keep, learned * sizeof *keep);
        a->n += learned;
    }
    free(keep);
    store_feedback_free(fb, n);
    return st;
}

void adaptive_clear(adaptive *a)
{
    a->n = a->stored = 0;
}

void adaptive_channels(const adaptive *a, int type, double delta[CH_COUNT])
{
    double sum[CH_COUNT] = {0};
    size_t n = 0;
    for (size_t i = 0; a && i < a->n; i++) {
        if (a->v[i].type != type)
            continue;
        n++;
        /* credit relative to the average channel: a memory every channel
         * ranked says nothing about which channel to trust */
        double share = (double)__builtin_popcount(a->v[i].channels) / CH_COUNT;
        for (int c = 0; c < CH_COUNT; c++)
            sum[c] += a->v[i].label * (((a->v[i].channels & CH_MASK(c)) ? 1.0 : 0.0) - share);
    }
    for (int c = 0; c < CH_COUNT; c++)
        delta[c] =
            fmax(-ADAPT_CHANNEL_MAX, fmin(ADAPT_CHANNEL_MAX, sum[c] / ((double)n + ADAPT_SMOOTH)));
}

static int shares_stem(const judgement *j, const query *q)
{
    for (int s = 0; s < j->n_stems; s++)
        for (int t = 0; t < q->n_terms; t++)
            if (strcmp(j->stems[s], q->terms[t].text) == 0)
                return 1;
    return 0;
}

double adaptive_factor(const adaptive *a, const query *q, const double delta[CH_COUNT], int64_t rid,
                       unsigned ranked_by, int *judged)
{
    double f = 1;
    for (int c = 0; c < CH_COUNT; c++)
        if (ranked_by & CH_MASK(c))
            f *= 1 + delta[c];
    int net = 0;
    *judged = 0;
    for (size_t i = 0; a && i < a->n; i++)
        if (a->v[i].rid == rid && shares_stem(&a->v[i], q)) {
            net += a->v[i].label;
            (*judged)++;
        }
    f *= 1 + ADAPT_MEMORY_MAX * tanh(net / 2.0);
    return fmax(1 - ADAPT_TOTAL_MAX, fmin(1 + ADAPT_TOTAL_MAX, f));
}
