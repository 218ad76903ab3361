/* postings.c - bm25 over postings the engine keeps, with top-k pruning.
 *
 * FTS5 scores every row that matches a query to return the best 200: the
 * median query matches an eighth of the store. Here each term of the index
 * has a posting list (the rows holding it in content or context, ascending,
 * with 2 * its count in content + its count in context), cut into blocks of
 * POST_BLOCK postings that know their last row and the largest score the
 * term gives any row in them. A query is answered by MaxScore: the terms
 * are ordered by the largest score they can give; once k rows are held,
 * the terms whose maxima together cannot beat the k-th score are not
 * walked, only looked into for the rows the others bring (a block whose
 * maximum cannot lift the row is not searched), and a row is given up as
 * soon as what is left of its bound falls to the k-th score.
 *
 * The scores are FTS5's bm25 as ms_bm25 computes it (store/bm25.c): the
 * same inputs (the index's row count and token total from its averages
 * record, each row's length from its size record, a term's row count for
 * its idf) and the same arithmetic in the same order, so each score is the
 * same double and the rows and their order are store_fts's. Every bound
 * is inflated by POST_SLACK (far above the rounding of a sum of 64 terms),
 * so rounding never prunes a row that belongs. Rows are visited in rid
 * order, so a row that ties the k-th score loses to it, as in store_fts
 * (ties by rid).
 *
 * Each posting also says whether the term is in the row's own text
 * (content, not the neighbours' context): the evidence floor's lexical
 * rule asks which query terms a pooled memory holds itself
 * (postings_own), found by a search of each term's list for the memory's
 * row (P_SNAP_DOC: a snapshot index's row) instead of reading its text
 * again.
 *
 * The postings are one blob (postings_build) that the snapshot file keeps
 * in two sections (snapfile.c): the tables, checksummed with the file, and
 * the lists, each checked against its hash (list_sum) when a query first
 * reads it, so that opening the file does not read them all; the process
 * that checks a file whole before it is sealed checks every list too
 * (postings_lists_ok), and the processes after it open the postings as
 * found sound (postings_open_sound: no table or list read until a query
 * needs it). postings_open reads the blob where it lies. */
#include "engine_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define POST_MAGIC 0x32545350u /* "PST2" */
#define POST_BLOCK 128
#define POST_SLACK (1.0 + 1e-9)
#define POST_LISTS_ALIGN 64
/* as store/bm25.c */
#define BM25_K1 1.2
#define BM25_B 0.75

enum post_arr {
    P_DOC_SNAP,  /* int32[n_docs]: snapshot index of the row, -1 in another profile */
    P_DOC_K,     /* double[n_docs]: BM25_K1 * (1 - b + b * length / avgdl) */
    P_TEXT_OFF,  /* uint32[n_terms + 1]: where each term's text starts */
    P_TEXT,      /* char[text_len]: the terms, NUL-terminated, ascending (strcmp) */
    P_TERM_POST, /* uint64[n_terms + 1]: each term's first posting */
    P_TERM_BLK,  /* uint64[n_terms + 1]: each term's first block */
    P_TERM_IDF,  /* double[n_terms] */
    P_TERM_MAX,  /* double[n_terms]: the largest score the term gives a row */
    P_TERM_SUM,  /* uint64[n_terms]: a hash of the term's postings (list_sum) */
    P_BLK_LAST,  /* uint32[n_blocks]: the last row of each block */
    P_BLK_MAX,   /* double[n_blocks]: the largest score in each block */
    /* the lists, from a multiple of POST_LISTS_ALIGN: checked term by term */
    P_POST_DOC, /* uint32[n_post]: row numbers (rid order, every profile) */
    P_POST_F2,  /* uint16[n_post]: 2 * count in content + count in context */
    P_POST_OWN, /* uint8[(n_post + 7) / 8]: bit i, posting i's term is in its row's content */
    P_SNAP_DOC, /* uint32[n_snap]: the row of each snapshot index (checked on use) */
    P_COUNT
};

typedef struct post_head {
    uint32_t magic, block;
    uint64_t n_docs, n_terms, n_post, n_blocks, text_len, n_snap;
    int64_t n_row, n_token; /* FTS5's averages record */
    double avgdl;
    uint64_t off[P_COUNT], len[P_COUNT]; /* bytes from the blob's start */
} post_head;

struct postings {
    const post_head *h;
    const int32_t *doc_snap;
    const double *doc_k;
    const uint32_t *text_off;
    const char *text;
    const uint64_t *term_post, *term_blk;
    const double *term_idf, *term_max;
    const uint64_t *term_sum;
    uint8_t *checked; /* [n_terms] 0 not yet, 1 its postings add up, 2 they do not */
    int sound;        /* found sound before (postings_open_sound): checked is not used */
    const uint32_t *post_doc;
    const uint16_t *post_f2;
    const uint8_t *post_own;
    const uint32_t *snap_doc;
    const uint32_t *blk_last;
    const double *blk_max;
};

/* A term's score in a row: ms_bm25's expression, term by term. */
static double term_score(double idf, unsigned f2, double k)
{
    double f = (double)f2 * 0.5;
    return idf * ((f * (BM25_K1 + 1.0)) / (f + k));
}

/* Bit i of the bits own. */
static unsigned own_bit(const uint8_t *own, uint64_t i)
{
    return own[i >> 3] >> (i & 7) & 1u;
}

/* A hash of the n postings from a: their rows, counts and own bits. */
static uint64_t list_sum(const uint32_t *doc, const uint16_t *f2, const uint8_t *own, uint64_t a,
                         uint64_t n)
{
    uint64_t h = 0xcbf29ce484222325ull ^ n;
    for (uint64_t i = a; i < a + n; i++)
        h = (h ^ ((uint64_t)doc[i] << 17 | (uint64_t)own_bit(own, i) << 16 | f2[i])) *
            0x100000001b3ull;
    return h ^ (h >> 29);
}

/* ---- building ------------------------------------------------------------ */

typedef struct vocab {
    char **key;   /* [cap] NULL = empty */
    uint32_t *id; /* [cap] */
    size_t cap, n;
    uint64_t text_len;
} vocab;

static int vocab_grow(vocab *v)
{
    size_t cap = v->cap ? 2 * v->cap : 4096;
    char **key = calloc(cap, sizeof *key);
    uint32_t *id = malloc(cap * sizeof *id);
    if (!key || !id) {
        free(key);
        free(id);
        return -1;
    }
    for (size_t i = 0; i < v->cap; i++) {
        if (!v->key[i])
            continue;
        size_t j = embed_fnv1a(v->key[i], strlen(v->key[i])) & (cap - 1);
        while (key[j])
            j = (j + 1) & (cap - 1);
        key[j] = v->key[i];
        id[j] = v->id[i];
    }
    free(v->key);
    free(v->id);
    v->key = key;
    v->id = id;
    v->cap = cap;
    return 0;
}

