/* stage2.c - the second stage: reorder the pool by what the first stage
 * already knows, each rule a traced adjustment of ranking_score (so
 * relevance_score stays query-relative, as the contract says).
 *
 * The exchange. A question that names a person is often answered by the
 * other person: "How does Priya keep calm before an exam?" is answered by
 * Sam's reply to Priya asking him (tests/fixtures/recall/exchange.test).
 * The entity enhancement multiplies a turn the named speaker spoke by
 * (1 + eg_speaker), which buries that reply. A turn that answers a pooled
 * turn of the named speaker (the next turn of the same session, spoken by
 * someone the query does not name) belongs to the named speaker's
 * exchange: it gets sqrt(1 + eg_speaker), half of the speaker boost on the
 * log scale, so it competes with the named speaker's turns on its own
 * evidence without outranking an equally matched one. Measured in
 * docs/QUALITY.md (tools/speakers-eval.py).
 *
 * A turn that only asks. The speaker boost is for what the named person
 * says; a turn of theirs that only asks the other ("Do you paint too?",
 * "Wow! What got you into running?": every sentence a question or an
 * interjection of at most ASKS_SHORT words) says nothing of them, and its
 * answer is the other's reply, which the exchange lifts. It gets `asks` =
 * 1 / sqrt(1 + eg_speaker), taking back half the speaker boost on the log
 * scale, as the exchange gives half. One that asks and says no I, me, my,
 * we ... anywhere ("That's great news, Sam! Any plans for the summer?")
 * speaks of the other as well, but may still tell something of its
 * speaker: a quarter of the boost back, 1 / (1 + eg_speaker)^(1/4)
 * (tests/fixtures/recall/asks.test; docs/QUALITY.md, *Ranking that
 * generalises*).
 *
 * The answer to a question asked in the conversation. A turn that asks
 * what the query asks ("How long have you had the boat?" for "How long
 * has Jon had the boat?") is answered by the next turn of its session,
 * by someone else ("Three summers now"), which need not repeat
 * the question's words: a pooled turn whose previous turn is pooled, ends
 * with "?", is spoken by another speaker and holds ANSWERS_COVERAGE of the
 * predicate's idf itself gets `answers` = ANSWERS_FACTOR; not for a
 * question about now of type recency, which the newest word answers
 * (below). Measured in
 * docs/QUALITY.md (tools/pool-ablation.py, then memscope eval).
 *
 * The latest fact. For a question about now (query.c about_now), a pooled
 * memory that a pooled newer one supersedes (a supersedes relation: the
 * store's, an importer's or a curator's) yields to it. The question's
 * evidence for the old fact is evidence for its replacement, which states
 * the same attribute of the same subject: the successor gets `latest` =
 * the old memory's boosted score over its own (at least 1, at most
 * LATEST_MAX), then its own trust, confidence and recency; and when the old
 * memory still ranks above it, the old one gets `yields` = 0.95 times the
 * ratio of the two ranking scores, so it lands just below. Both trace the
 * other memory and the relation's reason. A successor with no evidence of
 * its own passes the floor by association with the memory it replaces.
 *
 * The asked attribute. A question about now that asks an attribute the
 * supersession detector knows (store_attr_asked: "where does my sister
 * work" an employer, "where do I live" a residence, "who is in charge of
 * Kestrel" a lead) is answered by a memory that states that attribute of
 * the subject asked about, with the detector's own cues (store_states):
 * each such pooled memory gets `states` = STATES_FACTOR, before `latest`, so
 * that a supersession's pair rises together above the memories that state
 * neither, and the older one still yields to the newer. The subject: the
 * entities the question names, else a speaker for "I", "my manager", else
 * someone who is not a speaker for "my sister"; any when it says none.
 * Such a memory with no evidence of its own passes the floor by it
 * (passed_by "states"), and the newest of them gets `current`, the place
 * of the best-ranked memory that passes, when that one states no value.
 *
 * The newest word. A question about now of type recency ("How is my knee
 * now?", "What is the latest on the boiler?") that asks no such attribute is answered by the latest
 * memory on what it asks about: the newest pooled memory that passes the floor and holds every word
 * of the predicate gets `newest` = the best-ranked such memory's ranking score over its own (at
 * most LATEST_MAX), times NEWEST_TIE so that it lands just above it. The recency factor of a
 * now-question is a light prior, and cannot tell February from April. */
