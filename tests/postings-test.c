/* postings-test.c - bm25 over the engine's postings with top-k pruning
 * (engine/postings.c) returns exactly what FTS5 returns (store_fts with
 * ms_bm25): the same memories, the same scores bit for bit, in the same
 * order (ties by rid), for many random stores and queries:
 *   - stores of 1 to 700 memories from a Zipf vocabulary with stems that
 *     fold together ("run", "running", "runs"), capitals and accents,
 *     sessions (so the context column holds the neighbours' text),
 *     replacements and deletes (rid gaps, changed lengths), and in some
 *     stores a second profile whose rows count for idf and the average
 *     length but are never returned;
 *   - queries of 1 to 8 words, common and rare, some the index lacks, some
 *     twice, with k from 1 to 300;
 *   - the pruning works: on a store where a common word matches most rows,
 *     far fewer rows are scored in full than match;
 *   - damaged postings, or postings of fewer rows than the store holds,
 *   are refused (postings_open), and a damaged list
 *   is found when a query reads it (postings_search asks for FTS5) and by
 *   postings_lists_ok (the check of a file before it is sealed), and not
 *   checked again when opened as found sound (postings_open_sound);
 *   - the query terms a memory holds in its own text (postings_own, what
 *     the evidence floor's lexical rule counts) are floor_terms_in's from
 *     its content, for every memory of random stores and random queries,
 *     also where its neighbours' context holds a term its content lacks;
 *     a damaged list or a row out of place says it cannot tell;
 *   - how many rows hold a term in their own text (postings_docs, the
 *     query's document counts) is FTS5's vocabulary count
 *     (store_term_docs), for every word of the vocabulary and some the
 *     index lacks, in every random store; a damaged list says it cannot
 *     tell;
 *   - a memory whose own text holds no term with a unit of time in it
 *     ("year", "month", "week", "decad": postings_terms_holding,
 *     postings_own_any) never says how long (temporal_says_duration), for
 *     every memory of random stores whose words include amounts and units
 *     glued to letters beyond ASCII ("yearsé", "年years") and to each other;
 *     most memories that hold such a term do not, and a damaged list
 *     cannot tell;
 *   - postings extended for appends (postings_extend: the new rows and
 *     the old ones whose context grew read again, the rest copied) are
 *     the bytes postings_build gives, on random stores with random
 *     appends; after a delete the extension declines.
 * Links the store and the engine. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_int.h"
#include "store/store.h"
#include "tests/tap.h"

static char tmpdir[] = "/tmp/memscope-postings-test-XXXXXX";
#include "tests/testdir.h"
#include "tests/put.h"

static const char *const words[] = {
    "the",   "garden", "gardens",  "gardening", "party", "parties", "run",     "running",
    "runs",  "runner", "Lisbon",   "train",     "cake",  "tea",     "café",    "cafe",
    "knee",  "sister", "marathon", "rain",      "books", "book",    "reading", "Melanie",
    "beach", "dog",    "biscuit",  "school",    "paint", "painted", "work",    "house",
    "move",  "moved",  "zebra",    "quartz",    "yacht", "violin",  "x",       "2023",
};
#define N_WORDS ((int)(sizeof words / sizeof *words))

static uint64_t rng = 88172645463325252ull;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* A word, the first ones far more often (roughly Zipf). */
static const char *zipf_word(void)
{
    unsigned r = rnd(1000);
    int i = (int)((double)N_WORDS * (double)(r * r) / 1e6);
    return words[i < N_WORDS ? i : N_WORDS - 1];
}

static void random_text(char *text, size_t cap, int max_words)
{
    int k = 1 + (int)rnd((unsigned)max_words);
    text[0] = '\0';
    for (int w = 0; w < k && strlen(text) + 24 < cap; w++) {
        strcat(text, zipf_word());
        strcat(text, rnd(5) ? " " : ", ");
    }
}

