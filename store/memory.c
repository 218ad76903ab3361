/* memory.c - writing, reading and deleting memories; edges; entities. */
#include "store_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void store_memory_init(store_memory *m)
{
    memset(m, 0, sizeof *m);
    m->memory_confidence = 0.7;
    m->trust_alpha = 1.0;
    m->trust_beta = 1.0;
    m->importance = 0.5;
    m->event_ts = STORE_TS_NONE;
    m->might_state = -1;
}

void store_memory_clear(store_memory *m)
{
    free(m->id);
    free(m->profile);
    free(m->content);
    free(m->created_at);
    free(m->event_time);
    free(m->speaker);
    free(m->session);
    free(m->source);
    free(m->last_accessed);
    for (size_t i = 0; i < m->n_entities; i++)
        free(m->entities[i]);
    free(m->entities);
    free(m->embedding);
    free(m->embedder_id);
    free(m->metadata);
    free(m->superseded_by);
    free(m->superseded_at);
    free(m->superseded_reason);
    free(m->vector_model);
    free(m->words);
    store_memory_init(m);
}

double store_trust_score(const store_memory *m)
{
    return m->trust_alpha / (m->trust_alpha + m->trust_beta);
}

int store_is_superseded(const store_memory *m)
{
    return m->superseded_by != NULL || m->superseded_at != NULL;
}

void store_supersession_text(const char *by, const char *at, char *buf, size_t cap)
{
    if (!cap)
        return;
    buf[0] = '\0';
    if (!by && !at)
        return;
    int n = snprintf(buf, cap, "superseded");
    if (by && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, " by %s", by);
    if (at && n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, " (%.10s)", at);
}

/* ---- validation -------------------------------------------------------- */

static ms_status check_text(const char *field, const char *v, size_t max, int required,
                            ms_error *err)
{
    if (!v) {
        if (required)
            return ms_fail(err, MS_PARSE, "missing \"%s\"", field);
        return MS_OK;
    }
    size_t n = strlen(v);
    if (required && n == 0)
        return ms_fail(err, MS_PARSE, "\"%s\" is empty", field);
    if (n > max)
        return ms_fail(err, MS_LIMIT, "\"%s\" is %zu bytes; the limit is %zu", field, n, max);
    long bad = store_utf8_invalid_at(v, n);
    if (bad >= 0)
        return ms_fail(err, MS_PARSE, "\"%s\" holds invalid UTF-8 at byte %ld", field, bad);
    return MS_OK;
}

/* v in the fewest digits that read back as v: 1.0000001, never "1". */
static const char *shortest(double v, char buf[32])
{
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, 32, "%.*g", p, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return buf;
}

static ms_status check_unit(const char *field, double v, ms_error *err)
{
    char num[32];
    if (!isfinite(v) || v < 0 || v > 1)
        return ms_fail(err, MS_PARSE, "\"%s\" must be a number from 0 to 1 (got %s)", field,
                       shortest(v, num));
    return MS_OK;
}

static ms_status check_time(const char *field, const char *v, int64_t *ts, ms_error *err)
{
    int bad = store_parse_time(v, ts);
    if (bad == -2)
        return ms_fail(err, MS_PARSE,
                       "\"%s\" is outside the years 0000 to 9999 (in UTC), which memscope "
                       "stores",
                       field);
    if (bad)
        return ms_fail(err, MS_PARSE, "\"%s\" is not an ISO 8601 time like 2023-05-08T13:56:00Z",
                       field);
    return MS_OK;
}

static ms_status validate(const store_memory *m, ms_error *err)
{
    ms_status st = check_text("content", m->content, STORE_CONTENT_MAX, 1, err);
    if (!st && m->id)
        st = check_text("id", m->id, STORE_ID_MAX, 1, err);
    if (!st)
        st = check_text("speaker", m->speaker, STORE_FIELD_MAX, 0, err);
    if (!st)
        st = check_text("session", m->session, STORE_FIELD_MAX, 0, err);
    if (!st)
        st = check_text("source", m->source, STORE_FIELD_MAX, 0, err);
    if (!st)
        st = check_text("metadata", m->metadata, STORE_METADATA_MAX, 0, err);
    if (!st)
        st = check_text("superseded_by", m->superseded_by, STORE_ID_MAX, 0, err);
    if (!st)
        st = check_text("superseded_reason", m->superseded_reason, STORE_FIELD_MAX, 0, err);
    if (!st)
        st = check_unit("memory_confidence", m->memory_confidence, err);
    if (!st)
        st = check_unit("importance", m->importance, err);
    if (st)
        return st;
    if (!isfinite(m->trust_alpha) || !isfinite(m->trust_beta) || m->trust_alpha <= 0 ||
        m->trust_beta <= 0 || m->trust_alpha > 1e9 || m->trust_beta > 1e9)
        return ms_fail(err, MS_PARSE,
                       "\"trust\" alpha and beta must be numbers above 0 and "
                       "at most 1e9 (got %g, %g)",
                       m->trust_alpha, m->trust_beta);
    if (m->n_entities > STORE_ENTITIES_MAX)
        return ms_fail(err, MS_LIMIT, "\"entities\" has %zu names; the limit is %d", m->n_entities,
                       STORE_ENTITIES_MAX);
    for (size_t i = 0; i < m->n_entities; i++)
        if ((st = check_text("entities", m->entities[i], 96, 1, err)))
            return st;
    if (m->embedding && (m->dim <= 0 || m->dim > STORE_DIM_MAX))
        return ms_fail(err, MS_LIMIT, "\"embedding\" has %d numbers; 1 to %d are allowed", m->dim,
                       STORE_DIM_MAX);
    if (m->embedding)
        for (int i = 0; i < m->dim; i++)
            if (!isfinite(m->embedding[i]))
                return ms_fail(err, MS_PARSE, "\"embedding\" element %d is not finite", i);
    return MS_OK;
}

/* ---- writing ----------------------------------------------------------- */

static ms_status bind_fields(sqlite3_stmt *st, store *s, const store_memory *m,
                             const char *created_at, int64_t created_ts, const char *event_time,
                             int64_t event_ts)
{
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, m->id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, m->content, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, s->ptag, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, created_at, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, created_ts);
    if (event_time) {
        sqlite3_bind_text(st, 7, event_time, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 8, event_ts);
    }
    if (m->speaker)
        sqlite3_bind_text(st, 9, m->speaker, -1, SQLITE_STATIC);
    if (m->session)
        sqlite3_bind_text(st, 10, m->session, -1, SQLITE_STATIC);
    if (m->source)
        sqlite3_bind_text(st, 11, m->source, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 12, m->memory_confidence);
    sqlite3_bind_double(st, 13, m->trust_alpha);
    sqlite3_bind_double(st, 14, m->trust_beta);
    sqlite3_bind_double(st, 15, m->importance);
    sqlite3_bind_int(st, 16, m->pinned != 0);
    sqlite3_bind_int64(st, 17, m->access_count);
    if (m->last_accessed)
        sqlite3_bind_text(st, 18, m->last_accessed, -1, SQLITE_STATIC);
    if (m->metadata)
        sqlite3_bind_text(st, 20, m->metadata, -1, SQLITE_STATIC);
    if (m->superseded_by)
        sqlite3_bind_text(st, 21, m->superseded_by, -1, SQLITE_STATIC);
    if (m->superseded_at)
        sqlite3_bind_text(st, 22, m->superseded_at, -1, SQLITE_STATIC);
    if (m->superseded_reason)
        sqlite3_bind_text(st, 23, m->superseded_reason, -1, SQLITE_STATIC);
    return MS_OK;
}

/* m->metadata must be a JSON object; it is replaced by its minified form
 * (SQLite's json()), so that equal objects are stored alike. */
static ms_status normalise_metadata(store *s, store_memory *m, ms_error *err)
{
    if (!m->metadata)
        return MS_OK;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, "SELECT json_type(?1), json(?1) WHERE json_valid(?1)", -1,
                                &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading metadata", err);
    sqlite3_bind_text(st, 1, m->metadata, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    const char *type = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    char *norm = type && strcmp(type, "object") == 0 ? store_col_text(st, 1) : NULL;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "reading metadata", err);
    if (!norm)
        return ms_fail(err, MS_PARSE, "\"metadata\" must be a JSON object {\"key\": value, ...}");
    free(m->metadata);
    m->metadata = norm;
    return MS_OK;
}

/* m->superseded_at, normalised like created_at. */
static ms_status normalise_superseded_at(store_memory *m, ms_error *err)
{
    int64_t ts;
    if (!m->superseded_at)
        return MS_OK;
    ms_status st = check_time("superseded_at", m->superseded_at, &ts, err);
    if (st)
        return st;
    char buf[32];
    store_format_time(ts, buf, sizeof buf);
    char *d = store_strdup(buf);
    if (!d)
        return ms_fail(err, MS_NOMEM, "out of memory");
    free(m->superseded_at);
    m->superseded_at = d;
    return MS_OK;
}

static ms_status find_rid(store *s, const char *id, int64_t *rid, ms_error *err)
{
    sqlite3_stmt *st = store_stmt(s, ST_FIND_ID, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    *rid = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "looking up an id", err);
    return MS_OK;
}

