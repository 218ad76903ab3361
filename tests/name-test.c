/* name-test.c - the evidence floor's names said beside what they name, on
 * small hand-made stores (engine/floor.c, engine/query.c, engine/engine.c):
 *
 *   - "the name of N" asks for N's name: a name counts only in a memory
 *     that says N (its word, a synonym or a kind of it), not in one an edge
 *     joins to it that names something else ("my dance studio" beside "I
 *     am back from Rome");
 *   - a last name is said after the first name ("Gina Ortiz"): another
 *     name in the memory is not hers; the memory that says it holds the
 *     words asking for it ("last", "surname"), which it need not say;
 *   - the cut memory's trace says what it lacks, and the abstention what
 *     found no support ("nothing about the name of "studio" for Jon").
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

static char tmpdir[] = "/tmp/memscope-name-test-XXXXXX";
#include "tests/testdir.h"

#include "tests/floorcase.h"

/* The studio and Gina, with other names next to them and none of theirs. */
static const spec unnamed[] = {
    {"w1", "Jon", "s1", "2025-05-01T10:00:00Z",
     "Jon: I am still working on opening my dance studio downtown."},
    {"w2", "Gina", "s1", "2025-05-01T10:01:00Z",
     "Gina: Good luck with it! I just got back from Rome, so I can help now."},
    {"w3", "Jon", "s2", "2025-05-02T10:00:00Z",
     "Jon: Gina and Marco from Rome dropped by and asked about my last dance class."},
};

/* The same, with the studio's name and Gina's surname said. */
static const spec named[] = {
    {"n1", "Jon", "s1", "2025-05-01T10:00:00Z",
     "Jon: My dance studio is called Starlight Steps and it opens on Friday."},
    {"n2", "Jon", "s2", "2025-05-02T10:00:00Z",
     "Jon: I met Gina Ortiz at the dance class, she designs hoodies."},
    {"n3", "Gina", "s3", "2025-05-03T10:00:00Z", "Gina: Thanks for the class, Jon, it was fun."},
};

static void test_name_of(engine *unnamed_e, engine *named_e)
{
    recall_result *r = ask(unnamed_e, "What is the name of Jon's dance studio?");
    ok(r && r->abstained,
       "the name of the studio: Rome is named beside it, not its name, abstains");
    is_str(r ? r->floor_no_support : NULL, "nothing about the name of \"studio\" for Jon",
           "and says what found no support");
    const char *why = miss_why(r, "w1");
    ok(strstr(why, "asks for the name of \"studio\"") != NULL,
       "the cut memory says what it lacks (%s)", why);
    recall_free(r);
    r = ask(named_e, "What is the name of Jon's dance studio?");
    ok(r && !r->abstained && returned(r, "n1"),
       "the name of the studio: called Starlight Steps, answered");
    recall_free(r);
    r = ask(unnamed_e, "Which city did Gina get back from?");
    ok(r && !r->abstained && returned(r, "w2"),
       "a name not asked as the name of something still counts: Rome, answered");
    recall_free(r);
}

static void test_surname(engine *unnamed_e, engine *named_e)
{
    recall_result *r = ask(unnamed_e, "What is Gina's last name?");
    ok(r && r->abstained, "Gina's last name: Marco and Rome are not after her name, abstains");
    is_str(r ? r->floor_no_support : NULL, "nothing about \"last name\" for Gina",
           "and says what found no support");
    const char *why = miss_why(r, "w3");
    ok(strstr(why, "asks for a last name") != NULL, "the cut memory says what it lacks (%s)", why);
    recall_free(r);
    r = ask(named_e, "What is Gina's last name?");
    ok(r && !r->abstained && returned(r, "n2"), "Gina's last name: Gina Ortiz, answered");
    recall_free(r);
    r = ask(named_e, "What is Gina's surname?");
    ok(r && !r->abstained && returned(r, "n2"), "her surname: the same, answered");
    recall_free(r);
}

/* The question's form: what it asks the name of, and whether a surname. */
static void test_form(store *s)
{
    static const struct {
        const char *q;
        int name_of, surname;
    } cases[] = {
        {"What is the name of Jon's dance studio?", 1, 0},
        {"What are the names of Nate's turtles?", 1, 0},
        {"What is Gina's last name?", 0, 1},
        {"What is her maiden name?", 0, 1},
        {"What is Jon's dance studio called?", 0, 0},
        {"Which city did Gina visit?", 0, 0},
    };
    ms_error err;
    snapshot *sn = NULL;
    if (snapshot_load(s, &sn, &err)) {
        ok(0, "snapshot: %s", err.msg);
        return;
    }
    for (size_t k = 0; k < N(cases); k++) {
        query q;
        ms_status st = query_analyse(s, sn, NULL, cases[k].q, 0, 0, &q, &err);
        ok(!st && q.name_of == cases[k].name_of && q.asks_surname == cases[k].surname &&
               (!q.asks_surname || q.asks_name),
           "%s: name of %d, surname %d", cases[k].q, q.name_of, q.asks_surname);
        query_clear(&q);
    }
    snapshot_free(sn);
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
    store *s[2] = {emb ? build(emb, "unnamed.db", unnamed, N(unnamed)) : NULL,
                   emb ? build(emb, "named.db", named, N(named)) : NULL};
    engine *e[2] = {NULL};
    int bad = 0;
    for (int k = 0; k < 2; k++)
        bad |= !s[k] || engine_open(s[k], NULL, &e[k], &err) != MS_OK;
    if (bad)
        printf("Bail out! cannot build the test stores\n");
    else {
        test_name_of(e[0], e[1]);
        test_surname(e[0], e[1]);
        test_form(s[0]);
    }
    for (int k = 0; k < 2; k++) {
        engine_close(e[k]);
        store_close(s[k]);
    }
    embed_close(emb);
    remove_tmpdir();
    return bad ? 1 : done_testing();
}
