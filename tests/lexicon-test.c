/* lexicon-test.c - engine/lexicon: synonyms read from a WordNet database,
 * against the small database in tests/data/wordnet (written for these
 * tests in WordNet's file format, so the tests need no installed package):
 * synsets, base forms by rule and by exception list, the sense limit,
 * multi-word and hyphenated lemmas left out, adjective markers and capitals,
 * and a missing or empty directory. Links only engine/lexicon.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/lexicon.h"
#include "tests/tap.h"

#define DIR "tests/data/wordnet"

typedef struct got {
    char words[512];
    int n, stop_after;
} got;

static int collect(void *ctx, const char *syn, size_t n)
{
    got *g = ctx;
    size_t len = strlen(g->words);
    snprintf(g->words + len, sizeof g->words - len, "%s%.*s", len ? " " : "", (int)n, syn);
    g->n++;
    return g->stop_after && g->n >= g->stop_after;
}

/* The synonyms of word from the first senses, space-separated. */
static const char *syns(const lexicon *lx, const char *word, int senses)
{
    static got g;
    memset(&g, 0, sizeof g);
    int n = lexicon_synonyms(lx, word, strlen(word), senses, collect, &g);
    if (n != g.n)
        return "count mismatch";
    return g.words;
}

int main(void)
{
    lexicon *lx = lexicon_open(DIR);
    ok(lx != NULL, "the test database opens");
    if (!lx)
        return done_testing();

    is_str(syns(lx, "tourney", 2), "tournament", "a synonym from the word's synset");
    is_str(syns(lx, "tournament", 2), "tourney", "and back");
    is_str(syns(lx, "colleague", 2), "workfellow confrere fellow",
           "both senses; multi-word and hyphenated lemmas left out");
    is_str(syns(lx, "colleague", 1), "workfellow", "the sense limit keeps the first sense");
    is_str(syns(lx, "colleagues", 2), "workfellow confrere fellow",
           "a plural finds its base form by rule");
    is_str(syns(lx, "kids", 1), "child youngster", "rule -s, first sense of three");
    is_str(syns(lx, "kid", 3), "child youngster goatling kidskin", "three senses in order");
    is_str(syns(lx, "geese", 2), "anser", "the exception list gives goose; capitals folded");
    is_str(syns(lx, "unwinding", 2), "relax destress", "a verb by the -ing rule");
    is_str(syns(lx, "large", 2), "big", "the adjective marker (a) is cut");
    is_str(syns(lx, "zebra", 2), "", "an unknown word has none");
    is_str(syns(lx, "", 2), "", "an empty word has none");

    got g = {.stop_after = 1};
    lexicon_synonyms(lx, "kid", 3, 3, collect, &g);
    is_str(g.words, "child", "the callback stops the walk");

    ok(lexicon_senses(lx, "kid", 3) == 3, "kid has three senses");
    ok(lexicon_senses(lx, "colleagues", 10) == 2, "colleagues: the senses of its base form");
    ok(lexicon_senses(lx, "zebra", 5) == 0, "an unknown word: none");
    lexicon_close(lx);

    ok(lexicon_open("tests/data/no-such-dir") == NULL, "a missing directory: no lexicon");
    ok(lexicon_open("") == NULL, "an empty directory name: no lexicon");
    ok(lexicon_open("tests/data") == NULL, "a directory without the files: no lexicon");
    lexicon_close(NULL);
    ok(syns(NULL, "kid", 2)[0] == '\0', "no lexicon gives no synonyms");
    return done_testing();
}
