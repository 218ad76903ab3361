/* graph.c - the edges a store works out from its rows instead of keeping.
 *
 * Two kinds of edge say only what the rows say already:
 *   session: a turn and each of the two before it in its session (by rid),
 *            weight 1.0 for the one before, 0.5 for the one two before;
 *   entity:  a memory and the two newest earlier memories linked to each
 *            entity it names, weight 0.5, + 0.25 for each further entity
 *            that gives the same pair, at most 1. A memory's link to its
 *            own speaker gives none (every turn of a person would be
 *            joined to every other); the earlier memory may be linked any
 *            way.
 * An import wrote them as rows, 5.1 of the 5.4 it wrote per memory at
 * 1,000,000 memories, most of them at random places of the edges index
 * (docs/PERFORMANCE.md). Since schema 10 they are worked out here when
 * read, from memories_by_session and memory_entities (whose speaker column
 * marks the speaker's link). The edges table keeps the rest: temporal
 * edges (the put works them out from event times that later puts cannot
 * change), and the edges a store given to import recorded
 * (store_add_edge), of any type.
 *
 * A store of an older schema read as it is has every edge in its table:
 * nothing is derived for it (store_derives_edges). Its first write
 * upgrades it (store_graph_upgrade): the speakers' links are marked, and
 * the rows that the derivation gives again, key and weight, are deleted. */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

int store_derives_edges(const store *s)
{
    return s->upgrade_from == 0 || s->upgrade_from >= 10;
}

int store_edge_list_add(store_edge_list *l, int64_t a, int64_t b, int type, double w)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        store_edge *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = (store_edge){a < b ? a : b, a < b ? b : a, type, w};
    return 0;
}

int store_edge_cmp(const void *a, const void *b)
{
    const store_edge *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    return (x->type > y->type) - (x->type < y->type);
}

void store_edges_merge(store_edge *v, size_t *n)
{
    if (*n < 2)
        return;
    qsort(v, *n, sizeof *v, store_edge_cmp);
    size_t k = 0;
    for (size_t j = 1; j < *n; j++) {
        if (store_edge_cmp(&v[k], &v[j]) == 0) {
            if (v[j].weight > v[k].weight)
                v[k].weight = v[j].weight;
        } else {
            v[++k] = v[j];
        }
    }
    *n = k + 1;
}

/* The entity edges' weight for a pair that c entities give. */
static double entity_weight(int c)
{
    double w = 0.5 + 0.25 * (c - 1);
    return w < 1.0 ? w : 1.0;
}

/* Other ends of entity edges, with how many entities give each. */
typedef struct tally {
    int64_t rid[2 * STORE_ENTITIES_MAX + 2];
    int count[2 * STORE_ENTITIES_MAX + 2];
    int n;
} tally;

static void tally_add(tally *t, int64_t rid)
{
    for (int k = 0; k < t->n; k++)
        if (t->rid[k] == rid) {
            t->count[k]++;
            return;
        }
    if (t->n < (int)(sizeof t->rid / sizeof t->rid[0])) {
        t->rid[t->n] = rid;
        t->count[t->n++] = 1;
    }
}

/* The rids of statement id bound to (profile, session, rid), appended to
 * out as session edges with rid: the first 1.0, the second 0.5. */
