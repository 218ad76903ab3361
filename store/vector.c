/* vector.c - compact int8 copies of the vectors, and exact reads of one.
 *
 * A vector of 512 floats is 2 KB, one to a 4 KB page: at 100,000 memories
 * the `vectors` table is 400 MB, and reading it is most of the time it
 * takes to open a store for recall. Next to each vector the store keeps its
 * int8 form in `vectors_q8` (512 bytes, eight to a page): v ~= scale * q,
 * with two norms that bound how far a dot product of the int8 form can be
 * from the exact one (see store.h). The engine scans the int8 forms and
 * reads the exact vectors (store_get_vector) only of the memories whose
 * bounds leave their rank open, so its answers are those of the exact
 * vectors.
 *
 * The exact vectors are written sparse when that is shorter: the built-in
 * embedder hashes a turn's words into about 120 of its 512 dimensions, so
 * most of a dense blob is zeros. A blob of exactly dim * 4 bytes is dense;
 * any other is 'S', 1, the dimension (u16 LE), then the nnz indices (u16
 * LE, ascending) and the nnz floats: 4 + 6 * nnz bytes, written only when
 * shorter than the dense form. Every float whose bits are not all zero is
 * kept (-0.0 too), so decoding gives the same bits back. */
#include "store_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void store_quantize(const float *v, int dim, int8_t *q, store_qvec *out)
{
    float maxabs = 0;
    for (int j = 0; j < dim; j++)
        if (fabsf(v[j]) > maxabs)
            maxabs = fabsf(v[j]);
    double scale = maxabs > 0 ? (double)maxabs / 127.0 : 0;
    double inv = maxabs > 0 ? 127.0 / (double)maxabs : 0;
    double resid = 0, qq = 0;
    for (int j = 0; j < dim; j++) {
        double x = (double)v[j] * inv; /* the norms below hold for any codes */
        int c = (int)(x >= 0 ? x + 0.5 : x - 0.5);
        c = c > 127 ? 127 : c < -127 ? -127 : c;
        q[j] = (int8_t)c;
        double e = (double)v[j] - scale * (double)c;
        resid += e * e;
        qq += (double)c * (double)c;
    }
    out->q = q;
    out->scale = scale;
    out->resid = sqrt(resid);
    out->qnorm = scale * sqrt(qq);
}

#define SPARSE_TAG 'S'
#define SPARSE_VERSION 1
#define SPARSE_HEAD 4

static int float_is_zero(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits == 0;
}

size_t store_vec_encode(const float *v, int dim, unsigned char *buf)
{
    size_t nnz = 0;
    for (int j = 0; j < dim; j++)
        nnz += !float_is_zero(v[j]);
    size_t dense = (size_t)dim * sizeof *v;
    if (SPARSE_HEAD + 6 * nnz >= dense) {
        memcpy(buf, v, dense);
        return dense;
    }
    buf[0] = SPARSE_TAG;
    buf[1] = SPARSE_VERSION;
    buf[2] = (unsigned char)(dim & 0xff);
    buf[3] = (unsigned char)(dim >> 8);
    unsigned char *ix = buf + SPARSE_HEAD, *val = ix + 2 * nnz;
    for (int j = 0; j < dim; j++) {
        if (float_is_zero(v[j]))
            continue;
        *ix++ = (unsigned char)(j & 0xff);
        *ix++ = (unsigned char)(j >> 8);
        memcpy(val, &v[j], sizeof *v);
        val += sizeof *v;
    }
    return SPARSE_HEAD + 6 * nnz;
}

size_t store_vec_prepare(const float *v, int dim, int8_t *q, store_qvec *qv, unsigned char *blob)
{
    store_quantize(v, dim, q, qv);
    return store_vec_encode(v, dim, blob);
}

int store_vec_decode(const void *blob, size_t len, float *out, int dim)
{
    size_t dense = (size_t)dim * sizeof *out;
    if (len == dense) {
        memcpy(out, blob, dense);
        return 0;
    }
    const unsigned char *b = blob;
    if (!b || len < SPARSE_HEAD || (len - SPARSE_HEAD) % 6 || b[0] != SPARSE_TAG ||
        b[1] != SPARSE_VERSION || (b[2] | b[3] << 8) != dim)
        return -1;
    size_t nnz = (len - SPARSE_HEAD) / 6;
    const unsigned char *ix = b + SPARSE_HEAD, *val = ix + 2 * nnz;
    memset(out, 0, dense);
    int prev = -1;
    for (size_t i = 0; i < nnz; i++) {
        int j = ix[2 * i] | ix[2 * i + 1] << 8;
        if (j <= prev || j >= dim)
            return -1;
        memcpy(&out[j], val + i * sizeof *out, sizeof *out);
        prev = j;
    }
    return 0;
}

