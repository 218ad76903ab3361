/* floor.c - the evidence floor: does a memory support what the query asks?
 *
 * A query names its subject (the speakers it names: "Caroline") and asks
 * something about it: the predicate, its other content words ("blood
 * type"). Naming the subject is not evidence: nearly every memory of a
 * conversation is spoken by or names one of its speakers, so a rule that
 * counted it let every on-topic question through, answerable or not. A
 * memory passes when something in it supports the predicate. The rules, in
 * the order they are applied, and where each lives:
 *   - pinned (here): the user said it always matters;
 *   - subject (here): the query asks nothing beyond the speakers it names
 *     (no predicate word, no date: "Caroline", "tell me about Leah"), so a
 *     memory spoken by or naming one of them passes;
 *   - the answer's type (here): a query asking for a name, a number, a sum
 *     of money, an age or a count of what it asks ("how many students": a
 *     number before "students") cuts a memory that holds none, itself or with the
 *     pooled memories an edge joins it to, unless it falls on the date the
 *     query names; when a possessive names the one asked about ("Melanie's
 *     daughter"), only a memory about them holds one; for "the name of
 *     N", only a memory that says N (floor_named_new), and for a last
 *     name, only one that says a name after the subject's
 *     (floor_holds_surname) (engine.c);
 * then each channel's own rule (channel_ops.floor, asked in ascending
 * floor_rule.ask; a sixth channel brings its own):
 *   - lexical (ch_bm25.c): the idf-weighted share of the predicate's terms
 *     it holds, sum idf(t in m) / sum idf(t in predicate), reaches the
 *     lexical threshold. A term no memory holds weighs the most and is never
 *     held;
 *   - context (ch_bm25.c): the same share reaches it when the terms of the
 *     pooled memories an edge joins it to count too (the words of a question
 *     are often in the turn before the answer). For both: a query that names
 *     nothing the store knows (no speaker, no other entity) must at least be
 *     about the store, so overlap counts only when every predicate word
 *     occurs in the store somewhere;
 *   - temporal (ch_temporal.c): the query names a date (the date is part of
 *     what it asks), the memory falls on it, and every predicate word occurs
 *     somewhere in the store, or the query names someone the store knows and
 *     the word it asks about, if any, is held (floor_date_open): "What major
 *     achievement did Joanna have in January 2022?" asks what her memories
 *     of that month say, whatever their words, but "What is the title of the
 *     book she finished in October?" asks for a title no memory holds;
 *   - semantic (ch_semantic.c): the cosine of the remainder (the query with
 *     the speakers' names blanked) with the memory reaches the cosine
 *     threshold;
 * and after all of them, over the pool (engine.c):
 *   - focus: when the question's form names the word it asks about, a pass
 *     by a rule of overlap or meaning (floor_rule.needs_focus) stands only
 *     if some such pass holds that word, or states the attribute the
 *     question asks (stage2_states: "I work as a nurse" for "what is my
 *     role");
 *   - kind: the same for a question asking which or what kind of a
 *     nameable thing (a thing, an act, a work): some such pass must name
 *     one (floor_kinds);
 *   - slot: the same for "who won ...", "where did she grow up": some such
 *     pass, with the memories an edge joins it to (its exchange), must say
 *     the verb and a name, a person or a place (floor_slot);
 *   - association: an edge joins it to a pooled memory that passes by one of
 *     the rules above other than pinned (stage2.c: or it supersedes one).
 * Each channel's rule measures its own numbers for every pooled memory
 * (floor_rule.measure) from what is computed once, not its text read
 * again: the terms it holds from bm25's postings in the snapshot file,
 * whose postings say whether their term is in the memory's own text or
 * only its neighbours' (postings_own; for a snapshot read from the tables,
 * or a damaged list, floor_terms_in below tokenises its text, the same
 * bits: tests/postings-test.c), the cosines from the snapshot's vectors,
 * the date from the temporal channel's list; and it says why it passes
 * or, for a cut, its clause of the reason. The speaker boost stays
 * a ranking signal. Defaults and their risk-coverage tables are in
 * docs/QUALITY.md. */
#include "engine_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lexicon.h"
#include "stopwords.h"

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

