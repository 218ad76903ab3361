/* floor.c - the evidence floor: does a memory hold real evidence for the
 * query?
 *
 * "Any word in common" is not evidence (measured on LoCoMo, that rule lets
 * 53 % of off-topic questions through). A memory passes when
 *   - coverage >= threshold: the idf-weighted share of the query's content
 *     terms (stop words removed, porter stems as FTS5 sees them) that occur
 *     in the memory, sum idf(t in m) / sum idf(t in q); or
 *   - cosine >= semantic threshold: the built-in embedder's similarity, the
 *     best single off-topic signal measured; or
 *   - it is pinned.
 * Defaults and their risk-coverage table are in docs/QUALITY.md. */
#include "engine_int.h"

#include <string.h>

struct cover_ctx {
    const query *q;
    uint64_t seen; /* bit t: term t occurs */
};

static int on_token(void *p, const char *tok, int len, int start, int end)
{
    struct cover_ctx *c = p;
    (void)start;
    (void)end;
    for (int t = 0; t < c->q->n_terms && t < 64; t++)
        if ((int)strlen(c->q->terms[t].text) == len &&
            memcmp(c->q->terms[t].text, tok, (size_t)len) == 0)
            c->seen |= 1ull << t;
    return 0;
}

double floor_coverage(store *s, const query *q, const char *text)
{
    if (q->n_terms == 0 || q->idf_sum <= 0 || !text)
        return 0;
    struct cover_ctx c = {q, 0};
    if (store_tokenize(s, text, (int)strlen(text), on_token, &c, NULL))
        return 0;
    double got = 0;
    for (int t = 0; t < q->n_terms && t < 64; t++)
        if (c.seen & (1ull << t))
            got += q->terms[t].idf;
    return got / q->idf_sum;
}
