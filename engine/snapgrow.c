/* snapgrow.c - a snapshot extended by the memories appended since it was
 * made, instead of one read again from every table.
 *
 * When every transaction since the base snapshot's generation only
 * appended memories (store_key.rewritten), the rows it holds are as they
 * were, and what the tables hold beyond them is: the memories, vectors and
 * entity links of the rids past the base's last, entities past the base's
 * last (checked: the base's are the first, unchanged), and what is read
 * whole anyway because it is small (relations, the count of every
 * profile, whether there are edges). The result is the snapshot
 * snapshot_load would read, array for array: the same session numbers
 * (a new memory of an old session takes that session's number, found by
 * the session's first memory), speakers, entity lists in rid order, int8
 * blocks and their maxima. */
#include "engine_int.h"

#include <stdlib.h>
#include <string.h>

/* A new memory as read, until the arrays are made. */
typedef struct new_row {
    int64_t rid, when, created;
    int32_t session;
    char *speaker; /* match form, owned; NULL when none */
    uint8_t pinned, sup_by;
    double trust, confidence;
    char *sup_text; /* owned; NULL when not superseded */
} new_row;

/* A session name seen among the new rows and its number. */
typedef struct sess_seen {
    char *name; /* owned */
    int32_t id;
} sess_seen;

typedef struct grow_ctx {
    store *s;
    const snapshot *old;
    snap_grow rows;       /* new_row, in rid order; each owns what it holds */
    snap_grow sess;       /* sess_seen, in the order first seen */
    int32_t next_session; /* the number a session new to the profile gets */
    ms_status st;
    ms_error *err;
} grow_ctx;

/* The k-th new row. */
static new_row *row_at(const grow_ctx *c, size_t k)
{
    return (new_row *)c->rows.p + k;
}

static int32_t session_of(grow_ctx *c, const char *name)
{
    sess_seen *seen = c->sess.p;
    for (size_t k = c->sess.n; k-- > 0;) /* new rows come in sessions: the latest first */
        if (strcmp(seen[k].name, name) == 0)
            return seen[k].id;
    int64_t first = 0;
    if ((c->st = store_session_first(c->s, name, &first, c->err)))
        return -2;
    long i = first ? snapshot_find(c->old, first) : -1;
    int32_t id = i >= 0 ? c->old->session[i] : c->next_session++;
    char *copy = strdup(name);
    sess_seen *e = copy ? snap_grow_push(&c->sess) : NULL;
    if (!e) {
        free(copy);
        return -2;
    }
    *e = (sess_seen){copy, id};
    return id;
}

static char *speaker_norm(const char *speaker)
{
    size_t n = strlen(speaker), cap = 4 * n + 8;
    char *norm = malloc(cap);
    if (norm)
        store_entity_norm(speaker, n, norm, cap);
    return norm;
}

static int sup_text_of(const store_meta *m, char **out)
{
    *out = NULL;
    if (!m->superseded)
        return 0;
    char at[32], text[STORE_ID_MAX + 64];
    if (m->superseded_ts != STORE_TS_NONE)
        store_format_time(m->superseded_ts, at, sizeof at);
    store_supersession_text(m->superseded_by, m->superseded_ts != STORE_TS_NONE ? at : NULL, text,
                            sizeof text);
    return (*out = strdup(text)) ? 0 : -1;
}

static int read_row(void *p, const store_meta *m)
{
    grow_ctx *c = p;
    new_row *r = snap_grow_push(&c->rows); /* owns what it holds from here */
    if (!r)
        goto oom;
    memset(r, 0, sizeof *r);
    r->rid = m->rid;
    r->created = m->created_ts;
    r->when = m->event_ts != STORE_TS_NONE ? m->event_ts : m->created_ts;
    r->session = m->session ? session_of(c, m->session) : -1;
    r->pinned = m->pinned != 0;
    r->trust = m->trust_alpha / (m->trust_alpha + m->trust_beta); /* as snapshot.c */
    r->confidence = m->memory_confidence;
    r->sup_by = m->superseded_by != NULL;
    if (r->session == -2 ||
        (m->speaker && *m->speaker && !(r->speaker = speaker_norm(m->speaker))) ||
        sup_text_of(m, &r->sup_text))
        goto oom;
    return 0;
oom:
    if (!c->st)
        c->st = ms_fail(c->err, MS_NOMEM, "out of memory extending the snapshot");
    return 1;
}

