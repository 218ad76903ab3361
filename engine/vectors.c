/* vectors.c - the snapshot's vectors: int8 forms in memory, exact vectors
 * on demand.
 *
 * The snapshot holds every vector in its int8 form (store_qvec: 512 bytes
 * instead of 2 KB at 512 dimensions), so loading a profile and scanning it
 * stay fast and small at 100,000 memories. A dot product of int8 forms is
 * exact integer arithmetic, and with the norms the store keeps it comes with
 * a bound on its distance from the exact cosine (vectors_bound). Whatever
 * the engine reports - a semantic raw score, a cosine, a Hopfield pattern -
 * is computed from the exact float vector. The built-in embedder's vectors
 * hold a few distinct floats each (a word's weight over the vector's
 * norm), each with a code of its own, so for such a vector the snapshot
 * keeps which float each code stands for (sn->qx_*), and its dot product
 * with a sparse query vector comes from its codes at the query's non-zero
 * dimensions (vectors_exact_dot): the columns the scan reads. A whole
 * vector (Hopfield's pattern, or a memory whose codes do not give it) is
 * read from the store the first time it is needed and cached here
 * (snapshot_vector): made from its codes, it would touch a page of the
 * mapped file for each of its dimensions. */
#include "engine_int.h"

#include <math.h>
#include <stdint.h>
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

/* ---- where the codes are ------------------------------------------------------ */

static size_t vectors_blocks(size_t n)
{
    return (n + VEC_BLOCK - 1) / VEC_BLOCK;
}

/* The blocks of segment g of a snapshot of n memories: VEC_SEG, fewer in
 * the last. */
static size_t segment_blocks(size_t n, size_t g)
{
    size_t left = vectors_blocks(n) - g * VEC_SEG;
    return left < VEC_SEG ? left : VEC_SEG;
}

/* The first code of dimension d in block b, and into *stride the bytes
 * from one dimension's codes to the next's in b's segment (its blocks
 * times VEC_BLOCK): VEC_BLOCK codes of the block's memories follow, then
 * the next block's of the same dimension. */
static int8_t *vectors_column(const snapshot *sn, size_t b, int d, size_t *stride)
{
    size_t g = b / VEC_SEG;
    *stride = segment_blocks(sn->n, g) * VEC_BLOCK;
    return sn->qv + g * VEC_SEG * (size_t)sn->dim * VEC_BLOCK + (size_t)d * *stride +
           (b - g * VEC_SEG) * VEC_BLOCK;
}

/* The floats memory i's codes stand for, by code + 128, into val; ok[c +
 * 128] 1 for each code that has one (0 included, for +0.0). 0, or -1 when
 * its codes do not give its floats back. */
