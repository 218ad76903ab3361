/* stopwords.c - the stop list: NLTK's 153 English stop words without their
 * apostrophe forms (tokens split at apostrophes, so "don't" is "don" + "t").
 * A longer list with question-framing words ("kind", "name", "mention")
 * measured no better on LoCoMo (docs/QUALITY.md). Sorted for bsearch. */
#include "stopwords.h"

#include <stdlib.h>
#include <string.h>

static const char *const words[] = {
    "a",          "about",   "above",   "after",      "again", "against", "ain",       "all",
    "am",         "an",      "and",     "any",        "are",   "aren",    "as",        "at",
    "be",         "because", "been",    "before",     "being", "below",   "between",   "both",
    "but",        "by",      "can",     "couldn",     "d",     "did",     "didn",      "do",
    "does",       "doesn",   "doing",   "don",        "down",  "during",  "each",      "few",
    "for",        "from",    "further", "had",        "hadn",  "has",     "hasn",      "have",
    "haven",      "having",  "he",      "her",        "here",  "hers",    "herself",   "him",
    "himself",    "his",     "how",     "i",          "if",    "in",      "into",      "is",
    "isn",        "it",      "its",     "itself",     "just",  "ll",      "m",         "ma",
    "me",         "mightn",  "more",    "most",       "mustn", "my",      "myself",    "needn",
    "no",         "nor",     "not",     "now",        "o",     "of",      "off",       "on",
    "once",       "only",    "or",      "other",      "our",   "ours",    "ourselves", "out",
    "over",       "own",     "re",      "s",          "same",  "shan",    "she",       "should",
    "shouldn",    "so",      "some",    "such",       "t",     "than",    "that",      "the",
    "their",      "theirs",  "them",    "themselves", "then",  "there",   "these",     "they",
    "this",       "those",   "through", "to",         "too",   "under",   "until",     "up",
    "ve",         "very",    "was",     "wasn",       "we",    "were",    "weren",     "what",
    "when",       "where",   "which",   "while",      "who",   "whom",    "why",       "will",
    "with",       "won",     "wouldn",  "y",          "you",   "your",    "yours",     "yourself",
    "yourselves",
};

struct key {
    const char *w;
    size_t n;
};

static int cmp(const void *k, const void *e)
{
    const struct key *a = k;
    const char *b = *(const char *const *)e;
    int c = strncmp(a->w, b, a->n);
    if (c)
        return c;
    return b[a->n] ? -1 : 0;
}

int stopword_is(const char *w, size_t n)
{
    struct key k = {w, n};
    return bsearch(&k, words, sizeof words / sizeof *words, sizeof *words, cmp) != NULL;
}
