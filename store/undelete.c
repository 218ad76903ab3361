/* undelete.c - a delete that can be taken back: every row the delete of
 * one memory removes or changes is kept, value by value, and put back as
 * it was (the memory at its own rid, so its session order, edges and
 * relations read as before). The browser's undo uses it. */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

/* The rows of one table that name the memory (?1 its rid, ?2 the profile,
 * ?3 its id), and how each goes back. */
enum {
    RM_MEMORY,
    RM_ENTITIES,
    RM_LINKS,
    RM_EDGES,
    RM_RELATIONS,
    RM_FEEDBACK,
    RM_VECTORS,
    RM_OLDER,
    RM_COUNT
};

static const struct rm_table {
    const char *select;
    const char *insert; /* "INSERT ... INTO t" the values follow; NULL: RM_OLDER */
} rm_tables[RM_COUNT] = {
    [RM_MEMORY] = {"SELECT * FROM memories WHERE rid=?1", "INSERT INTO memories"},
    /* the entities only it named go with it (drop_orphans) */
    [RM_ENTITIES] = {"SELECT * FROM entities WHERE eid IN"
                     " (SELECT eid FROM memory_entities WHERE rid=?1)",
                     "INSERT OR IGNORE INTO entities"},
    [RM_LINKS] = {"SELECT * FROM memory_entities WHERE rid=?1", "INSERT INTO memory_entities"},
    [RM_EDGES] = {"SELECT * FROM edges WHERE src=?1 UNION ALL"
                  " SELECT * FROM edges WHERE dst=?1 AND src<>?1",
                  "INSERT INTO edges"},
    [RM_RELATIONS] = {"SELECT * FROM relations WHERE src=?1 UNION ALL"
                      " SELECT * FROM relations WHERE dst=?1 AND src<>?1",
                      "INSERT INTO relations"},
    [RM_FEEDBACK] = {"SELECT * FROM feedback WHERE rid=?1", "INSERT INTO feedback"},
    [RM_VECTORS] = {"SELECT * FROM vectors WHERE rid=?1", "INSERT INTO vectors"},
    /* what the delete changes in the memories it superseded */
    [RM_OLDER] = {"SELECT rid, superseded_by, superseded_at, superseded_reason FROM memories"
                  " WHERE rid IN (SELECT dst FROM relations WHERE src=?1 AND kind=1)"
                  " OR (profile=?2 AND superseded_by=?3)",
                  NULL},
};

typedef struct rm_rows {
    int ncol;
    size_t n;
    sqlite3_value **v; /* n * ncol values, owned (sqlite3_value_dup) */
} rm_rows;

struct store_removed {
    int64_t rid;
    char *id, *session, *profile;
    rm_rows t[RM_COUNT];
};

void store_removed_free(store_removed *r)
{
    if (!r)
        return;
    for (int t = 0; t < RM_COUNT; t++) {
        for (size_t i = 0; i < r->t[t].n * (size_t)r->t[t].ncol; i++)
            sqlite3_value_free(r->t[t].v[i]);
        free(r->t[t].v);
    }
    free(r->id);
    free(r->session);
    free(r->profile);
    free(r);
}

/* Keep one row of st (every column) at the end of rows. */
static ms_status rm_keep_row(sqlite3_stmt *st, rm_rows *rows, ms_error *err)
{
    rows->ncol = sqlite3_column_count(st);
    sqlite3_value **v = realloc(rows->v, (rows->n + 1) * (size_t)rows->ncol * sizeof *v);
    if (!v)
        return ms_fail(err, MS_NOMEM, "out of memory");
    rows->v = v;
    v += rows->n * (size_t)rows->ncol;
    for (int c = 0; c < rows->ncol; c++)
        if (!(v[c] = sqlite3_value_dup(sqlite3_column_value(st, c)))) {
            for (int k = 0; k < c; k++)
                sqlite3_value_free(v[k]);
            return ms_fail(err, MS_NOMEM, "out of memory");
        }
    rows->n++;
    return MS_OK;
}

/* The rows of table t that name r's memory. */
static ms_status rm_save(store *s, store_removed *r, int t, ms_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, rm_tables[t].select, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "keeping a deleted memory's rows", err);
    sqlite3_bind_int64(st, 1, r->rid);
    sqlite3_bind_text(st, 2, r->profile, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, r->id, -1, SQLITE_STATIC);
    ms_status code = MS_OK;
    while (!code && (rc = sqlite3_step(st)) == SQLITE_ROW)
        code = rm_keep_row(st, &r->t[t], err);
    if (!code && rc != SQLITE_DONE)
        code = store_sql_fail(s, rc, "keeping a deleted memory's rows", err);
    sqlite3_finalize(st);
    return code;
}

