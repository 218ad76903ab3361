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

/* Is word[0..n) (lower case) a noun, or an adjective, WordNet knows, in
 * some base form? */
int lexicon_is_noun(const lexicon *lx, const char *word, size_t n);
int lexicon_is_adjective(const lexicon *lx, const char *word, size_t n);

/* WordNet's lexicographer class of the most frequent noun sense of
 * word[0..n) (lexnames: 5 noun.animal, 6 noun.artifact, 14 noun.group,
 * 15 noun.location, 18 noun.person, ...), or -1 when it is no noun
 * WordNet knows. */
int lexicon_noun_class(const lexicon *lx, const char *word, size_t n);

/* Called with each word naming a kind of a noun (lexicon_kinds): lower
 * case, multi-word lemmas joined by '_' ("guinea_pig"), n bytes; own is 1
 * for the words of the noun's own senses ("city", "metropolis"), 0 for
 * those below them. Return non-zero to stop. */
typedef int (*lexicon_kind_fn)(void *ctx, const char *lemma, size_t n, int own);

/* Call fn for the words of the first `senses` noun senses of word[0..n)
 * and of every synset below them: hyponyms and instances, transitively
 * ("instrument" -> "clarinet", "city" -> "rome"). Visits at most max
 * synsets: returns how many were visited, or -1 when there were more (a
 * noun as broad as "thing"; fn was called for some of them) or WordNet
 * does not know it as a noun. */
int lexicon_kinds(const lexicon *lx, const char *word, size_t n, int senses, int max,
                  lexicon_kind_fn fn, void *ctx);

/* Call fn for each noun base form of word[0..n) that WordNet knows,
 * the word itself included when it is one ("dogs" -> "dog"; multi-word
 * forms joined by '_'). Returns how many were given. */
int lexicon_noun_bases(const lexicon *lx, const char *word, size_t n, lexicon_fn fn, void *ctx);

/* The same for the verb base forms of word[0..n) ("won" -> "win",
 * "studied" -> "study"); 0 when WordNet knows it as no verb. */
int lexicon_verb_bases(const lexicon *lx, const char *word, size_t n, lexicon_fn fn, void *ctx);

/* Call fn for each base form WordNet's exception lists of nouns and verbs
 * give word[0..n) ("bought" -> "buy", "geese" -> "goose"): the irregular
 * forms, which the suffix rules do not reach. Returns how many were given. */
int lexicon_exception_bases(const lexicon *lx, const char *word, size_t n, lexicon_fn fn,
                            void *ctx);

/* Is word[0..n) (lower case) an inflected form WordNet's exception list
 * of verbs gives a base ("got" -> "get", "won" -> "win")? */
int lexicon_verb_irregular(const lexicon *lx, const char *word, size_t n);

/* Call fn for each distinct word of a verb's family: the verb base forms
 * of word[0..n) themselves, the words of their first `senses` verb
 * synsets, and the words WordNet relates to those senses by derivation
 * ("paint" -> "painting"; "die" -> "death"), but for nouns of persons
 * ("painter", "student": who does it, not what). One token of ASCII letters, lower case. Returns
 * how many were given. */
int lexicon_verb_family(const lexicon *lx, const char *word, size_t n, int senses, lexicon_fn fn,
                        void *ctx);

/* Does the most frequent sense of the verb word[0..n) (its first base
 * form) take a clause or a complement: one of WordNet's sentence frames
 * "Somebody ----s that CLAUSE", "... to INFINITIVE", "... whether
 * INFINITIVE", "... VERB-ing", "... INFINITIVE", or "Something ----s
 * something Adjective/Noun" and the like (frames 5-7, 26, 28, 29, 32-35:
 * "say", "want", "think")? 0 too when WordNet knows it as no verb. */
int lexicon_verb_clausal(const lexicon *lx, const char *word, size_t n);

/* WordNet's lexicographer class of the most frequent verb sense of
 * word[0..n) (its first base form; 31 verb.cognition, 32
 * verb.communication, ...), or -1 when it is no verb WordNet knows. */
int lexicon_verb_class(const lexicon *lx, const char *word, size_t n);

#endif
