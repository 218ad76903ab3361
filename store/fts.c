/* fts.c - the full-text index, kept up to date by the store's own code.
 *
 * Until schema 4, triggers on `memories` wrote every change into
 * memories_fts at once. Each such statement needs a statement journal (a
 * trigger makes it a multi-table write), and FTS5 flushes its pending terms
 * into a new on-disk segment at every statement savepoint: an import wrote
 * one tiny segment per memory, three times over (the insert and two
 * neighbour-context updates), and spent half its time merging them.
 *
 * Now a memory whose text (content, context or ptag) is new or about to
 * change is *pending*: taken out of the index if it was in it, and indexed
 * once, with its final text, by store_fts_flush. The flush runs before the
 * transaction commits (store_end), before anything reads the index
 * (store_fts, store_term_docs), and at the end of a store_put made outside
 * a transaction, so no reader and no committed state ever sees the index
 * behind the table.
 *
 * Rule for the store's own code: call store_fts_pending(rid) before an
 * UPDATE that may change content, context or ptag of rid, and
 * store_fts_forget(rid) before deleting it. */
#include "store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the pending set: insertion order plus an open-addressing index ---- */

static size_t slot_of(int64_t rid, size_t cap)
{
    uint64_t h = (uint64_t)rid * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 20) & (cap - 1);
}

static int pending_has(const store *s, int64_t rid)
{
    if (!s->fts_cap)
        return 0;
    for (size_t j = slot_of(rid, s->fts_cap); s->fts_slot[j]; j = (j + 1) & (s->fts_cap - 1))
        if (s->fts_slot[j] == rid)
            return 1;
    return 0;
}

static int pending_grow(store *s)
{
    size_t cap = s->fts_cap ? 2 * s->fts_cap : 1024;
    int64_t *slot = calloc(cap, sizeof *slot);
    int64_t *list = realloc(s->fts_list, cap / 2 * sizeof *list);
    if (!slot || !list) {
        free(slot);
        if (list)
            s->fts_list = list;
        return -1;
    }
    s->fts_list = list;
    for (size_t i = 0; i < s->fts_n; i++) {
        size_t j = slot_of(list[i], cap);
        while (slot[j])
            j = (j + 1) & (cap - 1);
        slot[j] = list[i];
    }
    free(s->fts_slot);
    s->fts_slot = slot;
    s->fts_cap = cap;
    return 0;
}

static int pending_add(store *s, int64_t rid)
{
    if ((s->fts_n + 1) * 2 > s->fts_cap && pending_grow(s))
        return -1;
    size_t j = slot_of(rid, s->fts_cap);
    while (s->fts_slot[j])
        j = (j + 1) & (s->fts_cap - 1);
    s->fts_slot[j] = rid;
    s->fts_list[s->fts_n++] = rid;
    return 0;
}

/* Forget every pending memory (after a flush or a rollback). */
void store_fts_discard(store *s)
{
    if (s->fts_n)
        memset(s->fts_slot, 0, s->fts_cap * sizeof *s->fts_slot);
    s->fts_n = 0;
}

/* ---- index writes ---------------------------------------------------------- */

/* Add rid to the index (ST_FTS_ADD) or take it out (ST_FTS_DEL) with the
 * text the table holds for it now. A missing row is not an error. */
static ms_status fts_write(store *s, int64_t rid, enum stmt_id which, ms_error *err)
{
    sqlite3_stmt *row = store_stmt(s, ST_FTS_ROW, err);
    if (!row)
        return err ? err->code : MS_SQL;
    sqlite3_bind_int64(row, 1, rid);
    int rc = sqlite3_step(row);
    if (rc != SQLITE_ROW) {
        sqlite3_reset(row);
        return rc == SQLITE_DONE ? MS_OK : store_sql_fail(s, rc, "reading a memory's text", err);
    }
    sqlite3_stmt *w = store_stmt(s, which, err);
    if (!w) {
        sqlite3_reset(row);
        return err ? err->code : MS_SQL;
    }
    sqlite3_bind_int64(w, 1, rid);
    for (int c = 0; c < 3; c++)
        sqlite3_bind_value(w, 2 + c, sqlite3_column_value(row, c));
    s->fts_gen++;
    rc = sqlite3_step(w);
    sqlite3_reset(w);
    sqlite3_reset(row);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "updating the text index", err);
    return MS_OK;
}

ms_status store_fts_inserted(store *s, int64_t rid, ms_error *err)
{
    if (pending_has(s, rid))
        return MS_OK;
    if (pending_add(s, rid))
        return ms_fail(err, MS_NOMEM, "out of memory");
    return MS_OK;
}