static int exact_table(const snapshot *sn, size_t i, float val[256], uint8_t ok[256])
{
    if (!sn->qx_n || !sn->qx_n[i])
        return -1;
    memset(ok, 0, 256);
    ok[128] = 1;
    val[128] = 0.0f;
    for (size_t k = sn->qx_at[i], end = k + sn->qx_n[i]; k < end; k++) {
        ok[sn->qx_code[k] + 128] = 1;
        val[sn->qx_code[k] + 128] = sn->qx_val[k];
    }
    return 0;
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

float vectors_dot(const float *a, const float *b, int dim)
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

int vectors_nonzero(const float *x, int dim, uint16_t *nz)
{
    int n = 0;
    for (int d = 0; d < dim; d++) {
        nz[n] = (uint16_t)d;
        n += x[d] != 0.0f;
    }
    return n;
}

/* vectors_dot's sums with only the products of x's non-zero dimensions:
 * a product left out is +0.0 or -0.0 (the memory's floats are finite,
 * store_qvec.n_exact), and a sum that starts at +0.0 is never -0.0 (an
 * exact cancellation rounds to +0.0), so adding it changes no bit. */
int vectors_exact_dot(const snapshot *sn, const float *x, const uint16_t *nz, int n, size_t i,
                      float *out)
{
    float val[256];
    uint8_t ok[256], bad = 0;
    if (exact_table(sn, i, val, ok))
        return -1;
    size_t stride;
    const int8_t *col = vectors_column(sn, i / VEC_BLOCK, 0, &stride) + i % VEC_BLOCK;
    int lanes = sn->dim & ~7; /* vectors_dot's eight sums, then its tail */
    float s[8] = {0}, t = 0;
    for (int k = 0; k < n; k++) {
        int d = nz[k], c = col[(size_t)d * stride] + 128;
        bad |= !ok[c];
        float p = x[d] * val[c];
        if (d < lanes)
            s[d & 7] += p;
        else
            t += p;
    }
    *out = t + ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    return bad ? -1 : 0;
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
/* clang 14 emits a target_clones resolver only in a unit that calls the
 * function, and vectors_block_dots is called from ch_semantic.c: the link
 * fails. clang builds (CI's warning check, the fuzzers) go without clones. */
#define VEC_FAST
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

/* The largest query code: dim products of it with a code of at most 127
 * add up within an int32, whatever the memory. */
static int32_t query_code_max(int dim)
{
    int64_t w = (int64_t)INT32_MAX / (127 * (int64_t)(dim > 0 ? dim : 1));
    return w > INT16_MAX ? INT16_MAX : (int32_t)w;
}

void vectors_query(const float *qvec, int dim, int16_t *codes, uint16_t *nz_dim, vec_query *out)
{
    float maxabs = 0;
    for (int j = 0; j < dim; j++)
        if (fabsf(qvec[j]) > maxabs)
            maxabs = fabsf(qvec[j]);
    int32_t top = query_code_max(dim);
    double scale = maxabs > 0 ? (double)maxabs / top : 0;
    double inv = maxabs > 0 ? top / (double)maxabs : 0;
    double resid = 0, n2 = 0;
    out->nz = 0;
    for (int j = 0; j < dim; j++) {
        double x = (double)qvec[j] * inv; /* the bounds hold for any codes */
        int32_t c = (int32_t)(x >= 0 ? x + 0.5 : x - 0.5);
        c = c > top ? top : c < -top ? -top : c;
        codes[j] = (int16_t)c;
        double e = (double)qvec[j] - scale * (double)c;
        resid += e * e;
        n2 += (double)qvec[j] * qvec[j];
        if (c)
            nz_dim[out->nz++] = (uint16_t)j;
    }
    out->q = codes;
    out->scale = scale;
    out->resid = sqrt(resid);
    out->norm = sqrt(n2);
    /* the float dot product's own rounding: 8 partial sums of dim / 8
     * products each, then 3 additions (ch_semantic.c) */
    out->gamma = ((double)dim / 8 + 8) * 0x1p-24 * 1.01;
    out->nz_dim = nz_dim;
}

/* ---- the dimension-major layout ------------------------------------------------ */

/* What vectors_alloc makes but sn->qv and the scales, residuals and norms. */
static int alloc_rest(snapshot *sn, size_t n, int dim)
{
    size_t blocks = vectors_blocks(n);
    sn->blk_max = calloc(3 * blocks, sizeof *sn->blk_max);
    sn->q_slope = calloc(n + 1, 1);
    sn->stage = calloc((size_t)dim * VEC_BLOCK, 1);
    sn->stage_blk = SIZE_MAX;
    sn->qx_at = snap_big_alloc(n * sizeof *sn->qx_at, 1);
    sn->qx_n = calloc(n, 1);
    return sn->blk_max && sn->q_slope && sn->stage && sn->qx_at && sn->qx_n ? 0 : -1;
}

int vectors_alloc(snapshot *sn, size_t n, int dim)
{
    sn->qv = snap_big_alloc(vectors_blocks(n) * (size_t)dim * VEC_BLOCK, 1);
    sn->q_scale = snap_big_alloc(n * sizeof *sn->q_scale, 1);
    sn->q_resid = snap_big_alloc(n * sizeof *sn->q_resid, 1);
    sn->q_norm = snap_big_alloc(n * sizeof *sn->q_norm, 1);
    return alloc_rest(sn, n, dim) == 0 && sn->qv && sn->q_scale && sn->q_resid && sn->q_norm ? 0
                                                                                             : -1;
}

int vectors_alloc_from(snapshot *sn, size_t n, int dim, const snapshot *old, size_t *kept)
{
    /* old's blocks in whole segments: their codes are the same bytes in sn */
    *kept = old->dim == dim ? (old->n / VEC_BLOCK) / VEC_SEG * VEC_SEG : 0;
    sn->qv = snap_cow_join(sn, old, old->qv, *kept * (size_t)dim * VEC_BLOCK,
                           vectors_blocks(n) * (size_t)dim * VEC_BLOCK);
    double **col[3] = {&sn->q_scale, &sn->q_resid, &sn->q_norm};
    const double *from[3] = {old->q_scale, old->q_resid, old->q_norm};
    for (int k = 0; k < 3; k++)
        *col[k] = snap_cow_join(sn, old, from[k], old->n * sizeof **col[k], n * sizeof **col[k]);
    return alloc_rest(sn, n, dim) == 0 && sn->qv && sn->q_scale && sn->q_resid && sn->q_norm ? 0
                                                                                             : -1;
}

int vectors_put_exact(snapshot *sn, size_t i, const store_qvec *v)
{
    size_t k = (size_t)v->n_exact;
    if (k > UINT8_MAX || sn->n_qx + k > UINT32_MAX)
        return -1; /* qx_n[i] stays 0: its vector is read from the store */
    if (sn->n_qx + k > sn->cap_qx) {
        size_t cap = sn->cap_qx ? 2 * sn->cap_qx : 4096;
        while (cap < sn->n_qx + k)
            cap *= 2;
        int8_t *code = snap_big_realloc(sn, sn->qx_code, sn->cap_qx, cap);
        if (code)
            sn->qx_code = code;
        float *val = snap_big_realloc(sn, sn->qx_val, sn->cap_qx * sizeof *val, cap * sizeof *val);
        if (val)
            sn->qx_val = val;
        if (!code || !val)
            return -1;
        sn->cap_qx = cap;
    }
    sn->qx_at[i] = k ? (uint32_t)sn->n_qx : 0;
    sn->qx_n[i] = (uint8_t)k;
    if (k) { /* with none, the arrays may not exist yet */
        memcpy(sn->qx_code + sn->n_qx, v->exact_code, k);
        memcpy(sn->qx_val + sn->n_qx, v->exact, k * sizeof *sn->qx_val);
    }
    sn->n_qx += k;
    return 0;
}

/* Transpose the 8 x 8 bytes of x (row r = x[r], byte c at bits 8c): 4-byte,
 * then 2-byte, then 1-byte blocks swap across the diagonal. */
static void transpose8(uint64_t x[8])
{
    for (int r = 0; r < 4; r++) {
        uint64_t a = x[r], b = x[r + 4];
        x[r] = (a & 0x00000000ffffffffull) | (b << 32);
        x[r + 4] = (a >> 32) | (b & 0xffffffff00000000ull);
    }
    for (int r = 0; r < 8; r += (r & 1) ? 3 : 1) { /* 0, 1, 4, 5 */
        uint64_t a = x[r], b = x[r + 2];
        x[r] = (a & 0x0000ffff0000ffffull) | ((b & 0x0000ffff0000ffffull) << 16);
        x[r + 2] = ((a >> 16) & 0x0000ffff0000ffffull) | (b & 0xffff0000ffff0000ull);
    }
    for (int r = 0; r < 8; r += 2) {
        uint64_t a = x[r], b = x[r + 1];
        x[r] = (a & 0x00ff00ff00ff00ffull) | ((b & 0x00ff00ff00ff00ffull) << 8);
        x[r + 1] = ((a >> 8) & 0x00ff00ff00ff00ffull) | (b & 0xff00ff00ff00ff00ull);
    }
}

/* |scale| over the block's largest m in 255ths, rounded up (the + 1 covers
 * the division's rounding): never below the ratio, 0 for a scale of 0. */
static uint8_t slope_255ths(double scale, double m)
{
    if (scale == 0 || !(m > 0))
        return scale == 0 ? 0 : 255;
    double r = floor(255.0 * fabs(scale) / m) + 1;
    return r >= 255 ? 255 : (uint8_t)r;
}

/* Memory i's q_slope, from its block's largest scale as it is now. */
static void slope_put(snapshot *sn, size_t i)
{
    sn->q_slope[i] = slope_255ths(sn->q_scale[i], sn->blk_max[3 * (i / VEC_BLOCK)]);
}

/* The staged block, memory by memory, into its place by dimension: 8 x 8
 * tiles of codes through 64-bit words, the dimensions past a multiple of 8
 * one by one. */
static void vectors_unstage(snapshot *sn)
{
    if (sn->stage_blk == SIZE_MAX)
        return;
    size_t dim = (size_t)sn->dim, d8 = dim & ~(size_t)7;
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    d8 = 0; /* transpose8 takes byte c of a word at bits 8c */
#endif
    size_t stride;
    int8_t *out = vectors_column(sn, sn->stage_blk, 0, &stride);
    for (size_t k0 = 0; k0 < VEC_BLOCK; k0 += 8) {
        const int8_t *in = sn->stage + k0 * dim;
        for (size_t d0 = 0; d0 < d8; d0 += 8) {
            uint64_t x[8];
            for (int r = 0; r < 8; r++)
                memcpy(&x[r], in + (size_t)r * dim + d0, 8);
            transpose8(x);
            for (int c = 0; c < 8; c++)
                memcpy(out + (d0 + (size_t)c) * stride + k0, &x[c], 8);
        }
        for (size_t d = d8; d < dim; d++)
            for (size_t r = 0; r < 8; r++)
                out[d * stride + k0 + r] = in[r * dim + d];
    }
    size_t first = sn->stage_blk * VEC_BLOCK; /* every scale of the block is known */
    for (size_t i = first; i < first + VEC_BLOCK && i < sn->n; i++)
        slope_put(sn, i);
    memset(sn->stage, 0, dim * VEC_BLOCK);
    sn->stage_blk = SIZE_MAX;
}

static void vectors_max(double *m, double v)
{
    if (v > *m)
        *m = v;
}

void vectors_put(snapshot *sn, size_t i, const store_qvec *v)
{
    size_t b = i / VEC_BLOCK;
    if (sn->stage && b != sn->stage_blk && (sn->stage_blk == SIZE_MAX || b > sn->stage_blk)) {
        vectors_unstage(sn);
        sn->stage_blk = b;
    }
    int staged = sn->stage && b == sn->stage_blk;
    if (staged) { /* in order: a row of the block being staged */
        memcpy(sn->stage + (i % VEC_BLOCK) * (size_t)sn->dim, v->q, (size_t)sn->dim);
    } else { /* a block already in place: code by code */
        size_t stride;
        int8_t *col = vectors_column(sn, b, 0, &stride) + i % VEC_BLOCK;
        for (int d = 0; d < sn->dim; d++)
            col[(size_t)d * stride] = v->q[d];
    }
    sn->q_scale[i] = v->scale;
    sn->q_resid[i] = v->resid;
    sn->q_norm[i] = v->qnorm;
    double *m = sn->blk_max + 3 * b;
    vectors_max(&m[0], fabs(v->scale));
    vectors_max(&m[1], v->resid);
    vectors_max(&m[2], v->qnorm);
    if (!staged) /* a larger maximum later leaves it above the ratio: still a bound */
        slope_put(sn, i);
}

void vectors_done(snapshot *sn)
{
    vectors_unstage(sn);
    free(sn->stage);
    sn->stage = NULL;
}

int8_t vectors_code_at(const snapshot *sn, size_t i, int d)
{
    size_t stride;
    return vectors_column(sn, i / VEC_BLOCK, d, &stride)[i % VEC_BLOCK];
}

void vectors_copy_blocks(snapshot *sn, const snapshot *old, size_t first, size_t whole)
{
    for (size_t b = first; b < whole; b += VEC_SEG) { /* segment by segment */
        size_t blocks = whole - b < VEC_SEG ? whole - b : VEC_SEG, from, to;
        int8_t *dst = vectors_column(sn, b, 0, &to);
        const int8_t *src = vectors_column(old, b, 0, &from);
        if (from == to && to == blocks * VEC_BLOCK) { /* the segment whole, the same in both */
            memcpy(dst, src, to * (size_t)sn->dim);
            continue;
        }
        for (int d = 0; d < sn->dim; d++)
            memcpy(dst + (size_t)d * to, src + (size_t)d * from, blocks * VEC_BLOCK);
    }
}

/* The scan of one block, portable: four dimensions per pass over dots;
 * blk is its first dimension's codes, stride the bytes to the next's. */
static void block_dots_plain(const int8_t *blk, size_t stride, const vec_query *q, int32_t *dots)
{
    for (size_t k = 0; k < VEC_BLOCK; k++)
        dots[k] = 0;
    int j = 0;
    for (; j + 4 <= q->nz; j += 4) {
        const uint16_t *d = q->nz_dim + j;
        const int8_t *c0 = blk + d[0] * stride, *c1 = blk + d[1] * stride;
        const int8_t *c2 = blk + d[2] * stride, *c3 = blk + d[3] * stride;
        int32_t w0 = q->q[d[0]], w1 = q->q[d[1]], w2 = q->q[d[2]], w3 = q->q[d[3]];
        for (size_t k = 0; k < VEC_BLOCK; k++)
            dots[k] += (w0 * c0[k] + w1 * c1[k]) + (w2 * c2[k] + w3 * c3[k]);
    }
    for (; j < q->nz; j++) {
        const int8_t *c0 = blk + q->nz_dim[j] * stride;
        int32_t w0 = q->q[q->nz_dim[j]];
        for (size_t k = 0; k < VEC_BLOCK; k++)
            dots[k] += w0 * c0[k];
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define VEC_AVX2 1

/* The same sums with AVX2, four dimensions per pass over the block as in
 * the plain loop (four columns read in order, which the prefetcher
 * follows): the codes of two dimensions widened to int16 and interleaved,
 * multiplied by the two query codes and added in pairs (vpmaddwd). The
 * integers are the plain scan's: no sum leaves an int32 (query_code_max).
 * sums holds them in the lanes' order, memories 0-3 and 8-11 then 4-7 and
 * 12-15 of every 16, put in order at the end. The same four columns of the
 * next block (next, NULL for the last; nstride its segment's stride) are
 * asked of the memory as each pass begins: a block's column is 8 cache
 * lines, too short for the hardware's prefetcher to run ahead of the
 * loads. */
__attribute__((target("avx2"))) static void block_dots_avx2(const int8_t *blk, size_t stride,
                                                            const int8_t *next, size_t nstride,
                                                            const vec_query *q, int32_t *dots)
{
    __m256i sums[VEC_BLOCK / 8];
    for (size_t k = 0; k < VEC_BLOCK / 8; k++)
        sums[k] = _mm256_setzero_si256();
    for (int j = 0; j < q->nz; j += 4) {
        int d[4];
        uint32_t w[4];
        for (int t = 0; t < 4; t++) { /* past the last: dimension 0 with weight 0 */
            d[t] = j + t < q->nz ? q->nz_dim[j + t] : q->nz_dim[j];
            w[t] = j + t < q->nz ? (uint16_t)q->q[d[t]] : 0;
        }
        for (int t = 0; next && t < 4 && j + t < q->nz; t++)
            for (size_t k = 0; k < VEC_BLOCK; k += 64)
                _mm_prefetch((const char *)next + (size_t)d[t] * nstride + k, _MM_HINT_T0);
        __m256i w01 = _mm256_set1_epi32((int32_t)(w[0] | w[1] << 16));
        __m256i w23 = _mm256_set1_epi32((int32_t)(w[2] | w[3] << 16));
        const int8_t *c0 = blk + (size_t)d[0] * stride, *c1 = blk + (size_t)d[1] * stride;
        const int8_t *c2 = blk + (size_t)d[2] * stride, *c3 = blk + (size_t)d[3] * stride;
        for (size_t k = 0; k < VEC_BLOCK; k += 16) {
            __m256i a0 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(c0 + k)));
            __m256i a1 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(c1 + k)));
            __m256i a2 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(c2 + k)));
            __m256i a3 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(c3 + k)));
            __m256i lo = _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpacklo_epi16(a0, a1), w01),
                                          _mm256_madd_epi16(_mm256_unpacklo_epi16(a2, a3), w23));
            __m256i hi = _mm256_add_epi32(_mm256_madd_epi16(_mm256_unpackhi_epi16(a0, a1), w01),
                                          _mm256_madd_epi16(_mm256_unpackhi_epi16(a2, a3), w23));
            sums[k / 8] = _mm256_add_epi32(sums[k / 8], lo);
            sums[k / 8 + 1] = _mm256_add_epi32(sums[k / 8 + 1], hi);
        }
    }
    for (size_t k = 0; k < VEC_BLOCK; k += 16) {
        __m256i lo = sums[k / 8], hi = sums[k / 8 + 1];
        _mm256_storeu_si256((__m256i *)(dots + k), _mm256_permute2x128_si256(lo, hi, 0x20));
        _mm256_storeu_si256((__m256i *)(dots + k + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
    }
}
#endif

static int scan_plain; /* vectors_scan_plain */

void vectors_scan_plain(int on)
{
    scan_plain = on;
}

/* 1 when the AVX2 scan is used: the CPU has it and vectors_scan_plain did
 * not turn it off. */
static int use_avx2(void)
{
#ifdef VEC_AVX2
    return !scan_plain && __builtin_cpu_supports("avx2");
#else
    return 0;
#endif
}

size_t vectors_block_dots(const snapshot *sn, const vec_query *q, size_t b, int32_t *dots)
{
    size_t stride;
    const int8_t *blk = vectors_column(sn, b, 0, &stride);
#ifdef VEC_AVX2
    if (use_avx2()) {
        size_t nstride = 0;
        const int8_t *next =
            b + 1 < vectors_blocks(sn->n) ? vectors_column(sn, b + 1, 0, &nstride) : NULL;
        block_dots_avx2(blk, stride, next, nstride, q, dots);
    } else
#endif
        block_dots_plain(blk, stride, q, dots);
    size_t first = b * VEC_BLOCK;
    return sn->n - first < VEC_BLOCK ? sn->n - first : VEC_BLOCK;
}

int vectors_may_reach(const snapshot *sn, size_t i, int32_t dot, int32_t least)
{
    int64_t a = dot < 0 ? -(int64_t)dot : dot;
    return a * sn->q_slope[i] >= 255 * (int64_t)least;
}

/* vectors_block_candidates, portable, from place from of block b on:
 * without a branch on the test, which goes either way from one memory to
 * the next. */
static size_t candidates_plain(const snapshot *sn, size_t b, const int32_t *dots, size_t from,
                               size_t m, int32_t least, uint16_t *cand, size_t nc)
{
    for (size_t k = from; k < m; k++) {
        cand[nc] = (uint16_t)k;
        nc += vectors_may_reach(sn, b * VEC_BLOCK + k, dots[k], least);
    }
    return nc;
}

#ifdef VEC_AVX2
/* The same test eight memories at a time: |dot| (below 2^31) times the
 * slope (below 2^8) in 64 bits, the even lanes and then the odd ones
 * (vpmuludq takes the low 32 bits of each 64), against the limit; each result
 * fills its 64 bits, so the odd 32-bit lanes of the odd ones and the even
 * of the even make a mask of eight, whose set bits are the candidates in
 * order. */
__attribute__((target("avx2"))) static size_t candidates_avx2(const snapshot *sn, size_t b,
                                                              const int32_t *dots, size_t m,
                                                              int32_t least, uint16_t *cand)
{
    size_t nc = 0, k = 0;
    const uint8_t *slope = sn->q_slope + b * VEC_BLOCK;
    /* a product > 255 least - 1 reaches 255 least, vectors_may_reach's limit */
    __m256i below = _mm256_set1_epi64x(255 * (int64_t)least - 1);
    for (; k + 8 <= m; k += 8) {
        __m256i a = _mm256_abs_epi32(_mm256_loadu_si256((const __m256i *)(dots + k)));
        __m256i s = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(slope + k)));
        __m256i even = _mm256_cmpgt_epi64(_mm256_mul_epu32(a, s), below);
        __m256i odd = _mm256_cmpgt_epi64(
            _mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(s, 32)), below);
        unsigned bits =
            (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_blend_epi32(even, odd, 0xAA)));
        while (bits) {
            cand[nc++] = (uint16_t)(k + (size_t)__builtin_ctz(bits));
            bits &= bits - 1;
        }
    }
    return candidates_plain(sn, b, dots, k, m, least, cand, nc);
}
#endif

