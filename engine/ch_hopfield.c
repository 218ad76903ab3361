/* ch_hopfield.c - associative channel: one modern-Hopfield attention step
 * over the dense vectors of the best candidates the other channels found.
 *
 *   a  = softmax(beta * X q)      X: pool vectors (rows), q: query vector
 *   xi = normalise(X^T a)         the retrieved pattern
 *   score_i = X_i . xi
 *
 * The pool is the top HOPFIELD_POOL of the first fusion (semantic, bm25,
 * temporal) that have vectors: a small dense pseudo-relevance feedback that
 * pulls the ranking towards what the best hybrid candidates share.
 * HOPFIELD_BETA = 20 makes a cosine difference of 0.1 a factor of e^2 in
 * attention; the reference's 1/sqrt(d) (0.044 at d = 512) makes the softmax
 * uniform, so xi collapses to the pool's mean (docs/QUALITY.md). */
#include "engine_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HOPFIELD_BETA 20.0
#define HOPFIELD_POOL 10

static const char *health(const snapshot *sn, embedder *emb)
{
    return semantic_health(sn, emb);
}

/* The pool: the first fusion's best memories that have vectors. */
static size_t gather_pool(const channel_ctx *c, uint32_t *pool)
{
    size_t n = 0;
    const ranked_list *l = c->seed_fusion;
    for (size_t r = 0; l && r < l->n && n < HOPFIELD_POOL; r++)
        if (c->sn->has_vec[l->v[r].idx])
            pool[n++] = l->v[r].idx;
    return n;
}

static ms_status produce(const channel_ctx *c, ranked_list *out, const char **note, ms_error *err)
{
    const snapshot *sn = c->sn;
    if (!c->q->qvec) {
        *note = "query has no features";
        return MS_OK;
    }
    uint32_t pool[HOPFIELD_POOL];
    double a[HOPFIELD_POOL];
    float *xi = calloc((size_t)sn->dim, sizeof *xi);
    ms_status st = MS_OK;
    if (!xi) {
        st = ms_fail(err, MS_NOMEM, "out of memory");
        goto done;
    }
    size_t n = gather_pool(c, pool);
    if (n == 0) {
        *note = "no candidates with vectors to attend over";
        goto done;
    }
    double mx = -1e300, sum = 0;
    for (size_t k = 0; k < n; k++) {
        a[k] = HOPFIELD_BETA * semantic_cosine(sn, c->q->qvec, pool[k]);
        if (a[k] > mx)
            mx = a[k];
    }
    for (size_t k = 0; k < n; k++)
        sum += (a[k] = exp(a[k] - mx));
    for (size_t k = 0; k < n; k++) {
        const float *x = snapshot_vector(sn, pool[k]);
        if (!x) {
            st = ms_fail(err, MS_SQL, "cannot read the vector of memory #%lld",
                         (long long)sn->rid[pool[k]]);
            goto done;
        }
        float w = (float)(a[k] / sum);
        for (int d = 0; d < sn->dim; d++)
            xi[d] += w * x[d];
    }
    double norm = 0;
    for (int d = 0; d < sn->dim; d++)
        norm += (double)xi[d] * xi[d];
    if (norm > 0) {
        float inv = (float)(1.0 / sqrt(norm));
        for (int d = 0; d < sn->dim; d++)
            xi[d] *= inv;
    }
    for (size_t k = 0; k < n && !st; k++) { /* xi is dense: the whole vectors, read above */
        const float *x = snapshot_vector(sn, pool[k]);
        double score = x ? vectors_dot(xi, x, sn->dim) : 0.0;
        if (ranked_push(out, pool[k], score))
            st = ms_fail(err, MS_NOMEM, "out of memory");
    }
    if (!st)
        ranked_finish(out, sn, c->top_n);
done:
    free(xi);
    return st;
}

const channel_ops ch_hopfield_ops = {
    .name = "hopfield",
    .short_name = "hop",
    .stage = 2,
    .inputs = 0,
    .applies = NULL,
    .health = health,
    .produce = produce,
};