static void grow_ctx_free(grow_ctx *c)
{
    for (size_t i = 0; i < c->rows.n; i++) {
        free(row_at(c, i)->speaker);
        free(row_at(c, i)->sup_text);
    }
    free(c->rows.p);
    for (size_t k = 0; k < c->sess.n; k++)
        free(((sess_seen *)c->sess.p)[k].name);
    free(c->sess.p);
}

/* ---- the memories' arrays -------------------------------------------------- */

/* n bytes of an old array into dst; nothing when n is 0 (a mapped file's
 * empty section is NULL, which memcpy may not be given). */
static void copy_old(void *dst, const void *src, size_t n)
{
    if (n)
        memcpy(dst, src, n);
}

/* old's column a of na elements, then room for extra more (and one):
 * the base file's pages when it is mapped (snap_cow_join). */
static void *join(snapshot *sn, const snapshot *old, const void *a, size_t na, size_t extra,
                  size_t size)
{
    return snap_cow_join(sn, old, a, na * size, (na + extra + 1) * size);
}

static ms_status grow_memories(snapshot *sn, const snapshot *old, grow_ctx *c)
{
    size_t n0 = old->n, n = n0 + c->rows.n;
    sn->n = n;
    sn->rid = join(sn, old, old->rid, n0, c->rows.n, sizeof *sn->rid);
    sn->when = join(sn, old, old->when, n0, c->rows.n, sizeof *sn->when);
    sn->created = join(sn, old, old->created, n0, c->rows.n, sizeof *sn->created);
    sn->session = join(sn, old, old->session, n0, c->rows.n, sizeof *sn->session);
    sn->pinned = join(sn, old, old->pinned, n0, c->rows.n, 1);
    sn->trust = join(sn, old, old->trust, n0, c->rows.n, sizeof *sn->trust);
    sn->confidence = join(sn, old, old->confidence, n0, c->rows.n, sizeof *sn->confidence);
    if (!sn->rid || !sn->when || !sn->created || !sn->session || !sn->pinned || !sn->trust ||
        !sn->confidence)
        return ms_fail(c->err, MS_NOMEM, "out of memory extending the snapshot");
    for (size_t k = 0; k < c->rows.n; k++) {
        const new_row *r = row_at(c, k);
        sn->rid[n0 + k] = r->rid;
        sn->when[n0 + k] = r->when;
        sn->created[n0 + k] = r->created;
        sn->session[n0 + k] = r->session;
        sn->pinned[n0 + k] = r->pinned;
        sn->trust[n0 + k] = r->trust;
        sn->confidence[n0 + k] = r->confidence;
    }
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || sn->when[i] > sn->newest)
            sn->newest = sn->when[i];
        if (i == 0 || sn->created[i] > sn->newest_created)
            sn->newest_created = sn->created[i];
    }
    snapshot_index_rids(sn);
    return MS_OK;
}

/* One superseded memory while the list is made. */
typedef struct sup_entry {
    uint32_t idx;
    uint8_t by;
    char *text; /* owned */
} sup_entry;

typedef struct sup_read {
    const snapshot *sn;
    snap_grow v; /* sup_entry */
    int oom;
} sup_read;

/* One more entry of r, taking text (NULL: out of memory). */
static void sup_push(sup_read *r, uint32_t idx, uint8_t by, char *text)
{
    sup_entry *e = text ? snap_grow_push(&r->v) : NULL;
    if (!e) {
        free(text);
        r->oom = 1;
        return;
    }
    *e = (sup_entry){idx, by, text};
}

static int read_superseded(void *p, const store_meta *m)
{
    sup_read *r = p;
    long i = snapshot_find(r->sn, m->rid);
    if (i < 0)
        return 0;
    char *text = NULL;
    if (sup_text_of(m, &text) == 0) /* superseded_by is set: a text is made */
        sup_push(r, (uint32_t)i, 1, text);
    else
        r->oom = 1;
    return r->oom;
}

