/* query.c - query analysis: terms as FTS5 sees them, their idf, the query
 * type, dates, the people and things the query names, and its vector.
 *
 * Query types come from a rule table tested in order on the question's
 * words (case folded); the first rule that matches wins (docs/ENGINE.md):
 *   recency      latest, most recent(ly), recently (not "more|less
 *                recently"), currently, nowadays, these days, last time, now
 *   temporal     starts "when" or "how long"; what/which year|month|date|
 *                day|time|week; how many|much days|weeks|months|years;
 *                since, until, before, after, during, ago, more|less
 *                recently
 *   aggregation  how many, how often, how much, list, all, every, total,
 *                number of
 *   multi_hop    both, common, together; starts "what|which are|were";
 *                starts "what|which <plural> does|did|has|have|do"
 *   opinion      would, might, likely, could, think(s), feel(s), felt,
 *                opinion, prefer, favorite/favourite, why
 *   entity       starts who/whose/whom; "name of"; "called"
 *   factual      starts what, which, where, how, did, does, do, is, was,
 *                are, were, has, have
 *   vague        none of these, at most one content term
 *   general      none of these */
#include "engine_int.h"
#include "store/base/words.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lexicon.h"
#include "stopwords.h"

static const char *const type_names[QT_COUNT] = {
    [QT_GENERAL] = "general", [QT_TEMPORAL] = "temporal",       [QT_MULTI_HOP] = "multi_hop",
    [QT_ENTITY] = "entity",   [QT_FACTUAL] = "factual",         [QT_RECENCY] = "recency",
    [QT_OPINION] = "opinion", [QT_AGGREGATION] = "aggregation", [QT_VAGUE] = "vague",
};

const char *query_type_name(query_type t)
{
    return (unsigned)t < QT_COUNT ? type_names[t] : "general";
}

/* ---- the rule table ------------------------------------------------------ */

/* Lower-case copy of text with every run of characters other than letters,
 * digits and apostrophes folded to one space, padded with a space at both
 * ends: " when did caroline go ". A phrase " how long " then matches whole
 * words only, and a rule "starts with" compares the beginning. */
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

typedef struct rule {
    query_type type;
    const char *const *anywhere; /* " phrase " found anywhere */
    const char *const *start;    /* " phrase " at the start */
    int (*special)(const char *folded);
} rule;

static const char *const recency_any[] = {" latest ",    " most recent ", " most recently ",
                                          " currently ", " nowadays ",    " these days ",
                                          " last time ", " now ",         NULL};
static const char *const temporal_any[] = {" what year ",
                                           " what month ",
                                           " what date ",
                                           " what day ",
                                           " what time ",
                                           " what week ",
                                           " which year ",
                                           " which month ",
                                           " which date ",
                                           " which day ",
                                           " which time ",
                                           " which week ",
                                           " how many days ",
                                           " how many weeks ",
                                           " how many months ",
                                           " how many years ",
                                           " how much days ",
                                           " how much weeks ",
                                           " how much months ",
                                           " how much years ",
                                           " since ",
                                           " until ",
                                           " before ",
                                           " after ",
                                           " during ",
                                           " ago ",
                                           " more recently ",
                                           " less recently ",
                                           NULL};
static const char *const temporal_start[] = {" when ", " how long ", NULL};
static const char *const aggregation_any[] = {" how many ", " how often ", " how much ",
                                              " list ",     " all ",       " every ",
                                              " total ",    " number of ", NULL};
static const char *const multi_hop_any[] = {" both ", " common ", " together ", NULL};
static const char *const multi_hop_start[] = {" what are ", " what were ", " which are ",
                                              " which were ", NULL};
static const char *const opinion_any[] = {" would ",     " might ",   " likely ", " could ",
                                          " think ",     " thinks ",  " feel ",   " feels ",
                                          " felt ",      " opinion ", " prefer ", " favorite ",
                                          " favourite ", " why ",     NULL};
static const char *const entity_any[] = {" name of ", " called ", NULL};
static const char *const entity_start[] = {" who ", " whose ", " whom ", NULL};
static const char *const factual_start[] = {" what ", " which ", " where ", " how ", " did ",
                                            " does ", " do ",    " is ",    " was ", " are ",
                                            " were ", " has ",   " have ",  NULL};

/* "what|which <word ending in s> does|did|has|have|do ..." at the start. */
static int plural_question(const char *f)
{
    const char *p = strncmp(f, " what ", 6) == 0    ? f + 6
                    : strncmp(f, " which ", 7) == 0 ? f + 7
                                                    : NULL;
    if (!p)
        return 0;
    const char *sp = strchr(p, ' ');
    if (!sp || sp - p < 2 || sp[-1] != 's')
        return 0;
    for (const char *c = p; c < sp; c++)
        if (!islower((unsigned char)*c))
            return 0;
    static const char *const aux[] = {" does ", " did ", " has ", " have ", " do ", NULL};
    for (int i = 0; aux[i]; i++)
        if (strncmp(sp, aux[i], strlen(aux[i])) == 0)
            return 1;
    return 0;
}

/* "recently" on its own asks for the latest; "more recently", "less
 * recently" compare two times (a temporal question). */
static int recently_alone(const char *f)
{
    for (const char *p = strstr(f, " recently "); p; p = strstr(p + 1, " recently ")) {
        size_t before = (size_t)(p - f);
        if (!(before >= 5 && strncmp(p - 5, " more", 5) == 0) &&
            !(before >= 5 && strncmp(p - 5, " less", 5) == 0) &&
            !(before >= 6 && strncmp(p - 6, " least", 6) == 0))
            return 1;
    }
    return 0;
}