static ms_status duplicate(store *s, const char *id, ms_error *err)
{
    return ms_fail(err, MS_DUPLICATE,
                   "id \"%s\" already exists in profile \"%s\" (see --on-duplicate)", id,
                   s->profile);
}

/* A fresh id "m" + time + counter, unique in the profile. */
static ms_status generate_id(store *s, store_memory *m, ms_error *err)
{
    static unsigned counter;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    for (int tries = 0; tries < 1000; tries++) {
        char buf[48];
        snprintf(buf, sizeof buf, "m%llx%04x",
                 (unsigned long long)now.tv_sec * 1000ull +
                     (unsigned long long)now.tv_nsec / 1000000,
                 (counter++) & 0xffff);
        int64_t rid;
        ms_status st = find_rid(s, buf, &rid, err);
        if (st)
            return st;
        if (!rid) {
            m->id = store_strdup(buf);
            return m->id ? MS_OK : ms_fail(err, MS_NOMEM, "out of memory");
        }
    }
    return ms_fail(err, MS_DUPLICATE, "could not generate a unique id");
}

/* Add an edge, or strengthen it when it exists. With a batch (b is the
 * memory being appended, a an earlier one, and no other edge of this type
 * joins them: a new row) it is noted there, to be written with the
 * memory's other new edges (store_edges_write). */
static ms_status add_edge(store *s, store_edge_batch *batch, int64_t a, int64_t b, int type,
                          double w, ms_error *err)
{
    if (a == b)
        return MS_OK;
    if (batch && a < b && batch->n < STORE_EDGE_BATCH_MAX) {
        batch->src[batch->n] = a;
        batch->type[batch->n] = type;
        batch->w[batch->n++] = w;
        return MS_OK;
    }
    sqlite3_stmt *st = store_stmt(s, batch ? ST_EDGE_ADD : ST_EDGE_UPSERT, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_int64(st, 1, a < b ? a : b);
    sqlite3_bind_int64(st, 2, a < b ? b : a);
    sqlite3_bind_int(st, 3, type);
    sqlite3_bind_double(st, 4, w);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "adding an edge", err);
    return MS_OK;
}

/* Is memory rid of another session than m (or either of none)? Its
 * session from the write cache, else from its row. -1 on an error. */
static int other_session(store *s, const store_memory *m, int64_t rid, ms_error *err)
{
    const char *session = NULL;
    if (!m->session)
        return 1;
    if (store_wcache_session_of(s, rid, &session))
        return !session || strcmp(session, m->session) != 0;
    sqlite3_stmt *st = store_stmt(s, ST_SESSION_OF, err);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, rid);
    int rc = sqlite3_step(st);
    const char *t = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    int other = !t || strcmp(t, m->session) != 0;
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        store_sql_fail(s, rc, "finding events close in time", err);
        return -1;
    }
    return other;
}

/* Up to two events nearest m's among those of stmt (ST_TIME_AFTER or
 * ST_TIME_BEFORE: one side of m's event time, nearest first), not m and
 * not of its session, appended to near[]/when[] from *n. */
static ms_status near_side(store *s, const store_memory *m, enum stmt_id which, int64_t near[4],
                           int64_t when[4], int *n, ms_error *err)
{
    sqlite3_stmt *st = store_stmt(s, which, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, which == ST_TIME_AFTER ? 3 : 2,
                       which == ST_TIME_AFTER ? m->event_ts + 86400 : m->event_ts - 86400);
    sqlite3_bind_int64(st, 6, m->event_ts);
    int rc, taken = 0, other = 1;
    while (taken < 2 && *n < 4 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t rid = sqlite3_column_int64(st, 0);
        if (rid == m->rid || !(other = other_session(s, m, rid, err)))
            continue;
        if (other < 0)
            break;
        near[*n] = rid;
        when[(*n)++] = sqlite3_column_int64(st, 1);
        taken++;
    }
    if (taken == 2 || *n == 4 || other < 0)
        rc = SQLITE_DONE;
    sqlite3_reset(st);
    if (other < 0)
        return err ? err->code : MS_SQL;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "finding events close in time", err);
    return MS_OK;
}

/* Does candidate i come before j: nearer m's event, then the smaller rid? */
static int nearer(const int64_t *near, const int64_t *when, int64_t t, int i, int j)
{
    int64_t di = when[i] > t ? when[i] - t : t - when[i];
    int64_t dj = when[j] > t ? when[j] - t : t - when[j];
    return di != dj ? di < dj : near[i] < near[j];
}

/* Temporal proximity: the two events nearest m's within a day, in other
 * sessions (ties to the smaller rid), weight falling linearly from 0.5 to
 * 0.1 across the day. The two nearest overall are among the two nearest
 * on each side, so each side reads at most two rows that qualify. */
static ms_status temporal_edges(store *s, const store_memory *m, store_edge_batch *batch,
                                ms_error *err)
{
    int64_t near[4], when[4];
    int n = 0;
    ms_status code = near_side(s, m, ST_TIME_AFTER, near, when, &n, err);
    if (!code)
        code = near_side(s, m, ST_TIME_BEFORE, near, when, &n, err);
    for (int i = 0; !code && i < n && i < 2; i++) {
        int best = i;
        for (int j = i + 1; j < n; j++)
            if (nearer(near, when, m->event_ts, j, best))
                best = j;
        int64_t r = near[best], w = when[best];
        near[best] = near[i], when[best] = when[i];
        near[i] = r, when[i] = w;
        double dt = fabs((double)(when[i] - m->event_ts)) / 86400.0;
        code = add_edge(s, batch, near[i], m->rid, STORE_EDGE_TEMPORAL, 0.5 - 0.4 * dt, err);
    }
    return code;
}

/* The entities linked to rid, into *eids (the caller frees it). */
static ms_status linked_eids(store *s, int64_t rid, int64_t **eids, size_t *n, ms_error *err)
{
    *eids = NULL;
    *n = 0;
    sqlite3_stmt *st = store_stmt(s, ST_LINKED_EIDS, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_int64(st, 1, rid);
    size_t cap = 0;
    int rc;
    ms_status code = MS_OK;
    while (!code && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            int64_t *g = realloc(*eids, cap * sizeof *g);
            if (!g) {
                code = ms_fail(err, MS_NOMEM, "out of memory");
                break;
            }
            *eids = g;
        }
        (*eids)[(*n)++] = sqlite3_column_int64(st, 0);
    }
    if (!code && rc != SQLITE_DONE)
        code = store_sql_fail(s, rc, "reading a memory's entities", err);
    sqlite3_reset(st);
    if (code) {
        free(*eids);
        *eids = NULL;
        *n = 0;
    }
    return code;
}

/* Delete those of eids[n] no memory links to any more: a forgotten
 * memory's names do not stay behind in the entity table. */
static ms_status drop_orphans(store *s, const int64_t *eids, size_t n, ms_error *err)
{
    sqlite3_stmt *st = n ? store_stmt(s, ST_ENTITY_DROP, err) : NULL;
    if (n && !st)
        return err ? err->code : MS_SQL;
    for (size_t i = 0; i < n; i++) {
        sqlite3_bind_int64(st, 1, eids[i]);
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc != SQLITE_DONE)
            return store_sql_fail(s, rc, "deleting an entity", err);
    }
    return MS_OK;
}

/* Drop what store_put derives, before a replacement derives it again. */
static ms_status forget_derived(store *s, int64_t rid, int keep_session, ms_error *err)
{
    char sql[200];
    snprintf(sql, sizeof sql,
             "DELETE FROM memory_entities WHERE rid=%lld;"
             "DELETE FROM edges WHERE (src=%lld OR dst=%lld) AND type<>%d;",
             (long long)rid, (long long)rid, (long long)rid,
             keep_session ? STORE_EDGE_SESSION : -1);
    return store_exec(s, sql, err);
}

/* Record the vectorizer as the store's embedder when it is not yet. */
static ms_status adopt_embedder(store *s, ms_error *err)
{
    if (!s->embedder_id || strcmp(s->embedder_id, s->vz.id) != 0 || s->embedder_dim != s->vz.dim)
        return store_set_embedder(s, s->vz.id, s->vz.dim, err);
    return MS_OK;
}

static ms_status queue_vector(store *s, const store_memory *m, int fresh, ms_error *err)
{
    if (s->n_pending == s->cap_pending) {
        size_t cap = s->cap_pending ? 2 * s->cap_pending : 64;
        pending_vec *p = realloc(s->pending, cap * sizeof *p);
        if (!p)
            return ms_fail(err, MS_NOMEM, "out of memory queueing vectors");
        s->pending = p;
        s->cap_pending = cap;
    }
    char *text = store_strdup(m->content);
    if (!text)
        return ms_fail(err, MS_NOMEM, "out of memory queueing vectors");
    s->pending[s->n_pending].rid = m->rid;
    s->pending[s->n_pending].text = text;
    s->pending[s->n_pending].fresh = fresh;
    s->n_pending++;
    if (s->n_pending < s->vz.batch)
        return MS_OK;
    if (!s->vz.background)
        return store_flush_vectors(s, err);
    ms_status st = adopt_embedder(s, err);
    return st ? st : store_vjob_start(s, err);
}

/* Does a given vector fit the store's recorded embedder? Checked before
 * anything is written. */
