/* scan-test.c - the snapshot's indexed scans give what the plain ones gave:
 *
 *  - semantic: the dimension-major int8 layout, scanned over the query's
 *    non-zero dimensions only (vectors_block_dots), gives the integer dot
 *    product vectors_idot gives on each memory's int8 form as the store
 *    keeps it, for every memory of random stores (sizes around the block
 *    size, memories without a vector, dense, sparse and zero vectors), and
 *    a block's cap bounds every estimate and bound of the block; with
 *    more than one segment, every code is where the layout puts it, and a
 *    layout grown from a smaller one's whole blocks is the one built whole;
 *  - temporal: the date list found through the memories sorted by day
 *    equals a linear pass over every memory (the channel's rule, written
 *    out here), for random dates with and without a year, random bm25
 *    lists and top-N, on stores whose days span a few years (counting
 *    sort) or centuries (qsort, more than 64 years), with memories whose
 *    words say when ("yesterday", "last Friday": told distances), and a
 *    store dense enough that the list's first keep are all near a date
 *    (date_list's cut);
 *  - ranked lists: ranked_finish's sort gives the order qsort gives with
 *    the same comparison (raw descending, then rid), first keep, on random
 *    lists with many ties and repeated memories.
 *
 * Builds its stores with store_put and store_put_vector in one temporary
 * directory that it removes at the end. Links only libcore. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_int.h"
#include "store/base/civil.h"
#include "store/store.h"
#include "tests/tap.h"

static char tmpdir[] = "/tmp/memscope-scan-test-XXXXXX";
#include "tests/testdir.h"

static unsigned long long rng_state = 88172645463325252ull;

static unsigned rnd(unsigned n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % n);
}

/* A random vector of dim floats with about density permille non-zero (0:
 * the zero vector), in [-1, 1]. */
static void random_vector(float *v, int dim, unsigned density)
{
    for (int d = 0; d < dim; d++)
        v[d] = rnd(1000) < density ? (float)((int)rnd(20001) - 10000) / 10000.0f : 0.0f;
}

/* A store at tmpdir/name with n memories under embedder name emb, memory
 * i with the vector fill(v, dim, i) writes, when it returns 1. NULL (with
 * a diagnostic) on failure. */
static store *vector_store(const char *name, const char *emb, size_t n, int dim,
                           int (*fill)(float *v, int dim, size_t i))
{
    store *s = NULL;
    ms_error err;
    ms_error_clear(&err);
    float *v = malloc((size_t)dim * sizeof *v);
    ms_status st = v ? store_open(tpath(name), 0, &s, &err) : MS_NOMEM;
    if (!st)
        st = store_begin(s, &err);
    if (!st)
        st = store_set_embedder(s, emb, dim, &err);
    for (size_t i = 0; !st && i < n; i++) {
        store_memory m;
        store_memory_init(&m);
        char text[64];
        snprintf(text, sizeof text, "memory %zu", i);
        m.content = strdup(text);
        st = store_put(s, &m, STORE_DUP_ERROR, NULL, &err);
        if (!st && fill(v, dim, i))
            st = store_put_vector(s, m.rid, v, dim, &err);
        store_memory_clear(&m);
    }
    if (!st)
        st = store_end(s, &err);
    free(v);
    if (st) {
        diag("building %s: %s", name, err.msg);
        store_close(s);
        return NULL;
    }
    return s;
}

/* About 9 in 10 memories get a random vector of one of four densities. */
static int fill_random(float *v, int dim, size_t i)
{
    (void)i;
    static const unsigned densities[] = {0, 20, 100, 1000};
    if (rnd(10) == 0)
        return 0;
    random_vector(v, dim, densities[rnd(4)]);
    return 1;
}

/* A store at tmpdir/name with n memories, about 9 in 10 with a vector of
 * dim dimensions. NULL (with a diagnostic) on failure. */
static store *random_store(const char *name, size_t n, int dim)
{
    return vector_store(name, "test:random", n, dim, fill_random);
}

/* The int8 forms as the store keeps them, by snapshot index: codes[i * dim]. */
struct rows {
    const snapshot *sn;
    int8_t *codes;
    uint8_t *seen;
};

static int keep_row(void *p, const store_qvec *v, int dim)
{
    struct rows *r = p;
    long i = snapshot_find(r->sn, v->rid);
    if (i >= 0 && dim == r->sn->dim) {
        memcpy(r->codes + (size_t)i * (size_t)dim, v->q, (size_t)dim);
        r->seen[i] = 1;
    }
    return 0;
}

