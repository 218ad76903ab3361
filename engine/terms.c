/* terms.c - how many memories hold a term, asked of the store once per
 * snapshot.
 *
 * Query analysis needs the document count of every query term (its idf)
 * and of every query token (the query vector's weights). FTS5 counts them
 * by reading the term's whole doclist, which at 100,000 memories costs
 * milliseconds for a common word; typing in the browser asks for the same
 * words again and again. The counts live as long as the snapshot, which is
 * reloaded whenever the store changes, so they are always the store's.
 *
 * A snapshot with bm25's postings (a mapped snapshot file) counts them
 * itself: the own-text bits of the term's postings are the rows whose
 * content holds it, which is what FTS5's vocabulary counts, and reading
 * them costs a search of the term table and a count of bits, where FTS5
 * walked the term's doclist (at 1,000,000 memories most of a recall
 * process's instructions). */
#include "engine_int.h"

#include <stdlib.h>
#include <string.h>

struct term_cache {
    char **key;  /* [cap] terms, NULL = empty slot */
    int64_t *df; /* [cap] */
    size_t cap, n;
};

void term_cache_free(term_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->cap; i++)
        free(c->key[i]);
    free(c->key);
    free(c->df);
    free(c);
}

/* The slot of term: its own, or the empty one where it would go. */
static size_t term_slot(const term_cache *c, const char *term)
{
    size_t j = embed_fnv1a(term, strlen(term)) & (c->cap - 1);
    while (c->key[j] && strcmp(c->key[j], term) != 0)
        j = (j + 1) & (c->cap - 1);
    return j;
}

static int term_cache_grow(term_cache *c)
{
    term_cache g = {NULL, NULL, c->cap ? 2 * c->cap : 256, c->n};
    g.key = calloc(g.cap, sizeof *g.key);
    g.df = malloc(g.cap * sizeof *g.df);
    if (!g.key || !g.df) {
        free(g.key);
        free(g.df);
        return -1;
    }
    for (size_t i = 0; i < c->cap; i++) {
        if (!c->key[i])
            continue;
        size_t j = term_slot(&g, c->key[i]);
        g.key[j] = c->key[i];
        g.df[j] = c->df[i];
    }
    free(c->key);
    free(c->df);
    *c = g;
    return 0;
}

/* Remember df for term; a failure only means asking the store again. */
static void term_cache_put(term_cache *c, const char *term, int64_t df)
{
    if ((c->n + 1) * 2 > c->cap && term_cache_grow(c))
        return;
    size_t j = term_slot(c, term);
    if (c->key[j] || !(c->key[j] = strdup(term)))
        return;
    c->df[j] = df;
    c->n++;
}

ms_status snapshot_term_docs(const snapshot *sn, store *s, const char *term, int64_t *df,
                             ms_error *err)
{
    if (sn->post && postings_docs(sn->post, term, df) == 0)
        return MS_OK;
    snapshot_lazy *lz = sn->lazy;
    if (lz && !lz->terms)
        lz->terms = calloc(1, sizeof *lz->terms);
    term_cache *c = lz ? lz->terms : NULL;
    if (c && c->cap) {
        size_t j = term_slot(c, term);
        if (c->key[j]) {
            *df = c->df[j];
            return MS_OK;
        }
    }
    ms_status st = store_term_docs(s, term, df, err);
    if (!st && c)
        term_cache_put(c, term, *df);
    return st;
}
