/* kind-test.c - the evidence floor's kind rule (engine/floor.c) on small
 * hand-made stores: a question asking which or what kind of a nameable
 * thing ("which city", "what instrument") needs a passing memory that
 * names one, below the noun in WordNet ("clarinet", "Rome"), or for "what"
 * the noun itself, or for "which" the noun beside a name. When none does,
 * it abstains and says what found no support; the trace of a cut memory
 * says which rule cut it. A noun of a class whose members are not named
 * things (a technique) is not checked. A question asking how much
 * something cost needs a sum of money, one asking how old an age: any
 * number is not enough. WordNet is the small database in
 * tests/data/wordnet ($MEMSCOPE_WORDNET), so the test needs no installed
 * package. Builds its stores in a temporary directory it removes. Links
 * only libcore. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/embed.h"
#include "engine/engine.h"
#include "store/store.h"
#include "tests/tap.h"

static char tmpdir[] = "/tmp/memscope-kind-test-XXXXXX";
#include "tests/testdir.h"

#include "tests/floorcase.h"

/* Music and painting: each memory in its own session (no edges) but the
 * last two, a question and its answer in the next turn. */
static const spec music[] = {
    {"k1", "Leah", "s1", "2025-03-01T10:00:00Z",
     "Leah: I play the clarinet in a band every Friday."},
    {"k2", "Sam", "s2", "2025-03-02T10:00:00Z",
     "Sam: I use a wet technique for painting skies over the harbour."},
    {"k3", "Sam", "s3", "2025-03-03T10:00:00Z",
     "Sam: Which instrument does your brother practise at night, Leah?"},
    {"k4", "Leah", "s3", "2025-03-03T10:01:00Z", "Leah: Drums, sadly, every single evening."},
};

/* Shops: one that is never named, and a bakery (a kind of shop). */
static const spec shops[] = {
    {"b1", "Sam", "s1", "2025-04-01T10:00:00Z",
     "Sam: My sister runs a small shop near the station and works long hours."},
    {"b2", "Leah", "s2", "2025-04-02T10:00:00Z",
     "Leah: The bakery on our road makes the best rye bread."},
    {"b3", "Leah", "s3", "2025-04-03T10:00:00Z", "Leah: We planted tomatoes and beans this year."},
};

/* A shop with a name. */
static const spec named[] = {
    {"c1", "Sam", "s1", "2025-05-01T10:00:00Z",
     "Sam: My sister runs a shop called Tidewater near the station."},
    {"c2", "Leah", "s2", "2025-05-02T10:00:00Z", "Leah: We planted tomatoes and beans this year."},
};

/* Prices and ages, with other numbers beside them. */
static const spec amounts[] = {
    {"a1", "Leah", "s1", "2025-06-01T10:00:00Z", "Leah: My new bike cost 300 pounds in the sale."},
    {"a2", "Sam", "s2", "2025-06-02T10:00:00Z",
     "Sam: The bake sale raised money for the shelter, 40 people came."},
    {"a3", "Leah", "s3", "2025-06-03T10:00:00Z", "Leah: My nephew Finn turned 6 in May."},
    {"a4", "Sam", "s4", "2025-06-04T10:00:00Z",
     "Sam: My daughter started at a school with 20 other kids."},
};

/* A mother's instrument and her daughter, in memories of their own; and
 * a store where the daughter's instrument is said. */
static const spec family[] = {
    {"f1", "Leah", "s1", "2025-07-01T10:00:00Z",
     "Leah: I play the clarinet in a band every Friday."},
    {"f2", "Leah", "s2", "2025-07-02T10:00:00Z",
     "Leah: My daughter started at the music school this week."},
    {"f3", "Leah", "s3", "2025-07-03T10:00:00Z", "Leah: I turned 40 on Sunday, what a party."},
};
static const spec family_said[] = {
    {"g1", "Leah", "s1", "2025-07-01T10:00:00Z",
     "Leah: I play the clarinet in a band every Friday."},
    {"g2", "Leah", "s2", "2025-07-02T10:00:00Z",
     "Leah: My daughter plays the drum at the music school."},
};

/* A contest nobody says who won, and one whose winner is named: in the
 * same turn, and in the reply to a question that says the verb. Places to
 * live: a word of living with no place, and a village. */
