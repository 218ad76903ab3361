/* identity.c - the store's content digest (what it covers: identity.h). */
#include "identity.h"

#include <stdio.h>

typedef struct digest_ctx {
    digest c;
    int64_t n;
} digest_ctx;

static void put_number(digest *c, double v)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", v);
    digest_field(c, buf);
}

static int on_memory(void *p, const store_memory *m)
{
    digest_ctx *d = p;
    digest *c = &d->c;
    digest_field(c, "memory");
    digest_field(c, m->id);
    digest_field(c, m->content);
    digest_field(c, m->created_at);
    digest_field(c, m->event_time);
    digest_field(c, m->speaker);
    digest_field(c, m->session);
    digest_field(c, m->source);
    put_number(c, m->memory_confidence);
    put_number(c, m->trust_alpha);
    put_number(c, m->trust_beta);
    put_number(c, m->importance);
    put_number(c, m->pinned);
    put_number(c, (double)m->rid);
    d->n++;
    return 0;
}

/* Entities and links are read in two scans rather than per memory: one
 * query each instead of one per memory (a 100k-memory store's health). */
static int on_entity(void *p, const store_entity *e)
{
    digest *c = p;
    digest_field(c, "entity");
    put_number(c, (double)e->eid);
    digest_field(c, e->name);
    put_number(c, e->kind);
    return 0;
}

static int on_link(void *p, int64_t rid, int64_t eid)
{
    digest *c = p;
    char buf[48];
    snprintf(buf, sizeof buf, "%lld %lld", (long long)rid, (long long)eid);
    digest_field(c, buf);
    return 0;
}

static ms_status digest_feedback(store *s, digest *c, ms_error *err)
{
    store_feedback *fb = NULL;
    size_t n = 0;
    ms_status st = store_feedback_all(s, &fb, &n, err);
    for (size_t i = 0; !st && i < n; i++) {
        digest_field(c, "feedback");
        put_number(c, (double)fb[i].rid);
        digest_field(c, fb[i].query);
        put_number(c, fb[i].label);
    }
    store_feedback_free(fb, n);
    return st;
}

ms_status identity_store_digest(store *s, char hex[DIGEST_HEX], int64_t *memories, ms_error *err)
{
    digest_ctx d = {.n = 0};
    digest_init(&d.c);
    digest_field(&d.c, store_profile(s));
    ms_status st = store_read_begin(s, err);
    if (st)
        return st;
    st = store_scan(s, 0, STORE_SCAN_NONE, on_memory, &d, err);
    if (!st)
        st = store_scan_entities(s, on_entity, &d.c, err);
    if (!st)
        st = store_scan_links(s, on_link, &d.c, err);
    const char *emb = NULL;
    int dim = 0;
    if (!st)
        st = store_embedder(s, &emb, &dim, err);
    if (!st) {
        digest_field(&d.c, emb);
        put_number(&d.c, dim);
        st = digest_feedback(s, &d.c, err);
    }
    store_end(s, NULL);
    if (st)
        return st;
    digest_hex(&d.c, hex);
    if (memories)
        *memories = d.n;
    return MS_OK;
}