ms_status store_qvec_put(store *s, int64_t rid, const int8_t *q, int dim, const store_qvec *qv,
                         int fresh, ms_error *err)
{
    sqlite3_stmt *st = store_stmt(s, fresh ? ST_QVEC_ADD : ST_QVEC_PUT, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_int64(st, 1, rid);
    sqlite3_bind_double(st, 2, qv->scale);
    sqlite3_bind_double(st, 3, qv->resid);
    sqlite3_bind_double(st, 4, qv->qnorm);
    sqlite3_bind_blob(st, 5, q, dim, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_CONSTRAINT_PRIMARYKEY && fresh) /* there was one after all */
        return store_qvec_put(s, rid, q, dim, qv, 0, err);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "writing a vector", err);
    return MS_OK;
}

/* The int8 form of every vector stored (schema 3 -> 4), from scratch. */
ms_status store_qvec_rebuild(store *s, ms_error *err)
{
    ms_status code = store_exec(s, "DELETE FROM vectors_q8", err);
    if (code)
        return code;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, "SELECT rid, vec FROM vectors ORDER BY rid", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading vectors", err);
    while (!code && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int dim = sqlite3_column_bytes(st, 1) / (int)sizeof(float);
        if (dim <= 0 || dim > STORE_DIM_MAX)
            continue; /* schema 3 wrote dense vectors only */
        float *v = malloc((size_t)dim * sizeof *v);
        if (!v) {
            code = ms_fail(err, MS_NOMEM, "out of memory");
            break;
        }
        memcpy(v, sqlite3_column_blob(st, 1), (size_t)dim * sizeof *v);
        int8_t q[STORE_DIM_MAX];
        store_qvec qv;
        store_quantize(v, dim, q, &qv);
        code = store_qvec_put(s, sqlite3_column_int64(st, 0), q, dim, &qv, 0, err);
        free(v);
    }
    sqlite3_finalize(st);
    if (!code && rc != SQLITE_DONE)
        code = store_sql_fail(s, rc, "reading vectors", err);
    return code;
}

ms_status store_scan_qvectors(store *s, store_qvec_fn fn, void *ctx, ms_error *err)
{
    int only = 0;
    ms_status code = store_only_profile(s, &only, err);
    if (code)
        return code;
    const char *sql = only ? "SELECT rid, scale, resid, qnorm, q FROM vectors_q8 ORDER BY rid"
                           : "SELECT q.rid, q.scale, q.resid, q.qnorm, q.q FROM vectors_q8 q"
                             " CROSS JOIN memories m ON m.rid=q.rid WHERE m.profile=?1"
                             " ORDER BY q.rid";
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading vectors", err);
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    int dim = s->embedder_dim;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (dim <= 0 || sqlite3_column_bytes(st, 4) != dim)
            continue; /* a vector of another shape: not comparable */
        store_qvec qv = {sqlite3_column_int64(st, 0), sqlite3_column_blob(st, 4),
                         sqlite3_column_double(st, 1), sqlite3_column_double(st, 2),
                         sqlite3_column_double(st, 3)};
        if (fn(ctx, &qv, dim)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "reading vectors", err);
    return MS_OK;
}

ms_status store_get_vector(store *s, int64_t rid, float *out, int dim, ms_error *err)
{
    sqlite3_stmt *st = store_stmt(s, ST_VECTOR_GET, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_int64(st, 1, rid);
    int rc = sqlite3_step(st);
    ms_status code = MS_OK;
    int found = rc == SQLITE_ROW && dim > 0 && dim <= STORE_DIM_MAX &&
                store_vec_decode(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0),
                                 out, dim) == 0;
    if (!found && (rc == SQLITE_ROW || rc == SQLITE_DONE))
        code = ms_fail(err, MS_NOT_FOUND, "memory #%lld has no vector of %d dimensions",
                       (long long)rid, dim);
    else if (!found)
        code = store_sql_fail(s, rc, "reading a vector", err);
    sqlite3_reset(st); /* never leave the read snapshot pinned */
    return code;
}