static const spec contest[] = {
    {"w1", "Sam", "s1", "2025-08-01T10:00:00Z",
     "Sam: The chess tournament at the library was packed this year."},
    {"w2", "Leah", "s2", "2025-08-02T10:00:00Z",
     "Leah: I loved watching the tournament, the final game was tense."},
    {"w3", "Leah", "s3", "2025-08-03T10:00:00Z",
     "Leah: Living so close to the sea is the best thing, the air is fresh."},
    {"w4", "Sam", "s4", "2025-08-04T10:00:00Z", "Sam: Living on my own suits me."},
    {"w5", "Sam", "s5", "2025-08-05T10:00:00Z", "Sam: Rowing on Saturday keeps me sane."},
};
static const spec contest_said[] = {
    {"x1", "Sam", "s1", "2025-08-01T10:00:00Z",
     "Sam: In the end Priya won the chess tournament at the library."},
    {"x2", "Sam", "s2", "2025-08-02T10:00:00Z", "Sam: Who won the quiz night at the pub, Leah?"},
    {"x3", "Leah", "s2", "2025-08-02T10:01:00Z", "Leah: It was Tomasz, by two points."},
    {"x4", "Leah", "s3", "2025-08-03T10:00:00Z",
     "Leah: We live in a small village near the sea now."},
    {"x5", "Sam", "s4", "2025-08-04T10:00:00Z", "Sam: Rowing on the canal keeps me sane."},
};

static void test_music(engine *e)
{
    recall_result *r = ask(e, "What instrument does Leah play in the band?");
    ok(r && !r->abstained && returned(r, "k1") && strcmp(r->floor_kind, "instrument") == 0 &&
           r->floor_kind_supported,
       "what instrument: the clarinet is a kind of instrument, answered");
    recall_free(r);
    r = ask(e, "Which instrument does Leah's brother practise at night?");
    ok(r && !r->abstained && returned(r, "k3") && r->floor_kind_supported,
       "which instrument: the next turn names drums, the question's turn passes with it");
    recall_free(r);
    r = ask(e, "What technique does Sam use for painting skies?");
    ok(r && !r->abstained && returned(r, "k2") && r->floor_kind[0] == '\0',
       "what technique: a kind of idea is not a named thing, not checked");
    recall_free(r);
}

static void test_shops(engine *e, engine *named_e)
{
    recall_result *r = ask(e, "Which shop does Sam's sister run near the station?");
    ok(r && r->abstained && strcmp(r->floor_kind, "shop") == 0 && r->floor_kind_which,
       "which shop: her memory says shop and names none, abstains");
    is_str(r ? r->floor_no_support : NULL, "nothing about which \"shop\" for Sam",
           "and says what found no support");
    const char *why = miss_why(r, "b1");
    ok(strstr(why, "(lexical), but no memory that passes names which \"shop\""),
       "the cut memory's trace says it passed by overlap and what cut it (%s)", why);
    recall_free(r);
    r = ask(e, "What shop does Sam's sister run near the station?");
    ok(r && !r->abstained && returned(r, "b1"),
       "what shop: the noun itself answers what (a small shop near the station)");
    recall_free(r);
    r = ask(e, "Which shop makes Leah's rye bread?");
    ok(r && !r->abstained && returned(r, "b2"), "which shop: a bakery is one, answered");
    recall_free(r);
    r = ask(named_e, "Which shop does Sam's sister run near the station?");
    ok(r && !r->abstained && returned(r, "c1"),
       "which shop: the noun beside a name (Tidewater) says which, answered");
    recall_free(r);
}

/* "How much ... cost" asks a sum of money, "how old" an age: any number
 * is not one. */
static void test_amounts(engine *e)
{
    recall_result *r = ask(e, "How much did Leah's new bike cost?");
    ok(r && !r->abstained && returned(r, "a1"), "how much did the bike cost: 300 pounds");
    recall_free(r);
    r = ask(e, "How much money did Sam's bake sale raise for the shelter?");
    ok(r && r->abstained, "how much money did the bake sale raise: 40 people is no sum, abstains");
    ok(strstr(miss_why(r, "a2"), "asks for a sum of money") != NULL,
       "the cut memory says what it lacks (%s)", miss_why(r, "a2"));
    recall_free(r);
    r = ask(e, "How old is Leah's nephew Finn?");
    ok(r && !r->abstained && returned(r, "a3"), "how old is her nephew: he turned 6");
    recall_free(r);
    r = ask(e, "How old is Sam's daughter?");
    ok(r && r->abstained && strstr(miss_why(r, "a4"), "asks for an age"),
       "how old is his daughter: 20 other kids is no age, abstains (%s)", miss_why(r, "a4"));
    recall_free(r);
}

/* A possessive moves the question to the one it names: the clarinet Leah
 * plays is not her daughter's instrument, and her age is not her
 * daughter's. */
