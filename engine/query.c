/* query.c - query analysis: terms as FTS5 sees them, their idf, the query
 * type, dates, entities named, and the query vector.
 *
 * Query types come from a rule table (first match wins), documented in
 * docs/ENGINE.md:
 *   recency      "most recent", "latest", "recently", "lately", "nowadays"...
 *   temporal     when / what date / what year / how long..., or a date named
 *   multi_hop    "in common", "both", "relationship between"..., or two or
 *                more entities joined by "and"
 *   aggregation  "how many", "how often", "list", "what are some"...
 *   opinion      "think", "feel", "favorite", "prefer", "would ... likely"...
 *   entity       an entity named and "who" or "about"
 *   factual      what / where / who / which / how / did / does / is ...
 *   vague        at most one content term
 *   general      anything else */
#include "engine_int.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stopwords.h"

static const char *const type_names[QT_COUNT] = {
    [QT_GENERAL] = "general",     [QT_TEMPORAL] = "temporal", [QT_MULTI_HOP] = "multi_hop",
    [QT_ENTITY] = "entity",       [QT_FACTUAL] = "factual",   [QT_RECENCY] = "recency",
    [QT_OPINION] = "opinion",     [QT_AGGREGATION] = "aggregation", [QT_VAGUE] = "vague",
};

const char *query_type_name(query_type t)
{
    return (unsigned)t < QT_COUNT ? type_names[t] : "general";
}

/* ---- phrases ------------------------------------------------------------- */

/* Lower-case copy of text with runs of non-alphanumerics (except the
 * apostrophe) folded to one space, padded with spaces at both ends, so a
 * phrase " how long " matches whole words. */
static char *fold(const char *text)
{
    size_t n = strlen(text);
    char *f = malloc(n + 3);
    if (!f)
        return NULL;
    size_t o = 0;
    f[o++] = ' ';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)text[i];
        if (isalnum(c) || c == '\'' || c >= 0x80)
            f[o++] = (char)tolower(c);
        else if (f[o - 1] != ' ')
            f[o++] = ' ';
    }
    if (f[o - 1] != ' ')
        f[o++] = ' ';
    f[o] = '\0';
    return f;
}

static int has_any(const char *folded, const char *const *phrases)
{
    for (; *phrases; phrases++)
        if (strstr(folded, *phrases))
            return 1;
    return 0;
}

static const char *const recency_phrases[] = {
    " most recent ", " most recently ", " latest ", " recently ", " lately ", " nowadays ",
    " these days ", " currently ", " right now ", " last time ", " newest ", " up to date ",
    NULL};
static const char *const when_phrases[] = {
    " when ",       " what date ",  " which date ", " what day ",    " which day ",
    " what time ",  " what year ",  " which year ", " what month ",  " which month ",
    " how long ",   " since when ", " how many days ", " how many weeks ",
    " how many months ", " how many years ", " what week ", " which week ", NULL};
static const char *const multi_hop_phrases[] = {
    " in common ", " both ", " relationship between ", " connection between ",
    " related to ", " and also ", " as well as ", " compared to ", " difference between ",
    NULL};
static const char *const aggregation_phrases[] = {
    " how many ", " how often ", " how much ", " list ", " what are some ", " what kinds ",
    " what kind of ", " what types ", " all the ", " every ", " number of ", " in total ",
    " what activities ", " what things ", NULL};
static const char *const opinion_phrases[] = {
    " think ",  " feel ",    " feels ",   " felt ",      " opinion ", " favorite ",
    " favourite ", " prefer ", " prefers ", " like about ", " likely ", " would ",
    " attitude ", " personality ", " consider ", " considered ", NULL};
static const char *const question_words[] = {
    " what ", " where ", " who ", " whom ", " which ", " how ", " did ", " does ", " do ",
    " is ", " was ", " are ", " were ", " has ", " have ", " can ", NULL};

static query_type classify(const char *folded, const query *q)
{
    if (q->asks_recent)
        return QT_RECENCY;
    if (q->asks_when || q->n_dates > 0)
        return QT_TEMPORAL;
    if (has_any(folded, multi_hop_phrases) || (q->n_ents >= 2 && strstr(folded, " and ")))
        return QT_MULTI_HOP;
    if (has_any(folded, aggregation_phrases))
        return QT_AGGREGATION;
    if (has_any(folded, opinion_phrases))
        return QT_OPINION;
    if (q->n_ents >= 1 && (strstr(folded, " who ") || strstr(folded, " about ")))
        return QT_ENTITY;
    if (q->n_terms <= 1)
        return QT_VAGUE;
    if (has_any(folded, question_words))
        return QT_FACTUAL;
    return QT_GENERAL;
}

/* ---- terms --------------------------------------------------------------- */

struct term_ctx {
    query *q;
    const char *text;
    store *s;
    ms_error *err;
    ms_status st;
};

