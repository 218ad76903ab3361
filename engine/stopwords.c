/* stopwords.c - the stop list: NLTK's 153 English stop words without their
 * apostrophe forms (tokens split at apostrophes, so "don't" is "don" + "t").
 * A longer list with question-framing words ("kind", "name", "mention")
 * measured no better on LoCoMo (docs/QUALITY.md). */
#include "stopwords.h"

#include <limits.h>
#include <pthread.h>
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

/* The words by hash: open addressing in a table four times the list, built
 * once. The embedder asks this of every token of every text an import
 * writes, and a binary search compared up to eight strings a token. */
#define SLOTS 1024
_Static_assert(sizeof words / sizeof *words * 4 <= SLOTS, "the table stays sparse");
static const char *slot_word[SLOTS];
static unsigned char slot_len[SLOTS];
static pthread_once_t slots_once = PTHREAD_ONCE_INIT;

static unsigned hash(const char *w, size_t n)
{
    unsigned h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)w[i]) * 16777619u;
    return h % SLOTS;
}

static void slots_build(void)
{
    for (size_t k = 0; k < sizeof words / sizeof *words; k++) {
        size_t n = strlen(words[k]);
        unsigned h = hash(words[k], n);
        while (slot_word[h])
            h = (h + 1) % SLOTS;
        slot_word[h] = words[k];
        slot_len[h] = (unsigned char)n;
    }
}

int stopword_is(const char *w, size_t n)
{
    if (n == 0 || n > UCHAR_MAX)
        return 0;
    pthread_once(&slots_once, slots_build);
    for (unsigned h = hash(w, n); slot_word[h]; h = (h + 1) % SLOTS)
        if (slot_len[h] == n && memcmp(slot_word[h], w, n) == 0)
            return 1;
    return 0;
}
