/* import_bundle.c - SuperLocalMemory's evidence bundle (`slm evidence
 * export DIR`): a directory of canonical JSONL, one file per table
 * (facts.jsonl, memories.jsonl, entities.jsonl, graph_edges.jsonl, ...),
 * and manifest.json naming each file with its line count and sha256, and
 * the bundle_id: the sha256 of the canonical JSON of the bundle's identity
 * (format, schema_version, profile_id, files, derivation_versions).
 *
 * Nothing is read from a file before every file the manifest lists has
 * been checked against it: a file whose sha256 or line count differs, a
 * missing file, or a manifest whose bundle_id does not match its own
 * contents is refused, naming it. Then each visible fact becomes a memory
 * (docs/STORES.md gives the mapping), and the graph's edges between
 * imported facts become edges. */
#include "import_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "sha256.h"

#define BUNDLE_FORMAT "superlocalmemory-evidence-bundle"
#define BUNDLE_SCHEMA 1 /* the bundle schema_version this reads */

/* ---- a string -> value map (ids of rows) -------------------------------- */

typedef struct strmap {
    char **key;   /* [cap] owned; NULL = empty */
    void **value; /* [cap] not owned */
    size_t n, cap;
} strmap;

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static size_t map_slot(const strmap *m, const char *key)
{
    size_t i = (size_t)hash_str(key) & (m->cap - 1);
    while (m->key[i] && strcmp(m->key[i], key) != 0)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static void *map_get(const strmap *m, const char *key)
{
    if (!m->cap || !key)
        return NULL;
    size_t i = map_slot(m, key);
    return m->key[i] ? m->value[i] : NULL;
}

/* Set key (copied) to value; 0, or -1 when out of memory. */
static int map_set(strmap *m, const char *key, void *value)
{
    if (2 * (m->n + 1) > m->cap) {
        strmap g = {calloc(m->cap ? 2 * m->cap : 64, sizeof(char *)),
                    calloc(m->cap ? 2 * m->cap : 64, sizeof(void *)), 0, m->cap ? 2 * m->cap : 64};
        if (!g.key || !g.value) {
            free(g.key);
            free(g.value);
            return -1;
        }
        for (size_t i = 0; i < m->cap; i++)
            if (m->key[i]) {
                size_t j = map_slot(&g, m->key[i]);
                g.key[j] = m->key[i];
                g.value[j] = m->value[i];
                g.n++;
            }
        free(m->key);
        free(m->value);
        *m = g;
    }
    size_t i = map_slot(m, key);
    if (!m->key[i]) {
        if (!(m->key[i] = strdup(key)))
            return -1;
        m->n++;
    }
    m->value[i] = value;
    return 0;
}

static void map_free(strmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->key[i]);
    free(m->key);
    free(m->value);
    memset(m, 0, sizeof *m);
}

/* ---- the bundle ---------------------------------------------------------- */

typedef struct bundle {
    char dir[4096];
    char where[4200]; /* scratch for "DIR/FILE" */
    cJSON *manifest;
    const cJSON *files; /* manifest "files" */
    const char *profile_id;
    /* rows kept while the facts are read (each map's values point into these) */
    cJSON *entities, *memories, *edges; /* arrays of the rows of those files */
    strmap entity_name;                 /* entity_id -> canonical_name (char *) */
    strmap memory_row;                  /* memory_id -> memories row (cJSON *) */
    strmap superseded;                  /* target fact_id -> supersedes edge row (cJSON *) */
    strmap fact_rid;                    /* fact_id -> rid (int64_t, as intptr) */
} bundle;

static const char *in_dir(bundle *b, const char *name)
{
    snprintf(b->where, sizeof b->where, "%s/%s", b->dir, name);
    return b->where;
}

/* A file name the manifest may list: a plain name inside the bundle. */
static int plain_name(const char *name)
{
    return *name && name[0] != '.' && !strchr(name, '/') && !strchr(name, '\\');
}

