/* relation.c - directed relations between memories: supersedes and
 * contradicts, with their reasons (schema 7's relations table). A
 * supersedes relation and the older memory's superseded_* fields say the
 * same thing; the functions here keep them so. */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

const char *store_rel_kind_name(int kind)
{
    switch (kind) {
    case STORE_REL_SUPERSEDES:
        return "supersedes";
    case STORE_REL_CONTRADICTS:
        return "contradicts";
    default:
        return "unknown";
    }
}

/* ---- one transaction ----------------------------------------------------- */

/* Start the change: a transaction of its own, or a savepoint inside the
 * caller's (an import's). *own says which, for rel_finish. */
static ms_status rel_start(store *s, const char *what, int *own, ms_error *err)
{
    *own = !s->in_txn;
    if (*own)
        return store_begin(s, err);
    ms_status code = store_require_writable(s, what, err);
    if (!code)
        code = store_exec(s, "SAVEPOINT ms_relation", err);
    return code;
}

/* Commit the change when code is MS_OK, else undo all of it; returns the
 * status of the whole. */
static ms_status rel_finish(store *s, int own, ms_status code, ms_error *err)
{
    if (own) {
        if (code) {
            store_rollback(s);
            return code;
        }
        return store_end(s, err);
    }
    if (code) {
        sqlite3_exec(s->db, "ROLLBACK TO ms_relation; RELEASE ms_relation", NULL, NULL, NULL);
        return code;
    }
    return store_exec(s, "RELEASE ms_relation", err);
}

/* ---- helpers ------------------------------------------------------------- */

/* Run sql with up to three int64 bindings (the first n of a, b, c) and an
 * optional text at ?4; *changes (if not NULL) gets the rows changed. */
static ms_status rel_run(store *s, const char *sql, int n, int64_t a, int64_t b, int64_t c,
                         const char *text, int *changes, const char *what, ms_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, what, err);
    int64_t v[3] = {a, b, c};
    for (int i = 0; i < n; i++)
        sqlite3_bind_int64(st, i + 1, v[i]);
    if (text)
        sqlite3_bind_text(st, 4, text, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, what, err);
    if (changes)
        *changes = sqlite3_changes(s->db);
    return MS_OK;
}

/* rel_run for a statement whose rows a grown snapshot reads again whole:
 * the relations table (no copy keeps relations; the engine reads them) and
 * the superseded_* fields of a memory a successor names (read through
 * their index: engine/snapgrow.c grow_superseded). Its rows count as
 * appended (store_key.rewritten), so the snapshot still grows after it. */
static ms_status rel_write(store *s, const char *sql, int n, int64_t a, int64_t b, int64_t c,
                           const char *text, int *changes, const char *what, ms_error *err)
{
    int done = 0;
    ms_status code = rel_run(s, sql, n, a, b, c, text, &done, what, err);
    if (!code)
        s->appended += done;
    if (changes)
        *changes = done;
    return code;
}

/* The id and time (event_time, else created_at) of memory rid of the
 * profile, each into a buffer of cap bytes. MS_NOT_FOUND naming the rid
 * when it is not a memory of the profile. */
static ms_status rel_memory(store *s, int64_t rid, char *id, char *when, size_t cap,
                            const char *what, ms_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                "SELECT id, coalesce(event_time, created_at) FROM memories"
                                " WHERE rid=?1 AND profile=?2",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, what, err);
    sqlite3_bind_int64(st, 1, rid);
    sqlite3_bind_text(st, 2, s->profile, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        snprintf(id, cap, "%s", (const char *)sqlite3_column_text(st, 0));
        snprintf(when, cap, "%s", (const char *)sqlite3_column_text(st, 1));
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return ms_fail(err, MS_NOT_FOUND, "%s: memory #%lld is not in profile \"%s\"", what,
                       (long long)rid, s->profile);
    if (rc != SQLITE_ROW)
        return store_sql_fail(s, rc, what, err);
    return MS_OK;
}

/* Check two rids and a reason before anything is written. */
static ms_status rel_check(int64_t a, int64_t b, const char *reason, const char *what,
                           ms_error *err)
{
    if (a <= 0 || b <= 0)
        return ms_fail(err, MS_USAGE, "%s: a memory's rid is a positive number", what);
    if (a == b)
        return ms_fail(err, MS_USAGE, "%s: memory #%lld cannot be related to itself", what,
                       (long long)a);
    size_t n = reason ? strlen(reason) : 0;
    if (n > STORE_FIELD_MAX)
        return ms_fail(err, MS_USAGE, "%s: the reason is longer than %d bytes", what,
                       STORE_FIELD_MAX);
    if (reason && store_utf8_invalid_at(reason, n) >= 0)
        return ms_fail(err, MS_USAGE, "%s: the reason is not valid UTF-8", what);
    return MS_OK;
}

