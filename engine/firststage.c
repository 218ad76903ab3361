/* firststage.c - lists of the bm25 channel's first stage beyond its one
 * query (recall_opts.first_stage, `--first-stage`; docs/QUALITY.md,
 * "First-stage lists"), each off by default (the default is only `seeds`
 * for sets, below):
 *
 *   prf      pseudo-relevance feedback (RM3 by rank): the T terms that
 *            weigh most in bm25's top K memories (each term's share of a
 *            memory's words times the memory's share of the K scores,
 *            times the term's idf; the query's terms, stop words, numbers
 *            and terms only one memory holds left out), asked as a bm25
 *            query of their own;
 *   sessions candidates per session: bm25's list round by round, the best
 *            turn of every session in the order of those best turns, then
 *            every second best, ...;
 *   aspects  one bm25 query per predicate word (with the words of the
 *            speakers' names the query gives), so that one word's strong
 *            matches do not crowd out another's;
 *   kinds    the words WordNet files below the noun the query asks for
 *            (query.kind, as the floor's kind rule reads them) that the
 *            store holds, the rarest QUERY_TERMS_MAX, asked as a bm25 query
 *            of their own; only the named speakers' memories, at most P a
 *            session: "which cities has Ana visited" -> rome, paris;
 *   hops     the named speakers' turns that one predicate word's bm25 list
 *            holds, each by its best share of the top score of such a
 *            list (its best match to any one word asked about), at most P
 *            a session: the facts of a set are spread over sessions, each
 *            matching one aspect.
 *
 * Each list is fused into bm25's own by rank, w / (FS_K + rank) with bm25's
 * list at weight 1; the channel's list is that fusion (raw = the fused
 * score) and its account (channel_status.first_stage) names what was
 * added. The option's `seeds` acts in ch_spreading.c, with an account of
 * its own in the spreading channel (on by default for sets: engine.h
 * ENGINE_FIRST_STAGE_DEFAULT); `lists` keeps them
 * all to multi_hop and aggregation questions, `sets` to questions that ask
 * for a set (query.asks_set; firststage_applies). */
#include "engine_int.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stopwords.h"

#define FS_K 15.0
#define PRF_CAND_MAX 512
#define PRF_WORDS_MAX 256
#define PRF_DOCS_MAX 64

/* ---- the option ------------------------------------------------------------ */

/* n numbers separated by ':' from v into x[0..n), each in [lo, hi]. */
static int numbers(const char *v, int n, double *x, double lo, double hi)
{
    for (int i = 0; i < n; i++) {
        char *end;
        x[i] = strtod(v, &end);
        if (end == v || x[i] < lo || x[i] > hi || *end != (i + 1 < n ? ':' : '\0'))
            return -1;
        v = end + 1;
    }
    return 0;
}

static int whole(double x)
{
    return x == floor(x);
}

static int fs_item(const char *item, first_stage_opts *o)
{
    double x[3];
    if (strncmp(item, "prf=", 4) == 0) {
        if (numbers(item + 4, 3, x, 0, 64) || !whole(x[0]) || !whole(x[1]) || x[0] < 1 ||
            x[1] < 1 || x[1] > 32 || x[2] > 10)
            return -1;
        o->prf_docs = (int)x[0];
        o->prf_terms = (int)x[1];
        o->prf_weight = x[2];
    } else if (strncmp(item, "sessions=", 9) == 0) {
        if (numbers(item + 9, 1, x, 0, 10))
            return -1;
        o->sessions = x[0];
    } else if (strncmp(item, "aspects=", 8) == 0) {
        if (numbers(item + 8, 1, x, 0, 10))
            return -1;
        o->aspects = x[0];
    } else if (strncmp(item, "seeds=", 6) == 0) {
        if (numbers(item + 6, 2, x, 0, 200) || !whole(x[0]) || x[0] < 11 || x[1] > 10)
            return -1;
        o->seeds = (int)x[0];
        o->seed_scale = x[1];
    } else if (strncmp(item, "kinds=", 6) == 0) {
        x[1] = 0;
        if (numbers(item + 6, 2, x, 0, 50) && numbers(item + 6, 1, x, 0, 10))
            return -1;
        if (x[0] > 10 || !whole(x[1]))
            return -1;
        o->kinds = x[0];
        o->kinds_per_session = (int)x[1];
    } else if (strncmp(item, "hops=", 5) == 0) {
        x[1] = 0;
        if (numbers(item + 5, 2, x, 0, 50) && numbers(item + 5, 1, x, 0, 10))
            return -1;
        if (x[0] > 10 || !whole(x[1]))
            return -1;
        o->hops = x[0];
        o->hops_per_session = (int)x[1];
    } else if (strcmp(item, "lists") == 0) {
        o->lists_only = 1;
    } else if (strcmp(item, "sets") == 0) {
        o->sets_only = 1;
    } else {
        return -1;
    }
    return 0;
}

