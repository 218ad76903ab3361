/* bm25-test.c - the store's fast paths give the numbers of the slow ones,
 * bit for bit:
 *   - store_fts ranks with ms_bm25 (store/bm25.c, row lengths read once):
 *     every score equals FTS5's own bm25(memories_fts, 1.0, 0.5, 0.0) for
 *     the same row, and the order is the same, also after writes that
 *     change row lengths (the cache must follow them) and with two profiles;
 *   - store_quantize's norms bound the error of int8 dot products: for
 *     random vectors, |x.v - scale * x.q| <= |x| * resid, and qnorm is
 *     |scale * q|;
 *   - a vector written sparse or with a palette (store_vec_encode) reads
 *     back with the same bits, -0.0 and subnormals included, and is never
 *     longer than dense or sparse; malformed blobs are refused; through
 *     store_put_vector and store_get_vector, sparse and hand-written dense
 *     blobs read the same;
 *   - the int8 form computed from any blob (store_vec_codes) is
 *     store_quantize's of the floats, codes and norms bit for bit.
 * Links only the store. */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "store/store_int.h"
#include "tests/tap.h"

static char tmpdir[] = "/tmp/memscope-bm25-test-XXXXXX";
#include "tests/testdir.h"
#include "tests/put.h"

typedef struct hits {
    int64_t rid[64];
    double score[64];
    int n;
} hits;

static int on_hit(void *p, int64_t rid, double score)
{
    hits *h = p;
    if (h->n < 64) {
        h->rid[h->n] = rid;
        h->score[h->n++] = score;
    }
    return 0;
}

static const char *const words[] = {"garden",   "party", "lisbon", "train", "biscuit", "the",
                                    "marathon", "knee",  "sister", "cake",  "rain",    "tea"};

/* Some sentences: the same few words often, so that scores tie and rows
 * differ in length. */
static void fill(store *s, int n, int seed, const char *prefix)
{
    srand((unsigned)seed);
    for (int i = 0; i < n; i++) {
        char text[256] = "", id[32], session[16];
        int k = 1 + rand() % 9;
        for (int w = 0; w < k; w++) {
            strcat(text, words[rand() % 12]);
            strcat(text, " ");
        }
        snprintf(id, sizeof id, "%s%d", prefix, i);
        snprintf(session, sizeof session, "s%d", i / 7);
        put(s, id, text, session);
    }
}