static const rule rules[] = {
    {QT_RECENCY, recency_any, NULL, recently_alone},
    {QT_TEMPORAL, temporal_any, temporal_start, NULL},
    {QT_AGGREGATION, aggregation_any, NULL, NULL},
    {QT_MULTI_HOP, multi_hop_any, multi_hop_start, plural_question},
    {QT_OPINION, opinion_any, NULL, NULL},
    {QT_ENTITY, entity_any, entity_start, NULL},
    {QT_FACTUAL, NULL, factual_start, NULL},
};

static int has_any(const char *folded, const char *const *phrases)
{
    for (; phrases && *phrases; phrases++)
        if (strstr(folded, *phrases))
            return 1;
    return 0;
}

static int starts_any(const char *folded, const char *const *phrases)
{
    for (; phrases && *phrases; phrases++)
        if (strncmp(folded, *phrases, strlen(*phrases)) == 0)
            return 1;
    return 0;
}

/* Does text start with w (lower case), whatever the case of its letters? */
static int same_word(const char *text, const char *w)
{
    for (; *w; w++, text++)
        if (tolower((unsigned char)*text) != *w)
            return 0;
    return 1;
}

/* "what|which [WORD] <word ending in s> does|did|has|have|do ...": a plural
 * asked for, with at most one word before it ("what LGBTQ events has"). */
static int plural_ask(const char *f)
{
    if (plural_question(f))
        return 1;
    const char *p = strncmp(f, " what ", 6) == 0    ? f + 5
                    : strncmp(f, " which ", 7) == 0 ? f + 6
                                                    : NULL;
    const char *next = p ? strchr(p + 1, ' ') : NULL;
    if (!next)
        return 0;
    char buf[256];
    int n = snprintf(buf, sizeof buf, " what%s", next);
    return n > 0 && (size_t)n < sizeof buf && plural_question(buf);
}

/* Does the question ask for a set of things gathered over time? A plural
 * asked for (plural_ask), "how many times", "both", "in common",
 * "together", or a what-, which- or how-many-question in the present
 * perfect with a speaker for its subject ("what has Melanie painted",
 * "which cities has Ana visited": "has" or "have" just before the name). */
static int asks_set(const char *text, const char *folded, const query *q)
{
    static const char *const set_any[] = {" how many times ", " both ", " common ", " together ",
                                          NULL};
    static const char *const set_start[] = {" what ", " which ", " how many ", NULL};
    if (plural_ask(folded) || has_any(folded, set_any))
        return 1;
    if (!starts_any(folded, set_start))
        return 0;
    for (int k = 0; k < q->n_subj; k++) {
        int b = q->subj_start[k];
        if ((b >= 4 && same_word(text + b - 4, "has ")) ||
            (b >= 5 && same_word(text + b - 5, "have ")))
            return 1;
    }
    return 0;
}

static query_type classify(const char *folded, int n_terms)
{
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
        if (has_any(folded, rules[i].anywhere) || starts_any(folded, rules[i].start) ||
            (rules[i].special && rules[i].special(folded)))
            return rules[i].type;
    return n_terms <= 1 ? QT_VAGUE : QT_GENERAL;
}

/* "How many weeks passed between ...": a count of days, weeks, months or
 * years is the span between the memories' dates, which every memory has,
 * not a number a memory's words must hold, nor a word ("weeks") it asks
 * about. */
static int asks_span(const char *folded)
{
    static const char *const span_any[] = {" how many days ",   " how many weeks ",
                                           " how many months ", " how many years ",
                                           " how many hours ",  NULL};
    return has_any(folded, span_any);
}

/* What kind of value the question asks for, when its words say so. */
static void answer_type(const char *folded, query *q)
{
    static const char *const name_any[] = {" name of ",    " names of ",      " called ",
                                           " named ",      " title of ",      " which city ",
                                           " what city ",  " which country ", " what country ",
                                           " which town ", " what town ",     NULL};
    static const char *const number_any[] = {" how many ", " how much ", " how old ", NULL};
    /* "how much" with a word of buying, selling or giving asks a price */
    static const char *const money_any[] = {
        " cost ",   " costs ",   " price ",  " money ",  " pay ",    " paid ",    " spend ",
        " spent ",  " raise ",   " raised ", " worth ",  " earn ",   " earned ",  " earns ",
        " charge ", " charged ", " fee ",    " salary ", " donate ", " donated ", " sell ",
        " sold ",   " buy ",     " bought ", " afford ", " budget ", " owe ",     NULL};
    /* a surname is a name too, said after the first name ("Gina Ortiz") */
    static const char *const surname_any[] = {" last name ",   " surname ",   " family name ",
                                              " maiden name ", " full name ", NULL};
    q->asks_surname = has_any(folded, surname_any);
    q->asks_name = has_any(folded, name_any) || q->asks_surname;
    q->asks_number = has_any(folded, number_any) && !asks_span(folded);
    q->amount =
        has_any(folded, (const char *const[]){" how old ", NULL}) ? AMOUNT_AGE
        : has_any(folded, (const char *const[]){" how much ", NULL}) && has_any(folded, money_any)
            ? AMOUNT_MONEY
            : AMOUNT_ANY;
}

/* ---- terms --------------------------------------------------------------- */

struct term_ctx {
    query *q;
    const char *text;
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
    if (stopword_is(surface, (size_t)sn))
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
    t->start = start;
    t->end = end;
    return 0;
}

/* idf of each term: log((N - df + 0.5) / (df + 0.5) + 1), df counted in the
 * content column of every profile. A term no memory holds is unknown. */
static ms_status term_idf(store *s, const snapshot *sn, query *q, ms_error *err)
{
    double n = (double)(sn->n_all > 0 ? sn->n_all : 1);
    q->idf_sum = 0;
    q->unknown_terms = q->n_terms == 0; /* nothing to look up counts as unknown */
    int dated = 0;
    for (int i = 0; i < q->n_terms; i++) {
        ms_status st = snapshot_term_docs(sn, s, q->terms[i].text, &q->terms[i].df, err);
        if (st)
            return st;
        double df = (double)q->terms[i].df;
        q->terms[i].idf = log((n - df + 0.5) / (df + 0.5) + 1.0);
        q->idf_sum += q->terms[i].idf;
        /* a date's words ("8", "May", "2023") say when, not what: the
         * temporal channel weighs them, the floor does not */
        q->unknown_terms += q->terms[i].df == 0 && !q->terms[i].in_date;
        dated += q->terms[i].in_date;
    }
    if (q->n_terms > 0 && dated == q->n_terms)
        q->unknown_terms = 0; /* only a date: the question is its date */
    return MS_OK;
}