/* Python's json.dumps(..., sort_keys=True, separators=(",", ":"),
 * ensure_ascii=False) of a string, appended to out. */
static void canon_string(const char *s, char **out, size_t *n, size_t *cap);

static int canon_append(char **out, size_t *n, size_t *cap, const char *t, size_t len)
{
    if (*n + len + 1 > *cap) {
        size_t ncap = (*cap ? *cap : 256);
        while (*n + len + 1 > ncap)
            ncap *= 2;
        char *g = realloc(*out, ncap);
        if (!g)
            return -1;
        *out = g;
        *cap = ncap;
    }
    memcpy(*out + *n, t, len);
    *n += len;
    (*out)[*n] = '\0';
    return 0;
}

static void canon_string(const char *s, char **out, size_t *n, size_t *cap)
{
    canon_append(out, n, cap, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[8];
        const char *e = NULL;
        switch (c) {
        case '"':
            e = "\\\"";
            break;
        case '\\':
            e = "\\\\";
            break;
        case '\n':
            e = "\\n";
            break;
        case '\r':
            e = "\\r";
            break;
        case '\t':
            e = "\\t";
            break;
        case '\b':
            e = "\\b";
            break;
        case '\f':
            e = "\\f";
            break;
        default:
            if (c < 0x20) {
                snprintf(esc, sizeof esc, "\\u%04x", c);
                e = esc;
            }
        }
        if (e)
            canon_append(out, n, cap, e, strlen(e));
        else
            canon_append(out, n, cap, s, 1);
    }
    canon_append(out, n, cap, "\"", 1);
}

static int key_cmp(const void *a, const void *b)
{
    return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

/* The canonical JSON of v (keys sorted, no spaces); integers only as
 * numbers, as the identity holds. -1 for what it cannot write. */
static int canon(const cJSON *v, char **out, size_t *n, size_t *cap)
{
    if (cJSON_IsString(v)) {
        canon_string(v->valuestring, out, n, cap);
        return 0;
    }
    if (cJSON_IsNumber(v)) {
        if (v->valuedouble != floor(v->valuedouble) || fabs(v->valuedouble) > 1e15)
            return -1;
        char num[32];
        snprintf(num, sizeof num, "%.0f", v->valuedouble);
        return canon_append(out, n, cap, num, strlen(num));
    }
    if (cJSON_IsNull(v) || cJSON_IsBool(v)) {
        const char *t = cJSON_IsNull(v) ? "null" : cJSON_IsTrue(v) ? "true" : "false";
        return canon_append(out, n, cap, t, strlen(t));
    }
    int arr = cJSON_IsArray(v);
    if (!arr && !cJSON_IsObject(v))
        return -1;
    size_t k = (size_t)cJSON_GetArraySize(v), i = 0;
    const cJSON **items = malloc((k ? k : 1) * sizeof *items);
    if (!items)
        return -1;
    for (const cJSON *c = v->child; c; c = c->next)
        items[i++] = c;
    if (!arr)
        qsort(items, k, sizeof *items, key_cmp);
    int bad = canon_append(out, n, cap, arr ? "[" : "{", 1);
    for (i = 0; !bad && i < k; i++) {
        if (i)
            canon_append(out, n, cap, ",", 1);
        if (!arr) {
            canon_string(items[i]->string, out, n, cap);
            canon_append(out, n, cap, ":", 1);
        }
        bad = canon(items[i], out, n, cap);
    }
    free(items);
    return bad ? -1 : canon_append(out, n, cap, arr ? "]" : "}", 1);
}

/* Does the manifest's bundle_id match the sha256 of its identity? */
static ms_status check_bundle_id(bundle *b, ms_error *err)
{
    static const char *const keys[] = {"format", "schema_version", "profile_id", "files",
                                       "derivation_versions"};
    cJSON *id = cJSON_CreateObject();
    for (size_t i = 0; id && i < sizeof keys / sizeof *keys; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(b->manifest, keys[i]);
        cJSON *copy =
            v ? cJSON_Duplicate(v, 1) : (i == 4 ? cJSON_CreateArray() : cJSON_CreateNull());
        cJSON_AddItemToObject(id, keys[i], copy);
    }
    char *text = NULL, hex[SHA256_HEX];
    size_t n = 0, cap = 0;
    int bad = !id || canon(id, &text, &n, &cap);
    cJSON_Delete(id);
    const char *want =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b->manifest, "bundle_id"));
    if (!bad)
        sha256_hex(text, n, hex);
    free(text);
    if (bad || !want || strcmp(want, hex) != 0)
        return ms_fail(err, MS_PARSE,
                       "%s: \"bundle_id\" does not match the manifest's contents (the manifest "
                       "was changed after export)",
                       in_dir(b, "manifest.json"));
    return MS_OK;
}

