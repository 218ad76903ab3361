/* lexicon-test.c - engine/lexicon: synonyms read from a WordNet database,
 * against the small database in tests/data/wordnet (written for these
 * tests in WordNet's file format, so the tests need no installed package):
 * synsets, base forms by rule and by exception list, the sense limit,
 * multi-word and hyphenated lemmas left out, adjective markers and capitals,
 * and a missing or empty directory; and the kinds of a noun (its hyponyms
 * and instances, transitively), its class, its base forms. Links only
 * engine/lexicon.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

typedef struct kinds_got {
    char words[512];
    int stop_after, n;
} kinds_got;

static int kind_collect(void *ctx, const char *lemma, size_t n, int own)
{
    kinds_got *g = ctx;
    size_t len = strlen(g->words);
    snprintf(g->words + len, sizeof g->words - len, "%s%s%.*s", len ? " " : "", own ? "=" : "",
             (int)n, lemma);
    return g->stop_after && ++g->n >= g->stop_after;
}

/* The kinds of word, own senses' words marked "=", and the count. */
static const char *kinds(const lexicon *lx, const char *word, int max, int *visited)
{
    static kinds_got g;
    memset(&g, 0, sizeof g);
    *visited = lexicon_kinds(lx, word, strlen(word), 3, max, kind_collect, &g);
    return g.words;
}

static int base_collect(void *ctx, const char *w, size_t n)
{
    kinds_got *g = ctx;
    size_t len = strlen(g->words);
    snprintf(g->words + len, sizeof g->words - len, "%s%.*s", len ? " " : "", (int)n, w);
    return 0;
}

/* The kinds below a noun, its class and its base forms. */
static void test_kinds(const lexicon *lx)
{
    int v;
    is_str(kinds(lx, "instrument", 100, &v),
           "=musical_instrument =instrument clarinet drum membranophone bass_clarinet",
           "the kinds of instrument: its own words, then below, transitively");
    ok(v == 4, "four synsets visited (%d)", v);
    is_str(kinds(lx, "instruments", 100, &v),
           "=musical_instrument =instrument clarinet drum "
           "membranophone bass_clarinet",
           "a plural finds the noun");
    is_str(kinds(lx, "city", 100, &v), "=city =metropolis rome roma eternal_city leeds",
           "instances count as kinds, lower-cased");
    is_str(kinds(lx, "clarinet", 100, &v), "=clarinet bass_clarinet",
           "a hypernym is not a kind (the walk goes down only)");
    kinds(lx, "instrument", 2, &v);
    ok(v == -1, "more synsets below than allowed: -1");
    kinds(lx, "zebra", 100, &v);
    ok(v == -1, "an unknown noun: -1");
    kinds(lx, "big", 100, &v);
    ok(v == -1, "an adjective has no kinds");
    kinds_got g = {.stop_after = 2};
    lexicon_kinds(lx, "instrument", 10, 3, 100, kind_collect, &g);
    is_str(g.words, "=musical_instrument =instrument", "the callback stops the walk");
    ok(lexicon_noun_class(lx, "instrument", 10) == 6, "instrument: noun.artifact (6)");
    ok(lexicon_noun_class(lx, "cities", 6) == 15, "cities: noun.location (15)");
    ok(lexicon_noun_class(lx, "technique", 9) == 9, "technique: noun.cognition (9)");
    ok(lexicon_noun_class(lx, "zebra", 5) == -1, "an unknown word: -1");
    ok(lexicon_is_noun(lx, "drums", 5) && !lexicon_is_noun(lx, "large", 5),
       "drums is a noun, large is not");
    ok(lexicon_is_adjective(lx, "large", 5) && !lexicon_is_adjective(lx, "drum", 4),
       "large is an adjective, drum is not");
    memset(&g, 0, sizeof g);
    ok(lexicon_noun_bases(lx, "clarinets", 9, base_collect, &g) == 1 &&
           strcmp(g.words, "clarinet") == 0,
       "the base form of clarinets (%s)", g.words);
    memset(&g, 0, sizeof g);
    ok(lexicon_noun_bases(lx, "bass_clarinets", 14, base_collect, &g) == 1 &&
           strcmp(g.words, "bass_clarinet") == 0,
       "a joined pair finds its base form too (%s)", g.words);
    ok(lexicon_noun_bases(lx, "zebras", 6, base_collect, &g) == 0, "an unknown word has none");
    ok(lexicon_kinds(NULL, "city", 4, 3, 100, kind_collect, &g) == -1 &&
           lexicon_noun_class(NULL, "city", 4) == -1 && !lexicon_is_noun(NULL, "city", 4),
       "no lexicon: no kinds, no class, no noun");
}