/* ---- people and things named ------------------------------------------------ */

static int contains(const uint32_t *v, int n, uint32_t x)
{
    for (int i = 0; i < n; i++)
        if (v[i] == x)
            return 1;
    return 0;
}

/* The speaker a span names: the speaker entity itself, or a nickname (an
 * entity of 3+ letters that begins a speaker's name, "Mel" for Melanie). */
static long named_speaker(const snapshot *sn, const char *span, long ent)
{
    if (sn->ent_speaker[ent])
        return ent;
    size_t n = strlen(span);
    if (n < 3)
        return -1;
    for (size_t e = 0; e < sn->n_ent; e++)
        if (sn->ent_speaker[e] && strncmp(snapshot_ent_norm(sn, e), span, n) == 0)
            return (long)e;
    return -1;
}

/* Note that bytes [start, end) of the query name a speaker (once; a span
 * inside one already noted adds nothing). */
static void add_subject(query *q, int start, int end)
{
    for (int k = 0; k < q->n_subj; k++)
        if (start >= q->subj_start[k] && end <= q->subj_end[k])
            return;
    if (q->n_subj >= QUERY_ENTS_MAX)
        return;
    q->subj_start[q->n_subj] = start;
    q->subj_end[q->n_subj++] = end;
}

/* One span of a capitalised run, lower-cased: a speaker, another entity of
 * the store, or nothing. */
static void take_span(const snapshot *sn, const char *text, const words_span *a,
                      const words_span *b, query *q)
{
    char raw[256], span[4 * sizeof raw + 8];
    size_t o = 0;
    for (const words_span *w = a; w <= b; w++) {
        if (w > a && o + 1 < sizeof raw)
            raw[o++] = ' ';
        for (int i = w->start; i < w->end && o + 1 < sizeof raw; i++)
            raw[o++] = text[i];
    }
    store_entity_norm(raw, o, span, sizeof span);
    o = strlen(span);
    if (a == b && stopword_is(span, o))
        return;
    long ent = snapshot_entity(sn, span);
    if (ent < 0)
        return;
    long spk = named_speaker(sn, span, ent);
    if (spk >= 0)
        add_subject(q, a->start, b->end);
    if (spk >= 0 && !contains(q->named, q->n_named, (uint32_t)spk) && q->n_named < QUERY_ENTS_MAX)
        q->named[q->n_named++] = (uint32_t)spk;
    else if (spk < 0 && !contains(q->qents, q->n_qents, (uint32_t)ent) &&
             q->n_qents < QUERY_ENTS_MAX)
        q->qents[q->n_qents++] = (uint32_t)ent;
}

/* Runs of capitalised words (a sentence start counts); every sub-span,
 * longest first, is looked up among the store's entities. */
static void find_named(const snapshot *sn, const char *text, query *q)
{
    enum { MAXW = 256 };
    words_span w[MAXW];
    int n = (int)words_split(text, strlen(text), w, MAXW);
    for (int i = 0; i < n;) {
        if (!w[i].cap) {
            i++;
            continue;
        }
        int j = i;
        while (j + 1 < n && w[j + 1].cap && w[j + 1].joined && j - i < 5)
            j++;
        for (int len = j - i + 1; len >= 1; len--)
            for (int a = i; a + len - 1 <= j; a++)
                take_span(sn, text, &w[a], &w[a + len - 1], q);
        i = j + 1;
    }
}

/* Words that frame a question rather than say what it asks about: the
 * modal verbs and hedges the stop list lacks, the nouns that stand for the
 * answer's slot ("what kind of", "the name of"), and the request frames
 * "tell me about" and "what happened". */
static const char *const frame_words[] = {
    "could", "happen", "happened", "happening", "happens", "kind",  "kinds",   "likely",
    "may",   "might",  "must",     "name",      "names",   "ought", "perhaps", "probably",
    "shall", "sort",   "sorts",    "tell",      "type",    "types", "would",   NULL};

static int frame_word(const char *surface)
{
    for (int i = 0; frame_words[i]; i++)
        if (strcmp(surface, frame_words[i]) == 0)
            return 1;
    return 0;
}

/* The predicate: the terms that are neither part of a speaker's name nor of
 * a date nor a frame word, and the sum of their idf. */
static void find_predicate(query *q)
{
    q->n_pred = 0;
    q->pred_idf_sum = 0;
    for (int t = 0; t < q->n_terms; t++) {
        query_term *qt = &q->terms[t];
        for (int k = 0; k < q->n_subj; k++)
            qt->in_subject |= qt->start >= q->subj_start[k] && qt->end <= q->subj_end[k];
        qt->predicate = !qt->in_subject && !qt->in_date && !frame_word(qt->surface);
        q->n_pred += qt->predicate;
        q->pred_idf_sum += qt->predicate ? qt->idf : 0;
    }
}

/* ---- the focus --------------------------------------------------------------- */

enum { FOCUS_WORDS = 64, FOCUS_LEN = 48 };

static int in_list(const char *w, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(w, *list) == 0)
            return 1;
    return 0;
}

/* Auxiliaries and modals: they end the noun phrase of "which X did ...". */
static const char *const focus_aux[] = {"is",    "are", "was",   "were",  "am",    "be",
                                        "been",  "did", "does",  "do",    "has",   "have",
                                        "had",   "can", "could", "will",  "would", "should",
                                        "might", "may", "must",  "shall", NULL};
