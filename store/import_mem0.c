/* import_mem0.c - mem0 OpenMemory's backup export: the two files of its
 * zip, either of them.
 *
 *  memories.json      {"user": {...}, "apps": [...], "categories": [...],
 *                      "memories": [{id, user_id, app_id, content, metadata,
 *                      state, created_at, updated_at, archived_at, deleted_at,
 *                      category_ids}], ...}
 *  memories.jsonl.gz  one {id, content, metadata, created_at, updated_at,
 *                      state, app, categories} a line, gzip-compressed (or
 *                      already uncompressed)
 *
 * A memory in state active or paused becomes a memory (id, content,
 * created_at); archived and deleted ones are not imported and are counted
 * as hidden. Its app, categories, state, update time, user and mem0's own
 * metadata are kept as metadata. */
#include "import_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct mem0_ctx {
    store *s;
    const import_opts *opts;
    import_stats *stats;
    const char *file;
    const cJSON *apps, *cats; /* memories.json: id -> name tables, or NULL */
    const char *user;         /* memories.json: the export's user_id, or NULL */
} mem0_ctx;

static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The "name" of the element of list whose "id" is id, or NULL. */
static const char *name_by_id(const cJSON *list, const char *id)
{
    const cJSON *v;
    cJSON_ArrayForEach(v, list)
    {
        const char *vid = str_of(v, "id");
        if (vid && id && strcmp(vid, id) == 0)
            return str_of(v, "name");
    }
    return NULL;
}

/* Is the state one mem0 hides (archived, deleted)? -1 when it is no state
 * mem0 has. A missing state is active, as mem0's own import reads it. */
static int hidden_state(const char *state)
{
    if (!state || strcmp(state, "active") == 0 || strcmp(state, "paused") == 0)
        return 0;
    if (strcmp(state, "archived") == 0 || strcmp(state, "deleted") == 0)
        return 1;
    return -1;
}

/* The category names of rec: "categories" (the JSONL), else its
 * "category_ids" looked up in the export's categories. A new array, or
 * NULL when it has none. */
static cJSON *categories_of(const mem0_ctx *x, const cJSON *rec)
{
    const cJSON *names = cJSON_GetObjectItemCaseSensitive(rec, "categories");
    const cJSON *ids = cJSON_GetObjectItemCaseSensitive(rec, "category_ids");
    cJSON *a = NULL;
    const cJSON *v;
    if (cJSON_IsArray(names) && cJSON_GetArraySize(names) > 0)
        a = cJSON_Duplicate(names, 1);
    else if (cJSON_IsArray(ids) && cJSON_GetArraySize(ids) > 0 && (a = cJSON_CreateArray())) {
        cJSON_ArrayForEach(v, ids)
        {
            const char *name = cJSON_IsString(v) ? name_by_id(x->cats, v->valuestring) : NULL;
            cJSON_AddItemToArray(a, cJSON_CreateString(name ? name : v->valuestring));
        }
    }
    return a;
}

/* The metadata object of rec as JSON text: app, categories, state (when
 * paused), updated_at, user, and mem0's own metadata under "mem0". */
static char *record_metadata(const mem0_ctx *x, const cJSON *rec, const char *state)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    const char *app = str_of(rec, "app");
    if (!app && x->apps)
        app = name_by_id(x->apps, str_of(rec, "app_id"));
    if (app)
        cJSON_AddStringToObject(o, "app", app);
    cJSON *cats = categories_of(x, rec);
    if (cats)
        cJSON_AddItemToObject(o, "categories", cats);
    if (state && strcmp(state, "active") != 0)
        cJSON_AddStringToObject(o, "state", state);
    const char *updated = str_of(rec, "updated_at");
    if (updated)
        cJSON_AddStringToObject(o, "updated_at", updated);
    if (x->user)
        cJSON_AddStringToObject(o, "user", x->user);
    const cJSON *own = cJSON_GetObjectItemCaseSensitive(rec, "metadata");
    if (cJSON_IsObject(own) && own->child)
        cJSON_AddItemToObject(o, "mem0", cJSON_Duplicate(own, 1));
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

