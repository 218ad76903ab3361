/* answer-test.c - the evidence floor's kinds of acts and of works, on
 * small hand-made stores (engine/floor.c, engine/query.c):
 *
 *   - a kind WordNet files as an act ("what sport") is checked like a kind
 *     of thing: some passing memory must name one ("tennis");
 *   - a kind of work or message ("which song", WordNet's communication) is
 *     named by a title more than by a word below it: a name in the memory
 *     names one ("Blue Harbour by Mara Lind"), or a word below it ("a
 *     ballad");
 *   - a slot noun not followed by "of" names no kind ("what items des Sam
 *     keep ...": the typo's "des" is a noun);
 *   - "how many N" needs a count of N ("40 students"), not any number,
 *     unless it asks a tally ("how many N has she ..."), which the reader
 *     counts from the memories that tell of each, none of which need say
 *     a number;
 *   - a memory holding the amount asked holds the word asking for it: "I
 *     turned 40" answers "how old is Leah", though it never says "old";
 *   - a speaker's age is said of them: "a thirty year old woman" (an age a
 *     determiner makes the attribute of someone described) does not
 *     answer "how old is Jon", "I am 30 years old" does.
 *
 * WordNet is the small database in tests/data/wordnet-answer
 * ($MEMSCOPE_WORDNET), so the test needs no installed package. Builds its
 * stores in a temporary directory it removes. Links only libcore. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/embed.h"
#include "engine/engine.h"
#include "engine/engine_int.h"
#include "store/store.h"
#include "tests/tap.h"

static char tmpdir[] = "/tmp/memscope-answer-test-XXXXXX";
#include "tests/testdir.h"

#include "tests/floorcase.h"

/* Coaching with no sport named, a song with no title, things from a
 * childhood. */
static const spec vague[] = {
    {"v1", "Sam", "s1", "2025-03-01T10:00:00Z",
     "Sam: I coach the juniors at the youth centre every Saturday."},
    {"v2", "Leah", "s2", "2025-03-02T10:00:00Z",
     "Leah: One song always motivates me before a race."},
    {"v3", "Sam", "s3", "2025-03-03T10:00:00Z",
     "Sam: I still keep a few items from when I was a child, a red bike and a toy train."},
};

/* The same, with the sport and the song said. */
static const spec said[] = {
    {"t1", "Sam", "s1", "2025-03-01T10:00:00Z",
     "Sam: I coach tennis to the juniors at the youth centre every Saturday."},
    {"t2", "Leah", "s2", "2025-03-02T10:00:00Z",
     "Leah: Blue Harbour by Mara Lind always motivates me before a race."},
    {"t3", "Leah", "s3", "2025-03-03T10:00:00Z", "Leah: On Fridays I sing a ballad at the pub."},
};

/* Students and tournaments, with numbers that count something else. */
static const spec uncounted[] = {
    {"u1", "Jon", "s1", "2025-04-01T10:00:00Z",
     "Jon: My students love the studio, and we put up 2 new mirrors."},
    {"u2", "Sam", "s2", "2025-04-02T10:00:00Z",
     "Sam: I won another chess tournament, two weeks after the last one."},
    {"u3", "Leah", "s3", "2025-04-03T10:00:00Z", "Leah: I turned 40 on Sunday, what a party."},
    {"u4", "Sam", "s4", "2025-04-04T10:00:00Z", "Sam: We walked to the old mill with 3 dogs."},
};
static const spec counted[] = {
    {"n1", "Jon", "s1", "2025-04-01T10:00:00Z",
     "Jon: We have a dozen new students at the studio this term."},
    {"n2", "Jon", "s2", "2025-04-02T10:00:00Z", "Jon: I am 30 years old and still dancing."},
    {"w1", "Sam", "s2", "2025-04-05T10:00:00Z",
     "Sam: I won the chess tournament at the library today, what a game!"},
    {"w2", "Sam", "s3", "2025-05-10T10:00:00Z",
     "Sam: Won the chess tournament in Leeds as well, the final was tense."},
};

