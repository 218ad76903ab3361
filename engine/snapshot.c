/* snapshot.c - the current profile of a store, in memory, for recall.
 *
 * One pass over each table: memories (times, sessions, trust, pins),
 * vectors into one contiguous array, edges into compressed adjacency arrays
 * (both directions), entity links into two CSR maps. Recall then never runs
 * SQL per candidate. */
#include "engine_int.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

typedef snap_grow grow;

/* ---- how far a load has got ------------------------------------------------ */

/* Begin part what, whose positions run up to span. */
static void progress_part(snap_progress *pg, const char *what, int64_t span)
{
    if (!pg || !pg->fn)
        return;
    pg->what = what;
    pg->span = span > 0 ? span : 1;
    pg->last = 0;
    pg->fn(pg->ctx, what, 0);
}

/* The part has reached position at (of its span). */
static void progress_at(snap_progress *pg, int64_t at)
{
    if (!pg || !pg->fn || at <= 0)
        return;
    int pct = at >= pg->span ? 100 : (int)(at * 100 / pg->span);
    if (pct > pg->last) {
        pg->last = pct;
        pg->fn(pg->ctx, pg->what, pct);
    }
}

static void progress_done(snap_progress *pg)
{
    if (pg)
        progress_at(pg, pg->span);
}

void *snap_big_alloc(size_t n, int zero)
{
    void *p = zero ? calloc(1, n ? n : 1) : malloc(n ? n : 1);
#ifdef MADV_HUGEPAGE
    if (p && n >= SNAP_BIG) { /* its 2 MB-aligned inside; a failure changes nothing */
        uintptr_t a = ((uintptr_t)p + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1);
        uintptr_t b = ((uintptr_t)p + n) & ~(uintptr_t)((2u << 20) - 1);
        if (b > a)
            madvise((void *)a, b - a, MADV_HUGEPAGE);
    }
#endif
    return p;
}

struct snap_cow {
    void *p, *region;
    size_t len;
};

/* A region of lead + bytes (all 0) whose first lead + keep bytes are the
 * file fd's from offset off - lead on (lead: off's distance past a page),
 * mapped privately: the pages wholly inside are the file's, what is left
 * of keep is copied from src. NULL when it cannot be made. */
static char *cow_region(int fd, size_t off, size_t keep, size_t bytes, const char *src,
                        size_t *lead, size_t *len)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    *lead = off % pg;
    *len = *lead + bytes;
    char *r = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r == MAP_FAILED)
        return NULL;
    size_t file = (*lead + keep) / pg * pg; /* whole pages of the file */
    if (file && mmap(r, file, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, off - *lead) ==
                    MAP_FAILED) {
        munmap(r, *len);
        return NULL;
    }
    if (*lead + keep > file)
        memcpy(r + file, src + (file - *lead), *lead + keep - file);
#ifdef MADV_HUGEPAGE
    size_t huge = 2u << 20, a = ((uintptr_t)(r + file) + huge - 1) & ~(uintptr_t)(huge - 1);
    if ((uintptr_t)r + *len > a + huge) /* what is still to come, in 2 MB pages where whole */
        (void)madvise((void *)a, ((uintptr_t)r + *len - a) & ~(uintptr_t)(huge - 1), MADV_HUGEPAGE);
#endif
    return r;
}

void *snap_cow_join(snapshot *sn, const snapshot *old, const void *src, size_t keep, size_t bytes)
{
    const char *from = src, *map = old->map;
    struct snap_cow *c = NULL;
    if (map && old->map_fd >= 0 && keep >= SNAP_COW_MIN && keep <= bytes && from >= map &&
        from + keep <= map + old->map_len &&
        (c = realloc(sn->cow, (sn->n_cow + 1) * sizeof *sn->cow))) {
        sn->cow = c;
        size_t lead, len;
        char *r = cow_region(old->map_fd, (size_t)(from - map), keep, bytes, from, &lead, &len);
        if (r) {
            sn->cow[sn->n_cow++] = (struct snap_cow){r + lead, r, len};
            return r + lead;
        }
    }
    char *p = snap_big_alloc(bytes, 0);
    if (p && keep)
        memcpy(p, src, keep);
    if (p && bytes > keep)
        memset(p + keep, 0, bytes - keep);
    return p;
}