/* n memories in the current profile, ids PREFIXi, in sessions of ~6. */
static void fill(store *s, int n, const char *prefix, int max_words)
{
    ms_error err;
    store_begin(s, &err);
    for (int i = 0; i < n; i++) {
        char text[512], id[32], session[32];
        random_text(text, sizeof text, max_words);
        snprintf(id, sizeof id, "%s%d", prefix, i);
        snprintf(session, sizeof session, "%s-s%d", prefix, i / 6);
        put(s, id, text, rnd(4) ? session : NULL);
    }
    store_end(s, &err);
}

typedef struct hit {
    uint32_t idx;
    double score;
} hit;

typedef struct fts_hits {
    const snapshot *sn;
    hit v[400];
    int n;
} fts_hits;

static int on_fts(void *p, int64_t rid, double score)
{
    fts_hits *h = p;
    long i = snapshot_find(h->sn, rid);
    if (i >= 0 && h->n < 400)
        h->v[h->n++] = (hit){(uint32_t)i, score};
    return 0;
}

/* A random query: its words' single tokens and the FTS5 expression. */
typedef struct rquery {
    char word[8][32];
    char tok[8][64];
    const char *tokp[8];
    int n;
    char match[512];
} rquery;

static int take_tok(void *p, const char *tok, int len, int start, int end)
{
    char *out = p;
    (void)start;
    (void)end;
    if (len > 0 && len < 64) {
        memcpy(out, tok, (size_t)len);
        out[len] = '\0';
    }
    return 1;
}

static void random_query(store *s, rquery *q)
{
    q->n = 1 + (int)rnd(8);
    q->match[0] = '\0';
    for (int i = 0; i < q->n; i++) {
        const char *w = rnd(10) ? (rnd(2) ? zipf_word() : words[rnd(N_WORDS)]) : "nowhere";
        if (i && rnd(10) == 0)
            w = q->word[0]; /* a word twice: two phrases */
        snprintf(q->word[i], sizeof q->word[i], "%s", w);
        q->tok[i][0] = '\0';
        store_tokenize(s, w, (int)strlen(w), take_tok, q->tok[i], NULL);
        q->tokp[i] = q->tok[i];
        char quoted[48];
        snprintf(quoted, sizeof quoted, "%s\"%s\"", i ? " OR " : "", w);
        strcat(q->match, quoted);
    }
}

/* One query both ways; 1 when the answers are the same. */
static int same_answer(store *s, const snapshot *sn, const postings *p, const rquery *q, size_t k,
                       size_t *matched)
{
    fts_hits h = {.sn = sn};
    ms_error err;
    if (store_fts(s, q->match, (int)k, on_fts, &h, &err))
        return 0;
    ranked_list out = {0};
    postings_stats st;
    int same = postings_search(p, q->tokp, q->n, k, &out, &st) == 0;
    ranked_finish(&out, sn, k);
    same = same && (int)out.n == h.n;
    for (int i = 0; same && i < h.n; i++)
        same =
            out.v[i].idx == h.v[i].idx && memcmp(&out.v[i].raw, &h.v[i].score, sizeof(double)) == 0;
    if (matched)
        *matched = st.scored;
    ranked_free(&out);
    return same;
}

/* The postings of s's current profile: the snapshot, the blob. */
static size_t lists_at; /* where the last blob's lists start */

static postings *open_postings(store *s, snapshot **sn, void **blob, size_t *len)
{
    ms_error err;
    *blob = NULL;
    if (snapshot_load(s, sn, &err))
        return NULL;
    *blob = postings_build(s, *sn, len, &lists_at);
    return *blob ? postings_open(*blob, *len, (*sn)->n, (*sn)->n_all) : NULL;
}

