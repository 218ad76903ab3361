/* floorcase.h - small hand-made stores for the floor's rule tests
 * (kind-test, verb-test, answer-test): a memory as a spec, a store built
 * from specs through store_put with a vectorizer, a recall with the default
 * options, and where a memory ended up (returned, or cut and why).
 *
 * The including file includes tests/testdir.h (for tpath) before this. */
#ifndef MS_FLOORCASE_H
#define MS_FLOORCASE_H

#include <stdlib.h>
#include <string.h>

#include "engine/embed.h"
#include "engine/engine.h"
#include "store/store.h"
#include "tests/tap.h"

typedef struct spec {
    const char *id, *speaker, *session, *created, *content;
} spec;

#define N(a) (sizeof a / sizeof *a)

__attribute__((unused)) static store *build(embedder *emb, const char *name, const spec *mems,
                                            size_t n)
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

__attribute__((unused)) static recall_result *ask(engine *e, const char *q)
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
__attribute__((unused)) static int returned(const recall_result *r, const char *id)
{
    for (size_t t = 0; r && t < r->n_hits; t++)
        if (strcmp(r->hits[t].mem.id, id) == 0)
            return 1;
    return 0;
}

/* The floor's reason for cut memory id, or "". */
__attribute__((unused)) static const char *miss_why(const recall_result *r, const char *id)
{
    for (size_t t = 0; r && t < r->n_misses; t++)
        if (strcmp(r->misses[t].mem.id, id) == 0)
            return r->misses[t].floor_why;
    return "";
}

#endif