/* rid and session of memory id in the profile, into r. */
static ms_status rm_find(store *s, const char *id, store_removed *r, ms_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(
        s->db, "SELECT rid, session FROM memories WHERE profile=?1 AND id=?2", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "finding a memory", err);
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    ms_status code = MS_OK;
    if (rc == SQLITE_ROW) {
        r->rid = sqlite3_column_int64(st, 0);
        r->session = store_col_text(st, 1);
    } else if (rc == SQLITE_DONE)
        code = ms_fail(err, MS_NOT_FOUND, "no memory with id \"%s\" in profile \"%s\"", id,
                       s->profile);
    else
        code = store_sql_fail(s, rc, "finding a memory", err);
    sqlite3_finalize(st);
    r->id = strdup(id);
    r->profile = strdup(s->profile);
    if (!code && (!r->id || !r->profile))
        code = ms_fail(err, MS_NOMEM, "out of memory");
    return code;
}

ms_status store_delete_saving(store *s, const char *id, store_removed **out, ms_error *err)
{
    *out = NULL;
    ms_status code = store_require_writable(s, "delete", err);
    store_removed *r = code ? NULL : calloc(1, sizeof *r);
    if (!code && !r)
        code = ms_fail(err, MS_NOMEM, "out of memory");
    if (!code)
        code = rm_find(s, id, r, err);
    for (int t = 0; !code && t < RM_COUNT; t++)
        code = rm_save(s, r, t, err);
    if (!code)
        code = store_delete(s, id, err);
    if (code)
        store_removed_free(r);
    else
        *out = r;
    return code;
}

/* Insert the kept rows of table t again (RM_OLDER: set the superseded
 * fields back). */
static ms_status rm_restore(store *s, const store_removed *r, int t, ms_error *err)
{
    const rm_rows *rows = &r->t[t];
    if (rows->n == 0)
        return MS_OK;
    char sql[256];
    if (t == RM_OLDER)
        snprintf(sql, sizeof sql,
                 "UPDATE memories SET superseded_by=?2, superseded_at=?3, superseded_reason=?4"
                 " WHERE rid=?1");
    else {
        int n = snprintf(sql, sizeof sql, "%s VALUES (?", rm_tables[t].insert);
        for (int c = 1; c < rows->ncol && n > 0 && (size_t)n < sizeof sql; c++)
            n += snprintf(sql + n, sizeof sql - (size_t)n, ",?");
        if (n > 0 && (size_t)n < sizeof sql)
            snprintf(sql + n, sizeof sql - (size_t)n, ")");
    }
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "putting a deleted memory back", err);
    ms_status code = MS_OK;
    for (size_t i = 0; !code && i < rows->n; i++) {
        for (int c = 0; c < rows->ncol; c++)
            sqlite3_bind_value(st, c + 1, rows->v[i * (size_t)rows->ncol + c]);
        rc = sqlite3_step(st);
        if (rc == SQLITE_CONSTRAINT_PRIMARYKEY || rc == SQLITE_CONSTRAINT_UNIQUE)
            code = ms_fail(err, MS_DUPLICATE,
                           "memory \"%s\" cannot go back: its place was taken since", r->id);
        else if (rc != SQLITE_DONE)
            code = store_sql_fail(s, rc, "putting a deleted memory back", err);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return code;
}

static ms_status rm_undelete(store *s, const store_removed *r, ms_error *err)
{
    ms_status code = store_require_writable(s, "undelete", err);
    if (!code && strcmp(r->profile, s->profile) != 0)
        code = ms_fail(err, MS_USAGE, "memory \"%s\" was deleted from profile \"%s\"", r->id,
                       r->profile);
    if (code)
        return code;
    store_wcache_clear(s);
    for (int t = 0; !code && t < RM_COUNT; t++)
        code = rm_restore(s, r, t, err);
    if (!code)
        code = store_fts_inserted(s, r->rid, err);
    /* listed as a fact candidate (supersede.c): it may be below the mark,
     * and one listed that states nothing is only asked again */
    if (!code) {
        char sql[96];
        snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO fact_candidates(rid) VALUES (%lld)",
                 (long long)r->rid);
        code = store_exec(s, sql, err);
    }
    /* its neighbours read it in their context again (its own is as kept) */
    if (!code)
        code = store_context_written(s, r->rid, r->session, err);
    if (!code && !s->in_txn)
        code = store_fts_flush(s, err);
    return code;
}

ms_status store_undelete(store *s, const store_removed *r, ms_error *err)
{
    int solo;
    ms_status st = store_solo_begin(s, &solo, err);
    if (!st)
        st = rm_undelete(s, r, err);
    return store_solo_end(s, solo, st, err);
}