static ms_status check_given_vector(const store *s, const store_memory *m, ms_error *err)
{
    const char *id = m->embedder_id ? m->embedder_id : "given";
    if (!m->embedding || !s->embedder_id)
        return MS_OK;
    if (strcmp(s->embedder_id, id) != 0 || s->embedder_dim != m->dim)
        return ms_fail(err, MS_EMBEDDER,
                       "\"embedding\" is from embedder %s with %d dimensions, but the store's "
                       "vectors are from %s with %d (use --embedder-id, or `memscope reembed`)",
                       id, m->dim, s->embedder_id, s->embedder_dim);
    return MS_OK;
}

static ms_status put_given_vector(store *s, const store_memory *m, ms_error *err)
{
    const char *id = m->embedder_id ? m->embedder_id : "given";
    ms_status st =
        s->embedder_id ? check_given_vector(s, m, err) : store_set_embedder(s, id, m->dim, err);
    if (st)
        return st;
    return store_put_vector(s, m->rid, m->embedding, m->dim, err);
}

/* Entities, links and temporal edges of m (the session and entity edges
 * are derived when read: graph.c). append: m is new and the newest row. */
static ms_status derive_graph(store *s, store_memory *m, int fresh, int keep_session, int append,
                              ms_error *err)
{
    int64_t *old = NULL; /* a replacement's entities before */
    size_t n_old = 0;
    ms_status st = fresh ? MS_OK : linked_eids(s, m->rid, &old, &n_old, err);
    if (!st && !fresh)
        st = forget_derived(s, m->rid, keep_session, err);
    /* an appended memory's new edges go in together, after its links */
    store_edge_batch edges;
    edges.n = 0;
    store_edge_batch *batch = append ? &edges : NULL;
    if (!st)
        st = store_link_entities(s, m, append, err);
    if (!st) /* names the new text no longer has, unless others link them */
        st = drop_orphans(s, old, n_old, err);
    free(old);
    if (!st && m->event_ts != STORE_TS_NONE)
        st = temporal_edges(s, m, batch, err);
    if (!st && batch)
        st = store_edges_write(s, m->rid, batch, err);
    return st;
}

/* Is rid the newest memory of the store (no row has a larger rid)? Known
 * without asking when it follows the newest one appended before it. */
static int newest_row(store *s, int64_t rid)
{
    int newest = store_wcache_newest(s, rid);
    sqlite3_stmt *st = newest ? NULL : store_stmt(s, ST_NEWER, NULL);
    if (st) {
        sqlite3_bind_int64(st, 1, rid);
        newest = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 0;
        sqlite3_reset(st);
    }
    if (newest)
        store_wcache_set_newest(s, rid);
    return newest;
}

static ms_status derive_vector(store *s, const store_memory *m, int fresh, ms_error *err)
{
    if (m->embedding)
        return put_given_vector(s, m, err);
    if (s->have_vectorizer)
        return queue_vector(s, m, fresh, err);
    return MS_OK;
}

/* Has the session of an existing memory changed? */
static int same_session(store *s, int64_t rid, const char *session)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "SELECT session IS ?2 FROM memories WHERE rid=?1", -1, &st,
                           NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, rid);
    if (session)
        sqlite3_bind_text(st, 2, session, -1, SQLITE_STATIC);
    int same = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return same;
}

/* Are the inputs of entities and edges (content, speaker, session, event
 * time, given entities) of the existing memory rid those of m? Then a
 * replacement keeps its links and edges: deriving them again would see
 * another store than the first time (entities known since) and would lose
 * the edges that later memories made to it. */
static int same_graph_inputs(store *s, int64_t rid, const store_memory *m, int64_t event_ts)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db,
                           "SELECT content IS ?2 AND speaker IS ?3 AND session IS ?4"
                           " AND event_ts IS ?5 FROM memories WHERE rid=?1",
                           -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, rid);
    sqlite3_bind_text(st, 2, m->content, -1, SQLITE_STATIC);
    if (m->speaker)
        sqlite3_bind_text(st, 3, m->speaker, -1, SQLITE_STATIC);
    if (m->session)
        sqlite3_bind_text(st, 4, m->session, -1, SQLITE_STATIC);
    if (event_ts != STORE_TS_NONE)
        sqlite3_bind_int64(st, 5, event_ts);
    int same = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return same && store_given_entities_match(s, rid, m);
}

/* The session of memory rid and its neighbours there. *session is NULL
 * when it has none; the caller frees it. */
static ms_status old_neighbours(store *s, int64_t rid, char **session, int64_t *prev, int64_t *next,
                                ms_error *err)
{
    *session = NULL;
    *prev = *next = 0;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, "SELECT session FROM memories WHERE rid=?1", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading a session", err);
    sqlite3_bind_int64(st, 1, rid);
    if (sqlite3_step(st) == SQLITE_ROW)
        *session = store_col_text(st, 0);
    sqlite3_finalize(st);
    return store_context_neighbours(s, rid, *session, prev, next, err);
}

/* *appended: m was a new memory, the newest row (what it derives touches
 * older rows only as appends do: store_key.rewritten). */
static ms_status put_memory(store *s, store_memory *m, store_dup_policy dup, store_put_result *res,
                            int *appended, ms_error *err)
{
    ms_status st = store_require_writable(s, "write memories", err);
    if (st)
        return st;
    if ((st = validate(m, err)) || (st = check_given_vector(s, m, err)) ||
        (st = normalise_metadata(s, m, err)) || (st = normalise_superseded_at(m, err)))
        return st;
    if (!s->in_txn) /* another process may write between two such puts */
        store_wcache_clear(s);
    char created[32], event[32];
    int64_t created_ts, event_ts = STORE_TS_NONE;
    if (m->created_at) {
        if ((st = check_time("created_at", m->created_at, &created_ts, err)))
            return st;
    } else {
        created_ts = (int64_t)time(NULL);
    }
    store_format_time(created_ts, created, sizeof created);
    if (m->event_time) {
        if ((st = check_time("event_time", m->event_time, &event_ts, err)))
            return st;
        store_format_time(event_ts, event, sizeof event);
    }
    m->created_ts = created_ts;
    m->event_ts = event_ts;
    int64_t existing = 0;
    if (!m->id)
        st = generate_id(s, m, err);
    else if (dup != STORE_DUP_ERROR) /* with ERROR, the insert's UNIQUE says it */
        st = find_rid(s, m->id, &existing, err);
    if (st)
        return st;
    if (existing && dup == STORE_DUP_ERROR)
        return duplicate(s, m->id, err);
    if (existing && dup == STORE_DUP_SKIP) {
        m->rid = existing;
        if (res)
            *res = STORE_PUT_SKIPPED;
        return MS_OK;
    }
    int keep_session = existing ? same_session(s, existing, m->session) : 0;
    int keep_graph = existing && same_graph_inputs(s, existing, m, event_ts);
    /* a replacement that leaves its session leaves a gap to close there */
    int64_t old_prev = 0, old_next = 0;
    char *old_session = NULL;
    if (existing && !keep_session &&
        (st = old_neighbours(s, existing, &old_session, &old_prev, &old_next, err)))
        return st;
    if (existing)
        store_wcache_clear(s); /* only appends keep it */
    if (existing && (st = store_fts_pending(s, existing, err))) {
        free(old_session);
        return st;
    }
    /* a new turn of a session: its neighbour text goes in with it (the turn
     * before it is the newest of the session while rows are appended) */
    int64_t prev[2];
    int n_prev = -1;
    char *context = NULL;
    if (!existing && m->session && (st = store_context_new(s, m, prev, &n_prev, &context, err)))
        return st;
    sqlite3_stmt *q = store_stmt(s, existing ? ST_UPDATE : ST_INSERT, err);
    if (!q) {
        free(context);
        return err ? err->code : MS_SQL;
    }
    bind_fields(q, s, m, created, created_ts, m->event_time ? event : NULL, event_ts);
    if (!existing && context)
        sqlite3_bind_text(q, 19, context, -1, SQLITE_STATIC);
    int rc = sqlite3_step(q);
    free(context);
    if (rc == SQLITE_CONSTRAINT_UNIQUE && !existing) { /* (profile, id): nothing written */
        sqlite3_reset(q);
        return duplicate(s, m->id, err);
    }
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "writing a memory", err);
    m->rid = existing ? existing : sqlite3_last_insert_rowid(s->db);
    if (res)
        *res = existing ? STORE_PUT_REPLACED : STORE_PUT_INSERTED;
    st = existing ? MS_OK : store_fts_inserted(s, m->rid, err);
    if (!st)
        st = store_fact_candidate_put(s, m, err);
    if (!st && !existing)
        st = store_note_fact(s, m, err);
    else if (existing)
        s->facts_on = 0; /* a text changed in place: supersession reads them all */
    /* appending (the usual import): the write cache may answer for the
     * tables, and the neighbour text needs fewer queries */
    int append = !existing && newest_row(s, m->rid);
    *appended = append;
    if (!existing && !append) {
        store_wcache_clear(s);
        n_prev = -1; /* not the turns before it after all: look again */
    }
    if (append && event_ts != STORE_TS_NONE) /* a later event's candidate */
        store_wcache_set_session_of(s, m->rid, m->session);
    if (!st && !keep_graph)
        st = derive_graph(s, m, !existing, keep_session, append, err);
    if (!st && append && m->session && n_prev >= 0)
        st = store_context_appended(s, m, prev, n_prev, err);
    else if (!st)
        st = store_context_written(s, m->rid, m->session, err);
    if (!st && old_session)
        st = store_context_refresh(s, old_prev, old_session, err);
    if (!st && old_session)
        st = store_context_refresh(s, old_next, old_session, err);
    free(old_session);
    if (!st)
        st = derive_vector(s, m, !existing, err);
    /* no commit to wait for, or enough waiting that an import of any size
     * stays in bounded memory: index now */
    if (!st && s->in_txn && s->fts_n >= s->fts_pending_max)
        st = store_fts_long_begin(s, err);
    if (!st && !s->in_txn)
        st = store_fts_flush(s, err);
    else if (!st && s->fts_n >= s->fts_pending_max)
        st = store_fts_flush_keeping(s, m->rid, err);
    return st;
}

