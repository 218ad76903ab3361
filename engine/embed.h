/* embed.h - embedders: text in, unit vector out.
 *
 * Behind one ops table: the built-in hashed n-gram embedder (no model file,
 * no download; the default) and external programs (`cmd:PROGRAM`, JSON lines
 * over stdin/stdout, see docs/EMBEDDERS.md). The store records which embedder
 * made its vectors; the semantic channel is active only when the query side
 * uses the same one. */
#ifndef MS_EMBED_H
#define MS_EMBED_H

#include <stddef.h>
#include <stdint.h>

#include "store/base/status.h"
#include "store/store.h"

#define EMBED_HASH_DIM 512

typedef struct embedder embedder;

typedef struct embedder_ops {
    const char *kind; /* "hash", "cmd" */
    /* Embed n texts into out[n * dim], each of unit length (or all zeros for
     * a text with no features). */
    ms_status (*embed)(embedder *e, const char *const *texts, size_t n, float *out, ms_error *err);
    void (*close)(embedder *e);
} embedder_ops;

/* Open the embedder named by spec: NULL or "hash" for the built-in one,
 * "cmd:PROGRAM [ARGS]" for an external program. NULL with err on failure. */
embedder *embed_open(const char *spec, ms_error *err);

/* Close and free; NULL is fine. */
void embed_close(embedder *e);

/* Identity recorded in the store, e.g. "hash-ngram-v2:512". Valid while e is. */
const char *embed_id(const embedder *e);
int embed_dim(const embedder *e);

/* Embed n texts into out[n * dim]. */
ms_status embed_texts(embedder *e, const char *const *texts, size_t n, float *out, ms_error *err);

/* A token's weight (its idf, say) for a query vector; t is lower-case. */
typedef double (*embed_weight_fn)(void *ctx, const char *t, size_t n);

/* The built-in embedder with each token's features scaled by weight(t).
 * -1 when out of memory. */
int embed_hash_weighted(const char *text, float *v, int dim, embed_weight_fn weight, void *ctx);

/* A word added to a text's features with its own weight. */
typedef struct embed_word {
    const char *word; /* lower case, one token */
    double weight;
} embed_word;

/* The built-in embedder of text (tokens weighted by weight(t), or 1) with
 * the features of each extra word at that word's weight, into v[dim].
 * -1 when out of memory. */
int embed_hash_with(const char *text, const embed_word *extra, size_t n_extra, float *v, int dim,
                    embed_weight_fn weight, void *ctx);

/* A query's vector: the built-in embedder weights tokens with weight (when
 * given); an external one embeds the text as it is. */
ms_status embed_query(embedder *e, const char *text, embed_weight_fn weight, void *ctx, float *out,
                      ms_error *err);

/* embed_query with the extra words' features added, for the built-in
 * embedder; an external one embeds the text as it is and ignores them. */
ms_status embed_query_with(embedder *e, const char *text, const embed_word *extra, size_t n_extra,
                           embed_weight_fn weight, void *ctx, float *out, ms_error *err);

/* Is e the built-in hashed n-gram embedder? */
int embed_is_builtin(const embedder *e);

/* 32-bit FNV-1a of data[0..n). */
uint32_t embed_fnv1a(const void *data, size_t n);

/* A store_vectorizer that calls e (e must outlive its use by the store). */
void embed_vectorizer(embedder *e, store_vectorizer *out);

#endif