/* Check rec's fields; where names it in errors ("FILE:LINE" or
 * "FILE: memories[i]"). */
static ms_status check_record(const cJSON *rec, const char *where, ms_error *err)
{
    if (!cJSON_IsObject(rec))
        return ms_fail(err, MS_PARSE, "%s: expected a mem0 memory object {...}", where);
    const char *id = str_of(rec, "id"), *content = str_of(rec, "content");
    if (!id || !*id)
        return ms_fail(err, MS_PARSE,
                       "%s: not a mem0 memory: it needs an \"id\" (a non-empty string)", where);
    if (!content)
        return ms_fail(err, MS_PARSE, "%s: memory %s has no \"content\" string", where, id);
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(rec, "state");
    if (st && !cJSON_IsNull(st) && (!cJSON_IsString(st) || hidden_state(st->valuestring) < 0))
        return ms_fail(err, MS_PARSE,
                       "%s: memory %s: \"state\" must be active, paused, archived or deleted",
                       where, id);
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(rec, "metadata");
    if (md && !cJSON_IsNull(md) && !cJSON_IsObject(md))
        return ms_fail(err, MS_PARSE, "%s: memory %s: \"metadata\" must be an object", where, id);
    const cJSON *ca = cJSON_GetObjectItemCaseSensitive(rec, "created_at");
    if (ca && !cJSON_IsNull(ca) && !cJSON_IsString(ca))
        return ms_fail(err, MS_PARSE, "%s: memory %s: \"created_at\" must be a string", where, id);
    return MS_OK;
}

/* One mem0 memory: checked, then written, or counted as hidden. */
static ms_status import_record(mem0_ctx *x, const cJSON *rec, const char *where, ms_error *err)
{
    ms_status st = check_record(rec, where, err);
    if (st)
        return st;
    const char *state = str_of(rec, "state");
    if (hidden_state(state) == 1) {
        x->stats->hidden++;
        return MS_OK;
    }
    store_memory m;
    store_memory_init(&m);
    m.id = strdup(str_of(rec, "id"));
    m.content = strdup(str_of(rec, "content"));
    m.source = strdup("mem0");
    m.metadata = record_metadata(x, rec, state);
    const char *created = str_of(rec, "created_at");
    if (created)
        m.created_at = strdup(created);
    if (!m.id || !m.content || !m.source || !m.metadata || (created && !m.created_at))
        st = ms_fail(err, MS_NOMEM, "out of memory");
    if (!st)
        st = import_put(x->s, x->opts, x->stats, &m, where, 0, err);
    store_memory_clear(&m);
    return st;
}

static ms_status import_export(mem0_ctx *x, cJSON *doc, ms_error *err);

/* memories.jsonl(.gz): one memory a line (or a memories.json written on
 * one line: an object with a "memories" array). */
static ms_status import_lines_of(mem0_ctx *x, import_lines *r, ms_error *err)
{
    char *t, where[640];
    size_t len;
    uint64_t line;
    int got;
    ms_status st = MS_OK;
    while (!st && (got = import_lines_next(r, x->file, &t, &len, &line, err)) == 1) {
        size_t i = 0;
        while (i < len && (t[i] == ' ' || t[i] == '\t'))
            i++;
        if (i == len)
            continue;
        cJSON *rec = import_parse_json(x->file, line, t, len, err);
        if (!rec)
            st = err->code;
        snprintf(where, sizeof where, "%s:%llu", x->file, (unsigned long long)line);
        if (!st && line == 1 && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(rec, "memories")))
            st = import_export(x, rec, err);
        else if (!st)
            st = import_record(x, rec, where, err);
        cJSON_Delete(rec);
    }
    if (!st && got < 0)
        st = err->code;
    x->stats->bytes += import_lines_bytes(r);
    return st;
}