/* The region snap_cow_join mapped for p, or NULL when p is not one. */
static struct snap_cow *cow_of(const snapshot *sn, const void *p)
{
    for (size_t k = 0; p && k < sn->n_cow; k++)
        if (sn->cow[k].p == p)
            return &sn->cow[k];
    return NULL;
}

void snap_big_free(snapshot *sn, void *p)
{
    struct snap_cow *c = cow_of(sn, p);
    if (!c) {
        free(p);
        return;
    }
    munmap(c->region, c->len);
    c->p = NULL;
}

void *snap_big_realloc(snapshot *sn, void *p, size_t old, size_t bytes)
{
    if (!cow_of(sn, p))
        return realloc(p, bytes ? bytes : 1);
    char *q = malloc(bytes ? bytes : 1);
    if (q) {
        memcpy(q, p, old < bytes ? old : bytes);
        snap_big_free(sn, p);
    }
    return q;
}

void *snap_grow_push(snap_grow *g)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 1024;
        void *p = realloc(g->p, cap * g->size);
        if (!p)
            return NULL;
        g->p = p;
        g->cap = cap;
    }
    return (char *)g->p + g->size * g->n++;
}

/* Interned session names: a small open-addressing table. */
typedef struct interner {
    char **keys;
    int32_t *ids;
    size_t cap, n;
} interner;

static int interner_grow(interner *t)
{
    size_t cap = t->cap ? 2 * t->cap : 256;
    char **keys = calloc(cap, sizeof *keys);
    int32_t *ids = calloc(cap, sizeof *ids);
    if (!keys || !ids) {
        free(keys);
        free(ids);
        return -1;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->keys[i])
            continue;
        size_t j = embed_fnv1a(t->keys[i], strlen(t->keys[i])) & (cap - 1);
        while (keys[j])
            j = (j + 1) & (cap - 1);
        keys[j] = t->keys[i];
        ids[j] = t->ids[i];
    }
    free(t->keys);
    free(t->ids);
    t->keys = keys;
    t->ids = ids;
    t->cap = cap;
    return 0;
}

static int32_t intern(interner *t, const char *key)
{
    if ((t->n + 1) * 2 > t->cap && interner_grow(t))
        return -2;
    size_t j = embed_fnv1a(key, strlen(key)) & (t->cap - 1);
    while (t->keys[j]) {
        if (strcmp(t->keys[j], key) == 0)
            return t->ids[j];
        j = (j + 1) & (t->cap - 1);
    }
    if (!(t->keys[j] = strdup(key)))
        return -2;
    t->ids[j] = (int32_t)t->n++;
    return t->ids[j];
}

static void interner_free(interner *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->keys[i]);
    free(t->keys);
    free(t->ids);
}

/* ---- loading ------------------------------------------------------------ */

typedef struct mem_row {
    int64_t rid, when, created;
    int32_t session;
    int32_t speaker; /* interned as written, -1 when none; resolved to an
                        entity once entities are in */
    uint8_t pinned;
    uint8_t sup_by; /* superseded by a memory (else expired) */
    double trust, confidence;
    char *sup_text; /* "superseded by ..." when superseded, owned */
} mem_row;

struct load_ctx {
    grow rows;
    interner sessions, speakers;
    int oom;
    snap_progress *pg; /* by rid: the scan is in rid order */
};