static const char *const focus_copula[] = {"is", "are", "was", "were", NULL};
/* Words that end a noun phrase: prepositions, conjunctions, relatives. */
static const char *const focus_stop[] = {
    "at",      "of",     "in",    "on",      "for",     "with",   "to",      "from",  "about",
    "by",      "into",   "over",  "after",   "before",  "during", "between", "among", "like",
    "through", "around", "under", "without", "against", "when",   "while",   "that",  "who",
    "which",   "where",  "and",   "or",      "than",    "as",     NULL};
static const char *const focus_det[] = {"the",   "a",     "an",   "his", "her",  "their",
                                        "its",   "my",    "your", "our", "this", "that",
                                        "these", "those", "some", "any", NULL};
/* Nouns that name the answer's slot, not its content: "the name of the
 * studio" asks about the studio, "her relationship status" about her
 * relationship. */
static const char *const focus_slot[] = {
    "name",    "names",    "kind",     "kinds",   "type",     "types",     "sort",
    "sorts",   "thing",    "things",   "way",     "ways",     "reason",    "reasons",
    "item",    "items",    "status",   "subject", "trait",    "traits",    "aspect",
    "aspects", "part",     "called",   "named",   "reaction", "reactions", "response",
    "opinion", "opinions", "attitude", "feeling", "feelings", "sentiment", "topic",
    "topics",  "latest",   "news",     "update",  "updates",  NULL};

/* Irregular past participles: like a word in -ed, they end the phrase
 * ("where was the picture taken"). */
static const char *const focus_participle[] = {
    "taken", "given", "written", "eaten",  "seen",    "done",   "made",   "held",   "built",
    "known", "shown", "grown",   "drawn",  "worn",    "chosen", "spoken", "broken", "bought",
    "sold",  "told",  "sent",    "spent",  "found",   "kept",   "left",   "lost",   "paid",
    "won",   "begun", "brought", "taught", "thought", "caught", NULL};

static int ends_with(const char *w, const char *tail)
{
    size_t n = strlen(w), k = strlen(tail);
    return n > k && strcmp(w + n - k, tail) == 0;
}

/* The head of the noun phrase starting at word i of w[0..n): its last
 * word before an auxiliary or a word that ends it (a preposition, a
 * conjunction; after its first word, a determiner or a verb form in -ed
 * or -ing: "where was the picture shared"); determiners and possessives
 * ("Jon's") before that start it again. When the phrase is the subject of
 * a verb ("how many people came the ...", verbal), a determiner takes the
 * verb before it out too. A slot noun hands the focus to the phrase after
 * its "of", "on" or "about" ("the latest on the piano lessons"), else to
 * the word before it. "" when none. */
static const char *phrase_head(char (*w)[FOCUS_LEN], int n, int i, int verbal)
{
    int first = i, last = -1;
    for (; i < n && !in_list(w[i], focus_aux) && !in_list(w[i], focus_stop); i++) {
        int det = in_list(w[i], focus_det) || ends_with(w[i], "'s");
        if (last >= 0 && (det || ends_with(w[i], "ed") || ends_with(w[i], "ing") ||
                          in_list(w[i], focus_participle))) {
            if (det && verbal)
                last = last > first ? last - 1 : -1;
            break;
        }
        if (det)
            first = i + 1;
        else
            last = i;
    }
    if (last < 0)
        return "";
    if (!in_list(w[last], focus_slot))
        return w[last];
    if (i < n &&
        (strcmp(w[i], "of") == 0 || strcmp(w[i], "on") == 0 || strcmp(w[i], "about") == 0) &&
        i + 1 < n)
        return phrase_head(w, n, i + 1, 0);
    return last > first && !in_list(w[last - 1], focus_slot) ? w[last - 1] : "";
}

/* The word naming what a question asks, from its form: a copula and a
 * noun phrase ("what was Jon's salary ...", "who was her dance
 * teacher ...", "what is the name of his dog ...", "when is her
 * birthday"), or "how many|much" and one ("how many students ..."). ""
 * for the forms that name none ("where did ...", "what did she do ...",
 * "which car does she drive"). */
static const char *focus_word(char (*w)[FOCUS_LEN], int n)
{
    static const char *const prep[] = {"in", "on", "at", "for", "from", "to", "with", "by", NULL};
    int s = n > 0 && in_list(w[0], prep) ? 1 : 0; /* "in which city ..." */
    if (s + 1 >= n)
        return "";
    const char *wh = w[s], *next = w[s + 1];
    int copula = in_list(next, focus_copula);
    if (strcmp(wh, "what") == 0 || strcmp(wh, "which") == 0 || strcmp(wh, "whose") == 0) {
        /* "which car does she drive": the noun is the answer's category,
         * and the answer an instance of it ("a Prius"), which need not
         * say "car" (docs/QUALITY.md measures it) */
        if (!copula)
            return "";
        /* "what was discussed": a passive, no noun asked */
        return s + 2 < n && ends_with(w[s + 2], "ed") ? "" : phrase_head(w, n, s + 2, 0);
    }
    if ((strcmp(wh, "who") == 0 || strcmp(wh, "where") == 0 || strcmp(wh, "when") == 0) && copula)
        return phrase_head(w, n, s + 2, 0);
    if (strcmp(wh, "how") == 0 && (strcmp(next, "many") == 0 || strcmp(next, "much") == 0) &&
        s + 2 < n && !in_list(w[s + 2], focus_aux))
        return phrase_head(w, n, s + 2, 1);
    return "";
}

/* The space-separated words of folded into w (those shorter than
 * FOCUS_LEN, the first FOCUS_WORDS); returns how many. */
