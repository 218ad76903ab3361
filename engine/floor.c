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
 *   - the answer's kind (here): a query asking for a name or a number cuts
 *     a memory that holds none, itself or with the pooled memories an edge
 *     joins it to, unless it falls on the date the query names;
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
 *     somewhere in the store;
 *   - semantic (ch_semantic.c): the cosine of the remainder (the query with
 *     the speakers' names blanked) with the memory reaches the cosine
 *     threshold;
 * and after all of them, over the pool (engine.c):
 *   - focus: when the question's form names the word it asks about, a pass
 *     by a rule of overlap or meaning (floor_rule.needs_focus) stands only
 *     if some such pass holds that word;
 *   - association: an edge joins it to a pooled memory that passes by one of
 *     the rules above (stage2.c: or it supersedes one).
 * Each channel's rule measures its own numbers for every pooled memory
 * (floor_rule.measure: the terms held, the cosines, the date) and says why
 * it passes or, for a cut, its clause of the reason. The speaker boost stays
 * a ranking signal. Defaults and their risk-coverage tables are in
 * docs/QUALITY.md. */
#include "engine_int.h"

#include <stdio.h>
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
        return "a number";
    return NULL;
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