/* Every memory's dot product with random queries: block scan == row scan. */
static void check_dots(store *s, const snapshot *sn, const char *name)
{
    int dim = sn->dim;
    struct rows r = {sn, calloc(sn->n * (size_t)dim + 1, 1), calloc(sn->n + 1, 1)};
    ms_error err;
    ms_error_clear(&err);
    if (!r.codes || !r.seen || store_scan_qvectors(s, keep_row, &r, &err)) {
        ok(0, "%s: the store's int8 forms read (%s)", name, err.msg);
        free(r.codes);
        free(r.seen);
        return;
    }
    size_t codes_differ = 0, dots_differ = 0, caps_fail = 0, slopes_fail = 0, compared = 0;
    size_t bounds_fail = 0, bounded = 0, cand_differ = 0, cand_lists = 0;
    for (size_t i = 0; i < sn->n; i++)
        for (int d = 0; d < dim; d++)
            codes_differ += vectors_code_at(sn, i, d) != (r.seen[i] ? r.codes[i * dim + d] : 0);
    float *qvec = malloc((size_t)dim * sizeof *qvec);
    int16_t *qcodes = malloc((size_t)dim * sizeof *qcodes);
    uint16_t *nz = malloc((size_t)dim * sizeof *nz);
    int32_t dots[VEC_BLOCK];
    static const unsigned densities[] = {0, 10, 60, 300, 1000};
    for (int t = 0; qvec && qcodes && nz && t < 10; t++) {
        random_vector(qvec, dim, densities[t % 5]);
        vec_query q;
        vectors_query(qvec, dim, qcodes, nz, &q);
        vectors_scan_plain(t % 2); /* the AVX2 scan (where the CPU has it) and the plain one */
        for (size_t b = 0; b * VEC_BLOCK < sn->n; b++) {
            double slope, cap = vectors_block_cap(sn, &q, b, &slope);
            size_t m = vectors_block_dots(sn, &q, b, dots);
            for (int l = 0; l < 4; l++) { /* 0, 1, a dot of the block, a large one */
                int32_t d = dots[rnd((unsigned)m)];
                int32_t least = l == 0 ? 0 : l == 1 ? 1 : l == 2 ? (d < 0 ? -d : d) : INT32_MAX / 3;
                uint16_t cand[VEC_BLOCK];
                size_t nc = vectors_block_candidates(sn, b, dots, m, least, cand), j = 0;
                for (size_t k = 0; k < m; k++)
                    if (vectors_may_reach(sn, b * VEC_BLOCK + k, dots[k], least))
                        cand_differ += j >= nc || cand[j++] != k;
                cand_differ += j != nc;
                cand_lists++;
            }
            for (size_t k = 0; k < m; k++) {
                size_t i = b * VEC_BLOCK + k;
                int32_t want = 0;
                for (int d = 0; r.seen[i] && d < dim; d++)
                    want += qcodes[d] * r.codes[i * dim + d];
                dots_differ += dots[k] != want;
                compared++;
                if (!sn->has_vec[i])
                    continue;
                double bound, est = vectors_estimate(sn, &q, i, dots[k], &bound);
                caps_fail += est + bound > slope * fabs((double)dots[k]) + cap + 1e-12;
                slopes_fail += est + bound >
                               slope * sn->q_slope[i] / 255.0 * fabs((double)dots[k]) + cap + 1e-12;
                if (t < 5 || i % 7 == 0) { /* the exact cosine, read from the store */
                    bounds_fail += fabs(semantic_cosine(sn, qvec, i) - est) > bound;
                    bounded++;
                }
            }
        }
    }
    vectors_scan_plain(0);
    ok(codes_differ == 0,
       "%s: every code in the dimension-major layout is the store's (%zu differ)", name,
       codes_differ);
    ok(compared == 10 * sn->n && dots_differ == 0,
       "%s: %zu dot products over non-zero dimensions equal the full int8 scan (%zu differ)", name,
       compared, dots_differ);
    ok(cand_lists > 0 && cand_differ == 0,
       "%s: %zu candidate lists of both scans are the memories that may reach (%zu differ)", name,
       cand_lists, cand_differ);
    ok(caps_fail == 0, "%s: each block's cap bounds its estimates (%zu exceed it)", name,
       caps_fail);
    ok(slopes_fail == 0,
       "%s: each memory's slope in 255ths of its block's bounds its estimate (%zu exceed it)", name,
       slopes_fail);
    ok(bounded > 0 && bounds_fail == 0,
       "%s: %zu exact cosines lie within the bound of their estimate (%zu outside)", name, bounded,
       bounds_fail);
    free(qvec);
    free(qcodes);
    free(nz);
    free(r.codes);
    free(r.seen);
}

/* vectors_put in any order, before and after vectors_done: every code lands
 * where vectors_code_at finds it. */
