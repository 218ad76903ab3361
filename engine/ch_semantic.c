/* ch_semantic.c - dense semantic channel: cosine of the query vector with
 * every stored vector of the active embedder (one scan over a contiguous
 * array; vectors are unit length, so cosine is a dot product).
 *
 * A memory is a candidate only above SEMANTIC_MIN: two unrelated texts of
 * the built-in embedder share a few character n-grams by chance (cosine
 * about 0.1), and that is not a reason to propose a memory. So a query
 * whose words nothing in the store resembles gets no_candidates. */
#include "engine_int.h"

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
    if (!qvec || !sn->vec || !sn->has_vec[i])
        return 0.0;
    return dot(qvec, sn->vec + i * (size_t)sn->dim, sn->dim);
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

static ms_status produce(const channel_ctx *c, ranked_list *out, const char **note,
                         ms_error *err)
{
    const snapshot *sn = c->sn;
    if (!c->q->qvec) {
        *note = "query has no features";
        return MS_OK;
    }
    for (size_t i = 0; i < sn->n; i++) {
        if (!sn->has_vec[i])
            continue;
        double cos = dot(c->q->qvec, sn->vec + i * (size_t)sn->dim, sn->dim);
        if (cos >= SEMANTIC_MIN && ranked_push(out, (uint32_t)i, cos))
            return ms_fail(err, MS_NOMEM, "out of memory");
    }
    ranked_finish(out, sn, c->top_n);
    return MS_OK;
}

const channel_ops ch_semantic_ops = {"semantic", semantic_health, produce};
