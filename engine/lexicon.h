/* lexicon.h - words of the same meaning, from a WordNet database on disk.
 *
 * The lexicon reads the WordNet 3.0 database files (WNDB format: index.noun,
 * data.noun, noun.exc and the same for verb, adj and adv), as Debian's
 * package wordnet-base installs them in /usr/share/wordnet. Nothing is
 * downloaded; without the files the lexicon is simply absent and the
 * engine works as before. It gives, for a word, the other words of the
 * synsets of its most frequent senses: "tourney" -> "tournament",
 * "colleague" -> "confrere", "fellow", "workfellow". */
#ifndef MS_LEXICON_H
#define MS_LEXICON_H

#include <stddef.h>

typedef struct lexicon lexicon;

/* Senses read per part of speech and word: WordNet orders a word's senses
 * by how often they were tagged in a corpus, and the rare senses are where
 * the wrong synonyms come from ("kid" -> "child" is sense 1, "kid" ->
 * "kidskin" sense 3). */
#define LEXICON_SENSES_MAX 8

/* Open the database in dir (NULL: $MEMSCOPE_WORDNET, else the directory
 * the build was told, else /usr/share/wordnet). NULL when it is not there
 * or cannot be read (out of memory too): the caller goes on without it.
 * Free with lexicon_close. */
lexicon *lexicon_open(const char *dir);

/* Free; NULL is fine. */
void lexicon_close(lexicon *lx);

/* The process's lexicon, opened on first use from the default place (NULL
 * when there is none, or $MEMSCOPE_WORDNET is empty). Thread-safe; never
 * closed. */
const lexicon *lexicon_default(void);

/* Called with each synonym of a word: lower case, one token of ASCII
 * letters (multi-word and hyphenated lemmas are left out), n bytes.
 * Return non-zero to stop. */
typedef int (*lexicon_fn)(void *ctx, const char *syn, size_t n);

/* Call fn for each distinct synonym of word[0..n) (lower case), from the
 * first LEXICON_SENSES senses of each of its base forms (WordNet's
 * exception lists and suffix rules: "colleagues" -> "colleague") in each
 * part of speech; never the word itself or its base form. Returns how
 * many were given. */
int lexicon_synonyms(const lexicon *lx, const char *word, size_t n, int senses, lexicon_fn fn,
                     void *ctx);

/* How many senses word[0..n) has over its base forms and parts of speech
 * (0 when WordNet does not know it). */
int lexicon_senses(const lexicon *lx, const char *word, size_t n);

#endif
