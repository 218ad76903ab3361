/* ch_bm25.c - lexical channel: SQLite FTS5 bm25() over memory content.
 *
 * When the snapshot came from its file with bm25's postings in it, the
 * channel ranks over them with top-k pruning (postings.c): the same rows
 * and scores as FTS5, without scoring every row that matches. A term whose
 * written form is not one token (FTS5 would match it as a phrase) sends
 * the query to FTS5, as does a snapshot without postings.
 *
 * Every query term is double-quoted (a quote inside is doubled) and the terms
 * are OR-ed, so no query text can inject FTS5 syntax (NEAR, column filters,
 * AND/OR/NOT, prefixes, ^) or make the MATCH fail. Stop words are removed
 * first (query.c). raw = -bm25(), larger is better. */
#include "engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Append the quoted word to buf. */
static void put_quoted(char *buf, size_t cap, size_t *n, const char *w)
{
    if (*n + 4 >= cap)
        return;
    buf[(*n)++] = '"';
    for (; *w && *n + 3 < cap; w++) {
        if (*w == '"')
            buf[(*n)++] = '"';
        buf[(*n)++] = *w;
    }
    buf[(*n)++] = '"';
    buf[*n] = '\0';
}

char *bm25_match(const query *q)
{
    size_t cap = 16 + (size_t)q->n_terms * (2 * sizeof q->terms[0].surface + 8);
    char *m = malloc(cap);
    if (!m)
        return NULL;
    size_t n = 0;
    m[0] = '\0';
    for (int i = 0; i < q->n_terms; i++) {
        if (i) {
            memcpy(m + n, " OR ", 4);
            n += 4;
            m[n] = '\0';
        }
        put_quoted(m, cap, &n, q->terms[i].surface);
    }
    return m;
}

struct hits {
    const snapshot *sn;
    ranked_list *out;
    int oom;
};

static int on_hit(void *p, int64_t rid, double score)
{
    struct hits *h = p;
    long i = snapshot_find(h->sn, rid);
    if (i >= 0 && ranked_push(h->out, (uint32_t)i, score)) {
        h->oom = 1;
        return 1;
    }
    return 0;
}

/* The one token of the term's written form, as FTS5 reads the quoted
 * phrase; tok[0] stays '\0' when it is not exactly one. */
struct one_token {
    char tok[sizeof((query_term *)0)->text];
    int n;
};

static int take_token(void *p, const char *tok, int len, int start, int end)
{
    struct one_token *o = p;
    (void)start;
    (void)end;
    if (o->n++ == 0 && len > 0 && len < (int)sizeof o->tok) {
        memcpy(o->tok, tok, (size_t)len);
        o->tok[len] = '\0';
    } else {
        o->tok[0] = '\0';
    }
    return o->n > 1;
}

/* The query over the snapshot's postings: 1 when done (or failed: st),
 * 0 when the postings cannot answer it and FTS5 must. */
static int from_postings(const channel_ctx *c, ranked_list *out, ms_status *st, ms_error *err)
{
    const query *q = c->q;
    struct one_token t[QUERY_TERMS_MAX];
    const char *tok[QUERY_TERMS_MAX];
    if (!c->sn->post)
        return 0;
    for (int i = 0; i < q->n_terms; i++) {
        t[i].tok[0] = '\0';
        t[i].n = 0;
        const char *w = q->terms[i].surface;
        if (store_tokenize(c->s, w, (int)strlen(w), take_token, &t[i], NULL) || !t[i].tok[0])
            return 0;
        tok[i] = t[i].tok;
    }
    int rc = postings_search(c->sn->post, tok, q->n_terms, c->top_n, out, NULL);
    if (rc > 0)
        return 0; /* damaged postings: FTS5 answers */
    *st = rc ? ms_fail(err, MS_NOMEM, "out of memory") : MS_OK;
    return 1;
}

static const char *health(const snapshot *sn, embedder *emb)
{
    (void)emb;
    return sn->n == 0 ? "store_empty" : NULL;
}

