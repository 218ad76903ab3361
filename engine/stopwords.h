/* stopwords.h - English function words that carry no topic.
 *
 * Used where a query or a text is reduced to what it is about: the bm25
 * query (stopwords removed at query time measured better on LoCoMo), query-term
 * coverage in the evidence floor, and the hashed embedder's features. */
#ifndef MS_STOPWORDS_H
#define MS_STOPWORDS_H

#include <stddef.h>

/* Is w[0..n) (lower-case) a stop word? */
int stopword_is(const char *w, size_t n);

#endif