/* The bisection over a file's bytes: its first and last lines, keys
 * before, after and between them, a prefix of a lemma. */
static void test_ends(const lexicon *lx, const char *where)
{
    ok(lexicon_is_noun(lx, "anser", 5), "%s: the first lemma is found", where);
    ok(lexicon_is_noun(lx, "youngster", 9), "%s: the last lemma is found", where);
    ok(!lexicon_is_noun(lx, "aardvark", 8), "%s: a word before the first is not", where);
    ok(!lexicon_is_noun(lx, "zyzzyva", 7), "%s: a word after the last is not", where);
    ok(!lexicon_is_noun(lx, "anse", 4) && !lexicon_is_noun(lx, "youngsterz", 10),
       "%s: a prefix of a lemma, or a lemma and more, is not", where);
}

/* The test database again, its index.noun grown by licence lines to fill
 * whole pages (so it is read into memory, not mapped: a mapping would end
 * without a NUL); the same lookups. */
static void test_whole_pages(void)
{
    char dir[] = "/tmp/memscope-lexicon-XXXXXX", path[256], cmd[600];
    long page = sysconf(_SC_PAGESIZE);
    if (!mkdtemp(dir) || page <= 0) {
        ok(0, "a temporary directory");
        return;
    }
    snprintf(cmd, sizeof cmd, "cp " DIR "/data.noun " DIR "/noun.exc %s/", dir);
    int bad = system(cmd) != 0;
    FILE *in = fopen(DIR "/index.noun", "rb");
    snprintf(path, sizeof path, "%s/index.noun", dir);
    FILE *out = fopen(path, "wb");
    char body[8192];
    size_t n = in ? fread(body, 1, sizeof body, in) : 0;
    long pad = page - (long)(n % (size_t)page);
    for (; out && pad > 0; pad -= 64) /* licence lines of 64 bytes, the last shorter */
        fprintf(out, "  %.*s\n", (int)((pad >= 64 ? 64 : pad) - 3),
                "licence licence licence licence licence licence licence licence");
    bad = bad || !in || !out || fwrite(body, 1, n, out) != n;
    if (in)
        fclose(in);
    if (out)
        bad = fclose(out) != 0 || bad;
    FILE *f = fopen(path, "rb");
    long size = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (f)
        fclose(f);
    ok(!bad && size > 0 && size % page == 0, "index.noun of whole pages (%ld bytes)", size);
    lexicon *lx = lexicon_open(dir);
    ok(lx != NULL, "a database with a whole-page index opens");
    if (lx)
        test_ends(lx, "whole pages");
    lexicon_close(lx);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
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
    test_kinds(lx);
    test_ends(lx, "mapped");
    lexicon_close(lx);
    test_whole_pages();

    ok(lexicon_open("tests/data/no-such-dir") == NULL, "a missing directory: no lexicon");
    ok(lexicon_open("") == NULL, "an empty directory name: no lexicon");
    ok(lexicon_open("tests/data") == NULL, "a directory without the files: no lexicon");
    lexicon_close(NULL);
    ok(syns(NULL, "kid", 2)[0] == '\0', "no lexicon gives no synonyms");
    return done_testing();
}
