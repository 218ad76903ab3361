/* bm25-test.c - the store's fast paths give the numbers of the slow ones,
 * bit for bit:
 *   - store_fts ranks with ms_bm25 (store/bm25.c, row lengths read once):
 *     every score equals FTS5's own bm25(memories_fts, 1.0, 0.5, 0.0) for
 *     the same row, and the order is the same, also after writes that
 *     change row lengths (the cache must follow them) and with two profiles;
 *   - store_quantize's norms bound the error of int8 dot products: for
 *     random vectors, |x.v - scale * x.q| <= |x| * resid, and qnorm is
 *     |scale * q|;
 *   - a vector written sparse (store_vec_encode) reads back with the same
 *     bits, -0.0 and subnormals included; dense when sparse is no shorter;
 *     malformed blobs are refused; and through store_put_vector and
 *     store_get_vector, sparse and hand-written dense blobs read the same.
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

static void put(store *s, const char *id, const char *text, const char *session)
{
    store_memory m;
    store_memory_init(&m);
    m.id = strdup(id);
    m.content = strdup(text);
    m.session = session ? strdup(session) : NULL;
    m.created_at = strdup("2025-05-01T10:00:00Z");
    ms_error err;
    store_put(s, &m, STORE_DUP_REPLACE, NULL, &err);
    store_memory_clear(&m);
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

static void test_sparse(void)
{
    srand(11);
    static unsigned char blob[STORE_DIM_MAX * sizeof(float)];
    static float v[STORE_DIM_MAX], back[STORE_DIM_MAX];
    int fails = 0, sparse = 0, dense = 0;
    for (int t = 0; t < 3000; t++) {
        int dim = t % 500 == 0 ? STORE_DIM_MAX : 1 + rand() % 1024;
        sparse_vector(v, dim, rand() / (double)RAND_MAX);
        size_t n = store_vec_encode(v, dim, blob);
        size_t nnz = 0;
        for (int j = 0; j < dim; j++) {
            uint32_t bits;
            memcpy(&bits, &v[j], sizeof bits);
            nnz += bits != 0;
        }
        size_t want = 4 + 6 * nnz < (size_t)dim * 4 ? 4 + 6 * nnz : (size_t)dim * 4;
        fails += n != want;
        sparse += n < (size_t)dim * 4;
        dense += n == (size_t)dim * 4;
        memset(back, 0xa5, sizeof back);
        fails += store_vec_decode(blob, n, back, dim) != 0 || !same_bits(v, back, dim);
    }
    ok(fails == 0 && sparse > 1000 && dense > 500,
       "3000 vectors read back bit for bit: %d sparse, %d dense (%d fails)", sparse, dense, fails);

    float z[8] = {0};
    ok(store_vec_encode(z, 8, blob) == 4 && store_vec_decode(blob, 4, back, 8) == 0 &&
           same_bits(z, back, 8),
       "the zero vector is its 4-byte header");

    /* A sparse blob of dim 512 with 3 entries at 5, 9, 300. */
    float w[512] = {0};
    w[5] = 0.5f, w[9] = -0.25f, w[300] = 1;
    size_t n = store_vec_encode(w, 512, blob);
    is_int((int)n, 4 + 18, "three entries of 512 are 22 bytes");
    ok(store_vec_decode(blob, n, back, 511) == -1, "refused: another dimension");
    ok(store_vec_decode(blob, n - 1, back, 512) == -1, "refused: a truncated blob");
    ok(store_vec_decode(blob, 3, back, 512) == -1, "refused: shorter than the header");
    ok(store_vec_decode(NULL, 0, back, 512) == -1, "refused: no blob");
    unsigned char bad[22];
    memcpy(bad, blob, n);
    bad[0] = 'X';
    ok(store_vec_decode(bad, n, back, 512) == -1, "refused: not the sparse tag");
    memcpy(bad, blob, n);
    bad[1] = 2;
    ok(store_vec_decode(bad, n, back, 512) == -1, "refused: an unknown version");
    memcpy(bad, blob, n);
    bad[6] = 5, bad[7] = 0; /* second index 5 again */
    ok(store_vec_decode(bad, n, back, 512) == -1, "refused: indices not ascending");
    memcpy(bad, blob, n);
    bad[8] = 0, bad[9] = 2; /* third index 512 */
    ok(store_vec_decode(bad, n, back, 512) == -1, "refused: an index past the dimension");

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
    is_int(sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1, 22,
           "the store holds it in 22 bytes, not 2048");
    sqlite3_finalize(st);
    sqlite3_prepare_v2(db, "UPDATE vectors SET vec=?1 WHERE rid=2", -1, &st, NULL);
    sqlite3_bind_blob(st, 1, w, sizeof w, SQLITE_STATIC);
    is_int(sqlite3_step(st), SQLITE_DONE, "rewrite #2 as a dense blob");
    sqlite3_finalize(st);
    sqlite3_close(db);
    float g1[512], g2[512];
    ok(store_get_vector(s, 1, g1, 512, &err) == MS_OK && same_bits(g1, w, 512),
       "store_get_vector: the sparse blob gives the vector back");
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
