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

typedef struct spec {
    const char *id, *speaker, *session, *created, *content;
} spec;

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

#define N(a) (sizeof a / sizeof *a)

static store *build(embedder *emb, const char *name, const spec *mems, size_t n)
{
    store *s = NULL;
    ms_error err;
    ms_error_clear(&err);
    if (store_open(tpath(name), 0, &s, &err))
        return NULL;
    store_vectorizer v;
    embed_vectorizer(emb, &v);
    store_set_vectorizer(s, &v);
    ms_status st = store_begin(s, &err);
    for (size_t i = 0; !st && i < n; i++) {
        store_memory m;
        store_memory_init(&m);
        m.id = strdup(mems[i].id);
        m.speaker = strdup(mems[i].speaker);
        m.session = strdup(mems[i].session);
        m.created_at = strdup(mems[i].created);
        m.content = strdup(mems[i].content);
        st = store_put(s, &m, STORE_DUP_ERROR, NULL, &err);
        store_memory_clear(&m);
    }
    st = st ? st : store_end(s, &err);
    store_set_vectorizer(s, NULL);
    if (st) {
        diag("building %s: %s", name, err.msg);
        store_close(s);
        return NULL;
    }
    return s;
}

static recall_result *ask(engine *e, const char *q)
{
    recall_opts o;
    recall_opts_init(&o);
    o.query = q;
    recall_result *r = NULL;
    ms_error err;
    ms_error_clear(&err);
    if (!e || engine_recall(e, &o, &r, &err)) {
        diag("recall '%s': %s", q, e ? err.msg : "no engine");
        return NULL;
    }
    return r;
}

/* Is memory id among r's results? */
static int returned(const recall_result *r, const char *id)
{
    for (size_t t = 0; r && t < r->n_hits; t++)
        if (strcmp(r->hits[t].mem.id, id) == 0)
            return 1;
    return 0;
}

/* The floor's reason for cut memory id, or "". */
static const char *miss_why(const recall_result *r, const char *id)
{
    for (size_t t = 0; r && t < r->n_misses; t++)
        if (strcmp(r->misses[t].mem.id, id) == 0)
            return r->misses[t].floor_why;
    return "";
}

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

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        printf("Bail out! cannot create a temporary directory: %s\n", strerror(errno));
        return 1;
    }
    setenv("MEMSCOPE_WORDNET", "tests/data/wordnet", 1);
    ms_error err;
    embedder *emb = embed_open(NULL, &err);
    store *s[4] = {emb ? build(emb, "music.db", music, N(music)) : NULL,
                   emb ? build(emb, "shops.db", shops, N(shops)) : NULL,
                   emb ? build(emb, "named.db", named, N(named)) : NULL,
                   emb ? build(emb, "amounts.db", amounts, N(amounts)) : NULL};
    engine *e[4] = {NULL, NULL, NULL, NULL};
    int bad = 0;
    for (int k = 0; k < 4; k++)
        bad |= !s[k] || engine_open(s[k], NULL, &e[k], &err) != MS_OK;
    if (bad)
        printf("Bail out! cannot build the test stores\n");
    else {
        test_music(e[0]);
        test_shops(e[1], e[2]);
        test_amounts(e[3]);
    }
    for (int k = 0; k < 4; k++) {
        engine_close(e[k]);
        store_close(s[k]);
    }
    embed_close(emb);
    remove_tmpdir();
    return bad ? 1 : done_testing();
}
