/* import_mcp.c - the knowledge graph of the reference MCP memory server
 * (@modelcontextprotocol/server-memory): a JSONL file of
 *   {"type":"entity","name":N,"entityType":T,"observations":[...]}
 *   {"type":"relation","from":A,"to":B,"relationType":R}
 * lines, with no ids, times or vectors.
 *
 * Each observation becomes a memory about its entity: its text as it is,
 * the entity linked (a given entity), the entity's name and type and every
 * relation it takes part in kept as metadata. A relation becomes relation
 * edges between the memories of its two entities. The whole file is read
 * and checked before anything is written, so the edges can be added once
 * every memory has its row, and a bad line names itself before any write. */
#include "import_int.h"

#include <stdlib.h>
#include <string.h>

#include "sha256.h"

#define MCP_EDGES_PER_RELATION 4096 /* pairs of memories one relation links at most */

typedef struct mcp_entity {
    const char *name, *type; /* inside json */
    const cJSON *obs;        /* the observations array, inside json */
    uint64_t line;
    cJSON *json; /* the parsed line (owned) */
    int64_t *rids;
    size_t n_rids;
} mcp_entity;

typedef struct mcp_relation {
    const char *from, *to, *type; /* inside json */
    cJSON *json;                  /* the parsed line (owned) */
} mcp_relation;

typedef struct mcp_graph {
    const char *file;
    mcp_entity *ent;
    size_t n_ent, cap_ent;
    mcp_relation *rel;
    size_t n_rel, cap_rel;
} mcp_graph;

static void graph_free(mcp_graph *g)
{
    for (size_t i = 0; i < g->n_ent; i++) {
        cJSON_Delete(g->ent[i].json);
        free(g->ent[i].rids);
    }
    for (size_t i = 0; i < g->n_rel; i++)
        cJSON_Delete(g->rel[i].json);
    free(g->ent);
    free(g->rel);
}

