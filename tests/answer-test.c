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
 *     keep ...": the typo's "des" is a noun).
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
#include "store/store.h"
#include "tests/tap.h"

static char tmpdir[] = "/tmp/memscope-answer-test-XXXXXX";
#include "tests/testdir.h"

typedef struct spec {
    const char *id, *speaker, *session, *created, *content;
} spec;

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

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        printf("Bail out! cannot create a temporary directory: %s\n", strerror(errno));
        return 1;
    }
    setenv("MEMSCOPE_WORDNET", "tests/data/wordnet-answer", 1);
    ms_error err;
    embedder *emb = embed_open(NULL, &err);
    store *s[2] = {emb ? build(emb, "vague.db", vague, N(vague)) : NULL,
                   emb ? build(emb, "said.db", said, N(said)) : NULL};
    engine *e[2] = {NULL};
    int bad = 0;
    for (int k = 0; k < 2; k++)
        bad |= !s[k] || engine_open(s[k], NULL, &e[k], &err) != MS_OK;
    if (bad)
        printf("Bail out! cannot build the test stores\n");
    else {
        test_act(e[0], e[1]);
        test_work(e[0], e[1]);
        test_slot_noun(e[0]);
    }
    for (int k = 0; k < 2; k++) {
        engine_close(e[k]);
        store_close(s[k]);
    }
    embed_close(emb);
    remove_tmpdir();
    return bad ? 1 : done_testing();
}