/* Make older's superseded_* fields agree with the supersedes relations
 * that remain after one from gone was removed: unchanged unless they name
 * gone; then the newest remaining successor (by its time), or none. */
static ms_status rel_resync_older(store *s, int64_t older, const char *gone_id, const char *what,
                                  ms_error *err)
{
    int done = 0;
    ms_status code =
        rel_write(s,
                  "UPDATE memories SET (superseded_by, superseded_at, superseded_reason) ="
                  " (SELECT n.id, coalesce(n.event_time, n.created_at), r.reason"
                  "  FROM relations r JOIN memories n ON n.rid = r.src"
                  "  WHERE r.dst = ?1 AND r.kind = 1"
                  "  ORDER BY coalesce(n.event_ts, n.created_ts) DESC, n.rid DESC LIMIT 1)"
                  " WHERE rid = ?1 AND superseded_by = ?4",
                  1, older, 0, 0, gone_id, &done, what, err);
    s->sup_marked |= done > 0; /* store_key.superseded_marked */
    return code;
}

/* ---- writing ------------------------------------------------------------- */

static ms_status supersedes_in(store *s, int64_t newer, int64_t older, const char *reason,
                               ms_error *err)
{
    const char *what = "recording a supersession";
    char nid[STORE_ID_MAX + 1], nwhen[STORE_ID_MAX + 1], oid[STORE_ID_MAX + 1],
        owhen[STORE_ID_MAX + 1];
    ms_status code = rel_memory(s, newer, nid, nwhen, sizeof nid, what, err);
    if (!code)
        code = rel_memory(s, older, oid, owhen, sizeof oid, what, err);
    int gone = 0;
    if (!code) /* the reverse cannot hold at the same time */
        code = rel_write(s, "DELETE FROM relations WHERE src=?1 AND dst=?2 AND kind=1", 2, older,
                         newer, 0, NULL, &gone, what, err);
    if (!code && gone)
        code = rel_resync_older(s, newer, oid, what, err);
    if (!code)
        code = rel_write(s,
                         "INSERT INTO relations(src, dst, kind, reason) VALUES (?1, ?2, 1, ?4)"
                         " ON CONFLICT(src, dst, kind) DO UPDATE SET reason = excluded.reason",
                         2, newer, older, 0, reason, NULL, what, err);
    if (code)
        return code;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                "UPDATE memories SET superseded_by=?2, superseded_at=?3,"
                                " superseded_reason=?4 WHERE rid=?1",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, what, err);
    sqlite3_bind_int64(st, 1, older);
    sqlite3_bind_text(st, 2, nid, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, nwhen, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, reason ? reason : "supersedes relation", -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, what, err);
    int done = sqlite3_changes(s->db);
    s->appended += done; /* as rel_write's */
    s->sup_marked |= done > 0;
    return MS_OK;
}

ms_status store_set_supersedes(store *s, int64_t newer_rid, int64_t older_rid, const char *reason,
                               ms_error *err)
{
    ms_status code = rel_check(newer_rid, older_rid, reason, "recording a supersession", err);
    int own = 0;
    if (!code)
        code = rel_start(s, "record a supersession", &own, err);
    if (code)
        return code;
    return rel_finish(s, own, supersedes_in(s, newer_rid, older_rid, reason, err), err);
}

static ms_status contradicts_in(store *s, int64_t a, int64_t b, const char *reason, ms_error *err)
{
    const char *what = "recording a contradiction";
    char id[STORE_ID_MAX + 1], when[STORE_ID_MAX + 1];
    ms_status code = rel_memory(s, a, id, when, sizeof id, what, err);
    if (!code)
        code = rel_memory(s, b, id, when, sizeof id, what, err);
    int changed = 0;
    if (!code)
        code = rel_write(s,
                         "UPDATE relations SET reason=?4 WHERE kind=2 AND"
                         " ((src=?1 AND dst=?2) OR (src=?2 AND dst=?1))",
                         2, a, b, 0, reason, &changed, what, err);
    if (!code && !changed)
        code = rel_write(s, "INSERT INTO relations(src, dst, kind, reason) VALUES (?1, ?2, 2, ?4)",
                         2, a, b, 0, reason, NULL, what, err);
    return code;
}