static int add_term(void *p, const char *tok, int len, int start, int end)
{
    struct term_ctx *c = p;
    query *q = c->q;
    char surface[64];
    int sn = end - start;
    if (sn <= 0 || sn >= (int)sizeof surface || len <= 0 || len >= (int)sizeof q->terms[0].text)
        return 0;
    for (int i = 0; i < sn; i++)
        surface[i] = (char)tolower((unsigned char)c->text[start + i]);
    surface[sn] = '\0';
    if (stopword_is(surface, (size_t)sn) || stopword_is(tok, (size_t)len))
        return 0;
    if (len == 1 && !isdigit((unsigned char)tok[0]))
        return 0;
    for (int i = 0; i < q->n_terms; i++)
        if ((int)strlen(q->terms[i].text) == len && memcmp(q->terms[i].text, tok, (size_t)len) == 0)
            return 0;
    if (q->n_terms >= QUERY_TERMS_MAX)
        return 1;
    query_term *t = &q->terms[q->n_terms++];
    memcpy(t->text, tok, (size_t)len);
    t->text[len] = '\0';
    memcpy(t->surface, surface, (size_t)sn + 1);
    return 0;
}

/* idf of each term from the FTS index: log((N - df + 0.5) / (df + 0.5) + 1). */
static ms_status term_idf(store *s, const snapshot *sn, query *q, ms_error *err)
{
    double n = (double)(sn->n_all > 0 ? sn->n_all : 1);
    q->idf_sum = 0;
    for (int i = 0; i < q->n_terms; i++) {
        ms_status st = store_term_docs(s, q->terms[i].text, &q->terms[i].df, err);
        if (st)
            return st;
        double df = (double)q->terms[i].df;
        q->terms[i].idf = log((n - df + 0.5) / (df + 0.5) + 1.0);
        q->idf_sum += q->terms[i].idf;
    }
    return MS_OK;
}

/* ---- entities named in the query ------------------------------------------ */

/* Normalise a run of words as the store does for entity names: lower case,
 * curly apostrophes straight, a trailing possessive 's dropped. */
static void norm_words(const char *s, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 1 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0xe2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
            (unsigned char)s[i + 2] == 0x99) {
            out[o++] = '\'';
            i += 2;
        } else if (c >= 0xc3 && c <= 0xc3 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
                   (unsigned char)s[i + 1] <= 0x9e && (unsigned char)s[i + 1] != 0x97) {
            out[o++] = (char)c; /* Latin-1 capitals fold like the store's */
            if (o + 1 < cap)
                out[o++] = (char)(s[i + 1] + 32);
            i++;
        } else {
            out[o++] = (char)tolower(c);
        }
    }
    if (o >= 2 && out[o - 1] == 's' && out[o - 2] == '\'')
        o -= 2;
    out[o] = '\0';
}

static int is_name_byte(unsigned char c)
{
    return isalnum(c) || c >= 0x80 || c == '\'' || c == '-' || c == '&' || c == '.';
}

/* Look up every run of 1 to 4 words of the query among the entities. */
static void find_entities(const snapshot *sn, const char *text, query *q)
{
    enum { MAXW = 128 };
    int ws[MAXW], we[MAXW], nw = 0;
    for (int i = 0; text[i] && nw < MAXW;) {
        while (text[i] && !is_name_byte((unsigned char)text[i]))
            i++;
        if (!text[i])
            break;
        ws[nw] = i;
        while (text[i] && is_name_byte((unsigned char)text[i]))
            i++;
        int e = i;
        while (e > ws[nw] && (text[e - 1] == '.' || text[e - 1] == '-' || text[e - 1] == '\''))
            e--;
        we[nw++] = e;
    }
    for (int len = 4; len >= 1; len--) {
        for (int a = 0; a + len <= nw; a++) {
            char norm[256];
            norm_words(text + ws[a], (size_t)(we[a + len - 1] - ws[a]), norm, sizeof norm);
            long idx = snapshot_entity(sn, norm);
            if (idx < 0 || q->n_ents >= QUERY_ENTS_MAX)
                continue;
            int dup = 0;
            for (int k = 0; k < q->n_ents; k++)
                dup |= q->ents[k] == (uint32_t)idx;
            if (!dup && !stopword_is(norm, strlen(norm)))
                q->ents[q->n_ents++] = (uint32_t)idx;
        }
    }
}

/* ---- the whole analysis ----------------------------------------------------- */

ms_status query_analyse(store *s, const snapshot *sn, embedder *emb, const char *text,
                        int64_t now, query *q, ms_error *err)
{
    memset(q, 0, sizeof *q);
    q->text = text;
    q->now = now;
    struct term_ctx c = {q, text, s, err, MS_OK};
    ms_status st = store_tokenize(s, text, (int)strlen(text), add_term, &c, err);
    if (!st)
        st = term_idf(s, sn, q, err);
    if (st)
        return st;
    q->n_dates = dates_parse(text, now, q->dates, QUERY_DATES_MAX);
    find_entities(sn, text, q);
    char *folded = fold(text);
    if (!folded)
        return ms_fail(err, MS_NOMEM, "out of memory");
    q->asks_when = has_any(folded, when_phrases);
    q->asks_recent = has_any(folded, recency_phrases);
    q->type = classify(folded, q);
    free(folded);
    if (emb && sn->dim == embed_dim(emb) && sn->vec_embedder &&
        strcmp(sn->vec_embedder, embed_id(emb)) == 0) {
        q->qvec = calloc((size_t)sn->dim, sizeof *q->qvec);
        if (!q->qvec)
            return ms_fail(err, MS_NOMEM, "out of memory");
        const char *texts[1] = {text};
        st = embed_texts(emb, texts, 1, q->qvec, err);
        if (st) {
            free(q->qvec);
            q->qvec = NULL;
            return st;
        }
    }
    return MS_OK;
}

void query_clear(query *q)
{
    free(q->qvec);
    q->qvec = NULL;
}
