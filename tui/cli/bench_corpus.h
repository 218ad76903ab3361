/* bench_corpus.h - the synthetic store `memscope bench` measures: dialogue
 * turns "Speaker: ..." whose words follow one Zipf law (exponent 1) over
 * about 3000 words ranked as in English (the words a dialogue is held
 * together with first: "i", "the", "and"...; then common content words; then
 * made-up ones), recurring capitalised names (entities, some of two words),
 * pairs of speakers talking in sessions of 10-40 adjacent turns, dates spread
 * over two years (2023-2024), some turns with an event time, a time
 * expression or a quoted title; and the queries asked of it. Everything is
 * deterministic from the seed; the queries depend on the seed only, not on
 * the number of turns, so runs at different sizes answer the same
 * questions. No store, no engine, no terminal here. */
#ifndef MS_BENCH_CORPUS_H
#define MS_BENCH_CORPUS_H

#include <stddef.h>
#include <stdint.h>

/* The vocabulary, names and speaker pairs of one seed (opaque). */
typedef struct corpus corpus;

/* The corpus of seed; NULL when out of memory. Free with corpus_free. */
corpus *corpus_new(uint64_t seed);
/* Free w (NULL is fine). */
void corpus_free(corpus *w);

/* One generated turn, as both import paths take it. */
typedef struct corpus_turn {
    char id[32], session[32], created[32], event[32]; /* event "" = none */
    const char *speaker;                              /* the corpus's storage */
    char text[2048];                                  /* "Speaker: sentences" */
    size_t len;                                       /* bytes of text */
    double confidence, alpha, beta, importance;
} corpus_turn;

/* The turns of a store, one at a time: n turns, in sessions of 10-40 turns
 * of one pair of speakers, in time order over two years. Fields are the
 * generator's own; start it with corpus_turns_init. */
typedef struct corpus_turns {
    const corpus *w;
    uint64_t rng;
    long n, i, session;
    int len, k; /* turns in this session, and done */
    const int *pair;
    int64_t when;
} corpus_turns;

/* Start the n turns of w from seed (w must outlive g). */
void corpus_turns_init(corpus_turns *g, const corpus *w, uint64_t seed, long n);
/* The next turn into *t; 0 when there are no more. */
int corpus_next(corpus_turns *g, corpus_turn *t);

/* The n turns of seed as a JSONL file of `memscope import` at path.
 * 0, or -1 with errno set. */
int corpus_write_jsonl(const corpus *w, uint64_t seed, long n, const char *path);

/* n queries drawn from the mix (general words, a date, a when-question, a
 * speaker named, a name of the store, a recency question, words the store
 * never saw), NULL-terminated; NULL when out of memory. Free each string
 * and the array. */
char **corpus_queries(const corpus *w, uint64_t seed, int n);

#endif