/* The sha256 and newline count of file name. */
static ms_status hash_file(bundle *b, const char *name, char hex[SHA256_HEX], uint64_t *lines,
                           ms_error *err)
{
    FILE *f = fopen(in_dir(b, name), "rb");
    if (!f)
        return ms_fail(err, errno == ENOENT ? MS_PARSE : MS_IO, "%s: %s", b->where,
                       errno == ENOENT ? "listed in the manifest but missing" : strerror(errno));
    sha256_ctx c;
    sha256_init(&c);
    unsigned char buf[65536], d[SHA256_BYTES];
    size_t got;
    *lines = 0;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        sha256_update(&c, buf, got);
        for (size_t i = 0; i < got; i++)
            *lines += buf[i] == '\n';
    }
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return ms_fail(err, MS_IO, "%s: read error", b->where);
    sha256_final(&c, d);
    sha256_to_hex(d, hex);
    return MS_OK;
}

/* Check every file the manifest lists against its sha256 and count. */
static ms_status verify_files(bundle *b, ms_error *err)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, b->files)
    {
        const char *want = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "sha256"));
        const cJSON *count = cJSON_GetObjectItemCaseSensitive(e, "count");
        if (!plain_name(e->string) || !want || strlen(want) != 2 * SHA256_BYTES ||
            !cJSON_IsNumber(count))
            return ms_fail(err, MS_PARSE,
                           "%s: \"files\": entry \"%s\" needs a plain file name, a \"sha256\" "
                           "(64 hex digits) and a \"count\"",
                           in_dir(b, "manifest.json"), e->string);
        char hex[SHA256_HEX];
        uint64_t lines = 0;
        ms_status st = hash_file(b, e->string, hex, &lines, err);
        if (st)
            return st;
        if (strcasecmp(hex, want) != 0)
            return ms_fail(err, MS_PARSE,
                           "%s: sha256 %s does not match the manifest's %s (the file was "
                           "changed or damaged)",
                           in_dir(b, e->string), hex, want);
        if ((double)lines != count->valuedouble)
            return ms_fail(err, MS_PARSE, "%s: %llu lines, the manifest says %.0f",
                           in_dir(b, e->string), (unsigned long long)lines, count->valuedouble);
    }
    return MS_OK;
}

