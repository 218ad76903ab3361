/* list.c - paged, sorted listings of a profile's memories (the browser
 * without a query), the find over them, and the profiles with their
 * counts. A page is one SELECT with ORDER BY and LIMIT/OFFSET: the date
 * order walks the (profile, created_ts) index and needs no sort; the other
 * orders sort the profile once per page. */
#include "store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- orders ------------------------------------------------------------- */

#define LIST_SORT_NAME(id, name, expr) name,
static const char *const sort_names[STORE_SORT_COUNT] = {STORE_SORTS(LIST_SORT_NAME)};
#undef LIST_SORT_NAME
#define LIST_SORT_EXPR(id, name, expr) expr,
static const char *const sort_exprs[STORE_SORT_COUNT] = {STORE_SORTS(LIST_SORT_EXPR)};
#undef LIST_SORT_EXPR

const char *store_sort_name(int sort)
{
    return sort >= 0 && sort < STORE_SORT_COUNT ? sort_names[sort] : NULL;
}

/* May the sort's field be NULL (those rows go last)? */
static int sort_nullable(int sort)
{
    return sort == STORE_SORT_EVENT || sort == STORE_SORT_SPEAKER || sort == STORE_SORT_SESSION;
}

/* "ORDER BY ..." of o into buf. */
static void order_by(const store_list_opts *o, char *buf, size_t cap)
{
    const char *dir = o->desc ? " DESC" : "";
    const char *e = sort_exprs[o->sort];
    if (sort_nullable(o->sort))
        snprintf(buf, cap, " ORDER BY (%s IS NULL), %s%s, rid%s", e, e, dir, dir);
    else
        snprintf(buf, cap, " ORDER BY %s%s, rid%s", e, dir, dir);
}

/* "WHERE ..." of o: ?1 is the profile, ?2 the entity. */
static const char *list_where(const store_list_opts *o)
{
    return o->eid > 0
               ? " WHERE profile=?1 AND rid IN (SELECT rid FROM memory_entities WHERE eid=?2)"
               : " WHERE profile=?1";
}

static ms_status list_prepare(store *s, const store_list_opts *o, const char *sql,
                              sqlite3_stmt **st, ms_error *err)
{
    int rc = sqlite3_prepare_v2(s->db, sql, -1, st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "listing memories", err);
    sqlite3_bind_text(*st, 1, s->profile, -1, SQLITE_STATIC);
    if (o->eid > 0)
        sqlite3_bind_int64(*st, 2, o->eid);
    return MS_OK;
}

static ms_status list_check(const store_list_opts *o, ms_error *err)
{
    if (o->sort < 0 || o->sort >= STORE_SORT_COUNT)
        return ms_fail(err, MS_USAGE, "unknown sort order %d", o->sort);
    return MS_OK;
}

ms_status store_list(store *s, const store_list_opts *o, int64_t offset, int limit,
                     store_memory_fn fn, void *ctx, ms_error *err)
{
    ms_status code = list_check(o, err);
    if (code)
        return code;
    char order[256], sql[1024];
    order_by(o, order, sizeof order);
    snprintf(sql, sizeof sql, "SELECT %s FROM memories%s%s LIMIT ?3 OFFSET ?4",
             store_has_v6(s) ? STORE_MEM_COLS : STORE_MEM_COLS_V5, list_where(o), order);
    sqlite3_stmt *st;
    if ((code = list_prepare(s, o, sql, &st, err)))
        return code;
    sqlite3_bind_int(st, 3, limit < 0 ? 0 : limit);
    sqlite3_bind_int64(st, 4, offset < 0 ? 0 : offset);
    int rc;
    while (!code && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        store_memory m;
        code = store_row_memory(s, st, &m);
        if (code)
            code = ms_fail(err, code, "out of memory listing memories");
        int stop = code ? 1 : fn(ctx, &m);
        store_memory_clear(&m);
        if (stop)
            break;
    }
    sqlite3_finalize(st);
    if (!code && rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "listing memories", err);
    return code;
}