/* store_fts against FTS5's bm25 on a second connection, same match. */
static void compare(store *s, const char *terms, const char *expr, const char *what)
{
    hits h = {.n = 0};
    ms_error err;
    ms_status rc = store_read_begin(s, &err);
    if (!rc)
        rc = store_fts(s, terms, 64, on_hit, &h, &err);
    store_end(s, NULL);
    ok(rc == MS_OK && h.n > 0, "%s: %d hits", what, h.n);
    sqlite3 *db;
    sqlite3_open_v2(tpath("s.db"), &db, SQLITE_OPEN_READONLY, NULL);
    sqlite3_stmt *st;
    sqlite3_prepare_v2(db,
                       "SELECT rowid, -bm25(memories_fts, 1.0, 0.5, 0.0) FROM memories_fts"
                       " WHERE memories_fts MATCH ?1 ORDER BY rank, rowid LIMIT 64",
                       -1, &st, NULL);
    sqlite3_bind_text(st, 1, expr, -1, SQLITE_STATIC);
    int i = 0, same = 1;
    while (sqlite3_step(st) == SQLITE_ROW && i < 64) {
        double want = sqlite3_column_double(st, 1);
        same &= i < h.n && h.rid[i] == sqlite3_column_int64(st, 0) &&
                memcmp(&h.score[i], &want, sizeof want) == 0;
        i++;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    ok(same && i == h.n, "%s: the same rows, order and scores (bit for bit) as bm25()", what);
}

static void test_bm25(void)
{
    store *s;
    ms_error err;
    if (store_open(tpath("s.db"), 0, &s, &err)) {
        ok(0, "open: %s", err.msg);
        return;
    }
    store_begin(s, &err);
    fill(s, 400, 1, "a");
    store_end(s, &err);
    compare(s, "\"garden\" OR \"party\"", "{content context} : ( \"garden\" OR \"party\" )",
            "two words");
    compare(s, "\"the\"", "{content context} : ( \"the\" )", "a word in most rows");
    /* rewrite rows: lengths change under the cache */
    store_begin(s, &err);
    fill(s, 150, 2, "a");
    store_end(s, &err);
    compare(s, "\"garden\" OR \"party\"", "{content context} : ( \"garden\" OR \"party\" )",
            "after replacements");
    store_delete(s, "a3", &err);
    compare(s, "\"lisbon\" OR \"cake\" OR \"tea\"",
            "{content context} : ( \"lisbon\" OR \"cake\" OR \"tea\" )", "after a delete");
    /* a second profile: the profile filter is a phrase of the query */
    store_use_profile(s, "other", &err);
    store_begin(s, &err);
    fill(s, 50, 3, "o");
    store_end(s, &err);
    store_use_profile(s, "default", &err);
    compare(s, "\"garden\" OR \"rain\"",
            "{content context} : ( \"garden\" OR \"rain\" ) AND ptag : \"p64656661756c74\"",
            "two profiles");
    store_close(s);
}

static void test_quantize(void)
{
    srand(7);
    int fails = 0;
    for (int t = 0; t < 2000; t++) {
        int dim = 1 + rand() % 700;
        float *v = malloc((size_t)dim * sizeof *v), *x = malloc((size_t)dim * sizeof *x);
        int8_t *q = malloc((size_t)dim);
        for (int j = 0; j < dim; j++) {
            v[j] = (float)((rand() / (double)RAND_MAX - 0.5) * (t % 3 ? 1.0 : 1e-3));
            x[j] = (float)(rand() / (double)RAND_MAX - 0.5);
        }
        if (t % 97 == 0)
            memset(v, 0, (size_t)dim * sizeof *v); /* no features at all */
        store_qvec qv;
        store_quantize(v, dim, q, &qv);
        double exact = 0, approx = 0, xn = 0, qn = 0;
        for (int j = 0; j < dim; j++) {
            exact += (double)x[j] * v[j];
            approx += (double)x[j] * q[j];
            xn += (double)x[j] * x[j];
            qn += (double)q[j] * q[j];
        }
        approx *= qv.scale;
        fails += fabs(exact - approx) > sqrt(xn) * qv.resid * (1 + 1e-12) + 1e-15;
        fails += fabs(qv.qnorm - qv.scale * sqrt(qn)) > 1e-12;
        free(v);
        free(x);
        free(q);
    }
    ok(fails == 0, "int8 forms: the error of a dot product stays within |x| * resid (%d fails)",
       fails);
}

/* A vector of dim floats, each one set with probability p, some of them
 * odd: -0.0 (bits not zero), subnormals, huge values. */
static void sparse_vector(float *v, int dim, double p)
{
    memset(v, 0, (size_t)dim * sizeof *v);
    for (int j = 0; j < dim; j++) {
        if (rand() / (double)RAND_MAX >= p)
            continue;
        switch (rand() % 8) {
        case 0:
            v[j] = -0.0f;
            break;
        case 1:
            v[j] = 1e-40f;
            break; /* subnormal */
        case 2:
            v[j] = -3e38f;
            break;
        default:
            v[j] = (float)(rand() / (double)RAND_MAX - 0.5);
        }
    }
}

static int same_bits(const float *a, const float *b, int dim)
{
    return memcmp(a, b, (size_t)dim * sizeof *a) == 0;
}

/* A vector of dim floats, each set with probability p to one of k values
 * (some odd: -0.0, a subnormal, a huge one), as the built-in embedder's
 * few distinct weights. */
static void palette_vector(float *v, int dim, double p, int k)
{
    float vals[80];
    for (int i = 0; i < k; i++)
        vals[i] = i == 0   ? -0.0f
                  : i == 1 ? 1e-40f
                  : i == 2 ? 3e38f
                           : (float)(rand() / (double)RAND_MAX - 0.5);
    memset(v, 0, (size_t)dim * sizeof *v);
    for (int j = 0; j < dim; j++)
        if (rand() / (double)RAND_MAX < p)
            v[j] = vals[rand() % k];
}

/* The bytes of the sparse (version 1) form of v[dim], as before palettes. */
static size_t sparse_size(const float *v, int dim)
{
    size_t nnz = 0;
    for (int j = 0; j < dim; j++) {
        uint32_t bits;
        memcpy(&bits, &v[j], sizeof bits);
        nnz += bits != 0;
    }
    size_t dense = (size_t)dim * 4;
    return 4 + 6 * nnz < dense ? 4 + 6 * nnz : dense;
}

/* The blob store_vec_encode writes, by the format's plain definition: the
 * shortest of dense, sparse (version 1) and palette (version 2: the
 * distinct non-zero floats in the order they first occur, then per
 * non-zero float a varint of its gap from the last one and its place).
 * Its length; stored stores hold these bytes, so the encoder may not drift. */
static size_t reference_blob(const float *v, int dim, unsigned char *out)
{
    static unsigned char pb[5 + 4 * 64 + 5 * STORE_DIM_MAX]; /* the palette form, unbounded */
    uint32_t pal[65];
    int k = 0, nnz = 0;
    for (int j = 0; j < dim; j++) {
        uint32_t bits;
        memcpy(&bits, &v[j], sizeof bits);
        if (!bits)
            continue;
        nnz++;
        int i = 0;
        while (i < k && pal[i] != bits)
            i++;
        if (i == k && k <= 64)
            pal[k++] = bits;
    }
    size_t dense = (size_t)dim * 4, sparse = 4 + 6 * (size_t)nnz;
    size_t limit = sparse < dense ? sparse : dense, n = 0;
    if (k >= 1 && k <= 64) {
        pb[0] = 'S', pb[1] = 2, pb[2] = (unsigned char)(dim & 0xff),
        pb[3] = (unsigned char)(dim >> 8);
        pb[4] = (unsigned char)k;
        memcpy(pb + 5, pal, 4 * (size_t)k);
        n = 5 + 4 * (size_t)k;
        int b = 0;
        while ((1 << b) < k)
            b++;
        uint32_t gap = 0;
        for (int j = 0; j < dim; j++) {
            uint32_t bits;
            memcpy(&bits, &v[j], sizeof bits);
            if (!bits) {
                gap++;
                continue;
            }
            int i = 0;
            while (pal[i] != bits)
                i++;
            uint32_t x = gap << b | (uint32_t)i;
            gap = 0;
            do {
                pb[n++] = (unsigned char)((x & 0x7f) | (x > 0x7f ? 0x80 : 0));
                x >>= 7;
            } while (x);
        }
    }
    if (n && n < limit) {
        memcpy(out, pb, n);
        return n;
    }
    if (sparse >= dense) {
        memcpy(out, v, dense);
        return dense;
    }
    out[0] = 'S', out[1] = 1, out[2] = (unsigned char)(dim & 0xff),
    out[3] = (unsigned char)(dim >> 8);
    unsigned char *ix = out + 4, *val = ix + 2 * nnz;
    for (int j = 0; j < dim; j++) {
        uint32_t bits;
        memcpy(&bits, &v[j], sizeof bits);
        if (!bits)
            continue;
        *ix++ = (unsigned char)(j & 0xff);
        *ix++ = (unsigned char)(j >> 8);
        memcpy(val, &v[j], 4);
        val += 4;
    }
    return sparse;
}

/* store_vec_codes of blob[n] against store_quantize of v[dim]: 0 when they
 * agree bit for bit. */
static int codes_differ(const unsigned char *blob, size_t n, const float *v, int dim)
{
    static int8_t q1[STORE_DIM_MAX], q2[STORE_DIM_MAX];
    store_qvec a, b;
    memset(q2, 0x5a, sizeof q2);
    store_quantize(v, dim, q1, &a);
    if (store_vec_codes(blob, n, dim, q2, &b))
        return 1;
    return memcmp(q1, q2, (size_t)dim) != 0 || memcmp(&a.scale, &b.scale, sizeof a.scale) ||
           memcmp(&a.resid, &b.resid, sizeof a.resid) || memcmp(&a.qnorm, &b.qnorm, sizeof a.qnorm);
}

static void test_sparse(void)
{
    srand(11);
    static unsigned char blob[STORE_DIM_MAX * sizeof(float)];
    static unsigned char ref[STORE_DIM_MAX * sizeof(float)];
    static float v[STORE_DIM_MAX], back[STORE_DIM_MAX];
    int fails = 0, cfails = 0, drift = 0, form[3] = {0, 0, 0};
    for (int t = 0; t < 6000; t++) {
        int dim = t % 500 == 0 ? STORE_DIM_MAX : 1 + rand() % 1024;
        if (t < 3000)
            sparse_vector(v, dim, rand() / (double)RAND_MAX);
        else
            palette_vector(v, dim, rand() / (double)RAND_MAX, 1 + rand() % 70);
        size_t n = store_vec_encode(v, dim, blob);
        fails += n > sparse_size(v, dim);
        size_t rn = reference_blob(v, dim, ref);
        drift += rn != n || memcmp(ref, blob, n) != 0;
        form[n == (size_t)dim * 4 ? 0 : blob[1] == 1 ? 1 : 2]++;
        memset(back, 0xa5, sizeof back);
        fails += store_vec_decode(blob, n, back, dim) != 0 || !same_bits(v, back, dim);
        cfails += codes_differ(blob, n, v, dim);
        if (n != (size_t)dim * 4) /* the dense blob of the same vector too */
            cfails += codes_differ((const unsigned char *)v, (size_t)dim * 4, v, dim);
    }
    ok(fails == 0 && form[0] > 500 && form[1] > 1000 && form[2] > 1000,
       "6000 vectors read back bit for bit, none longer than sparse: %d dense, %d sparse, "
       "%d palette (%d fails)",
       form[0], form[1], form[2], fails);
    ok(cfails == 0, "their int8 forms from the blob are store_quantize's, bit for bit (%d fails)",
       cfails);
    ok(drift == 0, "and each blob is the format's definition, byte for byte (%d differ)", drift);

    /* as the built-in embedder writes: 116 of 512 dimensions, 6 values */
    int big = 0;
    for (int t = 0; t < 200; t++) {
        palette_vector(v, 512, 116.0 / 512, 6);
        big += store_vec_encode(v, 512, blob) > 5 + 6 * 4 + 2 * 116;
    }
    ok(big == 0, "116 dimensions of 512 with 6 values: at most 2 bytes each past the palette");

    float z[8] = {0};
    ok(store_vec_encode(z, 8, blob) == 4 && store_vec_decode(blob, 4, back, 8) == 0 &&
           same_bits(z, back, 8),
       "the zero vector is its 4-byte header");
    ok(codes_differ(blob, 4, z, 8) == 0, "and its int8 form is store_quantize's");

    /* One entry far in: sparse (10 bytes) is shorter than a palette (11). */
    float one[512] = {0};
    one[300] = 0.5f;
    size_t n1 = store_vec_encode(one, 512, blob);
    ok(n1 == 10 && blob[1] == 1, "one entry at 300 of 512 is sparse, 10 bytes (%zu)", n1);

    /* A sparse blob of dim 512 with 3 entries at 5, 9, 300, by hand. */
    float w[512] = {0};
    w[5] = 0.5f, w[9] = -0.25f, w[300] = 1;
    unsigned char sp[22] = {'S', 1, 0, 2, 5, 0, 9, 0, 44, 1};
    memcpy(sp + 10, &w[5], 4);
    memcpy(sp + 14, &w[9], 4);
    memcpy(sp + 18, &w[300], 4);
    ok(store_vec_decode(sp, 22, back, 512) == 0 && same_bits(w, back, 512),
       "a sparse blob of three entries reads back");
    ok(store_vec_decode(sp, 22, back, 511) == -1, "refused: another dimension");
    ok(store_vec_decode(sp, 21, back, 512) == -1, "refused: a truncated blob");
    ok(store_vec_decode(sp, 3, back, 512) == -1, "refused: shorter than the header");
    ok(store_vec_decode(NULL, 0, back, 512) == -1, "refused: no blob");
    unsigned char bad[32];
    memcpy(bad, sp, 22);
    bad[0] = 'X';
    ok(store_vec_decode(bad, 22, back, 512) == -1, "refused: not the sparse tag");
    memcpy(bad, sp, 22);
    bad[1] = 3;
    ok(store_vec_decode(bad, 22, back, 512) == -1, "refused: an unknown version");
    memcpy(bad, sp, 22);
    bad[6] = 5, bad[7] = 0; /* second index 5 again */
    ok(store_vec_decode(bad, 22, back, 512) == -1, "refused: indices not ascending");
    memcpy(bad, sp, 22);
    bad[8] = 0, bad[9] = 2; /* third index 512 */
    ok(store_vec_decode(bad, 22, back, 512) == -1, "refused: an index past the dimension");

    /* The same three as a palette: 4 + 1 + 3 floats + varints 20, 13, 1162. */
    size_t n = store_vec_encode(w, 512, blob);
    is_int((int)n, 21, "three entries of 512 with three values are a palette of 21 bytes");
    ok(blob[1] == 2 && blob[4] == 3, "version 2, three floats");
    ok(store_vec_decode(blob, n, back, 512) == 0 && same_bits(w, back, 512), "it reads back");
    ok(store_vec_decode(blob, n - 1, back, 512) == -1, "refused: a varint cut short");
    memcpy(bad, blob, n);
    bad[4] = 0;
    ok(store_vec_decode(bad, n, back, 512) == -1, "refused: an empty palette");
    bad[4] = 65;
    ok(store_vec_decode(bad, n, back, 512) == -1, "refused: a palette past 64");
    memcpy(bad, blob, n);
    bad[17] = 20 | 3; /* first entry: palette place 3 of 3 */
    ok(store_vec_decode(bad, n, back, 512) == -1, "refused: a place past the palette");
    memcpy(bad, blob, n);
    bad[20] = 0x7f; /* last gap 290 -> 4082: past 512 */
    ok(store_vec_decode(bad, n, back, 512) == -1, "refused: a gap past the dimension");

    /* Through the store: a sparse vector, and a dense blob written by hand
     * (as schema 4 wrote every vector), read back the same. */
    store *s = NULL;
    ms_error err;
    ms_error_clear(&err);
    if (store_open(tpath("sparse.db"), 0, &s, &err)) {
        ok(0, "open sparse.db: %s", err.msg);
        return;
    }
    store_begin(s, &err);
    store_set_embedder(s, "test-embedder", 512, &err);
    put(s, "a", "one memory", NULL);
    put(s, "b", "another memory", NULL);
    ok(store_put_vector(s, 1, w, 512, &err) == MS_OK, "store_put_vector (%s)", err.msg);
    ok(store_put_vector(s, 2, w, 512, &err) == MS_OK, "and another");
    ok(store_end(s, &err) == MS_OK, "committed (%s)", err.msg);
    sqlite3 *db = NULL;
    sqlite3_open(tpath("sparse.db"), &db);
    sqlite3_stmt *st = NULL;
    sqlite3_prepare_v2(db, "SELECT length(vec) FROM vectors WHERE rid=1", -1, &st, NULL);
    is_int(sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1, 21,
           "the store holds it in 21 bytes, not 2048");
    sqlite3_finalize(st);
    sqlite3_prepare_v2(db, "UPDATE vectors SET vec=?1 WHERE rid=2", -1, &st, NULL);
    sqlite3_bind_blob(st, 1, w, sizeof w, SQLITE_STATIC);
    is_int(sqlite3_step(st), SQLITE_DONE, "rewrite #2 as a dense blob");
    sqlite3_finalize(st);
    sqlite3_close(db);
    float g1[512], g2[512];
    ok(store_get_vector(s, 1, g1, 512, &err) == MS_OK && same_bits(g1, w, 512),
       "store_get_vector: the palette blob gives the vector back");
    ok(store_get_vector(s, 2, g2, 512, &err) == MS_OK && same_bits(g2, w, 512),
       "store_get_vector: the dense blob gives the same");
    ok(store_get_vector(s, 1, g1, 256, &err) == MS_NOT_FOUND,
       "asked for another dimension: MS_NOT_FOUND");
    store_close(s);
}

int main(void)
{
    if (!mkdtemp(tmpdir))
        return 1;
    test_bm25();
    test_quantize();
    test_sparse();
    remove_tmpdir();
    return done_testing();
}