static ms_status read_manifest(bundle *b, ms_error *err)
{
    const char *file = in_dir(b, "manifest.json");
    char *t = NULL, name[4200];
    size_t len = 0;
    snprintf(name, sizeof name, "%s", file);
    struct stat sb;
    if (stat(name, &sb) != 0)
        return ms_fail(err, MS_PARSE, "%s: not an SLM evidence bundle: it has no manifest.json",
                       b->dir);
    ms_status st = import_read_whole(name, name, &t, &len, err);
    if (st)
        return st;
    b->manifest = import_parse_json(name, 1, t, len, err);
    free(t);
    if (!b->manifest)
        return err->code;
    const char *format =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b->manifest, "format"));
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(b->manifest, "schema_version");
    b->files = cJSON_GetObjectItemCaseSensitive(b->manifest, "files");
    b->profile_id =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b->manifest, "profile_id"));
    if (!format || strcmp(format, BUNDLE_FORMAT) != 0)
        return ms_fail(
            err, MS_PARSE, "%s: not an SLM evidence bundle: \"format\" is %s%s%s, not %s", name,
            format ? "\"" : "", format ? format : "missing", format ? "\"" : "", BUNDLE_FORMAT);
    if (!cJSON_IsNumber(ver) || ver->valuedouble != BUNDLE_SCHEMA)
        return ms_fail(err, MS_PARSE,
                       "%s: bundle schema_version %g; this memscope reads version %d", name,
                       cJSON_IsNumber(ver) ? ver->valuedouble : 0.0, BUNDLE_SCHEMA);
    if (!cJSON_IsObject(b->files) || !cJSON_GetObjectItemCaseSensitive(b->files, "facts.jsonl"))
        return ms_fail(err, MS_PARSE, "%s: \"files\" lists no facts.jsonl", name);
    return check_bundle_id(b, err);
}

/* ---- rows ---------------------------------------------------------------- */

typedef ms_status (*row_fn)(bundle *b, const char *file, uint64_t line, cJSON *row, void *ctx,
                            ms_error *err);

/* Call fn for each row of file name (when the manifest lists it: a file it
 * does not list is never read). fn takes the row. */
static ms_status each_row(bundle *b, const char *name, row_fn fn, void *ctx, uint64_t *bytes,
                          ms_error *err)
{
    if (!cJSON_GetObjectItemCaseSensitive(b->files, name))
        return MS_OK;
    char file[4200];
    snprintf(file, sizeof file, "%s", in_dir(b, name));
    import_lines *r = import_lines_open(file, err);
    if (!r)
        return err->code;
    char *t;
    size_t len;
    uint64_t line;
    int got;
    ms_status st = MS_OK;
    while (!st && (got = import_lines_next(r, file, &t, &len, &line, err)) == 1) {
        if (!len)
            continue;
        cJSON *row = import_parse_json(file, line, t, len, err);
        if (!row)
            st = err->code;
        else if (!cJSON_IsObject(row)) {
            cJSON_Delete(row);
            st = ms_fail(err, MS_PARSE, "%s:%llu:1: expected a row object {...}", file,
                         (unsigned long long)line);
        } else
            st = fn(b, file, line, row, ctx, err);
    }
    if (!st && got < 0)
        st = err->code;
    *bytes += import_lines_bytes(r);
    import_lines_close(r);
    return st;
}

static const char *row_str(const cJSON *row, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, key);
    return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

static double row_num(const cJSON *row, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, key);
    if (cJSON_IsBool(v))
        return cJSON_IsTrue(v);
    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : dflt;
}

/* Keep row in list and index it by its key column in map (when given). */
static ms_status keep_row(bundle *b, const char *file, uint64_t line, cJSON *row, cJSON *list,
                          const char *key, strmap *map, void *value, ms_error *err)
{
    (void)b;
    const char *id = row_str(row, key);
    if (!id) {
        cJSON_Delete(row);
        return ms_fail(err, MS_PARSE, "%s:%llu:1: a row without \"%s\"", file,
                       (unsigned long long)line, key);
    }
    cJSON_AddItemToArray(list, row);
    if (map && map_set(map, id, value ? value : row))
        return ms_fail(err, MS_NOMEM, "out of memory");
    return MS_OK;
}

static ms_status entity_row(bundle *b, const char *file, uint64_t line, cJSON *row, void *ctx,
                            ms_error *err)
{
    (void)ctx;
    const char *name = row_str(row, "canonical_name");
    if (!name) {
        cJSON_Delete(row);
        return ms_fail(err, MS_PARSE, "%s:%llu:1: an entity without \"canonical_name\"", file,
                       (unsigned long long)line);
    }
    return keep_row(b, file, line, row, b->entities, "entity_id", &b->entity_name, (void *)name,
                    err);
}