static const char *str_field(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

static mcp_entity *find_entity(mcp_graph *g, const char *name)
{
    for (size_t i = 0; i < g->n_ent; i++)
        if (strcmp(g->ent[i].name, name) == 0)
            return &g->ent[i];
    return NULL;
}

/* Room for one more entity / relation: 0, or -1 when out of memory. */
static int grow_entities(mcp_graph *g)
{
    if (g->n_ent < g->cap_ent)
        return 0;
    size_t cap = g->cap_ent ? 2 * g->cap_ent : 16;
    mcp_entity *v = realloc(g->ent, cap * sizeof *v);
    if (!v)
        return -1;
    g->ent = v;
    g->cap_ent = cap;
    return 0;
}

static int grow_relations(mcp_graph *g)
{
    if (g->n_rel < g->cap_rel)
        return 0;
    size_t cap = g->cap_rel ? 2 * g->cap_rel : 16;
    mcp_relation *v = realloc(g->rel, cap * sizeof *v);
    if (!v)
        return -1;
    g->rel = v;
    g->cap_rel = cap;
    return 0;
}

/* An entity line o (line `line`) into the graph; takes o. */
static ms_status add_entity(mcp_graph *g, cJSON *o, uint64_t line, ms_error *err)
{
    const char *name = str_field(o, "name"), *type = str_field(o, "entityType");
    const cJSON *obs = cJSON_GetObjectItemCaseSensitive(o, "observations");
    ms_status st = MS_OK;
    if (!name || !type || !cJSON_IsArray(obs))
        st = ms_fail(err, MS_PARSE,
                     "%s:%llu:1: an entity needs a \"name\", an \"entityType\" (non-empty "
                     "strings) and an \"observations\" array",
                     g->file, (unsigned long long)line);
    const cJSON *v;
    cJSON_ArrayForEach(v, obs)
    {
        if (!st && !cJSON_IsString(v))
            st = ms_fail(err, MS_PARSE,
                         "%s:%llu:1: entity \"%s\": every observation must be a string", g->file,
                         (unsigned long long)line, name);
    }
    mcp_entity *dup = st ? NULL : find_entity(g, name);
    if (dup)
        st = ms_fail(err, MS_PARSE,
                     "%s:%llu:1: a second entity named \"%s\" (the first is on line %llu)", g->file,
                     (unsigned long long)line, name, (unsigned long long)dup->line);
    if (!st && grow_entities(g))
        st = ms_fail(err, MS_NOMEM, "out of memory");
    if (st) {
        cJSON_Delete(o);
        return st;
    }
    g->ent[g->n_ent++] = (mcp_entity){name, type, obs, line, o, NULL, 0};
    return MS_OK;
}

/* A relation line o into the graph; takes o. */
static ms_status add_relation(mcp_graph *g, cJSON *o, uint64_t line, ms_error *err)
{
    const char *from = str_field(o, "from"), *to = str_field(o, "to");
    const char *type = str_field(o, "relationType");
    ms_status st = MS_OK;
    if (!from || !to || !type)
        st = ms_fail(err, MS_PARSE,
                     "%s:%llu:1: a relation needs \"from\", \"to\" and \"relationType\" "
                     "(non-empty strings)",
                     g->file, (unsigned long long)line);
    if (!st && grow_relations(g))
        st = ms_fail(err, MS_NOMEM, "out of memory");
    if (st) {
        cJSON_Delete(o);
        return st;
    }
    g->rel[g->n_rel++] = (mcp_relation){from, to, type, o};
    return MS_OK;
}

/* One line of the file into the graph. */
static ms_status read_line(mcp_graph *g, const char *t, size_t len, uint64_t line, ms_error *err)
{
    cJSON *o = import_parse_json(g->file, line, t, len, err);
    if (!o)
        return err->code;
    const char *type = cJSON_IsObject(o) ? str_field(o, "type") : NULL;
    if (type && strcmp(type, "entity") == 0)
        return add_entity(g, o, line, err);
    if (type && strcmp(type, "relation") == 0)
        return add_relation(g, o, line, err);
    cJSON_Delete(o);
    return ms_fail(err, MS_PARSE,
                   "%s:%llu:1: not a line of an MCP memory graph: expected an object with "
                   "\"type\": \"entity\" or \"relation\"",
                   g->file, (unsigned long long)line);
}

static ms_status read_graph(mcp_graph *g, const char *path, import_stats *stats, ms_error *err)
{
    import_lines *r = import_lines_open(path, err);
    if (!r)
        return err->code;
    char *t;
    size_t len;
    uint64_t line;
    int got;
    ms_status st = MS_OK;
    while (!st && (got = import_lines_next(r, g->file, &t, &len, &line, err)) == 1) {
        if (line == 1 && len >= 3 && memcmp(t, "\xef\xbb\xbf", 3) == 0)
            memset(t, ' ', 3);
        size_t i = 0;
        while (i < len && (t[i] == ' ' || t[i] == '\t'))
            i++;
        if (i < len)
            st = read_line(g, t, len, line, err);
    }
    if (!st && got < 0)
        st = err->code;
    stats->bytes += import_lines_bytes(r);
    import_lines_close(r);
    return st;
}

/* "FROM relationType TO" for every relation entity e takes part in, as a
 * metadata array; NULL when none. */
static cJSON *relations_of(const mcp_graph *g, const mcp_entity *e)
{
    cJSON *a = NULL;
    for (size_t i = 0; i < g->n_rel; i++) {
        const mcp_relation *r = &g->rel[i];
        if (strcmp(r->from, e->name) != 0 && strcmp(r->to, e->name) != 0)
            continue;
        size_t n = strlen(r->from) + strlen(r->type) + strlen(r->to) + 3;
        char *text = malloc(n);
        if (!text || (!a && !(a = cJSON_CreateArray()))) {
            free(text);
            cJSON_Delete(a);
            return NULL;
        }
        snprintf(text, n, "%s %s %s", r->from, r->type, r->to);
        cJSON_AddItemToArray(a, cJSON_CreateString(text));
        free(text);
    }
    return a;
}

/* The metadata object of e's memories as JSON text; NULL when out of
 * memory. */
static char *entity_metadata(const mcp_graph *g, const mcp_entity *e)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "entity", e->name);
    cJSON_AddStringToObject(o, "entity_type", e->type);
    cJSON *rel = relations_of(g, e);
    if (rel)
        cJSON_AddItemToObject(o, "relations", rel);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