ms_status store_put(store *s, store_memory *m, store_dup_policy dup, store_put_result *res,
                    ms_error *err)
{
    int solo, appended = 0;
    if (!s->in_txn)
        s->hint = NULL; /* the next put is a transaction of its own */
    ms_status st = store_solo_begin(s, &solo, err);
    int64_t changes = sqlite3_total_changes64(s->db);
    int64_t guessed = s->guess_rid;
    s->putting = 1;
    if (!st)
        st = put_memory(s, m, dup, res, &appended, err);
    s->putting = 0;
    s->hint = NULL;
    free(s->guess_made); /* a row that did not stay the newest was corrected */
    s->guess_made = NULL;
    if (!st && appended)
        s->appended += sqlite3_total_changes64(s->db) - changes;
    /* the put was not the turn the row before guessed */
    if (!st && guessed && s->guess_rid == guessed)
        st = store_context_settle(s, err);
    return store_solo_end(s, solo, st, err);
}

void store_put_hint(store *s, const store_memory *next)
{
    s->hint = next;
}

/* ---- vectors ----------------------------------------------------------- */

void store_set_vectorizer(store *s, const store_vectorizer *v)
{
    s->have_vectorizer = v != NULL;
    if (v) {
        s->vz = *v;
        if (s->vz.batch == 0)
            s->vz.batch = 1;
    }
}

ms_status store_flush_vectors(store *s, ms_error *err)
{
    ms_status st = store_vjob_finish(s, err);
    if (s->n_pending == 0)
        return st;
    if (st || !s->have_vectorizer)
        goto done;
    st = adopt_embedder(s, err);
    float *out = st ? NULL : malloc(s->n_pending * (size_t)s->vz.dim * sizeof *out);
    const char **texts = st ? NULL : malloc(s->n_pending * sizeof *texts);
    if (!st && (!out || !texts))
        st = ms_fail(err, MS_NOMEM, "out of memory computing vectors");
    for (size_t i = 0; !st && i < s->n_pending; i++)
        texts[i] = s->pending[i].text;
    if (!st)
        st = s->vz.embed(s->vz.ctx, texts, s->n_pending, out, err);
    for (size_t i = 0; !st && i < s->n_pending; i++) {
        unsigned char blob[STORE_DIM_MAX * sizeof(float)];
        size_t len = store_vec_encode(out + i * (size_t)s->vz.dim, s->vz.dim, blob);
        st = store_vector_write(s, s->pending[i].rid, blob, len, s->vz.dim, s->pending[i].fresh,
                                err);
    }
    free(out);
    free(texts);
done:
    for (size_t i = 0; i < s->n_pending; i++)
        free(s->pending[i].text);
    s->n_pending = 0;
    return st;
}

/* Is rid a memory of the profile? Rows that name a memory are written only
 * for one that is (foreign keys are the store's to keep: store.c). */