static int load_memory(void *p, const store_meta *m)
{
    struct load_ctx *c = p;
    progress_at(c->pg, m->rid);
    mem_row *r = snap_grow_push(&c->rows);
    if (!r) {
        c->oom = 1;
        return 1;
    }
    r->sup_text = NULL;
    r->rid = m->rid;
    r->created = m->created_ts;
    r->when = m->event_ts != STORE_TS_NONE ? m->event_ts : m->created_ts;
    r->session = m->session ? intern(&c->sessions, m->session) : -1;
    r->speaker = m->speaker && *m->speaker ? intern(&c->speakers, m->speaker) : -1;
    if (r->session == -2 || r->speaker == -2) {
        c->oom = 1;
        return 1;
    }
    r->pinned = m->pinned != 0;
    r->trust = m->trust_alpha / (m->trust_alpha + m->trust_beta); /* store_trust_score */
    r->confidence = m->memory_confidence;
    r->sup_by = m->superseded_by != NULL;
    if (m->superseded) {
        char at[32], text[STORE_ID_MAX + 64];
        if (m->superseded_ts != STORE_TS_NONE)
            store_format_time(m->superseded_ts, at, sizeof at);
        store_supersession_text(m->superseded_by, m->superseded_ts != STORE_TS_NONE ? at : NULL,
                                text, sizeof text);
        if (!(r->sup_text = strdup(text))) {
            c->oom = 1;
            return 1;
        }
    }
    return 0;
}

/* The superseded memories of rows[n] into the snapshot (taking their texts). */
static int load_superseded(snapshot *sn, mem_row *rows, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += rows[i].sup_text != NULL;
    if (!k)
        return 0;
    sn->sup_idx = malloc(k * sizeof *sn->sup_idx);
    sn->sup_text = calloc(k, sizeof *sn->sup_text);
    sn->sup_by = malloc(k);
    if (!sn->sup_idx || !sn->sup_text || !sn->sup_by)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (rows[i].sup_text) {
            sn->sup_idx[sn->n_sup] = (uint32_t)i;
            sn->sup_by[sn->n_sup] = rows[i].sup_by;
            sn->sup_text[sn->n_sup++] = rows[i].sup_text;
            rows[i].sup_text = NULL;
        }
    return 0;
}

int snapshot_superseded(const snapshot *sn, size_t i, const char **text, int *by)
{
    size_t lo = 0, hi = sn->n_sup;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sn->sup_idx[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == sn->n_sup || sn->sup_idx[lo] != i)
        return 0;
    *text = sn->sup_text[lo];
    *by = sn->sup_by[lo];
    return 1;
}

/* Speakers as they were read, until entities are loaded: each memory's
 * speaker as an index into the distinct speakers' match forms. */
typedef struct pending_speakers {
    int32_t *of; /* [n] index into norm, -1 when none */
    char **norm; /* [n_norm] match forms, owned */
    size_t n, n_norm;
} pending_speakers;

static void pending_speakers_free(pending_speakers *ps)
{
    for (size_t k = 0; ps->norm && k < ps->n_norm; k++)
        free(ps->norm[k]);
    free(ps->norm);
    free(ps->of);
}

/* The match form of each distinct speaker, by its interned id. */
static int speaker_norms(const interner *t, pending_speakers *ps)
{
    ps->n_norm = t->n;
    ps->norm = calloc(t->n + 1, sizeof *ps->norm);
    if (!ps->norm)
        return -1;
    for (size_t j = 0; j < t->cap; j++) {
        if (!t->keys[j])
            continue;
        size_t n = strlen(t->keys[j]), cap = 4 * n + 8;
        char *norm = malloc(cap);
        if (!norm)
            return -1;
        store_entity_norm(t->keys[j], n, norm, cap);
        ps->norm[t->ids[j]] = norm;
    }
    return 0;
}