int engine_first_stage_parse(const char *spec, first_stage_opts *out)
{
    memset(out, 0, sizeof *out);
    char buf[256];
    if (!spec || !*spec || strlen(spec) >= sizeof buf)
        return -1;
    if (strcmp(spec, "none") == 0)
        return 0;
    memcpy(buf, spec, strlen(spec) + 1);
    for (char *item = buf, *next; item; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = '\0';
        if (fs_item(item, out))
            return -1;
    }
    return 0;
}

int firststage_applies(const first_stage_opts *o, const query *q)
{
    return (!o->lists_only || q->type == QT_MULTI_HOP || q->type == QT_AGGREGATION) &&
           (!o->sets_only || q->asks_set);
}

void firststage_account(const channel_ctx *c, const char *fmt, ...)
{
    if (!c->first_stage)
        return;
    size_t n = strlen(c->first_stage);
    if (n + 1 >= CHANNEL_FIRST_STAGE_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->first_stage + n, CHANNEL_FIRST_STAGE_MAX - n, fmt, ap);
    va_end(ap);
}

/* ---- pseudo-relevance feedback --------------------------------------------- */

typedef struct prf_cand {
    char tok[64];
    char surface[64];
    double w;
} prf_cand;

typedef struct prf_doc {
    const query *q;
    prf_cand *c;
    int n;
    char (*tok)[64]; /* this memory's tokens */
    char (*sur)[64];
    int nt, cap;
} prf_doc;

static int in_query(const query *q, const char *tok)
{
    for (int i = 0; i < q->n_terms; i++)
        if (strcmp(q->terms[i].text, tok) == 0)
            return 1;
    return 0;
}

static int all_digits(const char *s)
{
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return 0;
    return 1;
}

static prf_cand *cand_of(prf_doc *d, const char *tok, const char *surface)
{
    for (int i = 0; i < d->n; i++)
        if (strcmp(d->c[i].tok, tok) == 0)
            return &d->c[i];
    if (d->n >= PRF_CAND_MAX)
        return NULL;
    prf_cand *c = &d->c[d->n++];
    snprintf(c->tok, sizeof c->tok, "%s", tok);
    snprintf(c->surface, sizeof c->surface, "%s", surface);
    c->w = 0;
    return c;
}

struct word_ctx {
    prf_doc *d;
    const char *text;
};

static int take_surface(void *p, const char *tok, int len, int start, int end)
{
    struct word_ctx *w = p;
    prf_doc *d = w->d;
    int sn = end - start;
    if (len <= 2 || len >= 64 || sn <= 2 || sn >= 64 || d->nt >= d->cap)
        return 0;
    char surface[64];
    for (int i = 0; i < sn; i++)
        surface[i] = (char)tolower((unsigned char)w->text[start + i]);
    surface[sn] = '\0';
    if (stopword_is(surface, (size_t)sn))
        return 0;
    memcpy(d->tok[d->nt], tok, (size_t)len);
    d->tok[d->nt][len] = '\0';
    memcpy(d->sur[d->nt], surface, (size_t)sn + 1);
    d->nt++;
    return 0;
}