#include "engine_int.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LATEST_MAX 8.0
/* as much as the entity enhancement gives a memory naming what the query
 * names (1 + eg_mention at its default 1): the memory holds what is asked */
#define STATES_FACTOR 2.0
#define STATES_ENTS 32
/* the question turn holds what the query asks: over twice the floor's
 * lexical share; the answer rises within its neighbourhood, not over the
 * turns that hold the words (docs/QUALITY.md: 0.25-0.5 and x1.2 gain MRR
 * on both halves, x1.5 loses R@10) */
#define ANSWERS_COVERAGE 0.4
#define ANSWERS_FACTOR 1.2
#define ASKS_SHORT 3      /* words of an interjection before a question ("Oh wow, Jon!") */
#define NEWEST_TIE 1.0001 /* the newest ranks just above the one whose place it takes */

static void add(recall_hit *h, const char *name, double factor, const char *detail)
{
    if (h->n_adj >= TRACE_ADJ_MAX)
        return;
    trace_adjustment *a = &h->adj[h->n_adj++];
    a->name = name;
    a->factor = factor;
    snprintf(a->detail, sizeof a->detail, "%s", detail);
}

static int spoken_by_named(const query *q, const snapshot *sn, uint32_t i)
{
    for (int k = 0; k < q->n_named; k++)
        if (sn->speaker_ent[i] == (int32_t)q->named[k])
            return 1;
    return 0;
}

/* The turn before memory i in its session (memories are in rid order, so
 * in the order they were said), or -1. */
static long previous_turn(const snapshot *sn, uint32_t i)
{
    if (i == 0 || sn->session[i] < 0 || sn->session[i - 1] != sn->session[i])
        return -1;
    return (long)i - 1;
}

/* A pooled memory: its snapshot index and its position in the pool. */
typedef struct pooled {
    uint32_t idx;
    uint32_t pos;
} pooled;