ms_status store_set_contradicts(store *s, int64_t a_rid, int64_t b_rid, const char *reason,
                                ms_error *err)
{
    ms_status code = rel_check(a_rid, b_rid, reason, "recording a contradiction", err);
    int own = 0;
    if (!code)
        code = rel_start(s, "record a contradiction", &own, err);
    if (code)
        return code;
    return rel_finish(s, own, contradicts_in(s, a_rid, b_rid, reason, err), err);
}

static ms_status clear_in(store *s, int64_t a, int64_t b, int kind, ms_error *err)
{
    const char *what = "clearing a relation";
    char aid[STORE_ID_MAX + 1], bid[STORE_ID_MAX + 1], when[STORE_ID_MAX + 1];
    ms_status code = rel_memory(s, a, aid, when, sizeof aid, what, err);
    if (!code)
        code = rel_memory(s, b, bid, when, sizeof bid, what, err);
    int ab = 0, ba = 0;
    if (!code)
        code = rel_write(s, "DELETE FROM relations WHERE src=?1 AND dst=?2 AND kind=?3", 3, a, b,
                         kind, NULL, &ab, what, err);
    if (!code)
        code = rel_write(s, "DELETE FROM relations WHERE src=?1 AND dst=?2 AND kind=?3", 3, b, a,
                         kind, NULL, &ba, what, err);
    if (!code && !ab && !ba)
        return ms_fail(err, MS_NOT_FOUND, "%s: %s and %s have no %s relation", what, aid, bid,
                       store_rel_kind_name(kind));
    if (!code && kind == STORE_REL_SUPERSEDES && ab)
        code = rel_resync_older(s, b, aid, what, err);
    if (!code && kind == STORE_REL_SUPERSEDES && ba)
        code = rel_resync_older(s, a, bid, what, err);
    return code;
}

ms_status store_clear_relation(store *s, int64_t a_rid, int64_t b_rid, int kind, ms_error *err)
{
    ms_status code = kind == STORE_REL_SUPERSEDES || kind == STORE_REL_CONTRADICTS
                         ? rel_check(a_rid, b_rid, NULL, "clearing a relation", err)
                         : ms_fail(err, MS_USAGE,
                                   "clearing a relation: unknown kind %d (supersedes is %d,"
                                   " contradicts %d)",
                                   kind, STORE_REL_SUPERSEDES, STORE_REL_CONTRADICTS);
    int own = 0;
    if (!code)
        code = rel_start(s, "clear a relation", &own, err);
    if (code)
        return code;
    return rel_finish(s, own, clear_in(s, a_rid, b_rid, kind, err), err);
}

ms_status store_relations_forget(store *s, int64_t rid, const char *id, ms_error *err)
{
    const char *what = "deleting a memory's relations";
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, "SELECT dst FROM relations WHERE src=?1 AND kind=1", -1, &st,
                                NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, what, err);
    sqlite3_bind_int64(st, 1, rid);
    size_t n = 0, cap = 0;
    int64_t *older = NULL;
    ms_status code = MS_OK;
    while (!code && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t *g = n < cap ? older : realloc(older, (cap = cap ? 2 * cap : 4) * sizeof *older);
        if (!g)
            code = ms_fail(err, MS_NOMEM, "out of memory");
        else
            (older = g)[n++] = sqlite3_column_int64(st, 0);
    }
    if (!code && rc != SQLITE_DONE)
        code = store_sql_fail(s, rc, what, err);
    sqlite3_finalize(st);
    if (!code)
        code =
            rel_write(s, "DELETE FROM relations WHERE src=?1", 1, rid, 0, 0, NULL, NULL, what, err);
    if (!code)
        code =
            rel_write(s, "DELETE FROM relations WHERE dst=?1", 1, rid, 0, 0, NULL, NULL, what, err);
    for (size_t i = 0; !code && i < n; i++)
        code = rel_resync_older(s, older[i], id, what, err);
    free(older);
    return code;
}

ms_status store_add_found_supersession(store *s, int64_t newer, int64_t older, const char *reason,
                                       int *added, ms_error *err)
{
    *added = 0;
    return rel_write(s,
                     "INSERT OR IGNORE INTO relations(src, dst, kind, reason)"
                     " SELECT ?1, ?2, 1, ?4 WHERE NOT EXISTS"
                     " (SELECT 1 FROM relations WHERE src=?2 AND dst=?1 AND kind=1)",
                     2, newer, older, 0, reason, added, "recording a supersession found", err);
}

ms_status store_relations_sync(store *s, ms_error *err)
{
    ms_status code = store_exec(s, STORE_REL_SYNC_SQL, err);
    if (!code)
        s->appended += sqlite3_changes64(s->db);
    return code;
}