/* The id of tok[len], added when new; -1 when out of memory. */
static int64_t vocab_id(vocab *v, const char *tok, int len)
{
    if ((v->n + 1) * 2 > v->cap && vocab_grow(v))
        return -1;
    size_t j = embed_fnv1a(tok, (size_t)len) & (v->cap - 1);
    for (; v->key[j]; j = (j + 1) & (v->cap - 1))
        if (strncmp(v->key[j], tok, (size_t)len) == 0 && v->key[j][len] == '\0')
            return v->id[j];
    if (!(v->key[j] = malloc((size_t)len + 1)))
        return -1;
    memcpy(v->key[j], tok, (size_t)len);
    v->key[j][len] = '\0';
    v->text_len += (uint64_t)len + 1;
    v->id[j] = (uint32_t)v->n++;
    return v->id[j];
}

static void vocab_free(vocab *v)
{
    for (size_t i = 0; i < v->cap; i++)
        free(v->key[i]);
    free(v->key);
    free(v->id);
}

/* A term of a row and its weighted count, and where the term was last seen. */
typedef struct row_term {
    uint32_t tid;
    uint32_t f2 : 31, own : 1; /* own: seen in the row's content */
} row_term;
typedef struct term_seen {
    uint32_t stamp, slot; /* the row that last saw the term, its row_term there */
} term_seen;

/* Every row's terms, row after row, while the texts are read; the arrays
 * grow as snapshot.c's do (snap_grow). */
typedef struct build {
    store *s;
    const snapshot *sn;
    const int32_t *len; /* row lengths by rid (store_doclen_get) */
    int64_t len_base;
    size_t len_span;
    double avgdl;
    vocab v;
    snap_grow terms;    /* row_term: each (row, term) */
    snap_grow row_off;  /* uint64_t [n_docs + 1]: each row's first (row, term) */
    snap_grow doc_snap; /* int32_t [n_docs] */
    snap_grow doc_k;    /* double [n_docs] */
    snap_grow seen;     /* term_seen, by term id */
    size_t n_docs;
    unsigned weight; /* of the column being read: 2 content, 1 context */
    int bad;         /* out of memory, an unknown length, a count too large */
} build;

/* Term t's place in the row being read: a new row_term the first time the
 * row names it. NULL when out of memory. */
static row_term *row_term_of(build *b, uint32_t t)
{
    if (t == b->seen.n) { /* ids come in order: t is new */
        term_seen *n = snap_grow_push(&b->seen);
        if (!n)
            return NULL;
        n->stamp = UINT32_MAX;
    }
    term_seen *ts = (term_seen *)b->seen.p + t;
    if (ts->stamp != b->n_docs) {
        row_term *r = snap_grow_push(&b->terms);
        if (!r)
            return NULL;
        *r = (row_term){t, 0, 0};
        ts->stamp = (uint32_t)b->n_docs;
        ts->slot = (uint32_t)(b->terms.n - 1);
    }
    return (row_term *)b->terms.p + ts->slot;
}

static int on_token(void *p, const char *tok, int len, int start, int end)
{
    build *b = p;
    (void)start;
    (void)end;
    int64_t t = vocab_id(&b->v, tok, len);
    row_term *r = t < 0 ? NULL : row_term_of(b, (uint32_t)t);
    if (!r) {
        b->bad = 1;
        return 1;
    }
    r->f2 += b->weight;
    r->own |= b->weight == 2;
    return 0;
}

/* A row's k for its length d: BM25_K1 * (1 - b + b * d / avgdl). */
static double doc_k_of(double d, double avgdl)
{
    return BM25_K1 * (1 - BM25_B + BM25_B * d / avgdl);
}

/* Room for row n_docs: its first (row, term), snapshot index and k. */
static int push_doc(build *b, int64_t rid, double d)
{
    uint64_t *off = snap_grow_push(&b->row_off);
    int32_t *snap = snap_grow_push(&b->doc_snap);
    double *k = snap_grow_push(&b->doc_k);
    if (!off || !snap || !k)
        return -1;
    *off = b->terms.n;
    *snap = (int32_t)snapshot_find(b->sn, rid);
    *k = doc_k_of(d, b->avgdl);
    return 0;
}

/* One row's terms: its text's at weight 2, its neighbours' at 1; a term
 * counted past 16 bits makes the build bad. Returns b->bad. */
static int row_terms(build *b, const char *content, int clen, const char *context, int xlen)
{
    size_t first = b->terms.n;
    b->weight = 2;
    if (store_tokenize_stored(b->s, content, clen, on_token, b, NULL) != MS_OK)
        b->bad = 1;
    b->weight = 1;
    if (!b->bad && store_tokenize_stored(b->s, context, xlen, on_token, b, NULL) != MS_OK)
        b->bad = 1;
    for (size_t i = first; i < b->terms.n; i++)
        if (((const row_term *)b->terms.p)[i].f2 > UINT16_MAX)
            b->bad = 1;
    b->n_docs++;
    return b->bad;
}

static int on_row(void *p, int64_t rid, const char *content, int clen, const char *context,
                  int xlen)
{
    build *b = p;
    if (rid < b->len_base || (uint64_t)(rid - b->len_base) >= b->len_span ||
        b->len[rid - b->len_base] < 0 || b->n_docs >= UINT32_MAX - 1 ||
        push_doc(b, rid, (double)b->len[rid - b->len_base])) {
        b->bad = 1;
        return 1;
    }
    return row_terms(b, content, clen, context, xlen);
}

static _Thread_local char *const *sort_keys;

static int by_text(const void *a, const void *b)
{
    return strcmp(sort_keys[*(const uint32_t *)a], sort_keys[*(const uint32_t *)b]);
}

/* The layout of a blob for these counts: each array 8-aligned. */
static uint64_t layout(post_head *h)
{
    uint64_t n = h->n_docs, t = h->n_terms, p = h->n_post, k = h->n_blocks;
    uint64_t len[P_COUNT] = {
        [P_DOC_SNAP] = n * 4,   [P_DOC_K] = n * 8,           [P_TEXT_OFF] = (t + 1) * 4,
        [P_TEXT] = h->text_len, [P_TERM_POST] = (t + 1) * 8, [P_TERM_BLK] = (t + 1) * 8,
        [P_TERM_IDF] = t * 8,   [P_TERM_MAX] = t * 8,        [P_TERM_SUM] = t * 8,
        [P_POST_DOC] = p * 4,   [P_POST_F2] = p * 2,         [P_BLK_LAST] = k * 4,
        [P_BLK_MAX] = k * 8,    [P_POST_OWN] = (p + 7) / 8,  [P_SNAP_DOC] = h->n_snap * 4,
    };
    uint64_t at = (sizeof *h + 7) / 8 * 8;
    for (int i = 0; i < P_COUNT; i++) {
        if (i == P_POST_DOC)
            at = (at + POST_LISTS_ALIGN - 1) / POST_LISTS_ALIGN * POST_LISTS_ALIGN;
        h->off[i] = at;
        h->len[i] = len[i];
        at += (len[i] + 7) / 8 * 8;
    }
    return at;
}

