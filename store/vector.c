/* vector.c - the exact vectors, their compact blobs, and the int8 forms
 * the engine scans, derived from them.
 *
 * A vector of 512 floats is 2 KB. The built-in embedder hashes a turn's
 * words into about 120 of its 512 dimensions, so most of a dense blob is
 * zeros, and its non-zero floats are few distinct values (a word's weight
 * over the vector's norm: six distinct floats per vector on the bench's
 * texts). A blob is written in the shortest of three forms, each giving
 * the same bits back (every float whose bits are not all zero is kept,
 * -0.0 too):
 *  - dense: exactly dim * 4 bytes, the floats;
 *  - sparse (version 1): 'S', 1, the dimension (u16 LE), then the nnz
 *    indices (u16 LE, ascending) and the nnz floats: 4 + 6 * nnz bytes;
 *  - palette (version 2): 'S', 2, the dimension (u16 LE), k (1..64), the k
 *    distinct floats in order of first use, then per non-zero dimension,
 *    ascending, one LEB128 varint of (gap << b) | i, where gap is the number
 *    of zero dimensions skipped since the previous one, i the float's place
 *    in the palette and b the bits that k - 1 needs: about 5 + 4 k + 1.2 nnz
 *    bytes.
 *
 * Until schema 8 the store kept the int8 form of each vector (v ~= scale *
 * q) in a table of its own, 537 bytes a memory beside the exact one. It is
 * a function of the exact vector (store_quantize), so store_scan_qvectors
 * now computes it from the blob as it reads it: over the non-zero
 * dimensions only, in dimension order, it gives the same codes and the
 * same norms, bit for bit, as store_quantize over the dense floats. */