static ms_status require_memory(store *s, int64_t rid, const char *what, ms_error *err)
{
    sqlite3_stmt *st = store_stmt(s, ST_RID_EXISTS, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_int64(st, 1, rid);
    sqlite3_bind_text(st, 2, s->profile, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    int found = rc == SQLITE_ROW && sqlite3_column_int(st, 0);
    sqlite3_reset(st);
    if (rc != SQLITE_ROW)
        return store_sql_fail(s, rc, what, err);
    if (!found)
        return ms_fail(err, MS_NOT_FOUND, "%s: memory #%lld is not in profile \"%s\" (deleted?)",
                       what, (long long)rid, s->profile);
    return MS_OK;
}

static ms_status put_vector(store *s, int64_t rid, const float *v, int dim, ms_error *err)
{
    if (dim <= 0 || dim > STORE_DIM_MAX)
        return ms_fail(err, MS_USAGE, "a vector has 1 to %d dimensions", STORE_DIM_MAX);
    ms_status st = store_require_writable(s, "write a vector", err);
    if (!st)
        st = require_memory(s, rid, "writing a vector", err);
    if (st)
        return st;
    unsigned char blob[STORE_DIM_MAX * sizeof(float)];
    size_t len = store_vec_encode(v, dim, blob);
    return store_vector_write(s, rid, blob, len, dim, 0, err);
}

ms_status store_put_vector(store *s, int64_t rid, const float *v, int dim, ms_error *err)
{
    int solo;
    ms_status st = store_solo_begin(s, &solo, err);
    if (!st)
        st = put_vector(s, rid, v, dim, err);
    return store_solo_end(s, solo, st, err);
}

ms_status store_vector_write(store *s, int64_t rid, const unsigned char *blob, size_t len, int dim,
                             int fresh, ms_error *err)
{
    if (!s->embedder_id || dim != s->embedder_dim)
        return ms_fail(err, MS_USAGE,
                       "vector of %d dimensions does not fit the store's "
                       "embedder (%d)",
                       dim, s->embedder_dim);
    sqlite3_stmt *st = store_stmt(s, fresh ? ST_VECTOR_ADD : ST_VECTOR_PUT, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_int64(st, 1, rid);
    sqlite3_bind_blob(st, 2, blob, (int)len, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_CONSTRAINT_PRIMARYKEY && fresh) /* there was one after all */
        return store_vector_write(s, rid, blob, len, dim, 0, err);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "writing a vector", err);
    return MS_OK;
}

/* ---- reading ----------------------------------------------------------- */

/* Fill m from a row of STORE_MEM_COLS (store_int.h). */
static ms_status row_to_memory(store *s, sqlite3_stmt *st, store_memory *m)
{
    store_memory_init(m);
    m->rid = sqlite3_column_int64(st, 0);
    m->profile = store_col_text(st, 1);
    m->id = store_col_text(st, 2);
    m->content = store_col_text(st, 3);
    m->created_at = store_col_text(st, 4);
    m->created_ts = sqlite3_column_int64(st, 5);
    m->event_time = store_col_text(st, 6);
    m->event_ts =
        sqlite3_column_type(st, 7) == SQLITE_NULL ? STORE_TS_NONE : sqlite3_column_int64(st, 7);
    m->speaker = store_col_text(st, 8);
    m->session = store_col_text(st, 9);
    m->source = store_col_text(st, 10);
    m->memory_confidence = sqlite3_column_double(st, 11);
    m->trust_alpha = sqlite3_column_double(st, 12);
    m->trust_beta = sqlite3_column_double(st, 13);
    m->importance = sqlite3_column_double(st, 14);
    m->pinned = sqlite3_column_int(st, 15);
    m->access_count = sqlite3_column_int64(st, 16);
    m->last_accessed = store_col_text(st, 17);
    if (sqlite3_column_int(st, 18) && s->embedder_id) {
        m->vector_model = store_strdup(s->embedder_id);
        m->vector_dim = s->embedder_dim;
    }
    m->metadata = store_col_text(st, 19);
    m->superseded_by = store_col_text(st, 20);
    m->superseded_at = store_col_text(st, 21);
    m->superseded_reason = store_col_text(st, 22);
    if (!m->profile || !m->id || !m->content || !m->created_at)
        return MS_NOMEM;
    return MS_OK;
}

ms_status store_row_memory(store *s, sqlite3_stmt *st, store_memory *m)
{
    return row_to_memory(s, st, m);
}

static ms_status entities_of(store *s, int64_t rid, int given_only, store_entity **out, size_t *n,
                             ms_error *err);

/* m->entities from the links of m: all of them, or only the given ones. */
static ms_status fill_entities(store *s, store_memory *m, int given_only, ms_error *err)
{
    /* names only: counting each entity's memories (store_entities_of) costs
     * a scan of a speaker's every turn, for every memory read */
    sqlite3_stmt *st = store_stmt(s, ST_ENTITY_NAMES, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_int64(st, 1, m->rid);
    sqlite3_bind_int(st, 2, given_only ? 1 : 0);
    size_t cap = 0;
    int rc;
    ms_status code = MS_OK;
    while (!code && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (m->n_entities == cap) {
            cap = cap ? 2 * cap : 4;
            char **g = realloc(m->entities, cap * sizeof *g);
            if (!g) {
                code = ms_fail(err, MS_NOMEM, "out of memory");
                break;
            }
            m->entities = g;
        }
        if (!(m->entities[m->n_entities] = store_col_text(st, 0)))
            code = ms_fail(err, MS_NOMEM, "out of memory");
        else
            m->n_entities++;
    }
    if (!code && rc != SQLITE_DONE)
        code = store_sql_fail(s, rc, "reading entities", err);
    sqlite3_reset(st);
    return code;
}

ms_status store_get(store *s, const char *id, int64_t rid, store_memory *out, ms_error *err)
{
    store_memory_init(out);
    sqlite3_stmt *st = store_stmt(s, id ? ST_GET_ID : ST_GET_RID, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    if (id)
        sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
    else
        sqlite3_bind_int64(st, 2, rid);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE)
        return id ? ms_fail(err, MS_NOT_FOUND, "no memory with id \"%s\" in profile \"%s\"", id,
                            s->profile)
                  : ms_fail(err, MS_NOT_FOUND, "no memory #%lld in profile \"%s\"", (long long)rid,
                            s->profile);
    if (rc != SQLITE_ROW)
        return store_sql_fail(s, rc, "reading a memory", err);
    ms_status code = row_to_memory(s, st, out);
    sqlite3_reset(st);
    if (code)
        return ms_fail(err, code, "out of memory reading a memory");
    return fill_entities(s, out, 0, err);
}

/* store_get_rids for one chunk of n <= STORE_GET_BATCH rids. */
static ms_status get_chunk(store *s, const int64_t *rid, size_t n, store_memory *out, ms_error *err)
{
    sqlite3_stmt *st = store_stmt(s, ST_GET_RIDS, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    for (size_t k = 0; k < STORE_GET_BATCH; k++)
        if (k < n)
            sqlite3_bind_int64(st, (int)k + 2, rid[k]);
        else
            sqlite3_bind_null(st, (int)k + 2); /* matches nothing */
    int rc;
    ms_status code = MS_OK;
    while (!code && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t got = sqlite3_column_int64(st, 0);
        size_t k = 0;
        while (k < n && (rid[k] != got || out[k].id))
            k++;
        if (k < n && row_to_memory(s, st, &out[k]))
            code = ms_fail(err, MS_NOMEM, "out of memory reading a memory");
    }
    if (!code && rc != SQLITE_DONE)
        code = store_sql_fail(s, rc, "reading memories", err);
    sqlite3_reset(st);
    for (size_t k = 0; !code && k < n; k++)
        if (!out[k].id)
            code = ms_fail(err, MS_NOT_FOUND, "no memory #%lld in profile \"%s\"",
                           (long long)rid[k], s->profile);
    return code;
}

ms_status store_get_rids(store *s, const int64_t *rid, size_t n, store_memory *out, ms_error *err)
{
    for (size_t k = 0; k < n; k++)
        store_memory_init(&out[k]);
    ms_status code = MS_OK;
    for (size_t at = 0; !code && at < n; at += STORE_GET_BATCH)
        code = get_chunk(s, rid + at, n - at < STORE_GET_BATCH ? n - at : STORE_GET_BATCH, out + at,
                         err);
    return code;
}

/* The names of the entities given with memory rid, into m (owned). */
static ms_status given_entities(store *s, int64_t rid, store_memory *m, ms_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                "SELECT e.name FROM memory_entities me JOIN entities e ON"
                                " e.eid = me.eid WHERE me.rid=?1 AND me.given ORDER BY e.name",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading entities", err);
    sqlite3_bind_int64(st, 1, rid);
    size_t cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (m->n_entities == cap) {
            cap = cap ? 2 * cap : 8;
            char **v = realloc(m->entities, cap * sizeof *v);
            if (!v) {
                sqlite3_finalize(st);
                return ms_fail(err, MS_NOMEM, "out of memory");
            }
            m->entities = v;
        }
        m->entities[m->n_entities++] = store_col_text(st, 0);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? MS_OK : store_sql_fail(s, rc, "reading entities", err);
}

ms_status store_get_for_put(store *s, const char *id, store_memory *out, ms_error *err)
{
    ms_status st = store_get(s, id, 0, out, err);
    if (st)
        return st;
    for (size_t i = 0; i < out->n_entities; i++)
        free(out->entities[i]);
    free(out->entities);
    out->entities = NULL;
    out->n_entities = 0;
    free(out->vector_model); /* output only */
    out->vector_model = NULL;
    out->vector_dim = 0;
    st = given_entities(s, out->rid, out, err);
    if (st)
        store_memory_clear(out);
    return st;
}

void store_edit_fields_init(store_edit_fields *f)
{
    memset(f, 0, sizeof *f);
    f->memory_confidence = f->trust_alpha = f->trust_beta = -1;
}

/* Replace *field with a copy of text ("" = NULL when clearable). */
static ms_status edit_text(char **field, const char *text, int clearable, ms_error *err)
{
    if (!text)
        return MS_OK;
    char *copy = clearable && !*text ? NULL : strdup(text);
    if (!copy && !(clearable && !*text))
        return ms_fail(err, MS_NOMEM, "out of memory");
    free(*field);
    *field = copy;
    return MS_OK;
}

ms_status store_edit(store *s, const char *id, const store_edit_fields *f, ms_error *err)
{
    ms_status st = store_require_writable(s, "edit", err);
    if (st)
        return st;
    store_memory m;
    if ((st = store_get_for_put(s, id, &m, err)))
        return st;
    if (!(st = edit_text(&m.content, f->content, 0, err)) &&
        !(st = edit_text(&m.speaker, f->speaker, 1, err)) &&
        !(st = edit_text(&m.created_at, f->created_at, 0, err)))
        st = edit_text(&m.event_time, f->event_time, 1, err);
    if (f->memory_confidence >= 0)
        m.memory_confidence = f->memory_confidence;
    if (f->trust_alpha >= 0 || f->trust_beta >= 0) {
        m.trust_alpha = f->trust_alpha;
        m.trust_beta = f->trust_beta;
    }
    if (!st)
        st = store_put(s, &m, STORE_DUP_REPLACE, NULL, err);
    store_memory_clear(&m);
    return st;
}

static ms_status delete_memory(store *s, const char *id, ms_error *err)
{
    s->facts_on = 0; /* store_note_new_facts: a noted row may go */
    ms_status code = store_require_writable(s, "delete", err);
    if (code)
        return code;
    int64_t rid, prev, next;
    char *session = NULL;
    code = find_rid(s, id, &rid, err);
    if (!code && !rid)
        return ms_fail(err, MS_NOT_FOUND, "no memory with id \"%s\" in profile \"%s\"", id,
                       s->profile);
    if (!code)
        code = old_neighbours(s, rid, &session, &prev, &next, err);
    store_wcache_clear(s);
    if (!code)
        code = store_fts_forget(s, rid, err);
    int64_t *eids = NULL;
    size_t n_eids = 0;
    if (!code)
        code = linked_eids(s, rid, &eids, &n_eids, err);
    if (!code) { /* what ON DELETE CASCADE names, by hand (store.c configure) */
        char sql[400];
        snprintf(sql, sizeof sql,
                 "DELETE FROM vectors WHERE rid=%lld;"
                 "DELETE FROM memory_entities WHERE rid=%lld; DELETE FROM feedback WHERE rid=%lld;"
                 "DELETE FROM edges WHERE src=%lld; DELETE FROM edges WHERE dst=%lld;"
                 "DELETE FROM fact_candidates WHERE rid=%lld;",
                 (long long)rid, (long long)rid, (long long)rid, (long long)rid, (long long)rid,
                 (long long)rid);
        code = store_exec(s, sql, err);
    }
    if (!code)
        code = store_relations_forget(s, rid, id, err);
    if (!code)
        code = drop_orphans(s, eids, n_eids, err);
    free(eids);
    sqlite3_stmt *st = code ? NULL : store_stmt(s, ST_DELETE, err);
    if (!code && !st)
        code = err ? err->code : MS_SQL;
    if (!code) {
        sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
        int rc = sqlite3_step(st);
        if (rc != SQLITE_DONE)
            code = store_sql_fail(s, rc, "deleting a memory", err);
    }
    /* the turns on either side are neighbours of each other now */
    if (!code)
        code = store_context_refresh(s, prev, session, err);
    if (!code)
        code = store_context_refresh(s, next, session, err);
    if (!code && !s->in_txn)
        code = store_fts_flush(s, err);
    free(session);
    return code;
}

ms_status store_delete(store *s, const char *id, ms_error *err)
{
    int solo;
    ms_status st = store_solo_begin(s, &solo, err);
    if (!st)
        st = delete_memory(s, id, err);
    return store_solo_end(s, solo, st, err);
}

ms_status store_scan(store *s, int all_profiles, int with_entities, store_memory_fn fn, void *ctx,
                     ms_error *err)
{
    sqlite3_stmt *st;
    int v6 = store_has_v6(s);
    const char *sql =
        all_profiles
            ? (v6 ? "SELECT " STORE_MEM_COLS " FROM memories ORDER BY profile, rid"
                  : "SELECT " STORE_MEM_COLS_V5 " FROM memories ORDER BY profile, rid")
            : (v6 ? "SELECT " STORE_MEM_COLS " FROM memories NOT INDEXED WHERE profile=?1"
                    " ORDER BY rid"
                  : "SELECT " STORE_MEM_COLS_V5 " FROM memories NOT INDEXED WHERE profile=?1"
                    " ORDER BY rid");
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "listing memories", err);
    if (!all_profiles)
        sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    char saved[STORE_PROFILE_MAX + 1];
    memcpy(saved, s->profile, sizeof saved);
    ms_status code = MS_OK;
    while (!code && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_memory m;
        code = row_to_memory(s, st, &m);
        if (code)
            code = ms_fail(err, code, "out of memory listing memories");
        if (!code && with_entities) {
            store_use_profile(s, m.profile, NULL);
            code = fill_entities(s, &m, with_entities == STORE_SCAN_GIVEN, err);
        }
        int stop = code ? 1 : fn(ctx, &m);
        store_memory_clear(&m);
        if (stop)
            break;
    }
    memcpy(s->profile, saved, sizeof saved);
    store_use_profile(s, saved, NULL);
    sqlite3_finalize(st);
    if (!code && rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "listing memories", err);
    return code;
}

ms_status store_scan_meta(store *s, store_meta_fn fn, void *ctx, ms_error *err)
{
    return store_scan_meta_after(s, INT64_MIN, fn, ctx, err);
}

/* Call fn for each row of st (the columns of store_scan_meta_after). */
static ms_status scan_meta_rows(store *s, sqlite3_stmt *st, store_meta_fn fn, void *ctx,
                                ms_error *err)
{
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_meta m = {
            sqlite3_column_int64(st, 0),
            sqlite3_column_int64(st, 1),
            sqlite3_column_type(st, 2) == SQLITE_NULL ? STORE_TS_NONE : sqlite3_column_int64(st, 2),
            (const char *)sqlite3_column_text(st, 3),
            (const char *)sqlite3_column_text(st, 4),
            sqlite3_column_int(st, 5),
            sqlite3_column_double(st, 6),
            sqlite3_column_double(st, 7),
            sqlite3_column_double(st, 8),
            0,
            (const char *)sqlite3_column_text(st, 9),
            STORE_TS_NONE,
        };
        const char *at = (const char *)sqlite3_column_text(st, 10);
        m.superseded = m.superseded_by || at;
        if (at && store_parse_time(at, &m.superseded_ts))
            m.superseded_ts = STORE_TS_NONE;
        if (fn(ctx, &m)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "listing memories", err);
    return MS_OK;
}

#define META_COLUMNS                                                                               \
    "SELECT rid, created_ts, event_ts, session, speaker, pinned, trust_alpha, trust_beta,"         \
    " memory_confidence"

ms_status store_scan_meta_after(store *s, int64_t after, store_meta_fn fn, void *ctx, ms_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                store_has_v6(s) ? META_COLUMNS ", superseded_by, superseded_at"
                                                               " FROM memories NOT INDEXED"
                                                               " WHERE profile=?1 AND rid > ?2"
                                                               " ORDER BY rid"
                                                : META_COLUMNS ", NULL, NULL"
                                                               " FROM memories NOT INDEXED"
                                                               " WHERE profile=?1 AND rid > ?2"
                                                               " ORDER BY rid",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "listing memories", err);
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, after);
    return scan_meta_rows(s, st, fn, ctx, err);
}

ms_status store_scan_superseded_by(store *s, store_meta_fn fn, void *ctx, ms_error *err)
{
    if (!store_has_v6(s))
        return MS_OK;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                META_COLUMNS ", superseded_by, superseded_at FROM memories"
                                             " WHERE profile=?1 AND superseded_by IS NOT NULL"
                                             " ORDER BY rid",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "listing memories", err);
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    return scan_meta_rows(s, st, fn, ctx, err);
}