/* A random store: some memories, maybe another profile, replacements, deletes. */
static void random_store(store *s, int trial)
{
    ms_error err;
    int n = 1 + (int)rnd(trial % 4 == 0 ? 700 : 120);
    int max_words = 1 + (int)rnd(20);
    if (trial % 3 == 1) {
        store_use_profile(s, "other", &err);
        fill(s, 1 + (int)rnd(150), "o", max_words);
        store_use_profile(s, "default", &err);
    }
    fill(s, n, "a", max_words);
    if (rnd(2))
        fill(s, 1 + n / 3, "a", max_words); /* replace the first third */
    store_begin(s, &err);
    for (int d = (int)rnd(6); d > 0; d--) {
        char id[32];
        snprintf(id, sizeof id, "a%u", rnd((unsigned)n));
        store_delete(s, id, &err);
    }
    store_end(s, &err);
}

/* Over every word of the vocabulary and some the index lacks: how many
 * have postings_docs's count equal to store_term_docs's (*same), how many
 * of those were held by some row (*held); the words compared. */
static int docs_store(store *s, const postings *p, int *same, int *held)
{
    static const char *const absent[] = {"nowhere", "qqq", "2024", ""};
    int n = 0;
    for (int w = 0; w < N_WORDS + 4; w++, n++) {
        const char *word = w < N_WORDS ? words[w] : absent[w - N_WORDS];
        char tok[64] = "";
        int64_t want = -1, got = -1;
        store_tokenize(s, word, (int)strlen(word), take_tok, tok, NULL);
        if (store_term_docs(s, tok, &want, NULL) == MS_OK && postings_docs(p, tok, &got) == 0 &&
            got == want) {
            *same += 1;
            *held += got > 0;
        }
    }
    return n;
}

#define STORES 40
#define QUERIES 60

static void test_random(void)
{
    static const size_t ks[] = {1, 2, 5, 10, 50, 200, 300};
    int stores = 0, queries = 0, same = 0, built = 0, words_n = 0, docs_same = 0, docs_held = 0;
    for (int trial = 0; trial < STORES; trial++) {
        char name[32];
        snprintf(name, sizeof name, "r%d.db", trial);
        store *s;
        ms_error err;
        if (store_open(tpath(name), 0, &s, &err))
            continue;
        random_store(s, trial);
        stores++;
        snapshot *sn = NULL;
        void *blob;
        size_t len;
        store_read_begin(s, &err);
        postings *p = open_postings(s, &sn, &blob, &len);
        built += p != NULL;
        for (int k = 0; p && k < QUERIES; k++) {
            rquery q;
            random_query(s, &q);
            queries++;
            same += same_answer(s, sn, p, &q, ks[rnd(7)], NULL);
        }
        if (p)
            words_n += docs_store(s, p, &docs_same, &docs_held);
        store_end(s, NULL);
        postings_free(p);
        free(blob);
        snapshot_free(sn);
        store_close(s);
    }
    ok(stores == STORES && built == stores, "postings built for every random store (%d of %d)",
       built, stores);
    ok(queries == QUERIES * stores && same == queries,
       "%d random queries over %d random stores: the same memories, scores (bit for bit) and "
       "order as FTS5 in %d",
       queries, stores, same);
    ok(words_n == (N_WORDS + 4) * stores && docs_same == words_n && docs_held > words_n / 2,
       "%d words' counts of rows holding them in their own text over %d random stores: "
       "postings_docs gives store_term_docs's for %d (%d held by some row)",
       words_n, stores, docs_same, docs_held);
}

/* Each snapshot memory's content and context, NUL-terminated. */
typedef struct texts {
    const snapshot *sn;
    char **content, **context;
} texts;

static int on_text(void *p, int64_t rid, const char *content, int clen, const char *context,
                   int xlen)
{
    texts *t = p;
    long i = snapshot_find(t->sn, rid);
    if (i >= 0) {
        t->content[i] = strndup(content, (size_t)clen);
        t->context[i] = strndup(context, (size_t)xlen);
    }
    return 0;
}

