/* embed.c - the embedder interface and the built-in hashed n-gram embedder.
 *
 * Built-in features of a text: each lower-cased word (letters and digits),
 * and each character 3-, 4- and 5-gram of the word padded with spaces
 * (" word "). A feature is hashed with 32-bit FNV-1a into one of 512
 * dimensions; bit 31 of a second hash gives its sign, so collisions cancel
 * rather than pile up. Words weigh 1, n-grams 1/3 each; counts are damped
 * with 1 + log(tf); the vector is L2-normalised. Words in a stop list carry
 * no features: they say nothing about topic. */
#include "embed_int.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stopwords.h"

/* ---- hashed n-grams ---------------------------------------------------- */

static uint32_t fnv1a(const char *s, size_t n, uint32_t h)
{
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

static void add_feature(float *v, int dim, const char *s, size_t n, float w)
{
    uint32_t h = fnv1a(s, n, 2166136261u);
    uint32_t sign = fnv1a(s, n, 0x9747b28cu);
    v[h % (uint32_t)dim] += (sign & 0x80000000u) ? -w : w;
}

/* Lower-case ASCII letters; other bytes (UTF-8 included) pass unchanged. */
static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

static int word_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c >= 0x80;
}

/* Features of one word w[0..n) (already lower-case). */
static void word_features(float *v, int dim, const char *w, size_t n)
{
    if (n == 0 || n > 64 || stopword_is(w, n))
        return;
    add_feature(v, dim, w, n, 1.0f);
    char padded[72];
    padded[0] = ' ';
    memcpy(padded + 1, w, n);
    padded[n + 1] = ' ';
    size_t pn = n + 2;
    for (size_t g = 3; g <= 5; g++)
        for (size_t i = 0; i + g <= pn; i++)
            add_feature(v, dim, padded + i, g, 1.0f / 3.0f);
}

void embed_hash_text(const char *text, float *v, int dim)
{
    memset(v, 0, (size_t)dim * sizeof *v);
    char word[65];
    size_t n = 0;
    for (const char *p = text;; p++) {
        unsigned char c = (unsigned char)*p;
        if (c && (word_byte(c) || (c == '\'' && n > 0 && word_byte((unsigned char)p[1])))) {
            if (c != '\'' && n < sizeof word - 1)
                word[n++] = lower((char)c);
            continue;
        }
        word_features(v, dim, word, n);
        n = 0;
        if (!c)
            break;
    }
    /* damp: sign(x) * (1 + log|x|) for |x| >= 1 */
    double norm = 0;
    for (int i = 0; i < dim; i++) {
        float a = fabsf(v[i]);
        if (a > 1.0f)
            v[i] = (v[i] > 0 ? 1.0f : -1.0f) * (1.0f + logf(a));
        norm += (double)v[i] * v[i];
    }
    if (norm > 0) {
        float inv = (float)(1.0 / sqrt(norm));
        for (int i = 0; i < dim; i++)
            v[i] *= inv;
    }
}

static ms_status hash_embed(embedder *e, const char *const *texts, size_t n, float *out,
                            ms_error *err)
{
    (void)err;
    for (size_t i = 0; i < n; i++)
        embed_hash_text(texts[i], out + i * (size_t)e->dim, e->dim);
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
    snprintf(e->id, sizeof e->id, "hash-ngram-v1:%d", e->dim);
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

ms_status embed_texts(embedder *e, const char *const *texts, size_t n, float *out,
                      ms_error *err)
{
    return e->ops->embed(e, texts, n, out, err);
}

static ms_status vectorize(void *ctx, const char *const *texts, size_t n, float *out,
                           ms_error *err)
{
    return embed_texts(ctx, texts, n, out, err);
}

void embed_vectorizer(embedder *e, store_vectorizer *out)
{
    out->id = e->id;
    out->dim = e->dim;
    out->batch = e->batch;
    out->embed = vectorize;
    out->ctx = e;
}