static int split_words(const char *folded, char (*w)[FOCUS_LEN])
{
    int n = 0;
    for (const char *p = folded; *p && n < FOCUS_WORDS;) {
        while (*p == ' ')
            p++;
        const char *b = p;
        while (*p && *p != ' ')
            p++;
        if (p > b && p - b < FOCUS_LEN) {
            memcpy(w[n], b, (size_t)(p - b));
            w[n++][p - b] = '\0';
        }
    }
    return n;
}

/* q->focus: the predicate term of the focus word of folded, or -1. */
static void find_focus(const char *folded, query *q)
{
    char w[FOCUS_WORDS][FOCUS_LEN];
    int n = split_words(folded, w);
    q->focus = -1;
    const char *f = asks_span(folded) ? "" : focus_word(w, n);
    for (int t = 0; f[0] && t < q->n_terms; t++)
        if (q->terms[t].predicate && strcmp(q->terms[t].surface, f) == 0)
            q->focus = t;
    /* "what is the name of his dog": the focus is what the name is of */
    q->name_of = q->focus >= 0 && !q->asks_surname &&
                 has_any(folded, (const char *const[]){" name of ", " names of ", NULL});
}

/* "How many N has|have|had ...": a tally over time ("how many times has
 * she been", "how many books has she written"), which the reader
 * answers by counting the memories that tell of each, none of which need
 * say a number. The first auxiliary after "how many" says which. */
static int asks_tally(char (*w)[FOCUS_LEN], int n)
{
    static const char *const perfect[] = {"has", "have", "had", NULL};
    int i = 0;
    while (i + 1 < n && !(strcmp(w[i], "how") == 0 && strcmp(w[i + 1], "many") == 0))
        i++;
    for (i += 2; i < n; i++)
        if (in_list(w[i], focus_aux))
            return in_list(w[i], perfect);
    return 0;
}

/* q->amount: AMOUNT_COUNT for "how many N" that names its focus N and is
 * no tally: the answer counts N, so a memory must say a count of it ("40
 * students"), not any number ("2 new mirrors"). */
static void find_count(const char *folded, query *q)
{
    char w[FOCUS_WORDS][FOCUS_LEN];
    if (!has_any(folded, (const char *const[]){" how many ", NULL}))
        return;
    q->tally = asks_tally(w, split_words(folded, w));
    if (q->focus >= 0 && q->amount == AMOUNT_ANY && !q->tally)
        q->amount = AMOUNT_COUNT;
}

/* ---- the kind asked for ---------------------------------------------------- */

/* The head noun of the noun phrase at word i of w[0..n): its last word
 * that WordNet knows as a noun or an adjective, before a word that ends it
 * (as phrase_head: an auxiliary, a preposition, a determiner, a possessive,
 * a verb form in -ed or -ing after its first word) or a word it does not
 * know as either ("which fashion magazine gave ..."). A slot noun hands it
 * to the phrase after its "of" ("what kind of dog"); without one it names
 * no kind, whatever follows ("what items des he mention": no kind of
 * mention is asked). "" when none. */
static const char *kind_head(const lexicon *lx, char (*w)[FOCUS_LEN], int n, int i)
{
    int last = -1;
    for (; i < n && !in_list(w[i], focus_aux) && !in_list(w[i], focus_stop) &&
           !in_list(w[i], focus_det) && !ends_with(w[i], "'s");
         i++) {
        size_t len = strlen(w[i]);
        if (last >= 0 &&
            (ends_with(w[i], "ed") || ends_with(w[i], "ing") || in_list(w[i], focus_participle)))
            break;
        if (!lexicon_is_noun(lx, w[i], len) && !lexicon_is_adjective(lx, w[i], len))
            break;
        last = i;
        if (in_list(w[i], focus_slot) && !(i + 1 < n && strcmp(w[i + 1], "of") == 0))
            return "";
    }
    if (last < 0)
        return "";
    if (in_list(w[last], focus_slot)) {
        if (i + 1 < n && strcmp(w[i], "of") == 0) {
            for (i++; i < n && in_list(w[i], focus_det); i++)
                ;
            return kind_head(lx, w, n, i);
        }
        return "";
    }
    return lexicon_is_noun(lx, w[last], strlen(w[last])) ? w[last] : "";
}

/* q->kind: the noun of "which|what NOUN <verb> ..." ("which city does she
 * live in", "what instrument does he play", "what kind of dog is Shadow"):
 * the answer is a kind of it, and q->kind_which is 1 for "which", that asks
 * for one in particular. Not the copula forms ("what is her job", the
 * focus). Needs WordNet (lexicon.h); "" without it. */
static void find_kind(const char *folded, query *q)
{
    char w[FOCUS_WORDS][FOCUS_LEN];
    int n = split_words(folded, w);
    static const char *const prep[] = {"in", "on", "at", "for", "from", "to", "with", "by", NULL};
    int s = n > 0 && in_list(w[0], prep) ? 1 : 0;
    q->kind[0] = '\0';
    if (s + 2 >= n || (strcmp(w[s], "what") != 0 && strcmp(w[s], "which") != 0) ||
        in_list(w[s + 1], focus_aux) || in_list(w[s + 1], focus_stop) ||
        in_list(w[s + 1], focus_det))
        return;
    const lexicon *lx = lexicon_default(); /* only for this form: reading it takes time */
    if (!lx)
        return;
    snprintf(q->kind, sizeof q->kind, "%s", kind_head(lx, w, n, s + 1));
    q->kind_which = strcmp(w[s], "which") == 0;
}

/* ---- the possessed person ------------------------------------------------ */

/* Words in 's that are no possessive. */
static const char *const not_possessive[] = {"it's",  "that's",  "what's", "who's", "he's",
                                             "she's", "there's", "here's", "let's", "where's",
                                             "how's", "when's",  "why's",  NULL};

/* Is w (n bytes) a noun whose most frequent sense WordNet files under
 * noun.person (18) or noun.animal (5): someone a question can ask about? */
static int being(const lexicon *lx, const char *w, size_t n)
{
    int c = lexicon_noun_class(lx, w, n);
    return c == 18 || c == 5;
}