static void test_put_order(void)
{
    snapshot sn = {0};
    sn.n = 3 * VEC_BLOCK + 7;
    sn.dim = 37;
    if (vectors_alloc(&sn, sn.n, sn.dim)) {
        ok(0, "vectors_alloc");
        return;
    }
    int8_t *want = calloc(sn.n * (size_t)sn.dim, 1);
    static const size_t order[] = {
        VEC_BLOCK + 5,    3, VEC_BLOCK + 4, 2 * VEC_BLOCK, 4, 0, 3 * VEC_BLOCK + 6, VEC_BLOCK + 5,
        2 * VEC_BLOCK + 1};
    for (size_t k = 0; want && k < 2 * (sizeof order / sizeof *order); k++) {
        size_t i = order[k % (sizeof order / sizeof *order)];
        if (k == sizeof order / sizeof *order)
            vectors_done(&sn); /* the second round after it */
        int8_t q[37];
        for (int d = 0; d < sn.dim; d++)
            q[d] = (int8_t)((int)rnd(255) - 127);
        memcpy(want + i * (size_t)sn.dim, q, (size_t)sn.dim);
        double scale = (double)((int)rnd(2001) - 1000) / 997.0; /* some 0, some negative */
        store_qvec v = {.q = q, .scale = scale, .qnorm = 1.0};
        vectors_put(&sn, i, &v);
    }
    vectors_done(&sn);
    size_t below = 0;
    for (size_t k = 0; k < sizeof order / sizeof *order; k++) {
        size_t i = order[k];
        below += sn.q_slope[i] / 255.0 * sn.blk_max[3 * (i / VEC_BLOCK)] < fabs(sn.q_scale[i]);
    }
    ok(below == 0, "out of order too, each memory's slope in 255ths bounds its scale (%zu below)",
       below);
    size_t differ = 0;
    for (size_t i = 0; want && i < sn.n; i++)
        for (int d = 0; d < sn.dim; d++)
            differ += vectors_code_at(&sn, i, d) != want[i * (size_t)sn.dim + (size_t)d];
    ok(want && differ == 0, "vectors_put out of order and after vectors_done: %zu codes misplaced",
       differ);
    free(want);
    free(sn.qv);
    free(sn.q_scale);
    free(sn.q_resid);
    free(sn.q_norm);
    free(sn.blk_max);
    free(sn.q_slope);
    free(sn.qx_at);
    free(sn.qx_n);
}

/* The largest sums: every code 127 or -127 and a query of equal values at
 * 512 dimensions (codes of 32767) and at STORE_DIM_MAX (smaller codes):
 * both scans give the exact integers, no int32 overflow. */
static void test_extreme_dots(void)
{
    static const int dims[] = {512, STORE_DIM_MAX};
    for (size_t t = 0; t < sizeof dims / sizeof *dims; t++) {
        snapshot sn = {0};
        sn.n = 70; /* a partial strip of 64 */
        sn.dim = dims[t];
        float *qvec = malloc((size_t)sn.dim * sizeof *qvec);
        int16_t *qcodes = malloc((size_t)sn.dim * sizeof *qcodes);
        uint16_t *nz = malloc((size_t)sn.dim * sizeof *nz);
        int8_t *row = malloc((size_t)sn.dim);
        if (!qvec || !qcodes || !nz || !row || vectors_alloc(&sn, sn.n, sn.dim)) {
            ok(0, "extreme dots: memory");
            return;
        }
        for (size_t i = 0; i < sn.n; i++) {
            memset(row, i % 2 ? -127 : 127, (size_t)sn.dim);
            store_qvec v = {.q = row, .scale = 1.0, .qnorm = 1.0};
            vectors_put(&sn, i, &v);
        }
        vectors_done(&sn);
        for (int d = 0; d < sn.dim; d++)
            qvec[d] = 1.0f;
        vec_query q;
        vectors_query(qvec, sn.dim, qcodes, nz, &q);
        int64_t top = (int64_t)sn.dim * qcodes[0] * 127;
        size_t wrong = 0;
        int32_t dots[VEC_BLOCK];
        for (int plain = 0; plain < 2; plain++) {
            vectors_scan_plain(plain);
            vectors_block_dots(&sn, &q, 0, dots);
            for (size_t i = 0; i < sn.n; i++)
                wrong += dots[i] != (i % 2 ? -top : top);
        }
        vectors_scan_plain(0);
        ok(wrong == 0 && top > INT32_MAX / 2,
           "dim %d: the largest dot products (%lld) are exact in both scans (%zu wrong)", sn.dim,
           (long long)top, wrong);
        free(qvec);
        free(qcodes);
        free(nz);
        free(row);
        free(sn.qv);
        free(sn.q_scale);
        free(sn.q_resid);
        free(sn.q_norm);
        free(sn.blk_max);
        free(sn.q_slope);
        free(sn.qx_at);
        free(sn.qx_n);
    }
}

/* ---- the segments ------------------------------------------------------------- */

/* Code d of memory i in the synthetic snapshots below: 0 for about one
 * memory in 9 (as without a vector), else spread over -127 .. 127. */
static int8_t seg_code(size_t i, int d)
{
    uint64_t h = ((uint64_t)i * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)d * 0xc2b2ae3d27d4eb4full);
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return i % 9 == 4 ? 0 : (int8_t)((int)(h % 255) - 127);
}

static void seg_put(snapshot *sn, size_t from, size_t to)
{
    int8_t q[8];
    for (size_t i = from; i < to; i++) {
        for (int d = 0; d < sn->dim; d++)
            q[d] = seg_code(i, d);
        store_qvec v = {.q = q, .scale = 1.0, .qnorm = 1.0};
        vectors_put(sn, i, &v);
    }
}

/* A snapshot of n memories of dim (<= 8) with seg_code's codes, the
 * memories from `from` on put (those before copied from old's whole
 * blocks when old). -1 when out of memory. */