/* Add memory text's words, weighted by its share pw of the feedback. */
static void prf_add_doc(store *s, prf_doc *d, const char *text, double pw)
{
    d->nt = 0;
    struct word_ctx w = {d, text};
    if (store_tokenize(s, text, (int)strlen(text), take_surface, &w, NULL))
        return;
    if (d->nt == 0)
        return;
    for (int t = 0; t < d->nt; t++) {
        if (in_query(d->q, d->tok[t]) || all_digits(d->tok[t]))
            continue;
        prf_cand *c = cand_of(d, d->tok[t], d->sur[t]);
        if (c)
            c->w += pw / d->nt;
    }
}

static int by_weight(const void *a, const void *b)
{
    const prf_cand *x = a, *y = b;
    if (x->w != y->w)
        return x->w > y->w ? -1 : 1;
    return strcmp(x->tok, y->tok);
}

/* The words of bm's top k memories into d, each memory weighted by its
 * share of their scores. */
static ms_status prf_words(const channel_ctx *c, const ranked_list *bm, size_t k, prf_doc *d,
                           ms_error *err)
{
    int64_t rid[PRF_DOCS_MAX] = {0}; /* all set below; gcc -O1 cannot tell */
    store_memory mem[PRF_DOCS_MAX];
    double sum = 0;
    for (size_t r = 0; r < k; r++) {
        rid[r] = c->sn->rid[bm->v[r].idx];
        sum += bm->v[r].raw;
    }
    ms_status st = store_get_rids(c->s, rid, k, mem, err);
    for (size_t r = 0; !st && r < k; r++)
        prf_add_doc(c->s, d, mem[r].content ? mem[r].content : "",
                    sum > 0 ? bm->v[r].raw / sum : 1.0 / (double)k);
    for (size_t r = 0; r < k; r++)
        store_memory_clear(&mem[r]);
    return st;
}

/* Each candidate's weight times its idf; 0 for a term one memory holds. */
static ms_status prf_idf(const channel_ctx *c, prf_doc *d, ms_error *err)
{
    double n = (double)(c->sn->n_all > 0 ? c->sn->n_all : 1);
    for (int i = 0; i < d->n; i++) {
        int64_t df = 0;
        ms_status st = snapshot_term_docs(c->sn, c->s, d->c[i].tok, &df, err);
        if (st)
            return st;
        double idf = log((n - (double)df + 0.5) / ((double)df + 0.5) + 1.0);
        d->c[i].w = df >= 2 ? d->c[i].w * idf : 0;
    }
    return MS_OK;
}

/* The expansion query of bm's top K memories into eq (its terms only). */
static ms_status prf_query(const channel_ctx *c, const ranked_list *bm, query *eq, ms_error *err)
{
    const first_stage_opts *f = &c->o->first_stage;
    size_t k = bm->n < (size_t)f->prf_docs ? bm->n : (size_t)f->prf_docs;
    memset(eq, 0, sizeof *eq);
    if (k == 0)
        return MS_OK;
    if (k > PRF_DOCS_MAX)
        k = PRF_DOCS_MAX;
    prf_doc d = {c->q,
                 calloc(PRF_CAND_MAX, sizeof(prf_cand)),
                 0,
                 malloc(PRF_WORDS_MAX * 64),
                 malloc(PRF_WORDS_MAX * 64),
                 0,
                 PRF_WORDS_MAX};
    ms_status st = d.c && d.tok && d.sur ? MS_OK : ms_fail(err, MS_NOMEM, "out of memory");
    if (!st)
        st = prf_words(c, bm, k, &d, err);
    if (!st)
        st = prf_idf(c, &d, err);
    if (!st)
        qsort(d.c, (size_t)d.n, sizeof *d.c, by_weight);
    for (int i = 0; !st && i < d.n && d.c[i].w > 0 && eq->n_terms < f->prf_terms; i++) {
        query_term *t = &eq->terms[eq->n_terms++];
        snprintf(t->text, sizeof t->text, "%s", d.c[i].tok);
        snprintf(t->surface, sizeof t->surface, "%s", d.c[i].surface);
        t->predicate = 1;
    }
    free(d.c);
    free(d.tok);
    free(d.sur);
    return st;
}

/* ---- sessions ---------------------------------------------------------------- */

