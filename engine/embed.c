/* embed.c - the embedder interface and the built-in hashed n-gram embedder.
 *
 * Built-in features (docs/ENGINE.md, measured in docs/QUALITY.md): the text
 * is cut into tokens (runs of ASCII letters and digits, and of letters of
 * the Latin, Greek, Cyrillic... CJK and Hangul blocks; only ASCII is
 * lower-cased); stop words carry no features. Each token t gives the
 * feature "w:t" and every byte 3-, 4- and 5-gram of "<t>". A feature's
 * 32-bit FNV-1a hash h picks dimension h mod 512 and, by bit 31, its sign,
 * so collisions cancel rather than pile up. Each distinct h adds
 * sign * (1 + ln tf) * weight, and the vector is L2-normalised.
 *
 * Stored vectors use weight 1. A query may weight each token by its idf in
 * the store (embed_hash_weighted), so rare words count for more without
 * making stored vectors depend on the rest of the store. */
#include "embed_int.h"
#include "store/base/utf8.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stopwords.h"

/* ---- hashed n-grams ---------------------------------------------------- */

#define HASH_FEATURES_MAX 8192 /* distinct features kept per text */
#define TOKEN_MAX 64           /* bytes; longer tokens are cut */

uint32_t embed_fnv1a(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

/* Is code point cp part of a token? */
static int token_cp(unsigned cp)
{
    if (cp < 0x80)
        return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
    return (cp >= 0xc0 && cp <= 0x24f && cp != 0xd7 && cp != 0xf7) ||
           (cp >= 0x370 && cp <= 0x1fff) || (cp >= 0x3040 && cp <= 0x9fff) ||
           (cp >= 0xac00 && cp <= 0xd7af);
}

/* The features of one text: distinct hashes with counts and weights. A
 * batch of texts reuses one table: only the slots a text used are cleared
 * after it (clearing all 160 KB for every text was most of an import's
 * embedding time). A query's table starts with QUERY_SLOTS slots and
 * doubles as it fills: zeroing all 64 KB of them touched 16 pages, twice
 * a query (a 100k recall process: 394 -> 379 page faults at the p50). The
 * features and their order are the same at any size, so the vector is
 * too. */
#define QUERY_SLOTS 512

typedef struct features {
    uint32_t h[HASH_FEATURES_MAX];
    uint32_t tf[HASH_FEATURES_MAX];
    float w[HASH_FEATURES_MAX];
    uint32_t pos[HASH_FEATURES_MAX];      /* the slot of each feature */
    uint32_t slot[2 * HASH_FEATURES_MAX]; /* open addressing: index + 1 */
    size_t mask;                          /* slots in use - 1 (a power of 2) */
    size_t n;
} features;

/* Where feature hash h goes in f's slots: its own slot or the empty one. */
static size_t feature_slot(const features *f, uint32_t h)
{
    size_t j = (h * 2654435761u) & f->mask;
    while (f->slot[j] && f->h[f->slot[j] - 1] != h)
        j = (j + 1) & f->mask;
    return j;
}

/* Twice the slots, the features placed again in their order. */
static void features_grow(features *f)
{
    f->mask = 2 * f->mask + 1;
    memset(f->slot, 0, (f->mask + 1) * sizeof *f->slot);
    for (size_t k = 0; k < f->n; k++) {
        size_t j = feature_slot(f, f->h[k]);
        f->pos[k] = (uint32_t)j;
        f->slot[j] = (uint32_t)(k + 1);
    }
}

/* Empty f again for the next text. */
static void features_reset(features *f)
{
    for (size_t k = 0; k < f->n; k++)
        f->slot[f->pos[k]] = 0;
    f->n = 0;
}

static void add_feature(features *f, const char *s, size_t n, float w)
{
    uint32_t h = embed_fnv1a(s, n);
    size_t j = feature_slot(f, h);
    if (f->slot[j]) {
        uint32_t k = f->slot[j] - 1;
        f->tf[k]++;
        if (w > f->w[k])
            f->w[k] = w;
        return;
    }
    if (f->n >= HASH_FEATURES_MAX)
        return;
    if (2 * (f->n + 1) > f->mask + 1) { /* at most half full */
        features_grow(f);
        j = feature_slot(f, h);
    }
    f->h[f->n] = h;
    f->tf[f->n] = 1;
    f->w[f->n] = w;
    f->pos[f->n] = (uint32_t)j;
    f->slot[j] = (uint32_t)++f->n;
}

/* "w:t" and the 3-5 byte n-grams of "<t>". */
static void token_features(features *f, const char *t, size_t n, float w)
{
    char buf[TOKEN_MAX + 4];
    buf[0] = 'w';
    buf[1] = ':';
    memcpy(buf + 2, t, n);
    add_feature(f, buf, n + 2, w);
    buf[0] = '<';
    memcpy(buf + 1, t, n);
    buf[n + 1] = '>';
    size_t pn = n + 2;
    for (size_t g = 3; g <= 5; g++)
        for (size_t i = 0; i + g <= pn; i++)
            add_feature(f, buf + i, g, w);
}

/* Call fn for every token of text that is not a stop word. */
static void each_token(const char *text, void (*fn)(void *ctx, const char *t, size_t n), void *ctx)
{
    const unsigned char *p = (const unsigned char *)text;
    size_t left = strlen(text);
    char tok[TOKEN_MAX];
    size_t n = 0;
    for (;;) {
        unsigned cp = 0;
        int len = utf8_next((const char *)p, left, &cp);
        if (len && token_cp(cp)) {
            for (int i = 0; i < len && n < TOKEN_MAX; i++) {
                unsigned char c = p[i];
                tok[n++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
            }
            p += len;
            left -= (size_t)len;
            continue;
        }
        if (n && !stopword_is(tok, n))
            fn(ctx, tok, n);
        n = 0;
        if (!len)
            break;
        p += len;
        left -= (size_t)len;
    }
}

struct embed_ctx {
    features *f;
    embed_weight_fn weight;
    void *wctx;
};

static void on_token(void *p, const char *t, size_t n)
{
    struct embed_ctx *c = p;
    float w = c->weight ? (float)c->weight(c->wctx, t, n) : 1.0f;
    token_features(c->f, t, n, w);
}

/* The vector of the features in f into v[dim], leaving f empty. */
static void features_vector(features *f, float *v, int dim)
{
    memset(v, 0, (size_t)dim * sizeof *v);
    for (size_t k = 0; k < f->n; k++) {
        /* most features occur once, and logf(1) is 0 exactly */
        float x = (1.0f + (f->tf[k] == 1 ? 0.0f : logf((float)f->tf[k]))) * f->w[k];
        v[f->h[k] % (uint32_t)dim] += (f->h[k] & 0x80000000u) ? -x : x;
    }
    features_reset(f);
    double norm = 0;
    for (int i = 0; i < dim; i++)
        norm += (double)v[i] * v[i];
    if (norm > 0) {
        float inv = (float)(1.0 / sqrt(norm));
        for (int i = 0; i < dim; i++)
            v[i] *= inv;
    }
}

/* The vector of text into v[dim], with the empty table f (left empty). */
static void embed_features(features *f, const char *text, float *v, int dim, embed_weight_fn weight,
                           void *ctx)
{
    struct embed_ctx c = {f, weight, ctx};
    each_token(text, on_token, &c);
    features_vector(f, v, dim);
}

int embed_hash_weighted(const char *text, float *v, int dim, embed_weight_fn weight, void *ctx)
{
    return embed_hash_with(text, NULL, 0, v, dim, weight, ctx);
}

int embed_hash_with(const char *text, const embed_word *extra, size_t n_extra, float *v, int dim,
                    embed_weight_fn weight, void *ctx)
{
    features *f = malloc(sizeof *f); /* a query's: only the slots in use need be empty */
    if (!f)
        return -1;
    f->mask = QUERY_SLOTS - 1;
    memset(f->slot, 0, QUERY_SLOTS * sizeof *f->slot);
    f->n = 0;
    struct embed_ctx c = {f, weight, ctx};
    each_token(text, on_token, &c);
    for (size_t k = 0; k < n_extra; k++) {
        size_t n = strlen(extra[k].word);
        token_features(f, extra[k].word, n < TOKEN_MAX ? n : TOKEN_MAX, (float)extra[k].weight);
    }
    features_vector(f, v, dim);
    free(f);
    return 0;
}

static ms_status hash_embed(embedder *e, const char *const *texts, size_t n, float *out,
                            ms_error *err)
{
    features *f = calloc(1, sizeof *f); /* one table for the batch, all its slots */
    if (!f)
        return ms_fail(err, MS_NOMEM, "out of memory computing vectors");
    f->mask = 2 * HASH_FEATURES_MAX - 1;
    for (size_t i = 0; i < n; i++)
        embed_features(f, texts[i], out + i * (size_t)e->dim, e->dim, NULL, NULL);
    free(f);
    return MS_OK;
}

static void hash_close(embedder *e)
{
    (void)e;
}

static const embedder_ops hash_ops = {"hash", hash_embed, hash_close};

/* ---- the interface ----------------------------------------------------- */

embedder *embed_open(const char *spec, ms_error *err)
{
    if (spec && strncmp(spec, "cmd:", 4) == 0)
        return embed_cmd_open(spec + 4, err);
    if (spec && strcmp(spec, "hash") != 0) {
        ms_fail(err, MS_USAGE, "unknown embedder '%s' (use hash or cmd:PROGRAM)", spec);
        return NULL;
    }
    embedder *e = calloc(1, sizeof *e);
    if (!e) {
        ms_fail(err, MS_NOMEM, "out of memory");
        return NULL;
    }
    e->ops = &hash_ops;
    e->dim = EMBED_HASH_DIM;
    e->batch = 256;
    snprintf(e->id, sizeof e->id, "hash-ngram-v2:%d", e->dim);
    return e;
}

void embed_close(embedder *e)
{
    if (!e)
        return;
    e->ops->close(e);
    free(e);
}

const char *embed_id(const embedder *e)
{
    return e->id;
}

int embed_dim(const embedder *e)
{
    return e->dim;
}

ms_status embed_texts(embedder *e, const char *const *texts, size_t n, float *out, ms_error *err)
{
    return e->ops->embed(e, texts, n, out, err);
}

ms_status embed_query(embedder *e, const char *text, embed_weight_fn weight, void *ctx, float *out,
                      ms_error *err)
{
    return embed_query_with(e, text, NULL, 0, weight, ctx, out, err);
}

ms_status embed_query_with(embedder *e, const char *text, const embed_word *extra, size_t n_extra,
                           embed_weight_fn weight, void *ctx, float *out, ms_error *err)
{
    if (e->ops != &hash_ops || !weight)
        return embed_texts(e, &text, 1, out, err);
    if (embed_hash_with(text, extra, n_extra, out, e->dim, weight, ctx))
        return ms_fail(err, MS_NOMEM, "out of memory");
    return MS_OK;
}

int embed_is_builtin(const embedder *e)
{
    return e && e->ops == &hash_ops;
}

static ms_status vectorize(void *ctx, const char *const *texts, size_t n, float *out, ms_error *err)
{
    return embed_texts(ctx, texts, n, out, err);
}

void embed_vectorizer(embedder *e, store_vectorizer *out)
{
    out->id = e->id;
    out->dim = e->dim;
    out->batch = e->batch;
    out->background = e->ops == &hash_ops; /* pure computation: any thread will do */
    out->embed = vectorize;
    out->ctx = e;
}