static int seg_build(snapshot *sn, size_t n, int dim, const snapshot *old)
{
    memset(sn, 0, sizeof *sn);
    sn->n = n;
    sn->dim = dim;
    if (vectors_alloc(sn, n, dim))
        return -1;
    size_t whole = old ? old->n / VEC_BLOCK : 0;
    if (old)
        vectors_copy_blocks(sn, old, 0, whole);
    seg_put(sn, whole * VEC_BLOCK, n);
    vectors_done(sn);
    return 0;
}

static void seg_free(snapshot *sn)
{
    free(sn->qv);
    free(sn->q_scale);
    free(sn->q_resid);
    free(sn->q_norm);
    free(sn->blk_max);
    free(sn->q_slope);
    free(sn->qx_at);
    free(sn->qx_n);
}

/* Codes out of the layout engine_int.h describes: segment g's codes of
 * dimension d one run of its blocks * VEC_BLOCK bytes. */
static size_t seg_misplaced(const snapshot *sn)
{
    size_t blocks = (sn->n + VEC_BLOCK - 1) / VEC_BLOCK, seg = (size_t)VEC_SEG * VEC_BLOCK;
    size_t bad = 0;
    for (size_t i = 0; i < sn->n; i++) {
        size_t g = i / seg, in = blocks - g * VEC_SEG < VEC_SEG ? blocks - g * VEC_SEG : VEC_SEG;
        for (int d = 0; d < sn->dim; d++) {
            size_t at = g * seg * (size_t)sn->dim + (size_t)d * in * VEC_BLOCK + i % seg;
            bad += sn->qv[at] != seg_code(i, d) || vectors_code_at(sn, i, d) != seg_code(i, d);
        }
    }
    return bad;
}

/* Both scans' dot products against seg_code's, for a few random queries. */
static size_t seg_dots_wrong(const snapshot *sn)
{
    size_t wrong = 0;
    int32_t dots[VEC_BLOCK];
    for (int t = 0; t < 4; t++) {
        float qvec[8];
        int16_t qcodes[8];
        uint16_t nz[8];
        random_vector(qvec, sn->dim, t ? 600 : 1000);
        vec_query q;
        vectors_query(qvec, sn->dim, qcodes, nz, &q);
        vectors_scan_plain(t % 2);
        for (size_t b = 0; b * VEC_BLOCK < sn->n; b++) {
            size_t m = vectors_block_dots(sn, &q, b, dots);
            for (size_t k = 0; k < m; k++) {
                int32_t want = 0;
                for (int d = 0; d < sn->dim; d++)
                    want += qcodes[d] * seg_code(b * VEC_BLOCK + k, d);
                wrong += dots[k] != want;
            }
        }
    }
    vectors_scan_plain(0);
    return wrong;
}

/* Snapshots of more than one segment: every code where the layout puts
 * it, both scans' dot products exact, and one grown from a smaller one's
 * whole blocks (as snapgrow.c grows a file) byte for byte one built whole,
 * across a segment's end and with the last segment growing. */
static void test_segments(void)
{
    const size_t seg = (size_t)VEC_SEG * VEC_BLOCK;
    static const struct {
        size_t from, to;
        int dim;
    } cases[] = {
        {1000, 1001, 5},
        {(size_t)VEC_SEG * VEC_BLOCK - 300, (size_t)VEC_SEG * VEC_BLOCK + 2 * VEC_BLOCK + 9, 5},
        {(size_t)VEC_SEG * VEC_BLOCK + 3 * VEC_BLOCK, 2 * (size_t)VEC_SEG * VEC_BLOCK + 1, 3},
        {2 * (size_t)VEC_SEG * VEC_BLOCK, 2 * (size_t)VEC_SEG * VEC_BLOCK + 700, 8}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        snapshot old, full, grown;
        size_t n = cases[c].to;
        int dim = cases[c].dim;
        if (seg_build(&old, cases[c].from, dim, NULL) || seg_build(&full, n, dim, NULL) ||
            seg_build(&grown, n, dim, &old)) {
            ok(0, "segments: memory");
            return;
        }
        size_t bytes = (n + VEC_BLOCK - 1) / VEC_BLOCK * VEC_BLOCK * (size_t)dim;
        size_t bad = seg_misplaced(&full) + seg_misplaced(&old);
        ok(bad == 0,
           "%zu memories (%zu segments), dim %d: every code where the layout puts it "
           "(%zu misplaced)",
           n, (n + seg - 1) / seg, dim, bad);
        size_t wrong = seg_dots_wrong(&full);
        ok(wrong == 0, "%zu memories: both scans' dot products exact (%zu wrong)", n, wrong);
        ok(memcmp(grown.qv, full.qv, bytes) == 0,
           "grown from %zu memories to %zu: the same codes, byte for byte, as built whole",
           cases[c].from, n);
        seg_free(&old);
        seg_free(&full);
        seg_free(&grown);
    }
}

/* idx_sum, the per-recall sums of fusion and spreading: random additions
 * (zeros among them) over a wide index range give the dense array's sums,
 * hold exactly the indices added to, and say which were new. */