typedef struct sess_row {
    uint32_t idx;
    double raw;
    int64_t key;  /* the session, or -(index + 2) for a memory without one */
    double score; /* its session's: its best turn's raw */
    int nth;      /* its place within its session, 0 first */
} sess_row;

static int by_key_raw(const void *a, const void *b)
{
    const sess_row *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->raw > y->raw ? -1 : x->raw < y->raw ? 1 : (x->idx > y->idx) - (x->idx < y->idx);
}

/* Round by round (every session's best turn, then every second best...),
 * sessions in the order of their best turns. */
static int by_round(const void *a, const void *b)
{
    const sess_row *x = a, *y = b;
    if (x->nth != y->nth)
        return x->nth - y->nth;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return (x->key > y->key) - (x->key < y->key);
}

/* bm's memories round by round over their sessions into out. */
static ms_status session_list(const channel_ctx *c, const ranked_list *bm, ranked_list *out,
                              ms_error *err)
{
    sess_row *v = malloc((bm->n + 1) * sizeof *v);
    if (!v)
        return ms_fail(err, MS_NOMEM, "out of memory");
    for (size_t r = 0; r < bm->n; r++) {
        uint32_t i = bm->v[r].idx;
        int32_t s = c->sn->session[i];
        v[r] = (sess_row){i, bm->v[r].raw, s >= 0 ? (int64_t)s : -(int64_t)i - 2, 0, 0};
    }
    qsort(v, bm->n, sizeof *v, by_key_raw);
    for (size_t a = 0, b; a < bm->n; a = b) {
        for (b = a; b < bm->n && v[b].key == v[a].key; b++) {
            v[b].nth = (int)(b - a);
            v[b].score = v[a].raw;
        }
    }
    qsort(v, bm->n, sizeof *v, by_round);
    ms_status st = MS_OK;
    for (size_t r = 0; !st && r < bm->n; r++)
        if (ranked_push(out, v[r].idx, (double)(bm->n - r)))
            st = ms_fail(err, MS_NOMEM, "out of memory");
    free(v);
    return st;
}

/* ---- aspects and the fusion ------------------------------------------------------ */

static int fold_in(const ranked_list *l, double w, double *acc, uint8_t *seen, ranked_list *all)
{
    for (size_t r = 0; r < l->n; r++) {
        uint32_t i = l->v[r].idx;
        if (!seen[i] && ranked_push(all, i, 0))
            return -1;
        seen[i] = 1;
        acc[i] += w / (FS_K + (double)(r + 1));
    }
    return 0;
}

/* One list per predicate word (with the subject's names), each at w / n for
 * n of them, fused in; nothing when there are fewer than two (*added 0). */
static ms_status aspect_lists(const channel_ctx *c, fs_search_fn search, double w, double *acc,
                              uint8_t *seen, ranked_list *all, int *added, ms_error *err)
{
    const query *q = c->q;
    int n_asp = 0;
    for (int i = 0; i < q->n_terms; i++)
        n_asp += q->terms[i].predicate;
    *added = n_asp >= 2;
    if (n_asp < 2)
        return MS_OK;
    firststage_account(c, "%saspects %g (%d)", c->first_stage && c->first_stage[0] ? "; " : "", w,
                       n_asp);
    query *aq = calloc(1, sizeof *aq);
    if (!aq)
        return ms_fail(err, MS_NOMEM, "out of memory");
    ms_status st = MS_OK;
    for (int i = 0; !st && i < q->n_terms; i++) {
        if (!q->terms[i].predicate)
            continue;
        aq->n_terms = 0;
        for (int j = 0; j < q->n_terms; j++)
            if (j == i || q->terms[j].in_subject)
                aq->terms[aq->n_terms++] = q->terms[j];
        ranked_list l = {0};
        st = search(c, aq, &l, err);
        if (!st && fold_in(&l, w / n_asp, acc, seen, all))
            st = ms_fail(err, MS_NOMEM, "out of memory");
        ranked_free(&l);
    }
    free(aq);
    return st;
}

/* ---- kinds ------------------------------------------------------------------------ */

typedef struct kind_term {
    char stem[64];
    char word[64];
    int64_t df;
} kind_term;