size_t vectors_block_candidates(const snapshot *sn, size_t b, const int32_t *dots, size_t m,
                                int32_t least, uint16_t *cand)
{
#ifdef VEC_AVX2
    if (use_avx2())
        return candidates_avx2(sn, b, dots, m, least, cand);
#endif
    return candidates_plain(sn, b, dots, 0, m, least, cand, 0);
}

double vectors_block_cap(const snapshot *sn, const vec_query *q, size_t b, double *slope)
{
    const double *m = sn->blk_max + 3 * b; /* largest |scale|, resid, qnorm */
    *slope = fabs(q->scale) * m[0];
    return q->norm * m[1] + q->resid * m[2] + q->gamma * q->norm * (m[2] + m[1]) + 1e-12;
}

double vectors_estimate(const snapshot *sn, const vec_query *q, size_t i, int32_t dot,
                        double *bound)
{
    double a = q->scale * sn->q_scale[i] * (double)dot;
    /* |q.v - q'.v'| <= |q|.|v - v'| + |q - q'|.|v'|, plus the rounding of
     * the exact float computation, |q|.|v| gamma, with |v| <= |v'| + resid */
    double vn = sn->q_norm[i] + sn->q_resid[i];
    *bound = q->norm * sn->q_resid[i] + q->resid * sn->q_norm[i] + q->gamma * q->norm * vn + 1e-12;
    return a;
}