static void test_idx_sum(void)
{
    enum { SPAN = 200000, ADDS = 50000 };
    double *dense = calloc(SPAN, sizeof *dense);
    uint8_t *held = calloc(SPAN, 1);
    idx_sum m = {0};
    size_t wrong = 0, n_held = 0;
    for (int t = 0; dense && held && t < ADDS; t++) {
        uint32_t i = rnd(8) ? rnd(3000) : rnd(SPAN); /* most in a few thousand, some anywhere */
        double amount = rnd(10) ? (double)rnd(1000) / 7.0 : 0.0;
        int added;
        double *a = idx_sum_at(&m, i, &added);
        if (!a) {
            wrong++;
            break;
        }
        wrong += added != !held[i];
        n_held += !held[i];
        held[i] = 1;
        *a += amount;
        dense[i] += amount;
    }
    for (uint32_t i = 0; dense && held && i < SPAN; i++) {
        const double *a = idx_sum_find(&m, i);
        wrong += held[i] ? !a || *a != dense[i] : a != NULL;
    }
    ok(dense && held && wrong == 0 && m.n == n_held,
       "idx_sum: %d additions over %zu memories give the dense sums (%zu wrong)", ADDS, n_held,
       wrong);
    idx_sum_free(&m);
    ok(m.n == 0 && idx_sum_find(&m, 5) == NULL, "idx_sum: empty after idx_sum_free");
    free(dense);
    free(held);
}

static void test_semantic_scan(void)
{
    static const struct {
        size_t n;
        int dim;
    } cases[] = {{1, 8}, {VEC_BLOCK - 1, 33}, {VEC_BLOCK, 64}, {VEC_BLOCK + 1, 5}, {1300, 512}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char name[64];
        snprintf(name, sizeof name, "n=%zu dim=%d", cases[c].n, cases[c].dim);
        char file[64];
        snprintf(file, sizeof file, "semantic-%zu.db", c);
        store *s = random_store(file, cases[c].n, cases[c].dim);
        ms_error err;
        ms_error_clear(&err);
        snapshot *sn = NULL;
        if (!s || store_read_begin(s, &err) || snapshot_load(s, &sn, &err)) {
            ok(0, "%s: store and snapshot (%s)", name, err.msg);
            store_close(s);
            continue;
        }
        is_int(sn->n, cases[c].n, "%s: the snapshot holds every memory", name);
        check_dots(s, sn, name);
        snapshot_free(sn);
        store_end(s, NULL);
        store_close(s);
    }
}

/* ---- exact vectors from the codes -------------------------------------------- */

/* A vector as the built-in embedder makes them, of kind k: 0 a few
 * distinct floats (small integers over a norm), 1 the same with one float
 * that is -0.0, 2 with one float too small for a code of its own, 3 two
 * floats that round to one code, 4 random floats in [-1, 1]. */
static void kind_vector(float *v, int dim, int k)
{
    memset(v, 0, (size_t)dim * sizeof *v);
    double n2 = 0;
    for (int d = 0; d < dim; d++)
        if (rnd(4) == 0) {
            v[d] = (float)((int)rnd(7) - 3);
            n2 += (double)v[d] * v[d];
        }
    float inv = n2 > 0 ? (float)(1.0 / sqrt(n2)) : 1.0f;
    for (int d = 0; d < dim; d++)
        v[d] *= inv;
    int at = (int)rnd((unsigned)dim);
    if (k == 1)
        v[at] = -0.0f;
    if (k == 2)
        v[at] = 1e-6f;
    if (k == 3) {
        v[at] = 0.5f;
        v[(at + 1) % dim] = nextafterf(0.5f, 1.0f);
        v[(at + 2) % dim] = 0.5f * 254.0f / 127.0f; /* the largest: 0.5 is code 63.5 -> 64 */
    }
    if (k == 4)
        random_vector(v, dim, 1000);
}

static int fill_kind(float *v, int dim, size_t i)
{
    kind_vector(v, dim, (int)(i % 5));
    return 1;
}

/* A store of n memories of the kinds above (kind i % 5) at dim. */
static store *kinds_store(const char *name, size_t n, int dim)
{
    return vector_store(name, "test:kinds", n, dim, fill_kind);
}

/* Every dot product vectors_exact_dot gives with random queries (some of
 * their floats -0.0) equals vectors_dot over the store's floats, bit for
 * bit; so does semantic_cosine (what the floor and Hopfield ask) for every
 * memory, from the codes or, for the kinds whose codes cannot give the
 * floats back, from the store (snapshot_vector, the store's vector); the
 * kinds whose codes cannot give the floats back have no exact pairs (nor
 * random floats at 512 dimensions, more distinct floats than codes). */
