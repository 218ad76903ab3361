/* verb-test.c - the evidence floor's verb rule (engine/floor.c, "the verb
 * of what") on small hand-made stores: a question "what did she VERB ..."
 * needs a passing memory that says the verb or a word of its family, with
 * the memories an edge joins it to: its forms ("cooked"), the words of its
 * senses ("purchased" for "buy"), the words derived from it ("death" for
 * "die"), but not a noun of the one who does it ("painter"), with what it
 * is done to, a noun after it in the sentence (not "I cook!"). When
 * none does, it abstains and says what found no support; the trace of a
 * cut memory says which rule cut it. A verb of telling or thinking, or of
 * a clause ("say", "want"), is not checked; "do for a living" asks for
 * work, beside the one a possessive names; a memory on the date the
 * question names holds the verb. And lexicon.c's verb family, class and
 * frames on their own. WordNet is the small database in tests/data/wordnet
 * ($MEMSCOPE_WORDNET). Builds its stores in a temporary directory it
 * removes. Links only libcore. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/embed.h"
#include "engine/engine.h"
#include "engine/lexicon.h"
#include "store/store.h"
#include "tests/tap.h"

static char tmpdir[] = "/tmp/memscope-verb-test-XXXXXX";
#include "tests/testdir.h"

#include "tests/floorcase.h"

/* What the verbs are never said of: each memory in its own session. */
static const spec unsaid[] = {
    {"u1", "Sam", "s1", "2025-03-01T10:00:00Z",
     "Sam: Dinner on weekdays is always a rush after the school run."},
    {"u2", "Leah", "s2", "2025-03-02T10:00:00Z",
     "Leah: The market on the square was crowded this morning."},
    {"u3", "Sam", "s3", "2025-03-03T10:00:00Z",
     "Sam: My brother is a painter at the harbour studio."},
    {"u4", "Sam", "s4", "2025-03-04T10:00:00Z", "Sam: My wife loves the garden in spring."},
    {"u5", "Sam", "s5", "2025-03-05T10:00:00Z", "Sam: Work has been so busy for me lately."},
    {"u6", "Leah", "s6", "2025-03-06T10:00:00Z",
     "Leah: The market is where I go to think about the week."},
    {"u7", "Leah", "s7", "2025-03-07T10:00:00Z", "Leah: Our old cat was sick all winter."},
    {"u8", "Sam", "s8", "2025-03-08T10:00:00Z", "Sam: On weekdays, before dinner, I cook!"},
};

/* The same things, said. */
static const spec said[] = {
    {"d1", "Sam", "s1", "2025-03-01T10:00:00Z",
     "Sam: I cooked a big pot of chili for dinner on weekdays."},
    {"d2", "Leah", "s2", "2025-03-02T10:00:00Z",
     "Leah: I purchased fresh bread at the market this morning."},
    {"d3", "Sam", "s3", "2025-03-03T10:00:00Z",
     "Sam: My painting of the harbour studio is nearly done."},
    {"d4", "Sam", "s4", "2025-03-04T10:00:00Z",
     "Sam: My wife works at the garden centre in spring."},
    {"d5", "Leah", "s5", "2025-03-05T10:00:00Z",
     "Leah: The death of our old cat after a sick winter hit us hard."},
};

/* A party on a date, told without the question's verb. */
static const spec party[] = {
    {"p1", "Leah", "s1", "2025-05-10T10:00:00Z",
     "Leah: We threw a small party for the veterans at the hall."},
    {"p2", "Sam", "s2", "2025-08-02T10:00:00Z", "Sam: The veterans at the hall loved the music."},
};

/* One question on the store where it is unsaid (abstains, the trace of
 * memory cut says the verb) and on the one where it is said (passes,
 * returns memory answer). */
static void pair(engine *un, engine *sd, const char *q, const char *verb, const char *cut,
                 const char *answer, const char *what)
{
    char lacks[128];
    snprintf(lacks, sizeof lacks, "but no memory that passes says \"%s\" or a word WordNet", verb);
    recall_result *r = ask(un, q);
    ok(r && r->abstained && strcmp(r->floor_verb, verb) == 0, "%s: unsaid, abstains", q);
    ok(strstr(miss_why(r, cut), lacks) != NULL, "the cut memory's trace says the verb rule (%s)",
       miss_why(r, cut));
    recall_free(r);
    r = ask(sd, q);
    ok(r && !r->abstained && returned(r, answer), "%s: %s", q, what);
    recall_free(r);
}

static void test_family(engine *un, engine *sd)
{
    pair(un, sd, "What does Sam cook for dinner on weekdays?", "cook", "u1", "d1",
         "\"cooked\" is a form of it");
    pair(un, sd, "What did Leah buy at the market?", "buy", "u2", "d2",
         "\"purchased\": a word of its sense");
    pair(un, sd, "What did Sam paint at the harbour studio?", "paint", "u3", "d3",
         "\"painting\" is a form of it; \"painter\" names who paints, and is not");
    pair(un, sd, "What did Leah's old cat die of?", "die", "u7", "d5",
         "\"death\" is derived from it");
    recall_result *r = ask(un, "What does Sam cook for dinner on weekdays?");
    is_str(r ? r->floor_no_support : NULL, "nothing about \"cook\" for Sam",
           "the abstention says what found no support");
    ok(strstr(miss_why(r, "u8"), "says \"cook\" or a word WordNet relates") != NULL,
       "\"I cook!\" says the verb and not what: cut too (%s)", miss_why(r, "u8"));
    recall_free(r);
}