uint64_t floor_terms_in(store *s, const query *q, const char *text)
{
    struct cover_ctx c = {q, 0};
    if (q->n_terms == 0 || !text || store_tokenize(s, text, (int)strlen(text), on_token, &c, NULL))
        return 0;
    return c.seen;
}

double floor_coverage(const query *q, uint64_t seen)
{
    if (q->idf_sum <= 0)
        return 0;
    double got = 0;
    for (int t = 0; t < q->n_terms && t < 64; t++)
        if (seen & (1ull << t))
            got += q->terms[t].idf;
    return got / q->idf_sum;
}

double floor_predicate_coverage(const query *q, uint64_t seen)
{
    if (q->pred_idf_sum <= 0)
        return 0;
    double got = 0;
    for (int t = 0; t < q->n_terms && t < 64; t++)
        if (q->terms[t].predicate && (seen & (1ull << t)))
            got += q->terms[t].idf;
    return got / q->pred_idf_sum;
}

int floor_lexical_open(const floor_in *in)
{
    return in->names_known || in->pred_known;
}

/* The kind of value the query asks for that neither the memory nor the
 * memories joined to it hold, or NULL. */
static const char *missing_answer(const floor_in *in)
{
    if (in->asks_name && !in->holds_name)
        return "a name";
    if (in->asks_number && !in->holds_number)
        return in->amount == AMOUNT_MONEY                 ? "a sum of money"
               : in->amount == AMOUNT_AGE && in->age_self ? "an age said of the one it asks about"
               : in->amount == AMOUNT_AGE                 ? "an age"
               : in->amount == AMOUNT_COUNT               ? "a count"
                                                          : "a number";
    return NULL;
}

int floor_date_open(const floor_in *in)
{
    return in->pred_known || (in->names_known && (!in->focus || in->context_focus));
}

int floor_answer_held(const floor_in *in)
{
    return !missing_answer(in) || in->on_date;
}

/* The ids of the channels that bring a floor rule into order[], in
 * ascending ask (or tell) and, on a tie, in the table's order; the count. */
static int rules_in_order(int by_tell, int order[CH_COUNT])
{
    int n = 0;
    for (int c = 0; c < CH_COUNT; c++)
        if (engine_channels[c]->floor)
            order[n++] = c;
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0; b--) {
            const floor_rule *x = engine_channels[order[b]]->floor;
            const floor_rule *y = engine_channels[order[b - 1]]->floor;
            if ((by_tell ? x->tell < y->tell : x->ask < y->ask) == 0)
                break;
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    return n;
}

/* Append src to dst (capacity cap) after sep, unless dst is empty. */
static void append_clause(char *dst, size_t cap, const char *sep, const char *src)
{
    size_t n = strlen(dst);
    if (src[0] && n + 1 < cap)
        snprintf(dst + n, cap - n, "%s%s", n ? sep : "", src);
}

/* Why a memory no rule passes is cut: each channel rule's clause, the
 * asked word it lacks, and that naming the speaker is not evidence. */
static void cut_reason(const floor_in *in, char *why, size_t len)
{
    int order[CH_COUNT], n = rules_in_order(1, order);
    why[0] = '\0';
    for (int k = 0; k < n; k++) {
        char clause[256];
        clause[0] = '\0';
        engine_channels[order[k]]->floor->judge(in, clause, sizeof clause);
        append_clause(why, len, ", ", clause);
    }
    char focus[96] = "";
    if (in->focus && !in->context_focus)
        snprintf(focus, sizeof focus, "; it holds no \"%.40s\", what the question asks for",
                 in->focus);
    else if (in->kind && !in->holds_kind)
        snprintf(focus, sizeof focus, "; it names no %s \"%.32s\"%s%.24s%s",
                 in->kind_which ? "particular" : "kind of", in->kind, in->owner ? " beside \"" : "",
                 in->owner ? in->owner : "", in->owner ? "\"" : "");
    size_t at = strlen(why);
    if (at + 1 < len)
        snprintf(why + at, len - at, "%s%s", focus,
                 in->names_subject ? "; naming the speaker is not evidence" : "");
}