struct kind_ctx {
    const channel_ctx *c;
    kind_term *v;
    int n, cap;
    int oom;
};

static int all_alpha(const char *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isalpha((unsigned char)w[i]))
            return 0;
    return n > 0;
}

/* A word below the noun asked for that the store holds, once per stem. */
static int kind_word(void *p, const char *w, size_t n, int own)
{
    struct kind_ctx *k = p;
    kind_term t = {0};
    if (own || n >= sizeof t.word || !all_alpha(w, n))
        return 0;
    memcpy(t.word, w, n);
    if (query_stem(k->c->s, t.word, n, t.stem, sizeof t.stem) || in_query(k->c->q, t.stem) ||
        snapshot_term_docs(k->c->sn, k->c->s, t.stem, &t.df, NULL) || t.df == 0)
        return 0;
    for (int i = 0; i < k->n; i++)
        if (strcmp(k->v[i].stem, t.stem) == 0)
            return 0;
    if (k->n == k->cap) {
        int cap = k->cap ? 2 * k->cap : 64;
        kind_term *v = realloc(k->v, (size_t)cap * sizeof *v);
        if (!v) {
            k->oom = 1;
            return 1;
        }
        k->v = v;
        k->cap = cap;
    }
    k->v[k->n++] = t;
    return 0;
}

static int by_df(const void *a, const void *b)
{
    const kind_term *x = a, *y = b;
    if (x->df != y->df)
        return x->df < y->df ? -1 : 1;
    return strcmp(x->stem, y->stem);
}

/* The words below the noun the query asks for (query.kind) that the store
 * holds, the rarest QUERY_TERMS_MAX of them, as a query's terms into kq. */
static ms_status kind_query(const channel_ctx *c, query *kq, ms_error *err)
{
    memset(kq, 0, sizeof *kq);
    floor_kinds *fk = c->q->kind[0] ? floor_kinds_new(c->q, lexicon_default()) : NULL;
    if (!fk)
        return MS_OK;
    struct kind_ctx k = {c, NULL, 0, 0, 0};
    floor_kinds_each(fk, kind_word, &k);
    floor_kinds_free(fk);
    if (k.oom) {
        free(k.v);
        return ms_fail(err, MS_NOMEM, "out of memory");
    }
    if (k.n > 0) /* qsort of no words from NULL: undefined, and ubsan stops */
        qsort(k.v, (size_t)k.n, sizeof *k.v, by_df);
    for (int i = 0; i < k.n && kq->n_terms < QUERY_TERMS_MAX; i++) {
        query_term *t = &kq->terms[kq->n_terms++];
        snprintf(t->text, sizeof t->text, "%s", k.v[i].stem);
        snprintf(t->surface, sizeof t->surface, "%s", k.v[i].word);
        t->predicate = 1;
    }
    free(k.v);
    return MS_OK;
}

/* Is memory i spoken by a speaker the query names (any, when it names none)? */
static int by_named(const channel_ctx *c, uint32_t i)
{
    if (c->q->n_named == 0)
        return 1;
    for (int k = 0; k < c->q->n_named; k++)
        if (c->sn->speaker_ent[i] >= 0 && (uint32_t)c->sn->speaker_ent[i] == c->q->named[k])
            return 1;
    return 0;
}

/* l without the memories no named speaker says and those past the first
 * per of their session (per 0: any number), in its order. */
static void keep_named(const channel_ctx *c, ranked_list *l, int per)
{
    size_t m = 0;
    for (size_t r = 0; r < l->n; r++) {
        uint32_t i = l->v[r].idx;
        int same = 0;
        for (size_t u = 0; per > 0 && u < m; u++)
            same += c->sn->session[i] >= 0 && c->sn->session[l->v[u].idx] == c->sn->session[i];
        if (by_named(c, i) && (per == 0 || same < per))
            l->v[m++] = l->v[r];
    }
    l->n = m;
}

/* The list of the memories that name a kind of the noun asked for, fused
 * in at the option's weight; nothing when the query asks for none the store
 * holds (*added 0). */