/* bm25 over q's terms: the postings when they can answer, else FTS5. */
static ms_status search(const channel_ctx *c, const query *q, ranked_list *out, ms_error *err)
{
    ms_status st = MS_OK;
    channel_ctx cq = *c;
    cq.q = q;
    if (!from_postings(&cq, out, &st, err)) {
        char *match = bm25_match(q);
        if (!match)
            return ms_fail(err, MS_NOMEM, "out of memory");
        struct hits h = {c->sn, out, 0};
        st = store_fts(c->s, match, (int)c->top_n, on_hit, &h, err);
        free(match);
        if (!st && h.oom)
            st = ms_fail(err, MS_NOMEM, "out of memory");
    }
    if (!st)
        ranked_finish(out, c->sn, c->top_n);
    return st;
}

static ms_status produce(const channel_ctx *c, ranked_list *out, const char **note, ms_error *err)
{
    if (c->q->n_terms == 0) {
        *note = "no content words in the query";
        return MS_OK;
    }
    ms_status st = search(c, c->q, out, err);
    if (!st)
        st = firststage_extend(c, search, out, err);
    return st;
}

/* ---- the floor's lexical rule -------------------------------------------- */

/* The query's terms memory i holds in its own text, from the postings
 * (each posting says whether its term is in the row's content); 0 when
 * they cannot say. */
static int held_by_postings(const floor_ctx *c, uint32_t i, uint64_t *held)
{
    const query *q = c->q;
    const char *tok[QUERY_TERMS_MAX];
    if (!c->sn->post)
        return 0;
    for (int t = 0; t < q->n_terms; t++)
        tok[t] = q->terms[t].text;
    return postings_own(c->sn->post, tok, q->n_terms, i, held) == 0;
}

/* The query's terms the memory holds, as the index tokenises it, and their
 * idf-weighted share: from the postings when the snapshot has them, else
 * (a snapshot not from its file, a damaged list) from its text, the same
 * bits either way (postings-test). */
static void floor_measure(const floor_ctx *c, uint32_t i, recall_hit *h)
{
    if (!held_by_postings(c, i, &h->terms_held))
        h->terms_held = floor_terms_in(c->s, c->q, h->mem.content);
    h->coverage = floor_coverage(c->q, h->terms_held);
    h->pred_coverage = floor_predicate_coverage(c->q, h->terms_held);
}

/* lexical: the memory's predicate coverage reaches the lexical threshold;
 * context: it does with the terms of the pooled memories joined to it. */
static const char *floor_judge_lexical(const floor_in *in, char *why, size_t len)
{
    if (in->n_pred > 0 && in->pred_coverage >= in->lexical_min && floor_lexical_open(in)) {
        snprintf(why, len, "predicate coverage %.3f >= %.2f", in->pred_coverage, in->lexical_min);
        return "lexical";
    }
    if (in->n_pred > 0 && in->context_coverage >= in->lexical_min && floor_lexical_open(in)) {
        snprintf(why, len,
                 "predicate coverage with the memories joined to it %.3f >= %.2f (own %.3f)",
                 in->context_coverage, in->lexical_min, in->pred_coverage);
        return "context";
    }
    snprintf(why, len, "predicate coverage %.3f (with its neighbours %.3f)%s%.2f%s",
             in->pred_coverage, in->context_coverage,
             in->context_coverage >= in->lexical_min ? " >= " : " < ", in->lexical_min,
             floor_lexical_open(in)
                 ? ""
                 : " (names nothing the store knows, and a word it never holds)");
    return NULL;
}

static const char *const floor_names[] = {"lexical", "context", NULL};

static const floor_rule floor_evidence = {
    .ask = 1,
    .tell = 1,
    .needs_focus = 1,
    .names = floor_names,
    .measure = floor_measure,
    .judge = floor_judge_lexical,
};

const channel_ops ch_bm25_ops = {
    .name = "bm25",
    .short_name = "bm25",
    .stage = 1,
    .inputs = 0,
    .applies = NULL,
    .health = health,
    .produce = produce,
    .floor = &floor_evidence,
};