static void point(postings *p, const void *blob)
{
    const char *b = blob;
    const post_head *h = blob;
    p->h = h;
    p->doc_snap = (const int32_t *)(b + h->off[P_DOC_SNAP]);
    p->doc_k = (const double *)(b + h->off[P_DOC_K]);
    p->text_off = (const uint32_t *)(b + h->off[P_TEXT_OFF]);
    p->text = b + h->off[P_TEXT];
    p->term_post = (const uint64_t *)(b + h->off[P_TERM_POST]);
    p->term_blk = (const uint64_t *)(b + h->off[P_TERM_BLK]);
    p->term_idf = (const double *)(b + h->off[P_TERM_IDF]);
    p->term_max = (const double *)(b + h->off[P_TERM_MAX]);
    p->term_sum = (const uint64_t *)(b + h->off[P_TERM_SUM]);
    p->post_doc = (const uint32_t *)(b + h->off[P_POST_DOC]);
    p->post_f2 = (const uint16_t *)(b + h->off[P_POST_F2]);
    p->post_own = (const uint8_t *)(b + h->off[P_POST_OWN]);
    p->snap_doc = (const uint32_t *)(b + h->off[P_SNAP_DOC]);
    p->blk_last = (const uint32_t *)(b + h->off[P_BLK_LAST]);
    p->blk_max = (const double *)(b + h->off[P_BLK_MAX]);
}

/* The term table: texts ascending, counts, idf (as bm25_prepare). */
static void fill_terms(char *blob, const uint32_t *order, const uint64_t *df)
{
    post_head *h = (post_head *)blob;
    postings p;
    point(&p, blob);
    uint32_t *text_off = (uint32_t *)p.text_off;
    uint64_t *term_post = (uint64_t *)p.term_post, *term_blk = (uint64_t *)p.term_blk;
    double *idf = (double *)p.term_idf;
    char *text = (char *)p.text;
    uint64_t at = 0, post = 0, blk = 0;
    for (uint64_t r = 0; r < h->n_terms; r++) {
        size_t l = strlen(sort_keys[order[r]]) + 1;
        text_off[r] = (uint32_t)at;
        memcpy(text + at, sort_keys[order[r]], l);
        at += l;
        term_post[r] = post;
        term_blk[r] = blk;
        int64_t n_row = h->n_row, n_hit = (int64_t)df[r];
        double v = log((n_row - n_hit + 0.5) / (n_hit + 0.5));
        idf[r] = v <= 0.0 ? 1e-6 : v;
        post += df[r];
        blk += (df[r] + POST_BLOCK - 1) / POST_BLOCK;
    }
    text_off[h->n_terms] = (uint32_t)at;
    term_post[h->n_terms] = post;
    term_blk[h->n_terms] = blk;
}

static void finish_postings(char *blob);

/* Postings by term (rows ascending) with their own bits, each snapshot
 * index's row, then each block's last row and maximum. -1 when out of
 * memory. */
static int fill_postings(build *b, char *blob, const uint32_t *rank)
{
    post_head *h = (post_head *)blob;
    postings p;
    point(&p, blob);
    uint32_t *doc = (uint32_t *)p.post_doc;
    uint16_t *f2 = (uint16_t *)p.post_f2;
    uint8_t *own = (uint8_t *)p.post_own; /* zeroed */
    uint64_t *fill = malloc((h->n_terms + 1) * sizeof *fill);
    if (!fill)
        return -1;
    memcpy(fill, p.term_post, (h->n_terms + 1) * sizeof *fill);
    const row_term *rt = b->terms.p;
    const uint64_t *row_off = b->row_off.p;
    for (size_t d = 0; d < b->n_docs; d++)
        for (uint64_t i = row_off[d]; i < row_off[d + 1]; i++) {
            uint64_t at = fill[rank[rt[i].tid]]++;
            doc[at] = (uint32_t)d;
            f2[at] = (uint16_t)rt[i].f2;
            own[at >> 3] |= (uint8_t)(rt[i].own << (at & 7));
        }
    free(fill);
    finish_postings(blob);
    return 0;
}

/* What the lists give: each snapshot index's row, each term's hash, each
 * block's last row and maximum, each term's maximum. */
static void finish_postings(char *blob)
{
    post_head *h = (post_head *)blob;
    postings p;
    point(&p, blob);
    const uint32_t *doc = p.post_doc;
    const uint16_t *f2 = p.post_f2;
    const uint8_t *own = p.post_own;
    uint32_t *snap_doc = (uint32_t *)p.snap_doc;
    const int32_t *doc_snap = p.doc_snap;
    for (uint64_t i = 0; i < h->n_snap; i++)
        snap_doc[i] = UINT32_MAX;
    for (size_t d = 0; d < h->n_docs; d++)
        if (doc_snap[d] >= 0 && (uint64_t)doc_snap[d] < h->n_snap)
            snap_doc[doc_snap[d]] = (uint32_t)d;
    uint64_t *sum = (uint64_t *)p.term_sum;
    for (uint64_t t = 0; t < h->n_terms; t++)
        sum[t] = list_sum(doc, f2, own, p.term_post[t], p.term_post[t + 1] - p.term_post[t]);
    uint32_t *last = (uint32_t *)p.blk_last;
    double *bmax = (double *)p.blk_max, *tmax = (double *)p.term_max;
    for (uint64_t t = 0; t < h->n_terms; t++) {
        tmax[t] = 0.0;
        for (uint64_t i = p.term_post[t], k = p.term_blk[t]; i < p.term_post[t + 1]; k++) {
            uint64_t end =
                i + POST_BLOCK < p.term_post[t + 1] ? i + POST_BLOCK : p.term_post[t + 1];
            double m = 0.0;
            for (; i < end; i++) {
                double c = term_score(p.term_idf[t], f2[i], p.doc_k[doc[i]]);
                m = c > m ? c : m;
            }
            last[k] = doc[end - 1];
            bmax[k] = m;
            tmax[t] = m > tmax[t] ? m : tmax[t];
        }
    }
}