static int by_sup_idx(const void *a, const void *b)
{
    const sup_entry *x = a, *y = b;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Is index i among the memories a successor names (v[n], by index)? */
static int named_by(const sup_entry *v, size_t n, uint32_t i)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].idx < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo].idx == i;
}

/* The superseded memories, as a full read lists them. With marked (a
 * supersession set or cleared between two memories since the base: it
 * changes the older one's fields, and is no rewrite, store/relation.c),
 * every memory whose superseded_by names a successor now, read again
 * through its index, and the others, superseded_at alone (expired), as the
 * base and the new rows hold them (only a rewrite changes those); else the
 * base's and the new rows'. */
static ms_status grow_superseded(snapshot *sn, const snapshot *old, int marked, grow_ctx *c)
{
    sup_read r = {.sn = sn, .v = {.size = sizeof(sup_entry)}};
    ms_status st = marked ? store_scan_superseded_by(c->s, read_superseded, &r, c->err) : MS_OK;
    size_t named = r.v.n; /* read in rid order, so by index */
    for (size_t j = 0; !st && !r.oom && j < old->n_sup; j++)
        if (!marked || (!old->sup_by[j] && !named_by(r.v.p, named, old->sup_idx[j])))
            sup_push(&r, old->sup_idx[j], old->sup_by[j], strdup(old->sup_text[j]));
    for (size_t i = 0; !st && !r.oom && i < c->rows.n; i++) {
        new_row *w = row_at(c, i);
        if (w->sup_text && (!marked || !w->sup_by)) {
            sup_push(&r, (uint32_t)(old->n + i), w->sup_by, w->sup_text);
            w->sup_text = NULL;
        }
    }
    if (!st && r.oom)
        st = ms_fail(c->err, MS_NOMEM, "out of memory extending the snapshot");
    sup_entry *v = r.v.p;
    size_t k = r.v.n;
    if (!st && marked && k > 1) /* else the base's, then the new rows': in order */
        qsort(v, k, sizeof *v, by_sup_idx);
    if (!st && k) {
        sn->sup_idx = malloc(k * sizeof *sn->sup_idx);
        sn->sup_text = calloc(k, sizeof *sn->sup_text);
        sn->sup_by = malloc(k);
        if (!sn->sup_idx || !sn->sup_text || !sn->sup_by)
            st = ms_fail(c->err, MS_NOMEM, "out of memory extending the snapshot");
    }
    for (size_t j = 0; !st && j < k; j++, sn->n_sup++) {
        sn->sup_idx[j] = v[j].idx;
        sn->sup_by[j] = v[j].by;
        sn->sup_text[j] = v[j].text;
        v[j].text = NULL;
    }
    for (size_t j = 0; j < k; j++)
        free(v[j].text);
    free(v);
    return st;
}

/* ---- vectors --------------------------------------------------------------- */

static int put_vector(void *p, const store_qvec *v, int dim)
{
    snapshot_put_vector(p, v, dim);
    return 0;
}

/* Memory i of old's int8 form put again into sn (the block it shares with
 * new memories is staged whole). */
static void put_again(snapshot *sn, const snapshot *old, size_t i)
{
    int8_t q[STORE_DIM_MAX];
    for (int d = 0; d < old->dim; d++)
        q[d] = vectors_code_at(old, i, d);
    store_qvec v = {.rid = old->rid[i],
                    .q = q,
                    .scale = old->q_scale[i],
                    .resid = old->q_resid[i],
                    .qnorm = old->q_norm[i]};
    vectors_put(sn, i, &v);
}

/* old's exact pairs (vectors_put_exact) copied for its memories, as a read
 * of the tables puts them: in rid order, before the new memories'. The
 * pairs themselves are the base file's pages when it is mapped
 * (snap_cow_join; 31 MB at 1M, which a copy and then vectors_put_exact's
 * doubling copied twice), with room for fresh new memories' pairs (about 6 a
 * memory with the built-in embedder; more and vectors_put_exact moves them
 * into memory of their own). */