static ms_status session_side(store *s, enum stmt_id id, const char *profile, const char *session,
                              int64_t rid, store_edge_list *out, ms_error *err)
{
    sqlite3_stmt *st = store_stmt(s, id, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_text(st, 1, profile, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, session, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, rid);
    int rc, k = 0;
    ms_status code = MS_OK;
    while (!code && k < 2 && (rc = sqlite3_step(st)) == SQLITE_ROW)
        if (store_edge_list_add(out, sqlite3_column_int64(st, 0), rid, STORE_EDGE_SESSION,
                                k++ ? 0.5 : 1.0))
            code = ms_fail(err, MS_NOMEM, "out of memory");
    if (!code && k < 2 && rc != SQLITE_DONE)
        code = store_sql_fail(s, rc, "reading a session's turns", err);
    sqlite3_reset(st);
    return code;
}

static ms_status session_of(store *s, int64_t rid, int both, store_edge_list *out, ms_error *err)
{
    sqlite3_stmt *st = store_stmt(s, ST_GRAPH_MEMORY, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_int64(st, 1, rid);
    int rc = sqlite3_step(st);
    char *profile = rc == SQLITE_ROW ? store_col_text(st, 0) : NULL;
    char *session = rc == SQLITE_ROW ? store_col_text(st, 1) : NULL;
    sqlite3_reset(st);
    ms_status code = MS_OK;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        code = store_sql_fail(s, rc, "reading a memory's session", err);
    if (!code && profile && session)
        code = session_side(s, ST_SESSION_PREV, profile, session, rid, out, err);
    if (!code && profile && session && both)
        code = session_side(s, ST_SESSION_NEXT, profile, session, rid, out, err);
    free(profile);
    free(session);
    return code;
}

/* Memory rid's links: eid and whether it is its speaker's. */
typedef struct link_list {
    int64_t eid[STORE_ENTITIES_MAX + 1];
    int speaker[STORE_ENTITIES_MAX + 1];
    int n;
} link_list;

static ms_status links_of(store *s, int64_t rid, link_list *l, ms_error *err)
{
    sqlite3_stmt *st = store_stmt(s, ST_GRAPH_LINKS, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_int64(st, 1, rid);
    int rc;
    l->n = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW && l->n <= STORE_ENTITIES_MAX) {
        l->eid[l->n] = sqlite3_column_int64(st, 0);
        l->speaker[l->n++] = sqlite3_column_int(st, 1);
    }
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "reading a memory's entities", err);
    return MS_OK;
}

/* The (at most two) memories linked to eid nearest rid on one side: before
 * it (ST_LINK_PREV), each counted, or after it (ST_GRAPH_LINK_NEXT), each
 * counted unless linked as its speaker. */
static ms_status link_side(store *s, int64_t eid, int64_t rid, int after, tally *t, ms_error *err)
{
    sqlite3_stmt *st = store_stmt(s, after ? ST_GRAPH_LINK_NEXT : ST_LINK_PREV, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_int64(st, 1, eid);
    sqlite3_bind_int64(st, 2, rid);
    sqlite3_bind_int(st, 3, 2);
    int rc, k = 0;
    while (k < 2 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        k++;
        if (!after || !sqlite3_column_int(st, 1))
            tally_add(t, sqlite3_column_int64(st, 0));
    }
    sqlite3_reset(st);
    if (k < 2 && rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "reading an entity's memories", err);
    return MS_OK;
}

static ms_status entity_of(store *s, int64_t rid, int both, store_edge_list *out, ms_error *err)
{
    link_list l = {.n = 0};
    ms_status code = links_of(s, rid, &l, err);
    tally before = {.n = 0}, after = {.n = 0};
    for (int k = 0; !code && k < l.n; k++) {
        if (!l.speaker[k])
            code = link_side(s, l.eid[k], rid, 0, &before, err);
        if (!code && both)
            code = link_side(s, l.eid[k], rid, 1, &after, err);
    }
    for (int k = 0; !code && k < before.n + after.n; k++) {
        const tally *t = k < before.n ? &before : &after;
        int j = k < before.n ? k : k - before.n;
        if (store_edge_list_add(out, t->rid[j], rid, STORE_EDGE_ENTITY, entity_weight(t->count[j])))
            code = ms_fail(err, MS_NOMEM, "out of memory");
    }
    return code;
}

ms_status store_graph_of(store *s, int64_t rid, int both, store_edge_list *out, ms_error *err)
{
    ms_status code = session_of(s, rid, both, out, err);
    return code ? code : entity_of(s, rid, both, out, err);
}

/* ---- every derived edge of a profile ------------------------------------------- */

static ms_status scan_sessions(store *s, const char *profile, store_edge_fn fn, void *ctx,
                               int *stop, ms_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                "SELECT rid, session FROM memories WHERE profile=?1"
                                " AND session IS NOT NULL ORDER BY session, rid",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading sessions", err);
    sqlite3_bind_text(st, 1, profile, -1, SQLITE_STATIC);
    char *last = NULL;
    int64_t prev[2] = {0, 0};
    ms_status code = MS_OK;
    while (!*stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t rid = sqlite3_column_int64(st, 0);
        const char *session = (const char *)sqlite3_column_text(st, 1);
        if (!last || strcmp(last, session) != 0) {
            free(last);
            if (!(last = store_strdup(session))) {
                code = ms_fail(err, MS_NOMEM, "out of memory");
                break;
            }
            prev[0] = prev[1] = 0;
        }
        for (int k = 0; k < 2 && prev[k] && !*stop; k++) {
            store_edge e = {prev[k], rid, STORE_EDGE_SESSION, k ? 0.5 : 1.0};
            *stop = fn(ctx, &e);
        }
        prev[1] = prev[0];
        prev[0] = rid;
    }
    free(last);
    sqlite3_finalize(st);
    if (!code && !*stop && rc != SQLITE_DONE)
        code = store_sql_fail(s, rc, "reading sessions", err);
    return code;
}

/* The walk of the links in rid order: for each entity, the two memories
 * linked to it last, in last[2 * slot]. An entity's slot is eid - 1 when
 * the ids are dense (as SQLite hands them out), else its place among the
 * sorted ids (a file written by something else may hold any). */
typedef struct link_walk {
    int64_t *last; /* [2 * n] */
    int64_t *ids;  /* [n] sorted, or NULL: dense */
    size_t n;
    link_list cur;
    int64_t rid;
} link_walk;

static long walk_slot(const link_walk *w, int64_t e)
{
    if (!w->ids)
        return e >= 1 && (uint64_t)e <= w->n ? (long)(e - 1) : -1;
    size_t lo = 0, hi = w->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->ids[mid] < e)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->n && w->ids[lo] == e ? (long)lo : -1;
}

/* The entity edges of memory w->rid, whose links are w->cur; then its links
 * become the last. */
static int walk_memory(link_walk *w, store_edge_fn fn, void *ctx)
{
    tally t = {.n = 0};
    long slot[STORE_ENTITIES_MAX + 1];
    for (int k = 0; k < w->cur.n; k++) {
        slot[k] = walk_slot(w, w->cur.eid[k]);
        for (int j = 0; j < 2 && slot[k] >= 0 && !w->cur.speaker[k] && w->last[2 * slot[k] + j];
             j++)
            tally_add(&t, w->last[2 * slot[k] + j]);
    }
    int stop = 0;
    for (int k = 0; k < t.n && !stop; k++) {
        store_edge x = {t.rid[k], w->rid, STORE_EDGE_ENTITY, entity_weight(t.count[k])};
        stop = fn(ctx, &x);
    }
    for (int k = 0; k < w->cur.n; k++) {
        if (slot[k] < 0)
            continue;
        w->last[2 * slot[k] + 1] = w->last[2 * slot[k]];
        w->last[2 * slot[k]] = w->rid;
    }
    w->cur.n = 0;
    return stop;
}

/* The entities' slots: dense unless the ids are not (w->ids then). */
static ms_status walk_init(store *s, link_walk *w, ms_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(
        s->db, "SELECT count(*), coalesce(min(eid), 1), coalesce(max(eid), 0) FROM entities", -1,
        &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "counting entities", err);
    rc = sqlite3_step(st);
    int64_t n = sqlite3_column_int64(st, 0), lo = sqlite3_column_int64(st, 1),
            hi = sqlite3_column_int64(st, 2);
    ms_status code = rc == SQLITE_ROW ? MS_OK : store_sql_fail(s, rc, "counting entities", err);
    sqlite3_finalize(st);
    if (code)
        return code;
    int dense = lo >= 1 && hi <= 2 * n + 65536;
    w->n = dense ? (size_t)hi : (size_t)n;
    w->last = calloc(2 * w->n + 2, sizeof *w->last);
    w->ids = dense ? NULL : malloc((w->n + 1) * sizeof *w->ids);
    if (!w->last || (!dense && !w->ids))
        return ms_fail(err, MS_NOMEM, "out of memory reading entity links");
    if (dense)
        return MS_OK;
    rc = sqlite3_prepare_v2(s->db, "SELECT eid FROM entities ORDER BY eid", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading entities", err);
    size_t k = 0;
    while (k < w->n && (rc = sqlite3_step(st)) == SQLITE_ROW)
        w->ids[k++] = sqlite3_column_int64(st, 0);
    w->n = k;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "reading entities", err);
    return MS_OK;
}

static ms_status scan_links(store *s, const char *profile, int only, store_edge_fn fn, void *ctx,
                            int *stop, ms_error *err)
{
    link_walk w = {NULL, NULL, 0, {.n = 0}, 0};
    ms_status code = walk_init(s, &w, err);
    /* in the (rid, eid) key's order (no sort: the table's own); CROSS JOIN
     * keeps the links outside */
    const char *sql = only ? "SELECT rid, eid, speaker FROM memory_entities ORDER BY rid, eid"
                           : "SELECT l.rid, l.eid, l.speaker FROM memory_entities l"
                             " CROSS JOIN memories m ON m.rid=l.rid WHERE m.profile=?1"
                             " ORDER BY l.rid, l.eid";
    sqlite3_stmt *st = NULL;
    int rc = code ? SQLITE_OK : sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (!code && rc != SQLITE_OK)
        code = store_sql_fail(s, rc, "reading entity links", err);
    if (!code && !only)
        sqlite3_bind_text(st, 1, profile, -1, SQLITE_STATIC);
    while (!code && !*stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t rid = sqlite3_column_int64(st, 0);
        if (rid != w.rid && w.cur.n)
            *stop = walk_memory(&w, fn, ctx);
        w.rid = rid;
        if (w.cur.n <= STORE_ENTITIES_MAX) {
            w.cur.eid[w.cur.n] = sqlite3_column_int64(st, 1);
            w.cur.speaker[w.cur.n++] = sqlite3_column_int(st, 2);
        }
    }
    if (!code && !*stop && rc == SQLITE_DONE && w.cur.n)
        *stop = walk_memory(&w, fn, ctx);
    free(w.last);
    free(w.ids);
    sqlite3_finalize(st);
    if (!code && !*stop && rc != SQLITE_DONE)
        code = store_sql_fail(s, rc, "reading entity links", err);
    return code;
}

ms_status store_graph_scan(store *s, const char *profile, int only, store_edge_fn fn, void *ctx,
                           ms_error *err)
{
    int stop = 0;
    ms_status code = scan_sessions(s, profile, fn, ctx, &stop, err);
    return code || stop ? code : scan_links(s, profile, only, fn, ctx, &stop, err);
}

ms_status store_graph_after(store *s, int64_t after, store_edge_fn fn, void *ctx, ms_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(
        s->db, "SELECT rid FROM memories WHERE profile=?1 AND rid>?2 ORDER BY rid", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading memories", err);
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, after);
    store_edge_list l = {NULL, 0, 0};
    ms_status code = MS_OK;
    int stop = 0;
    while (!code && !stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        l.n = 0;
        code = store_graph_of(s, sqlite3_column_int64(st, 0), 0, &l, err);
        for (size_t k = 0; !code && !stop && k < l.n; k++)
            stop = fn(ctx, &l.v[k]);
    }
    free(l.v);
    sqlite3_finalize(st);
    if (!code && !stop && rc != SQLITE_DONE)
        code = store_sql_fail(s, rc, "reading memories", err);
    return code;
}

ms_status store_graph_exists(store *s, int *yes, ms_error *err)
{
    return store_query_yes(
        s,
        "SELECT EXISTS (SELECT 1 FROM memories a WHERE a.profile=?1 AND a.session IS NOT NULL"
        " AND EXISTS (SELECT 1 FROM memories b WHERE b.profile=?1 AND b.session=a.session"
        " AND b.rid<a.rid))"
        " OR EXISTS (SELECT 1 FROM memory_entities l CROSS JOIN memories m ON m.rid=l.rid"
        " WHERE m.profile=?1 AND NOT l.speaker AND EXISTS (SELECT 1 FROM memory_entities p"
        " WHERE p.eid=l.eid AND p.rid<l.rid))",
        "reading edges", yes, err);
}

/* ---- counting ------------------------------------------------------------------- */

static int count_edge(void *p, const store_edge *e)
{
    (void)e;
    ++*(int64_t *)p;
    return 0;
}

/* Is the kept edge e (of a derived type) one the derivation gives too? */
static ms_status derived_too(store *s, const store_edge *e, int *yes, ms_error *err)
{
    store_edge_list l = {NULL, 0, 0};
    ms_status code = store_graph_of(s, e->dst, 0, &l, err);
    *yes = 0;
    for (size_t k = 0; !code && k < l.n && !*yes; k++)
        *yes = l.v[k].src == e->src && l.v[k].type == e->type;
    free(l.v);
    return code;
}

ms_status store_graph_count(store *s, int64_t *n, ms_error *err)
{
    int only = 0;
    *n = 0;
    ms_status code = store_only_profile(s, &only, err);
    if (!code)
        code = store_graph_scan(s, s->profile, only, count_edge, n, err);
    sqlite3_stmt *st = NULL;
    int rc = code ? SQLITE_OK
                  : sqlite3_prepare_v2(s->db,
                                       "SELECT e.src, e.dst, e.type FROM edges e CROSS JOIN"
                                       " memories m ON m.rid=e.src WHERE m.profile=?1"
                                       " AND e.type IN (1, 2)",
                                       -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "counting edges", err);
    if (code)
        return code;
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    while (!code && (rc = sqlite3_step(st)) == SQLITE_ROW) { /* kept and derived: once */
        store_edge e = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                        sqlite3_column_int(st, 2), 0};
        int both = 0;
        code = derived_too(s, &e, &both, err);
        *n -= both;
    }
    sqlite3_finalize(st);
    if (!code && rc != SQLITE_DONE)
        code = store_sql_fail(s, rc, "counting edges", err);
    return code;
}