/* An age, of someone Jon describes. */
static const spec described[] = {
    {"d1", "Jon", "s1", "2025-04-05T10:00:00Z",
     "Jon: The film is about a thirty year old woman on a long journey."},
    {"d2", "Sam", "s2", "2025-04-06T10:00:00Z", "Sam: I saw that film about the journey too."},
};

/* A sport is an act: the kind rule checks it. */
static void test_act(engine *vague_e, engine *said_e)
{
    recall_result *r = ask(vague_e, "What sport does Sam coach at the youth centre?");
    ok(r && r->abstained && strcmp(r->floor_kind, "sport") == 0,
       "what sport: coaching the juniors names no sport, abstains");
    is_str(r ? r->floor_no_support : NULL, "nothing about what \"sport\" for Sam",
           "and says what found no support");
    const char *why = miss_why(r, "v1");
    ok(strstr(why, "(lexical), but no memory that passes names a kind of \"sport\""),
       "the cut memory's trace names the rule and the kind (%s)", why);
    recall_free(r);
    r = ask(said_e, "What sport does Sam coach at the youth centre?");
    ok(r && !r->abstained && returned(r, "t1") && r->floor_kind_supported,
       "what sport: tennis is one, answered");
    recall_free(r);
}

/* A song is a work: a title names one, and so does a word below it. */
static void test_work(engine *vague_e, engine *said_e)
{
    recall_result *r = ask(vague_e, "Which song motivates Leah before a race?");
    ok(r && r->abstained && strcmp(r->floor_kind, "song") == 0,
       "which song: \"one song\" names none, abstains");
    const char *why = miss_why(r, "v2");
    ok(strstr(why, "names which \"song\" or a title"),
       "the cut memory's trace says a title would do (%s)", why);
    recall_free(r);
    r = ask(said_e, "Which song motivates Leah before a race?");
    ok(r && !r->abstained && returned(r, "t2") && r->floor_kind_supported,
       "which song: a title beside its singer (Blue Harbour by Mara Lind), answered");
    recall_free(r);
    r = ask(said_e, "What song does Leah sing at the pub?");
    ok(r && !r->abstained && returned(r, "t3") && r->floor_kind_supported,
       "what song: a ballad is one, answered");
    recall_free(r);
}

/* "items" names the answer's slot: no kind is asked, whatever nouns follow. */
static void test_slot_noun(engine *vague_e)
{
    recall_result *r = ask(vague_e, "What items des Sam keep from when he was a child?");
    ok(r && !r->abstained && returned(r, "v3") && r->floor_kind[0] == '\0',
       "what items des Sam keep: no kind asked, the items he keeps answer it");
    recall_free(r);
}

/* The count itself, on texts. */
static void test_count_words(void)
{
    static const struct {
        const char *noun, *text;
        int held;
    } cases[] = {
        {"students", "We have 40 students now.", 1},
        {"students", "a dozen new students joined", 1},
        {"students", "My students love the 2 new mirrors.", 0},
        {"students", "Only one student came.", 1},
        {"dogs", "two of the dogs are puppies", 1},
        {"times", "I went there twice this year.", 1},
        {"times", "I went there last year.", 0},
        {"siblings", "I love my siblings.", 0},
    };
    for (size_t i = 0; i < N(cases); i++)
        ok(floor_holds_count(lexicon_default(), cases[i].noun, cases[i].text) == cases[i].held,
           "count of %s in '%s': %s", cases[i].noun, cases[i].text, cases[i].held ? "yes" : "no");
}