/* A query of rq's words as the floor sees it: each term's token. */
static void floor_query(const rquery *rq, query *q)
{
    memset(q, 0, sizeof *q);
    for (int k = 0; k < rq->n; k++) {
        int dup = 0;
        for (int j = 0; j < q->n_terms; j++)
            dup |= strcmp(q->terms[j].text, rq->tok[k]) == 0;
        if (!dup && rq->tok[k][0])
            snprintf(q->terms[q->n_terms++].text, sizeof q->terms[0].text, "%s", rq->tok[k]);
    }
}

/* Over every memory of sn and a few random queries: how many memories'
 * terms postings_own gives as floor_terms_in reads the content (*same),
 * how many of those have a term in their context and not their content
 * (*apart); the memories compared. */
static int own_store(store *s, const snapshot *sn, const postings *p, int *same, int *apart)
{
    static query q;
    texts t = {sn, calloc(sn->n + 1, sizeof(char *)), calloc(sn->n + 1, sizeof(char *))};
    int n = 0;
    if (t.content && t.context && store_scan_text(s, on_text, &t, NULL) == MS_OK)
        for (int k = 0; k < 20; k++) {
            rquery rq;
            random_query(s, &rq);
            floor_query(&rq, &q);
            const char *tok[QUERY_TERMS_MAX];
            for (int j = 0; j < q.n_terms; j++)
                tok[j] = q.terms[j].text;
            for (size_t i = 0; i < sn->n; i++, n++) {
                uint64_t got = ~0ull, want = floor_terms_in(s, &q, t.content[i]);
                *same += postings_own(p, tok, q.n_terms, (uint32_t)i, &got) == 0 && got == want;
                *apart += (floor_terms_in(s, &q, t.context[i]) & ~want) != 0;
            }
        }
    for (size_t i = 0; i < sn->n; i++) {
        free(t.content ? t.content[i] : NULL);
        free(t.context ? t.context[i] : NULL);
    }
    free(t.content);
    free(t.context);
    return n;
}

static void test_own(void)
{
    int stores = 0, n = 0, same = 0, apart = 0;
    for (int trial = 0; trial < 24; trial++) {
        char name[32];
        snprintf(name, sizeof name, "r%d.db", trial); /* test_random's */
        store *s;
        ms_error err;
        if (store_open(tpath(name), 0, &s, &err))
            continue;
        snapshot *sn = NULL;
        void *blob;
        size_t len;
        store_read_begin(s, &err);
        postings *p = open_postings(s, &sn, &blob, &len);
        if (p) {
            stores++;
            n += own_store(s, sn, p, &same, &apart);
        }
        store_end(s, NULL);
        postings_free(p);
        free(blob);
        snapshot_free(sn);
        store_close(s);
    }
    ok(stores == 24 && n > 10000 && same == n,
       "the terms %d memories of %d random stores hold in their own text, for random queries: "
       "postings_own gives floor_terms_in's bits for %d",
       n, stores, same);
    ok(apart > 100, "among them %d with a query term in their context and not their content",
       apart);
}

/* A text of amounts, units and other words, some glued to each other or to
 * letters beyond ASCII. */
static void unit_text(char *text, size_t cap)
{
    static const char *const piece[] = {
        "3",      "a",           "few",      "one",     "half",    "years",   "Years",
        "MONTHS", "week",        "weeks",    "weekend", "decade",  "Decades", "year",
        "month",  "yearsé",      "éyears",   "年years", "years年", "decadé",  "monthš",
        "weekly", "éweeks",      "for",      "the",     "garden",  "run",     "café",
        "time",   "anniversary", "yearbook", "midweek", "montha",  "ago",     "ten"};
    int k = 1 + (int)rnd(10);
    text[0] = '\0';
    for (int w = 0; w < k && strlen(text) + 24 < cap; w++) {
        strcat(text, piece[rnd(sizeof piece / sizeof *piece)]);
        unsigned g = rnd(6);
        strcat(text, g == 0 ? "" : g == 1 ? ", " : g == 2 ? "\xc3\xa9" : " ");
    }
}

