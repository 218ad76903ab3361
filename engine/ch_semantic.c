/* ch_semantic.c - dense semantic channel: cosine of the query vector with
 * every stored vector of the active embedder (vectors are unit length, so
 * cosine is a dot product).
 *
 * One scan over the int8 forms of the vectors (vectors.c), reading only the
 * dimensions where the query's code is not 0, estimates every cosine with a
 * bound on its error; only the memories whose bounds leave
 * them a chance of the top N are scored again with their exact vectors, so
 * the list and its scores are those of an exact scan.
 *
 * A memory is a candidate only above SEMANTIC_MIN: two unrelated texts of
 * the built-in embedder share a few character n-grams by chance (cosine
 * about 0.1), and that is not a reason to propose a memory. So a query
 * whose words nothing in the store resembles gets no_candidates. */
#include "engine_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEMANTIC_MIN 0.15

static float dot(const float *a, const float *b, int dim)
{
    /* eight partial sums the compiler can keep in vector registers */
    float s[8] = {0};
    int i = 0;
    for (; i + 8 <= dim; i += 8)
        for (int k = 0; k < 8; k++)
            s[k] += a[i + k] * b[i + k];
    float t = 0;
    for (; i < dim; i++)
        t += a[i] * b[i];
    return t + ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

double semantic_cosine(const snapshot *sn, const float *qvec, size_t i)
{
    const float *v = qvec ? snapshot_vector(sn, i) : NULL;
    return v ? dot(qvec, v, sn->dim) : 0.0;
}

const char *semantic_health(const snapshot *sn, embedder *emb)
{
    if (!emb)
        return "no_embedder";
    if (sn->n == 0)
        return "store_empty";
    if (sn->n_vec == 0 || !sn->vec_embedder)
        return "no_vectors";
    if (strcmp(sn->vec_embedder, embed_id(emb)) != 0 || sn->dim != embed_dim(emb))
        return "embedder_mismatch";
    return NULL;
}

/* A memory whose estimate leaves it a chance: estimate and bound. */
typedef struct maybe {
    uint32_t idx;
    double est, bound;
} maybe;

typedef struct maybe_list {
    maybe *v;
    size_t n, cap;
} maybe_list;

static int maybe_push(maybe_list *l, uint32_t idx, double est, double bound)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        maybe *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = (maybe){idx, est, bound};
    return 0;
}

/* The k-th largest of v[0..n) (k < n), reordering v: quickselect. */
static double kth_largest(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] > pivot)
                i++;
            while (v[j] < pivot)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

/* The keep-th largest lower bound (est - bound) of the list: at least keep
 * memories are surely at or above it; -inf when there are fewer. */
static double kth_lower(const maybe_list *l, size_t keep, ms_status *st, ms_error *err)
{
    if (keep == 0 || l->n < keep)
        return -INFINITY;
    double *lo = malloc(l->n * sizeof *lo);
    if (!lo) {
        *st = ms_fail(err, MS_NOMEM, "out of memory");
        return -INFINITY;
    }
    for (size_t k = 0; k < l->n; k++)
        lo[k] = l->v[k].est - l->v[k].bound;
    double v = kth_largest(lo, l->n, keep - 1);
    free(lo);
    return v;
}

/* Pass 1: every memory that may reach SEMANTIC_MIN, by its estimate. A
 * block's bound (vectors_block_cap) passes over the memories that surely
 * cannot before their norms are read; the margin covers the rounding of
 * the two ways of computing it. */
static ms_status estimate(const channel_ctx *c, maybe_list *l, ms_error *err)
{
    const snapshot *sn = c->sn;
    int8_t codes[STORE_DIM_MAX];
    uint16_t nz_dim[STORE_DIM_MAX];
    int32_t dots[VEC_BLOCK];
    vec_query q;
    vectors_query(c->q->qvec, sn->dim, codes, nz_dim, &q);
    const double lim = SEMANTIC_MIN - 1e-9;
    for (size_t b = 0; b * VEC_BLOCK < sn->n; b++) {
        double slope, cap = vectors_block_cap(sn, &q, b, &slope);
        size_t m = vectors_block_dots(sn, &q, b, dots);
        for (size_t k = 0; k < m; k++) {
            size_t i = b * VEC_BLOCK + k;
            if (slope * fabs((double)dots[k]) + cap < lim || !sn->has_vec[i])
                continue;
            double bound, est = vectors_estimate(sn, &q, i, dots[k], &bound);
            if (est + bound >= SEMANTIC_MIN && maybe_push(l, (uint32_t)i, est, bound))
                return ms_fail(err, MS_NOMEM, "out of memory");
        }
    }
    return MS_OK;
}

static ms_status produce(const channel_ctx *c, ranked_list *out, const char **note, ms_error *err)
{
    const snapshot *sn = c->sn;
    if (!c->q->qvec) {
        *note = "query has no features";
        return MS_OK;
    }
    maybe_list l = {0};
    ms_status st = estimate(c, &l, err);
    /* Pass 2: exact cosines of those not surely beaten by top_n others. */
    double cut = st ? 0 : kth_lower(&l, c->top_n, &st, err);
    for (size_t k = 0; !st && k < l.n; k++) {
        if (l.v[k].est + l.v[k].bound < cut)
            continue;
        const float *v = snapshot_vector(sn, l.v[k].idx);
        if (!v) {
            st = ms_fail(err, MS_SQL, "cannot read the vector of memory #%lld",
                         (long long)sn->rid[l.v[k].idx]);
            break;
        }
        double cos = dot(c->q->qvec, v, sn->dim);
        if (cos >= SEMANTIC_MIN && ranked_push(out, l.v[k].idx, cos))
            st = ms_fail(err, MS_NOMEM, "out of memory");
    }
    free(l.v);
    if (!st)
        ranked_finish(out, sn, c->top_n);
    return st;
}

/* ---- the floor's semantic rule -------------------------------------------- */

/* The cosines of the query and of its remainder with memory i. */
static void floor_measure(const floor_ctx *c, uint32_t i, recall_hit *h)
{
    h->cosine = semantic_cosine(c->sn, c->q->qvec, i);
    h->rcosine = semantic_cosine(c->sn, c->q->rvec, i);
}

/* semantic: the remainder cosine reaches the cosine threshold. */
static const char *floor_judge_semantic(const floor_in *in, char *why, size_t len)
{
    if (in->rcosine >= in->cosine_min) {
        snprintf(why, len, "remainder cosine %.3f >= %.2f", in->rcosine, in->cosine_min);
        return "semantic";
    }
    snprintf(why, len, "remainder cosine %.3f < %.2f", in->rcosine, in->cosine_min);
    return NULL;
}

static const char *const floor_names[] = {"semantic", NULL};

static const floor_rule floor_evidence = {
    .ask = 3,
    .tell = 2,
    .needs_focus = 1,
    .names = floor_names,
    .measure = floor_measure,
    .judge = floor_judge_semantic,
};

const channel_ops ch_semantic_ops = {
    .name = "semantic",
    .short_name = "sem",
    .stage = 1,
    .inputs = 0,
    .applies = NULL,
    .health = semantic_health,
    .produce = produce,
    .floor = &floor_evidence,
};
