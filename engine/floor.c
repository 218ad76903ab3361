/* floor.c - the evidence floor: does a memory support what the query asks?
 *
 * A query names its subject (the speakers it names: "Caroline") and asks
 * something about it: the predicate, its other content words ("blood
 * type"). Naming the subject is not evidence: nearly every memory of a
 * conversation is spoken by or names one of its speakers, so a rule that
 * counted it let every on-topic question through, answerable or not. A
 * memory passes when something in it supports the predicate:
 *   - pinned: the user said it always matters;
 *   - lexical: the idf-weighted share of the predicate's terms it holds,
 *     sum idf(t in m) / sum idf(t in predicate), reaches the lexical
 *     threshold. A term no memory holds weighs the most and is never held;
 *   - context: the same share reaches it when the terms of the pooled
 *     memories an edge joins it to count too (the words of a question are
 *     often in the turn before the answer). For both: a query that names
 *     nothing the store knows (no speaker, no other entity) must at least
 *     be about the store, so overlap counts only when every predicate word
 *     occurs in the store somewhere;
 *   - temporal: the query names a date (the date is part of what it asks),
 *     the memory falls on it, and every predicate word occurs somewhere in
 *     the store, or the query names someone the store knows and the word
 *     it asks about, if any, is held: "What major achievement did Joanna
 *     have in January 2022?" asks what her memories of that month say,
 *     whatever their words, but "What is the title of the book she
 *     finished in October?" asks for a title no memory holds;
 *   - semantic: the cosine of the remainder (the query with the speakers'
 *     names blanked) with the memory reaches the cosine threshold;
 *   - subject: the query asks nothing beyond the speakers it names (no
 *     predicate word, no date: "Caroline", "tell me about Leah"), so a
 *     memory spoken by or naming one of them passes;
 *   - association (engine.c): an edge joins it to a pooled memory that
 *     passes by one of the rules above.
 * The speaker boost stays a ranking signal. Defaults and their
 * risk-coverage tables are in docs/QUALITY.md. */
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

/* May a memory on the date the query names pass? (see the header) */
static int date_open(const floor_in *in)
{
    return in->pred_known || (in->names_known && (!in->focus || in->context_focus));
}

int floor_answer_held(const floor_in *in)
{
    return !missing_answer(in) || in->on_date;
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
    if (in->on_date && date_open(in)) {
        snprintf(why, len, "falls on the date the query names");
        return "temporal";
    }
    if (in->rcosine >= in->cosine_min) {
        snprintf(why, len, "remainder cosine %.3f >= %.2f", in->rcosine, in->cosine_min);
        return "semantic";
    }
    char focus[96] = "";
    if (in->focus && !in->context_focus)
        snprintf(focus, sizeof focus, "; it holds no \"%.40s\", what the question asks for",
                 in->focus);
    snprintf(why, len,
             "predicate coverage %.3f (with its neighbours %.3f)%s%.2f%s, remainder cosine %.3f < "
             "%.2f%s%s%s",
             in->pred_coverage, in->context_coverage,
             in->context_coverage >= in->lexical_min ? " >= " : " < ", in->lexical_min,
             floor_lexical_open(in) ? ""
                                    : " (names nothing the store knows, and a word it never holds)",
             in->rcosine, in->cosine_min,
             in->on_date ? ", on the date but about nothing the store knows" : "", focus,
             in->names_subject ? "; naming the speaker is not evidence" : "");
    return NULL;
}

int floor_needs_focus(const char *by)
{
    return by && (strcmp(by, "lexical") == 0 || strcmp(by, "context") == 0 ||
                  strcmp(by, "semantic") == 0);
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
