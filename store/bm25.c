/* bm25.c - FTS5's bm25() ranking, with the row lengths read once.
 *
 * bm25 needs, for every row that matches, the row's length in tokens. FTS5
 * reads it from the %_docsize table with one lookup per row: for a query
 * with a common word at 100,000 memories that is 20,000 lookups and over
 * half the time of the query. Here the lengths of every row are read in one
 * scan when a ranked search first needs them, and kept until the index
 * changes (a write on this connection, or a commit by another). Everything
 * else is computed as FTS5's own bm25() computes it - the same inputs from
 * the same API calls, the same arithmetic in the same order - so the scores
 * are the same numbers; a row the cache does not cover asks FTS5 as before.
 *
 * The function is ms_bm25(memories_fts), with the column weights of the
 * store's rank, bm25(1.0, 0.5, 0.0). */
#include "store_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BM25_K1 1.2
#define BM25_B 0.75

static const double column_weight[] = {1.0, 0.5, 0.0}; /* content, context, ptag */
#define N_WEIGHTS ((int)(sizeof column_weight / sizeof *column_weight))

/* Row lengths by rowid, for the index as it was at (version, gen). */
struct doclen {
    int32_t *len; /* [span] tokens in the row, -1 = not known */
    int64_t base; /* rowid of len[0] */
    size_t span;
    int64_t version; /* store_data_version when read */
    uint64_t gen;    /* s->fts_gen when read */
    int lent;        /* len is the caller's (store_doclen_lend) */
};

void store_doclen_free(store *s)
{
    if (s->doclen && !s->doclen->lent)
        free(s->doclen->len);
    free(s->doclen);
    s->doclen = NULL;
}

/* An SQLite varint (the format of FTS5's size records) at p; its length. */
static int get_varint(const unsigned char *p, const unsigned char *end, uint64_t *v)
{
    uint64_t x = 0;
    for (int i = 0; i < 9 && p + i < end; i++) {
        if (i == 8) {
            *v = (x << 8) | p[i];
            return 9;
        }
        x = (x << 7) | (p[i] & 0x7f);
        if (!(p[i] & 0x80)) {
            *v = x;
            return i + 1;
        }
    }
    return 0;
}

/* The row's length: the sum of its columns' token counts (what
 * xColumnSize(-1) gives), or -1 when the record cannot be read. */
static int32_t decode_len(const unsigned char *p, int n)
{
    const unsigned char *end = p + n;
    uint64_t sum = 0;
    for (int c = 0; c < N_WEIGHTS; c++) {
        uint64_t v;
        int k = get_varint(p, end, &v);
        if (!k)
            return -1;
        sum += (uint32_t)v; /* FTS5 reads each as a 32-bit count */
        p += k;
    }
    return sum > INT32_MAX ? -1 : (int32_t)sum;
}

/* Are rowids lo..hi, count of them in the index, too sparse for an array
 * of lengths by rowid? */
static int too_sparse(int64_t lo, int64_t hi, int64_t count)
{
    return count <= 0 || hi < lo || (uint64_t)(hi - lo) > 4 * (uint64_t)count + 1024;
}

/* Read every row's length. NULL when the rowids are too sparse for an
 * array or memory is short: then FTS5 is asked row by row. */
static struct doclen *doclen_read(store *s)
{
    sqlite3_stmt *st;
    int64_t lo = 0, hi = 0;
    if (sqlite3_prepare_v2(s->db, "SELECT min(id), max(id), count(*) FROM memories_fts_docsize", -1,
                           &st, NULL) != SQLITE_OK)
        return NULL;
    int64_t count = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        lo = sqlite3_column_int64(st, 0);
        hi = sqlite3_column_int64(st, 1);
        count = sqlite3_column_int64(st, 2);
    }
    sqlite3_finalize(st);
    if (too_sparse(lo, hi, count))
        return NULL;
    struct doclen *d = calloc(1, sizeof *d);
    if (!d || !(d->len = malloc(((size_t)(hi - lo) + 1) * sizeof *d->len)))
        goto fail;
    d->base = lo;
    d->span = (size_t)(hi - lo) + 1;
    for (size_t i = 0; i < d->span; i++)
        d->len[i] = -1;
    if (sqlite3_prepare_v2(s->db, "SELECT id, sz FROM memories_fts_docsize", -1, &st, NULL) !=
        SQLITE_OK)
        goto fail;
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (id >= lo && id <= hi)
            d->len[id - lo] = decode_len(sqlite3_column_blob(st, 1), sqlite3_column_bytes(st, 1));
    }
    sqlite3_finalize(st);
    return d;
fail:
    if (d)
        free(d->len);
    free(d);
    return NULL;
}