static ms_status memory_row(bundle *b, const char *file, uint64_t line, cJSON *row, void *ctx,
                            ms_error *err)
{
    (void)ctx;
    return keep_row(b, file, line, row, b->memories, "memory_id", &b->memory_row, NULL, err);
}

static ms_status edge_row(bundle *b, const char *file, uint64_t line, cJSON *row, void *ctx,
                          ms_error *err)
{
    (void)ctx;
    const char *type = row_str(row, "edge_type");
    if (!row_str(row, "source_id") || !row_str(row, "target_id") || !type) {
        cJSON_Delete(row);
        return ms_fail(err, MS_PARSE,
                       "%s:%llu:1: an edge needs \"source_id\", \"target_id\" and \"edge_type\"",
                       file, (unsigned long long)line);
    }
    /* the source supersedes the target */
    strmap *map = strcmp(type, "supersedes") == 0 ? &b->superseded : NULL;
    return keep_row(b, file, line, row, b->edges, "target_id", map, NULL, err);
}

/* ---- facts ---------------------------------------------------------------- */

typedef struct fact_ctx {
    store *s;
    const import_opts *opts;
    import_stats *stats;
} fact_ctx;

/* Is the fact hidden everywhere in SLM: archived or quarantined? */
static int fact_hidden(const cJSON *row)
{
    const char *archive = row_str(row, "archive_status");
    return (archive && strcmp(archive, "archived") == 0) || row_num(row, "quarantined", 0) != 0;
}

/* The fact's entities: canonical_entities_json (entity ids or names), else
 * entities_json; ids become their canonical names; at most
 * STORE_ENTITIES_MAX, each once. */
static ms_status fact_entities(bundle *b, const cJSON *row, store_memory *m, ms_error *err)
{
    const char *text = row_str(row, "canonical_entities_json");
    cJSON *a = text ? cJSON_Parse(text) : NULL;
    if (!cJSON_GetArraySize(a)) {
        cJSON_Delete(a);
        text = row_str(row, "entities_json");
        a = text ? cJSON_Parse(text) : NULL;
    }
    if (!cJSON_GetArraySize(a)) {
        cJSON_Delete(a);
        return MS_OK;
    }
    m->entities = calloc(STORE_ENTITIES_MAX + 1, sizeof *m->entities);
    const cJSON *v;
    cJSON_ArrayForEach(v, a)
    {
        const char *name = cJSON_GetStringValue(v);
        const char *canon = name ? map_get(&b->entity_name, name) : NULL;
        name = canon ? canon : name;
        int seen = !name || !*name || !m->entities;
        for (size_t i = 0; !seen && i < m->n_entities; i++)
            seen = strcmp(m->entities[i], name) == 0;
        if (!seen && m->n_entities < STORE_ENTITIES_MAX &&
            !(m->entities[m->n_entities++] = strdup(name)))
            m->entities = NULL;
    }
    cJSON_Delete(a);
    return m->entities ? MS_OK : ms_fail(err, MS_NOMEM, "out of memory");
}

/* Is the ISO time text before now? */
static int passed(const char *text)
{
    int64_t ts;
    return text && store_parse_time(text, &ts) == 0 && ts < (int64_t)time(NULL);
}

/* Supersession as SLM records it: a supersedes edge, a merge, a passed
 * valid_until. */
static ms_status fact_supersession(bundle *b, const cJSON *row, store_memory *m, ms_error *err)
{
    const char *id = row_str(row, "fact_id");
    const cJSON *edge = map_get(&b->superseded, id);
    const char *by = NULL, *at = NULL, *why = NULL;
    if (edge) {
        by = row_str(edge, "source_id");
        at = row_str(edge, "created_at");
        why = "supersedes edge";
    } else if (row_str(row, "merged_into")) {
        by = row_str(row, "merged_into");
        why = "merged into a newer fact";
    } else if (passed(row_str(row, "valid_until"))) {
        at = row_str(row, "valid_until");
        why = "valid_until passed";
    }
    if (!why)
        return MS_OK;
    if ((by && !(m->superseded_by = strdup(by))) || (at && !(m->superseded_at = strdup(at))) ||
        !(m->superseded_reason = strdup(why)))
        return ms_fail(err, MS_NOMEM, "out of memory");
    return MS_OK;
}