static void test_units(void)
{
    static const char *const unit[] = {"year", "month", "week", "decad", NULL};
    int n = 0, lasts = 0, missed = 0, cannot = 0, none = 0, held = 0;
    for (int trial = 0; trial < 8; trial++) {
        char name[32];
        snprintf(name, sizeof name, "u%d.db", trial);
        store *s;
        ms_error err;
        if (store_open(tpath(name), 0, &s, &err))
            continue;
        store_begin(s, &err);
        for (int i = 0; i < 300; i++) {
            char text[256], id[32];
            unit_text(text, sizeof text);
            snprintf(id, sizeof id, "u%d", i);
            put(s, id, text, rnd(3) ? "s" : NULL);
        }
        store_end(s, &err);
        snapshot *sn = NULL;
        void *blob;
        size_t len, nt = 0;
        long *t = NULL;
        store_read_begin(s, &err);
        postings *p = open_postings(s, &sn, &blob, &len);
        texts x = {sn, sn ? calloc(sn->n + 1, sizeof(char *)) : NULL,
                   sn ? calloc(sn->n + 1, sizeof(char *)) : NULL};
        if (p && x.content && x.context && !postings_terms_holding(p, unit, &t, &nt) &&
            store_scan_text(s, on_text, &x, NULL) == MS_OK)
            for (size_t i = 0; i < sn->n; i++, n++) {
                int got = postings_own_any(p, t, nt, (uint32_t)i);
                int says = temporal_says_duration(x.content[i]);
                lasts += says;
                missed += says && got != 1;
                cannot += got < 0;
                none += got == 0;
                held += got == 1 && !says;
            }
        if (p && nt > 0) { /* damage every list */
            for (size_t b = lists_at; b < len; b++)
                ((unsigned char *)blob)[b] ^= 0x5a;
            postings_free(p);
            p = postings_open(blob, len, sn->n, sn->n_all);
            cannot -= p && sn->n > 0 && postings_own_any(p, t, nt, 0) == -1 ? 1000 : 0;
        }
        for (size_t i = 0; sn && i < sn->n; i++) {
            free(x.content ? x.content[i] : NULL);
            free(x.context ? x.context[i] : NULL);
        }
        free(x.content);
        free(x.context);
        free(t);
        store_end(s, NULL);
        postings_free(p);
        free(blob);
        snapshot_free(sn);
        store_close(s);
    }
    ok(n == 2400 && lasts > 100 && missed == 0 && cannot == -8000 && none > 100 && held > 100,
       "of %d memories, the %d that say how long all hold a term with a unit of time (%d do "
       "not); %d hold none, %d hold one and do not say it; a damaged list cannot tell in %d "
       "stores of 8",
       n, lasts, missed, none, held, -cannot / 1000);
}

/* Damaged postings: cut short, another format, more memories than the
 * snapshot has. */
