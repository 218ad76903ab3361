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

ms_status store_profiles(store *s, store_profile_info **out, size_t *n, ms_error *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(
        s->db, "SELECT profile, count(*) FROM memories GROUP BY profile ORDER BY profile", -1, &st,
        NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading profiles", err);
    size_t cap = 0;
    int here = 0;
    ms_status code = MS_OK;
    while (!code && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        here |= name && strcmp(name, s->profile) == 0;
        code = profile_add(out, n, &cap, name ? name : "", sqlite3_column_int64(st, 1), err);
    }
    sqlite3_finalize(st);
    if (!code && rc != SQLITE_DONE)
        code = store_sql_fail(s, rc, "reading profiles", err);
    if (!code && !here)
        code = profile_add(out, n, &cap, s->profile, 0, err);
    if (code) {
        store_profiles_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return code;
}