/* memories.json: the whole export. */
static ms_status import_export(mem0_ctx *x, cJSON *doc, ms_error *err)
{
    const cJSON *mems = cJSON_GetObjectItemCaseSensitive(doc, "memories");
    if (!cJSON_IsObject(doc) || !cJSON_IsArray(mems))
        return ms_fail(err, MS_PARSE,
                       "%s: not a mem0 OpenMemory export: expected an object with a "
                       "\"memories\" array",
                       x->file);
    x->apps = cJSON_GetObjectItemCaseSensitive(doc, "apps");
    x->cats = cJSON_GetObjectItemCaseSensitive(doc, "categories");
    x->user = str_of(cJSON_GetObjectItemCaseSensitive(doc, "user"), "user_id");
    char where[640];
    int i = 0;
    const cJSON *rec;
    cJSON_ArrayForEach(rec, mems)
    {
        snprintf(where, sizeof where, "%s: memories[%d]", x->file, i++);
        ms_status st = import_record(x, rec, where, err);
        if (st)
            return st;
    }
    return MS_OK;
}

static int blank_char(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int import_mem0_sniff(const char *head, size_t n)
{
    if (n >= 2 && (unsigned char)head[0] == 0x1f && (unsigned char)head[1] == 0x8b)
        return 1; /* gzip: memories.jsonl.gz */
    size_t i = 0;
    while (i < n && blank_char(head[i]))
        i++;
    if (i >= n || head[i] != '{')
        return 0;
    const char *nl = memchr(head + i, '\n', n - i);
    size_t first = nl ? (size_t)(nl - head) : n;
    /* memories.json, as OpenMemory writes it (indented, "user" first) */
    if (first - i <= 2 && strstr(head, "\"user\"") && strstr(head, "\"user_id\""))
        return 1;
    /* an uncompressed memories.jsonl: a first line whose own keys (not those
     * of a memory JSONL line's metadata) are mem0's */
    cJSON *o = cJSON_ParseWithLength(head + i, first - i);
    int yes = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "content")) &&
              cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "state")) &&
              cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(o, "categories"));
    cJSON_Delete(o);
    return yes;
}

/* Does the file start with a line holding only "{": an indented JSON
 * document (memories.json as OpenMemory writes it)? */
static int indented_document(const char *path, const char *file, int *yes, ms_error *err)
{
    import_lines *r = import_lines_open(path, err);
    if (!r)
        return -1;
    char *t;
    size_t len;
    uint64_t line;
    int got;
    *yes = 0;
    while ((got = import_lines_next(r, file, &t, &len, &line, err)) == 1) {
        size_t i = 0;
        while (i < len && blank_char(t[i]))
            i++;
        if (i == len)
            continue;
        *yes = t[i] == '{' && i + 1 == len;
        break;
    }
    import_lines_close(r);
    return got < 0 ? -1 : 0;
}

ms_status import_mem0(store *s, const char *path, const char *file, const import_opts *opts,
                      import_stats *stats, ms_error *err)
{
    mem0_ctx x = {s, opts, stats, file, NULL, NULL, NULL};
    int whole = 0;
    if (strcmp(path, "-") != 0 && indented_document(path, file, &whole, err))
        return err->code;
    if (!whole) {
        import_lines *r = import_lines_open(path, err);
        if (!r)
            return err->code;
        ms_status st = import_lines_of(&x, r, err);
        import_lines_close(r);
        return st;
    }
    char *t = NULL;
    size_t len = 0;
    ms_status st = import_read_whole(path, file, &t, &len, err);
    if (st)
        return st;
    stats->bytes += len;
    cJSON *doc = import_parse_json(file, 1, t, len, err);
    st = doc ? import_export(&x, doc, err) : err->code;
    cJSON_Delete(doc);
    free(t);
    return st;
}
