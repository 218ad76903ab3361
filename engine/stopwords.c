/* stopwords.c - the stop list: the usual English function words, their
 * contractions with and without the apostrophe, and a few conversational
 * fillers ("yeah", "oh"). Sorted for bsearch. */
#include "stopwords.h"

#include <stdlib.h>
#include <string.h>

static const char *const words[] = {
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
    "are", "aren", "aren't", "as", "at", "be", "because", "been", "before", "being", "below",
    "between", "both", "but", "by", "can", "can't", "cannot", "cant", "could", "couldn", "couldn't",
    "d", "did", "didn", "didn't", "didnt", "do", "does", "doesn", "doesn't", "doesnt", "doing",
    "don", "don't", "dont", "down", "during", "each", "few", "for", "from", "further", "had",
    "hadn", "hadn't", "has", "hasn", "hasn't", "have", "haven", "haven't", "having", "he", "he'd",
    "he'll", "he's", "her", "here", "here's", "hers", "herself", "hey", "hi", "him", "himself",
    "his", "how", "how's", "i", "i'd", "i'll", "i'm", "i've", "id", "if", "ill", "im", "in", "into",
    "is", "isn", "isn't", "it", "it's", "its", "itself", "ive", "just", "let's", "ll", "m", "me",
    "more", "most", "mustn't", "my", "myself", "no", "nor", "not", "of", "off", "oh", "on", "once",
    "only", "or", "other", "ought", "our", "ours", "ourselves", "out", "over", "own", "re",
    "really", "s", "same", "shan't", "she", "she'd", "she'll", "she's", "should", "shouldn",
    "shouldn't", "so", "some", "such", "t", "than", "that", "that's", "thats", "the", "their",
    "theirs", "them", "themselves", "then", "there", "there's", "these", "they", "they'd",
    "they'll", "they're", "they've", "this", "those", "through", "to", "too", "under", "until",
    "up", "ve", "very", "was", "wasn", "wasn't", "we", "we'd", "we'll", "we're", "we've", "well",
    "were", "weren", "weren't", "what", "what's", "whats", "when", "when's", "where", "where's",
    "which", "while", "who", "who's", "whom", "why", "why's", "with", "won", "won't", "would",
    "wouldn", "wouldn't", "yeah", "you", "you'd", "you'll", "you're", "you've", "your", "youre",
    "yours", "yourself", "yourselves",
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
