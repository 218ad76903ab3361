/* ch_semantic.c - dense semantic channel: cosine of the query vector with
 * every stored vector of the active embedder (vectors are unit length, so
 * cosine is a dot product).
 *
 * One scan over the int8 forms of the vectors (vectors.c), reading only the
 * dimensions where the query's code is not 0, estimates every cosine with a
 * bound on its error; only the memories whose bounds leave
 * them a chance of the top N are scored again with their exact vectors
 * (from their codes where those give the floats back, vectors_exact_dot),
 * so the list and its scores are those of an exact scan.
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

/* The exact cosine of x (whose non-zero dimensions are nz[n]) with memory
 * i: from its codes at those dimensions when they give its floats back,
 * else from its vector read from the store (snapshot_vector); -1 when it
 * has none or it cannot be read. The same bits either way. */
static int exact_cosine(const snapshot *sn, const float *x, const uint16_t *nz, int n, size_t i,
                        double *out)
{
    float f;
    if (sn->has_vec[i] && vectors_exact_dot(sn, x, nz, n, i, &f) == 0) {
        *out = f;
        return 0;
    }
    const float *v = snapshot_vector(sn, i);
    if (!v)
        return -1;
    *out = vectors_dot(x, v, sn->dim);
    return 0;
}

double semantic_cosine(const snapshot *sn, const float *x, size_t i)
{
    if (!x || i >= sn->n || !sn->dim)
        return 0.0;
    uint16_t nz[STORE_DIM_MAX];
    int n = vectors_nonzero(x, sn->dim, nz);
    double cos;
    return exact_cosine(sn, x, nz, n, i, &cos) ? 0.0 : cos;
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

/* The keep largest lower bounds (est - bound) seen so far, a min-heap: once
 * it is full, its root is a cut no memory beneath it can make the top keep
 * over. */
typedef struct low_heap {
    double *v;
    size_t n, keep;
} low_heap;

/* The current cut: the root of a full heap, -inf before. */
static double heap_cut(const low_heap *h)
{
    return h->keep && h->n == h->keep ? h->v[0] : -INFINITY;
}

static void heap_offer(low_heap *h, double lo)
{
    if (h->keep == 0)
        return;
    size_t i;
    if (h->n < h->keep) { /* sift up */
        i = h->n++;
        while (i > 0 && h->v[(i - 1) / 2] > lo) {
            h->v[i] = h->v[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        h->v[i] = lo;
        return;
    }
    if (lo <= h->v[0])
        return;
    i = 0; /* replace the root, sift down */
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->v[c + 1] < h->v[c])
            c++;
        if (h->v[c] >= lo)
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    h->v[i] = lo;
}

/* The least |dot| with which a memory of a block whose cap is (slope, cap)
 * may reach thr, less one for the rounding: a memory below it is passed
 * over without its norms (the exact test follows for the others). */
static int32_t block_floor(double slope, double cap, double thr)
{
    if (cap >= thr)
        return 0;
    if (slope <= 0)
        return INT32_MAX;
    double t = (thr - cap) / slope - 1;
    return t <= 0 ? 0 : t >= INT32_MAX ? INT32_MAX : (int32_t)t;
}

/* The places k < m of a block whose |dots[k]| reaches least, and whose
 * memory's own slope lets it (vectors_may_reach), into cand, in order,
 * with their norms asked of the memory ahead of their use (the memories of
 * a block far apart in the snapshot's arrays: loaded one after another,
 * each would wait for the one before). Their count. */
static size_t block_candidates(const snapshot *sn, const int32_t *dots, size_t m, int32_t least,
                               size_t first, uint16_t *cand)
{
    size_t nc = vectors_block_candidates(sn, first / VEC_BLOCK, dots, m, least, cand);
    for (size_t j = 0; j < nc; j++) {
        size_t i = first + cand[j];
        __builtin_prefetch(&sn->q_scale[i]);
        __builtin_prefetch(&sn->q_resid[i]);
        __builtin_prefetch(&sn->q_norm[i]);
    }
    return nc;
}

/* Pass 1: every memory that may reach SEMANTIC_MIN and the top keep, by
 * its estimate, with h the keep best lower bounds among them: a memory
 * whose estimate + bound is below a keep-th lower bound cannot be among
 * the keep best, so the list leaves it out as pass 2 would. A block's
 * bound (vectors_block_cap) passes over the memories that surely cannot
 * before their norms are read; the margin covers the rounding of the two
 * ways of computing it. */
static ms_status estimate(const channel_ctx *c, maybe_list *l, low_heap *h, ms_error *err)
{
    const snapshot *sn = c->sn;
    int16_t codes[STORE_DIM_MAX];
    uint16_t nz_dim[STORE_DIM_MAX];
    int32_t dots[VEC_BLOCK];
    vec_query q;
    vectors_query(c->q->qvec, sn->dim, codes, nz_dim, &q);
    for (size_t b = 0; b * VEC_BLOCK < sn->n; b++) {
        double cut = heap_cut(h);
        double thr = cut > SEMANTIC_MIN ? cut : SEMANTIC_MIN;
        double slope, cap = vectors_block_cap(sn, &q, b, &slope);
        int32_t least = block_floor(slope, cap, thr - 1e-9);
        if (least == INT32_MAX)
            continue;
        size_t m = vectors_block_dots(sn, &q, b, dots);
        uint16_t cand[VEC_BLOCK];
        size_t nc = block_candidates(sn, dots, m, least, b * VEC_BLOCK, cand);
        for (size_t j = 0; j < nc; j++) {
            size_t k = cand[j], i = b * VEC_BLOCK + k;
            if (!sn->has_vec[i])
                continue;
            double bound, est = vectors_estimate(sn, &q, i, dots[k], &bound);
            if (est + bound < SEMANTIC_MIN || est + bound < heap_cut(h))
                continue;
            heap_offer(h, est - bound);
            if (maybe_push(l, (uint32_t)i, est, bound))
                return ms_fail(err, MS_NOMEM, "out of memory");
        }
    }
    return MS_OK;
}

/* Pass 1's result: the memories left a chance, and the top_n-th best lower
 * bound among them. */
typedef struct semantic_pre {
    maybe_list l;
    double cut;
    ms_status st;
    ms_error err;
} semantic_pre;

static void semantic_release(void *p)
{
    semantic_pre *pre = p;
    if (pre)
        free(pre->l.v);
    free(pre);
}

/* Pass 1, which reads only the snapshot's codes and bounds and the query
 * vector, so the engine may run it beside bm25 and temporal (the 1M scan
 * is most of a recall's time: docs/PERFORMANCE.md). NULL when there is no
 * query vector or no memory for it. */
static void *semantic_prepare(const channel_ctx *c)
{
    if (!c->q->qvec)
        return NULL;
    semantic_pre *pre = calloc(1, sizeof *pre);
    if (!pre)
        return NULL;
    low_heap h = {malloc((c->top_n ? c->top_n : 1) * sizeof(double)), 0, c->top_n};
    pre->st =
        h.v ? estimate(c, &pre->l, &h, &pre->err) : ms_fail(&pre->err, MS_NOMEM, "out of memory");
    pre->cut = heap_cut(&h);
    free(h.v);
    return pre;
}

static ms_status produce(const channel_ctx *c, ranked_list *out, const char **note, ms_error *err)
{
    const snapshot *sn = c->sn;
    if (!c->q->qvec) {
        semantic_release(c->pre);
        *note = "query has no features";
        return MS_OK;
    }
    semantic_pre *pre = c->pre ? c->pre : semantic_prepare(c);
    if (!pre)
        return ms_fail(err, MS_NOMEM, "out of memory");
    ms_status st = pre->st;
    if (st)
        *err = pre->err;
    /* Pass 2: exact cosines of those not surely beaten by top_n others. */
    double cut = pre->cut;
    maybe_list l = pre->l;
    uint16_t nz[STORE_DIM_MAX];
    int nnz = vectors_nonzero(c->q->qvec, sn->dim, nz);
    for (size_t k = 0; !st && k < l.n; k++) {
        if (l.v[k].est + l.v[k].bound < cut)
            continue;
        double cos;
        if (exact_cosine(sn, c->q->qvec, nz, nnz, l.v[k].idx, &cos)) {
            st = ms_fail(err, MS_SQL, "cannot read the vector of memory #%lld",
                         (long long)sn->rid[l.v[k].idx]);
            break;
        }
        if (cos >= SEMANTIC_MIN && ranked_push(out, l.v[k].idx, cos))
            st = ms_fail(err, MS_NOMEM, "out of memory");
    }
    semantic_release(pre);
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
    .prepare = semantic_prepare,
    .release = semantic_release,
    .floor = &floor_evidence,
};