/* q->owner: the person or animal a possessive names ("Melanie's daughter",
 * "the kids' dog"): the first of the three words after "X's" or "Xs'" that
 * WordNet knows as a person or an animal ("daughter's" counts as
 * "daughter"), before an auxiliary or a word that ends a noun phrase. The
 * question asks about them, not their owner. "" when none; needs WordNet. */
static void find_owner(const char *folded, query *q)
{
    char w[FOCUS_WORDS][FOCUS_LEN];
    int n = split_words(folded, w);
    q->owner[0] = '\0';
    const lexicon *lx = NULL;
    for (int i = 0; i + 1 < n && !q->owner[0]; i++) {
        if (!(ends_with(w[i], "'s") || ends_with(w[i], "s'")) || in_list(w[i], not_possessive))
            continue;
        if (!lx && !(lx = lexicon_default()))
            return;
        for (int j = i + 1; j < n && j <= i + 3 && !q->owner[0]; j++) {
            if (in_list(w[j], focus_aux) || in_list(w[j], focus_stop) || in_list(w[j], focus_det))
                break;
            size_t len = strlen(w[j]);
            if (ends_with(w[j], "'s"))
                len -= 2;
            else if (ends_with(w[j], "s'"))
                len -= 1;
            if (being(lx, w[j], len))
                snprintf(q->owner, sizeof q->owner, "%.*s", (int)len, w[j]);
        }
    }
}

/* ---- the verb of who and where ------------------------------------------- */

/* Is w the surface of a query term in a speaker's name? */
static int subject_word(const query *q, const char *w)
{
    for (int t = 0; t < q->n_terms; t++)
        if (q->terms[t].in_subject && strcmp(q->terms[t].surface, w) == 0)
            return 1;
    return 0;
}

static int no_base(void *ctx, const char *w, size_t n)
{
    (void)ctx;
    (void)w;
    (void)n;
    return 0;
}

/* q->wh and q->wh_verb: "who|where [AUX] [SUBJECT] VERB ...": the first
 * word after the wh-word and its auxiliary, past a determiner, a
 * possessive and the speakers' names, that WordNet knows as a verb ("who
 * won the contest", "where did Jon grow up", "where does the family
 * travel"); after "go", an activity in -ing ("where does Tom go rowing").
 * A copula asks for what its noun names (the focus), and is left out.
 * Needs WordNet. */
static void find_wh_verb(const char *folded, query *q)
{
    char w[FOCUS_WORDS][FOCUS_LEN];
    int n = split_words(folded, w);
    q->wh = WH_NONE;
    q->wh_verb[0] = '\0';
    if (n < 2 || (strcmp(w[0], "who") != 0 && strcmp(w[0], "where") != 0) ||
        in_list(w[1], focus_copula))
        return;
    const lexicon *lx = lexicon_default();
    if (!lx)
        return;
    int i = in_list(w[1], focus_aux) ? 2 : 1;
    for (int seen = 0; i < n && seen < 4; i++, seen++) {
        size_t len = strlen(w[i]);
        if (in_list(w[i], focus_det) || ends_with(w[i], "'s") || subject_word(q, w[i]))
            continue;
        if (in_list(w[i], focus_aux) || in_list(w[i], focus_stop))
            return;
        if (lexicon_verb_bases(lx, w[i], len, no_base, NULL) > 0) {
            /* "go rowing": the activity is the verb */
            static const char *const go[] = {"go", "goes", "went", "going", "gone", NULL};
            if (in_list(w[i], go) && i + 1 < n && ends_with(w[i + 1], "ing"))
                i++;
            snprintf(q->wh_verb, sizeof q->wh_verb, "%s", w[i]);
            q->wh = w[0][2] == 'o' ? WH_WHO : WH_WHERE;
            return;
        }
    }
}

/* ---- the verb of what ---------------------------------------------------- */

/* WordNet's classes of verbs of thinking and of telling. */
#define VERB_COGNITION 31
#define VERB_COMMUNICATION 32

struct bare_ctx {
    const char *w;
    int bare; /* the word is its own base form */
};

static int is_bare(void *p, const char *b, size_t n)
{
    struct bare_ctx *c = p;
    c->bare |= strlen(c->w) == n && memcmp(c->w, b, n) == 0;
    return c->bare;
}

/* Is w a verb form that can follow aux: its own base form after "do" or
 * a modal ("did she study"), any form after "has"/"had" ("has painted")? */
static int verb_after(const lexicon *lx, const char *aux, const char *w)
{
    struct bare_ctx c = {w, 0};
    int n = lexicon_verb_bases(lx, w, strlen(w), is_bare, &c);
    return n > 0 && (c.bare || strcmp(aux, "has") == 0 || strcmp(aux, "had") == 0);
}

/* Does "do" at w[i] ask for a job: "do for a living", "do for work",
 * "do for a job"? */
static int for_a_living(char (*w)[FOCUS_LEN], int n, int i)
{
    if (strcmp(w[i], "do") != 0 || i + 2 >= n || strcmp(w[i + 1], "for") != 0)
        return 0;
    if (strcmp(w[i + 2], "work") == 0)
        return 1;
    return i + 3 < n && strcmp(w[i + 2], "a") == 0 &&
           (strcmp(w[i + 3], "living") == 0 || strcmp(w[i + 3], "job") == 0);
}

/* q->what_verb: "what AUX [SUBJECT] VERB ...": the first word after the
 * auxiliary (not a copula), past determiners, possessives and the
 * speakers' names, in the form the auxiliary takes, that WordNet knows as
 * a verb ("what did Maria study in school", "what has Melanie painted");
 * of a noun that is a verb too followed by a verb, the second ("what did
 * the charity race raise"). The answer is what the verb is done to, so a
 * memory that answers says the verb or a word of its family. "Do for a
 * living / for work / for a job" asks for work: "work". Not "do", "be",
 * "have" (auxiliaries: any activity or state answers them), nor a verb
 * whose most frequent sense is one of thinking or telling ("say", "think",
 * "compare") or takes a clause or complement ("want to"): its answer is a
 * statement, said without the verb. Needs WordNet. */