static int grow_exact(snapshot *sn, const snapshot *old, size_t fresh)
{
    copy_old(sn->qx_at, old->qx_at, old->n * sizeof *sn->qx_at);
    copy_old(sn->qx_n, old->qx_n, old->n);
    if (!old->n_qx)
        return 0;
    size_t room = old->n_qx + 16 * fresh + 4096;
    sn->qx_code = snap_cow_join(sn, old, old->qx_code, old->n_qx, room);
    sn->qx_val = snap_cow_join(sn, old, old->qx_val, old->n_qx * sizeof *sn->qx_val,
                               room * sizeof *sn->qx_val);
    if (!sn->qx_code || !sn->qx_val)
        return -1;
    sn->n_qx = old->n_qx;
    sn->cap_qx = room;
    return 0;
}

/* The int8 forms: old's whole blocks copied, its last block put again with
 * the new memories' forms read after it. *same 0 when the store's embedder
 * is not old's (then nothing can be kept). */
static ms_status grow_vectors(store *s, snapshot *sn, const snapshot *old, int *same, ms_error *err)
{
    const char *id;
    int dim;
    store_embedder(s, &id, &dim, err);
    *same = (!id && !old->dim) ||
            (id && old->dim == dim && old->vec_embedder && strcmp(id, old->vec_embedder) == 0);
    sn->has_vec = calloc(sn->n + 1, 1);
    if (!sn->has_vec)
        return ms_fail(err, MS_NOMEM, "out of memory extending the snapshot");
    if (!*same || !old->dim)
        return MS_OK;
    sn->dim = dim;
    sn->s = s;
    size_t len = strlen(id) + 128;
    sn->vec_embedder = strdup(id);
    if ((sn->vec_note = malloc(len)))
        snprintf(sn->vec_note, len,
                 "store vectors from %s, %d-d; no query embedder for that model - see "
                 "docs/EMBEDDERS.md",
                 id, dim);
    sn->exact = vcache_new(dim, sn->n);
    size_t kept = 0; /* blocks whose codes are old's file's pages */
    if (vectors_alloc_from(sn, sn->n, dim, old, &kept) || !sn->exact || !sn->vec_embedder ||
        !sn->vec_note)
        return ms_fail(err, MS_NOMEM, "out of memory extending the snapshot");
    size_t whole = old->n / VEC_BLOCK; /* blocks of old's whose codes stay as they are */
    vectors_copy_blocks(sn, old, kept, whole);
    copy_old(sn->blk_max, old->blk_max, 3 * whole * sizeof *sn->blk_max);
    copy_old(sn->q_slope, old->q_slope, whole * VEC_BLOCK);
    copy_old(sn->has_vec, old->has_vec, old->n);
    sn->n_vec = old->n_vec;
    if (grow_exact(sn, old, sn->n - old->n))
        return ms_fail(err, MS_NOMEM, "out of memory extending the snapshot");
    for (size_t i = whole * VEC_BLOCK; i < old->n; i++)
        if (old->has_vec[i])
            put_again(sn, old, i);
    ms_status st = store_scan_qvectors_after(s, old->rid[old->n - 1], put_vector, sn, err);
    vectors_done(sn);
    return st;
}

/* ---- entities and their links ---------------------------------------------- */

typedef struct ent_read {
    const snapshot *old;
    snap_ents e; /* as snapshot.c reads them */
    int differ;
} ent_read;

static int read_entity(void *p, const store_entity *e)
{
    ent_read *r = p;
    size_t n = r->e.norm.n;
    if (n < r->old->n_ent && (strcmp(e->norm ? e->norm : "", snapshot_ent_norm(r->old, n)) != 0 ||
                              e->kind != r->old->ent_kind[n])) {
        r->differ = 1; /* not the entities the base was made with */
        return 1;
    }
    return snap_read_entity(&r->e, e);
}

typedef struct link_read {
    const snapshot *sn;
    const int64_t *eid;
    size_t n_ent;
    snap_grow pairs; /* snap_pair, in rid, eid order */
    int oom;
} link_read;

