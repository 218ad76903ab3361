/* ch_hopfield.c - associative channel: one modern-Hopfield attention step
 * over the dense vectors of the candidate pool the other channels found.
 *
 *   a  = softmax(beta * X q)      X: pool vectors (rows), q: query vector
 *   xi = normalise(X^T a)         the retrieved pattern
 *   score_i = X_i . xi
 *
 * The pool is the union of the stage-one channels' candidates (semantic,
 * bm25, temporal) that have vectors. HOPFIELD_BETA = 12 is documented in
 * docs/QUALITY.md: the reference's 1/sqrt(d) (0.044 at d = 512) makes the
 * softmax almost uniform, so xi collapses to the pool's mean. */
#include "engine_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HOPFIELD_BETA 12.0
#define HOPFIELD_POOL_MAX 400

static const char *health(const snapshot *sn, embedder *emb)
{
    return semantic_health(sn, emb);
}

/* The pool: distinct indices with vectors from the stage-one lists. */
static size_t gather_pool(const channel_ctx *c, uint32_t *pool, uint8_t *seen)
{
    static const int stage_one[] = {CH_SEMANTIC, CH_BM25, CH_TEMPORAL};
    size_t n = 0;
    for (size_t r = 0;; r++) {
        int any = 0;
        for (size_t k = 0; k < 3; k++) {
            const ranked_list *l = &c->lists[stage_one[k]];
            if (r >= l->n)
                continue;
            any = 1;
            uint32_t i = l->v[r].idx;
            if (!seen[i] && c->sn->has_vec[i] && n < HOPFIELD_POOL_MAX) {
                seen[i] = 1;
                pool[n++] = i;
            }
        }
        if (!any || n >= HOPFIELD_POOL_MAX)
            break;
    }
    return n;
}

static ms_status produce(const channel_ctx *c, ranked_list *out, const char **note,
                         ms_error *err)
{
    const snapshot *sn = c->sn;
    if (!c->q->qvec) {
        *note = "query has no features";
        return MS_OK;
    }
    uint32_t *pool = malloc(HOPFIELD_POOL_MAX * sizeof *pool);
    uint8_t *seen = calloc(sn->n + 1, 1);
    double *a = malloc(HOPFIELD_POOL_MAX * sizeof *a);
    float *xi = calloc((size_t)sn->dim, sizeof *xi);
    ms_status st = MS_OK;
    if (!pool || !seen || !a || !xi) {
        st = ms_fail(err, MS_NOMEM, "out of memory");
        goto done;
    }
    size_t n = gather_pool(c, pool, seen);
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
        const float *x = sn->vec + (size_t)pool[k] * (size_t)sn->dim;
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
    for (size_t k = 0; k < n && !st; k++) {
        double score = semantic_cosine(sn, xi, pool[k]);
        if (score > 0 && ranked_push(out, pool[k], score))
            st = ms_fail(err, MS_NOMEM, "out of memory");
    }
    if (!st)
        ranked_finish(out, sn, c->top_n);
done:
    free(pool);
    free(seen);
    free(a);
    free(xi);
    return st;
}

const channel_ops ch_hopfield_ops = {"hopfield", health, produce};