/* Make s->doclen describe the index as it is now (or NULL). */
void store_doclen_refresh(store *s)
{
    int64_t version = store_data_version(s);
    struct doclen *d = s->doclen;
    if (d && d->version == version && d->gen == s->fts_gen)
        return;
    store_doclen_free(s);
    if ((d = doclen_read(s))) {
        d->version = version;
        d->gen = s->fts_gen;
    }
    s->doclen = d;
}

int store_doclen_get(store *s, const int32_t **len, int64_t *base, size_t *span)
{
    store_doclen_refresh(s);
    if (!s->doclen)
        return -1;
    *len = s->doclen->len;
    *base = s->doclen->base;
    *span = s->doclen->span;
    return 0;
}

void store_doclen_return(store *s, const int32_t *len)
{
    if (s && s->doclen && s->doclen->lent && s->doclen->len == len)
        store_doclen_free(s);
}

int store_doclen_lend(store *s, const int32_t *len, int64_t base, size_t span)
{
    struct doclen *d = calloc(1, sizeof *d);
    if (!d)
        return -1;
    store_doclen_free(s);
    d->len = (int32_t *)len; /* only read */
    d->base = base;
    d->span = span;
    d->version = store_data_version(s);
    d->gen = s->fts_gen;
    d->lent = 1;
    s->doclen = d;
    return 0;
}

/* Read the length of row id (when it is in the index) into d->len; -1 when
 * the statement fails. */