/* ---- reading ------------------------------------------------------------- */

void store_relations_free(store_relation *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) {
        free(v[i].other_id);
        free(v[i].reason);
    }
    free(v);
}

/* The rows of st (kind, outgoing, other rid, other id, reason) as
 * relations of rid into *out / *n; st is finalized. */
static ms_status read_relations(store *s, sqlite3_stmt *st, int64_t rid, store_relation **out,
                                size_t *n, ms_error *err)
{
    int rc;
    size_t cap = 0, len = 0;
    store_relation *v = NULL;
    ms_status code = MS_OK;
    while (!code && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (len == cap) {
            store_relation *g = realloc(v, (cap = cap ? 2 * cap : 4) * sizeof *v);
            if (!g) {
                code = ms_fail(err, MS_NOMEM, "out of memory");
                break;
            }
            v = g;
        }
        store_relation *r = &v[len++];
        r->rid = rid;
        r->kind = sqlite3_column_int(st, 0);
        r->outgoing = sqlite3_column_int(st, 1);
        r->other = sqlite3_column_int64(st, 2);
        r->other_id = store_col_text(st, 3);
        r->reason = store_col_text(st, 4);
        if (!r->other_id || (!r->reason && sqlite3_column_type(st, 4) != SQLITE_NULL))
            code = ms_fail(err, MS_NOMEM, "out of memory");
    }
    if (!code && rc != SQLITE_DONE)
        code = store_sql_fail(s, rc, "reading relations", err);
    sqlite3_finalize(st);
    if (code) {
        store_relations_free(v, len);
        return code;
    }
    *out = v;
    *n = len;
    return MS_OK;
}

ms_status store_relations_of(store *s, int64_t rid, store_relation **out, size_t *n, ms_error *err)
{
    *out = NULL;
    *n = 0;
    if (!store_has_v7(s))
        return MS_OK;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(
        s->db,
        "SELECT r.kind, 1, r.dst, m.id, r.reason FROM relations r JOIN memories m ON m.rid=r.dst"
        " WHERE r.src=?1 AND m.profile=?2"
        " UNION ALL SELECT r.kind, 0, r.src, m.id, r.reason FROM relations r"
        " JOIN memories m ON m.rid=r.src WHERE r.dst=?1 AND m.profile=?2"
        " ORDER BY 1, 2 DESC, 3",
        -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading relations", err);
    sqlite3_bind_int64(st, 1, rid);
    sqlite3_bind_text(st, 2, s->profile, -1, SQLITE_STATIC);
    return read_relations(s, st, rid, out, n, err);
}

ms_status store_scan_relations(store *s, store_relation_fn fn, void *ctx, ms_error *err)
{
    if (!store_has_v7(s))
        return MS_OK;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                /* from the relations (few): not a probe for each
                                   memory of the profile */
                                "SELECT r.src, r.dst, r.kind, r.reason FROM relations r"
                                " CROSS JOIN memories m ON m.rid=r.src WHERE m.profile=?1"
                                " ORDER BY r.kind, r.src, r.dst",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading relations", err);
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (fn(ctx, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
               sqlite3_column_int(st, 2), (const char *)sqlite3_column_text(st, 3))) {
            rc = SQLITE_DONE;
            break;
        }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? MS_OK : store_sql_fail(s, rc, "reading relations", err);
}

ms_status store_has_contradictions(store *s, int *yes, ms_error *err)
{
    *yes = 0;
    if (!store_has_v7(s))
        return MS_OK;
    sqlite3_stmt *st;
    int rc =
        sqlite3_prepare_v2(s->db, "SELECT 1 FROM relations WHERE kind=2 LIMIT 1", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading relations", err);
    rc = sqlite3_step(st);
    *yes = rc == SQLITE_ROW;
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? MS_OK
                                                 : store_sql_fail(s, rc, "reading relations", err);
}

ms_status store_contradictions_from(store *s, int64_t rid, store_relation **out, size_t *n,
                                    ms_error *err)
{
    *out = NULL;
    *n = 0;
    if (!store_has_v7(s))
        return MS_OK;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                "SELECT r.kind, 1, r.dst, m.id, r.reason FROM relations r"
                                " JOIN memories m ON m.rid=r.dst WHERE r.src=?1 AND r.kind=2"
                                " ORDER BY r.dst",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading relations", err);
    sqlite3_bind_int64(st, 1, rid);
    return read_relations(s, st, rid, out, n, err);
}
