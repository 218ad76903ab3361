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

/* The words of a memory as its neighbours' context shows them: its content
 * without a leading "Speaker:" (and the space after it). */
static const char *body_of(const char *text, const char *speaker)
{
    size_t n = speaker ? strlen(speaker) : 0;
    if (text && n && strncmp(text, speaker, n) == 0 && text[n] == ':')
        text += n + 1 + (text[n + 1] == ' ');
    return text;
}

/* Append text to *buf, after a space when *buf is not empty. */
static ms_status append_text(const char *text, char **buf, size_t *len, ms_error *err)
{
    size_t add = text ? strlen(text) : 0;
    char *g = realloc(*buf, *len + add + 2);
    if (!g)
        return ms_fail(err, MS_NOMEM, "out of memory");
    *buf = g;
    if (*len)
        (*buf)[(*len)++] = ' ';
    memcpy(*buf + *len, text ? text : "", add);
    *len += add;
    (*buf)[*len] = '\0';
    return MS_OK;
}

/* Append the memory's own words to *buf (nothing when rid is 0 or gone). */
static ms_status append_body(store *s, int64_t rid, char **buf, size_t *len, ms_error *err)
{
    if (!rid)
        return MS_OK;
    sqlite3_stmt *st = store_stmt(s, ST_CONTEXT_BODY, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_int64(st, 1, rid);
    int rc = sqlite3_step(st);
    ms_status code = MS_OK;
    if (rc == SQLITE_ROW)
        code = append_text(body_of((const char *)sqlite3_column_text(st, 0),
                                   (const char *)sqlite3_column_text(st, 1)),
                           buf, len, err);
    else if (rc != SQLITE_DONE)
        code = store_sql_fail(s, rc, "reading a turn", err);
    sqlite3_reset(st);
    return code;
}

/* Set rid's context column to text (taking it out of the index first). */
static ms_status set_context(store *s, int64_t rid, const char *text, ms_error *err)
{
    ms_status st = store_fts_pending(s, rid, err);
    sqlite3_stmt *q = st ? NULL : store_stmt(s, ST_CONTEXT_SET, err);
    if (!st && !q)
        st = err ? err->code : MS_SQL;
    if (st)
        return st;
    sqlite3_bind_int64(q, 1, rid);
    sqlite3_bind_text(q, 2, text, -1, SQLITE_STATIC);
    int rc = sqlite3_step(q);
    sqlite3_reset(q);
    if (rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "indexing a turn's neighbours", err);
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
    if (!st)
        st = set_context(s, rid, buf ? buf : "", err);
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

/* The words of rid for a neighbour's context: remembered from its own
 * append, else read. */
static ms_status append_body_of(store *s, int64_t rid, char **buf, size_t *len, ms_error *err)
{
    const char *known = store_wcache_body(s, rid);
    return known ? append_text(known, buf, len, err) : append_body(s, rid, buf, len, err);
}

/* The neighbour text of a new turn while it is the newest of its session:
 * the turn before it, and the hinted next turn when that is of the same
 * session (store_put_hint); *len is its length so far. */
static ms_status with_hint(store *s, const store_memory *m, char **context, size_t *len,
                           ms_error *err)
{
    const store_memory *next = s->hint;
    if (!next || next == m || !next->content || !next->session ||
        strcmp(next->session, m->session) != 0)
        return MS_OK;
    ms_status st = append_text(body_of(next->content, next->speaker), context, len, err);
    if (!st && !(s->guess_made = strdup(*context)))
        st = ms_fail(err, MS_NOMEM, "out of memory");
    return st;
}

ms_status store_context_new(store *s, const store_memory *m, int64_t prev[2], int *n_prev,
                            char **context, ms_error *err)
{
    *n_prev = 0;
    *context = NULL;
    size_t len = 0;
    int known = store_wcache_session(s, m->session, prev);
    if (known >= 0) {
        *n_prev = known;
    } else {
        sqlite3_stmt *st = store_stmt(s, ST_SESSION_PREV, err);
        if (!st)
            return err ? err->code : MS_SQL;
        sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, m->session, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, INT64_MAX);
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW && *n_prev < 2)
            prev[(*n_prev)++] = sqlite3_column_int64(st, 0);
        sqlite3_reset(st);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            return store_sql_fail(s, rc, "finding session neighbours", err);
    }
    ms_status st = *n_prev ? append_body_of(s, prev[0], context, &len, err) : MS_OK;
    return st ? st : with_hint(s, m, context, &len, err);
}

static void guess_drop(store *s)
{
    s->guess_rid = 0;
    free(s->guess_session);
    free(s->guess_text);
    s->guess_session = s->guess_text = NULL;
}

ms_status store_context_settle(store *s, ms_error *err)
{
    if (!s->guess_rid)
        return MS_OK;
    /* the row was appended in this transaction: its correction is part of
       that append (store_key.rewritten), inside a put or not */
    int64_t changes = sqlite3_total_changes64(s->db);
    ms_status st = refresh(s, s->guess_rid, s->guess_session, err);
    if (!s->putting)
        s->appended += sqlite3_total_changes64(s->db) - changes;
    guess_drop(s);
    return st;
}

void store_context_forget(store *s)
{
    s->hint = NULL;
    guess_drop(s);
    free(s->guess_made);
    s->guess_made = NULL;
}

/* m was put with the next turn's words (store_context_new): until that
 * turn's put, its row's text is a guess. */
static ms_status guess_take(store *s, const store_memory *m, ms_error *err)
{
    if (!s->guess_made)
        return MS_OK;
    ms_status st = store_context_settle(s, err); /* one guess at a time */
    s->guess_rid = m->rid;
    s->guess_text = s->guess_made;
    s->guess_made = NULL;
    if (!(s->guess_session = strdup(m->session))) {
        guess_drop(s);
        return ms_fail(err, MS_NOMEM, "out of memory");
    }
    return st;
}

ms_status store_context_appended(store *s, const store_memory *m, const int64_t *prev, int n_prev,
                                 ms_error *err)
{
    /* m, the newest row, has no next turn yet: its context (written with it
     * by store_context_new) is the turn before it, and the hinted next turn
     * if any; the turn before it now has the one before that and m */
    const char *mine = body_of(m->content, m->speaker);
    store_wcache_set_body(s, m->rid, mine);
    int64_t last[2] = {m->rid, n_prev ? prev[0] : 0};
    store_wcache_set_session(s, m->session, last, n_prev + 1);
    if (n_prev == 0) /* no turn before it: nothing else changes */
        return guess_take(s, m, err);
    char *ctx_p = NULL;
    size_t lp = 0;
    ms_status st = n_prev > 1 ? append_body_of(s, prev[1], &ctx_p, &lp, err) : MS_OK;
    if (!st)
        st = append_text(mine, &ctx_p, &lp, err);
    if (!st && s->guess_rid == prev[0] && strcmp(s->guess_text, ctx_p ? ctx_p : "") == 0)
        guess_drop(s); /* guessed right: the row has that text already */
    else if (!st)
        st = set_context(s, prev[0], ctx_p ? ctx_p : "", err);
    if (!st && s->guess_rid == prev[0])
        guess_drop(s); /* guessed wrong: corrected */
    free(ctx_p);
    return st ? st : guess_take(s, m, err);
}