const char *floor_judge(const floor_in *in, char *why, size_t len)
{
    if (in->pinned) {
        snprintf(why, len, "pinned");
        return "pinned";
    }
    if (in->n_pred == 0 && !in->has_date && in->names_subject) {
        snprintf(why, len, "the query asks nothing beyond the speaker it names");
        return "subject";
    }
    const char *missing = missing_answer(in);
    if (missing && !in->on_date) {
        if (strcmp(missing, "a count") == 0 && in->focus)
            snprintf(why, len,
                     "the query asks for a count of \"%s\" and neither it nor a memory joined to "
                     "it says one (a number before the word)",
                     in->focus);
        else if (in->surname)
            snprintf(why, len,
                     "the query asks for a last name and neither it nor a memory joined to it "
                     "says a name after the one it asks about");
        else if (in->name_of)
            snprintf(why, len,
                     "the query asks for the name of \"%s\" and neither it nor a memory joined "
                     "to it says a name beside it",
                     in->name_of);
        else if (in->owner)
            snprintf(why, len,
                     "the query asks for %s of its \"%s\" and neither it nor a memory joined to "
                     "it holds one beside them",
                     missing, in->owner);
        else
            snprintf(why, len,
                     "the query asks for %s and neither it nor a memory joined to it holds one",
                     missing);
        return NULL;
    }
    int order[CH_COUNT], n = rules_in_order(0, order);
    for (int k = 0; k < n; k++) {
        const char *by = engine_channels[order[k]]->floor->judge(in, why, len);
        if (by)
            return by;
    }
    cut_reason(in, why, len);
    return NULL;
}

int floor_needs_focus(const char *by)
{
    for (int c = 0; by && c < CH_COUNT; c++) {
        const floor_rule *r = engine_channels[c]->floor;
        for (int k = 0; r && r->names[k]; k++)
            if (strcmp(by, r->names[k]) == 0)
                return r->needs_focus;
    }
    return 0;
}

/* Append src to dst (capacity cap), with a space before it unless first. */
static void append_word(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(dst);
    if (n + 1 < cap)
        snprintf(dst + n, cap - n, "%s%s", n ? " " : "", src);
}

void floor_describe(const query *q, uint64_t held, char *predicate, char *unheld, char *subject,
                    size_t cap)
{
    predicate[0] = unheld[0] = subject[0] = '\0';
    for (int t = 0; t < q->n_terms && t < 64; t++) {
        if (!q->terms[t].predicate)
            continue;
        append_word(predicate, cap, q->terms[t].surface);
        if (!(held & (1ull << t)))
            append_word(unheld, cap, q->terms[t].surface);
    }
    for (int k = 0; k < q->n_subj; k++) {
        char name[128];
        int n = q->subj_end[k] - q->subj_start[k];
        snprintf(name, sizeof name, "%.*s", n, q->text + q->subj_start[k]);
        if (k > 0)
            append_word(subject, cap, "and");
        append_word(subject, cap, name);
    }
}

/* ---- the kind asked for ---------------------------------------------------- */

typedef struct kind_word {
    char *w;           /* owned */
    unsigned char own; /* a word of the noun's own senses ("city", "metropolis") */
} kind_word;

struct floor_kinds {
    kind_word *v; /* sorted by word and distinct once built */
    size_t n, cap;
    const lexicon *lx; /* not owned */
    int which;         /* the question asks "which": one in particular */
    int titled;        /* a work or a message: a title or a brand names one */
    int failed;        /* out of memory while collecting */
};

/* WordNet's lexicographer class of communication (noun.communication). */
#define NOUN_COMMUNICATION 10

/* WordNet's noun classes whose members are things one can name: acts
 * (a sport, a game, a dance), animals, artifacts, body parts,
 * communications (a language, a song, a magazine), foods, groups
 * (organisations), locations, natural objects, people, plants, substances.
 * A kind of attribute, cognition, event or idea (a technique, a colour, a
 * disaster) is said in other words. */
static int concrete_class(int c)
{
    static const int named[] = {4, 5, 6, 8, NOUN_COMMUNICATION, 13, 14, 15, 17, 18, 20, 27};
    for (size_t k = 0; k < sizeof named / sizeof *named; k++)
        if (c == named[k])
            return 1;
    return 0;
}

static int kind_add(void *p, const char *lemma, size_t n, int own)
{
    floor_kinds *k = p;
    if (k->n == k->cap) {
        size_t cap = k->cap ? k->cap * 2 : 256;
        kind_word *v = realloc(k->v, cap * sizeof *v);
        if (!v) {
            k->failed = 1;
            return 1;
        }
        k->v = v;
        k->cap = cap;
    }
    if (!(k->v[k->n].w = strndup(lemma, n))) {
        k->failed = 1;
        return 1;
    }
    k->v[k->n++].own = (unsigned char)own;
    return 0;
}