static void post_fail(void *blob, size_t len, size_t n, int64_t n_all)
{
    unsigned char *b = blob;
    ok(!postings_open(blob, len - 8, n, n_all), "postings cut short are refused");
    b[0] ^= 1;
    ok(!postings_open(blob, len, n, n_all), "postings of another format are refused");
    b[0] ^= 1;
    ok(!postings_open(blob, len, n / 2, n_all),
       "postings naming memories the snapshot lacks are refused");
    ok(!postings_open(blob, len, n + 1, n_all + 1),
       "postings of fewer rows than the store holds (a snapshot updated without them) are "
       "refused");
    postings *p = postings_open(blob, len, n, n_all);
    ok(p != NULL && postings_lists_ok(p), "the same postings, whole, are read, every list sound");
    postings_free(p);
    /* a row number in the first list ("garden") changed: the tables still add up */
    b[lists_at] ^= 0x01;
    p = postings_open(blob, len, n, n_all);
    const char *tok[] = {"garden", "zebra", "the", "tea", "hous"};
    ranked_list out = {0};
    int rc = p ? postings_search(p, tok, 5, 10, &out, NULL) : -2;
    ok(p && rc == 1 && out.n == 0, "a damaged list: the search asks for FTS5 (%d)", rc);
    ok(p && !postings_lists_ok(p), "a damaged list: postings_lists_ok finds it");
    postings *sound = postings_open_sound(blob, len, n, n_all);
    ranked_list trusted = {0};
    ok(sound && postings_search(sound, tok, 5, 10, &trusted, NULL) == 0,
       "postings opened as found sound before do not check the list again");
    ranked_free(&trusted);
    postings_free(sound);
    uint64_t held = ~0ull;
    ok(p && postings_own(p, tok, 1, 0, &held) == 1 && held == 0,
       "a damaged list: postings_own says it cannot tell (the floor reads the text)");
    int64_t df = -1;
    ok(p && postings_docs(p, tok[0], &df) == 1 && df == 0,
       "a damaged list: postings_docs says it cannot tell (the store counts)");
    held = ~0ull;
    ok(p && postings_own(p, tok + 1, 1, (uint32_t)n, &held) == 1 && held == 0,
       "a memory the postings do not cover: postings_own says it cannot tell");
    ranked_free(&out);
    postings_free(p);
}

/* A common word in most rows, rare words in a few: pruning skips most. */
static void test_pruning(void)
{
    store *s;
    ms_error err;
    if (store_open(tpath("prune.db"), 0, &s, &err)) {
        ok(0, "open: %s", err.msg);
        return;
    }
    store_begin(s, &err);
    for (int i = 0; i < 3000; i++) {
        char id[32], text[128];
        snprintf(id, sizeof id, "m%d", i);
        snprintf(text, sizeof text, "the garden %s %s", i % 23 == 0 ? "zebra" : "tea",
                 i % 5 ? "house" : "house house");
        put(s, id, text, NULL);
    }
    store_end(s, &err);
    snapshot *sn = NULL;
    void *blob;
    size_t len;
    store_read_begin(s, &err);
    postings *p = open_postings(s, &sn, &blob, &len);
    rquery q = {.n = 2};
    strcpy(q.word[0], "garden");
    strcpy(q.word[1], "zebra");
    strcpy(q.tok[0], "garden");
    strcpy(q.tok[1], "zebra");
    q.tokp[0] = q.tok[0];
    q.tokp[1] = q.tok[1];
    strcpy(q.match, "\"garden\" OR \"zebra\"");
    size_t scored = 0;
    int same = p && same_answer(s, sn, p, &q, 10, &scored);
    ok(same, "a common and a rare word: the same answer as FTS5");
    ok(p && scored < 600, "rows scored in full: %zu of the 3000 that match", scored);
    if (p)
        post_fail(blob, len, sn->n, sn->n_all);
    store_end(s, NULL);
    postings_free(p);
    free(blob);
    snapshot_free(sn);
    store_close(s);
}

/* The store's row lengths now, copied (the store's change with it). */
static int32_t *lengths(store *s, int64_t *base, size_t *span)
{
    const int32_t *len;
    if (store_doclen_get(s, &len, base, span))
        return NULL;
    int32_t *copy = malloc(*span * sizeof *copy + 1);
    if (copy)
        memcpy(copy, len, *span * sizeof *copy);
    return copy;
}

/* Appends to a random store: new memories in old sessions (their last turn's
 * context grows), in new ones and in none, some in the other profile. */