/* fact_type, scope, lifecycle, SLM's memory and profile as metadata. */
static char *fact_metadata(const bundle *b, const cJSON *row)
{
    static const char *const keys[] = {"fact_type", "scope", "lifecycle", "memory_id"};
    cJSON *o = cJSON_CreateObject();
    for (size_t i = 0; o && i < sizeof keys / sizeof *keys; i++)
        if (row_str(row, keys[i]))
            cJSON_AddStringToObject(o, keys[i], row_str(row, keys[i]));
    if (o && b->profile_id)
        cJSON_AddStringToObject(o, "slm_profile", b->profile_id);
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return text;
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* The plain fields of a fact: text, times, provenance, scores. */
static ms_status fact_fields(bundle *b, const cJSON *row, store_memory *m, ms_error *err)
{
    const cJSON *raw = map_get(&b->memory_row, row_str(row, "memory_id"));
    const char *event = row_str(row, "referenced_date");
    event = event ? event : row_str(row, "interval_start");
    event = event ? event : row_str(row, "observation_date");
    const char *session = raw ? row_str(raw, "session_id") : NULL;
    m->id = dup_or_null(row_str(row, "fact_id"));
    m->content =
        dup_or_null(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "content")));
    m->created_at = dup_or_null(row_str(row, "created_at"));
    m->event_time = dup_or_null(event);
    m->speaker = dup_or_null(raw ? row_str(raw, "speaker") : NULL);
    m->session = dup_or_null(session ? session : row_str(row, "session_id"));
    m->source = strdup("slm-bundle");
    m->metadata = fact_metadata(b, row);
    m->memory_confidence = import_unit(row_num(row, "confidence", 1.0));
    m->importance = import_unit(row_num(row, "importance", 0.5));
    m->pinned = row_num(row, "pinned", 0) != 0;
    double ac = row_num(row, "access_count", 0);
    m->access_count = ac > 0 && ac < 1e15 ? (int64_t)ac : 0;
    if (!m->id || !m->content || !m->source || !m->metadata)
        return ms_fail(err, MS_NOMEM, "out of memory");
    return MS_OK;
}

static ms_status fact_row(bundle *b, const char *file, uint64_t line, cJSON *row, void *ctx,
                          ms_error *err)
{
    fact_ctx *x = ctx;
    ms_status st = MS_OK;
    if (!row_str(row, "fact_id") ||
        !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(row, "content")))
        st = ms_fail(err, MS_PARSE, "%s:%llu:1: a fact needs \"fact_id\" and \"content\"", file,
                     (unsigned long long)line);
    if (!st && fact_hidden(row)) {
        x->stats->hidden++;
        cJSON_Delete(row);
        return MS_OK;
    }
    store_memory m;
    store_memory_init(&m);
    if (!st)
        st = fact_fields(b, row, &m, err);
    if (!st)
        st = fact_entities(b, row, &m, err);
    if (!st)
        st = fact_supersession(b, row, &m, err);
    if (!st)
        st = import_put(x->s, x->opts, x->stats, &m, file, line, err);
    if (!st && map_set(&b->fact_rid, m.id, (void *)(intptr_t)m.rid))
        st = ms_fail(err, MS_NOMEM, "out of memory");
    store_memory_clear(&m);
    cJSON_Delete(row);
    return st;
}

/* SLM's graph edges between imported facts, mapped by
 * import_slm_edge_type as import_slm.c maps them. */