static void test_unchecked(engine *un)
{
    recall_result *r = ask(un, "What did Leah say about the market?");
    ok(r && !r->abstained && r->floor_verb[0] == '\0' && returned(r, "u2"),
       "a verb of telling is not checked: what did Leah say about the market passes");
    recall_free(r);
    r = ask(un, "What does Leah want from the market?");
    ok(r && !r->abstained && r->floor_verb[0] == '\0' && returned(r, "u2"),
       "nor a verb of a clause (want to ...): passes");
    recall_free(r);
    r = ask(un, "What did Leah do at the market?");
    ok(r && !r->abstained && r->floor_verb[0] == '\0', "nor do: any activity answers it");
    recall_free(r);
}

static void test_living(engine *un, engine *sd)
{
    recall_result *r = ask(un, "What does Sam's wife do for a living?");
    ok(r && r->abstained && strcmp(r->floor_verb, "work") == 0,
       "what does Sam's wife do for a living: his own work is not hers, abstains");
    is_str(r ? r->floor_no_support : NULL, "nothing about \"work\" for Sam's wife",
           "and says what found no support");
    recall_free(r);
    r = ask(sd, "What does Sam's wife do for work?");
    ok(r && !r->abstained && returned(r, "d4"), "what does Sam's wife do for work: she works");
    recall_free(r);
}

static void test_date(engine *e)
{
    recall_result *r = ask(e, "What did Leah host for the veterans at the hall in May 2025?");
    ok(r && !r->abstained && returned(r, "p1") && strcmp(r->floor_verb, "host") == 0,
       "what did Leah host in May: the party on the date, told without the verb");
    recall_free(r);
    r = ask(e, "What did Sam host for the veterans at the hall?");
    ok(r && r->abstained, "what did Sam host at the hall, no date: abstains");
    recall_free(r);
}

struct words {
    char all[512];
};

static int add_word(void *ctx, const char *w, size_t n)
{
    struct words *c = ctx;
    size_t at = strlen(c->all);
    snprintf(c->all + at, sizeof c->all - at, "%s%.*s", at ? " " : "", (int)n, w);
    return 0;
}

static void test_lexicon(void)
{
    lexicon *lx = lexicon_open("tests/data/wordnet");
    struct words w = {""};
    lexicon_verb_family(lx, "painted", 7, 3, add_word, &w);
    is_str(w.all, "paint painting", "the family of painted: its base and what derives from it");
    w.all[0] = '\0';
    lexicon_verb_family(lx, "buys", 4, 3, add_word, &w);
    is_str(w.all, "buy purchase", "of buys: the words of its sense");
    w.all[0] = '\0';
    lexicon_verb_family(lx, "died", 4, 3, add_word, &w);
    is_str(w.all, "die death", "of died: the noun derived from it");
    ok(lexicon_verb_class(lx, "said", 4) == -1 && lexicon_verb_class(lx, "say", 3) == 32 &&
           lexicon_verb_class(lx, "garden", 6) == -1,
       "the class of a verb's first sense; -1 for a word that is no verb (\"said\" is not "
       "in this lexicon's exceptions)");
    ok(lexicon_verb_clausal(lx, "want", 4) && !lexicon_verb_clausal(lx, "paint", 5) &&
           !lexicon_verb_clausal(lx, "win", 3),
       "want takes an infinitive (frame 28), paint an object, win has no frames here");
    lexicon_close(lx);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        printf("Bail out! cannot create a temporary directory: %s\n", strerror(errno));
        return 1;
    }
    setenv("MEMSCOPE_WORDNET", "tests/data/wordnet", 1);
    ms_error err;
    embedder *emb = embed_open(NULL, &err);
    store *s[3] = {emb ? build(emb, "unsaid.db", unsaid, N(unsaid)) : NULL,
                   emb ? build(emb, "said.db", said, N(said)) : NULL,
                   emb ? build(emb, "party.db", party, N(party)) : NULL};
    engine *e[3] = {NULL};
    int bad = 0;
    for (int k = 0; k < 3; k++)
        bad |= !s[k] || engine_open(s[k], NULL, &e[k], &err) != MS_OK;
    if (bad)
        printf("Bail out! cannot build the test stores\n");
    else {
        test_family(e[0], e[1]);
        test_unchecked(e[0]);
        test_living(e[0], e[1]);
        test_date(e[2]);
        test_lexicon();
    }
    for (int k = 0; k < 3; k++) {
        engine_close(e[k]);
        store_close(s[k]);
    }
    embed_close(emb);
    remove_tmpdir();
    return bad ? 1 : done_testing();
}