/* The blob of what b read. */
static void *assemble(build *b, int64_t n_row, int64_t n_token, size_t *out_len)
{
    size_t nt = b->v.n;
    uint32_t *order = malloc((nt + 1) * sizeof *order), *rank = malloc((nt + 1) * sizeof *rank);
    char **keys = malloc((nt + 1) * sizeof *keys);
    uint64_t *df = calloc(nt + 1, sizeof *df);
    void *blob = NULL;
    if (order && rank && keys && df) {
        for (size_t j = 0; j < b->v.cap; j++)
            if (b->v.key[j])
                keys[b->v.id[j]] = b->v.key[j];
        for (size_t t = 0; t < nt; t++)
            order[t] = (uint32_t)t;
        sort_keys = keys;
        qsort(order, nt, sizeof *order, by_text);
        for (size_t r = 0; r < nt; r++)
            rank[order[r]] = (uint32_t)r;
        for (size_t i = 0; i < b->terms.n; i++)
            df[rank[((const row_term *)b->terms.p)[i].tid]]++;
        post_head h = {.magic = POST_MAGIC, .block = POST_BLOCK, .n_docs = b->n_docs};
        h.n_terms = nt;
        h.n_post = b->terms.n;
        for (size_t r = 0; r < nt; r++)
            h.n_blocks += (df[r] + POST_BLOCK - 1) / POST_BLOCK;
        h.text_len = b->v.text_len;
        h.n_snap = b->sn->n;
        h.n_row = n_row;
        h.n_token = n_token;
        h.avgdl = b->avgdl;
        *out_len = layout(&h);
        if ((blob = snap_big_alloc(*out_len, 1))) {
            memcpy(blob, &h, sizeof h);
            postings p;
            point(&p, blob);
            memcpy((void *)p.doc_snap, b->doc_snap.p, b->n_docs * 4);
            memcpy((void *)p.doc_k, b->doc_k.p, b->n_docs * 8);
            fill_terms(blob, order, df);
            if (fill_postings(b, blob, rank)) {
                free(blob);
                blob = NULL;
            }
        }
    }
    free(order);
    free(rank);
    free(keys);
    free(df);
    return blob;
}

static void build_free(build *b)
{
    vocab_free(&b->v);
    free(b->terms.p);
    free(b->row_off.p);
    free(b->doc_snap.p);
    free(b->doc_k.p);
    free(b->seen.p);
}

void *postings_build(store *s, const snapshot *sn, size_t *len, size_t *lists)
{
    int64_t n_row = 0, n_token = 0;
    build b = {.s = s,
               .sn = sn,
               .terms = {.size = sizeof(row_term)},
               .row_off = {.size = sizeof(uint64_t)},
               .doc_snap = {.size = sizeof(int32_t)},
               .doc_k = {.size = sizeof(double)},
               .seen = {.size = sizeof(term_seen)}};
    void *blob = NULL;
    if (store_fts_totals(s, &n_row, &n_token, NULL) || n_row <= 0 ||
        store_doclen_get(s, &b.len, &b.len_base, &b.len_span))
        return NULL;
    b.avgdl = (double)n_token / (double)n_row;
    uint64_t *end = NULL;
    if (store_scan_text(s, on_row, &b, NULL) == MS_OK && !b.bad && b.n_docs == (size_t)n_row &&
        b.v.n < UINT32_MAX && b.v.text_len < UINT32_MAX && (end = snap_grow_push(&b.row_off))) {
        *end = b.terms.n;
        blob = assemble(&b, n_row, n_token, len);
    }
    if (blob)
        *lists = (size_t)((const post_head *)blob)->off[P_POST_DOC];
    build_free(&b);
    return blob;
}

/* ---- extending ------------------------------------------------------------ */

/* The rows an extension reads again (the old ones whose length changed) and
 * the rows past the old postings' last, tokenized as postings_build does;
 * every other row's postings are copied from the old blob. */
typedef struct extend {
    build b; /* the rows read: b.n_docs of them, their terms in b.terms */
    const postings *old;
    int64_t *rid;    /* [n_docs] each row's rid now */
    size_t n_docs;   /* rows now */
    uint8_t *dirty;  /* [old n_docs] 1: the row is read again */
    int64_t *reread; /* [n_reread] their rids, ascending */
    size_t n_reread;
    snap_grow doc;      /* uint32_t: the row number of each row read */
    uint32_t *new_off;  /* [new terms + 1]: each new term's postings among the read rows' */
    uint32_t *new_doc;  /* the read rows' postings by new term (rows ascending) */
    row_term *new_post; /* and their counts and own bits (tid unused) */
    char **keys;        /* [new terms] the read rows' terms by id */
    uint32_t *order;    /* [new terms] their ids by text */
} extend;

/* The rows as the index holds them now (rid[], by rid) against those the
 * old postings were made from (old_len by rid from old_base): the old ones
 * must be the first, in order; those whose length changed are read again.
 * -1 when they do not match. */
static int ext_rows(extend *x, const int32_t *old_len, int64_t old_base, size_t old_span)
{
    const build *b = &x->b;
    size_t n0 = x->old->h->n_docs, n = 0, k = 0;
    for (size_t i = 0; i < b->len_span; i++)
        n += b->len[i] >= 0;
    x->rid = malloc((n + 1) * sizeof *x->rid);
    x->dirty = calloc(n0 + 1, 1);
    x->reread = malloc((n0 + 1) * sizeof *x->reread);
    if (!x->rid || !x->dirty || !x->reread || n < n0)
        return -1;
    for (size_t i = 0; i < b->len_span; i++)
        if (b->len[i] >= 0)
            x->rid[x->n_docs++] = b->len_base + (int64_t)i;
    for (size_t i = 0; i < old_span; i++) {
        if (old_len[i] < 0)
            continue;
        int64_t rid = old_base + (int64_t)i;
        if (k >= n0 || x->rid[k] != rid)
            return -1; /* not the rows the old postings hold */
        if (old_len[i] != b->len[rid - b->len_base]) {
            x->dirty[k] = 1;
            x->reread[x->n_reread++] = rid;
        }
        k++;
    }
    return k == n0 ? 0 : -1;
}

/* The row number of rid now, or -1. */
static long ext_doc(const extend *x, int64_t rid)
{
    size_t lo = 0, hi = x->n_docs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->rid[mid] < rid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < x->n_docs && x->rid[lo] == rid ? (long)lo : -1;
}

static int ext_row(void *p, int64_t rid, const char *content, int clen, const char *context,
                   int xlen)
{
    extend *x = p;
    build *b = &x->b;
    long d = ext_doc(x, rid);
    uint64_t *off = d < 0 ? NULL : snap_grow_push(&b->row_off);
    uint32_t *doc = off ? snap_grow_push(&x->doc) : NULL;
    if (!doc || b->n_docs >= UINT32_MAX - 1) {
        b->bad = 1;
        return 1;
    }
    *off = b->terms.n;
    *doc = (uint32_t)d;
    return row_terms(b, content, clen, context, xlen);
}

