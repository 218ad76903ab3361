/* identity-test.c - engine/identity: the store content digest that makes a
 * calibration report stale. The same content gives the same digest (and
 * reading it writes nothing); a new memory, a changed trust, a feedback
 * judgement or a new entity link changes it; another profile's memories do
 * not. Links the store and the engine core only, no terminal. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/identity.h"
#include "tests/tap.h"

static char tmpdir[] = "/tmp/identity-test-XXXXXX";
#include "tests/testdir.h"

static int64_t put(store *s, const char *id, const char *content, const char *entity)
{
    store_memory m;
    store_memory_init(&m);
    m.id = strdup(id);
    m.content = strdup(content);
    m.created_at = strdup("2023-05-08T13:56:00Z");
    if (entity) {
        m.entities = malloc(sizeof *m.entities);
        m.entities[0] = strdup(entity);
        m.n_entities = 1;
    }
    ms_error err;
    ms_status st = store_begin(s, &err);
    if (!st)
        st = store_put(s, &m, STORE_DUP_ERROR, NULL, &err);
    st = st ? (store_rollback(s), st) : store_end(s, &err);
    if (st)
        diag("put %s: %s", id, err.msg);
    int64_t rid = st ? 0 : m.rid;
    store_memory_clear(&m);
    return rid;
}

static const char *digest_of(store *s)
{
    static char hex[4][DIGEST_HEX];
    static int k;
    char *h = hex[k++ % 4];
    ms_error err;
    int64_t n = -1;
    if (identity_store_digest(s, h, &n, &err)) {
        diag("digest: %s", err.msg);
        snprintf(h, DIGEST_HEX, "error");
    }
    return h;
}

int main(void)
{
    if (!mkdtemp(tmpdir))
        return 1;
    store *s = NULL;
    ms_error err;
    ok(store_open(tpath("a.db"), 0, &s, &err) == MS_OK, "a new store");
    int64_t r1 = put(s, "m1", "Caroline went to the support group", NULL);
    put(s, "m2", "Melanie painted a sunrise", NULL);
    char d0[DIGEST_HEX];
    snprintf(d0, sizeof d0, "%s", digest_of(s));
    is_int(strlen(d0), 64, "a SHA-256 in hex");
    is_str(digest_of(s), d0, "the same content, the same digest");
    int64_t n = 0;
    identity_store_digest(s, (char[DIGEST_HEX]){0}, &n, &err);
    is_int(n, 2, "it covers the profile's two memories");

    store_close(s);
    size_t nb = 0, na = 0;
    char *before = slurp(tpath("a.db"), &nb);
    ok(store_open(tpath("a.db"), STORE_OPEN_READONLY, &s, &err) == MS_OK, "reopened read-only");
    is_str(digest_of(s), d0, "the digest does not depend on the connection");
    store_close(s);
    char *after = slurp(tpath("a.db"), &na);
    ok(before && after && nb == na && memcmp(before, after, na) == 0, "computing it wrote nothing");
    free(before);
    free(after);

    store_open(tpath("a.db"), 0, &s, &err);
    store_use_profile(s, "other", &err);
    put(s, "o1", "Another profile's memory", NULL);
    store_use_profile(s, "default", &err);
    is_str(digest_of(s), d0, "another profile's memories leave it alone");

    store_begin(s, &err);
    store_set_trust(s, r1, 5, 1, &err);
    store_end(s, &err);
    char d1[DIGEST_HEX];
    snprintf(d1, sizeof d1, "%s", digest_of(s));
    ok(strcmp(d1, d0) != 0, "a changed trust changes it");

    store_begin(s, &err);
    ok(store_add_feedback(s, r1, "support group?", "general", 1, 1, &err) == MS_OK, "feedback");
    store_end(s, &err);
    char d2[DIGEST_HEX];
    snprintf(d2, sizeof d2, "%s", digest_of(s));
    ok(strcmp(d2, d1) != 0, "a feedback judgement changes it");

    put(s, "m3", "a plain memory", "Oscar");
    char d3[DIGEST_HEX];
    snprintf(d3, sizeof d3, "%s", digest_of(s));
    ok(strcmp(d3, d2) != 0, "a new memory changes it");
    store_close(s);

    /* Two stores with the same memories but one with an extra entity link. */
    store *x = NULL, *y = NULL;
    store_open(tpath("x.db"), 0, &x, &err);
    store_open(tpath("y.db"), 0, &y, &err);
    put(x, "m1", "a plain note", NULL);
    put(y, "m1", "a plain note", "Oscar");
    ok(strcmp(digest_of(x), digest_of(y)) != 0, "an entity link is part of the content");
    store_close(x);
    store_close(y);
    store_open(tpath("z.db"), 0, &x, &err);
    put(x, "m1", "a plain note", NULL);
    store_open(tpath("x.db"), STORE_OPEN_READONLY, &y, &err);
    is_str(digest_of(x), digest_of(y), "two stores with the same content: the same digest");
    store_close(x);
    store_close(y);
    remove_tmpdir();
    return done_testing();
}