/* store_count's counts but the derived edges: with the profile the only one
 * (only), every link, edge and vector is one of its memories', and each
 * table is counted without a join (at 1M, 0.06 s for the links against
 * 0.37 s joined). The pinned memories are a scan of every row (0.78 s at
 * 1M): only when asked for. */
static ms_status count_rows(store *s, int only, int pinned, store_counts *out, ms_error *err)
{
    char sql[640];
    snprintf(sql, sizeof sql,
             "SELECT (SELECT count(*) FROM memories WHERE profile=?1),"
             " (SELECT count(*) FROM entities WHERE profile=?1), %s, %s, %s, %s",
             only ? "(SELECT count(*) FROM memory_entities)"
                  : "(SELECT count(*) FROM memory_entities l JOIN memories m ON m.rid=l.rid"
                    " WHERE m.profile=?1)",
             only ? "(SELECT count(*) FROM edges)"
                  : "(SELECT count(*) FROM edges e JOIN memories m ON m.rid=e.src"
                    " WHERE m.profile=?1)",
             only ? "(SELECT count(*) FROM vectors)"
                  : "(SELECT count(*) FROM vectors v JOIN memories m ON m.rid=v.rid"
                    " WHERE m.profile=?1)",
             pinned ? "(SELECT count(*) FROM memories WHERE profile=?1 AND pinned)" : "0");
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "counting", err);
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        out->memories = sqlite3_column_int64(st, 0);
        out->entities = sqlite3_column_int64(st, 1);
        out->links = sqlite3_column_int64(st, 2);
        out->edges = sqlite3_column_int64(st, 3);
        out->vectors = sqlite3_column_int64(st, 4);
        out->pinned = sqlite3_column_int64(st, 5);
    }
    ms_status code = rc == SQLITE_ROW ? MS_OK : store_sql_fail(s, rc, "counting", err);
    sqlite3_finalize(st);
    return code;
}

ms_status store_count_some(store *s, int pinned, store_counts *out, ms_error *err)
{
    memset(out, 0, sizeof *out);
    int only = 0;
    ms_status code = store_only_profile(s, &only, err);
    if (!code)
        code = count_rows(s, only, pinned, out, err);
    int64_t derived = 0;
    if (!code && store_derives_edges(s))
        code = store_graph_count(s, &derived, err);
    out->edges += derived;
    return code;
}

ms_status store_count(store *s, store_counts *out, ms_error *err)
{
    return store_count_some(s, 1, out, err);
}

static ms_status set_trust(store *s, int64_t rid, double alpha, double beta, ms_error *err)
{
    ms_status code = store_require_writable(s, "change trust", err);
    if (code)
        return code;
    if (!isfinite(alpha) || !isfinite(beta) || alpha <= 0 || beta <= 0)
        return ms_fail(err, MS_USAGE, "trust alpha and beta must be above 0");
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(
        s->db, "UPDATE memories SET trust_alpha=?2, trust_beta=?3 WHERE rid=?1", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "changing trust", err);
    sqlite3_bind_int64(st, 1, rid);
    sqlite3_bind_double(st, 2, alpha);
    sqlite3_bind_double(st, 3, beta);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "changing trust", err);
    return MS_OK;
}

ms_status store_set_trust(store *s, int64_t rid, double alpha, double beta, ms_error *err)
{
    int solo;
    ms_status st = store_solo_begin(s, &solo, err);
    if (!st)
        st = set_trust(s, rid, alpha, beta, err);
    return store_solo_end(s, solo, st, err);
}

/* ---- entities and edges ------------------------------------------------ */

void store_entities_free(store_entity *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].name);
        free(v[i].norm);
    }
    free(v);
}

static ms_status read_entities(store *s, sqlite3_stmt *st, store_entity **out, size_t *n,
                               ms_error *err)
{
    size_t cap = 8, len = 0;
    store_entity *v = malloc(cap * sizeof *v);
    int rc;
    while (v && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (len == cap) {
            store_entity *g = realloc(v, 2 * cap * sizeof *v);
            if (!g)
                break;
            v = g;
            cap *= 2;
        }
        v[len].eid = sqlite3_column_int64(st, 0);
        v[len].name = store_col_text(st, 1);
        v[len].norm = store_col_text(st, 2);
        v[len].kind = sqlite3_column_int(st, 3);
        v[len].docs = sqlite3_column_int64(st, 4);
        len++;
    }
    if (!v || (rc != SQLITE_DONE && rc != SQLITE_ROW)) {
        store_entities_free(v, len);
        return v ? store_sql_fail(s, rc, "reading entities", err)
                 : ms_fail(err, MS_NOMEM, "out of memory");
    }
    if (rc == SQLITE_ROW) {
        store_entities_free(v, len);
        return ms_fail(err, MS_NOMEM, "out of memory");
    }
    *out = v;
    *n = len;
    return MS_OK;
}