/* The read rows' postings by term (each term's rows ascending, as they
 * were read) and the terms by text. */
static int ext_lists(extend *x)
{
    build *b = &x->b;
    size_t nt = b->v.n, np = b->terms.n;
    const row_term *rt = b->terms.p;
    const uint64_t *row_off = b->row_off.p;
    const uint32_t *doc = x->doc.p;
    x->new_off = calloc(nt + 2, sizeof *x->new_off);
    x->new_doc = snap_big_alloc((np + 1) * sizeof *x->new_doc, 0);
    x->new_post = snap_big_alloc((np + 1) * sizeof *x->new_post, 0);
    x->keys = malloc((nt + 1) * sizeof *x->keys);
    x->order = malloc((nt + 1) * sizeof *x->order);
    uint32_t *fill = calloc(nt + 1, sizeof *fill);
    int ok = x->new_off && x->new_doc && x->new_post && x->keys && x->order && fill;
    for (size_t i = 0; ok && i < np; i++)
        x->new_off[rt[i].tid + 1]++;
    for (size_t t = 0; ok && t < nt; t++) {
        x->new_off[t + 1] += x->new_off[t];
        fill[t] = x->new_off[t];
        x->order[t] = (uint32_t)t;
    }
    for (size_t r = 0; ok && r < b->n_docs; r++)
        for (uint64_t i = row_off[r]; i < row_off[r + 1]; i++) {
            uint32_t at = fill[rt[i].tid]++;
            x->new_doc[at] = doc[r];
            x->new_post[at] = rt[i];
        }
    for (size_t j = 0; ok && j < b->v.cap; j++)
        if (b->v.key[j])
            x->keys[b->v.id[j]] = b->v.key[j];
    if (ok) {
        sort_keys = x->keys;
        qsort(x->order, nt, sizeof *x->order, by_text);
    }
    free(fill);
    return ok ? 0 : -1;
}

/* Old term t's postings that stay (their rows are not read again); -1 when
 * its list does not match its hash. */
static int64_t ext_kept(const extend *x, uint64_t t)
{
    const postings *o = x->old;
    uint64_t a = o->term_post[t], e = o->term_post[t + 1];
    if (list_sum(o->post_doc, o->post_f2, o->post_own, a, e - a) != o->term_sum[t])
        return -1;
    int64_t n = 0;
    for (uint64_t i = a; i < e; i++) {
        if (o->post_doc[i] >= o->h->n_docs)
            return -1;
        n += !x->dirty[o->post_doc[i]];
    }
    return n;
}

/* One term of the merged vocabulary: its old index and new id (-1: none). */
typedef struct ext_term {
    const char *text;
    int64_t old, new;
    uint64_t df;
} ext_term;

/* The old terms and the read rows' terms, merged by text, with their
 * counts; terms left with no posting are dropped. *n their number. */
static ext_term *ext_terms(const extend *x, size_t *n)
{
    const postings *o = x->old;
    uint64_t n_old = o->h->n_terms, a = 0, b = 0, n_new = x->b.v.n;
    ext_term *t = malloc((n_old + n_new + 1) * sizeof *t);
    *n = 0;
    while (t && (a < n_old || b < n_new)) {
        const char *ta = a < n_old ? o->text + o->text_off[a] : NULL;
        const char *tb = b < n_new ? x->keys[x->order[b]] : NULL;
        int c = !ta ? 1 : !tb ? -1 : strcmp(ta, tb);
        ext_term e = {c <= 0 ? ta : tb, c <= 0 ? (int64_t)a : -1,
                      c >= 0 ? (int64_t)x->order[b] : -1, 0};
        a += c <= 0;
        b += c >= 0;
        int64_t kept = e.old >= 0 ? ext_kept(x, (uint64_t)e.old) : 0;
        if (kept < 0) {
            free(t);
            return NULL;
        }
        e.df = (uint64_t)kept + (e.new >= 0 ? x->new_off[e.new + 1] - x->new_off[e.new] : 0);
        if (e.df)
            t[(*n)++] = e;
    }
    return t;
}

/* Term r's postings: its old ones that stay and the read rows', by row. */
static void ext_fill_term(const extend *x, const ext_term *e, postings *p, uint64_t r)
{
    const postings *o = x->old;
    uint32_t *doc = (uint32_t *)p->post_doc;
    uint16_t *f2 = (uint16_t *)p->post_f2;
    uint8_t *own = (uint8_t *)p->post_own;
    uint64_t at = p->term_post[r], i = 0, ie = 0, j = 0, je = 0;
    if (e->old >= 0) {
        i = o->term_post[e->old];
        ie = o->term_post[e->old + 1];
    }
    if (e->new >= 0) {
        j = x->new_off[e->new];
        je = x->new_off[e->new + 1];
    }
    for (;;) {
        while (i < ie && x->dirty[o->post_doc[i]])
            i++; /* read again: its new postings replace these */
        if (i >= ie && j >= je)
            return;
        unsigned bit;
        if (j >= je || (i < ie && o->post_doc[i] < x->new_doc[j])) {
            doc[at] = o->post_doc[i];
            f2[at] = o->post_f2[i];
            bit = own_bit(o->post_own, i++);
        } else {
            doc[at] = x->new_doc[j];
            f2[at] = (uint16_t)x->new_post[j].f2;
            bit = x->new_post[j++].own;
        }
        own[at >> 3] |= (uint8_t)(bit << (at & 7));
        at++;
    }
}

/* The blob of the merged terms: postings_build's layout and arithmetic. */
static void *ext_assemble(extend *x, const ext_term *t, size_t nt, int64_t n_row, int64_t n_token,
                          size_t *out_len)
{
    const build *b = &x->b;
    post_head h = {.magic = POST_MAGIC, .block = POST_BLOCK, .n_docs = x->n_docs};
    h.n_terms = nt;
    for (size_t r = 0; r < nt; r++) {
        h.n_post += t[r].df;
        h.n_blocks += (t[r].df + POST_BLOCK - 1) / POST_BLOCK;
        h.text_len += strlen(t[r].text) + 1;
    }
    h.n_snap = b->sn->n;
    h.n_row = n_row;
    h.n_token = n_token;
    h.avgdl = b->avgdl;
    if (nt >= UINT32_MAX || h.text_len >= UINT32_MAX)
        return NULL;
    *out_len = layout(&h);
    char *blob = snap_big_alloc(*out_len, 1);
    char **keys = malloc((nt + 1) * sizeof *keys);
    uint32_t *order = calloc(nt + 1, sizeof *order);
    uint64_t *df = calloc(nt + 1, sizeof *df);
    if (blob && keys && order && df) {
        memcpy(blob, &h, sizeof h);
        postings p;
        point(&p, blob);
        for (size_t d = 0; d < x->n_docs; d++) {
            int64_t rid = x->rid[d];
            ((int32_t *)p.doc_snap)[d] = (int32_t)snapshot_find(b->sn, rid);
            ((double *)p.doc_k)[d] = doc_k_of((double)b->len[rid - b->len_base], b->avgdl);
        }
        for (size_t r = 0; r < nt; r++) {
            keys[r] = (char *)t[r].text;
            order[r] = (uint32_t)r;
            df[r] = t[r].df;
        }
        sort_keys = keys;
        fill_terms(blob, order, df);
        for (size_t r = 0; r < nt; r++)
            ext_fill_term(x, &t[r], &p, r);
        finish_postings(blob);
    } else {
        free(blob);
        blob = NULL;
    }
    free(keys);
    free(order);
    free(df);
    return blob;
}