static int by_word(const void *a, const void *b)
{
    return strcmp(((const kind_word *)a)->w, ((const kind_word *)b)->w);
}

/* Sort the words and merge duplicates; a word is own when any copy is. */
static void kinds_sort(floor_kinds *k)
{
    qsort(k->v, k->n, sizeof *k->v, by_word);
    size_t m = 0;
    for (size_t i = 0; i < k->n; i++) {
        if (m > 0 && strcmp(k->v[m - 1].w, k->v[i].w) == 0) {
            k->v[m - 1].own |= k->v[i].own;
            free(k->v[i].w);
            continue;
        }
        k->v[m++] = k->v[i];
    }
    k->n = m;
}

void floor_kinds_free(floor_kinds *k)
{
    if (!k)
        return;
    for (size_t i = 0; i < k->n; i++)
        free(k->v[i].w);
    free(k->v);
    free(k);
}

/* The words of word's first senses and of every synset below them. */
static floor_kinds *kinds_of(const char *word, int which, const lexicon *lx)
{
    floor_kinds *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->lx = lx;
    k->which = which;
    int visited =
        lexicon_kinds(lx, word, strlen(word), FLOOR_KIND_SENSES, FLOOR_KIND_SYNSETS, kind_add, k);
    if (visited < 0 || k->failed) {
        floor_kinds_free(k);
        return NULL;
    }
    kinds_sort(k);
    return k;
}

floor_kinds *floor_kinds_new(const query *q, const lexicon *lx)
{
    int cls = lx && q->kind[0] ? lexicon_noun_class(lx, q->kind, strlen(q->kind)) : -1;
    if (!concrete_class(cls))
        return NULL;
    floor_kinds *k = kinds_of(q->kind, q->kind_which, lx);
    if (k)
        k->titled = cls == NOUN_COMMUNICATION;
    return k;
}

floor_kinds *floor_owner_new(const query *q, const lexicon *lx)
{
    return lx && q->owner[0] ? kinds_of(q->owner, 0, lx) : NULL;
}

static int first_base(void *p, const char *w, size_t n)
{
    char *out = p;
    if (out[0] || n >= 64)
        return 0;
    memcpy(out, w, n);
    out[n] = '\0';
    return 1;
}

floor_kinds *floor_named_new(const query *q, const lexicon *lx)
{
    if (!lx || !q->name_of || q->focus < 0)
        return NULL;
    const char *w = q->terms[q->focus].surface;
    char base[64] = "";
    lexicon_noun_bases(lx, w, strlen(w), first_base, base);
    return kinds_of(base[0] ? base : w, 0, lx);
}

int floor_holds_surname(const char *text, const char *name, size_t n)
{
    for (const char *p = text; n && p && *p; p++) {
        if (strncasecmp(p, name, n) != 0 || (p > text && isalpha((unsigned char)p[-1])))
            continue;
        const char *after = p + n;
        if (after[0] == ' ' && isupper((unsigned char)after[1]) && isalpha((unsigned char)after[2]))
            return 1;
    }
    return 0;
}

/* What a text holds of the kinds: bit 1 a word below the noun's senses
 * ("clarinet"), bit 2 one of their own words ("instrument"). */
struct held_ctx {
    const floor_kinds *k;
    int held;
};

static int kind_look(void *p, const char *w, size_t n)
{
    struct held_ctx *c = p;
    char key[64];
    if (n >= sizeof key)
        return 0;
    memcpy(key, w, n);
    key[n] = '\0';
    kind_word probe = {key, 0};
    const kind_word *hit = bsearch(&probe, c->k->v, c->k->n, sizeof probe, by_word);
    if (hit)
        c->held |= hit->own ? 2 : 1;
    return 0;
}

/* Look a word (or two joined by '_') up, as it is and in its base forms. */
static void kind_word_in(struct held_ctx *c, const char *w, size_t n)
{
    kind_look(c, w, n);
    lexicon_noun_bases(c->k->lx, w, n, kind_look, c);
}

/* The run of letters at *p into cur, in lower case and cut to cap - 1,
 * with *p moved past it; its length. */