ms_status store_fts_pending(store *s, int64_t rid, ms_error *err)
{
    if (pending_has(s, rid))
        return MS_OK;
    ms_status st = fts_write(s, rid, ST_FTS_DEL, err);
    if (!st && pending_add(s, rid))
        st = ms_fail(err, MS_NOMEM, "out of memory");
    return st;
}

ms_status store_fts_forget(store *s, int64_t rid, ms_error *err)
{
    if (!pending_has(s, rid))
        return fts_write(s, rid, ST_FTS_DEL, err);
    /* rebuild the set without rid */
    size_t n = 0;
    for (size_t i = 0; i < s->fts_n; i++)
        if (s->fts_list[i] != rid)
            s->fts_list[n++] = s->fts_list[i];
    memset(s->fts_slot, 0, s->fts_cap * sizeof *s->fts_slot);
    size_t keep = n;
    s->fts_n = 0;
    for (size_t i = 0; i < keep; i++)
        pending_add(s, s->fts_list[i]); /* cannot grow: the set only shrank */
    return MS_OK;
}

ms_status store_fts_flush(store *s, ms_error *err)
{
    ms_status st = MS_OK;
    for (size_t i = 0; !st && i < s->fts_n; i++)
        st = fts_write(s, s->fts_list[i], ST_FTS_ADD, err);
    if (!st)
        store_fts_discard(s);
    return st;
}

/* In an import, the turn after rid rewrites rid's neighbour text. Indexed
 * now, rid would be taken out of the index at that turn's put, and FTS5
 * writes that one row's deletions as a segment of its own, which counts
 * like a full one towards the 16 that start a merge (crisismerge): a 1M
 * import had a one-page segment after each of its 20 flushes, and merged
 * twice, after 400,000 and 800,000 memories, instead of once. So rid
 * waits for the next flush. */
ms_status store_fts_flush_keeping(store *s, int64_t rid, ms_error *err)
{
    if (!pending_has(s, rid))
        return store_fts_flush(s, err);
    ms_status st = MS_OK;
    for (size_t i = 0; !st && i < s->fts_n; i++)
        if (s->fts_list[i] != rid)
            st = fts_write(s, s->fts_list[i], ST_FTS_ADD, err);
    if (st)
        return st;
    store_fts_discard(s);
    pending_add(s, rid); /* cannot fail: the set is empty and keeps its room */
    return MS_OK;
}

/* ---- long writes ------------------------------------------------------------ */

/* FTS5 writes a segment each time its pending terms reach the store's
 * hashsize (32 MB), and before it writes a row lower than the last it was
 * given (store_fts_flush_keeping says when an import did that); after each,
 * its automatic merging (automerge, 4 segments a level) rewrites older
 * segments a piece at a time. In one transaction of a million memories
 * that merging grew with the index: past 200,000 memories it was a fifth
 * of the writing thread's instructions, past 900,000 a quarter
 * (docs/PERFORMANCE.md, item 57). Off for the rest of a long transaction,
 * the segments are merged only when 16 gather on a level (FTS5's
 * crisismerge): the index holds the same rows and answers the same, in
 * about as many segments. A transaction that never holds
 * STORE_FTS_PENDING_MAX memories pending (any import below that size) is
 * not changed. */
#define FTS_AUTOMERGE_DEFAULT 4 /* FTS5's own, when the config table names none */

static ms_status fts_set_automerge(store *s, int64_t n, ms_error *err)
{
    char sql[96];
    snprintf(sql, sizeof sql,
             "INSERT INTO memories_fts(memories_fts, rank) VALUES('automerge', %lld)",
             (long long)n);
    return store_exec(s, sql, err);
}

ms_status store_fts_long_begin(store *s, ms_error *err)
{
    if (s->fts_long)
        return MS_OK;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, "SELECT v FROM memories_fts_config WHERE k='automerge'", -1,
                                &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading the text index's settings", err);
    rc = sqlite3_step(st);
    s->fts_automerge_was = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "reading the text index's settings", err);
    ms_status code = fts_set_automerge(s, 0, err);
    s->fts_long = code == MS_OK;
    return code;
}

ms_status store_fts_long_end(store *s, ms_error *err)
{
    if (!s->fts_long)
        return MS_OK;
    s->fts_long = 0;
    int64_t was = s->fts_automerge_was;
    ms_status code = fts_set_automerge(s, was >= 0 ? was : FTS_AUTOMERGE_DEFAULT, err);
    /* FTS5 now holds the default; the table names none, as before */
    if (!code && was < 0)
        code = store_exec(s, "DELETE FROM memories_fts_config WHERE k='automerge'", err);
    return code;
}