static void ext_free(extend *x)
{
    build_free(&x->b);
    free(x->rid);
    free(x->dirty);
    free(x->reread);
    free(x->doc.p);
    free(x->new_off);
    free(x->new_doc);
    free(x->new_post);
    free(x->keys);
    free(x->order);
}

void *postings_extend(store *s, const snapshot *sn, const postings *old, const int32_t *old_len,
                      int64_t old_base, size_t old_span, size_t *len, size_t *lists)
{
    int64_t n_row = 0, n_token = 0;
    extend x = {.b = {.s = s,
                      .sn = sn,
                      .terms = {.size = sizeof(row_term)},
                      .row_off = {.size = sizeof(uint64_t)},
                      .seen = {.size = sizeof(term_seen)}},
                .old = old,
                .doc = {.size = sizeof(uint32_t)}};
    build *b = &x.b;
    void *blob = NULL;
    ext_term *t = NULL;
    size_t nt = 0;
    uint64_t *end = NULL;
    if (!old || !old_len || store_fts_totals(s, &n_row, &n_token, NULL) || n_row <= 0 ||
        store_doclen_get(s, &b->len, &b->len_base, &b->len_span))
        return NULL;
    b->avgdl = (double)n_token / (double)n_row;
    int ok = ext_rows(&x, old_len, old_base, old_span) == 0 && x.n_docs == (size_t)n_row &&
             x.n_docs < UINT32_MAX - 1;
    int64_t after = old->h->n_docs ? x.rid[old->h->n_docs - 1] : INT64_MIN;
    ok = ok && store_scan_text_some(s, x.reread, x.n_reread, after, ext_row, &x, NULL) == MS_OK &&
         !b->bad && b->n_docs == x.n_reread + (x.n_docs - old->h->n_docs) && b->v.n < UINT32_MAX &&
         (end = snap_grow_push(&b->row_off));
    if (ok) {
        *end = b->terms.n;
        ok = ext_lists(&x) == 0 && (t = ext_terms(&x, &nt));
    }
    if (ok)
        blob = ext_assemble(&x, t, nt, n_row, n_token, len);
    if (blob)
        *lists = (size_t)((const post_head *)blob)->off[P_POST_DOC];
    free(t);
    ext_free(&x);
    return blob;
}

/* ---- reading --------------------------------------------------------------- */

static int ascending64(const uint64_t *v, uint64_t n, uint64_t last)
{
    if (v[0] != 0 || v[n] != last)
        return 0;
    for (uint64_t i = 0; i < n; i++)
        if (v[i + 1] < v[i])
            return 0;
    return 1;
}

/* The term texts: NUL-terminated where the offsets say, strictly ascending. */
static int texts_ok(const postings *p)
{
    const post_head *h = p->h;
    if (p->text_off[0] != 0 || p->text_off[h->n_terms] != h->text_len)
        return 0;
    for (uint64_t t = 0; t < h->n_terms; t++) {
        uint32_t a = p->text_off[t], b = p->text_off[t + 1];
        if (b <= a || p->text[b - 1] != '\0' ||
            (t && strcmp(p->text + p->text_off[t - 1], p->text + a) >= 0))
            return 0;
    }
    return 1;
}

/* Each term's blocks are as many as its postings need. */
static int blocks_ok(const postings *p)
{
    const post_head *h = p->h;
    if (!ascending64(p->term_post, h->n_terms, h->n_post) ||
        !ascending64(p->term_blk, h->n_terms, h->n_blocks))
        return 0;
    for (uint64_t t = 0; t < h->n_terms; t++) {
        uint64_t df = p->term_post[t + 1] - p->term_post[t];
        if (p->term_blk[t + 1] - p->term_blk[t] != (df + POST_BLOCK - 1) / POST_BLOCK)
            return 0;
    }
    return 1;
}

/* postings_open, or with sound only the header checked. */
static postings *open_blob(const void *blob, size_t len, size_t n_snap, int64_t n_all, int sound)
{
    post_head h;
    if (!blob || len < sizeof h)
        return NULL;
    memcpy(&h, blob, sizeof h);
    post_head want = h;
    if (h.magic != POST_MAGIC || h.block != POST_BLOCK || h.n_docs >= UINT32_MAX || n_all < 0 ||
        h.n_docs != (uint64_t)n_all || h.n_snap != n_snap || h.n_terms >= UINT32_MAX ||
        h.text_len >= UINT32_MAX || h.n_post > len || h.n_blocks > len || h.n_docs > len ||
        h.n_terms > len || layout(&want) > len || memcmp(want.off, h.off, sizeof h.off) ||
        memcmp(want.len, h.len, sizeof h.len))
        return NULL;
    postings *p = calloc(1, sizeof *p);
    if (!p || !(p->checked = calloc(h.n_terms + 1, 1))) {
        free(p);
        return NULL;
    }
    point(p, blob);
    if ((p->sound = sound))
        return p;
    int ok = texts_ok(p) && blocks_ok(p);
    for (uint64_t d = 0; ok && d < h.n_docs; d++)
        ok = p->doc_snap[d] >= -1 && p->doc_snap[d] < (int64_t)n_snap;
    if (!ok) {
        postings_free(p);
        return NULL;
    }
    return p;
}

postings *postings_open(const void *blob, size_t len, size_t n_snap, int64_t n_all)
{
    return open_blob(blob, len, n_snap, n_all, 0);
}

postings *postings_open_sound(const void *blob, size_t len, size_t n_snap, int64_t n_all)
{
    return open_blob(blob, len, n_snap, n_all, 1);
}

static int term_sound(const postings *p, long t);

int postings_lists_ok(const postings *p)
{
    int ok = 1;
    for (uint64_t t = 0; t < p->h->n_terms; t++)
        ok &= term_sound(p, (long)t);
    return ok;
}