static size_t alpha_word(const char **p, char *cur, size_t cap)
{
    size_t n = 0;
    for (; isalpha((unsigned char)**p); (*p)++)
        if (n + 1 < cap)
            cur[n++] = (char)tolower((unsigned char)**p);
    cur[n] = '\0';
    return n;
}

int floor_kinds_held(const floor_kinds *k, const char *text)
{
    struct held_ctx c = {k, 0};
    char prev[64] = "", cur[64], pair[130];
    for (const char *p = text; k && p && *p;) {
        if (!isalpha((unsigned char)*p)) {
            p++;
            continue;
        }
        size_t n = alpha_word(&p, cur, sizeof cur);
        kind_word_in(&c, cur, n);
        if (prev[0]) {
            int m = snprintf(pair, sizeof pair, "%s_%s", prev, cur);
            kind_word_in(&c, pair, (size_t)m);
        }
        memcpy(prev, cur, n + 1);
    }
    return c.held;
}

int floor_kinds_each(const floor_kinds *k, lexicon_kind_fn fn, void *ctx)
{
    size_t i = 0;
    for (; k && i < k->n; i++)
        if (fn(ctx, k->v[i].w, strlen(k->v[i].w), k->v[i].own))
            break;
    return (int)i;
}

int floor_kinds_which(const floor_kinds *k)
{
    return k && k->which;
}

int floor_kinds_titled(const floor_kinds *k)
{
    return k && k->titled;
}

/* ---- sets of a verb's words --------------------------------------------- */

#define SET_WORDS 64

/* Up to cap (<= SET_WORDS) words, each under 48 bytes: a verb's base forms
 * for the slot rule, its family for the verb rule. */
typedef struct word_set {
    char w[SET_WORDS][48];
    int n, cap;
} word_set;

/* lexicon callback: add w (n bytes) to the set p while there is room. */
static int set_add(void *p, const char *w, size_t n)
{
    word_set *s = p;
    if (s->n < s->cap && n < sizeof s->w[0])
        snprintf(s->w[s->n++], sizeof s->w[0], "%.*s", (int)n, w);
    return 0;
}

struct set_look_ctx {
    const word_set *s;
    int hit;
};

/* lexicon callback: is w (n bytes) in the set? Stops the walk on a hit. */
static int set_look(void *p, const char *w, size_t n)
{
    struct set_look_ctx *c = p;
    for (int k = 0; k < c->s->n && !c->hit; k++)
        c->hit = strlen(c->s->w[k]) == n && memcmp(c->s->w[k], w, n) == 0;
    return c->hit;
}

/* ---- the verb and the slot of who and where ------------------------------ */

#define SLOT_BASES 8

struct floor_slot {
    const lexicon *lx; /* not owned */
    int wh;            /* WH_WHO, WH_WHERE */
    word_set base;     /* the verb's base forms ("win" for "won") and the verb */
};

floor_slot *floor_slot_new(const query *q, const lexicon *lx)
{
    if (!lx || q->wh == WH_NONE || !q->wh_verb[0])
        return NULL;
    floor_slot *sl = calloc(1, sizeof *sl);
    if (!sl)
        return NULL;
    sl->lx = lx;
    sl->wh = q->wh;
    sl->base.cap = SLOT_BASES;
    set_add(&sl->base, q->wh_verb, strlen(q->wh_verb));
    lexicon_verb_bases(lx, q->wh_verb, strlen(q->wh_verb), set_add, &sl->base);
    return sl;
}

void floor_slot_free(floor_slot *sl)
{
    free(sl);
}

/* WordNet's lexicographer classes of a place, a person and a time. */
#define NOUN_LOCATION 15
#define NOUN_PERSON 18
#define NOUN_TIME 28

/* A preposition of place: the noun after it may say where ("on the
 * canal", "at the shelter"). */
static int place_preposition(const char *w)
{
    static const char *const preps[] = {"in",     "at",      "near",   "on",     "into",
                                        "around", "outside", "inside", "across", NULL};
    for (int k = 0; preps[k]; k++)
        if (strcmp(w, preps[k]) == 0)
            return 1;
    return 0;
}

/* Is word cur (n bytes, lower case; since words after a preposition of
 * place in the same phrase) a filler of the slot: for who a person noun,
 * for where a place noun or the first noun after a preposition of place
 * that names no time ("on Saturday")? A stop word is none, whatever
 * WordNet files it under ("me", Maine's abbreviation, a place; "more",
 * Thomas More, a person). */