ms_status store_list_rids(store *s, const store_list_opts *o, int64_t **rids, int64_t *n,
                          ms_error *err)
{
    *rids = NULL;
    *n = 0;
    ms_status code = list_check(o, err);
    if (code)
        return code;
    char order[256], sql[1024];
    order_by(o, order, sizeof order);
    snprintf(sql, sizeof sql, "SELECT rid FROM memories%s%s", list_where(o), order);
    sqlite3_stmt *st;
    if ((code = list_prepare(s, o, sql, &st, err)))
        return code;
    int64_t cap = 0;
    int rc;
    while (!code && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 1024;
            int64_t *g = realloc(*rids, (size_t)cap * sizeof *g);
            if (!g) {
                code = ms_fail(err, MS_NOMEM, "out of memory listing memories");
                break;
            }
            *rids = g;
        }
        (*rids)[(*n)++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (!code && rc != SQLITE_DONE)
        code = store_sql_fail(s, rc, "listing memories", err);
    if (code) {
        free(*rids);
        *rids = NULL;
        *n = 0;
    }
    return code;
}

/* One integer from sql (bound as list_prepare binds). */
static ms_status list_int(store *s, const store_list_opts *o, const char *sql, const store_find *f,
                          int64_t *out, ms_error *err)
{
    sqlite3_stmt *st;
    ms_status code = list_prepare(s, o, sql, &st, err);
    if (code)
        return code;
    if (f)
        sqlite3_bind_text(st, 3, f->text, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL
               ? sqlite3_column_int64(st, 0)
               : -1;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "listing memories", err);
    return MS_OK;
}

ms_status store_list_count(store *s, const store_list_opts *o, int64_t *n, ms_error *err)
{
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM memories%s", list_where(o));
    return list_int(s, o, sql, NULL, n, err);
}

/* ---- find --------------------------------------------------------------- */

static const char *const find_names[STORE_FIND_FIELDS] = {"any", "content", "speaker", "session",
                                                          "id",  "date",    "event"};
static const char *const find_cols[STORE_FIND_FIELDS] = {NULL, "content",    "speaker",   "session",
                                                         "id", "created_at", "event_time"};

void store_find_parse(const char *text, store_find *f)
{
    memset(f, 0, sizeof *f);
    const char *colon = strchr(text, ':');
    for (int i = 1; colon && i < STORE_FIND_FIELDS; i++)
        if ((size_t)(colon - text) == strlen(find_names[i]) &&
            strncmp(text, find_names[i], strlen(find_names[i])) == 0) {
            f->field = i;
            text = colon + 1;
            break;
        }
    size_t n = strlen(text);
    if (n >= sizeof f->text) { /* cut on a character boundary */
        n = sizeof f->text - 1;
        while (n > 0 && ((unsigned char)text[n] & 0xc0) == 0x80)
            n--;
    }
    for (size_t i = 0; i < n; i++)
        f->text[i] = text[i] >= 'A' && text[i] <= 'Z' ? (char)(text[i] + 32) : text[i];
    f->text[n] = '\0';
}

/* Does hay hold needle (already lower case), ignoring ASCII case? */
static int find_in(const char *hay, const char *needle)
{
    if (!hay)
        return 0;
    size_t n = strlen(needle);
    for (const char *p = hay; *p; p++) {
        size_t k = 0;
        while (k < n && p[k]) {
            char c = p[k] >= 'A' && p[k] <= 'Z' ? (char)(p[k] + 32) : p[k];
            if (c != needle[k])
                break;
            k++;
        }
        if (k == n)
            return 1;
    }
    return 0;
}

int store_find_match(const store_find *f, const store_memory *m)
{
    if (!f->text[0])
        return 0;
    switch (f->field) {
    case STORE_FIND_CONTENT:
        return find_in(m->content, f->text);
    case STORE_FIND_SPEAKER:
        return find_in(m->speaker, f->text);
    case STORE_FIND_SESSION:
        return find_in(m->session, f->text);
    case STORE_FIND_ID:
        return find_in(m->id, f->text);
    case STORE_FIND_DATE:
        return find_in(m->created_at, f->text);
    case STORE_FIND_EVENT:
        return find_in(m->event_time, f->text);
    default:
        return find_in(m->content, f->text) || find_in(m->speaker, f->text) ||
               find_in(m->session, f->text) || find_in(m->id, f->text);
    }
}

/* The SQL form of store_find_match, with the text as ?3. SQLite's lower()
 * folds ASCII only, as find_in does. */
static void find_sql(const store_find *f, char *buf, size_t cap)
{
    if (f->field > STORE_FIND_ANY && f->field < STORE_FIND_FIELDS) {
        snprintf(buf, cap, "instr(lower(coalesce(%s, '')), ?3) > 0", find_cols[f->field]);
        return;
    }
    snprintf(buf, cap,
             "(instr(lower(content), ?3) > 0 OR instr(lower(coalesce(speaker, '')), ?3) > 0"
             " OR instr(lower(coalesce(session, '')), ?3) > 0 OR instr(lower(id), ?3) > 0)");
}

ms_status store_list_find(store *s, const store_list_opts *o, const store_find *f, int64_t from,
                          int dir, int64_t *pos, int64_t *matches, ms_error *err)
{
    ms_status code = list_check(o, err);
    *pos = -1;
    if (code || !f->text[0]) {
        if (matches)
            *matches = 0;
        return code;
    }
    char order[256], match[256], sql[2048];
    order_by(o, order, sizeof order);
    find_sql(f, match, sizeof match);
    /* the matching positions, then the first after from (or the last before
     * it), else the first (last) of all: wrapping round */
    snprintf(sql, sizeof sql,
             "WITH hit(pos) AS (SELECT pos FROM (SELECT row_number() OVER (%s) - 1 AS pos, %s AS m"
             " FROM memories%s) WHERE m)"
             " SELECT coalesce((SELECT %s(pos) FROM hit WHERE pos %s %lld), (SELECT %s(pos) FROM"
             " hit)), (SELECT count(*) FROM hit)",
             order + 1, match, list_where(o), dir < 0 ? "max" : "min", dir < 0 ? "<" : ">",
             (long long)from, dir < 0 ? "max" : "min");
    sqlite3_stmt *st;
    if ((code = list_prepare(s, o, sql, &st, err)))
        return code;
    sqlite3_bind_text(st, 3, f->text, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *pos = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 0);
        if (matches)
            *matches = sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return store_sql_fail(s, rc, "finding in memories", err);
    return MS_OK;
}

/* ---- profiles ------------------------------------------------------------ */

void store_profiles_free(store_profile_info *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i].name);
    free(v);
}