void postings_free(postings *p)
{
    if (p)
        free(p->checked);
    free(p);
}

/* Do term t's postings add up (checked the first time it is asked)? */
static int term_sound(const postings *p, long t)
{
    if (p->sound)
        return 1;
    if (!p->checked[t]) {
        uint64_t a = p->term_post[t], n = p->term_post[t + 1] - a;
        p->checked[t] =
            list_sum(p->post_doc, p->post_f2, p->post_own, a, n) == p->term_sum[t] ? 1 : 2;
    }
    return p->checked[t] == 1;
}

long postings_term(const postings *p, const char *tok)
{
    size_t lo = 0, hi = p->h->n_terms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(p->text + p->text_off[mid], tok);
        if (c == 0)
            return (long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* Does term t's list hold row d (*at: where it would be)? Its blocks'
 * last rows, then the block. */
static int term_holds(const postings *p, long t, uint32_t d, uint64_t *at)
{
    uint64_t lo = p->term_blk[t], hi = p->term_blk[t + 1];
    while (lo < hi) { /* the first block whose last row is >= d */
        uint64_t mid = lo + (hi - lo) / 2;
        if (p->blk_last[mid] < d)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == p->term_blk[t + 1])
        return 0;
    uint64_t a = p->term_post[t] + (lo - p->term_blk[t]) * POST_BLOCK;
    uint64_t b = a + POST_BLOCK < p->term_post[t + 1] ? a + POST_BLOCK : p->term_post[t + 1];
    while (a < b) {
        uint64_t mid = a + (b - a) / 2;
        if (p->post_doc[mid] < d)
            a = mid + 1;
        else
            b = mid;
    }
    *at = a;
    return a < p->term_post[t + 1] && p->post_doc[a] == d;
}

int postings_own(const postings *p, const char *const *tok, int n, uint32_t i, uint64_t *held)
{
    *held = 0;
    if (i >= p->h->n_snap)
        return 1;
    uint32_t d = p->snap_doc[i];
    if (d >= p->h->n_docs || p->doc_snap[d] != (int32_t)i)
        return 1; /* not the row the checked table gives it */
    uint64_t bits = 0;
    for (int k = 0; k < n && k < 64; k++) {
        long t = tok[k] ? postings_term(p, tok[k]) : -1;
        uint64_t at;
        if (t < 0)
            continue;
        if (!term_sound(p, t))
            return 1;
        if (term_holds(p, t, d, &at) && own_bit(p->post_own, at))
            bits |= 1ull << k;
    }
    *held = bits;
    return 0;
}

/* The own bits set among bits [a, b). */
static uint64_t own_count(const uint8_t *own, uint64_t a, uint64_t b)
{
    uint64_t n = 0;
    for (; a < b && (a & 63); a++)
        n += own_bit(own, a);
    for (; a + 64 <= b; a += 64) {
        uint64_t w;
        memcpy(&w, own + (a >> 3), sizeof w);
        n += (uint64_t)__builtin_popcountll(w);
    }
    for (; a < b; a++)
        n += own_bit(own, a);
    return n;
}

int postings_docs(const postings *p, const char *tok, int64_t *df)
{
    long t = postings_term(p, tok);
    *df = 0;
    if (t < 0)
        return 0;
    if (!term_sound(p, t))
        return 1;
    *df = (int64_t)own_count(p->post_own, p->term_post[t], p->term_post[t + 1]);
    return 0;
}

int postings_terms_holding(const postings *p, const char *const *sub, long **out, size_t *n_out)
{
    size_t n = 0, cap = 0;
    long *v = NULL;
    *out = NULL;
    *n_out = 0;
    for (uint64_t t = 0; t < p->h->n_terms; t++) {
        const char *text = p->text + p->text_off[t];
        int holds = 0;
        for (int k = 0; !holds && sub[k]; k++)
            holds = strstr(text, sub[k]) != NULL;
        if (!holds)
            continue;
        if (n == cap) {
            long *grown = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof *v);
            if (!grown) {
                free(v);
                return -1;
            }
            v = grown;
        }
        v[n++] = (long)t;
    }
    *out = v;
    *n_out = n;
    return 0;
}

int postings_own_any(const postings *p, const long *t, size_t n, uint32_t i)
{
    if (i >= p->h->n_snap)
        return -1;
    uint32_t d = p->snap_doc[i];
    if (d >= p->h->n_docs || p->doc_snap[d] != (int32_t)i)
        return -1; /* not the row the checked table gives it */
    for (size_t k = 0; k < n; k++) {
        uint64_t at;
        if (!term_sound(p, t[k]))
            return -1;
        if (term_holds(p, t[k], d, &at) && own_bit(p->post_own, at))
            return 1;
    }
    return 0;
}

/* ---- the search ------------------------------------------------------------ */

/* One phrase's walk along its term's postings. */
typedef struct cursor {
    uint64_t i, end;     /* the next posting, the end of the term's */
    uint64_t base, blk0; /* the term's first posting and block */
    double idf, max;
    int phrase; /* its place in the query: scores add up in that order */
} cursor;

/* The k best so far: a heap with the worst on top. */
typedef struct topk {
    uint32_t *doc;
    double *score;
    size_t n, k;
} topk;

static int worse(const topk *t, size_t a, size_t b)
{
    return t->score[a] < t->score[b] || (t->score[a] == t->score[b] && t->doc[a] > t->doc[b]);
}

static void topk_swap(topk *t, size_t a, size_t b)
{
    uint32_t d = t->doc[a];
    double s = t->score[a];
    t->doc[a] = t->doc[b];
    t->score[a] = t->score[b];
    t->doc[b] = d;
    t->score[b] = s;
}

static void topk_down(topk *t, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < t->n && worse(t, l, m))
            m = l;
        if (r < t->n && worse(t, r, m))
            m = r;
        if (m == i)
            return;
        topk_swap(t, i, m);
        i = m;
    }
}

/* Add doc, which comes after every row held (rid order). */
static void topk_add(topk *t, uint32_t doc, double score)
{
    if (t->n < t->k) {
        size_t i = t->n++;
        t->doc[i] = doc;
        t->score[i] = score;
        while (i && worse(t, i, (i - 1) / 2)) {
            topk_swap(t, i, (i - 1) / 2);
            i = (i - 1) / 2;
        }
        return;
    }
    t->doc[0] = doc;
    t->score[0] = score;
    topk_down(t, 0);
}

/* The score a row must beat to get in: below every score until k are held. */
static double topk_bar(const topk *t)
{
    return t->n < t->k ? -1.0 : t->score[0];
}