static ms_status entities_of(store *s, int64_t rid, int given_only, store_entity **out, size_t *n,
                             ms_error *err)
{
    sqlite3_stmt *st = store_stmt(s, ST_ENTITIES_OF, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_int64(st, 1, rid);
    sqlite3_bind_int(st, 2, given_only ? 1 : 0);
    ms_status code = read_entities(s, st, out, n, err);
    sqlite3_reset(st);
    return code;
}

ms_status store_entities_of(store *s, int64_t rid, store_entity **out, size_t *n, ms_error *err)
{
    return entities_of(s, rid, 0, out, n, err);
}

ms_status store_entities_all(store *s, store_entity **out, size_t *n, ms_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                "SELECT e.eid, e.name, e.norm, e.kind,"
                                " (SELECT count(*) FROM memory_entities x WHERE x.eid=e.eid)"
                                " FROM entities e WHERE e.profile=?1 ORDER BY e.eid",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading entities", err);
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    ms_status code = read_entities(s, st, out, n, err);
    sqlite3_finalize(st);
    return code;
}

ms_status store_scan_entities(store *s, store_entity_fn fn, void *ctx, ms_error *err)
{
    /* SQLite's plan for a profile is its (profile, norm) index: a seek into
       the table for every entity, then a sort by eid. When the profile's
       are all of them, the table read in eid order is the same rows with
       neither (at 1M, 56,168 entities: about a third of the time) */
    int only = 0;
    ms_status code = store_only_profile(s, &only, err);
    if (code)
        return code;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                only ? "SELECT eid, name, norm, kind FROM entities NOT INDEXED"
                                       " WHERE profile=?1 ORDER BY eid"
                                     : "SELECT eid, name, norm, kind FROM entities"
                                       " WHERE profile=?1 ORDER BY eid",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading entities", err);
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_entity e = {sqlite3_column_int64(st, 0), (char *)sqlite3_column_text(st, 1),
                          (char *)sqlite3_column_text(st, 2), sqlite3_column_int(st, 3), -1};
        if (fn(ctx, &e)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "reading entities", err);
    return MS_OK;
}

static ms_status scan_links(store *s, sqlite3_stmt *st, store_link_fn fn, void *ctx, ms_error *err)
{
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (fn(ctx, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1))) {
            rc = SQLITE_DONE;
            break;
        }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "reading entity links", err);
    return MS_OK;
}

ms_status store_scan_links_after(store *s, int64_t after, store_link_fn fn, void *ctx,
                                 ms_error *err)
{
    int only = 0;
    ms_status code = store_only_profile(s, &only, err);
    if (code)
        return code;
    /* the (rid, eid) key gives the order: no sort */
    const char *sql = only ? "SELECT rid, eid FROM memory_entities WHERE rid > ?2 ORDER BY rid, eid"
                           : "SELECT l.rid, l.eid FROM memory_entities l CROSS JOIN entities e"
                             " ON e.eid=l.eid WHERE l.rid > ?2 AND e.profile=?1"
                             " ORDER BY l.rid, l.eid";
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading entity links", err);
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, after);
    return scan_links(s, st, fn, ctx, err);
}

ms_status store_session_first(store *s, const char *session, int64_t *rid, ms_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(
        s->db, "SELECT min(rid) FROM memories WHERE profile=?1 AND session=?2", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading a session", err);
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, session, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    *rid = rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL
               ? sqlite3_column_int64(st, 0)
               : 0;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? MS_OK : store_sql_fail(s, rc, "reading a session", err);
}

ms_status store_scan_links(store *s, store_link_fn fn, void *ctx, ms_error *err)
{
    int only = 0;
    ms_status code = store_only_profile(s, &only, err);
    if (code)
        return code;
    /* the (eid, rid) index gives the order: no sort */
    const char *sql = only ? "SELECT rid, eid FROM memory_entities"
                             " INDEXED BY memory_entities_by_eid ORDER BY eid, rid"
                           : "SELECT l.rid, l.eid FROM memory_entities l"
                             " INDEXED BY memory_entities_by_eid CROSS JOIN entities e"
                             " ON e.eid=l.eid WHERE e.profile=?1 ORDER BY l.eid, l.rid";
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading entity links", err);
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    return scan_links(s, st, fn, ctx, err);
}

const char *store_edge_type_name(int type)
{
    switch (type) {
    case STORE_EDGE_SESSION:
        return "session";
    case STORE_EDGE_ENTITY:
        return "entity";
    case STORE_EDGE_TEMPORAL:
        return "temporal";
    case STORE_EDGE_RELATION:
        return "relation";
    default:
        return "unknown";
    }
}

static ms_status add_given_edge(store *s, int64_t a, int64_t b, int type, double weight,
                                ms_error *err)
{
    ms_status code = store_require_writable(s, "add an edge", err);
    if (code)
        return code;
    if (type < STORE_EDGE_SESSION || type >= STORE_EDGE_TYPES || !isfinite(weight))
        return ms_fail(err, MS_USAGE, "an edge needs a known type and a finite weight");
    if (a == b)
        return MS_OK;
    if ((code = require_memory(s, a, "adding an edge", err)) ||
        (code = require_memory(s, b, "adding an edge", err)))
        return code;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                "INSERT INTO edges(src, dst, type, weight) VALUES (?1,?2,?3,?4)"
                                " ON CONFLICT(src, dst, type) DO UPDATE"
                                " SET weight = max(weight, excluded.weight)",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "adding an edge", err);
    store_wcache_clear(s);
    sqlite3_bind_int64(st, 1, a < b ? a : b);
    sqlite3_bind_int64(st, 2, a < b ? b : a);
    sqlite3_bind_int(st, 3, type);
    sqlite3_bind_double(st, 4, weight < 0 ? 0 : weight > 1 ? 1 : weight);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "adding an edge", err);
    return MS_OK;
}

ms_status store_add_edge(store *s, int64_t a, int64_t b, int type, double weight, ms_error *err)
{
    int solo;
    ms_status st = store_solo_begin(s, &solo, err);
    if (!st)
        st = add_given_edge(s, a, b, type, weight, err);
    return store_solo_end(s, solo, st, err);
}