static int slot_filler(const floor_slot *sl, const char *cur, size_t n, int *since)
{
    if (sl->wh == WH_WHERE && place_preposition(cur)) {
        *since = 0;
        return 0;
    }
    if (stopword_is(cur, n))
        return 0;
    int cls = lexicon_noun_class(sl->lx, cur, n);
    if (sl->wh == WH_WHO)
        return cls == NOUN_PERSON;
    int after = *since <= 3 && cls >= 0 && cls != NOUN_TIME;
    *since = 99; /* the phrase's first content word was it */
    return cls == NOUN_LOCATION || after;
}

int floor_slot_held(const floor_slot *sl, const char *text, int named)
{
    int verb = 0, filler = named;
    int since = 99; /* words since a preposition of place in the same phrase */
    char cur[64];
    for (const char *p = text; sl && p && *p && !(verb && filler);) {
        if (!isalpha((unsigned char)*p)) {
            if (*p != ' ' && *p != '\'' && *p != '-')
                since = 99; /* punctuation ends the phrase */
            p++;
            continue;
        }
        size_t n = alpha_word(&p, cur, sizeof cur);
        since++;
        struct set_look_ctx c = {&sl->base, 0};
        if (!verb && !set_look(&c, cur, n))
            lexicon_verb_bases(sl->lx, cur, n, set_look, &c);
        verb |= c.hit;
        filler |= slot_filler(sl, cur, n, &since);
    }
    return (verb ? FLOOR_SLOT_VERB : 0) | (filler ? FLOOR_SLOT_FILLER : 0);
}

/* ---- amounts: money and ages --------------------------------------------- */

#define AMOUNT_TOKENS 512

typedef struct tokens {
    char w[AMOUNT_TOKENS][24]; /* lower case; digits kept with letters: "30th", "5k" */
    int sign[AMOUNT_TOKENS];   /* a currency sign right before it ("$40") */
    int n;
} tokens;

/* Split text into runs of letters and digits (hyphens and spaces part
 * them: "one-year-old" is three); note a currency sign before a run. */
static void tokenize(const char *text, tokens *t)
{
    t->n = 0;
    int sign = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p && t->n < AMOUNT_TOKENS;) {
        if (!isalnum(*p)) {
            /* $, and the UTF-8 of pound and euro signs */
            sign = *p == '$' || (p[0] == 0xc2 && p[1] == 0xa3) ||
                   (p[0] == 0xe2 && p[1] == 0x82 && p[2] == 0xac) ||
                   (sign && (*p == ' ' || *p >= 0x80));
            p++;
            continue;
        }
        size_t n = 0;
        for (; isalnum(*p); p++)
            if (n + 1 < sizeof t->w[0])
                t->w[t->n][n++] = (char)tolower(*p);
        t->w[t->n][n] = '\0';
        t->sign[t->n++] = sign;
        sign = 0;
    }
}

static int word_in(const char *w, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(w, *list) == 0)
            return 1;
    return 0;
}

/* A number: digits ("40", "2.5" is two), or a number word. */
static int is_number(const char *w)
{
    static const char *const words[] = {
        "one",      "two",     "three",     "four",     "five",     "six",      "seven",
        "eight",    "nine",    "ten",       "eleven",   "twelve",   "thirteen", "fourteen",
        "fifteen",  "sixteen", "seventeen", "eighteen", "nineteen", "twenty",   "thirty",
        "forty",    "fifty",   "sixty",     "seventy",  "eighty",   "ninety",   "hundred",
        "thousand", "million", "billion",   NULL};
    if (isdigit((unsigned char)w[0])) {
        for (; *w; w++)
            if (!isdigit((unsigned char)*w))
                return 0;
        return 1;
    }
    return strcmp(w, "a") != 0 && word_in(w, words);
}

static int money_at(const tokens *t, int i)
{
    static const char *const currency[] = {"dollar", "dollars", "buck",  "bucks", "pound", "pounds",
                                           "quid",   "euro",    "euros", "cent",  "cents", "pence",
                                           "grand",  "usd",     "gbp",   "eur",   NULL};
    if (isdigit((unsigned char)t->w[i][0]) && t->sign[i])
        return 1;
    /* a number, maybe "million" or "thousand" after it, then the currency */
    if (!is_number(t->w[i]))
        return 0;
    int j = i + 1;
    while (j < t->n && is_number(t->w[j]))
        j++;
    return j < t->n && word_in(t->w[j], currency);
}