static void test_owner(engine *e, engine *said)
{
    recall_result *r = ask(e, "What instrument does Leah's daughter play?");
    ok(r && r->abstained, "what instrument does her daughter play: only Leah's own, abstains");
    is_str(r ? r->floor_no_support : NULL, "nothing about what \"instrument\" for Leah's daughter",
           "and says whose instrument found no support");
    const char *why = miss_why(r, "f1");
    ok(strstr(why, "but no memory that passes names a kind of \"instrument\" beside \"daughter\""),
       "the clarinet's trace says the kind is not beside the daughter (%s)", why);
    recall_free(r);
    r = ask(e, "What instrument does Leah play?");
    ok(r && !r->abstained && returned(r, "f1"), "what instrument does Leah play: the clarinet");
    recall_free(r);
    r = ask(said, "What instrument does Leah's daughter play?");
    ok(r && !r->abstained && returned(r, "g2"),
       "what instrument does her daughter play: the drum, beside the daughter");
    recall_free(r);
    r = ask(e, "How old is Leah's daughter?");
    why = miss_why(r, "f3");
    ok(r && r->abstained && strstr(why, "asks for an age of its \"daughter\""),
       "how old is her daughter: Leah turned 40, abstains (%s)", why);
    recall_free(r);
    r = ask(e, "How old did Leah turn at her party?");
    ok(r && !r->abstained && returned(r, "f3"), "how old did Leah turn: she turned 40");
    recall_free(r);
}

/* "Who won ..." needs a memory saying the verb with a name or a person,
 * "where does she live" the verb with a place or a name; the verb may be
 * in the turn a memory replies to. */
static void test_slot(engine *e, engine *said)
{
    recall_result *r = ask(e, "Who won the chess tournament at the library?");
    ok(r && r->abstained, "who won the tournament: the pool never says who won, abstains");
    is_str(r ? r->floor_no_support : NULL, "nothing about who \"won\"",
           "and says what found no support");
    const char *why = miss_why(r, "w1");
    ok(strstr(why, "(lexical), but no memory that passes says \"won\" with a name"),
       "the cut memory's trace says which rule cut it (%s)", why);
    recall_free(r);
    r = ask(said, "Who won the chess tournament at the library?");
    ok(r && !r->abstained && returned(r, "x1"), "who won the tournament: Priya won it");
    recall_free(r);
    r = ask(said, "Who won the quiz night at the pub?");
    ok(r && !r->abstained && returned(r, "x3"),
       "who won the quiz night: the reply names Tomasz, the question says won");
    recall_free(r);
    r = ask(e, "Where does Leah live?");
    ok(r && r->abstained && strstr(miss_why(r, "w3"), "says \"live\" with a place"),
       "where does Leah live: living by the sea names no place, abstains (%s)", miss_why(r, "w3"));
    is_str(r ? r->floor_no_support : NULL, "nothing about where \"live\" for Leah",
           "and says what found no support");
    recall_free(r);
    r = ask(e, "Where does Sam live?");
    ok(r && r->abstained && strstr(miss_why(r, "w4"), "says \"live\" with a place"),
       "where does Sam live: \"me\" is a stop word, not Maine (%s)", miss_why(r, "w4"));
    recall_free(r);
    r = ask(said, "Where does Leah live?");
    ok(r && !r->abstained && returned(r, "x4"), "where does Leah live: in a small village");
    recall_free(r);
    r = ask(said, "Where does Sam go rowing?");
    ok(r && !r->abstained && returned(r, "x5"),
       "where does Sam go rowing: the verb is rowing, on the canal is a place");
    recall_free(r);
    r = ask(e, "Where does Sam go rowing?");
    ok(r && r->abstained && strstr(miss_why(r, "w5"), "says \"rowing\" with a place"),
       "where does Sam go rowing: on Saturday is a time, abstains (%s)", miss_why(r, "w5"));
    recall_free(r);
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
    store *s[8] = {emb ? build(emb, "music.db", music, N(music)) : NULL,
                   emb ? build(emb, "shops.db", shops, N(shops)) : NULL,
                   emb ? build(emb, "named.db", named, N(named)) : NULL,
                   emb ? build(emb, "amounts.db", amounts, N(amounts)) : NULL,
                   emb ? build(emb, "family.db", family, N(family)) : NULL,
                   emb ? build(emb, "family2.db", family_said, N(family_said)) : NULL,
                   emb ? build(emb, "contest.db", contest, N(contest)) : NULL,
                   emb ? build(emb, "contest2.db", contest_said, N(contest_said)) : NULL};
    engine *e[8] = {NULL};
    int bad = 0;
    for (int k = 0; k < 8; k++)
        bad |= !s[k] || engine_open(s[k], NULL, &e[k], &err) != MS_OK;
    if (bad)
        printf("Bail out! cannot build the test stores\n");
    else {
        test_music(e[0]);
        test_shops(e[1], e[2]);
        test_amounts(e[3]);
        test_owner(e[4], e[5]);
        test_slot(e[6], e[7]);
    }
    for (int k = 0; k < 8; k++) {
        engine_close(e[k]);
        store_close(s[k]);
    }
    embed_close(emb);
    remove_tmpdir();
    return bad ? 1 : done_testing();
}