static ms_status add_kinds(const channel_ctx *c, fs_search_fn search, double *acc, uint8_t *seen,
                           ranked_list *all, int *added, ms_error *err)
{
    const first_stage_opts *f = &c->o->first_stage;
    query *kq = calloc(1, sizeof *kq);
    ms_status st = kq ? kind_query(c, kq, err) : ms_fail(err, MS_NOMEM, "out of memory");
    ranked_list l = {0};
    *added = !st && kq->n_terms > 0;
    if (*added) {
        firststage_account(
            c, "%skinds %g of %s (%d words):", c->first_stage && c->first_stage[0] ? "; " : "",
            f->kinds, c->q->kind, kq->n_terms);
        for (int i = 0; i < kq->n_terms; i++)
            firststage_account(c, " %s", kq->terms[i].surface);
        st = search(c, kq, &l, err);
    }
    if (!st && *added) {
        keep_named(c, &l, f->kinds_per_session);
        if (fold_in(&l, f->kinds, acc, seen, all))
            st = ms_fail(err, MS_NOMEM, "out of memory");
    }
    ranked_free(&l);
    free(kq);
    return st;
}

/* ---- hops --------------------------------------------------------------------- */

typedef struct hop_row {
    uint32_t idx;
    double best; /* its best share of the top score of one predicate word's list */
} hop_row;

