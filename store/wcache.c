/* wcache.c - what store_put remembers between memories of one write
 * transaction, so that an import asks SQLite less.
 *
 *  - entities by match form: their eid, or that the profile has none of
 *    that name (entity.c asks for every capitalised word);
 *  - for an entity, the two newest memories linked to it (entity edges join
 *    a new memory to them);
 *  - the text of the last few memories written (the neighbour-text column
 *    of a new turn is its predecessor's text);
 *  - for the last few sessions appended to, their two newest memories (a
 *    new turn's neighbours);
 *  - the session of each memory appended with an event time (a new
 *    event's temporal edges skip those of its own session).
 *
 * Everything here is a copy of what the tables say while only new memories
 * are appended: the store clears it when a transaction ends, when the
 * profile changes, before anything else is written (a replacement, a
 * deletion) and before a put outside a transaction (another process may
 * have written since the last), and fills it only from appends. Inside a
 * transaction (BEGIN IMMEDIATE) no other process writes. */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

#define WC_BODIES 4
#define WC_SESSIONS 4
#define WC_ENTITIES_MAX 100000 /* names remembered at once: a cache, so an */
                               /* import of any size stays in bounded memory */
#define WC_EVENTS_MAX 4000000  /* sessions of events remembered at most */

/* The session of an appended memory with an event time. */
typedef struct wc_event {
    int64_t rid;   /* 0 = empty slot */
    char *session; /* NULL = none */
} wc_event;

typedef struct wc_entity {
    char *norm;  /* NULL = empty slot */
    int64_t eid; /* 0 = the profile has no such entity */
} wc_entity;

struct wcache {
    wc_entity *ent;
    size_t cap, n;
    struct {
        int64_t rid;
        char *body;
    } body[WC_BODIES];
    int next_body;
    struct {
        char *session; /* NULL = empty */
        int64_t last[2];
        int n;
    } sess[WC_SESSIONS];
    int next_sess;
    int64_t newest; /* the newest memory, appended in this transaction; 0 */
    wc_event *ev;   /* open addressing by rid: [ev_cap], ev_n used */
    size_t ev_cap, ev_n;
};