/* rid -> index without a search when the rids are dense (the usual case). */
void snapshot_index_rids(snapshot *sn)
{
    if (sn->n == 0)
        return;
    uint64_t span = (uint64_t)(sn->rid[sn->n - 1] - sn->rid[0]) + 1;
    if (span > 2 * (uint64_t)sn->n + 1024 || span > INT32_MAX)
        return;
    sn->rid_index = malloc(span * sizeof *sn->rid_index);
    if (!sn->rid_index)
        return; /* snapshot_find searches instead */
    for (uint64_t k = 0; k < span; k++)
        sn->rid_index[k] = -1;
    for (size_t i = 0; i < sn->n; i++)
        sn->rid_index[sn->rid[i] - sn->rid[0]] = (int32_t)i;
    sn->rid_base = sn->rid[0];
    sn->rid_span = (size_t)span;
}

static ms_status load_memories(store *s, snapshot *sn, pending_speakers *ps, snap_progress *pg,
                               ms_error *err)
{
    struct load_ctx c = {.rows = {.size = sizeof(mem_row)}, .pg = pg};
    int64_t last = 0;
    ms_status st = pg && pg->fn ? store_max_rid(s, &last, err) : MS_OK;
    progress_part(pg, "memories", last);
    if (!st)
        st = store_scan_meta(s, load_memory, &c, err);
    progress_done(pg);
    if (!st && !c.oom && speaker_norms(&c.speakers, ps))
        c.oom = 1;
    interner_free(&c.sessions);
    interner_free(&c.speakers);
    if (!st && c.oom)
        st = ms_fail(err, MS_NOMEM, "out of memory loading memories");
    size_t n = c.rows.n;
    sn->n = n;
    sn->rid = malloc((n + 1) * sizeof *sn->rid);
    sn->when = malloc((n + 1) * sizeof *sn->when);
    sn->created = malloc((n + 1) * sizeof *sn->created);
    sn->session = malloc((n + 1) * sizeof *sn->session);
    sn->pinned = malloc(n + 1);
    sn->trust = malloc((n + 1) * sizeof *sn->trust);
    sn->confidence = malloc((n + 1) * sizeof *sn->confidence);
    ps->of = malloc((n + 1) * sizeof *ps->of);
    ps->n = n;
    if (!st && (!sn->rid || !sn->when || !sn->created || !sn->session || !sn->pinned ||
                !sn->trust || !sn->confidence || !ps->of))
        st = ms_fail(err, MS_NOMEM, "out of memory loading memories");
    const mem_row *rows = c.rows.p;
    for (size_t i = 0; !st && i < n; i++) {
        sn->rid[i] = rows[i].rid;
        sn->when[i] = rows[i].when;
        sn->created[i] = rows[i].created;
        sn->session[i] = rows[i].session;
        sn->pinned[i] = rows[i].pinned;
        sn->trust[i] = rows[i].trust;
        sn->confidence[i] = rows[i].confidence;
        if (i == 0 || rows[i].when > sn->newest)
            sn->newest = rows[i].when;
        if (i == 0 || rows[i].created > sn->newest_created)
            sn->newest_created = rows[i].created;
        ps->of[i] = rows[i].speaker;
    }
    if (!st && load_superseded(sn, c.rows.p, n))
        st = ms_fail(err, MS_NOMEM, "out of memory loading memories");
    for (size_t i = 0; i < n; i++)
        free(((mem_row *)c.rows.p)[i].sup_text);
    free(c.rows.p);
    if (!st)
        snapshot_index_rids(sn);
    return st;
}

long snapshot_find(const snapshot *sn, int64_t rid)
{
    if (sn->rid_index) {
        if (rid < sn->rid_base || (uint64_t)(rid - sn->rid_base) >= sn->rid_span)
            return -1;
        return sn->rid_index[rid - sn->rid_base];
    }
    size_t lo = 0, hi = sn->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sn->rid[mid] < rid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < sn->n && sn->rid[lo] == rid ? (long)lo : -1;
}

struct vec_ctx {
    snapshot *sn;
    snap_progress *pg; /* by rid, as the memories */
};