static void append_some(store *s, int trial, int n_old)
{
    ms_error err;
    int n = 1 + (int)rnd(trial % 5 == 0 ? 300 : 30);
    if (trial % 3 == 1 && rnd(2)) {
        store_use_profile(s, "other", &err);
        fill(s, 1 + (int)rnd(20), "o2-", 12);
        store_use_profile(s, "default", &err);
    }
    store_begin(s, &err);
    for (int i = 0; i < n; i++) {
        char text[512], id[32], session[32];
        random_text(text, sizeof text, 12);
        snprintf(id, sizeof id, "new%d-%d", trial, i);
        unsigned how = rnd(3);
        snprintf(session, sizeof session, how == 0 ? "a-s%u" : "n-s%u",
                 how == 0 ? rnd((unsigned)n_old / 6 + 1) : (unsigned)i / 4);
        put(s, id, text, how == 2 ? NULL : session);
    }
    store_end(s, &err);
}

/* Old rows whose length the appends changed. */
static int grown_rows(const int32_t *a, int64_t abase, size_t aspan, store *s)
{
    int64_t base;
    size_t span;
    int32_t *b = lengths(s, &base, &span);
    int n = 0;
    for (size_t i = 0; b && i < aspan; i++) {
        int64_t rid = abase + (int64_t)i;
        n += a[i] >= 0 && rid >= base && (size_t)(rid - base) < span && b[rid - base] != a[i];
    }
    free(b);
    return n;
}

/* postings_extend from a random store's postings after random appends is
 * postings_build's blob, byte for byte; after a delete it declines. */
static void test_extend(void)
{
    int stores = 0, same = 0, changed = 0, declined = 0;
    for (int trial = 0; trial < 30; trial++) {
        char name[32];
        snprintf(name, sizeof name, "x%d.db", trial);
        store *s;
        ms_error err;
        if (store_open(tpath(name), 0, &s, &err))
            continue;
        random_store(s, trial);
        snapshot *sn = NULL, *sn2 = NULL;
        void *blob = NULL, *want = NULL, *got = NULL;
        size_t len = 0, wlen = 0, glen = 0, wl = 0, gl = 0, span = 0;
        int64_t base = 0;
        store_read_begin(s, &err);
        postings *p = open_postings(s, &sn, &blob, &len);
        int32_t *old_len = lengths(s, &base, &span);
        int n_old = (int)(sn ? sn->n : 0);
        store_end(s, NULL);
        append_some(s, trial, n_old);
        store_read_begin(s, &err);
        if (p && old_len && snapshot_load(s, &sn2, &err) == MS_OK) {
            stores++;
            changed += grown_rows(old_len, base, span, s) > 0;
            want = postings_build(s, sn2, &wlen, &wl);
            got = postings_extend(s, sn2, p, old_len, base, span, &glen, &gl);
            same += want && got && wlen == glen && wl == gl && memcmp(want, got, wlen) == 0;
        }
        store_end(s, NULL);
        free(got);
        got = NULL;
        store_begin(s, &err);
        char id[32] = "a0";
        for (int i = 1; i < 1000 && store_delete(s, id, &err) != MS_OK; i++)
            snprintf(id, sizeof id, "a%d", i); /* the first old memory that is there */
        store_end(s, &err);
        store_read_begin(s, &err);
        snapshot_free(sn2);
        sn2 = NULL;
        if (p && old_len && snapshot_load(s, &sn2, &err) == MS_OK)
            declined += !(got = postings_extend(s, sn2, p, old_len, base, span, &glen, &gl));
        store_end(s, NULL);
        free(got);
        free(want);
        free(old_len);
        postings_free(p);
        free(blob);
        snapshot_free(sn);
        snapshot_free(sn2);
        store_close(s);
    }
    ok(stores == 30 && same == stores,
       "postings extended for appends to %d random stores: postings_build's bytes in %d", stores,
       same);
    ok(changed > 10, "in %d of them an old row's context grew (its postings were read again)",
       changed);
    ok(declined == stores, "after a delete of an old row, the extension declines (%d of %d)",
       declined, stores);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        printf("1..0 # SKIP no temporary directory\n");
        return 0;
    }
    test_random();
    test_pruning();
    test_own();
    test_extend();
    test_units();
    remove_tmpdir();
    return done_testing();
}