static void test_exact_vectors(void)
{
    static const int dims[] = {37, 512};
    for (size_t t = 0; t < sizeof dims / sizeof *dims; t++) {
        int dim = dims[t];
        char file[64];
        snprintf(file, sizeof file, "exact-%d.db", dim);
        store *s = kinds_store(file, 600, dim);
        ms_error err;
        ms_error_clear(&err);
        snapshot *sn = NULL;
        float *v = malloc((size_t)dim * sizeof *v), *x = malloc((size_t)dim * sizeof *x);
        uint16_t *nz = malloc((size_t)dim * sizeof *nz);
        if (!s || !v || !x || !nz || store_read_begin(s, &err) || snapshot_load(s, &sn, &err)) {
            ok(0, "exact vectors at %d: store and snapshot (%s)", dim, err.msg);
            store_close(s);
            free(v);
            free(x);
            free(nz);
            continue;
        }
        size_t exact[5] = {0}, wrong = 0, dots = 0, dots_wrong = 0, cosines = 0;
        for (size_t i = 0; i < sn->n; i++) {
            exact[i % 5] += sn->qx_n[i] != 0;
            const float *e = snapshot_vector(sn, i);
            if (!e || store_get_vector(s, sn->rid[i], v, dim, &err)) {
                wrong++;
                continue;
            }
            wrong += memcmp(e, v, (size_t)dim * sizeof *v) != 0;
            for (int q = 0; q < 3; q++) {
                random_vector(x, dim, q == 0 ? 1000 : 150);
                x[rnd((unsigned)dim)] = -0.0f;
                int n = vectors_nonzero(x, dim, nz);
                float f, want = vectors_dot(x, v, dim);
                double cos = semantic_cosine(sn, x, i);
                cosines++;
                wrong += memcmp(&cos, &(double){want}, sizeof cos) != 0;
                if (vectors_exact_dot(sn, x, nz, n, i, &f))
                    continue;
                dots++;
                dots_wrong += memcmp(&f, &want, sizeof f) != 0;
            }
        }
        size_t per = sn->n / 5, all = exact[0] + exact[4];
        ok(exact[0] == per && exact[1] == 0 && exact[2] == 0 && exact[3] == 0 &&
               (dim < 2 * STORE_EXACT_MAX || exact[4] == 0),
           "dim %d: the codes give the floats back for the %zu few-float vectors (%zu) and for "
           "none with -0.0, a float of code 0 or two floats of one code (%zu %zu %zu); random "
           "floats %zu of %zu",
           dim, per, exact[0], exact[1], exact[2], exact[3], exact[4], per);
        ok(wrong == 0 && cosines == 3 * sn->n,
           "dim %d: every memory's vector is the store's and %zu cosines of sparse vectors with "
           "it are vectors_dot's, bit for bit (%zu differ)",
           dim, cosines, wrong);
        ok(dots == 3 * all && dots_wrong == 0,
           "dim %d: %zu dot products from the codes equal vectors_dot's, bit for bit (%zu differ)",
           dim, dots, dots_wrong);
        snapshot_free(sn);
        store_end(s, NULL);
        store_close(s);
        free(v);
        free(x);
        free(nz);
    }
}

/* ---- temporal --------------------------------------------------------------- */

#define WINDOW 45 /* ch_temporal.c TEMPORAL_WINDOW */
#define LIMIT 100 /* TEMPORAL_LIMIT */

/* n memories created on random days of years [y0, y1], some with an event
 * time instead. */
static store *dated_store(const char *name, size_t n, int y0, int y1)
{
    store *s = NULL;
    ms_error err;
    ms_error_clear(&err);
    ms_status st = store_open(tpath(name), 0, &s, &err);
    if (!st)
        st = store_begin(s, &err);
    for (size_t i = 0; !st && i < n; i++) {
        store_memory m;
        store_memory_init(&m);
        static const char *const told[] = {"yesterday",    "last Friday",        "two days ago",
                                           "on the 3rd",   "last week",          "the other day",
                                           "this morning", "last Saturday night"};
        char text[96], created[32], event[32];
        if (rnd(3) == 0)
            snprintf(text, sizeof text, "memory %zu %s", i, told[rnd(8)]);
        else
            snprintf(text, sizeof text, "memory %zu", i);
        snprintf(created, sizeof created, "%04d-%02u-%02uT%02u:00:00Z",
                 y0 + (int)rnd((unsigned)(y1 - y0 + 1)), 1 + rnd(12), 1 + rnd(28), rnd(24));
        snprintf(event, sizeof event, "%04d-%02u-%02uT10:00:00Z",
                 y0 + (int)rnd((unsigned)(y1 - y0 + 1)), 1 + rnd(12), 1 + rnd(28));
        m.content = strdup(text);
        m.created_at = strdup(created);
        m.event_time = rnd(5) == 0 ? strdup(event) : NULL;
        st = store_put(s, &m, STORE_DUP_ERROR, NULL, &err);
        store_memory_clear(&m);
    }
    if (!st)
        st = store_end(s, &err);
    if (st) {
        diag("building %s: %s", name, err.msg);
        store_close(s);
        return NULL;
    }
    return s;
}

static int64_t ref_day(int64_t ts)
{
    return ts >= 0 ? ts / 86400 : -((-ts + 86399) / 86400);
}

static int64_t ref_distance(int64_t o, int64_t s, int64_t e)
{
    return o > e ? o - e : o < s ? 2 * (s - o) : 0;
}

/* The distance of day o from the query's dates (a date without a year
 * tried in each of years[ny]). */