static int by_best(const void *a, const void *b)
{
    const hop_row *x = a, *y = b;
    if (x->best != y->best)
        return x->best > y->best ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The named speakers' turns that one predicate word's bm25 list holds, each
 * by its best share of the top score of such a list, into out best first. */
static ms_status hop_list(const channel_ctx *c, fs_search_fn search, ranked_list *out,
                          ms_error *err)
{
    const query *q = c->q;
    idx_sum best = {0};
    query *aq = calloc(1, sizeof *aq);
    ms_status st = aq ? MS_OK : ms_fail(err, MS_NOMEM, "out of memory");
    for (int i = 0; !st && i < q->n_terms; i++) {
        if (!q->terms[i].predicate)
            continue;
        aq->n_terms = 1;
        aq->terms[0] = q->terms[i];
        ranked_list l = {0};
        st = search(c, aq, &l, err);
        keep_named(c, &l, 0);
        for (size_t r = 0; !st && r < l.n; r++) {
            double *b = idx_sum_at(&best, l.v[r].idx, NULL);
            double share = l.v[0].raw > 0 ? l.v[r].raw / l.v[0].raw : 0;
            if (!b)
                st = ms_fail(err, MS_NOMEM, "out of memory");
            else if (share > *b)
                *b = share;
        }
        ranked_free(&l);
    }
    hop_row *v = !st && best.n ? malloc(best.n * sizeof *v) : NULL;
    size_t n = 0;
    if (!st && best.n && !v)
        st = ms_fail(err, MS_NOMEM, "out of memory");
    for (size_t k = 0; v && k < best.cap; k++)
        if (best.key[k])
            v[n++] = (hop_row){best.key[k] - 1, best.val[k]};
    if (v)
        qsort(v, n, sizeof *v, by_best);
    for (size_t r = 0; !st && r < n; r++)
        if (ranked_push(out, v[r].idx, v[r].best))
            st = ms_fail(err, MS_NOMEM, "out of memory");
    free(v);
    free(aq);
    idx_sum_free(&best);
    return st;
}

/* The hop list fused in at the option's weight, at most hops_per_session
 * of a session; nothing when the query names no speaker or has no
 * predicate word (*added 0). */
static ms_status add_hops(const channel_ctx *c, fs_search_fn search, double *acc, uint8_t *seen,
                          ranked_list *all, int *added, ms_error *err)
{
    const first_stage_opts *f = &c->o->first_stage;
    *added = c->q->n_named > 0 && c->q->n_pred > 0;
    if (!*added)
        return MS_OK;
    ranked_list l = {0};
    ms_status st = hop_list(c, search, &l, err);
    if (!st) {
        keep_named(c, &l, f->hops_per_session);
        firststage_account(c, "%shops %g (%d words, %zu turns)",
                           c->first_stage && c->first_stage[0] ? "; " : "", f->hops, c->q->n_pred,
                           l.n);
        if (fold_in(&l, f->hops, acc, seen, all))
            st = ms_fail(err, MS_NOMEM, "out of memory");
    }
    ranked_free(&l);
    return st;
}

/* The expansion list of pseudo-relevance feedback, fused in. */
static ms_status add_prf(const channel_ctx *c, fs_search_fn search, const ranked_list *bm,
                         double *acc, uint8_t *seen, ranked_list *all, ms_error *err)
{
    query *eq = calloc(1, sizeof *eq);
    ms_status st = eq ? prf_query(c, bm, eq, err) : ms_fail(err, MS_NOMEM, "out of memory");
    ranked_list l = {0};
    const first_stage_opts *f = &c->o->first_stage;
    if (!st)
        firststage_account(c, "%sprf %d:%d:%g", c->first_stage && c->first_stage[0] ? "; " : "",
                           f->prf_docs, f->prf_terms, f->prf_weight);
    for (int i = 0; !st && i < eq->n_terms; i++)
        firststage_account(c, " %s", eq->terms[i].surface);
    if (!st && eq->n_terms > 0)
        st = search(c, eq, &l, err);
    if (!st && fold_in(&l, f->prf_weight, acc, seen, all))
        st = ms_fail(err, MS_NOMEM, "out of memory");
    ranked_free(&l);
    free(eq);
    return st;
}

static ms_status add_sessions(const channel_ctx *c, const ranked_list *bm, double *acc,
                              uint8_t *seen, ranked_list *all, ms_error *err)
{
    ranked_list l = {0};
    ms_status st = session_list(c, bm, &l, err);
    if (!st)
        firststage_account(c, "%ssessions %g", c->first_stage && c->first_stage[0] ? "; " : "",
                           c->o->first_stage.sessions);
    if (!st && fold_in(&l, c->o->first_stage.sessions, acc, seen, all))
        st = ms_fail(err, MS_NOMEM, "out of memory");
    ranked_free(&l);
    return st;
}

ms_status firststage_extend(const channel_ctx *c, fs_search_fn search, ranked_list *bm,
                            ms_error *err)
{
    const first_stage_opts *f = &c->o->first_stage;
    /* the lists of the query's own words find nothing when bm25 found
     * nothing; the kinds' words are other words */
    int words = bm->n > 0;
    int prf = words && f->prf_docs > 0 && f->prf_terms > 0 && f->prf_weight > 0;
    int sessions = words && f->sessions > 0;
    if ((!prf && !sessions && !(words && f->aspects > 0) && !(f->kinds > 0) &&
         !(words && f->hops > 0)) ||
        !firststage_applies(f, c->q))
        return MS_OK;
    double *acc = calloc(c->sn->n + 1, sizeof *acc);
    uint8_t *seen = calloc(c->sn->n + 1, 1);
    ranked_list all = {0};
    ms_status st = acc && seen ? MS_OK : ms_fail(err, MS_NOMEM, "out of memory");
    if (!st && fold_in(bm, 1.0, acc, seen, &all))
        st = ms_fail(err, MS_NOMEM, "out of memory");
    if (!st && prf)
        st = add_prf(c, search, bm, acc, seen, &all, err);
    if (!st && sessions)
        st = add_sessions(c, bm, acc, seen, &all, err);
    int aspects = 0;
    if (!st && words && f->aspects > 0)
        st = aspect_lists(c, search, f->aspects, acc, seen, &all, &aspects, err);
    int kinds = 0;
    if (!st && f->kinds > 0)
        st = add_kinds(c, search, acc, seen, &all, &kinds, err);
    int hops = 0;
    if (!st && words && f->hops > 0)
        st = add_hops(c, search, acc, seen, &all, &hops, err);
    if (!st && (prf || sessions || aspects || kinds || hops)) {
        for (size_t t = 0; t < all.n; t++)
            all.v[t].raw = acc[all.v[t].idx];
        ranked_finish(&all, c->sn, c->top_n);
        ranked_free(bm);
        *bm = all;
        all = (ranked_list){0};
    }
    ranked_free(&all);
    free(acc);
    free(seen);
    return st;
}