static ms_status profile_add(store_profile_info **v, size_t *n, size_t *cap, const char *name,
                             int64_t count, ms_error *err)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 8;
        store_profile_info *g = realloc(*v, c * sizeof *g);
        if (!g)
            return ms_fail(err, MS_NOMEM, "out of memory reading profiles");
        *v = g;
        *cap = c;
    }
    if (!((*v)[*n].name = store_strdup(name)))
        return ms_fail(err, MS_NOMEM, "out of memory reading profiles");
    (*v)[(*n)++].memories = count;
    return MS_OK;
}

static ms_status profile_corrupt(store *s, ms_error *err)
{
    return ms_fail(err, MS_CORRUPT,
                   "reading profiles: store %s is corrupt (its profile index does not agree "
                   "with its memories)",
                   s->path);
}

/* Seek the profile after `after` in the index's order (the first of all
 * when NULL): one seek, however many memories the profiles hold. *next
 * gets its value as stored (NULL past the last; the caller frees), which
 * the next seek and its count bind as it is: a profile a foreign write
 * left as a blob or with a NUL inside is still stepped past, not found
 * again. Its name is appended to out, with 0 memories for now. */
static ms_status profile_seek(store *s, sqlite3_value *after, sqlite3_value **next,
                              store_profile_info **out, size_t *n, size_t *cap, ms_error *err)
{
    *next = NULL;
    sqlite3_stmt *st = store_stmt(s, after ? ST_PROFILE_AFTER : ST_PROFILE_FIRST, err);
    if (!st)
        return err ? err->code : MS_SQL;
    if (after)
        sqlite3_bind_value(st, 1, after);
    int rc = sqlite3_step(st);
    ms_status code = MS_OK;
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        if (!(*next = sqlite3_value_dup(sqlite3_column_value(st, 0))))
            code = ms_fail(err, MS_NOMEM, "out of memory reading profiles");
        else
            code = profile_add(out, n, cap, (const char *)sqlite3_column_text(st, 0), 0, err);
    }
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? code : store_sql_fail(s, rc, "reading profiles", err);
}