static int64_t ref_day_distance(const query *q, const int *years, int ny, int64_t o)
{
    int64_t best = INT64_MAX;
    for (int k = 0; k < q->n_dates; k++) {
        const date_range *dr = &q->dates[k];
        int64_t s = ref_day(dr->start), e = ref_day(dr->end) - 1;
        int y0, y1;
        unsigned m0, d0, m1, d1;
        civil_from_days(s, &y0, &m0, &d0);
        civil_from_days(e, &y1, &m1, &d1);
        for (int t = 0; t < (dr->no_year && ny ? ny : 1); t++) {
            int shift = dr->no_year && ny ? years[t] - y0 : 0;
            int64_t v =
                ref_distance(o, civil_days(y0 + shift, m0, d0), civil_days(y1 + shift, m1, d1));
            best = v < best ? v : best;
        }
    }
    return best;
}

/* The distance of the nearest day or week memory i's words name (read
 * against its own time) from the query's dates; INT64_MAX when none. */
static int64_t ref_told(store *s, const snapshot *sn, const query *q, const int *years, int ny,
                        uint32_t i)
{
    store_memory m;
    ms_error err;
    int64_t best = INT64_MAX;
    if (store_get_rids(s, &sn->rid[i], 1, &m, &err))
        return best;
    date_range r[8];
    int n = dates_parse(m.content, sn->when[i], r, 8);
    for (int k = 0; k < n; k++)
        for (int64_t o = ref_day(r[k].start);
             (r[k].grain == GRAIN_DAY || r[k].grain == GRAIN_WEEK) && o < ref_day(r[k].end - 1) + 1;
             o++) {
            int64_t v = ref_day_distance(q, years, ny, o);
            best = v < best ? v : best;
        }
    store_memory_clear(&m);
    return best;
}

/* The rule of the date list, over every memory: distance to the nearest
 * date (a date without a year tried in each year of the store, the first 64
 * distinct years in index order), or, for a memory of the bm25 list told
 * 1 to 31 days after it whose words say when (mark), the distance of the
 * day they name when nearer; within WINDOW, raw = -distance - bm25 rank /
 * 1000 (999 when absent). *told counts the memories listed at a told
 * distance. */
static void ref_date_list(store *s, const snapshot *sn, const uint8_t *mark, const query *q,
                          const ranked_list *bm, size_t keep, ranked_list *out, size_t *told)
{
    int years[64], ny = 0;
    for (size_t i = 0; i < sn->n && ny < 64; i++) {
        int y, seen = 0;
        unsigned m, d;
        civil_from_days(ref_day(sn->when[i]), &y, &m, &d);
        for (int k = 0; k < ny; k++)
            seen |= years[k] == y;
        if (!seen)
            years[ny++] = y;
    }
    for (size_t i = 0; i < sn->n; i++) {
        int64_t best = ref_day_distance(q, years, ny, ref_day(sn->when[i]));
        int r = ranked_rank(bm, (uint32_t)i);
        if (best > 0 && best <= 31 && r && mark[i]) {
            int64_t v = ref_told(s, sn, q, years, ny, (uint32_t)i);
            best = v < best ? v : best;
        }
        if (best > WINDOW)
            continue;
        ranked_push(out, (uint32_t)i, -(double)best - (r ? r : 999) / 1000.0);
    }
    ranked_finish(out, sn, keep);
    for (size_t k = 0; k < out->n; k++)
        *told += out->v[k].raw >
                 -(double)ref_day_distance(q, years, ny, ref_day(sn->when[out->v[k].idx]));
}

/* A random date range of 1 to 90 days in years [y0, y1], some without a
 * year, some empty (end = start). */
static date_range random_date(int y0, int y1)
{
    int64_t s = civil_days(y0 + (int)rnd((unsigned)(y1 - y0 + 1)), 1 + rnd(12), 1 + rnd(28));
    int64_t len = rnd(8) == 0 ? 0 : 1 + rnd(90);
    date_range d = {0};
    d.start = s * 86400;
    d.end = (s + len) * 86400;
    d.no_year = rnd(2);
    return d;
}

static void check_dates(store *s, const snapshot *sn, int y0, int y1, int dense, const char *name)
{
    size_t differ = 0, listed = 0, told = 0;
    uint8_t *mark = NULL;
    ms_error merr;
    if (temporal_marks(s, sn, NULL, 0, &mark, &merr)) {
        ok(0, "%s: time marks (%s)", name, merr.msg);
        return;
    }
    for (int t = 0; t < 60; t++) {
        query q = {0};
        q.n_dates = 1 + (int)rnd(3);
        for (int k = 0; k < q.n_dates; k++)
            q.dates[k] = random_date(y0 - 1, y1 + 1);
        ranked_list lists[CH_COUNT] = {0};
        for (size_t r = 0, n = rnd(250); r < n && sn->n; r++)
            ranked_push(&lists[CH_BM25], rnd((unsigned)sn->n), 100.0 - (double)r);
        /* dense: the marked memories in the bm25 list too, many told ones;
         * half the lists within 999 ranks (a raw's rank part under 1) */
        for (size_t i = 0; dense && i < sn->n && lists[CH_BM25].n < (t % 2 ? 900u : 5000u); i++)
            if (mark[i])
                ranked_push(&lists[CH_BM25], (uint32_t)i, -(double)i);
        size_t top_n = 10 + rnd(200);
        channel_ctx c = {0};
        c.s = s;
        c.sn = sn;
        c.q = &q;
        c.top_n = top_n;
        c.lists = lists;
        ranked_list got = {0}, want = {0};
        const char *note = NULL;
        ms_error err;
        ms_error_clear(&err);
        ms_status st = ch_temporal_ops.produce(&c, &got, &note, &err);
        ref_date_list(s, sn, mark, &q, &lists[CH_BM25], top_n < LIMIT ? top_n : LIMIT, &want,
                      &told);
        int same = !st && got.n == want.n;
        for (size_t k = 0; same && k < got.n; k++)
            same = got.v[k].idx == want.v[k].idx && got.v[k].raw == want.v[k].raw;
        differ += !same;
        listed += want.n;
        ranked_free(&got);
        ranked_free(&want);
        ranked_free(&lists[CH_BM25]);
    }
    free(mark);
    ok(differ == 0 && listed > 0 && (!dense || told > 0),
       "%s: 60 date lists through the day index equal a pass over every memory (%zu differ, "
       "%zu memories listed, %zu at a told distance)",
       name, differ, listed, told);
}