static void find_what_verb(const char *folded, query *q)
{
    char w[FOCUS_WORDS][FOCUS_LEN];
    int n = split_words(folded, w);
    q->what_verb[0] = '\0';
    if (n < 3 || strcmp(w[0], "what") != 0 || !in_list(w[1], focus_aux) ||
        in_list(w[1], focus_copula))
        return;
    const lexicon *lx = lexicon_default();
    if (!lx)
        return;
    for (int i = 2, seen = 0; i < n && seen < 5; i++, seen++) {
        if (in_list(w[i], focus_det) || ends_with(w[i], "'s") || subject_word(q, w[i]) ||
            strcmp(w[i], "and") == 0)
            continue;
        if (for_a_living(w, n, i)) {
            snprintf(q->what_verb, sizeof q->what_verb, "work");
            return;
        }
        if (in_list(w[i], focus_aux) || in_list(w[i], focus_stop))
            return;
        if (!verb_after(lx, w[1], w[i]))
            continue;
        if (i + 1 < n && lexicon_is_noun(lx, w[i], strlen(w[i])) && verb_after(lx, w[1], w[i + 1]))
            i++;
        int cls = lexicon_verb_class(lx, w[i], strlen(w[i]));
        if (!lexicon_verb_clausal(lx, w[i], strlen(w[i])) && cls != VERB_COGNITION &&
            cls != VERB_COMMUNICATION)
            snprintf(q->what_verb, sizeof q->what_verb, "%s", w[i]);
        return;
    }
}

/* ---- the query vector ----------------------------------------------------- */

struct weight_ctx {
    store *s;
    const snapshot *sn;
};

/* A query token's weight: its idf in the store, ln((N + 1) / (df + 1)) + 1,
 * with df that of its FTS5 stem in the content column. */
static double token_weight(void *p, const char *t, size_t n)
{
    struct weight_ctx *c = p;
    char stem[64];
    int64_t df = 0;
    if (query_stem(c->s, t, n, stem, sizeof stem) == 0)
        snapshot_term_docs(c->sn, c->s, stem, &df, NULL);
    double nn = (double)(c->sn->n_all > 0 ? c->sn->n_all : 1);
    return log((nn + 1) / ((double)df + 1)) + 1;
}

/* The vector of the query with the speakers' names blanked: what it asks
 * about them. The query vector itself when it names no speaker. */
static ms_status remainder_vector(embedder *emb, query *q, struct weight_ctx *wc, int dim,
                                  ms_error *err)
{
    if (q->n_subj == 0) {
        q->rvec = q->qvec;
        return MS_OK;
    }
    char *rest = strdup(q->text);
    q->rvec = calloc((size_t)dim, sizeof *q->rvec);
    if (!rest || !q->rvec) {
        free(rest);
        return ms_fail(err, MS_NOMEM, "out of memory");
    }
    for (int k = 0; k < q->n_subj; k++)
        memset(rest + q->subj_start[k], ' ', (size_t)(q->subj_end[k] - q->subj_start[k]));
    ms_status st = embed_query(emb, rest, token_weight, wc, q->rvec, err);
    free(rest);
    return st;
}

/* ---- about now ----------------------------------------------------------------- */

/* Does the question ask how things are now, so that the latest fact wins
 * (stage2.c `latest`)? Not when it names a date or speaks in the past
 * ("did", "was", "used to", "ago"); yes when it says now ("now",
 * "currently", "still", "any more", "these days", "latest", ...) or asks in
 * the present tense ("is", "are", "does", "has", "what's" among its first
 * three words). docs/ENGINE.md. */
static int about_now(const char *folded, const query *q)
{
    static const char *const past[] = {" did ", " was ",    " were ",   " had ",     " used to ",
                                       " ago ", " didn't ", " wasn't ", " weren't ", NULL};
    static const char *const now[] = {" now ",           " currently ", " current ",  " nowadays ",
                                      " these days ",    " still ",     " any more ", " anymore ",
                                      " at the moment ", " latest ",    " today ",    NULL};
    static const char *const present[] = {" is ",    " are ",   " am ",      " does ",    " do ",
                                          " has ",   " have ",  " what's ",  " where's ", " who's ",
                                          " how's ", " isn't ", " doesn't ", NULL};
    if (q->n_dates > 0 || has_any(folded, past))
        return 0;
    if (has_any(folded, now))
        return 1;
    const char *p = folded; /* the first three words */
    for (int w = 0; w < 3 && p && p[1]; w++)
        p = strchr(p + 1, ' ');
    size_t len = p ? (size_t)(p - folded) + 1 : strlen(folded);
    for (int i = 0; present[i]; i++) {
        const char *hit = strstr(folded, present[i]);
        if (hit && (size_t)(hit - folded) + strlen(present[i]) <= len)
            return 1;
    }
    return 0;
}

/* ---- synonyms in the query vector ------------------------------------------ */

struct syn_ctx {
    query *q;
    struct weight_ctx *wc;
    const query_term *from;
    int first; /* q->n_syn before this term's synonyms */
};

/* Keep a synonym the store holds and the query does not already say. */
static int take_synonym(void *p, const char *w, size_t n)
{
    struct syn_ctx *c = p;
    query *q = c->q;
    if (q->n_syn >= QUERY_SYN_MAX)
        return 1;
    char stem[64];
    int64_t df = 0;
    if (n >= sizeof q->syn[0].word || query_stem(c->wc->s, w, n, stem, sizeof stem) != 0)
        return 0;
    for (int t = 0; t < q->n_terms; t++)
        if (strcmp(q->terms[t].text, stem) == 0)
            return 0;
    for (int k = 0; k < q->n_syn; k++)
        if (strcmp(q->syn[k].stem, stem) == 0)
            return 0;
    if (snapshot_term_docs(c->wc->sn, c->wc->s, stem, &df, NULL) || df == 0)
        return 0;
    query_synonym *y = &q->syn[q->n_syn++];
    memcpy(y->word, w, n);
    y->word[n] = '\0';
    snprintf(y->stem, sizeof y->stem, "%s", stem);
    snprintf(y->from, sizeof y->from, "%s", c->from->surface);
    y->weight = token_weight(c->wc, w, n);
    return 0;
}