static int read_link(void *p, int64_t rid, int64_t eid)
{
    link_read *l = p;
    long m = snapshot_find(l->sn, rid), e = snapshot_find_eid(l->eid, l->n_ent, eid);
    if (m < 0 || e < 0)
        return 0;
    snap_pair *pr = snap_grow_push(&l->pairs);
    if (!pr) {
        l->oom = 1;
        return 1;
    }
    *pr = (snap_pair){(uint32_t)m, (uint32_t)e};
    return 0;
}

/* memory -> entities: old's lists, then the new memories' (their pairs come
 * in rid, eid order). */
static int grow_mem_lists(snapshot *sn, const snapshot *old, const link_read *l)
{
    const snap_pair *pr = l->pairs.p;
    size_t np = l->pairs.n;
    size_t n0 = old->n, have = old->me_off[n0];
    sn->me_off = join(sn, old, old->me_off, n0 + 1, sn->n - n0, sizeof *sn->me_off);
    sn->me_ent = snap_cow_join(sn, old, old->me_ent, have * sizeof *sn->me_ent,
                               (have + np + 1) * sizeof *sn->me_ent);
    if (!sn->me_off || !sn->me_ent)
        return -1;
    size_t k = 0;
    for (size_t i = n0; i < sn->n; i++) {
        for (; k < np && pr[k].mem == i; k++)
            sn->me_ent[have + k] = pr[k].ent;
        sn->me_off[i + 1] = (uint32_t)(have + k);
    }
    return 0;
}

/* entity -> memories: each entity's old list, then its new memories
 * (ascending, as the new pairs are). */
static int grow_ent_lists(snapshot *sn, const snapshot *old, const link_read *l)
{
    const snap_pair *pr = l->pairs.p;
    size_t np = l->pairs.n;
    size_t ne = sn->n_ent;
    sn->em_off = calloc(ne + 1, sizeof *sn->em_off);
    sn->em_mem = malloc((old->em_off[old->n_ent] + np + 1) * sizeof *sn->em_mem);
    uint32_t *fill = calloc(ne + 1, sizeof *fill);
    if (!sn->em_off || !sn->em_mem || !fill) {
        free(fill);
        return -1;
    }
    for (size_t k = 0; k < np; k++)
        fill[pr[k].ent]++; /* new memories of each entity */
    for (size_t e = 0; e < ne; e++) {
        uint32_t had = e < old->n_ent ? old->em_off[e + 1] - old->em_off[e] : 0;
        sn->em_off[e + 1] = sn->em_off[e] + had + fill[e];
        if (had)
            memcpy(sn->em_mem + sn->em_off[e], old->em_mem + old->em_off[e], had * sizeof *fill);
        fill[e] = sn->em_off[e] + had; /* where its new ones go */
    }
    for (size_t k = 0; k < np; k++)
        sn->em_mem[fill[pr[k].ent]++] = pr[k].mem;
    free(fill);
    return 0;
}

/* The speakers of the new memories as entities (old's joined already);
 * their entities flagged. */
static void grow_speakers(snapshot *sn, const snapshot *old, const grow_ctx *c)
{
    copy_old(sn->ent_speaker, old->ent_speaker, old->n_ent);
    for (size_t k = 0; k < c->rows.n; k++) {
        long e = row_at(c, k)->speaker ? snapshot_entity(sn, row_at(c, k)->speaker) : -1;
        sn->speaker_ent[old->n + k] = (int32_t)e;
        if (e >= 0)
            sn->ent_speaker[e] = 1;
    }
}

/* Entities (*same 0 when the base's are not the first of the store's),
 * links, lists and speakers. */