void snapshot_put_vector(snapshot *sn, const store_qvec *v, int dim)
{
    long i = snapshot_find(sn, v->rid);
    if (i < 0 || dim != sn->dim)
        return;
    vectors_put(sn, (size_t)i, v);
    vectors_put_exact(sn, (size_t)i, v); /* when out of memory, it is read from the store */
    sn->has_vec[i] = 1;
    sn->n_vec++;
}

static int load_vector(void *p, const store_qvec *v, int dim)
{
    snapshot *sn = ((struct vec_ctx *)p)->sn;
    progress_at(((struct vec_ctx *)p)->pg, v->rid);
    snapshot_put_vector(sn, v, dim);
    return 0;
}

/* The int8 forms of the vectors (vectors.c); exact ones come on demand. */
static ms_status load_vectors(store *s, snapshot *sn, snap_progress *pg, ms_error *err)
{
    const char *id;
    int dim;
    store_embedder(s, &id, &dim, err);
    sn->has_vec = calloc(sn->n + 1, 1);
    if (!sn->has_vec)
        return ms_fail(err, MS_NOMEM, "out of memory loading vectors");
    if (!id || dim <= 0 || sn->n == 0)
        return MS_OK;
    sn->dim = dim;
    sn->s = s;
    sn->vec_embedder = strdup(id);
    size_t len = strlen(id) + 128;
    if ((sn->vec_note = malloc(len)))
        snprintf(sn->vec_note, len,
                 "store vectors from %s, %d-d; no query embedder for that model - see "
                 "docs/EMBEDDERS.md",
                 id, dim);
    int lacking = vectors_alloc(sn, sn->n, dim);
    sn->exact = vcache_new(dim, sn->n);
    if (lacking || !sn->exact || !sn->vec_embedder)
        return ms_fail(err, MS_NOMEM, "out of memory loading vectors (%zu x %d)", sn->n, dim);
    struct vec_ctx c = {sn, pg};
    progress_part(pg, "vectors", sn->rid[sn->n - 1]);
    ms_status st = store_scan_qvectors(s, load_vector, &c, err);
    progress_done(pg);
    vectors_done(sn);
    return st;
}

/* Only whether there are any: each memory's edges are read when first
 * needed (edges.c). */
static ms_status load_edges(store *s, snapshot *sn, ms_error *err)
{
    sn->s = s;
    return store_has_edges(s, &sn->has_edges, err);
}

struct link_ctx {
    snapshot *sn;
    grow pairs; /* (memory index, entity index) */
    int oom;
    int64_t *eids;     /* entity index -> eid, sorted */
    snap_progress *pg; /* by entity index: the scan is in eid order */
};

typedef snap_pair pair;

long snapshot_find_eid(const int64_t *eids, size_t n, int64_t eid)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (eids[mid] < eid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && eids[lo] == eid ? (long)lo : -1;
}

static int load_link(void *p, int64_t rid, int64_t eid)
{
    struct link_ctx *c = p;
    long m = snapshot_find(c->sn, rid), e = snapshot_find_eid(c->eids, c->sn->n_ent, eid);
    if (m < 0 || e < 0)
        return 0;
    progress_at(c->pg, e + 1);
    pair *pr = snap_grow_push(&c->pairs);
    if (!pr) {
        c->oom = 1;
        return 1;
    }
    pr->mem = (uint32_t)m;
    pr->ent = (uint32_t)e;
    return 0;
}

/* Build off/items CSR of pairs keyed by key(pair). */
static int build_csr(const pair *pr, size_t np, size_t nkeys, int by_mem, uint32_t **off,
                     uint32_t **items)
{
    *off = calloc(nkeys + 1, sizeof **off);
    *items = malloc((np + 1) * sizeof **items);
    uint32_t *fill = malloc((nkeys + 1) * sizeof *fill);
    if (!*off || !*items || !fill) {
        free(fill);
        return -1;
    }
    for (size_t i = 0; i < np; i++)
        (*off)[(by_mem ? pr[i].mem : pr[i].ent) + 1]++;
    for (size_t i = 0; i < nkeys; i++)
        (*off)[i + 1] += (*off)[i];
    memcpy(fill, *off, (nkeys + 1) * sizeof *fill);
    for (size_t i = 0; i < np; i++) {
        uint32_t k = by_mem ? pr[i].mem : pr[i].ent;
        (*items)[fill[k]++] = by_mem ? pr[i].ent : pr[i].mem;
    }
    free(fill);
    return 0;
}