/* An ordinal before "birthday": "30th", "fifth". */
static int is_ordinal(const char *w)
{
    static const char *const words[] = {
        "first",     "second",    "third",    "fourth",   "fifth",    "sixth",     "seventh",
        "eighth",    "ninth",     "tenth",    "eleventh", "twelfth",  "sixteenth", "eighteenth",
        "twentieth", "thirtieth", "fortieth", "fiftieth", "sixtieth", NULL};
    size_t n = strlen(w);
    if (n > 2 && isdigit((unsigned char)w[0]))
        return strcmp(w + n - 2, "st") == 0 || strcmp(w + n - 2, "nd") == 0 ||
               strcmp(w + n - 2, "rd") == 0 || strcmp(w + n - 2, "th") == 0;
    return word_in(w, words);
}

/* An age at word i of t. With self, not one a determiner or a possessive
 * makes the attribute of someone described ("a thirty year old woman",
 * "our one-year-old"): that is their age, not the subject's. */
static int age_at(const tokens *t, int i, int self)
{
    static const char *const det[] = {"a",   "an",  "the",   "my",   "his",
                                      "her", "our", "their", "your", NULL};
    static const char *const unit[] = {"year", "years", "yr", "yrs", "month", "months", NULL};
    static const char *const turn[] = {"turn", "turns", "turned", "turning", "aged", "age", NULL};
    static const char *const poss[] = {"my", "his", "her", "their", "our", "your", NULL};
    static const char *const decade[] = {"teens",   "twenties",  "thirties", "forties",  "fifties",
                                         "sixties", "seventies", "eighties", "nineties", NULL};
    const char *w = t->w[i];
    const char *next = i + 1 < t->n ? t->w[i + 1] : "";
    if (is_number(w) && word_in(next, unit) && i + 2 < t->n && strcmp(t->w[i + 2], "old") == 0)
        return !(self && i > 0 && word_in(t->w[i - 1], det));
    if (word_in(w, turn) &&
        (is_number(next) || (strcmp(next, "of") == 0 && i + 2 < t->n && is_number(t->w[i + 2]))))
        return 1;
    if (is_ordinal(w) && strcmp(next, "birthday") == 0)
        return 1;
    return strcmp(w, "in") == 0 && word_in(next, poss) && i + 2 < t->n &&
           word_in(t->w[i + 2], decade);
}

/* A word that counts: a number, or "dozen", "couple", "few"... */
static int count_word(const char *w)
{
    static const char *const words[] = {"dozen", "dozens", "couple", "few",   "several",
                                        "both",  "half",   "once",   "twice", NULL};
    return is_number(w) || word_in(w, words);
}

struct same_ctx {
    const char *w;
    int hit;
};

static int same_look(void *p, const char *w, size_t n)
{
    struct same_ctx *c = p;
    c->hit |= strlen(c->w) == n && memcmp(c->w, w, n) == 0;
    return c->hit;
}

/* Are a and b the same noun, as they are or in a base form of either? */
static int same_noun(const lexicon *lx, const char *a, const char *b)
{
    struct same_ctx c = {a, strcmp(a, b) == 0};
    if (!c.hit)
        lexicon_noun_bases(lx, b, strlen(b), same_look, &c);
    struct same_ctx d = {b, c.hit};
    if (!d.hit)
        lexicon_noun_bases(lx, a, strlen(a), same_look, &d);
    return d.hit;
}

/* Does a count word at i count the noun within the next three words? */
static int counts_at(const lexicon *lx, const tokens *t, int i, const char *noun)
{
    if (!count_word(t->w[i]))
        return 0;
    if (strcmp(noun, "times") == 0 &&
        (strcmp(t->w[i], "once") == 0 || strcmp(t->w[i], "twice") == 0))
        return 1;
    for (int j = i + 1; j < t->n && j <= i + 3; j++)
        if (same_noun(lx, noun, t->w[j]))
            return 1;
    return 0;
}