/* ---- the upgrade to schema 10 ------------------------------------------------------ */

/* Mark each memory's link to its speaker (the entity its speaker field
 * names, as store_link_entities links it). */
static ms_status mark_speakers(store *s, ms_error *err)
{
    sqlite3_stmt *mem = NULL, *find = NULL, *mark = NULL;
    int rc = sqlite3_prepare_v2(s->db,
                                "SELECT rid, profile, speaker FROM memories"
                                " WHERE speaker IS NOT NULL AND speaker<>''",
                                -1, &mem, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(s->db, "SELECT eid FROM entities WHERE profile=?1 AND norm=?2", -1,
                                &find, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(
            s->db, "UPDATE memory_entities SET speaker=1 WHERE rid=?1 AND eid=?2", -1, &mark, NULL);
    while (rc == SQLITE_OK || rc == SQLITE_DONE) {
        if ((rc = sqlite3_step(mem)) != SQLITE_ROW)
            break;
        char norm[4 * STORE_NAME_MAX_BYTES + 8];
        const char *speaker = (const char *)sqlite3_column_text(mem, 2);
        if (!store_speaker_norm(speaker, norm, sizeof norm)) {
            rc = SQLITE_OK;
            continue;
        }
        sqlite3_bind_value(find, 1, sqlite3_column_value(mem, 1));
        sqlite3_bind_text(find, 2, norm, -1, SQLITE_STATIC);
        rc = sqlite3_step(find);
        int64_t eid = rc == SQLITE_ROW ? sqlite3_column_int64(find, 0) : 0;
        sqlite3_reset(find);
        if (rc == SQLITE_ROW) {
            sqlite3_bind_int64(mark, 1, sqlite3_column_int64(mem, 0));
            sqlite3_bind_int64(mark, 2, eid);
            rc = sqlite3_step(mark);
            sqlite3_reset(mark);
        }
    }
    sqlite3_finalize(mem);
    sqlite3_finalize(find);
    sqlite3_finalize(mark);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "marking the speakers' links", err);
    return MS_OK;
}

/* Delete the kept edge that a derived one gives again, key and weight. */
typedef struct unkeep {
    sqlite3_stmt *del;
    int rc;
} unkeep;

static int unkeep_edge(void *p, const store_edge *e)
{
    unkeep *u = p;
    sqlite3_bind_int64(u->del, 1, e->src);
    sqlite3_bind_int64(u->del, 2, e->dst);
    sqlite3_bind_int(u->del, 3, e->type);
    sqlite3_bind_double(u->del, 4, e->weight);
    u->rc = sqlite3_step(u->del);
    sqlite3_reset(u->del);
    return u->rc != SQLITE_DONE;
}

ms_status store_graph_upgrade(store *s, ms_error *err)
{
    int64_t has = 0;
    ms_status code = store_query_int(
        s, "SELECT count(*) FROM pragma_table_info('memory_entities') WHERE name='speaker'", &has,
        err);
    if (!code && !has)
        code = store_exec(
            s, "ALTER TABLE memory_entities ADD COLUMN speaker INTEGER NOT NULL DEFAULT 0", err);
    if (!code)
        code = mark_speakers(s, err);
    if (code)
        return code;
    unkeep u = {NULL, SQLITE_DONE};
    sqlite3_stmt *profiles = NULL;
    int rc = sqlite3_prepare_v2(s->db,
                                "DELETE FROM edges WHERE src=?1 AND dst=?2 AND type=?3"
                                " AND weight=?4",
                                -1, &u.del, NULL);
    if (rc == SQLITE_OK)
        rc =
            sqlite3_prepare_v2(s->db, "SELECT DISTINCT profile FROM memories", -1, &profiles, NULL);
    int64_t n = 0;
    if (rc == SQLITE_OK)
        code = store_profile_count(s, &n, err);
    while (rc == SQLITE_OK && !code && (rc = sqlite3_step(profiles)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        code = store_graph_scan(s, (const char *)sqlite3_column_text(profiles, 0), n == 1,
                                unkeep_edge, &u, err);
        if (!code && u.rc != SQLITE_DONE)
            rc = u.rc;
    }
    sqlite3_finalize(profiles);
    sqlite3_finalize(u.del);
    if (!code && rc != SQLITE_DONE)
        code = store_sql_fail(s, rc, "upgrading the edges", err);
    return code;
}