ms_status snapshot_map_entities(snapshot *sn, ms_error *err)
{
    size_t cap = 64;
    while (cap < sn->n_ent * 2 + 2)
        cap *= 2;
    sn->ent_map = calloc(cap, sizeof *sn->ent_map);
    if (!sn->ent_map)
        return ms_fail(err, MS_NOMEM, "out of memory loading entities");
    sn->ent_map_cap = cap;
    for (size_t i = 0; i < sn->n_ent; i++) {
        const char *name = snapshot_ent_norm(sn, i);
        size_t j = embed_fnv1a(name, strlen(name)) & (cap - 1);
        while (sn->ent_map[j])
            j = (j + 1) & (cap - 1);
        sn->ent_map[j] = (uint32_t)i + 1;
    }
    return MS_OK;
}

long snapshot_entity(const snapshot *sn, const char *norm)
{
    if (!sn->ent_map_cap)
        return -1;
    size_t j = embed_fnv1a(norm, strlen(norm)) & (sn->ent_map_cap - 1);
    while (sn->ent_map[j]) {
        uint32_t i = sn->ent_map[j] - 1;
        if (strcmp(snapshot_ent_norm(sn, i), norm) == 0)
            return i;
        j = (j + 1) & (sn->ent_map_cap - 1);
    }
    return -1;
}

int snap_read_entity(void *p, const store_entity *e)
{
    snap_ents *r = p;
    int64_t *eid = snap_grow_push(&r->eid);
    char **norm = snap_grow_push(&r->norm);
    uint8_t *kind = snap_grow_push(&r->kind);
    if (!eid || !norm || !kind || !(*norm = strdup(e->norm ? e->norm : ""))) {
        if (norm && r->norm.n)
            r->norm.n--; /* the slot holds no string */
        r->oom = 1;
        return 1;
    }
    *eid = e->eid;
    *kind = (uint8_t)e->kind;
    return 0;
}

static ms_status load_entities(store *s, snapshot *sn, snap_progress *pg, ms_error *err)
{
    snap_ents r = {{.size = sizeof(int64_t)}, {.size = sizeof(char *)}, {.size = 1}, 0};
    ms_status st = store_scan_entities(s, snap_read_entity, &r, err);
    if (!st && r.oom)
        st = ms_fail(err, MS_NOMEM, "out of memory loading entities");
    size_t ne = r.norm.n;
    sn->n_ent = ne;
    sn->ent_norm = r.norm.p ? r.norm.p : calloc(1, sizeof *sn->ent_norm);
    sn->ent_kind = r.kind.p ? r.kind.p : calloc(1, 1);
    struct link_ctx c = {sn, {.size = sizeof(pair)}, 0, r.eid.p, pg};
    if (!st && (!sn->ent_norm || !sn->ent_kind))
        st = ms_fail(err, MS_NOMEM, "out of memory loading entities");
    progress_part(pg, "entity links", (int64_t)ne);
    if (!st)
        st = store_scan_links(s, load_link, &c, err);
    progress_done(pg);
    if (!st && c.oom)
        st = ms_fail(err, MS_NOMEM, "out of memory loading entity links");
    if (!st && (build_csr(c.pairs.p, c.pairs.n, sn->n, 1, &sn->me_off, &sn->me_ent) ||
                build_csr(c.pairs.p, c.pairs.n, ne, 0, &sn->em_off, &sn->em_mem)))
        st = ms_fail(err, MS_NOMEM, "out of memory loading entity links");
    free(c.pairs.p);
    free(c.eids);
    if (!st)
        st = snapshot_map_entities(sn, err);
    return st;
}

