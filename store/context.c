/* context.c - each turn's neighbours, indexed as a weaker FTS column.
 *
 * A turn of a conversation is often answered, or explained, by the turn
 * next to it ("Where did you go?" / "Lisbon!"). Indexing the text of the
 * turns just before and after a memory in its session (column `context`,
 * bm25 weight 0.5 against 1.0 for the memory's own text) lets a query find
 * a turn by words its neighbours said. Measured on LoCoMo: +3 points
 * Recall@10 over the pipeline without it (docs/QUALITY.md). */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

enum { PREV, NEXT };

/* rid of the turn before (dir PREV) or after (NEXT) rid in its session, 0
 * when none. */
static ms_status neighbour(store *s, int64_t rid, const char *session, int dir, int64_t *out,
                           ms_error *err)
{
    sqlite3_stmt *st = store_stmt(s, dir == PREV ? ST_CONTEXT_PREV : ST_CONTEXT_NEXT, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, session, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, rid);
    int rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "finding a neighbouring turn", err);
    return MS_OK;
}

/* Append the memory's own words (its content without a leading "Speaker:")
 * to *buf. */
static ms_status append_body(store *s, int64_t rid, char **buf, size_t *len, ms_error *err)
{
    if (!rid)
        return MS_OK;
    sqlite3_stmt *st = store_stmt(s, ST_CONTEXT_BODY, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_int64(st, 1, rid);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_reset(st);
        return rc == SQLITE_DONE ? MS_OK : store_sql_fail(s, rc, "reading a turn", err);
    }
    const char *text = (const char *)sqlite3_column_text(st, 0);
    const char *speaker = (const char *)sqlite3_column_text(st, 1);
    size_t n = speaker ? strlen(speaker) : 0;
    if (text && n && strncmp(text, speaker, n) == 0 && text[n] == ':')
        text += n + 1 + (text[n + 1] == ' ');
    size_t add = text ? strlen(text) : 0;
    char *g = realloc(*buf, *len + add + 2);
    if (!g) {
        sqlite3_reset(st);
        return ms_fail(err, MS_NOMEM, "out of memory");
    }
    *buf = g;
    if (*len)
        (*buf)[(*len)++] = ' ';
    memcpy(*buf + *len, text ? text : "", add);
    *len += add;
    (*buf)[*len] = '\0';
    sqlite3_reset(st);
    return MS_OK;
}

/* Recompute the context of rid in session. */
static ms_status refresh(store *s, int64_t rid, const char *session, ms_error *err)
{
    int64_t prev, next;
    ms_status st = neighbour(s, rid, session, PREV, &prev, err);
    if (!st)
        st = neighbour(s, rid, session, NEXT, &next, err);
    char *buf = NULL;
    size_t len = 0;
    if (!st)
        st = append_body(s, prev, &buf, &len, err);
    if (!st)
        st = append_body(s, next, &buf, &len, err);
    sqlite3_stmt *q = st ? NULL : store_stmt(s, ST_CONTEXT_SET, err);
    if (!st && !q)
        st = err ? err->code : MS_SQL;
    if (!st) {
        sqlite3_bind_int64(q, 1, rid);
        sqlite3_bind_text(q, 2, buf ? buf : "", -1, SQLITE_STATIC);
        int rc = sqlite3_step(q);
        sqlite3_reset(q);
        if (rc != SQLITE_DONE)
            st = store_sql_fail(s, rc, "indexing a turn's neighbours", err);
    }
    free(buf);
    return st;
}

ms_status store_context_written(store *s, int64_t rid, const char *session, ms_error *err)
{
    if (!session)
        return MS_OK;
    int64_t prev, next;
    ms_status st = neighbour(s, rid, session, PREV, &prev, err);
    if (!st)
        st = neighbour(s, rid, session, NEXT, &next, err);
    if (!st)
        st = refresh(s, rid, session, err);
    if (!st && prev)
        st = refresh(s, prev, session, err);
    if (!st && next)
        st = refresh(s, next, session, err);
    return st;
}

ms_status store_context_neighbours(store *s, int64_t rid, const char *session, int64_t *prev,
                                   int64_t *next, ms_error *err)
{
    *prev = *next = 0;
    if (!session)
        return MS_OK;
    ms_status st = neighbour(s, rid, session, PREV, prev, err);
    return st ? st : neighbour(s, rid, session, NEXT, next, err);
}

ms_status store_context_refresh(store *s, int64_t rid, const char *session, ms_error *err)
{
    return rid && session ? refresh(s, rid, session, err) : MS_OK;
}