/* The one integer statement id (ST_PROFILE_SIZE, ST_PROFILE_SPAN) gives
 * for profile v. */
static ms_status profile_int(store *s, enum stmt_id id, sqlite3_value *v, int64_t *out,
                             ms_error *err)
{
    sqlite3_stmt *st = store_stmt(s, id, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_value(st, 1, v);
    int rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? MS_OK : store_sql_fail(s, rc, "reading profiles", err);
}

/* A GROUP BY profile walks every entry of an index (0.11 s at a million
 * memories). Instead the profiles are found by a skip-scan, one seek each,
 * and each is counted over its own entries but one, which gets the rest of
 * the total that SQLite counts page by page (OP_Count, a few ms at a
 * million). Any one left out gives the same counts; the one left out is
 * the widest, the largest rid span between its oldest and newest memories
 * (two seeks), as the largest profile is: a store of one large profile and
 * a few small ones walks only the small ones, one profile none at all. */
ms_status store_profiles(store *s, store_profile_info **out, size_t *n, ms_error *err)
{
    *out = NULL;
    *n = 0;
    /* one snapshot: a write between the total and a count would skew the rest */
    int own = !s->in_txn;
    ms_status code = own ? store_read_begin(s, err) : MS_OK;
    int64_t total = 0, counted = 0, wide_span = -1;
    if (!code)
        code = store_total(s, &total, err);
    size_t cap = 0, wide_i = 0;
    sqlite3_value *at = NULL, *wide = NULL; /* the widest so far: not counted (yet) */
    if (!code)
        code = profile_seek(s, NULL, &at, out, n, &cap, err);
    for (size_t i = 0; !code && at; i++) {
        sqlite3_value *next = NULL, *count = at;
        size_t count_i = i;
        int64_t span = 0, m = 0;
        code = profile_seek(s, at, &next, out, n, &cap, err);
        if (!code)
            code = profile_int(s, ST_PROFILE_SPAN, at, &span, err);
        if (!code && span > wide_span) { /* at is left out now; the one before it counted */
            count = wide;
            count_i = wide_i;
            wide = at;
            wide_i = i;
            wide_span = span;
        }
        if (!code && count) {
            code = profile_int(s, ST_PROFILE_SIZE, count, &m, err);
            (*out)[count_i].memories = m;
            counted += m;
        }
        /* each profile found holds a memory: more of them than memories is
         * an index out of order (a seek would find a profile again and again) */
        if (!code && ((int64_t)*n > total || (count && m < 1)))
            code = profile_corrupt(s, err);
        sqlite3_value_free(count);
        at = next;
    }
    sqlite3_value_free(at);
    sqlite3_value_free(wide);
    if (!code && *n) {
        (*out)[wide_i].memories = total - counted;
        if (total - counted < 1)
            code = profile_corrupt(s, err);
    }
    if (own)
        store_end(s, NULL);
    int here = 0;
    for (size_t i = 0; i < *n; i++)
        here |= strcmp((*out)[i].name, s->profile) == 0;
    if (!code && !here)
        code = profile_add(out, n, &cap, s->profile, 0, err);
    if (code) {
        store_profiles_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return code;
}