/* The row at c, UINT32_MAX at the end or on a row out of range. */
static uint32_t cur_doc(const postings *p, const cursor *c)
{
    if (c->i >= c->end)
        return UINT32_MAX;
    uint32_t d = p->post_doc[c->i];
    return d < p->h->n_docs ? d : UINT32_MAX;
}

/* Move c to the block that holds its first row >= target, skipping whole
 * blocks: that block's largest score, 0 when no row is left. */
static double cur_block(const postings *p, cursor *c, uint32_t target)
{
    if (c->i >= c->end)
        return 0.0;
    uint64_t b = c->blk0 + (c->i - c->base) / POST_BLOCK;
    uint64_t nb = c->blk0 + (c->end - c->base + POST_BLOCK - 1) / POST_BLOCK;
    while (b < nb && p->blk_last[b] < target)
        b++;
    if (b == nb) {
        c->i = c->end;
        return 0.0;
    }
    uint64_t from = c->base + (b - c->blk0) * POST_BLOCK;
    if (from > c->i)
        c->i = from;
    return p->blk_max[b];
}

/* Move c to its first row >= target, skipping whole blocks. */
static void cur_seek(const postings *p, cursor *c, uint32_t target)
{
    if (c->i >= c->end || p->post_doc[c->i] >= target)
        return;
    uint64_t b = c->blk0 + (c->i - c->base) / POST_BLOCK;
    uint64_t nb = c->blk0 + (c->end - c->base + POST_BLOCK - 1) / POST_BLOCK;
    while (b < nb && p->blk_last[b] < target)
        b++;
    if (b == nb) {
        c->i = c->end;
        return;
    }
    uint64_t from = c->base + (b - c->blk0) * POST_BLOCK;
    if (from > c->i)
        c->i = from;
    while (c->i < c->end && p->post_doc[c->i] < target)
        c->i++;
}

static int by_max(const void *a, const void *b)
{
    const cursor *x = a, *y = b;
    if (x->max != y->max)
        return x->max < y->max ? -1 : 1;
    return x->phrase - y->phrase;
}

/* The search's state: the cursors by maximum, the bounds of their prefixes. */
typedef struct search {
    const postings *p;
    cursor c[QUERY_TERMS_MAX];
    double ub[QUERY_TERMS_MAX + 1]; /* ub[j]: bound of the sum of c[0..j) */
    int m, ne;                      /* cursors; the first ne are not walked */
    double part[QUERY_TERMS_MAX];   /* the row's score from each phrase */
    uint64_t has;                   /* phrases that hold the row */
    topk top;
    postings_stats *st;
} search;

/* The next row of the walked cursors, UINT32_MAX when none is left. */
static uint32_t next_row(const search *s)
{
    uint32_t cur = UINT32_MAX;
    for (int j = s->ne; j < s->m; j++) {
        uint32_t d = cur_doc(s->p, &s->c[j]);
        cur = d < cur ? d : cur;
    }
    return cur;
}

/* Add cursor j's score for row d when it holds it; what it added. */
static double take(search *s, int j, uint32_t d)
{
    cursor *c = &s->c[j];
    if (cur_doc(s->p, c) != d)
        return 0.0;
    double v = term_score(c->idf, s->p->post_f2[c->i], s->p->doc_k[d]);
    s->part[c->phrase] = v;
    s->has |= (uint64_t)1 << c->phrase;
    c->i++;
    return v;
}

/* Score row d: the walked cursors' part, then the others' from the
 * largest, while the bound can still beat the bar. */
static void score_row(search *s, uint32_t d)
{
    double sum = 0.0, bar = topk_bar(&s->top);
    s->has = 0;
    for (int j = s->ne; j < s->m; j++)
        sum += take(s, j, d);
    if (s->p->doc_snap[d] < 0)
        return; /* another profile's */
    for (int j = s->ne - 1; j >= 0; j--) {
        if (sum * POST_SLACK + s->ub[j + 1] <= bar)
            return;
        double block = cur_block(s->p, &s->c[j], d);
        if (sum * POST_SLACK + s->ub[j] + block * POST_SLACK <= bar)
            return;
        cur_seek(s->p, &s->c[j], d);
        sum += take(s, j, d);
    }
    double score = 0.0;
    for (int ph = 0; ph < QUERY_TERMS_MAX && s->has >> ph; ph++)
        if (s->has >> ph & 1)
            score += s->part[ph];
    s->st->scored++;
    if (score <= bar)
        return;
    topk_add(&s->top, d, score);
    bar = topk_bar(&s->top);
    while (s->ne < s->m && s->ub[s->ne + 1] <= bar)
        s->ne++;
}

/* The cursors of the phrases whose term the index holds, by maximum; -1
 * when a term's postings do not add up. */
static int search_init(search *s, const char *const *tok, int n)
{
    const postings *p = s->p;
    for (int ph = 0; ph < n && ph < QUERY_TERMS_MAX; ph++) {
        long t = tok[ph] ? postings_term(p, tok[ph]) : -1;
        if (t < 0)
            continue;
        if (!term_sound(p, t))
            return -1;
        cursor *c = &s->c[s->m++];
        c->i = c->base = p->term_post[t];
        c->end = p->term_post[t + 1];
        c->blk0 = p->term_blk[t];
        c->idf = p->term_idf[t];
        c->max = p->term_max[t];
        c->phrase = ph;
    }
    qsort(s->c, (size_t)s->m, sizeof *s->c, by_max);
    double sum = 0.0;
    s->ub[0] = 0.0;
    for (int j = 0; j < s->m; j++) {
        sum += s->c[j].max;
        s->ub[j + 1] = sum * POST_SLACK;
    }
    return 0;
}

int postings_search(const postings *p, const char *const *tok, int n, size_t k, ranked_list *out,
                    postings_stats *st)
{
    postings_stats none;
    search *s = calloc(1, sizeof *s);
    if (!st)
        st = &none;
    memset(st, 0, sizeof *st);
    if (!s)
        return -1;
    s->p = p;
    s->st = st;
    s->top.k = k;
    s->top.doc = malloc((k + 1) * sizeof *s->top.doc);
    s->top.score = malloc((k + 1) * sizeof *s->top.score);
    int rc = s->top.doc && s->top.score ? 0 : -1;
    if (!rc && k > 0 && search_init(s, tok, n))
        rc = 1;
    if (!rc && k > 0) {
        for (uint32_t d; (d = next_row(s)) != UINT32_MAX;) {
            st->rows++;
            score_row(s, d);
        }
    }
    for (size_t i = 0; !rc && i < s->top.n; i++)
        rc = ranked_push(out, (uint32_t)p->doc_snap[s->top.doc[i]], s->top.score[i]);
    free(s->top.doc);
    free(s->top.score);
    free(s);
    return rc;
}