/* Each memory's speaker as an entity index; flag the speaker entities. */
static ms_status resolve_speakers(snapshot *sn, pending_speakers *ps, ms_error *err)
{
    sn->speaker_ent = malloc((sn->n + 1) * sizeof *sn->speaker_ent);
    sn->ent_speaker = calloc(sn->n_ent + 1, 1);
    if (!sn->speaker_ent || !sn->ent_speaker)
        return ms_fail(err, MS_NOMEM, "out of memory loading speakers");
    int32_t *ent = malloc((ps->n_norm + 1) * sizeof *ent);
    if (!ent)
        return ms_fail(err, MS_NOMEM, "out of memory loading speakers");
    for (size_t k = 0; k < ps->n_norm; k++)
        ent[k] = (int32_t)snapshot_entity(sn, ps->norm[k]);
    for (size_t i = 0; i < sn->n; i++) {
        int32_t e = ps->of[i] >= 0 ? ent[ps->of[i]] : -1;
        sn->speaker_ent[i] = e;
        if (e >= 0)
            sn->ent_speaker[e] = 1;
    }
    free(ent);
    return MS_OK;
}

struct succ_ctx {
    snapshot *sn;
    size_t cap;
    int oom;
};

static int load_relation(void *p, int64_t src, int64_t dst, int kind, const char *reason)
{
    struct succ_ctx *c = p;
    long newer = snapshot_find(c->sn, src), older = snapshot_find(c->sn, dst);
    if (kind != STORE_REL_SUPERSEDES || newer < 0 || older < 0)
        return 0;
    snapshot *sn = c->sn;
    if (sn->n_succ == c->cap) {
        snap_succ *g = realloc(sn->succ, (c->cap = c->cap ? 2 * c->cap : 16) * sizeof *g);
        if (!g) {
            c->oom = 1;
            return 1;
        }
        sn->succ = g;
    }
    snap_succ *e = &sn->succ[sn->n_succ];
    e->older = (uint32_t)older;
    e->newer = (uint32_t)newer;
    e->reason = reason ? strdup(reason) : NULL;
    if (reason && !e->reason) {
        c->oom = 1;
        return 1;
    }
    sn->n_succ++;
    return 0;
}

static int by_older(const void *a, const void *b)
{
    const snap_succ *x = a, *y = b;
    if (x->older != y->older)
        return x->older < y->older ? -1 : 1;
    return (x->newer > y->newer) - (x->newer < y->newer);
}

/* The profile's supersedes relations, by older memory. */
ms_status snapshot_load_successors(store *s, snapshot *sn, ms_error *err)
{
    struct succ_ctx c = {sn, 0, 0};
    ms_status st = store_scan_relations(s, load_relation, &c, err);
    if (!st && c.oom)
        st = ms_fail(err, MS_NOMEM, "out of memory loading relations");
    if (!st && sn->n_succ > 1)
        qsort(sn->succ, sn->n_succ, sizeof *sn->succ, by_older);
    return st;
}

size_t snapshot_successors(const snapshot *sn, size_t i, const snap_succ **first)
{
    size_t lo = 0, hi = sn->n_succ;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sn->succ[mid].older < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t k = lo;
    while (k < sn->n_succ && sn->succ[k].older == i)
        k++;
    *first = sn->succ ? sn->succ + lo : NULL;
    return k - lo;
}

ms_status snapshot_load(store *s, snapshot **out, ms_error *err)
{
    return snapshot_load_with(s, NULL, out, err);
}