static ms_status grow_entities(store *s, snapshot *sn, const snapshot *old, const grow_ctx *c,
                               int *same, ms_error *err)
{
    ent_read r = {old, {{.size = sizeof(int64_t)}, {.size = sizeof(char *)}, {.size = 1}, 0}, 0};
    ms_status st = store_scan_entities(s, read_entity, &r, err);
    size_t n = r.e.norm.n;
    *same = !r.differ && n >= old->n_ent;
    if (!st && r.e.oom)
        st = ms_fail(err, MS_NOMEM, "out of memory extending the snapshot");
    sn->n_ent = n;
    sn->ent_norm = r.e.norm.p ? r.e.norm.p : calloc(1, sizeof *sn->ent_norm);
    sn->ent_kind = r.e.kind.p ? r.e.kind.p : calloc(1, 1);
    if (!sn->ent_norm || !sn->ent_kind) {
        if (!r.e.norm.p) /* else they are sn's now, and n of them */
            sn->n_ent = 0;
        free(r.e.eid.p);
        return ms_fail(err, MS_NOMEM, "out of memory extending the snapshot");
    }
    link_read l = {.sn = sn, .eid = r.e.eid.p, .n_ent = n, .pairs = {.size = sizeof(snap_pair)}};
    if (!st && *same)
        st = store_scan_links_after(s, old->rid[old->n - 1], read_link, &l, err);
    if (!st && *same && l.oom)
        st = ms_fail(err, MS_NOMEM, "out of memory extending the snapshot");
    if (!st && *same && (grow_mem_lists(sn, old, &l) || grow_ent_lists(sn, old, &l)))
        st = ms_fail(err, MS_NOMEM, "out of memory extending the snapshot");
    free(l.pairs.p);
    free(r.e.eid.p);
    if (!st && *same)
        st = snapshot_map_entities(sn, err);
    sn->speaker_ent =
        *same ? join(sn, old, old->speaker_ent, old->n, sn->n - old->n, sizeof *sn->speaker_ent)
              : malloc((sn->n + 1) * sizeof *sn->speaker_ent);
    sn->ent_speaker = calloc(sn->n_ent + 1, 1);
    if (!st && (!sn->speaker_ent || !sn->ent_speaker))
        st = ms_fail(err, MS_NOMEM, "out of memory extending the snapshot");
    if (!st && *same)
        grow_speakers(sn, old, c);
    return st;
}

/* ---- the whole ------------------------------------------------------------- */

static int32_t sessions_of(const snapshot *old)
{
    int32_t next = 0;
    for (size_t i = 0; i < old->n; i++)
        if (old->session[i] >= next)
            next = old->session[i] + 1;
    return next;
}

ms_status snapshot_grow(store *s, const snapshot *old, int marked, snapshot **out, ms_error *err)
{
    *out = NULL;
    if (old->n == 0)
        return MS_OK; /* nothing to keep */
    grow_ctx c = {.s = s,
                  .old = old,
                  .rows = {.size = sizeof(new_row)},
                  .sess = {.size = sizeof(sess_seen)},
                  .next_session = sessions_of(old),
                  .err = err};
    ms_status st = store_scan_meta_after(s, old->rid[old->n - 1], read_row, &c, err);
    if (!st)
        st = c.st;
    snapshot *sn = st ? NULL : calloc(1, sizeof *sn);
    if (!st && (!sn || !(sn->lazy = calloc(1, sizeof *sn->lazy))))
        st = ms_fail(err, MS_NOMEM, "out of memory extending the snapshot");
    int same = 1;
    if (!st) {
        snprintf(sn->profile, sizeof sn->profile, "%s", store_profile(s));
        sn->data_version = store_data_version(s);
        sn->s = s;
        st = grow_memories(sn, old, &c);
    }
    if (!st)
        st = grow_superseded(sn, old, marked, &c);
    int only = 0; /* the profile's memories are all the store's: counting them
                     walked a whole index (at 1M 15 % of a grow) */
    if (!st)
        st = store_only_profile(s, &only, err);
    if (!st && only)
        sn->n_all = (int64_t)sn->n;
    else if (!st)
        st = store_total(s, &sn->n_all, err);
    if (!st)
        st = grow_vectors(s, sn, old, &same, err);
    if (!st && same)
        st = store_has_edges(s, &sn->has_edges, err);
    if (!st && same)
        st = snapshot_load_successors(s, sn, err);
    if (!st && same)
        st = grow_entities(s, sn, old, &c, &same, err);
    grow_ctx_free(&c);
    if (st || !same) {
        snapshot_free(sn);
        return st;
    }
    *out = sn;
    return MS_OK;
}
