/* words.h - the one word splitter: entity linking cuts a memory's text into
 * words with it when the memory is written (store/entity.c), and the query
 * analyser cuts the question with it (engine/query.c), so "Caroline's",
 * "Caroline’s" (curly apostrophe) and "Caroline" find the same entity. */
#ifndef MS_WORDS_H
#define MS_WORDS_H

#include <stddef.h>

/* One word of a text. */
typedef struct words_span {
    int start, end; /* byte range; a possessive 's or ’s is dropped */
    int cap;        /* starts with an upper-case letter */
    int first;      /* starts a sentence */
    int joined;     /* only spaces between it and the previous word */
} words_span;

/* Split text[0..len) into at most cap words, in order: runs of letters and
 * digits (any non-ASCII code point that is not known punctuation counts as a
 * letter), kept together across an inner apostrophe or hyphen. Malformed
 * UTF-8 is read as U+FFFD, one byte each. Returns the number of words. */
size_t words_split(const char *text, size_t len, words_span *w, size_t cap);

/* Is cp an upper-case letter (ASCII, Latin-1, Latin Extended-A, Greek and
 * Cyrillic capitals)? */
int words_is_upper(unsigned cp);

/* A straight or a curly (U+2019) apostrophe? */
int words_is_apostrophe(unsigned cp);

/* Part of a word: ASCII letters and digits, and non-ASCII code points
 * outside the punctuation blocks. */
int words_is_word(unsigned cp);

#endif