ms_status snapshot_load_with(store *s, snap_progress *pg, snapshot **out, ms_error *err)
{
    *out = NULL;
    snapshot *sn = calloc(1, sizeof *sn);
    if (!sn)
        return ms_fail(err, MS_NOMEM, "out of memory");
    if (!(sn->lazy = calloc(1, sizeof *sn->lazy))) {
        free(sn);
        return ms_fail(err, MS_NOMEM, "out of memory");
    }
    snprintf(sn->profile, sizeof sn->profile, "%s", store_profile(s));
    sn->data_version = store_data_version(s);
    pending_speakers ps = {0};
    ms_status st = load_memories(s, sn, &ps, pg, err);
    if (!st)
        st = store_total(s, &sn->n_all, err);
    if (!st)
        st = load_vectors(s, sn, pg, err);
    if (!st)
        st = load_edges(s, sn, err);
    if (!st)
        st = snapshot_load_successors(s, sn, err);
    if (!st)
        st = load_entities(s, sn, pg, err);
    if (!st)
        st = resolve_speakers(sn, &ps, err);
    pending_speakers_free(&ps);
    if (st) {
        snapshot_free(sn);
        return st;
    }
    *out = sn;
    return MS_OK;
}

/* What a mapped snapshot owns (engine_int.h), and the mapping. */
static void snapshot_free_mapped(snapshot *sn)
{
    if (sn->doclen)
        store_doclen_return(sn->s, sn->doclen);
    postings_free(sn->post);
    free(sn->sup_text);
    free(sn->ent_norm);
    for (size_t i = 0; i < sn->n_succ; i++)
        free(sn->succ[i].reason);
    free(sn->succ);
    vcache_free(sn->exact);
    free(sn->vec_embedder);
    free(sn->vec_note);
    if (!sn->map_left) {
        munmap(sn->map, sn->map_len);
        if (sn->map_fd >= 0)
            close(sn->map_fd);
    }
    free(sn);
}

void snapshot_free(snapshot *sn)
{
    if (!sn)
        return;
    if (sn->lazy) {
        free(sn->lazy->time_marks);
        term_cache_free(sn->lazy->terms);
        snapshot_edges_free(sn->lazy);
        time_index_free(sn->lazy->by_day);
        free(sn->lazy->unit_terms);
        free(sn->lazy);
    }
    if (sn->map) {
        snapshot_free_mapped(sn);
        return;
    }
    if (sn->doclen_own) {
        store_doclen_return(sn->s, sn->doclen_own);
        free(sn->doclen_own);
    }
    snap_big_free(sn, sn->rid);
    free(sn->rid_index);
    snap_big_free(sn, sn->when);
    snap_big_free(sn, sn->created);
    snap_big_free(sn, sn->session);
    snap_big_free(sn, sn->speaker_ent);
    free(sn->ent_speaker);
    snap_big_free(sn, sn->pinned);
    snap_big_free(sn, sn->trust);
    snap_big_free(sn, sn->confidence);
    snap_big_free(sn, sn->qv);
    snap_big_free(sn, sn->q_scale);
    snap_big_free(sn, sn->q_resid);
    snap_big_free(sn, sn->q_norm);
    free(sn->blk_max);
    free(sn->q_slope);
    free(sn->stage);
    vcache_free(sn->exact);
    free(sn->has_vec);
    free(sn->qx_at);
    free(sn->qx_n);
    snap_big_free(sn, sn->qx_code);
    snap_big_free(sn, sn->qx_val);
    free(sn->vec_embedder);
    free(sn->vec_note);
    for (size_t i = 0; i < sn->n_sup; i++)
        free(sn->sup_text[i]);
    free(sn->sup_idx);
    free(sn->sup_text);
    for (size_t i = 0; i < sn->n_succ; i++)
        free(sn->succ[i].reason);
    free(sn->succ);
    free(sn->sup_by);
    for (size_t i = 0; sn->ent_norm && i < sn->n_ent; i++)
        free(sn->ent_norm[i]);
    free(sn->ent_norm);
    free(sn->ent_kind);
    snap_big_free(sn, sn->me_off);
    snap_big_free(sn, sn->me_ent);
    free(sn->em_off);
    free(sn->em_mem);
    free(sn->ent_map);
    free(sn->cow);
    free(sn);
}