/* The synonyms of the predicate's words that the store holds (lexicon.h),
 * each weighted a * its idf / sqrt(k) for the k synonyms of its word: a
 * word's synonyms together weigh as much as a word of their idf times a. */
static void find_synonyms(query *q, struct weight_ctx *wc, double a)
{
    const lexicon *lx = lexicon_default();
    if (!lx)
        return;
    for (int t = 0; t < q->n_terms && q->n_syn < QUERY_SYN_MAX; t++) {
        const query_term *qt = &q->terms[t];
        if (!qt->predicate)
            continue;
        struct syn_ctx c = {q, wc, qt, q->n_syn};
        lexicon_synonyms(lx, qt->surface, strlen(qt->surface), QUERY_SYN_SENSES, take_synonym, &c);
        int k = q->n_syn - c.first;
        for (int j = c.first; j < q->n_syn; j++)
            q->syn[j].weight *= a / sqrt((double)k);
    }
}

/* The query vector with the synonyms' features; the plain one stays the
 * remainder's vector when it was the same (the evidence floor reads what
 * the query says, not what it might mean). */
static ms_status synonym_vector(embedder *emb, query *q, struct weight_ctx *wc, int dim, double a,
                                ms_error *err)
{
    if (a <= 0 || !embed_is_builtin(emb))
        return MS_OK;
    find_synonyms(q, wc, a);
    if (q->n_syn == 0)
        return MS_OK;
    embed_word extra[QUERY_SYN_MAX];
    for (int k = 0; k < q->n_syn; k++)
        extra[k] = (embed_word){q->syn[k].word, q->syn[k].weight};
    float *v = calloc((size_t)dim, sizeof *v);
    if (!v)
        return ms_fail(err, MS_NOMEM, "out of memory");
    ms_status st =
        embed_query_with(emb, q->text, extra, (size_t)q->n_syn, token_weight, wc, v, err);
    if (st) {
        free(v);
        return st;
    }
    if (q->rvec != q->qvec)
        free(q->qvec);
    q->qvec = v;
    return MS_OK;
}

/* ---- the whole analysis ----------------------------------------------------- */

ms_status query_analyse(store *s, const snapshot *sn, embedder *emb, const char *text, int64_t now,
                        double synonyms, query *q, ms_error *err)
{
    memset(q, 0, sizeof *q);
    q->focus = -1;
    q->text = text;
    q->now = now;
    struct term_ctx c = {q, text};
    ms_status st = store_tokenize(s, text, (int)strlen(text), add_term, &c, err);
    if (st)
        return st;
    q->n_dates = dates_parse(text, now, q->dates, QUERY_DATES_MAX);
    for (int t = 0; t < q->n_terms; t++)
        for (int d = 0; d < q->n_dates; d++)
            q->terms[t].in_date |= q->terms[t].start >= q->dates[d].start_off &&
                                   q->terms[t].end <= q->dates[d].end_off;
    if ((st = term_idf(s, sn, q, err)))
        return st;
    find_named(sn, text, q);
    find_predicate(q);
    char *folded = fold(text);
    if (!folded)
        return ms_fail(err, MS_NOMEM, "out of memory");
    q->type = classify(folded, q->n_terms);
    answer_type(folded, q);
    find_focus(folded, q);
    find_count(folded, q);
    find_kind(folded, q);
    find_owner(folded, q);
    find_wh_verb(folded, q);
    find_what_verb(folded, q);
    q->about_now = about_now(folded, q);
    q->asks_set = asks_set(text, folded, q);
    static const char *const newest[] = {" latest ", " most recent ", " most recently ",
                                         " last time ", NULL};
    q->asks_newest = has_any(folded, newest) || recently_alone(folded);
    free(folded);
    if (emb && sn->dim == embed_dim(emb) && sn->vec_embedder &&
        strcmp(sn->vec_embedder, embed_id(emb)) == 0) {
        q->qvec = calloc((size_t)sn->dim, sizeof *q->qvec);
        if (!q->qvec)
            return ms_fail(err, MS_NOMEM, "out of memory");
        struct weight_ctx wc = {s, sn};
        st = embed_query(emb, text, token_weight, &wc, q->qvec, err);
        if (!st)
            st = remainder_vector(emb, q, &wc, sn->dim, err);
        if (!st)
            st = synonym_vector(emb, q, &wc, sn->dim, synonyms, err);
        if (st) {
            query_clear(q);
            return st;
        }
    }
    return MS_OK;
}

void query_clear(query *q)
{
    if (q->rvec != q->qvec)
        free(q->rvec);
    free(q->qvec);
    q->qvec = NULL;
    q->rvec = NULL;
}

struct stem_ctx {
    char *out;
    size_t cap;
    int got;
};

static int first_token(void *p, const char *tok, int len, int start, int end)
{
    struct stem_ctx *c = p;
    (void)start;
    (void)end;
    if ((size_t)len < c->cap) {
        memcpy(c->out, tok, (size_t)len);
        c->out[len] = '\0';
        c->got = 1;
    }
    return 1;
}

int query_stem(store *s, const char *word, size_t n, char *out, size_t cap)
{
    struct stem_ctx c = {out, cap, 0};
    if (store_tokenize(s, word, (int)n, first_token, &c, NULL))
        return -1;
    return c.got ? 0 : -1;
}