static int by_index(const void *a, const void *b)
{
    const pooled *x = a, *y = b;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Pool position of snapshot index i in the sorted pool, or -1. */
static long pool_position(const pooled *sorted, size_t n, uint32_t i)
{
    pooled key = {i, 0};
    const pooled *p = bsearch(&key, sorted, n, sizeof *sorted, by_index);
    return p ? (long)p->pos : -1;
}

/* The exchange adjustment of pooled hit t, if it replies to a pooled turn
 * of a speaker the query names. */
static void exchange(const stage2_in *in, recall_hit *hs, const uint32_t *idx, const pooled *sorted,
                     size_t n, size_t t)
{
    const snapshot *sn = in->sn;
    if (!in->q->n_named || spoken_by_named(in->q, sn, idx[t]))
        return;
    long prev = previous_turn(sn, idx[t]);
    if (prev < 0 || !spoken_by_named(in->q, sn, (uint32_t)prev))
        return;
    long p = pool_position(sorted, n, (uint32_t)prev);
    if (p < 0)
        return;
    char d[96];
    snprintf(d, sizeof d, "sqrt(1 + speaker %.3g): replies to %.24s, a named speaker's turn",
             in->eg_speaker, hs[p].mem.id);
    add(&hs[t], "exchange", sqrt(1 + in->eg_speaker), d);
}

/* Does text end with a question mark (trailing blanks aside)? */
static int asks(const char *text)
{
    size_t n = text ? strlen(text) : 0;
    while (n > 0 && (text[n - 1] == ' ' || text[n - 1] == '\n' || text[n - 1] == '\t'))
        n--;
    return n > 0 && text[n - 1] == '?';
}

/* Does text (a turn, "Speaker: " and all) only ask: every sentence a
 * question or an interjection of at most ASKS_SHORT words ("Wow! What got
 * you into running?"), the last a question? */
static int only_asks(const char *text, const char *speaker)
{
    size_t sl = speaker ? strlen(speaker) : 0;
    if (text && sl && strncmp(text, speaker, sl) == 0 && text[sl] == ':')
        text += sl + 1;
    int words = 0, in_word = 0, asked = 0;
    for (const char *p = text; p && *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (isalnum(c) || c == '\'' || c >= 0x80) {
            if (!in_word)
                words++;
            in_word = 1;
            continue;
        }
        in_word = 0;
        if (c != '.' && c != '!' && c != '?')
            continue;
        while (p[1] == '.' || p[1] == '!' || p[1] == '?')
            c = (unsigned char)*++p == '?' ? '?' : c;
        if (!words)
            continue; /* "..." after nothing */
        if (c != '?' && words > ASKS_SHORT)
            return 0; /* a statement */
        asked = c == '?';
        words = 0;
    }
    return asked && words == 0;
}

/* Does text (a turn, "Speaker: " and all) say I, me, my, we, us, our ...
 * anywhere ("I'm" is "I" and "m")? */
static int first_person(const char *text, const char *speaker)
{
    static const char *const words[] = {"i",  "me",  "my",   "mine",      "myself", "we",
                                        "us", "our", "ours", "ourselves", NULL};
    size_t sl = speaker ? strlen(speaker) : 0;
    if (text && sl && strncmp(text, speaker, sl) == 0 && text[sl] == ':')
        text += sl + 1;
    char w[16];
    size_t n = 0;
    for (const char *p = text; p; p++) {
        if (*p && isalpha((unsigned char)*p)) {
            if (n < sizeof w - 1)
                w[n] = (char)tolower((unsigned char)*p);
            n++;
            continue;
        }
        if (n && n < sizeof w) {
            w[n] = '\0';
            for (int k = 0; words[k]; k++)
                if (strcmp(w, words[k]) == 0)
                    return 1;
        }
        n = 0;
        if (!*p)
            break;
    }
    return 0;
}

/* The asks adjustment of pooled hit t: a named speaker's turn that only
 * asks the other says nothing of its speaker (half the speaker boost
 * back); one that asks and says nothing in the first person speaks of
 * others (a quarter back). */
static void only_asking(const stage2_in *in, recall_hit *hs, const uint32_t *idx, size_t t)
{
    if (in->eg_speaker <= 0 || !spoken_by_named(in->q, in->sn, idx[t]))
        return;
    const char *text = hs[t].mem.content, *who = hs[t].mem.speaker;
    char d[96];
    if (only_asks(text, who)) {
        snprintf(d, sizeof d, "1 / (1 + speaker %.3g)^(1/2): a named speaker's turn that only asks",
                 in->eg_speaker);
        add(&hs[t], "asks", 1 / sqrt(1 + in->eg_speaker), d);
    } else if (asks(text) && !first_person(text, who)) {
        snprintf(d, sizeof d, "1 / (1 + speaker %.3g)^(1/4): it asks and says no I, me or we",
                 in->eg_speaker);
        add(&hs[t], "asks", 1 / sqrt(sqrt(1 + in->eg_speaker)), d);
    }
}

/* The answers adjustment of pooled hit t, if it is the next turn after a
 * pooled question turn of another speaker that holds the query's
 * predicate. */
static void answers(const stage2_in *in, recall_hit *hs, const uint32_t *idx, const pooled *sorted,
                    size_t n, size_t t)
{
    const snapshot *sn = in->sn;
    long prev = previous_turn(sn, idx[t]);
    if (prev < 0 || sn->speaker_ent[prev] == sn->speaker_ent[idx[t]])
        return;
    long p = pool_position(sorted, n, (uint32_t)prev);
    if (p < 0 || hs[p].pred_coverage < ANSWERS_COVERAGE || !asks(hs[p].mem.content))
        return;
    char d[96];
    snprintf(d, sizeof d, "answers %.24s, a question turn holding %.3f of the predicate",
             hs[p].mem.id, hs[p].pred_coverage);
    add(&hs[t], "answers", ANSWERS_FACTOR, d);
}

/* hs[t]'s ranking score with the adjustments it has so far. */
static double ranking_now(const recall_hit *h)
{
    double r = h->boosted;
    for (int a = 0; a < h->n_adj; a++)
        r *= h->adj[a].factor;
    return r;
}

/* A pooled memory and a pooled memory that supersedes it (pool positions). */
typedef struct sup_pair {
    size_t older, newer;
    const char *reason;
} sup_pair;

/* Every such pair of the pool, the newest older memories first (so that in
 * a chain a -> b -> c, b yields to c before a yields to b). *n gets the
 * count; NULL when there are none or no memory. */
static sup_pair *pooled_pairs(const stage2_in *in, const uint32_t *idx, const pooled *sorted,
                              size_t n, size_t *np)
{
    size_t cap = 0;
    sup_pair *v = NULL;
    *np = 0;
    for (size_t t = 0; t < n; t++) {
        const snap_succ *first;
        size_t k = snapshot_successors(in->sn, idx[t], &first);
        for (size_t j = 0; j < k; j++) {
            long p = pool_position(sorted, n, first[j].newer);
            if (p < 0)
                continue;
            if (*np == cap) {
                sup_pair *g = realloc(v, (cap = cap ? 2 * cap : 8) * sizeof *g);
                if (!g) {
                    free(v);
                    *np = 0;
                    return NULL;
                }
                v = g;
            }
            v[(*np)++] = (sup_pair){t, (size_t)p, first[j].reason};
        }
    }
    /* insertion sort by the older memory's time, newest first: few pairs */
    for (size_t a = 1; a < *np; a++)
        for (size_t b = a;
             b > 0 && in->sn->when[idx[v[b].older]] > in->sn->when[idx[v[b - 1].older]]; b--) {
            sup_pair x = v[b];
            v[b] = v[b - 1];
            v[b - 1] = x;
        }
    return v;
}

/* The latest fact: successors take the place of what they supersede. */
static void latest(const stage2_in *in, recall_hit *hs, const uint32_t *idx, const pooled *sorted,
                   size_t n)
{
    char d[96];
    size_t np;
    sup_pair *v = pooled_pairs(in, idx, sorted, n, &np);
    long *from = malloc((n + 1) * sizeof *from); /* per successor: the old one it lifts from */
    if (!v || !from) {
        free(v);
        free(from);
        return;
    }
    for (size_t t = 0; t < n; t++)
        from[t] = -1;
    for (size_t k = 0; k < np; k++) {
        size_t t = v[k].older, p = v[k].newer;
        if (from[p] < 0 || hs[t].boosted > hs[from[p]].boosted)
            from[p] = (long)t;
    }
    for (size_t p = 0; p < n; p++) {
        long t = from[p];
        if (t < 0 || hs[p].boosted <= 0 || hs[t].boosted <= hs[p].boosted)
            continue;
        double f = fmin(LATEST_MAX, hs[t].boosted / hs[p].boosted);
        snprintf(d, sizeof d, "takes the place of %.24s, which it supersedes (%.3g / %.3g)",
                 hs[t].mem.id, hs[t].boosted, hs[p].boosted);
        add(&hs[p], "latest", f, d);
    }
    for (size_t k = 0; k < np; k++) {
        size_t t = v[k].older, p = v[k].newer;
        if (hs[t].passed_by && !hs[p].passed_by) {
            hs[p].passed_by = "association";
            snprintf(hs[p].associated, sizeof hs[p].associated, "%s", hs[t].mem.id);
            snprintf(hs[p].floor_why, sizeof hs[p].floor_why,
                     "it supersedes %.64s, which passes by %s", hs[t].mem.id, hs[t].passed_by);
        }
        double old = ranking_now(&hs[t]), now = ranking_now(&hs[p]);
        if (old < now || old <= 0)
            continue;
        snprintf(d, sizeof d, "yields to %.24s, which supersedes it: %.30s", hs[p].mem.id,
                 v[k].reason ? v[k].reason : "supersedes relation");
        add(&hs[t], "yields", 0.95 * now / old, d);
    }
    free(from);
    free(v);
}

/* The question's attribute and subject, for store_states' callback. */
typedef struct asked {
    const snapshot *sn;
    const query *q;
    int attr, who;
} asked;

/* Does match form a hold match form b as whole words ("róisín brennan",
 * and "asked róisín" as the entity finder may cut a name, hold "róisín")? */
static int holds_name(const char *a, const char *b)
{
    size_t n = strlen(b);
    for (const char *p = strstr(a, b); n && p; p = strstr(p + 1, b))
        if ((p == a || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
            return 1;
    return 0;
}

/* Is the subject (a match form) what the question asks about (1), someone
 * else (-1), or neither (0)? For a possessive's person ("Leah's
 * daughter") the detector's "leah's daughter" is; else a name the question
 * names is, or one that holds it as whole words or that it holds; else for
 * "I" a speaker is; for "my sister" a speaker is not (-1: a statement of
 * the detector's that might be about a speaker is not about her sister). */
static int asked_about(const char *subject, void *arg)
{
    const asked *a = arg;
    const query *q = a->q;
    if (q->owner[0]) { /* "Leah's daughter": the daughter's, not Leah's */
        for (int k = 0; k < q->n_named + q->n_qents; k++) {
            char key[160];
            snprintf(
                key, sizeof key, "%s's %s",
                snapshot_ent_norm(a->sn, k < q->n_named ? q->named[k] : q->qents[k - q->n_named]),
                q->owner);
            if (strcmp(subject, key) == 0)
                return 1;
        }
        return 0;
    }
    if (q->n_named + q->n_qents > 0) {
        for (int k = 0; k < q->n_named + q->n_qents; k++) {
            const char *e =
                snapshot_ent_norm(a->sn, k < q->n_named ? q->named[k] : q->qents[k - q->n_named]);
            if (holds_name(subject, e) || holds_name(e, subject))
                return 1;
        }
        return 0;
    }
    if (a->who == STORE_WHO_ANY)
        return 1;
    long e = snapshot_entity(a->sn, subject);
    int speaker = e >= 0 && a->sn->ent_speaker[e];
    if (a->who == STORE_WHO_SELF)
        return speaker;
    return speaker ? -1 : 1;
}

int stage2_states(const snapshot *sn, const query *q, uint32_t i, const recall_hit *h, char *phrase,
                  size_t cap)
{
    asked a = {sn, q, -1, STORE_WHO_ANY};
    phrase[0] = '\0';
    a.attr = store_attr_asked(q->text, &a.who);
    if (a.attr < 0)
        return -1;
    char *ents[STATES_ENTS];
    size_t ne = 0;
    for (uint32_t p = sn->me_off[i]; p < sn->me_off[i + 1] && ne < STATES_ENTS; p++)
        ents[ne++] = (char *)snapshot_ent_norm(sn, sn->me_ent[p]); /* only read */
    if (!store_states(h->mem.content, h->mem.speaker, ents, ne, a.attr, asked_about, &a, phrase,
                      cap))
        return -1;
    return a.attr;
}

/* The asked attribute: `states` for each pooled memory stating it; one
 * with no evidence of its own passes the floor by it (the statement is the
 * evidence: "Senior Data Scientist, £68,000" for "what is my job title
 * now?" holds none of its words). */
static int states(const stage2_in *in, recall_hit *hs, const uint32_t *idx, size_t n)
{
    int who;
    if (store_attr_asked(in->q->text, &who) < 0)
        return 0;
    for (size_t t = 0; t < n; t++) {
        char phrase[64], d[96];
        int attr = stage2_states(in->sn, in->q, idx[t], &hs[t], phrase, sizeof phrase);
        if (attr < 0)
            continue;
        snprintf(d, sizeof d, "states the %s asked: \"%.60s\"", store_attr_name(attr), phrase);
        add(&hs[t], "states", STATES_FACTOR, d);
        if (!hs[t].passed_by) {
            hs[t].passed_by = "states";
            snprintf(hs[t].floor_why, sizeof hs[t].floor_why,
                     "states the %s the question asks of its subject (\"%.60s\")",
                     store_attr_name(attr), phrase);
        }
    }
    return 1;
}

/* Does hit h hold every predicate term of q (and q has one)? */
static int holds_predicate(const query *q, const recall_hit *h)
{
    int any = 0;
    for (int k = 0; k < q->n_terms && k < 64; k++)
        if (q->terms[k].predicate) {
            if (!((h->terms_held >> k) & 1))
                return 0;
            any = 1;
        }
    return any;
}

/* A question about now that asks no attribute: the newest pooled memory
 * holding every word of the predicate takes the place of the best-ranked
 * one that does (the latest word on it is how it is now). */
static void newest(const stage2_in *in, recall_hit *hs, const uint32_t *idx, size_t n)
{
    long top = -1, newer = -1;
    for (size_t t = 0; t < n; t++) {
        if (!hs[t].passed_by || !holds_predicate(in->q, &hs[t]))
            continue;
        if (top < 0 || ranking_now(&hs[t]) > ranking_now(&hs[top]))
            top = (long)t;
        if (newer < 0 || in->sn->when[idx[t]] > in->sn->when[idx[newer]])
            newer = (long)t;
    }
    if (top < 0 || newer == top || hs[newer].boosted <= 0)
        return;
    double f = fmin(LATEST_MAX, ranking_now(&hs[top]) / ranking_now(&hs[newer]));
    char d[96];
    snprintf(d, sizeof d, "the newest holding the question's words: takes the place of %.24s",
             hs[top].mem.id);
    add(&hs[newer], "newest", f * NEWEST_TIE, d);
}

static int has_adjustment(const recall_hit *h, const char *name)
{
    for (int a = 0; a < h->n_adj; a++)
        if (strcmp(h->adj[a].name, name) == 0)
            return 1;
    return 0;
}

/* A question about now that asks an attribute: the newest pooled memory
 * that states it of the subject asked (`states`) says its current value
 * ("She's project lead" after "up for a promotion"): when the best-ranked
 * memory that passes does not state it, it takes that one's place, as
 * `newest` does. After `latest`, so that a successor lifted there does not
 * pass it. */
static void current(const stage2_in *in, recall_hit *hs, const uint32_t *idx, size_t n)
{
    long top = -1, newer = -1;
    for (size_t t = 0; t < n; t++) {
        if (!hs[t].passed_by)
            continue;
        if (top < 0 || ranking_now(&hs[t]) > ranking_now(&hs[top]))
            top = (long)t;
        if (has_adjustment(&hs[t], "states") &&
            (newer < 0 || in->sn->when[idx[t]] > in->sn->when[idx[newer]]))
            newer = (long)t;
    }
    /* a top that states it already says a value: which one is newer is
       for the supersedes relations (`latest`, `yields`) */
    if (newer < 0 || has_adjustment(&hs[top], "states") || ranking_now(&hs[newer]) <= 0)
        return;
    double f = fmin(LATEST_MAX, ranking_now(&hs[top]) / ranking_now(&hs[newer]));
    char d[96];
    snprintf(d, sizeof d, "the newest stating what is asked: takes the place of %.24s",
             hs[top].mem.id);
    add(&hs[newer], "current", f * NEWEST_TIE, d);
}

ms_status stage2_apply(const stage2_in *in, recall_hit *hs, const uint32_t *idx, size_t n,
                       ms_error *err)
{
    if (n == 0)
        return MS_OK;
    pooled *sorted = malloc(n * sizeof *sorted);
    if (!sorted)
        return ms_fail(err, MS_NOMEM, "out of memory");
    for (size_t t = 0; t < n; t++)
        sorted[t] = (pooled){idx[t], (uint32_t)t};
    qsort(sorted, n, sizeof *sorted, by_index);
    /* before the rules that set a memory's place by the scores of others
     * (newest, latest, current), so the place holds; not for a question
     * about now of type recency ("How is my knee now?"), which the newest
     * word answers, not a reply to a question asked months ago */
    for (size_t t = 0; !(in->q->about_now && in->q->type == QT_RECENCY) && t < n; t++)
        answers(in, hs, idx, sorted, n, t);
    int now = in->q->about_now && in->sn->n_succ > 0;
    int attr_asked = in->q->about_now && states(in, hs, idx, n);
    if (in->q->about_now && !attr_asked && in->q->type == QT_RECENCY)
        newest(in, hs, idx, n);
    for (size_t t = 0; in->q->n_named && t < n; t++) {
        exchange(in, hs, idx, sorted, n, t);
        only_asking(in, hs, idx, t);
    }
    if (now)
        latest(in, hs, idx, sorted, n);
    if (attr_asked)
        current(in, hs, idx, n);
    free(sorted);
    return MS_OK;
}