/* "How many N" asks a count of N; a tally any number. */
static void test_count(engine *uncounted_e, engine *counted_e)
{
    recall_result *r = ask(uncounted_e, "How many students are enrolled at Jon's studio?");
    ok(r && r->abstained, "how many students: 2 new mirrors count no students, abstains");
    is_str(r ? r->floor_no_support : NULL, "nothing about how many \"students\" for Jon",
           "and says what found no support");
    const char *why = miss_why(r, "u1");
    ok(strstr(why, "asks for a count of \"students\""), "the cut memory says what it lacks (%s)",
       why);
    recall_free(r);
    r = ask(counted_e, "How many students are enrolled at Jon's studio?");
    ok(r && !r->abstained && returned(r, "n1"),
       "how many students: a dozen new students, answered");
    recall_free(r);
    r = ask(uncounted_e, "How many chess tournaments has Sam won?");
    ok(r && !r->abstained && returned(r, "u2"),
       "how many tournaments has he won: a tally, any number of the memory will do");
    recall_free(r);
    r = ask(counted_e, "How many chess tournaments has Sam won?");
    ok(r && !r->abstained && returned(r, "w1") && returned(r, "w2"),
       "how many tournaments has he won: a tally, counted from the wins told, none with a "
       "number (%s)",
       miss_why(r, "w1"));
    recall_free(r);
    r = ask(counted_e, "How many chess tournaments does Sam play?");
    ok(r && r->abstained && strstr(miss_why(r, "w1"), "a count of \"tournaments\""),
       "how many tournaments does he play: the wins count none, abstains (%s)", miss_why(r, "w1"));
    recall_free(r);
    r = ask(uncounted_e, "How many chess tournaments does Sam play?");
    ok(r && r->abstained && strstr(miss_why(r, "u2"), "a count of \"tournaments\""),
       "how many tournaments does he play: two weeks count no tournaments, abstains (%s)",
       miss_why(r, "u2"));
    recall_free(r);
}

/* The age answers "how old" without the word "old". */
static void test_age_word(engine *e)
{
    recall_result *r = ask(e, "How old is Leah?");
    ok(r && !r->abstained && returned(r, "u3"), "how old is Leah: she turned 40, answered");
    recall_free(r);
    r = ask(e, "How old is Sam?");
    ok(r && r->abstained && strstr(miss_why(r, "u4"), "asks for an age"),
       "how old is Sam: the old mill and 3 dogs are no age, abstains (%s)", miss_why(r, "u4"));
    recall_free(r);
}

/* A speaker's age is said of them: "a thirty year old woman" is hers. */
static void test_own_age(engine *described_e, engine *counted_e)
{
    recall_result *r = ask(described_e, "How old is Jon?");
    ok(r && r->abstained, "how old is Jon: a thirty year old woman is not Jon, abstains");
    is_str(r ? r->floor_no_support : NULL, "nothing about \"age\" for Jon",
           "and says what found no support");
    ok(strstr(miss_why(r, "d1"), "asks for an age said of the one it asks about") != NULL,
       "the cut memory says what it lacks (%s)", miss_why(r, "d1"));
    recall_free(r);
    r = ask(counted_e, "How old is Jon?");
    ok(r && !r->abstained && returned(r, "n2"), "how old is Jon: I am 30 years old, answered");
    recall_free(r);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        printf("Bail out! cannot create a temporary directory: %s\n", strerror(errno));
        return 1;
    }
    setenv("MEMSCOPE_WORDNET", "tests/data/wordnet-answer", 1);
    ms_error err;
    embedder *emb = embed_open(NULL, &err);
    store *s[5] = {emb ? build(emb, "vague.db", vague, N(vague)) : NULL,
                   emb ? build(emb, "said.db", said, N(said)) : NULL,
                   emb ? build(emb, "uncounted.db", uncounted, N(uncounted)) : NULL,
                   emb ? build(emb, "counted.db", counted, N(counted)) : NULL,
                   emb ? build(emb, "described.db", described, N(described)) : NULL};
    engine *e[5] = {NULL};
    int bad = 0;
    for (int k = 0; k < 5; k++)
        bad |= !s[k] || engine_open(s[k], NULL, &e[k], &err) != MS_OK;
    if (bad)
        printf("Bail out! cannot build the test stores\n");
    else {
        test_act(e[0], e[1]);
        test_work(e[0], e[1]);
        test_slot_noun(e[0]);
        test_count_words();
        test_count(e[2], e[3]);
        test_age_word(e[2]);
        test_own_age(e[4], e[3]);
    }
    for (int k = 0; k < 5; k++) {
        engine_close(e[k]);
        store_close(s[k]);
    }
    embed_close(emb);
    remove_tmpdir();
    return bad ? 1 : done_testing();
}