#include "store_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void store_quantize(const float *v, int dim, int8_t *q, store_qvec *out)
{
    out->n_exact = 0;
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
#define PALETTE_VERSION 2
#define PALETTE_MAX 64 /* more distinct floats than that: never the shortest */
#define SPARSE_HEAD 4

static int float_is_zero(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits == 0;
}

static void put_head(unsigned char *buf, int version, int dim)
{
    buf[0] = SPARSE_TAG;
    buf[1] = (unsigned char)version;
    buf[2] = (unsigned char)(dim & 0xff);
    buf[3] = (unsigned char)(dim >> 8);
}

/* Bits that values 0..k-1 need. */
static int palette_bits(int k)
{
    int b = 0;
    while ((1 << b) < k)
        b++;
    return b;
}

/* The places of a vector's distinct non-zero floats, by their bits: an
 * open-addressed table twice PALETTE_MAX, so each float is one probe or
 * two, where a walk along the palette was up to 64 compares (an import
 * encodes every vector). Slot 0 is empty: zero bits are never looked up. */
#define PALETTE_SLOTS (2 * PALETTE_MAX)

typedef struct pal_map {
    uint32_t bits[PALETTE_SLOTS];
    uint8_t place[PALETTE_SLOTS];
} pal_map;

static unsigned pal_slot(const pal_map *m, uint32_t bits)
{
    unsigned h = (bits * 2654435761u) >> 25; /* 7 bits: PALETTE_SLOTS */
    while (m->bits[h] && m->bits[h] != bits)
        h = (h + 1) % PALETTE_SLOTS;
    return h;
}

/* The palette form of v[dim] into buf, whose non-zero floats are at the
 * ascending places nz[0..nnz), when it has at most PALETTE_MAX distinct
 * ones and is shorter than limit bytes: its length, else 0 (buf may have
 * been written up to limit). The palette keeps the order in which its
 * floats first occur. */
static size_t palette_encode(const float *v, int dim, const uint16_t *nz, size_t nnz,
                             unsigned char *buf, size_t limit)
{
    _Static_assert(PALETTE_SLOTS == 1 << 7, "pal_slot hashes to 7 bits");
    uint32_t pal[PALETTE_MAX];
    pal_map m;
    memset(m.bits, 0, sizeof m.bits);
    int k = 0;
    for (size_t i = 0; i < nnz; i++) {
        uint32_t bits;
        memcpy(&bits, &v[nz[i]], sizeof bits);
        unsigned h = pal_slot(&m, bits);
        if (m.bits[h])
            continue;
        if (k == PALETTE_MAX)
            return 0;
        m.bits[h] = bits;
        m.place[h] = (uint8_t)k;
        pal[k++] = bits;
    }
    size_t n = SPARSE_HEAD + 1 + 4 * (size_t)k;
    if (k == 0 || n >= limit)
        return 0;
    put_head(buf, PALETTE_VERSION, dim);
    buf[SPARSE_HEAD] = (unsigned char)k;
    memcpy(buf + SPARSE_HEAD + 1, pal, 4 * (size_t)k);
    int b = palette_bits(k);
    for (size_t i = 0; i < nnz; i++) {
        uint32_t bits;
        memcpy(&bits, &v[nz[i]], sizeof bits);
        uint32_t gap = (uint32_t)(nz[i] - (i ? nz[i - 1] + 1 : 0));
        uint32_t x = gap << b | m.place[pal_slot(&m, bits)];
        do {
            if (n >= limit)
                return 0;
            buf[n++] = (unsigned char)((x & 0x7f) | (x > 0x7f ? 0x80 : 0));
            x >>= 7;
        } while (x);
    }
    return n < limit ? n : 0;
}

size_t store_vec_encode(const float *v, int dim, unsigned char *buf)
{
    uint16_t nz[STORE_DIM_MAX]; /* 16 KB */
    size_t dense = (size_t)dim * sizeof *v;
    if (dim > STORE_DIM_MAX) { /* no vector is longer: stored as it is */
        memcpy(buf, v, dense);
        return dense;
    }
    size_t nnz = 0;
    for (int j = 0; j < dim; j++) {
        nz[nnz] = (uint16_t)j;
        nnz += !float_is_zero(v[j]);
    }
    size_t sparse = SPARSE_HEAD + 6 * nnz;
    size_t pal = palette_encode(v, dim, nz, nnz, buf, sparse < dense ? sparse : dense);
    if (pal)
        return pal;
    if (sparse >= dense) {
        memcpy(buf, v, dense);
        return dense;
    }
    put_head(buf, SPARSE_VERSION, dim);
    unsigned char *ix = buf + SPARSE_HEAD, *val = ix + 2 * nnz;
    for (size_t i = 0; i < nnz; i++) {
        *ix++ = (unsigned char)(nz[i] & 0xff);
        *ix++ = (unsigned char)(nz[i] >> 8);
        memcpy(val, &v[nz[i]], sizeof *v);
        val += sizeof *v;
    }
    return sparse;
}

/* A palette blob b[len] of dim (its version byte checked by the caller):
 * its k floats pal[], and per non-zero dimension idx[i] (ascending) its
 * place in the palette place[i], *nnz of them. 0, or -1 when malformed. */
static int palette_entries(const unsigned char *b, size_t len, int dim, float *pal, int *k,
                           uint16_t *idx, uint8_t *place, size_t *nnz)
{
    if (len < SPARSE_HEAD + 1)
        return -1;
    *k = b[SPARSE_HEAD];
    size_t at = SPARSE_HEAD + 1 + 4 * (size_t)*k;
    if (*k < 1 || *k > PALETTE_MAX || len < at)
        return -1;
    memcpy(pal, b + SPARSE_HEAD + 1, 4 * (size_t)*k);
    int bits = palette_bits(*k);
    long j = -1;
    size_t n = 0;
    while (at < len) {
        uint64_t x = 0;
        int shift = 0;
        unsigned char c;
        do {
            if (at >= len || shift > 28)
                return -1;
            c = b[at++];
            x |= (uint64_t)(c & 0x7f) << shift;
            shift += 7;
        } while (c & 0x80);
        uint64_t i = x & ((1u << bits) - 1);
        j += (long)(x >> bits) + 1;
        if (i >= (uint64_t)*k || j >= dim)
            return -1;
        idx[n] = (uint16_t)j;
        place[n++] = (uint8_t)i;
    }
    *nnz = n;
    return 0;
}

/* The entries of a blob that is a vector of dim: *nnz dimensions idx[],
 * ascending, and their floats val[] (room for dim each; a dense blob gives
 * every dimension). 0, or -1 when blob is no vector of dim. */
static int vec_entries(const void *blob, size_t len, int dim, uint16_t *idx, float *val,
                       size_t *nnz)
{
    const unsigned char *b = blob;
    *nnz = 0;
    if (b && len == (size_t)dim * sizeof *val) {
        memcpy(val, b, len);
        for (int j = 0; j < dim; j++)
            idx[j] = (uint16_t)j;
        *nnz = (size_t)dim;
        return 0;
    }
    if (!b || len < SPARSE_HEAD || b[0] != SPARSE_TAG || (b[2] | b[3] << 8) != dim)
        return -1;
    if (b[1] != SPARSE_VERSION && b[1] != PALETTE_VERSION)
        return -1;
    if (b[1] == SPARSE_VERSION) {
        if ((len - SPARSE_HEAD) % 6)
            return -1;
        size_t n = (len - SPARSE_HEAD) / 6;
        const unsigned char *ix = b + SPARSE_HEAD, *v = ix + 2 * n;
        int prev = -1;
        for (size_t i = 0; i < n; i++) {
            int j = ix[2 * i] | ix[2 * i + 1] << 8;
            if (j <= prev || j >= dim)
                return -1;
            idx[i] = (uint16_t)j;
            memcpy(&val[i], v + i * sizeof *val, sizeof *val);
            prev = j;
        }
        *nnz = n;
        return 0;
    }
    float pal[PALETTE_MAX];
    uint8_t place[STORE_DIM_MAX];
    int k;
    if (palette_entries(b, len, dim, pal, &k, idx, place, nnz))
        return -1;
    for (size_t i = 0; i < *nnz; i++)
        val[i] = pal[place[i]];
    return 0;
}

int store_vec_decode(const void *blob, size_t len, float *out, int dim)
{
    if (dim <= 0 || dim > STORE_DIM_MAX)
        return -1;
    uint16_t idx[STORE_DIM_MAX];
    float val[STORE_DIM_MAX];
    size_t n;
    if (len == (size_t)dim * sizeof *out && blob) {
        memcpy(out, blob, len);
        return 0;
    }
    if (vec_entries(blob, len, dim, idx, val, &n))
        return -1;
    memset(out, 0, (size_t)dim * sizeof *out);
    for (size_t i = 0; i < n; i++)
        out[idx[i]] = val[i];
    return 0;
}

/* The float x of code c into out's exact pairs, slot[c + 128] its place
 * + 1 (0 none yet); -1 when the codes cannot give the floats back: x is
 * not finite, or not +0.0 with code 0, or code c stands for another float
 * already (then out->n_exact is 0). */
static int exact_add(store_qvec *out, uint8_t *slot, int c, float x)
{
    uint32_t bits, had = 0;
    memcpy(&bits, &x, sizeof bits);
    if (c == 0 && bits == 0)
        return 0;
    uint8_t *at = &slot[c + 128];
    if (*at)
        memcpy(&had, &out->exact[*at - 1], sizeof had);
    if (c == 0 || !isfinite(x) || (*at && had != bits)) {
        out->n_exact = 0;
        return -1;
    }
    if (!*at) {
        out->exact_code[out->n_exact] = (int8_t)c;
        out->exact[out->n_exact] = x;
        *at = (uint8_t)++out->n_exact;
    }
    return 0;
}

/* store_quantize of the vector whose non-zero dimensions are idx[0..n)
 * (ascending) with floats val[]: the dimensions left out are +0.0, whose
 * code is 0 and which add exactly 0 to both sums, so the codes and norms
 * are those of store_quantize over the dense floats. */
static void quantize_entries(const uint16_t *idx, const float *val, size_t n, int dim, int8_t *q,
                             store_qvec *out)
{
    float maxabs = 0;
    for (size_t i = 0; i < n; i++)
        if (fabsf(val[i]) > maxabs)
            maxabs = fabsf(val[i]);
    double scale = maxabs > 0 ? (double)maxabs / 127.0 : 0;
    double inv = maxabs > 0 ? 127.0 / (double)maxabs : 0;
    double resid = 0, qq = 0;
    uint8_t slot[256] = {0};
    int exact = 1;
    out->n_exact = 0;
    memset(q, 0, (size_t)dim);
    for (size_t i = 0; i < n; i++) {
        double x = (double)val[i] * inv;
        int c = (int)(x >= 0 ? x + 0.5 : x - 0.5);
        c = c > 127 ? 127 : c < -127 ? -127 : c;
        q[idx[i]] = (int8_t)c;
        double e = (double)val[i] - scale * (double)c;
        resid += e * e;
        qq += (double)c * (double)c;
        exact = exact && exact_add(out, slot, c, val[i]) == 0;
    }
    out->q = q;
    out->scale = scale;
    out->resid = sqrt(resid);
    out->qnorm = scale * sqrt(qq);
}

/* quantize_entries for a palette blob, with each distinct float's code and
 * terms computed once: the same operations on the same values, summed in
 * the same (dimension) order, so the same bits. Only the floats the
 * entries use count for the scale. */
static int palette_codes(const unsigned char *b, size_t len, int dim, int8_t *q, store_qvec *out)
{
    float pal[PALETTE_MAX];
    uint16_t idx[STORE_DIM_MAX];
    uint8_t place[STORE_DIM_MAX];
    int k;
    size_t n;
    if (palette_entries(b, len, dim, pal, &k, idx, place, &n))
        return -1;
    char used[PALETTE_MAX] = {0};
    for (size_t i = 0; i < n; i++)
        used[place[i]] = 1;
    float maxabs = 0;
    for (int i = 0; i < k; i++)
        if (used[i] && fabsf(pal[i]) > maxabs)
            maxabs = fabsf(pal[i]);
    double scale = maxabs > 0 ? (double)maxabs / 127.0 : 0;
    double inv = maxabs > 0 ? 127.0 / (double)maxabs : 0;
    int8_t code[PALETTE_MAX];
    double ee[PALETTE_MAX], cc[PALETTE_MAX];
    uint8_t slot[256] = {0};
    int exact = 1;
    out->n_exact = 0;
    for (int i = 0; i < k; i++) {
        double x = (double)pal[i] * inv;
        int c = (int)(x >= 0 ? x + 0.5 : x - 0.5);
        c = c > 127 ? 127 : c < -127 ? -127 : c;
        code[i] = (int8_t)c;
        double e = (double)pal[i] - scale * (double)c;
        ee[i] = e * e;
        cc[i] = (double)c * (double)c;
        exact = exact && (!used[i] || exact_add(out, slot, c, pal[i]) == 0);
    }
    double resid = 0, qq = 0;
    memset(q, 0, (size_t)dim);
    for (size_t i = 0; i < n; i++) {
        q[idx[i]] = code[place[i]];
        resid += ee[place[i]];
        qq += cc[place[i]];
    }
    out->q = q;
    out->scale = scale;
    out->resid = sqrt(resid);
    out->qnorm = scale * sqrt(qq);
    return 0;
}

int store_vec_codes(const void *blob, size_t len, int dim, int8_t *q, store_qvec *out)
{
    if (dim <= 0 || dim > STORE_DIM_MAX)
        return -1;
    uint16_t idx[STORE_DIM_MAX];
    float val[STORE_DIM_MAX];
    size_t n;
    const unsigned char *b = blob;
    if (b && len != (size_t)dim * 4 && len > 1 && b[0] == SPARSE_TAG && b[1] == PALETTE_VERSION &&
        (b[2] | b[3] << 8) == dim)
        return palette_codes(b, len, dim, q, out);
    if (vec_entries(blob, len, dim, idx, val, &n))
        return -1;
    quantize_entries(idx, val, n, dim, q, out);
    return 0;
}

ms_status store_scan_qvectors(store *s, store_qvec_fn fn, void *ctx, ms_error *err)
{
    return store_scan_qvectors_after(s, INT64_MIN, fn, ctx, err);
}

ms_status store_scan_qvectors_after(store *s, int64_t after, store_qvec_fn fn, void *ctx,
                                    ms_error *err)
{
    int only = 0;
    ms_status code = store_only_profile(s, &only, err);
    if (code)
        return code;
    const char *sql = only ? "SELECT rid, vec FROM vectors WHERE rid > ?2 ORDER BY rid"
                           : "SELECT v.rid, v.vec FROM vectors v"
                             " CROSS JOIN memories m ON m.rid=v.rid WHERE v.rid > ?2"
                             " AND m.profile=?1 ORDER BY v.rid";
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading vectors", err);
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, after);
    int dim = s->embedder_dim;
    int8_t q[STORE_DIM_MAX];
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_qvec qv;
        if (store_vec_codes(sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1), dim, q,
                            &qv))
            continue; /* a vector of another shape: not comparable */
        qv.rid = sqlite3_column_int64(st, 0);
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