/* The memory of observation obs of entity e. Its id is stable across
 * re-imports and edits of other observations: "mcp-" and 16 hex digits of
 * sha256(entity name, NUL, observation). */
static ms_status observation_memory(const mcp_entity *e, const char *obs, const char *meta,
                                    store_memory *m, ms_error *err)
{
    sha256_ctx c;
    unsigned char d[SHA256_BYTES];
    char hex[SHA256_HEX], id[24];
    sha256_init(&c);
    sha256_update(&c, e->name, strlen(e->name) + 1);
    sha256_update(&c, obs, strlen(obs));
    sha256_final(&c, d);
    sha256_to_hex(d, hex);
    snprintf(id, sizeof id, "mcp-%.16s", hex);
    store_memory_init(m);
    m->id = strdup(id);
    m->content = strdup(obs);
    m->source = strdup("mcp-memory");
    m->metadata = strdup(meta);
    m->entities = calloc(2, sizeof *m->entities);
    if (m->entities && (m->entities[0] = strdup(e->name)))
        m->n_entities = 1;
    if (!m->id || !m->content || !m->source || !m->metadata || !m->n_entities) {
        store_memory_clear(m);
        return ms_fail(err, MS_NOMEM, "out of memory");
    }
    return MS_OK;
}

/* Every observation of e as a memory; their rids into e->rids. */
static ms_status write_entity(store *s, const import_opts *opts, import_stats *stats, mcp_graph *g,
                              mcp_entity *e, ms_error *err)
{
    char *meta = entity_metadata(g, e);
    int n = cJSON_GetArraySize(e->obs);
    e->rids = calloc((size_t)n + 1, sizeof *e->rids);
    if (!meta || !e->rids) {
        free(meta);
        return ms_fail(err, MS_NOMEM, "out of memory");
    }
    ms_status st = MS_OK;
    const cJSON *v;
    cJSON_ArrayForEach(v, e->obs)
    {
        store_memory m;
        st = observation_memory(e, v->valuestring, meta, &m, err);
        if (!st)
            st = import_put(s, opts, stats, &m, g->file, e->line, err);
        if (!st)
            e->rids[e->n_rids++] = m.rid;
        store_memory_clear(&m);
        if (st)
            break;
    }
    free(meta);
    return st;
}

/* Relation edges between the memories of each relation's two entities. A
 * relation naming an entity the file does not hold (or one without
 * observations) links nothing; it stays in the other entity's metadata. */
static ms_status write_relations(store *s, import_stats *stats, mcp_graph *g, ms_error *err)
{
    for (size_t i = 0; i < g->n_rel; i++) {
        const mcp_entity *a = find_entity(g, g->rel[i].from), *b = find_entity(g, g->rel[i].to);
        size_t pairs = 0;
        for (size_t x = 0; a && b && x < a->n_rids; x++)
            for (size_t y = 0; y < b->n_rids && pairs < MCP_EDGES_PER_RELATION; y++, pairs++) {
                ms_status st =
                    store_add_edge(s, a->rids[x], b->rids[y], STORE_EDGE_RELATION, 1.0, err);
                if (st)
                    return st;
                if (a->rids[x] != b->rids[y])
                    stats->edges++;
            }
    }
    return MS_OK;
}

int import_mcp_sniff(const char *head, size_t n)
{
    /* The server writes "type" first; a memory JSONL line has no "type". */
    static const char *const starts[] = {"{\"type\":\"entity\"", "{\"type\":\"relation\"",
                                         "{\"type\": \"entity\"", "{\"type\": \"relation\""};
    for (size_t i = 0; i < sizeof starts / sizeof *starts; i++)
        if (n >= strlen(starts[i]) && memcmp(head, starts[i], strlen(starts[i])) == 0)
            return 1;
    return 0;
}

ms_status import_mcp(store *s, const char *path, const char *file, const import_opts *opts,
                     import_stats *stats, ms_error *err)
{
    mcp_graph g = {.file = file};
    ms_status st = read_graph(&g, path, stats, err);
    for (size_t i = 0; !st && i < g.n_ent; i++)
        st = write_entity(s, opts, stats, &g, &g.ent[i], err);
    if (!st)
        st = write_relations(s, stats, &g, err);
    graph_free(&g);
    return st;
}