/* The order store_edges_of gives: by type, the heaviest first, then by key. */
static int edge_order(const void *a, const void *b)
{
    const store_edge *x = a, *y = b;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

ms_status store_edges_of(store *s, int64_t rid, store_edge **out, size_t *n, ms_error *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st = store_stmt(s, ST_EDGES_OF, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_int64(st, 1, rid);
    store_edge_list l = {NULL, 0, 0};
    ms_status code = MS_OK;
    int rc;
    while (!code && (rc = sqlite3_step(st)) == SQLITE_ROW)
        if (store_edge_list_add(&l, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                                sqlite3_column_int(st, 2), sqlite3_column_double(st, 3)))
            code = ms_fail(err, MS_NOMEM, "out of memory");
    sqlite3_reset(st);
    if (!code && rc != SQLITE_DONE)
        code = store_sql_fail(s, rc, "reading edges", err);
    if (!code && store_derives_edges(s)) {
        size_t kept = l.n;
        code = store_graph_of(s, rid, 1, &l, err);
        if (!code && l.n > kept) { /* a kept edge may be derived too: once */
            store_edges_merge(l.v, &l.n);
            qsort(l.v, l.n, sizeof *l.v, edge_order);
        }
    }
    if (code) {
        free(l.v);
        return code;
    }
    *out = l.v;
    *n = l.n;
    return MS_OK;
}

/* An edge of the k-th rid asked for (store_edges_of_rids). */
typedef struct owned_edge {
    size_t k;
    store_edge e;
} owned_edge;

typedef struct edge_rows {
    owned_edge *v;
    size_t n, cap;
} edge_rows;

/* Append edge e of the k-th rid asked for: 0, or -1 out of memory. */
static int rows_push(edge_rows *rows, size_t k, const store_edge *e)
{
    if (rows->n == rows->cap) {
        size_t cap = rows->cap ? 2 * rows->cap : 64;
        owned_edge *g = realloc(rows->v, cap * sizeof *g);
        if (!g)
            return -1;
        rows->v = g;
        rows->cap = cap;
    }
    rows->v[rows->n++] = (owned_edge){k, *e};
    return 0;
}

/* The rows of one chunk of n <= STORE_GET_BATCH rids (positions from at)
 * appended to rows. */
static ms_status edges_chunk(store *s, const int64_t *rid, size_t n, size_t at, edge_rows *rows,
                             ms_error *err)
{
    sqlite3_stmt *st = store_stmt(s, ST_EDGES_OF_RIDS, err);
    if (!st)
        return err ? err->code : MS_SQL;
    for (size_t k = 0; k < n; k++)
        sqlite3_bind_int64(st, (int)k + 2, rid[k]); /* the others are NULL: they match nothing */
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_edge e = {sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
                        sqlite3_column_int(st, 3), sqlite3_column_double(st, 4)};
        int64_t end = sqlite3_column_int(st, 0) ? e.dst : e.src;
        size_t k = 0;
        while (k < n && rid[k] != end)
            k++;
        if (k == n)
            continue;
        if (rows_push(rows, at + k, &e)) {
            sqlite3_reset(st);
            return ms_fail(err, MS_NOMEM, "out of memory");
        }
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? MS_OK : store_sql_fail(s, rc, "reading edges", err);
}

/* The derived edges of each rid, as rows of the rid asked for. */
static ms_status derived_rows(store *s, const int64_t *rid, size_t n, edge_rows *rows,
                              ms_error *err)
{
    store_edge_list l = {NULL, 0, 0};
    ms_status code = MS_OK;
    for (size_t k = 0; !code && k < n; k++) {
        l.n = 0;
        code = store_graph_of(s, rid[k], 1, &l, err);
        for (size_t j = 0; !code && j < l.n; j++)
            if (rows_push(rows, k, &l.v[j]))
                code = ms_fail(err, MS_NOMEM, "out of memory");
    }
    free(l.v);
    return code;
}

ms_status store_edges_of_rids(store *s, const int64_t *rid, size_t n, store_edge **out,
                              size_t **first, ms_error *err)
{
    *out = NULL;
    *first = NULL;
    edge_rows rows = {0};
    ms_status code = MS_OK;
    for (size_t at = 0; !code && at < n; at += STORE_GET_BATCH)
        code = edges_chunk(s, rid + at, n - at < STORE_GET_BATCH ? n - at : STORE_GET_BATCH, at,
                           &rows, err);
    if (!code && store_derives_edges(s))
        code = derived_rows(s, rid, n, &rows, err);
    size_t *f = code ? NULL : calloc(n + 2, sizeof *f);
    store_edge *v = code ? NULL : malloc((rows.n + 1) * sizeof *v);
    if (!code && (!f || !v))
        code = ms_fail(err, MS_NOMEM, "out of memory");
    if (code) {
        free(f);
        free(v);
        free(rows.v);
        return code;
    }
    for (size_t j = 0; j < rows.n; j++) /* a counting sort by the rid asked for */
        f[rows.v[j].k + 2]++;
    for (size_t k = 2; k < n + 2; k++)
        f[k] += f[k - 1];
    for (size_t j = 0; j < rows.n; j++)
        v[f[rows.v[j].k + 1]++] = rows.v[j].e;
    free(rows.v);
    /* each rid's edges, a kept edge that is derived too once */
    size_t to = 0;
    for (size_t k = 0; k < n; k++) {
        size_t from = k ? f[k] : 0, len = f[k + 1] - from;
        memmove(v + to, v + from, len * sizeof *v);
        store_edges_merge(v + to, &len);
        f[k] = to;
        to += len;
    }
    f[n] = to;
    *out = v;
    *first = f;
    return MS_OK;
}

ms_status store_has_edges(store *s, int *yes, ms_error *err)
{
    int only = 0;
    ms_status code = store_only_profile(s, &only, err);
    if (code)
        return code;
    code = store_query_yes(s,
                           only ? "SELECT EXISTS (SELECT 1 FROM edges)"
                                : "SELECT EXISTS (SELECT 1 FROM edges e JOIN memories m"
                                  " ON m.rid=e.src WHERE m.profile=?1)",
                           "reading edges", yes, err);
    if (code || *yes || !store_derives_edges(s))
        return code;
    return store_graph_exists(s, yes, err);
}

/* fn(ctx, edge) for each (src, dst, type, weight) row of st, until fn
 * returns non-zero; st is finalized. */
static ms_status edges_each(store *s, sqlite3_stmt *st, store_edge_fn fn, void *ctx, ms_error *err)
{
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_edge e = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                        sqlite3_column_int(st, 2), sqlite3_column_double(st, 3)};
        if (fn(ctx, &e)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "reading edges", err);
    return MS_OK;
}

/* fn and ctx, and whether fn said stop. */
typedef struct edge_stop {
    store_edge_fn fn;
    void *ctx;
    int stopped;
} edge_stop;

static int halt_edge(void *p, const store_edge *e)
{
    edge_stop *h = p;
    return h->stopped = h->fn(h->ctx, e);
}

ms_status store_scan_edges(store *s, store_edge_fn fn, void *ctx, ms_error *err)
{
    int only = 0;
    ms_status code = store_only_profile(s, &only, err);
    if (code)
        return code;
    edge_stop halt = {fn, ctx, 0};
    if (store_derives_edges(s) &&
        (code = store_graph_scan(s, s->profile, only, halt_edge, &halt, err)))
        return code;
    if (halt.stopped)
        return MS_OK;
    /* the kept ones in key order, no sort; the join with memories only when
     * another profile's edges must be left out */
    const char *sql = only ? "SELECT src, dst, type, weight FROM edges ORDER BY src, dst, type"
                           : "SELECT e.src, e.dst, e.type, e.weight FROM edges e CROSS"
                             " JOIN memories m ON m.rid=e.src WHERE m.profile=?1"
                             " ORDER BY e.src, e.dst, e.type";
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading edges", err);
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    return edges_each(s, st, fn, ctx, err);
}

ms_status store_scan_edges_after(store *s, int64_t after, store_edge_fn fn, void *ctx,
                                 ms_error *err)
{
    edge_stop halt = {fn, ctx, 0};
    ms_status code =
        store_derives_edges(s) ? store_graph_after(s, after, halt_edge, &halt, err) : MS_OK;
    if (code || halt.stopped)
        return code;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                "SELECT src, dst, type, weight FROM edges WHERE src>?1"
                                " UNION ALL SELECT src, dst, type, weight FROM edges"
                                " WHERE dst>?1 AND src<=?1",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading edges", err);
    sqlite3_bind_int64(st, 1, after);
    return edges_each(s, st, fn, ctx, err);
}

/* ---- feedback ---------------------------------------------------------- */

ms_status store_add_feedback(store *s, int64_t rid, const char *query, const char *query_type,
                             int label, unsigned channels, ms_error *err)
{
    ms_status code = store_require_writable(s, "record feedback", err);
    if (code)
        return code;
    if (label != 1 && label != -1)
        return ms_fail(err, MS_USAGE, "feedback label must be + or -");
    if ((code = require_memory(s, rid, "recording feedback", err)) ||
        (code = store_clear_feedback(s, rid, query, err)))
        return code;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                "INSERT INTO feedback(profile, rid, query, query_type, label, at,"
                                " channels) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "recording feedback", err);
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, rid);
    sqlite3_bind_text(st, 3, query ? query : "", -1, SQLITE_STATIC);
    if (query_type)
        sqlite3_bind_text(st, 4, query_type, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 5, label);
    sqlite3_bind_int64(st, 6, (int64_t)time(NULL));
    sqlite3_bind_int64(st, 7, channels);
    rc = sqlite3_step(st);
    s->changes0 += sqlite3_changes64(s->db); /* feedback is not what copies keep */
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "recording feedback", err);
    return MS_OK;
}

ms_status store_clear_feedback(store *s, int64_t rid, const char *query, ms_error *err)
{
    ms_status code = store_require_writable(s, "withdraw feedback", err);
    if (code)
        return code;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(
        s->db, "DELETE FROM feedback WHERE profile=?1 AND rid=?2 AND query=?3", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "withdrawing feedback", err);
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, rid);
    sqlite3_bind_text(st, 3, query ? query : "", -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    /* as for adding one: a judgement replaced or withdrawn is no change to
     * what the snapshot holds, and moving the generation for it made the
     * next process read a 1M store's tables again (14 s) */
    s->changes0 += sqlite3_changes64(s->db);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "withdrawing feedback", err);
    return MS_OK;
}

ms_status store_feedback_of(store *s, int64_t rid, const char *query, store_feedback *out,
                            int *found, ms_error *err)
{
    memset(out, 0, sizeof *out);
    *found = 0;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                "SELECT query, query_type, label, at, channels FROM feedback"
                                " WHERE profile=?1 AND rid=?2 AND query=?3 ORDER BY fid DESC"
                                " LIMIT 1",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading feedback", err);
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, rid);
    sqlite3_bind_text(st, 3, query ? query : "", -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        out->rid = rid;
        out->query = store_col_text(st, 0);
        out->query_type = store_col_text(st, 1);
        out->label = sqlite3_column_int(st, 2);
        out->at = sqlite3_column_int64(st, 3);
        out->channels = (unsigned)sqlite3_column_int64(st, 4);
        *found = 1;
        rc = SQLITE_DONE;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "reading feedback", err);
    return MS_OK;
}

void store_feedback_clear(store_feedback *f)
{
    free(f->query);
    free(f->query_type);
    memset(f, 0, sizeof *f);
}

void store_feedback_free(store_feedback *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].query);
        free(v[i].query_type);
    }
    free(v);
}

ms_status store_feedback_all(store *s, store_feedback **out, size_t *n, ms_error *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                "SELECT rid, query, query_type, label, at, channels FROM feedback"
                                " WHERE profile=?1 ORDER BY fid",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading feedback", err);
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    size_t cap = 0, len = 0;
    store_feedback *v = NULL;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (len == cap) {
            cap = cap ? 2 * cap : 16;
            store_feedback *g = realloc(v, cap * sizeof *v);
            if (!g) {
                store_feedback_free(v, len);
                sqlite3_finalize(st);
                return ms_fail(err, MS_NOMEM, "out of memory");
            }
            v = g;
        }
        v[len].rid = sqlite3_column_int64(st, 0);
        v[len].query = store_col_text(st, 1);
        v[len].query_type = store_col_text(st, 2);
        v[len].label = sqlite3_column_int(st, 3);
        v[len].at = sqlite3_column_int64(st, 4);
        v[len].channels = (unsigned)sqlite3_column_int64(st, 5);
        len++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        store_feedback_free(v, len);
        return store_sql_fail(s, rc, "reading feedback", err);
    }
    *out = v;
    *n = len;
    return MS_OK;
}

ms_status store_feedback_reset(store *s, ms_error *err)
{
    ms_status code = store_require_writable(s, "reset feedback", err);
    if (code)
        return code;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, "DELETE FROM feedback WHERE profile=?1", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "resetting feedback", err);
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    s->changes0 += sqlite3_changes64(s->db); /* feedback is not what copies keep */
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "resetting feedback", err);
    return MS_OK;
}