static uint32_t wc_hash(const char *s)
{
    uint32_t h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

void store_wcache_clear(store *s)
{
    wcache *c = s->wc;
    if (!c)
        return;
    for (size_t i = 0; i < c->cap; i++)
        free(c->ent[i].norm);
    free(c->ent);
    for (int k = 0; k < WC_BODIES; k++)
        free(c->body[k].body);
    for (int k = 0; k < WC_SESSIONS; k++)
        free(c->sess[k].session);
    for (size_t i = 0; i < c->ev_cap; i++)
        free(c->ev[i].session);
    free(c->ev);
    free(c);
    s->wc = NULL;
}

static wcache *wc_get(store *s)
{
    if (!s->wc)
        s->wc = calloc(1, sizeof *s->wc);
    return s->wc;
}

/* The slot of norm: its own, or the empty one where it would go. */
static size_t wc_slot(const wcache *c, const char *norm)
{
    size_t j = wc_hash(norm) & (c->cap - 1);
    while (c->ent[j].norm && strcmp(c->ent[j].norm, norm) != 0)
        j = (j + 1) & (c->cap - 1);
    return j;
}

static int wc_grow(wcache *c)
{
    size_t cap = c->cap ? 2 * c->cap : 1024;
    wc_entity *e = calloc(cap, sizeof *e);
    if (!e)
        return -1;
    wcache g = {.ent = e, .cap = cap};
    for (size_t i = 0; i < c->cap; i++)
        if (c->ent[i].norm)
            e[wc_slot(&g, c->ent[i].norm)] = c->ent[i];
    free(c->ent);
    c->ent = e;
    c->cap = cap;
    return 0;
}

/* Forget every name (the table stays allocated). */
static void wc_forget_entities(wcache *c)
{
    for (size_t i = 0; i < c->cap; i++) {
        free(c->ent[i].norm);
        c->ent[i].norm = NULL;
    }
    c->n = 0;
}

/* The entry of norm, added (eid unknown: -1) when missing; NULL when out of
 * memory. */
static wc_entity *wc_entry(store *s, const char *norm, int add)
{
    wcache *c = wc_get(s);
    if (!c)
        return NULL;
    if (add && c->n >= WC_ENTITIES_MAX)
        wc_forget_entities(c);
    if (c->cap) {
        wc_entity *e = &c->ent[wc_slot(c, norm)];
        if (e->norm || !add)
            return e->norm ? e : NULL;
    }
    if (!add || ((c->n + 1) * 2 > c->cap && wc_grow(c)))
        return NULL;
    wc_entity *e = &c->ent[wc_slot(c, norm)];
    if (!(e->norm = store_strdup(norm)))
        return NULL;
    e->eid = -1;
    c->n++;
    return e;
}

int store_wcache_entity(store *s, const char *norm, int64_t *eid)
{
    wc_entity *e = wc_entry(s, norm, 0);
    if (!e || e->eid < 0)
        return -1;
    *eid = e->eid;
    return e->eid > 0;
}

void store_wcache_set_entity(store *s, const char *norm, int64_t eid)
{
    wc_entity *e = wc_entry(s, norm, 1);
    if (e)
        e->eid = eid;
}

const char *store_wcache_body(store *s, int64_t rid)
{
    wcache *c = s->wc;
    for (int k = 0; c && k < WC_BODIES; k++)
        if (c->body[k].body && c->body[k].rid == rid)
            return c->body[k].body;
    return NULL;
}

void store_wcache_set_body(store *s, int64_t rid, const char *body)
{
    wcache *c = wc_get(s);
    char *copy = c ? store_strdup(body) : NULL;
    if (!copy)
        return;
    free(c->body[c->next_body].body);
    c->body[c->next_body].rid = rid;
    c->body[c->next_body].body = copy;
    c->next_body = (c->next_body + 1) % WC_BODIES;
}

static int wc_session_at(const wcache *c, const char *session)
{
    for (int k = 0; c && k < WC_SESSIONS; k++)
        if (c->sess[k].session && strcmp(c->sess[k].session, session) == 0)
            return k;
    return -1;
}

int store_wcache_session(store *s, const char *session, int64_t last[2])
{
    int k = wc_session_at(s->wc, session);
    if (k < 0)
        return -1;
    memcpy(last, s->wc->sess[k].last, sizeof s->wc->sess[k].last);
    return s->wc->sess[k].n;
}

void store_wcache_set_session(store *s, const char *session, const int64_t *last, int n)
{
    wcache *c = wc_get(s);
    if (!c)
        return;
    int k = wc_session_at(c, session);
    if (k < 0) {
        char *copy = store_strdup(session);
        if (!copy)
            return;
        k = c->next_sess;
        c->next_sess = (k + 1) % WC_SESSIONS;
        free(c->sess[k].session);
        c->sess[k].session = copy;
    }
    c->sess[k].n = n > 2 ? 2 : n;
    for (int i = 0; i < c->sess[k].n; i++)
        c->sess[k].last[i] = last[i];
}

static size_t ev_slot(const wc_event *ev, size_t cap, int64_t rid)
{
    size_t j = (size_t)(((uint64_t)rid * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
    while (ev[j].rid && ev[j].rid != rid)
        j = (j + 1) & (cap - 1);
    return j;
}

static int ev_grow(wcache *c)
{
    size_t cap = c->ev_cap ? 2 * c->ev_cap : 1024;
    wc_event *e = calloc(cap, sizeof *e);
    if (!e)
        return -1;
    for (size_t i = 0; i < c->ev_cap; i++)
        if (c->ev[i].rid)
            e[ev_slot(e, cap, c->ev[i].rid)] = c->ev[i];
    free(c->ev);
    c->ev = e;
    c->ev_cap = cap;
    return 0;
}

int store_wcache_session_of(store *s, int64_t rid, const char **session)
{
    wcache *c = s->wc;
    if (!c || !c->ev_cap || rid <= 0)
        return 0;
    wc_event *e = &c->ev[ev_slot(c->ev, c->ev_cap, rid)];
    if (!e->rid)
        return 0;
    *session = e->session;
    return 1;
}

void store_wcache_set_session_of(store *s, int64_t rid, const char *session)
{
    wcache *c = wc_get(s);
    if (!c || rid <= 0 || c->ev_n >= WC_EVENTS_MAX)
        return; /* not remembered: asked of the table */
    if ((c->ev_n + 1) * 2 > c->ev_cap && ev_grow(c))
        return;
    char *copy = NULL;
    if (session && !(copy = store_strdup(session)))
        return;
    wc_event *e = &c->ev[ev_slot(c->ev, c->ev_cap, rid)];
    if (e->rid) { /* appended again? keep the latest */
        free(e->session);
    } else {
        e->rid = rid;
        c->ev_n++;
    }
    e->session = copy;
}

int store_wcache_newest(store *s, int64_t rid)
{
    return s->wc && s->wc->newest && rid == s->wc->newest + 1;
}

void store_wcache_set_newest(store *s, int64_t rid)
{
    wcache *c = wc_get(s);
    if (c)
        c->newest = rid;
}