static void test_temporal_index(void)
{
    static const struct {
        size_t n;
        int y0, y1;
        int dense;
    } cases[] = {{1, 2023, 2023, 0},
                 {700, 2023, 2024, 0},
                 {3000, 1990, 2024, 0},
                 {2000, 1800, 2100, 0},
                 {3000, 2023, 2023, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char name[64], file[64];
        snprintf(name, sizeof name, "n=%zu %d-%d", cases[c].n, cases[c].y0, cases[c].y1);
        snprintf(file, sizeof file, "dated-%zu.db", c);
        store *s = dated_store(file, cases[c].n, cases[c].y0, cases[c].y1);
        ms_error err;
        ms_error_clear(&err);
        snapshot *sn = NULL;
        if (!s || store_read_begin(s, &err) || snapshot_load(s, &sn, &err)) {
            ok(0, "%s: store and snapshot (%s)", name, err.msg);
            store_close(s);
            continue;
        }
        check_dates(s, sn, cases[c].y0, cases[c].y1, cases[c].dense, name);
        /* the same through the arrays the snapshot file keeps */
        int64_t *day = NULL;
        uint32_t *idx = NULL;
        if (temporal_by_day(sn, &day, &idx) == 0) {
            time_index_free(sn->lazy->by_day);
            sn->lazy->by_day = NULL;
            sn->day_file = day;
            sn->day_idx_file = idx;
            snprintf(name + strlen(name), sizeof name - strlen(name), ", the file's days");
            check_dates(s, sn, cases[c].y0, cases[c].y1, cases[c].dense, name);
        } else {
            ok(0, "%s: temporal_by_day", name);
        }
        snapshot_free(sn);
        free(day);
        free(idx);
        store_end(s, NULL);
        store_close(s);
    }
}

/* ---- ranked lists ------------------------------------------------------------ */

static const int64_t *ref_rid;

static int ref_by_score(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->raw != y->raw)
        return x->raw > y->raw ? -1 : 1;
    return (ref_rid[x->idx] > ref_rid[y->idx]) - (ref_rid[x->idx] < ref_rid[y->idx]);
}

static void test_ranked_sort(void)
{
    enum { N = 5000 };
    static int64_t rid[N];
    snapshot sn = {0};
    sn.n = N;
    sn.rid = rid;
    for (size_t i = 0, r = 1; i < N; i++, r += 1 + rnd(3))
        rid[i] = (int64_t)r;
    ref_rid = rid;
    int differ = 0, lists = 0;
    for (int t = 0; t < 400; t++, lists++) {
        ranked_list got = {0};
        size_t n = rnd(4) == 0 ? rnd(20) : rnd(3000), keep = 1 + rnd(t % 2 ? 100 : 4000);
        unsigned values = 1 + rnd(t % 3 ? 50 : 100000);
        for (size_t k = 0; k < n; k++)
            ranked_push(&got, rnd(t % 5 ? N : 40), (double)rnd(values) / 7.0);
        ranked *want = malloc((n + 1) * sizeof *want);
        if (n) /* got.v is NULL for an empty list: memcpy and qsort may not see it */
            memcpy(want, got.v, n * sizeof *want);
        if (n > 1)
            qsort(want, n, sizeof *want, ref_by_score);
        ranked_finish(&got, &sn, keep);
        int same = got.n == (n < keep ? n : keep);
        for (size_t k = 0; same && k < got.n; k++)
            same = got.v[k].idx == want[k].idx && got.v[k].raw == want[k].raw;
        differ += !same;
        free(want);
        ranked_free(&got);
    }
    ok(differ == 0, "ranked_finish sorts %d random lists as qsort does (%d differ)", lists, differ);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        printf("Bail out! cannot create a temporary directory: %s\n", strerror(errno));
        return 1;
    }
    test_put_order();
    test_extreme_dots();
    test_segments();
    test_idx_sum();
    test_semantic_scan();
    test_exact_vectors();
    test_temporal_index();
    test_ranked_sort();
    remove_tmpdir();
    return done_testing();
}