static ms_status write_edges(bundle *b, store *s, import_stats *stats, ms_error *err)
{
    const cJSON *row;
    cJSON_ArrayForEach(row, b->edges)
    {
        int t = import_slm_edge_type(row_str(row, "edge_type"));
        int64_t a = (int64_t)(intptr_t)map_get(&b->fact_rid, row_str(row, "source_id"));
        int64_t c = (int64_t)(intptr_t)map_get(&b->fact_rid, row_str(row, "target_id"));
        if (t == 0 || t == SLM_EDGE_SUPERSEDES)
            continue;
        if (!a || !c)
            continue; /* an end that is no imported fact */
        if (t == SLM_EDGE_CONTRADICTS) {
            ms_status st = a == c ? MS_OK : store_set_contradicts(s, a, c, SLM_CONTRADICTION, err);
            if (st)
                return st;
            stats->contradicts += a != c;
            continue;
        }
        ms_status st = store_add_edge(s, a, c, t, import_unit(row_num(row, "weight", 1.0)), err);
        if (st)
            return st;
        stats->edges += a != c;
    }
    return MS_OK;
}

/* ---- entry --------------------------------------------------------------- */

/* b->dir from path: the directory, or the one holding path's manifest.json. */
static int bundle_dir(const char *path, char *dir, size_t cap)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return -1;
    size_t n = strlen(path);
    if (S_ISDIR(sb.st_mode)) {
        while (n > 1 && path[n - 1] == '/')
            n--;
    } else {
        const char *slash = strrchr(path, '/');
        if (strcmp(slash ? slash + 1 : path, "manifest.json") != 0)
            return -1;
        n = slash ? (size_t)(slash - path) : 1;
        path = slash ? path : ".";
    }
    if (n >= cap)
        return -1;
    memcpy(dir, path, n);
    dir[n] = '\0';
    return 0;
}

int import_bundle_sniff(const char *path)
{
    char dir[4096], m[4200];
    struct stat sb;
    if (bundle_dir(path, dir, sizeof dir))
        return 0;
    snprintf(m, sizeof m, "%s/manifest.json", dir);
    return stat(m, &sb) == 0 && S_ISREG(sb.st_mode);
}

static void bundle_free(bundle *b)
{
    map_free(&b->entity_name);
    map_free(&b->memory_row);
    map_free(&b->superseded);
    map_free(&b->fact_rid);
    cJSON_Delete(b->entities);
    cJSON_Delete(b->memories);
    cJSON_Delete(b->edges);
    cJSON_Delete(b->manifest);
    free(b);
}

ms_status import_bundle(store *s, const char *path, const import_opts *opts, import_stats *stats,
                        ms_error *err)
{
    bundle *b = calloc(1, sizeof *b);
    if (!b)
        return ms_fail(err, MS_NOMEM, "out of memory");
    ms_status st = MS_OK;
    if (bundle_dir(path, b->dir, sizeof b->dir))
        st = ms_fail(err, MS_PARSE,
                     "%s: not an SLM evidence bundle: expected its directory (or its "
                     "manifest.json)",
                     path);
    if (!st)
        st = read_manifest(b, err);
    if (!st)
        st = verify_files(b, err);
    b->entities = cJSON_CreateArray();
    b->memories = cJSON_CreateArray();
    b->edges = cJSON_CreateArray();
    if (!st && (!b->entities || !b->memories || !b->edges))
        st = ms_fail(err, MS_NOMEM, "out of memory");
    if (!st)
        st = each_row(b, "entities.jsonl", entity_row, NULL, &stats->bytes, err);
    if (!st)
        st = each_row(b, "memories.jsonl", memory_row, NULL, &stats->bytes, err);
    if (!st)
        st = each_row(b, "graph_edges.jsonl", edge_row, NULL, &stats->bytes, err);
    fact_ctx x = {s, opts, stats};
    if (!st)
        st = each_row(b, "facts.jsonl", fact_row, &x, &stats->bytes, err);
    if (!st)
        st = write_edges(b, s, stats, err);
    bundle_free(b);
    return st;
}