int floor_holds_count(const lexicon *lx, const char *noun, const char *text)
{
    tokens *t = malloc(sizeof *t);
    if (!t)
        return 1; /* out of memory: no cut */
    tokenize(text ? text : "", t);
    int found = 0;
    for (int i = 0; i < t->n && !found; i++)
        found = counts_at(lx, t, i, noun);
    free(t);
    return found;
}

static int holds_amount(amount_kind kind, const char *text, int self)
{
    if (kind == AMOUNT_ANY || kind == AMOUNT_COUNT)
        return 1;
    tokens *t = malloc(sizeof *t);
    if (!t)
        return 1; /* out of memory: no cut */
    tokenize(text ? text : "", t);
    int found = 0;
    for (int i = 0; i < t->n && !found; i++)
        found = kind == AMOUNT_MONEY ? money_at(t, i) : age_at(t, i, self);
    free(t);
    return found;
}

int floor_holds_amount(amount_kind kind, const char *text)
{
    return holds_amount(kind, text, 0);
}

int floor_holds_own_age(const char *text)
{
    return holds_amount(AMOUNT_AGE, text, 1);
}

/* ---- the verb of what ----------------------------------------------------- */

#define VERB_WORDS SET_WORDS /* the family of a verb's three senses is rarely over 20 */
#define VERB_REACH 4         /* content words after the verb its object may be */

struct floor_verb {
    const lexicon *lx; /* not owned */
    word_set family;   /* the verb's family (lexicon_verb_family) */
};

floor_verb *floor_verb_new(const query *q, const lexicon *lx)
{
    if (!lx || !q->what_verb[0])
        return NULL;
    floor_verb *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->lx = lx;
    v->family.cap = VERB_WORDS;
    lexicon_verb_family(lx, q->what_verb, strlen(q->what_verb), FLOOR_VERB_SENSES, set_add,
                        &v->family);
    if (v->family.n == 0) {
        free(v);
        return NULL;
    }
    return v;
}

void floor_verb_free(floor_verb *v)
{
    free(v);
}

/* Could word cur (n bytes) be a regular form of a word of the family:
 * does it start as one does? WordNet's suffix rules keep all of a base but
 * its last letters ("studies", "study"; "men", "man"): the first two of a
 * word of four letters or more, the first of a shorter one. */
static int family_prefix(const floor_verb *v, const char *cur, size_t n)
{
    for (int k = 0; k < v->family.n; k++) {
        size_t fl = strlen(v->family.w[k]), keep = fl > 3 ? 2 : 1;
        if (n >= keep && memcmp(v->family.w[k], cur, keep) == 0)
            return 1;
    }
    return 0;
}

/* Is word cur (n bytes, lower case) of the family, as it is or in a verb
 * or noun base form ("cooked", "paintings", "bought")? The suffix rules
 * are tried only on a word that starts as a word of the family does; the
 * exception lists ("bought" -> "buy") on every word. */
static int in_family(const floor_verb *v, const char *cur, size_t n)
{
    struct set_look_ctx c = {&v->family, 0};
    if (set_look(&c, cur, n))
        return 1;
    if (!family_prefix(v, cur, n)) {
        lexicon_exception_bases(v->lx, cur, n, set_look, &c);
        return c.hit;
    }
    lexicon_verb_bases(v->lx, cur, n, set_look, &c);
    if (!c.hit)
        lexicon_noun_bases(v->lx, cur, n, set_look, &c);
    return c.hit;
}

/* A word of the family with what it is done to: a noun WordNet knows among
 * the VERB_REACH content words after it, in the same sentence ("I cooked a
 * big pot of chili"; not "Weekdays I cook!"). Stop words are skipped. */
int floor_verb_held(const floor_verb *v, const char *text)
{
    char cur[64];
    int after = -1; /* content words since a word of the family, -1 none */
    for (const char *p = text; v && p && *p;) {
        if (!isalpha((unsigned char)*p)) {
            if (*p == '.' || *p == '!' || *p == '?')
                after = -1; /* the sentence ends */
            p++;
            continue;
        }
        size_t n = alpha_word(&p, cur, sizeof cur);
        if (stopword_is(cur, n))
            continue;
        if (after >= 0 && ++after <= VERB_REACH && lexicon_is_noun(v->lx, cur, n))
            return 1;
        if (in_family(v, cur, n))
            after = 0;
    }
    return 0;
}
