/* context-test.c - the neighbour-text column follows inserts, replacements
 * and deletions, and bm25 finds a turn by its neighbours' words. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"
#include "tap.h"

static store *s;

static void put(const char *id, const char *session, const char *speaker, const char *text,
                store_dup_policy dup)
{
    store_memory m;
    store_memory_init(&m);
    m.id = strdup(id);
    m.session = session ? strdup(session) : NULL;
    m.speaker = strdup(speaker);
    m.content = strdup(text);
    ms_error err;
    ok(store_put(s, &m, dup, NULL, &err) == MS_OK, "put %s", id);
    store_memory_clear(&m);
}

struct find {
    int64_t rid;
    int found;
};

static int find_hit(void *p, int64_t rid, double score)
{
    struct find *f = p;
    (void)score;
    f->found |= rid == f->rid;
    return 0;
}

/* Does an FTS search for word find memory id (through either column)? */
static int fts_finds(const char *id, const char *word)
{
    store_memory m;
    ms_error err;
    if (store_get(s, id, 0, &m, &err))
        return 0;
    struct find f = {m.rid, 0};
    store_memory_clear(&m);
    char match[128];
    snprintf(match, sizeof match, "\"%s\"", word);
    store_fts(s, match, 100, find_hit, &f, &err);
    return f.found;
}

int main(void)
{
    char path[] = "/tmp/memscope-context-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    unlink(path);
    ms_error err;
    ok(store_open(path, 0, &s, &err) == MS_OK, "open a new store");
    store_begin(s, &err);
    put("t1", "s1", "Ann", "Ann: Where did you go on holiday?", STORE_DUP_ERROR);
    put("t2", "s1", "Bob", "Bob: Lisbon, and the trams were lovely.", STORE_DUP_ERROR);
    put("t3", "s1", "Ann", "Ann: Did you eat pastries?", STORE_DUP_ERROR);
    put("x1", "s2", "Ann", "Ann: Unrelated turn about gardening.", STORE_DUP_ERROR);
    store_end(s, &err);

    ok(fts_finds("t2", "holiday"), "t2 is found by its previous turn's word");
    ok(fts_finds("t2", "pastries"), "t2 is found by its next turn's word");
    ok(fts_finds("t1", "lisbon"), "t1 is found by the answer that follows it");
    ok(!fts_finds("t3", "holiday"), "t3 is not found by a word two turns away");
    ok(!fts_finds("x1", "lisbon"), "another session's turn is not found by it");
    ok(!fts_finds("t2", "ann"), "the speaker prefix of a neighbour is not indexed as context");

    store_begin(s, &err);
    ok(store_delete(s, "t2", &err) == MS_OK, "delete the middle turn");
    store_end(s, &err);
    ok(fts_finds("t1", "pastries"), "after the delete, t1 and t3 are neighbours");
    ok(!fts_finds("t1", "lisbon"), "the deleted turn's words are gone from t1's context");

    store_begin(s, &err);
    put("t3", "s2", "Ann", "Ann: Did you eat pastries?", STORE_DUP_REPLACE);
    store_end(s, &err);
    ok(!fts_finds("t1", "pastries"), "a replacement that moves session leaves its old neighbours");
    ok(fts_finds("x1", "pastries"), "and joins the new session's turns");

    store_close(s);
    unlink(path);
    /* the store's side files: its log, its shared memory, and the seal a
     * writer leaves when it closes (docs/SECURITY.md) */
    static const char *const sides[] = {"-wal", "-shm", ".seal", ".snap"};
    for (size_t i = 0; i < sizeof sides / sizeof *sides; i++) {
        char side[64];
        snprintf(side, sizeof side, "%s%s", path, sides[i]);
        unlink(side);
    }
    return done_testing();
}