void store_fts_free(store *s)
{
    free(s->fts_slot);
    free(s->fts_list);
    s->fts_slot = s->fts_list = NULL;
    s->fts_n = s->fts_cap = 0;
}

/* ---- reading --------------------------------------------------------------- */

ms_status store_fts_match(store *s, const char *match, store_rid_fn fn, void *ctx, ms_error *err)
{
    return store_fts_match_after(s, match, INT64_MIN, fn, ctx, err);
}

ms_status store_fts_match_after(store *s, const char *match, int64_t after, store_rid_fn fn,
                                void *ctx, ms_error *err)
{
    int only = 0;
    ms_status code = s->fts_n ? store_fts_flush(s, err) : MS_OK;
    if (!code)
        code = store_only_profile(s, &only, err);
    if (code)
        return code;
    size_t n = strlen(match) + strlen(s->ptag) + 32;
    char *expr = malloc(n);
    if (!expr)
        return ms_fail(err, MS_NOMEM, "out of memory");
    if (only)
        snprintf(expr, n, "%s", match);
    else
        snprintf(expr, n, "( %s ) AND ptag : \"%s\"", match, s->ptag);
    sqlite3_stmt *st = store_stmt(s, ST_FTS_MATCH, err);
    if (!st) {
        free(expr);
        return err ? err->code : MS_SQL;
    }
    sqlite3_bind_text(st, 1, expr, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, after);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (fn(ctx, sqlite3_column_int64(st, 0))) {
            rc = SQLITE_DONE;
            break;
        }
    sqlite3_reset(st);
    free(expr);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "searching text", err);
    return MS_OK;
}

/* fn for each row st gives (rid, content, context); 1 when fn stopped. */
static int text_rows(sqlite3_stmt *st, store_text_fn fn, void *ctx, int *rc)
{
    while ((*rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *content = (const char *)sqlite3_column_text(st, 1);
        int clen = sqlite3_column_bytes(st, 1);
        const char *context = (const char *)sqlite3_column_text(st, 2);
        int xlen = sqlite3_column_bytes(st, 2);
        if (fn(ctx, sqlite3_column_int64(st, 0), content ? content : "", clen,
               context ? context : "", xlen)) {
            *rc = SQLITE_DONE;
            return 1;
        }
    }
    return 0;
}

ms_status store_scan_text(store *s, store_text_fn fn, void *ctx, ms_error *err)
{
    ms_status code = s->fts_n ? store_fts_flush(s, err) : MS_OK;
    if (code)
        return code;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, "SELECT rid, content, context FROM memories ORDER BY rid",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading memories' text", err);
    text_rows(st, fn, ctx, &rc);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "reading memories' text", err);
    return MS_OK;
}

/* fn for the rows of sql, its ?1 bound to v; 1 when fn stopped. */
static int text_query(store *s, const char *sql, int64_t v, store_text_fn fn, void *ctx, int *rc)
{
    sqlite3_stmt *st;
    if ((*rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL)) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, v);
    int stop = text_rows(st, fn, ctx, rc);
    sqlite3_finalize(st);
    return stop;
}

ms_status store_scan_content(store *s, int64_t after, store_text_fn fn, void *ctx, ms_error *err)
{
    int rc = SQLITE_DONE;
    text_query(s, "SELECT rid, content, NULL FROM memories WHERE rid>?1 ORDER BY rid", after, fn,
               ctx, &rc);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "reading memories' text", err);
    return MS_OK;
}

ms_status store_scan_text_some(store *s, const int64_t *rids, size_t n, int64_t after,
                               store_text_fn fn, void *ctx, ms_error *err)
{
    ms_status code = s->fts_n ? store_fts_flush(s, err) : MS_OK;
    if (code)
        return code;
    int rc = SQLITE_DONE, stop = 0;
    for (size_t i = 0; !stop && rc == SQLITE_DONE && i < n; i++)
        stop = text_query(s, "SELECT rid, content, context FROM memories WHERE rid=?1", rids[i], fn,
                          ctx, &rc);
    if (!stop && rc == SQLITE_DONE)
        text_query(s, "SELECT rid, content, context FROM memories WHERE rid>?1 ORDER BY rid", after,
                   fn, ctx, &rc);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "reading memories' text", err);
    return MS_OK;
}