static int grow_row(sqlite3_stmt *st, int64_t id, struct doclen *d)
{
    if (id < d->base || id >= d->base + (int64_t)d->span)
        return 0;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        d->len[id - d->base] = decode_len(sqlite3_column_blob(st, 0), sqlite3_column_bytes(st, 0));
    sqlite3_reset(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* The rows past old_end, and the turn before each in its session. */
static int grow_rows(store *s, struct doclen *d, int64_t old_end)
{
    sqlite3_stmt *one = NULL, *next = NULL;
    int bad = sqlite3_prepare_v2(s->db, "SELECT sz FROM memories_fts_docsize WHERE id=?1", -1, &one,
                                 NULL) != SQLITE_OK ||
              sqlite3_prepare_v2(s->db,
                                 "SELECT m.rid, (SELECT p.rid FROM memories p"
                                 " WHERE p.profile=m.profile AND p.session=m.session"
                                 " AND p.rid<m.rid ORDER BY p.rid DESC LIMIT 1)"
                                 " FROM memories m WHERE m.rid>=?1",
                                 -1, &next, NULL) != SQLITE_OK;
    if (!bad)
        sqlite3_bind_int64(next, 1, old_end);
    int rc = SQLITE_DONE;
    while (!bad && (rc = sqlite3_step(next)) == SQLITE_ROW) {
        bad = grow_row(one, sqlite3_column_int64(next, 0), d);
        if (!bad && sqlite3_column_type(next, 1) != SQLITE_NULL &&
            sqlite3_column_int64(next, 1) < old_end)
            bad = grow_row(one, sqlite3_column_int64(next, 1), d);
    }
    sqlite3_finalize(one);
    sqlite3_finalize(next);
    return bad || rc != SQLITE_DONE ? -1 : 0;
}

int store_doclen_grow(store *s, const int32_t *len, int64_t base, size_t span, int32_t **out)
{
    *out = NULL;
    int64_t hi = 0, rows = 0, tokens = 0;
    if (!len || !span || store_fts_totals(s, &rows, &tokens, NULL) ||
        store_query_int(s, "SELECT coalesce(max(id), 0) FROM memories_fts_docsize", &hi, NULL) ||
        hi < base + (int64_t)span - 1 || too_sparse(base, hi, rows))
        return -1;
    struct doclen d = {.base = base, .span = (size_t)(hi - base) + 1};
    if (!(d.len = malloc(d.span * sizeof *d.len)))
        return -1;
    memcpy(d.len, len, span * sizeof *d.len);
    for (size_t i = span; i < d.span; i++)
        d.len[i] = -1;
    int64_t known = 0, sum = 0;
    int bad = grow_rows(s, &d, base + (int64_t)span);
    for (size_t i = 0; !bad && i < d.span; i++)
        if (d.len[i] >= 0) {
            known++;
            sum += d.len[i];
        }
    /* a row changed that was not read again would show here (unless its
       length stayed, when its entry is still right) */
    if (bad || known != rows || sum != tokens || store_doclen_lend(s, d.len, d.base, d.span)) {
        free(d.len);
        return -1;
    }
    *out = d.len;
    return 0;
}

/* What bm25 works out once per query: the IDF of each phrase and the
 * average row length. */
typedef struct bm25_query {
    int n_phrase;
    double avgdl;
    double *idf;  /* [n_phrase] */
    double *freq; /* [n_phrase] scratch for each row */
} bm25_query;

static int count_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *p)
{
    (void)api;
    (void)fts;
    (*(sqlite3_int64 *)p)++;
    return SQLITE_OK;
}

static int bm25_prepare(const Fts5ExtensionApi *api, Fts5Context *fts, bm25_query **out)
{
    bm25_query *q = api->xGetAuxdata(fts, 0);
    if (q) {
        *out = q;
        return SQLITE_OK;
    }
    int n = api->xPhraseCount(fts);
    q = calloc(1, sizeof *q + 2 * (size_t)(n + 1) * sizeof(double));
    if (!q)
        return SQLITE_NOMEM;
    q->n_phrase = n;
    q->idf = (double *)(q + 1);
    q->freq = q->idf + n + 1;
    sqlite3_int64 n_row = 0, n_token = 0;
    int rc = api->xRowCount(fts, &n_row);
    if (n_row <= 0)
        n_row = 1;
    if (rc == SQLITE_OK)
        rc = api->xColumnTotalSize(fts, -1, &n_token);
    q->avgdl = (double)n_token / (double)n_row;
    for (int i = 0; rc == SQLITE_OK && i < n; i++) {
        sqlite3_int64 n_hit = 0;
        rc = api->xQueryPhrase(fts, i, (void *)&n_hit, count_row);
        if (rc == SQLITE_OK) {
            double idf = log((n_row - n_hit + 0.5) / (n_hit + 0.5));
            q->idf[i] = idf <= 0.0 ? 1e-6 : idf;
        }
    }
    if (rc == SQLITE_OK)
        rc = api->xSetAuxdata(fts, q, free);
    else
        free(q);
    *out = rc == SQLITE_OK ? q : NULL;
    return rc;
}

/* The row's length: from the cache, else from FTS5. */
static int row_length(store *s, const Fts5ExtensionApi *api, Fts5Context *fts, double *d)
{
    const struct doclen *c = s->doclen;
    sqlite3_int64 rowid = api->xRowid(fts);
    if (c && rowid >= c->base && (uint64_t)(rowid - c->base) < c->span &&
        c->len[rowid - c->base] >= 0) {
        *d = (double)c->len[rowid - c->base];
        return SQLITE_OK;
    }
    int n_tok = 0;
    int rc = api->xColumnSize(fts, -1, &n_tok);
    *d = (double)n_tok;
    return rc;
}

static void bm25_function(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
                          int n_val, sqlite3_value **val)
{
    (void)n_val;
    (void)val;
    store *s = api->xUserData(fts);
    bm25_query *q = NULL;
    int rc = bm25_prepare(api, fts, &q);
    int n_inst = 0;
    if (rc == SQLITE_OK) {
        memset(q->freq, 0, sizeof(double) * (size_t)q->n_phrase);
        rc = api->xInstCount(fts, &n_inst);
    }
    for (int i = 0; rc == SQLITE_OK && i < n_inst; i++) {
        int phrase, col, off;
        rc = api->xInst(fts, i, &phrase, &col, &off);
        if (rc == SQLITE_OK)
            q->freq[phrase] += col < N_WEIGHTS ? column_weight[col] : 1.0;
    }
    double d = 0.0, score = 0.0;
    if (rc == SQLITE_OK)
        rc = row_length(s, api, fts, &d);
    for (int i = 0; rc == SQLITE_OK && i < q->n_phrase; i++)
        score += q->idf[i] * ((q->freq[i] * (BM25_K1 + 1.0)) /
                              (q->freq[i] + BM25_K1 * (1 - BM25_B + BM25_B * d / q->avgdl)));
    if (rc == SQLITE_OK)
        sqlite3_result_double(ctx, -1.0 * score);
    else
        sqlite3_result_error_code(ctx, rc);
}

int store_bm25_register(store *s, void *fts5api)
{
    fts5_api *api = fts5api;
    return api->xCreateFunction(api, "ms_bm25", s, bm25_function, NULL);
}

/* ---- what bm25 reads of the whole index ------------------------------------ */

ms_status store_fts_totals(store *s, int64_t *rows, int64_t *tokens, ms_error *err)
{
    sqlite3_stmt *st;
    *rows = *tokens = 0;
    int rc =
        sqlite3_prepare_v2(s->db, "SELECT block FROM memories_fts_data WHERE id=1", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading the text index's totals", err);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        /* FTS5's averages record: the row count, then each column's tokens */
        const unsigned char *p = sqlite3_column_blob(st, 0);
        const unsigned char *end = p + sqlite3_column_bytes(st, 0);
        uint64_t v = 0;
        int k = p ? get_varint(p, end, &v) : 0;
        *rows = (int64_t)v;
        for (int c = 0; k && c < N_WEIGHTS; c++) {
            p += k;
            k = get_varint(p, end, &v);
            *tokens += (int64_t)v;
        }
        if (!k)
            rc = SQLITE_CORRUPT;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "reading the text index's totals", err);
    return MS_OK;
}
