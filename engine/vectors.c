/* vectors.c - the snapshot's vectors: int8 forms in memory, exact vectors
 * on demand.
 *
 * The snapshot holds every vector in its int8 form (store_qvec: 512 bytes
 * instead of 2 KB at 512 dimensions), so loading a profile and scanning it
 * stay fast and small at 100,000 memories. A dot product of int8 forms is
 * exact integer arithmetic, and with the norms the store keeps it comes with
 * a bound on its distance from the exact cosine (vectors_bound). Whatever
 * the engine reports - a semantic raw score, a cosine, a Hopfield pattern -
 * is computed from the exact float vector, read from the store the first
 * time it is needed and cached here (snapshot_vector). */
#include "engine_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VCACHE_MAX 4096 /* exact vectors kept (8 MB at 512 dimensions) */

struct vcache {
    int dim;
    size_t cap, used; /* vectors held, slots of data in use */
    float *data;      /* [cap * dim] */
    uint32_t *key;    /* [2 * cap] memory index + 1, 0 = empty */
    uint32_t *at;     /* [2 * cap] its row in data */
};

vcache *vcache_new(int dim, size_t n)
{
    vcache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->dim = dim;
    c->cap = n < VCACHE_MAX ? (n > 16 ? n : 16) : VCACHE_MAX;
    c->data = malloc(c->cap * (size_t)dim * sizeof *c->data);
    c->key = calloc(2 * c->cap, sizeof *c->key);
    c->at = malloc(2 * c->cap * sizeof *c->at);
    if (!c->data || !c->key || !c->at) {
        vcache_free(c);
        return NULL;
    }
    return c;
}

void vcache_free(vcache *c)
{
    if (!c)
        return;
    free(c->data);
    free(c->key);
    free(c->at);
    free(c);
}

/* The slot of memory i in the open-addressing table (its own or the empty
 * one where it would go). */
static size_t vcache_slot(const vcache *c, size_t i)
{
    size_t last = 2 * c->cap - 1; /* linear probing over 2 cap slots */
    size_t j = (size_t)((i * 2654435761u) % (2 * c->cap));
    while (c->key[j] && c->key[j] != i + 1)
        j = j == last ? 0 : j + 1;
    return j;
}

const float *snapshot_vector(const snapshot *sn, size_t i)
{
    vcache *c = sn->exact;
    if (!c || i >= sn->n || !sn->has_vec[i])
        return NULL;
    size_t j = vcache_slot(c, i);
    if (c->key[j])
        return c->data + (size_t)c->at[j] * (size_t)c->dim;
    if (c->used == c->cap) { /* full: start again */
        memset(c->key, 0, 2 * c->cap * sizeof *c->key);
        c->used = 0;
        j = vcache_slot(c, i);
    }
    float *v = c->data + c->used * (size_t)c->dim;
    if (store_get_vector(sn->s, sn->rid[i], v, c->dim, NULL))
        return NULL;
    c->key[j] = (uint32_t)i + 1;
    c->at[j] = (uint32_t)c->used++;
    return v;
}

/* ---- int8 dot products ------------------------------------------------------ */

/* Vectorised where the compiler can: GCC needs -O3 for this loop, and
 * x86-64 machines with AVX2 get a clone that uses it. */
#if defined(__GNUC__) && !defined(__clang__)
#define VEC_FAST __attribute__((optimize("O3")))
#else
#define VEC_FAST
#endif
#if defined(__x86_64__) && defined(__has_attribute) && !defined(__SANITIZE_ADDRESS__)
#if __has_attribute(target_clones)
#undef VEC_FAST
#if defined(__clang__)
#define VEC_FAST __attribute__((target_clones("avx2", "default")))
#else
#define VEC_FAST __attribute__((optimize("O3"), target_clones("avx2", "default")))
#endif
#endif
#endif

VEC_FAST int32_t vectors_idot(const int8_t *a, const int8_t *b, int dim)
{
    int32_t s = 0;
    for (int i = 0; i < dim; i++)
        s += a[i] * b[i];
    return s;
}

void vectors_query(const float *qvec, int dim, int8_t *codes, vec_query *out)
{
    store_qvec qv;
    store_quantize(qvec, dim, codes, &qv);
    double n2 = 0;
    for (int j = 0; j < dim; j++)
        n2 += (double)qvec[j] * qvec[j];
    out->q = codes;
    out->scale = qv.scale;
    out->resid = qv.resid;
    out->norm = sqrt(n2);
    /* the float dot product's own rounding: 8 partial sums of dim / 8
     * products each, then 3 additions (ch_semantic.c) */
    out->gamma = ((double)dim / 8 + 8) * 0x1p-24 * 1.01;
}

double vectors_approx(const snapshot *sn, const vec_query *q, size_t i, double *bound)
{
    const int8_t *v = sn->qv + i * (size_t)sn->dim;
    double a = q->scale * sn->q_scale[i] * (double)vectors_idot(q->q, v, sn->dim);
    /* |q.v - q'.v'| <= |q|.|v - v'| + |q - q'|.|v'|, plus the rounding of
     * the exact float computation, |q|.|v| gamma, with |v| <= |v'| + resid */
    double vn = sn->q_norm[i] + sn->q_resid[i];
    *bound = q->norm * sn->q_resid[i] + q->resid * sn->q_norm[i] + q->gamma * q->norm * vn + 1e-12;
    return a;
}
