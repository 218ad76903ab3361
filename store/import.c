/* import.c - memory JSONL, JSON arrays and LoCoMo files into a store.
 *
 * Every byte is checked before it reaches cJSON: UTF-8 validity, a UTF-16
 * byte-order mark, line length, nesting depth, NUL escapes. Errors carry
 * FILE:LINE:COL of what is wrong. JSONL is streamed a line at a time (read
 * and parsed on a second thread, import_jsonl), so a file of any size
 * imports in bounded memory. */
#include "import.h"
#include "store/base/mono.h"
#include "import_int.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* Where we are in the input, for error messages. */
typedef struct place {
    const char *file;
    const char *text; /* start of the current line (or of the whole text) */
    uint64_t line;    /* 1-based line of `text` */
} place;

/* The contradicts relations one record gives: the ids of the memories of
 * its profile it contradicts, each with its reason (NULL when none). */
typedef struct given_rel {
    char *id, *reason;
} given_rel;
typedef struct given_rels {
    given_rel *v;
    size_t n;
} given_rels;

/* A given relation waiting for the end of the file, where the memory it
 * names may be. */
typedef struct pending_rel {
    char profile[STORE_PROFILE_MAX + 1];
    int64_t src;
    given_rel rel;
} pending_rel;

typedef struct importer {
    store *s;
    const import_opts *opts;
    import_stats *stats;
    ms_error *err;
    char home_profile[STORE_PROFILE_MAX + 1]; /* profile to return to */
    double last_progress;                     /* mono_ms() of the last progress report */
    pending_rel *pend;                        /* contradicts relations to record at the end */
    size_t n_pend, cap_pend;
} importer;

static void given_rels_clear(given_rels *g)
{
    for (size_t i = 0; i < g->n; i++) {
        free(g->v[i].id);
        free(g->v[i].reason);
    }
    free(g->v);
    g->v = NULL;
    g->n = 0;
}

/* ---- positions --------------------------------------------------------- */

/* Line and character column of byte offset off in pl->text. */
static void locate(const place *pl, size_t off, uint64_t *line, uint64_t *col)
{
    *line = pl->line;
    *col = 1;
    for (size_t i = 0; i < off && pl->text[i]; i++) {
        unsigned char c = (unsigned char)pl->text[i];
        if (c == '\n') {
            (*line)++;
            *col = 1;
        } else if ((c & 0xc0) != 0x80) {
            (*col)++;
        }
    }
}

static ms_status fail_at(importer *im, const place *pl, size_t off, ms_status code, const char *fmt,
                         ...) __attribute__((format(printf, 5, 6)));

static ms_status fail_at(importer *im, const place *pl, size_t off, ms_status code, const char *fmt,
                         ...)
{
    char what[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    uint64_t line, col;
    locate(pl, off, &line, &col);
    return ms_fail(im->err, code, "%s:%llu:%llu: %s", pl->file, (unsigned long long)line,
                   (unsigned long long)col, what);
}

/* Offset of the value of "key" within an object starting at obj, or 0. */
static size_t key_offset(const char *obj, size_t len, const char *key)
{
    size_t k = strlen(key);
    for (size_t i = 0; i + k + 2 <= len; i++) {
        if (obj[i] == '"' && strncmp(obj + i + 1, key, k) == 0 && obj[i + 1 + k] == '"') {
            size_t j = i + k + 2;
            while (j < len && (obj[j] == ' ' || obj[j] == '\t' || obj[j] == '\r'))
                j++;
            if (j < len && obj[j] == ':') {
                j++;
                while (j < len && (obj[j] == ' ' || obj[j] == '\t'))
                    j++;
                return j;
            }
        }
    }
    return 0;
}

/* ---- pre-checks on raw text -------------------------------------------- */

enum scan_problem { SCAN_OK, SCAN_NUL, SCAN_DEEP };

/* Nesting depth and \u0000 escapes. Returns the problem and sets *at to its
 * offset. */
static enum scan_problem scan_json(const char *t, size_t len, size_t *at)
{
    int depth = 0, in_str = 0;
    for (size_t i = 0; i < len; i++) {
        char c = t[i];
        if (in_str) {
            if (c == '\\') {
                if (i + 5 < len && memcmp(t + i + 1, "u0000", 5) == 0) {
                    *at = i;
                    return SCAN_NUL;
                }
                i++;
            } else if (c == '"') {
                in_str = 0;
            }
        } else if (c == '"') {
            in_str = 1;
        } else if (c == '[' || c == '{') {
            if (++depth > IMPORT_DEPTH_MAX) {
                *at = i;
                return SCAN_DEEP;
            }
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    return SCAN_OK;
}

static ms_status check_bytes(importer *im, const place *pl, const char *t, size_t len)
{
    long bad = store_utf8_invalid_at(t, len);
    if (bad >= 0)
        return fail_at(im, pl, (size_t)bad, MS_PARSE,
                       t[bad] ? "invalid UTF-8 byte 0x%02x" : "a NUL byte (0x%02x) in the text",
                       (unsigned char)t[bad]);
    size_t at = 0;
    switch (scan_json(t, len, &at)) {
    case SCAN_NUL:
        return fail_at(im, pl, at, MS_PARSE,
                       "a string holds \\u0000 (NUL), which memscope does not store");
    case SCAN_DEEP:
        return fail_at(im, pl, at, MS_LIMIT, "nesting is deeper than the limit of %d levels",
                       IMPORT_DEPTH_MAX);
    default:
        return MS_OK;
    }
}

/* ---- one memory object ------------------------------------------------- */

static ms_status type_error(importer *im, const place *pl, const char *obj, size_t len, size_t base,
                            const char *key, const char *want)
{
    return fail_at(im, pl, base + key_offset(obj, len, key), MS_PARSE, "\"%s\" must be %s", key,
                   want);
}

/* Object o's member key, as cJSON_GetObjectItemCaseSensitive finds it (the
 * first of that name), each name's first byte compared before the rest: a
 * line's fields are looked up two dozen times, each along all its members. */
static const cJSON *member(const cJSON *o, const char *key)
{
    if (!cJSON_IsObject(o))
        return NULL;
    for (const cJSON *c = o->child; c && c->string; c = c->next)
        if (c->string[0] == key[0] && strcmp(c->string, key) == 0)
            return c;
    return NULL;
}

static char *dup_string(const cJSON *v)
{
    return v && cJSON_IsString(v) ? strdup(v->valuestring) : NULL;
}

/* A string field (or an integer, written as text, when allow_int). */
static ms_status get_text(importer *im, const place *pl, const char *obj, size_t len, size_t base,
                          const cJSON *o, const char *key, int allow_int, char **out)
{
    const cJSON *v = member(o, key);
    if (!v || cJSON_IsNull(v))
        return MS_OK;
    if (cJSON_IsString(v)) {
        *out = dup_string(v);
    } else if (allow_int && cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) &&
               fabs(v->valuedouble) < 1e15) {
        char buf[32];
        snprintf(buf, sizeof buf, "%.0f", v->valuedouble);
        *out = strdup(buf);
    } else {
        return type_error(im, pl, obj, len, base, key,
                          allow_int ? "a string or an integer" : "a string");
    }
    return *out ? MS_OK : ms_fail(im->err, MS_NOMEM, "out of memory");
}

static ms_status get_number(importer *im, const place *pl, const char *obj, size_t len, size_t base,
                            const cJSON *o, const char *key, double *out)
{
    const cJSON *v = member(o, key);
    if (!v || cJSON_IsNull(v))
        return MS_OK;
    if (!cJSON_IsNumber(v))
        return type_error(im, pl, obj, len, base, key, "a number");
    if (!isfinite(v->valuedouble))
        return fail_at(im, pl, base + key_offset(obj, len, key), MS_PARSE, "\"%s\" is out of range",
                       key);
    *out = v->valuedouble;
    return MS_OK;
}

static ms_status get_trust(importer *im, const place *pl, const char *obj, size_t len, size_t base,
                           const cJSON *o, store_memory *m)
{
    const cJSON *t = member(o, "trust");
    if (!t || cJSON_IsNull(t))
        return MS_OK;
    const cJSON *a = member(t, "alpha");
    const cJSON *b = member(t, "beta");
    if (!cJSON_IsObject(t) || !cJSON_IsNumber(a) || !cJSON_IsNumber(b))
        return type_error(im, pl, obj, len, base, "trust",
                          "an object {\"alpha\": number, \"beta\": number}");
    m->trust_alpha = a->valuedouble;
    m->trust_beta = b->valuedouble;
    return MS_OK;
}

static ms_status get_entities(importer *im, const place *pl, const char *obj, size_t len,
                              size_t base, const cJSON *o, store_memory *m)
{
    const cJSON *e = member(o, "entities");
    if (!e || cJSON_IsNull(e))
        return MS_OK;
    if (!cJSON_IsArray(e))
        return type_error(im, pl, obj, len, base, "entities", "an array of strings");
    int n = cJSON_GetArraySize(e);
    if (n > STORE_ENTITIES_MAX)
        return fail_at(im, pl, base + key_offset(obj, len, "entities"), MS_LIMIT,
                       "\"entities\" has %d names; the limit is %d", n, STORE_ENTITIES_MAX);
    m->entities = calloc((size_t)n + 1, sizeof *m->entities);
    if (!m->entities)
        return ms_fail(im->err, MS_NOMEM, "out of memory");
    const cJSON *v;
    cJSON_ArrayForEach(v, e)
    {
        if (!cJSON_IsString(v))
            return type_error(im, pl, obj, len, base, "entities", "an array of strings");
        if (!(m->entities[m->n_entities++] = strdup(v->valuestring)))
            return ms_fail(im->err, MS_NOMEM, "out of memory");
    }
    return MS_OK;
}

static ms_status get_embedding(importer *im, const place *pl, const char *obj, size_t len,
                               size_t base, const cJSON *o, store_memory *m)
{
    const cJSON *e = member(o, "embedding");
    if (!e || cJSON_IsNull(e))
        return MS_OK;
    int n = cJSON_IsArray(e) ? cJSON_GetArraySize(e) : 0;
    if (n <= 0)
        return type_error(im, pl, obj, len, base, "embedding", "a non-empty array of numbers");
    if (n > STORE_DIM_MAX)
        return fail_at(im, pl, base + key_offset(obj, len, "embedding"), MS_LIMIT,
                       "\"embedding\" has %d numbers; the limit is %d", n, STORE_DIM_MAX);
    m->embedding = malloc((size_t)n * sizeof *m->embedding);
    if (!m->embedding)
        return ms_fail(im->err, MS_NOMEM, "out of memory");
    const cJSON *v;
    cJSON_ArrayForEach(v, e)
    {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || fabs(v->valuedouble) > 1e30)
            return type_error(im, pl, obj, len, base, "embedding", "an array of finite numbers");
        m->embedding[m->dim++] = (float)v->valuedouble;
    }
    const char *eid = im->opts->embedder_id ? im->opts->embedder_id : "given";
    if (!(m->embedder_id = strdup(eid)))
        return ms_fail(im->err, MS_NOMEM, "out of memory");
    return MS_OK;
}

/* "metadata": an object of free keys and values, kept as its JSON text. */
static ms_status get_metadata(importer *im, const place *pl, const char *obj, size_t len,
                              size_t base, const cJSON *o, store_memory *m)
{
    const cJSON *v = member(o, "metadata");
    if (!v || cJSON_IsNull(v))
        return MS_OK;
    if (!cJSON_IsObject(v))
        return type_error(im, pl, obj, len, base, "metadata", "an object {\"key\": value, ...}");
    if (!(m->metadata = cJSON_PrintUnformatted(v)))
        return ms_fail(im->err, MS_NOMEM, "out of memory");
    return MS_OK;
}

/* Schema 6's fields: metadata, supersession, the model of "embedding". */
static ms_status get_v6_fields(importer *im, const place *pl, const char *obj, size_t len,
                               size_t base, const cJSON *o, store_memory *m)
{
    ms_status st = get_metadata(im, pl, obj, len, base, o, m);
    if (!st)
        st = get_text(im, pl, obj, len, base, o, "superseded_by", 1, &m->superseded_by);
    if (!st)
        st = get_text(im, pl, obj, len, base, o, "superseded_at", 0, &m->superseded_at);
    if (!st)
        st = get_text(im, pl, obj, len, base, o, "superseded_reason", 0, &m->superseded_reason);
    char *model = NULL;
    if (!st)
        st = get_text(im, pl, obj, len, base, o, "embedding_model", 0, &model);
    if (!st && model && m->embedding) { /* it names who made this vector */
        free(m->embedder_id);
        m->embedder_id = model;
        model = NULL;
    }
    free(model);
    return st;
}

/* One element of "contradicts": {"id": ..., "reason": ...}, into *r. */
static ms_status get_given_rel(importer *im, const place *pl, const char *obj, size_t len,
                               size_t base, const cJSON *e, const char *self, given_rel *r)
{
    const char *what = "an array of {\"id\": ..., \"reason\": ...} objects";
    const cJSON *id = member(e, "id");
    const cJSON *why = member(e, "reason");
    if (!cJSON_IsObject(e) || !cJSON_IsString(id) || !id->valuestring[0] ||
        (why && !cJSON_IsNull(why) && !cJSON_IsString(why)))
        return type_error(im, pl, obj, len, base, "contradicts", what);
    if (strlen(id->valuestring) > STORE_ID_MAX)
        return fail_at(im, pl, base + key_offset(obj, len, "contradicts"), MS_PARSE,
                       "\"contradicts\": an id is longer than %d bytes", STORE_ID_MAX);
    if (self && strcmp(self, id->valuestring) == 0)
        return fail_at(im, pl, base + key_offset(obj, len, "contradicts"), MS_PARSE,
                       "\"contradicts\": a memory cannot contradict itself (\"%s\")", self);
    r->id = strdup(id->valuestring);
    r->reason = cJSON_IsString(why) ? strdup(why->valuestring) : NULL;
    if (!r->id || (cJSON_IsString(why) && !r->reason))
        return ms_fail(im->err, MS_NOMEM, "out of memory");
    return MS_OK;
}

/* The record's "contradicts" relations (absent or null: none) into *g. */
static ms_status get_contradicts(importer *im, const place *pl, const char *obj, size_t len,
                                 size_t base, const cJSON *o, const char *self, given_rels *g)
{
    const cJSON *a = member(o, "contradicts");
    if (!a || cJSON_IsNull(a))
        return MS_OK;
    if (!cJSON_IsArray(a))
        return type_error(im, pl, obj, len, base, "contradicts",
                          "an array of {\"id\": ..., \"reason\": ...} objects");
    int n = cJSON_GetArraySize(a);
    if (n == 0)
        return MS_OK;
    if (!(g->v = calloc((size_t)n, sizeof *g->v)))
        return ms_fail(im->err, MS_NOMEM, "out of memory");
    ms_status st = MS_OK;
    for (const cJSON *e = a->child; !st && e; e = e->next)
        st = get_given_rel(im, pl, obj, len, base, e, self, &g->v[g->n++]);
    return st;
}

/* Turn a parsed object into a memory. obj/len/base locate it for errors. */
static ms_status to_memory(importer *im, const place *pl, const char *obj, size_t len, size_t base,
                           const cJSON *o, store_memory *m, char **profile)
{
    if (!cJSON_IsObject(o))
        return fail_at(im, pl, base, MS_PARSE, "expected a memory object {...}");
    if (!member(o, "content"))
        return fail_at(im, pl, base, MS_PARSE, "memory has no \"content\"");
    ms_status st = get_text(im, pl, obj, len, base, o, "content", 0, &m->content);
    if (!st && !m->content)
        st = type_error(im, pl, obj, len, base, "content", "a string");
    if (!st)
        st = get_text(im, pl, obj, len, base, o, "id", 1, &m->id);
    if (!st)
        st = get_text(im, pl, obj, len, base, o, "created_at", 0, &m->created_at);
    if (!st)
        st = get_text(im, pl, obj, len, base, o, "event_time", 0, &m->event_time);
    if (!st)
        st = get_text(im, pl, obj, len, base, o, "speaker", 0, &m->speaker);
    if (!st)
        st = get_text(im, pl, obj, len, base, o, "session", 1, &m->session);
    if (!st)
        st = get_text(im, pl, obj, len, base, o, "source", 0, &m->source);
    if (!st)
        st = get_text(im, pl, obj, len, base, o, "last_accessed", 0, &m->last_accessed);
    if (!st)
        st = get_text(im, pl, obj, len, base, o, "profile", 0, profile);
    if (!st)
        st = get_number(im, pl, obj, len, base, o, "confidence", &m->memory_confidence);
    if (!st)
        st = get_number(im, pl, obj, len, base, o, "memory_confidence", &m->memory_confidence);
    if (!st)
        st = get_number(im, pl, obj, len, base, o, "importance", &m->importance);
    double count = 0;
    if (!st)
        st = get_number(im, pl, obj, len, base, o, "access_count", &count);
    if (!st && (count < 0 || count != floor(count) || count > 1e15))
        st = type_error(im, pl, obj, len, base, "access_count", "a whole number >= 0");
    m->access_count = (int64_t)count;
    const cJSON *pin = member(o, "pinned");
    if (!st && pin && !cJSON_IsNull(pin) && !cJSON_IsBool(pin))
        st = type_error(im, pl, obj, len, base, "pinned", "true or false");
    m->pinned = cJSON_IsTrue(pin);
    if (!st)
        st = get_trust(im, pl, obj, len, base, o, m);
    if (!st)
        st = get_entities(im, pl, obj, len, base, o, m);
    if (!st)
        st = get_embedding(im, pl, obj, len, base, o, m);
    if (!st)
        st = get_v6_fields(im, pl, obj, len, base, o, m);
    return st;
}

static void maybe_progress(importer *im)
{
    if (!im->opts->progress)
        return;
    double now = mono_ms();
    if (now - im->last_progress >= 200) {
        im->last_progress = now;
        im->opts->progress(im->opts->progress_ctx, im->stats);
    }
}

/* Keep the relations m gives (taking their strings) for the end of the
 * file. */
static ms_status defer_rels(importer *im, const store_memory *m, given_rels *rels)
{
    for (size_t i = 0; i < rels->n; i++) {
        if (im->n_pend == im->cap_pend) {
            size_t cap = im->cap_pend ? 2 * im->cap_pend : 16;
            pending_rel *g = realloc(im->pend, cap * sizeof *g);
            if (!g)
                return ms_fail(im->err, MS_NOMEM, "out of memory");
            im->pend = g;
            im->cap_pend = cap;
        }
        pending_rel *p = &im->pend[im->n_pend++];
        snprintf(p->profile, sizeof p->profile, "%s", store_profile(im->s));
        p->src = m->rid;
        p->rel = rels->v[i];
        rels->v[i] = (given_rel){0};
    }
    return MS_OK;
}

/* Write one memory, in its own profile or the home one, and keep the
 * relations it gives (rels) unless it was skipped. */
static ms_status put(importer *im, const place *pl, const char *obj, size_t len, size_t base,
                     store_memory *m, const char *profile, given_rels *rels)
{
    ms_error e;
    ms_error_clear(&e);
    ms_status st = store_use_profile(im->s, profile ? profile : im->home_profile, &e);
    if (st)
        return fail_at(im, pl, base + key_offset(obj, len, "profile"), MS_PARSE, "\"profile\": %s",
                       e.msg);
    store_put_result res = STORE_PUT_INSERTED;
    st = store_put(im->s, m, im->opts->dup, &res, &e);
    if (st) {
        /* Point at the field the store complained about, if it named one. */
        size_t off = 0;
        const char *q = strchr(e.msg, '"');
        if (q) {
            const char *q2 = strchr(q + 1, '"');
            char key[64];
            size_t k = q2 ? (size_t)(q2 - q - 1) : 0;
            if (k > 0 && k < sizeof key) {
                memcpy(key, q + 1, k);
                key[k] = '\0';
                off = key_offset(obj, len, key);
            }
        }
        /* A line the store cannot take is bad input (exit 1), never a
         * usage error of the command. */
        if (st == MS_PARSE || st == MS_LIMIT || st == MS_DUPLICATE || st == MS_USAGE ||
            st == MS_EMBEDDER)
            return fail_at(im, pl, base + off, st == MS_USAGE ? MS_PARSE : st, "%s", e.msg);
        return ms_fail(im->err, st, "%s: %s", pl->file, e.msg);
    }
    im->stats->records++;
    if (res == STORE_PUT_INSERTED)
        im->stats->inserted++;
    else if (res == STORE_PUT_REPLACED)
        im->stats->replaced++;
    else
        im->stats->skipped++;
    maybe_progress(im);
    return res == STORE_PUT_SKIPPED ? MS_OK : defer_rels(im, m, rels);
}

/* Is the JSON value in t[0..len) cut short: an open string or bracket at
 * its end? *from gets where the part cJSON cannot see the end of begins: the
 * open string, or the last byte. */
static int json_incomplete(const char *t, size_t len, size_t *from)
{
    int depth = 0, in_str = 0;
    for (size_t i = 0; i < len; i++) {
        if (in_str) {
            if (t[i] == '\\')
                i++;
            else if (t[i] == '"')
                in_str = 0;
        } else if (t[i] == '"') {
            in_str = 1;
            *from = i;
        } else if (t[i] == '[' || t[i] == '{') {
            depth++;
        } else if (t[i] == ']' || t[i] == '}') {
            depth--;
        }
    }
    if (!in_str)
        *from = len ? len - 1 : 0;
    return in_str || depth > 0;
}

/* Report where cJSON gave up on t[0..len). A value cut short is reported
 * just past its end (cJSON points into the open string, or clamps to the
 * last byte). */
static ms_status json_error(importer *im, const place *pl, const char *t, size_t len, size_t base,
                            const char *end)
{
    size_t off = end && end >= t ? (size_t)(end - t) : 0, from = 0;
    if (json_incomplete(t, len, &from) && off >= from)
        return fail_at(im, pl, base + len, MS_PARSE,
                       "malformed JSON: the text ends before the value is complete");
    return fail_at(im, pl, base + off, MS_PARSE, "malformed JSON");
}

/* Offset in t[0..len) of the second occurrence of the key "name" (as
 * written, followed by ':'), where a duplicate key is; 0 when the key is
 * written with escapes and cannot be found as it is. */
static size_t second_key_offset(const char *t, size_t len, const char *name)
{
    size_t k = strlen(name), seen = 0;
    for (size_t i = 0; i + k + 2 <= len; i++) {
        if (t[i] != '"' || strncmp(t + i + 1, name, k) != 0 || t[i + 1 + k] != '"')
            continue;
        size_t j = i + k + 2;
        while (j < len && (t[j] == ' ' || t[j] == '\t' || t[j] == '\r' || t[j] == '\n'))
            j++;
        if (j < len && t[j] == ':' && ++seen == 2)
            return i;
    }
    return 0;
}

/* The first key that an object anywhere in v holds twice, or NULL. cJSON
 * keeps every member of an object and answers lookups with the first. */
static const char *duplicate_key(const cJSON *v)
{
    const cJSON *a;
    cJSON_ArrayForEach(a, v)
    {
        if (cJSON_IsObject(v))
            for (const cJSON *b = a->next; b; b = b->next)
                if (a->string[0] == b->string[0] && strcmp(a->string, b->string) == 0)
                    return a->string;
        const char *d = duplicate_key(a);
        if (d)
            return d;
    }
    return NULL;
}

static size_t skip_ws(const char *t, size_t i, size_t len);

/* cJSON parses the first value of the text and stops: what follows it must
 * be white space (a JSONL line holds one object), and no key may appear
 * twice in one object (only the first would count). */
static ms_status check_parsed(importer *im, const place *pl, const char *t, size_t len, size_t base,
                              const char *end, const cJSON *o)
{
    size_t i = skip_ws(t, (size_t)(end - t), len);
    if (i < len)
        return fail_at(im, pl, base + i, MS_PARSE,
                       "unexpected text after the JSON object (one object a line)");
    const char *dup = duplicate_key(o);
    if (dup)
        return fail_at(im, pl, base + second_key_offset(t, len, dup), MS_PARSE,
                       "the key \"%s\" appears twice in one object", dup);
    return MS_OK;
}

/* Parse the memory object t[0..len) found at offset base into *m, its
 * *profile (NULL when it names none) and the relations it gives; on an
 * error all are left empty. */
static ms_status parse_object(importer *im, const place *pl, const char *t, size_t len, size_t base,
                              store_memory *m, char **profile, given_rels *rels)
{
    store_memory_init(m);
    *profile = NULL;
    *rels = (given_rels){0};
    const char *end = NULL;
    cJSON *o = cJSON_ParseWithLengthOpts(t, len, &end, 0);
    if (!o)
        return json_error(im, pl, t, len, base, end);
    ms_status st = check_parsed(im, pl, t, len, base, end, o);
    if (!st)
        st = to_memory(im, pl, t, len, base, o, m, profile);
    if (!st)
        st = get_contradicts(im, pl, t, len, base, o, m->id, rels);
    cJSON_Delete(o);
    if (st) {
        store_memory_clear(m);
        free(*profile);
        *profile = NULL;
        given_rels_clear(rels);
    }
    return st;
}

/* Parse and write the memory object t[0..len) found at offset base. */
static ms_status import_object(importer *im, const place *pl, const char *t, size_t len,
                               size_t base)
{
    store_memory m;
    char *profile;
    given_rels rels;
    ms_status st = parse_object(im, pl, t, len, base, &m, &profile, &rels);
    if (!st)
        st = put(im, pl, t, len, base, &m, profile, &rels);
    free(profile);
    store_memory_clear(&m);
    given_rels_clear(&rels);
    return st;
}

/* ---- shared with the other formats' readers (import_int.h) ------------ */

int import_slm_edge_type(const char *t)
{
    if (!t || !*t)
        return 0;
    if (strcmp(t, "temporal") == 0)
        return STORE_EDGE_TEMPORAL;
    if (strcmp(t, "entity") == 0)
        return STORE_EDGE_ENTITY;
    if (strcmp(t, "supersedes") == 0)
        return SLM_EDGE_SUPERSEDES;
    if (strcmp(t, "contradiction") == 0)
        return SLM_EDGE_CONTRADICTS;
    return STORE_EDGE_RELATION;
}

static size_t skip_ws(const char *t, size_t i, size_t len);

ms_status import_check_text(const char *file, uint64_t line, const char *t, size_t len,
                            ms_error *err)
{
    importer im = {.err = err};
    place pl = {file, t, line};
    return check_bytes(&im, &pl, t, len);
}

cJSON *import_parse_json(const char *file, uint64_t line, const char *t, size_t len, ms_error *err)
{
    if (import_check_text(file, line, t, len, err))
        return NULL;
    importer im = {.err = err};
    place pl = {file, t, line};
    const char *end = NULL;
    cJSON *o = cJSON_ParseWithLengthOpts(t, len, &end, 0);
    if (!o)
        json_error(&im, &pl, t, len, 0, end);
    else if (end && skip_ws(t, (size_t)(end - t), len) < len) {
        fail_at(&im, &pl, (size_t)(end - t), MS_PARSE, "unexpected text after the JSON value");
        cJSON_Delete(o);
        o = NULL;
    }
    return o;
}

double import_unit(double v)
{
    return !isfinite(v) ? 0.5 : v < 0 ? 0 : v > 1 ? 1 : v;
}

ms_status import_put(store *s, const import_opts *opts, import_stats *stats, store_memory *m,
                     const char *file, uint64_t line, ms_error *err)
{
    ms_error e;
    ms_error_clear(&e);
    store_put_result res = STORE_PUT_INSERTED;
    ms_status st = store_put(s, m, opts->dup, &res, &e);
    if (st) {
        ms_status code = st == MS_USAGE ? MS_PARSE : st;
        if (line)
            return ms_fail(err, code, "%s:%llu: %s", file, (unsigned long long)line, e.msg);
        return ms_fail(err, code, "%s: %s", file, e.msg);
    }
    stats->records++;
    if (res == STORE_PUT_INSERTED)
        stats->inserted++;
    else if (res == STORE_PUT_REPLACED)
        stats->replaced++;
    else
        stats->skipped++;
    return MS_OK;
}

/* ---- JSONL ------------------------------------------------------------- */

/* Read one line of at most IMPORT_LINE_MAX bytes into *buf, NUL-terminated.
 * Returns its length, which counts any NUL bytes inside it (the caller
 * refuses those), -1 at end of input, -2 when too long, -3 on a read error. */
static long read_line(FILE *f, char **buf, size_t *cap)
{
    size_t n = 0;
    int c = EOF;
    while ((c = getc_unlocked(f)) != EOF) {
        if (n >= IMPORT_LINE_MAX && c != '\n')
            return -2; /* also a last line without a newline */
        if (n + 2 > *cap) {
            size_t ncap = *cap ? *cap * 2 : 65536;
            if (ncap > IMPORT_LINE_MAX + 8192)
                ncap = IMPORT_LINE_MAX + 8192;
            char *g = realloc(*buf, ncap);
            if (!g)
                return -3;
            *buf = g;
            *cap = ncap;
        }
        (*buf)[n++] = (char)c;
        if (c == '\n')
            break;
    }
    if (ferror(f))
        return -3;
    if (n == 0)
        return -1;
    (*buf)[n] = '\0';
    return (long)n;
}

static int blank(const char *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (t[i] != ' ' && t[i] != '\t' && t[i] != '\r' && t[i] != '\n')
            return 0;
    return 1;
}

/* JSONL is read and parsed on a thread of its own while the caller's
 * thread writes what was parsed before it (store_put is most of an
 * import, parsing about a sixth): a queue of at most JQ_RECORDS memories
 * and JQ_BYTES of their lines sits between them. Records are written in
 * file order, so the first bad line stops the import as it would without
 * the thread, and nothing after it is written. */
#define JQ_RECORDS 256
#define JQ_BYTES (16 * 1024 * 1024)
#define JQ_BATCH 32               /* records the writer takes from the queue at once */
#define JQ_ROOM 64                /* a reader that found the queue full waits for this room */
#define JQ_SPENT (2 * JQ_RECORDS) /* written records waiting to be freed */

/* One parsed line: the memory, its profile, and the line itself (errors
 * from store_put point into it). */
typedef struct jrec {
    store_memory m;
    char *profile;
    given_rels rels;
    char *text;
    size_t len;
    uint64_t line;
    uint64_t bytes; /* input bytes consumed up to and including this line */
} jrec;

static void jrec_free(jrec *r)
{
    store_memory_clear(&r->m);
    free(r->profile);
    free(r->text);
    given_rels_clear(&r->rels);
}

typedef struct jreader {
    importer im; /* a copy whose err is the reader's own */
    FILE *f;
    place pl;
    char *buf;
    size_t cap;
    uint64_t bytes;
} jreader;

/* The next memory of the file into *r: 1; 0 at its end; -1 on an error
 * (*st, and the message in rd->im.err). */
static int jsonl_next(jreader *rd, jrec *r, ms_status *st)
{
    importer *im = &rd->im;
    place *pl = &rd->pl;
    long n;
    while ((n = read_line(rd->f, &rd->buf, &rd->cap)) != -1) {
        pl->line++;
        if (n == -2) {
            pl->text = "";
            *st = fail_at(im, pl, 0, MS_LIMIT, "line is longer than the limit of %d bytes",
                          IMPORT_LINE_MAX);
            return -1;
        }
        if (n == -3) {
            *st = ms_fail(im->err, MS_IO, "%s:%llu: read error: %s", pl->file,
                          (unsigned long long)pl->line, strerror(errno));
            return -1;
        }
        char *buf = rd->buf;
        pl->text = buf;
        rd->bytes += (uint64_t)n;
        size_t len = (size_t)n;
        if (pl->line == 1 && len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
            memset(buf, ' ', 3); /* a UTF-8 byte-order mark: harmless */
        }
        if (pl->line == 1 && len >= 2 &&
            (memcmp(buf, "\xff\xfe", 2) == 0 || memcmp(buf, "\xfe\xff", 2) == 0)) {
            *st = fail_at(im, pl, 0, MS_PARSE,
                          "file is UTF-16 (it starts with a byte-order mark); convert it to UTF-8");
            return -1;
        }
        if (strlen(buf) < len) {
            *st = fail_at(im, pl, strlen(buf), MS_PARSE, "a NUL byte in the text");
            return -1;
        }
        while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
            len--;
        if (blank(buf, len))
            continue;
        if ((*st = check_bytes(im, pl, buf, len)))
            return -1;
        r->text = NULL;
        *st = parse_object(im, pl, buf, len, 0, &r->m, &r->profile, &r->rels);
        /* on this thread, not the writing one: store_note_fact reads the
           first, entity linking the second */
        if (!*st && ((r->m.might_state = store_might_state(r->m.content)) < 0 ||
                     store_memory_words(&r->m) < 0))
            *st = ms_fail(im->err, MS_NOMEM, "out of memory");
        if (!*st && !(r->text = malloc(len + 1)))
            *st = ms_fail(im->err, MS_NOMEM, "out of memory");
        if (*st) {
            jrec_free(r);
            return -1;
        }
        memcpy(r->text, buf, len);
        r->text[len] = '\0';
        r->len = len;
        r->line = pl->line;
        r->bytes = rd->bytes;
        return 1;
    }
    return 0;
}

typedef struct jqueue {
    pthread_mutex_t mu;
    pthread_cond_t can_put, can_take;
    jrec ring[JQ_RECORDS];
    size_t head, n, bytes;
    int refill;           /* the reader waits for the queue to drain to half */
    int done;             /* the reader has stopped: the file's end, or an error */
    int stop;             /* the writer has stopped: the reader should too */
    jrec spent[JQ_SPENT]; /* written records, for the reader to free */
    size_t nspent;
    ms_status st; /* the reader's error */
    ms_error err;
    jreader rd;
} jqueue;

/* The records the writer has written go back to the reader, which made
 * them, to be freed: freed on the writing thread, each of their blocks
 * went back to the reader's malloc arena under that arena's lock, and the
 * two threads met on it (futex waits and wakes on the writing thread). */
static void jsonl_free_spent(jqueue *q, jrec *spare)
{
    pthread_mutex_lock(&q->mu);
    size_t n = q->nspent;
    memcpy(spare, q->spent, n * sizeof *spare);
    q->nspent = 0;
    pthread_mutex_unlock(&q->mu);
    for (size_t k = 0; k < n; k++)
        jrec_free(&spare[k]);
}

static void *jsonl_reader(void *p)
{
    jqueue *q = p;
    jrec *spare = malloc(JQ_SPENT * sizeof *spare);
    for (unsigned i = 0;; i++) {
        if (spare && i % JQ_BATCH == 0)
            jsonl_free_spent(q, spare);
        jrec r;
        ms_status st = MS_OK;
        int got = jsonl_next(&q->rd, &r, &st);
        pthread_mutex_lock(&q->mu);
        while (got == 1 && !q->stop && q->n > 0 &&
               (q->n == JQ_RECORDS || q->bytes + r.len > JQ_BYTES)) {
            q->refill = 1;
            pthread_cond_wait(&q->can_put, &q->mu);
        }
        if (got == 1 && !q->stop) {
            q->ring[(q->head + q->n) % JQ_RECORDS] = r;
            q->n++;
            q->bytes += r.len;
        } else {
            if (got == 1)
                jrec_free(&r);
            q->done = 1;
            q->st = got < 0 ? st : MS_OK;
        }
        int done = q->done;
        pthread_cond_signal(&q->can_take);
        pthread_mutex_unlock(&q->mu);
        if (done) {
            free(spare);
            return NULL;
        }
    }
}

/* Up to max records from the reader thread into r[], in file order: how
 * many; 0 when it has stopped. A reader that found the queue full is woken
 * once JQ_ROOM records (and a quarter of JQ_BYTES) are free, not for every
 * record taken: waking it each time cost a futex wake and two context
 * switches a memory. */
static size_t jsonl_take(jqueue *q, jrec *r, size_t max)
{
    pthread_mutex_lock(&q->mu);
    while (q->n == 0 && !q->done)
        pthread_cond_wait(&q->can_take, &q->mu);
    size_t got = 0;
    for (; got < max && q->n > 0; got++) {
        r[got] = q->ring[q->head];
        q->head = (q->head + 1) % JQ_RECORDS;
        q->n--;
        q->bytes -= r[got].len;
    }
    if (q->refill && q->n + JQ_ROOM <= JQ_RECORDS && q->bytes <= JQ_BYTES - JQ_BYTES / 4) {
        q->refill = 0;
        pthread_cond_signal(&q->can_put);
    }
    pthread_mutex_unlock(&q->mu);
    return got;
}

/* Hand the written records r[0..n) back to the reader to free (those
 * that do not fit, or after the reader has stopped, are freed here). */
static void jsonl_spend(jqueue *q, jrec *r, size_t n)
{
    pthread_mutex_lock(&q->mu);
    size_t k = 0;
    if (!q->done)
        for (; k < n && q->nspent < JQ_SPENT; k++)
            q->spent[q->nspent++] = r[k];
    pthread_mutex_unlock(&q->mu);
    for (; k < n; k++)
        jrec_free(&r[k]);
}

/* Write the records r[0..n) in order; stops at the first error. */
static ms_status jsonl_put_all(importer *im, const char *file, uint64_t base, jrec *r, size_t n)
{
    ms_status st = MS_OK;
    for (size_t k = 0; !st && k < n; k++) {
        im->stats->bytes = base + r[k].bytes;
        place pl = {file, r[k].text, r[k].line};
        /* the line after it, when it goes to the same profile */
        const jrec *next = k + 1 < n ? &r[k + 1] : NULL;
        int same = next && (next->profile && r[k].profile ? strcmp(next->profile, r[k].profile) == 0
                                                          : next->profile == r[k].profile);
        store_put_hint(im->s, same ? &next->m : NULL);
        st = put(im, &pl, r[k].text, r[k].len, 0, &r[k].m, r[k].profile, &r[k].rels);
    }
    return st;
}

static ms_status import_jsonl(importer *im, const char *file, FILE *f)
{
    jqueue *q = calloc(1, sizeof *q);
    if (!q)
        return ms_fail(im->err, MS_NOMEM, "out of memory");
    q->rd.im = *im;
    q->rd.im.err = &q->err;
    q->rd.f = f;
    q->rd.pl.file = file;
    ms_error_clear(&q->err);
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->can_put, NULL);
    pthread_cond_init(&q->can_take, NULL);
    pthread_t th;
    int threaded = pthread_create(&th, NULL, jsonl_reader, q) == 0;
    uint64_t base = im->stats->bytes;
    ms_status st = MS_OK;
    jrec batch[JQ_BATCH];
    while (!st) {
        size_t got = threaded ? jsonl_take(q, batch, JQ_BATCH)
                              : (size_t)(jsonl_next(&q->rd, &batch[0], &q->st) > 0);
        if (!got)
            break;
        st = jsonl_put_all(im, file, base, batch, got);
        if (threaded)
            jsonl_spend(q, batch, got);
        else
            for (size_t k = 0; k < got; k++)
                jrec_free(&batch[k]);
    }
    if (threaded) {
        pthread_mutex_lock(&q->mu);
        q->stop = 1;
        pthread_cond_signal(&q->can_put);
        pthread_mutex_unlock(&q->mu);
        pthread_join(th, NULL);
        for (size_t k = 0; k < q->n; k++)
            jrec_free(&q->ring[(q->head + k) % JQ_RECORDS]);
        for (size_t k = 0; k < q->nspent; k++)
            jrec_free(&q->spent[k]);
    }
    if (!st && q->st) { /* the reader's error comes after every line written */
        *im->err = q->err;
        st = q->st;
    }
    if (!st)
        im->stats->bytes = base + q->rd.bytes;
    free(q->rd.buf);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->can_put);
    pthread_cond_destroy(&q->can_take);
    free(q);
    return st;
}

/* ---- whole-file formats ------------------------------------------------ */

static ms_status read_all(importer *im, const char *file, FILE *f, char **out, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            if (cap >= IMPORT_WHOLE_MAX) {
                free(buf);
                return ms_fail(im->err, MS_LIMIT,
                               "%s: a JSON file over %d MiB cannot be read "
                               "whole; use JSONL",
                               file, IMPORT_WHOLE_MAX >> 20);
            }
            char *g = realloc(buf, cap * 2);
            if (!g)
                break;
            buf = g;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                free(buf);
                return ms_fail(im->err, MS_IO, "%s: read error: %s", file, strerror(errno));
            }
            buf[n] = '\0';
            *out = buf;
            *len = n;
            im->stats->bytes += n;
            return MS_OK;
        }
    }
    free(buf);
    return ms_fail(im->err, MS_NOMEM, "out of memory reading %s", file);
}

static size_t skip_ws(const char *t, size_t i, size_t len)
{
    while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\r' || t[i] == '\n'))
        i++;
    return i;
}

/* End (exclusive) of the JSON value starting at t[i]: scans strings and
 * brackets only; cJSON checks the rest. */
static size_t value_end(const char *t, size_t i, size_t len)
{
    int depth = 0, in_str = 0;
    for (; i < len; i++) {
        char c = t[i];
        if (in_str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_str = 0;
            if (!in_str && depth == 0)
                return i + 1;
            continue;
        }
        if (c == '"')
            in_str = 1;
        else if (c == '[' || c == '{')
            depth++;
        else if (c == ']' || c == '}') {
            if (--depth <= 0)
                return i + 1;
        } else if (depth == 0 && (c == ',' || c == ' ' || c == '\n' || c == '\r' || c == '\t'))
            return i;
    }
    return len;
}

typedef ms_status (*element_fn)(importer *im, const place *pl, const char *t, size_t len,
                                size_t base);

/* Call fn for each element of the top-level array in t (or for t itself
 * when it is a single object). */
static ms_status each_element(importer *im, const place *pl, const char *t, size_t len,
                              element_fn fn)
{
    size_t i = skip_ws(t, 0, len);
    if (i >= len)
        return MS_OK; /* an empty file: nothing to import */
    if (t[i] == '{') {
        size_t end = value_end(t, i, len);
        ms_status st = fn(im, pl, t + i, end - i, i);
        i = skip_ws(t, end, len);
        if (!st && i < len)
            st = fail_at(im, pl, i, MS_PARSE, "unexpected text after the JSON object");
        return st;
    }
    if (i >= len || t[i] != '[')
        return fail_at(im, pl, i, MS_PARSE, "expected a JSON array [...] of objects");
    i = skip_ws(t, i + 1, len);
    if (i < len && t[i] == ']')
        return MS_OK;
    for (;;) {
        size_t end = value_end(t, i, len);
        if (end == i)
            return fail_at(im, pl, i, MS_PARSE, "malformed JSON: expected a value");
        ms_status st = fn(im, pl, t + i, end - i, i);
        if (st)
            return st;
        i = skip_ws(t, end, len);
        if (i < len && t[i] == ']')
            break;
        if (i >= len || t[i] != ',')
            return fail_at(im, pl, i, MS_PARSE, "malformed JSON: expected ',' or ']'");
        i = skip_ws(t, i + 1, len);
    }
    i = skip_ws(t, i + 1, len);
    if (i < len)
        return fail_at(im, pl, i, MS_PARSE, "unexpected text after the JSON array");
    return MS_OK;
}

/* ---- LoCoMo ------------------------------------------------------------ */

static const char *const month_names[] = {"january",   "february", "march",    "april",
                                          "may",       "june",     "july",     "august",
                                          "september", "october",  "november", "december"};

int import_locomo_time(const char *text, int64_t *ts)
{
    int h, mi, d, y;
    char ampm[3], mon[16];
    if (sscanf(text, "%d:%d %2s on %d %15[A-Za-z], %d", &h, &mi, ampm, &d, mon, &y) != 6)
        return -1;
    int m = 0;
    for (int i = 0; i < 12; i++)
        if (strcasecmp(mon, month_names[i]) == 0)
            m = i + 1;
    if (!m || h < 1 || h > 12 || mi < 0 || mi > 59)
        return -1;
    if (strcasecmp(ampm, "pm") == 0 && h != 12)
        h += 12;
    else if (strcasecmp(ampm, "am") == 0 && h == 12)
        h = 0;
    else if (strcasecmp(ampm, "am") != 0 && strcasecmp(ampm, "pm") != 0)
        return -1;
    char iso[40];
    snprintf(iso, sizeof iso, "%04d-%02d-%02dT%02d:%02d:00Z", y, m, d, h, mi);
    return store_parse_time(iso, ts);
}

/* Room for a session key and its "_date_time" key. */
#define LOCOMO_KEY_MAX 256

/* One turn of a LoCoMo session as a memory. */
static ms_status locomo_turn(importer *im, const place *pl, size_t base, const cJSON *turn,
                             const char *session, const char *when, const char *profile)
{
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(turn, "speaker");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(turn, "dia_id");
    const cJSON *tx = cJSON_GetObjectItemCaseSensitive(turn, "text");
    const cJSON *cap = cJSON_GetObjectItemCaseSensitive(turn, "blip_caption");
    if (!cJSON_IsString(sp) || !cJSON_IsString(id) || !cJSON_IsString(tx))
        return fail_at(im, pl, base, MS_PARSE,
                       "conversation %s, session %s: a turn needs string \"speaker\", "
                       "\"dia_id\" and \"text\"",
                       profile, session);
    size_t n = strlen(sp->valuestring) + strlen(tx->valuestring) + 64 +
               (cJSON_IsString(cap) ? strlen(cap->valuestring) : 0);
    store_memory m;
    store_memory_init(&m);
    m.content = malloc(n);
    m.id = strdup(id->valuestring);
    m.speaker = strdup(sp->valuestring);
    m.session = strdup(session);
    m.created_at = strdup(when);
    m.source = strdup("locomo");
    ms_status st = MS_OK;
    if (!m.content || !m.id || !m.speaker || !m.session || !m.created_at || !m.source)
        st = ms_fail(im->err, MS_NOMEM, "out of memory");
    if (!st && cJSON_IsString(cap))
        snprintf(m.content, n, "%s: %s [shares an image: %s]", sp->valuestring, tx->valuestring,
                 cap->valuestring);
    else if (!st)
        snprintf(m.content, n, "%s: %s", sp->valuestring, tx->valuestring);
    given_rels none = {0};
    if (!st)
        st = put(im, pl, "", 0, base, &m, profile, &none);
    store_memory_clear(&m);
    return st;
}

/* The digits N of a key "session_N" (any number of digits, zero-padded or
 * not), or NULL for any other key ("session_N_date_time" among them). */
static const char *session_digits(const char *key)
{
    if (strncmp(key, "session_", 8) != 0 || !key[8])
        return NULL;
    for (const char *p = key + 8; *p; p++)
        if (*p < '0' || *p > '9')
            return NULL;
    return key + 8;
}

/* Order "session_N" members by the number N, of any length. */
static int session_cmp(const void *a, const void *b)
{
    const char *x = session_digits((*(const cJSON *const *)a)->string);
    const char *y = session_digits((*(const cJSON *const *)b)->string);
    while (*x == '0' && x[1])
        x++;
    while (*y == '0' && y[1])
        y++;
    size_t nx = strlen(x), ny = strlen(y);
    return nx != ny ? (nx < ny ? -1 : 1) : strcmp(x, y);
}

/* One session's turns. t/len/base locate the conversation for errors,
 * which point at the session's key. */
static ms_status locomo_session(importer *im, const place *pl, const char *t, size_t len,
                                size_t base, const cJSON *conv, const cJSON *turns,
                                const char *sample)
{
    const char *key = turns->string, *digits = session_digits(key);
    while (*digits == '0' && digits[1])
        digits++; /* "session_01" is session 1 */
    char tkey[LOCOMO_KEY_MAX], session[LOCOMO_KEY_MAX];
    snprintf(tkey, sizeof tkey, "%s_date_time", key);
    snprintf(session, sizeof session, "%s", digits);
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(conv, tkey);
    size_t at = base + key_offset(t, len, key);
    int64_t ts;
    if (!cJSON_IsArray(turns) || !cJSON_IsString(dt) || import_locomo_time(dt->valuestring, &ts))
        return fail_at(im, pl, cJSON_IsArray(turns) && dt ? base + key_offset(t, len, tkey) : at,
                       MS_PARSE,
                       "conversation %s: %s needs a list of turns and a %s like "
                       "\"1:56 pm on 8 May, 2023\"",
                       sample, key, tkey);
    char when[32];
    store_format_time(ts, when, sizeof when);
    const cJSON *turn;
    cJSON_ArrayForEach(turn, turns)
    {
        ms_status st = locomo_turn(im, pl, at, turn, session, when, sample);
        if (st)
            return st;
    }
    return MS_OK;
}

static ms_status locomo_conversation(importer *im, const place *pl, const char *t, size_t len,
                                     size_t base)
{
    const char *end = NULL;
    cJSON *o = cJSON_ParseWithLengthOpts(t, len, &end, 0);
    if (!o)
        return json_error(im, pl, t, len, base, end);
    const cJSON *sid = cJSON_GetObjectItemCaseSensitive(o, "sample_id");
    const cJSON *conv = cJSON_GetObjectItemCaseSensitive(o, "conversation");
    ms_status st = check_parsed(im, pl, t, len, base, end, o);
    if (!st && (!cJSON_IsString(sid) || !cJSON_IsObject(conv)))
        st = fail_at(im, pl, base, MS_PARSE,
                     "a LoCoMo conversation needs \"sample_id\" and a \"conversation\" object");
    /* every "session_N" member, in the order of N */
    size_t n = 0;
    const cJSON **sessions = NULL;
    const cJSON *c;
    if (!st)
        cJSON_ArrayForEach(c, conv) n += session_digits(c->string) != NULL;
    if (!st && n && !(sessions = malloc(n * sizeof *sessions)))
        st = ms_fail(im->err, MS_NOMEM, "out of memory");
    size_t k = 0;
    if (!st) {
        cJSON_ArrayForEach(c, conv) if (session_digits(c->string)) sessions[k++] = c;
        if (n)
            qsort(sessions, n, sizeof *sessions, session_cmp);
    }
    for (k = 0; !st && k < n; k++)
        st = locomo_session(im, pl, t, len, base, conv, sessions[k], sid->valuestring);
    if (!st && n == 0)
        st = fail_at(im, pl, base + key_offset(t, len, "conversation"), MS_PARSE,
                     "conversation %s has no sessions", sid->valuestring);
    free(sessions);
    cJSON_Delete(o);
    return st;
}

/* ---- dispatch ---------------------------------------------------------- */

/* In the order of import_format. */
static const char *const format_names[] = {"auto", "jsonl",      "json", "locomo",
                                           "slm",  "mcp-memory", "mem0", "slm-bundle"};
#define N_FORMATS (int)(sizeof format_names / sizeof *format_names)

int import_format_parse(const char *name)
{
    for (int i = 0; i < N_FORMATS; i++)
        if (strcmp(name, format_names[i]) == 0)
            return i;
    return -1;
}

const char *import_format_name(import_format f)
{
    return (int)f >= 0 && (int)f < N_FORMATS ? format_names[f] : "?";
}

/* Guess the format from the first bytes: '[' is a JSON array (LoCoMo when
 * its objects hold "conversation"; import_whole looks at the whole first
 * object when the head does not tell), '{' is JSONL (or a single LoCoMo
 * conversation). A pipe cannot be rewound: only its first byte is peeked. */
static import_format sniff(FILE *f)
{
    if (fseek(f, 0, SEEK_CUR) != 0) {
        int c = getc(f);
        if (c != EOF)
            ungetc(c, f);
        return c == '[' ? IMPORT_JSON : IMPORT_JSONL;
    }
    char head[4096];
    size_t n = fread(head, 1, sizeof head - 1, f);
    head[n] = '\0';
    rewind(f);
    size_t i = 0;
    if (n >= 3 && memcmp(head, "\xef\xbb\xbf", 3) == 0)
        i = 3;
    i = skip_ws(head, i, n);
    if (import_mem0_sniff(head, n))
        return IMPORT_MEM0;
    if (import_mcp_sniff(head + i, n - i))
        return IMPORT_MCP;
    int locomo = strstr(head, "\"conversation\"") && strstr(head, "\"sample_id\"");
    if (i < n && head[i] == '[')
        return locomo ? IMPORT_LOCOMO : IMPORT_JSON;
    if (locomo && strstr(head, "\"session_1\""))
        return IMPORT_LOCOMO;
    return IMPORT_JSONL;
}

/* Is the first element of the array in t a LoCoMo conversation? */
static int first_is_locomo(const char *t, size_t len)
{
    size_t i = skip_ws(t, 0, len);
    if (i < len && t[i] == '[')
        i = skip_ws(t, i + 1, len);
    if (i >= len || t[i] != '{')
        return 0;
    cJSON *o = cJSON_ParseWithLength(t + i, value_end(t, i, len) - i);
    int yes = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "conversation")) &&
              cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "sample_id"));
    cJSON_Delete(o);
    return yes;
}

/* Import a whole-file format; detect: the format was guessed, so a JSON
 * array may still turn out to be LoCoMo. */
static ms_status import_whole(importer *im, const char *file, FILE *f, import_format fmt,
                              int detect)
{
    element_fn fn = fmt == IMPORT_LOCOMO ? locomo_conversation : import_object;
    char *t = NULL;
    size_t len = 0;
    ms_status st = read_all(im, file, f, &t, &len);
    if (st)
        return st;
    place pl = {file, t, 1};
    if (len >= 2 && (memcmp(t, "\xff\xfe", 2) == 0 || memcmp(t, "\xfe\xff", 2) == 0))
        st = fail_at(im, &pl, 0, MS_PARSE,
                     "file is UTF-16 (it starts with a byte-order mark); convert it to UTF-8");
    size_t skip = len >= 3 && memcmp(t, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    if (!st && strlen(t) < len)
        st = fail_at(im, &pl, strlen(t), MS_PARSE, "a NUL byte in the text");
    if (!st)
        st = check_bytes(im, &pl, t, len);
    if (!st && skip)
        memset(t, ' ', skip);
    if (!st && detect && fmt == IMPORT_JSON && first_is_locomo(t, len))
        fn = locomo_conversation;
    if (!st)
        st = each_element(im, &pl, t, len, fn);
    free(t);
    return st;
}

static ms_status import_done(importer *im, ms_status st);
static ms_status record_contradicts(importer *im);

static ms_status import_any(store *s, const char *path, const import_opts *opts,
                            import_stats *stats, ms_error *err);

ms_status import_file(store *s, const char *path, const import_opts *opts, import_stats *stats,
                      ms_error *err)
{
    int64_t before = 0;
    uint64_t found = 0;
    ms_status st = store_max_rid(s, &before, err);
    if (!st) /* so that the detection reads only what may state a fact */
        store_note_new_facts(s, before);
    if (!st)
        st = import_any(s, path, opts, stats, err);
    if (!st)
        st = store_detect_supersession(s, before, &found, err);
    stats->superseded_found += found;
    return st;
}

static ms_status import_any(store *s, const char *path, const import_opts *opts,
                            import_stats *stats, ms_error *err)
{
    if (opts->format == IMPORT_SLM ||
        (opts->format == IMPORT_AUTO && strcmp(path, "-") != 0 && import_is_slm(path)))
        return import_slm(s, path, opts, stats, err);
    importer im = {.s = s, .opts = opts, .stats = stats, .err = err};
    snprintf(im.home_profile, sizeof im.home_profile, "%s", store_profile(s));
    im.last_progress = mono_ms();
    int is_stdin = strcmp(path, "-") == 0;
    import_format fmt = opts->format;
    int detect = fmt == IMPORT_AUTO;
    if (fmt == IMPORT_SLM_BUNDLE || (detect && !is_stdin && import_bundle_sniff(path)))
        return import_done(&im, import_bundle(s, path, opts, stats, err));
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return ms_fail(err, MS_IO, "cannot open %s: %s", path, strerror(errno));
    const char *name = is_stdin ? "<stdin>" : path;
    if (detect)
        fmt = is_stdin ? IMPORT_JSONL : sniff(f);
    ms_status st;
    if (fmt == IMPORT_MCP || fmt == IMPORT_MEM0) {
        if (!is_stdin)
            fclose(f);
        f = NULL;
        st = (fmt == IMPORT_MCP ? import_mcp : import_mem0)(s, path, name, opts, stats, err);
    } else if (fmt == IMPORT_JSONL)
        st = import_jsonl(&im, name, f);
    else
        st = import_whole(&im, name, f, fmt, detect);
    if (!st)
        st = record_contradicts(&im);
    if (f && !is_stdin)
        fclose(f);
    return import_done(&im, st);
}

/* Record the contradicts relations the file gave, now that every memory it
 * holds is in: one whose other memory is in neither the file nor the
 * profile is left out and counted (a partial export, say). */
static ms_status record_contradicts(importer *im)
{
    ms_status st = MS_OK;
    for (size_t i = 0; !st && i < im->n_pend; i++) {
        pending_rel *p = &im->pend[i];
        if ((st = store_use_profile(im->s, p->profile, im->err)))
            break;
        store_memory other;
        ms_error e;
        ms_error_clear(&e);
        ms_status got = store_get(im->s, p->rel.id, 0, &other, &e);
        if (got == MS_NOT_FOUND)
            im->stats->contradicts_missing++;
        else if (got)
            st = ms_fail(im->err, got, "%s", e.msg);
        else if (!(st = store_set_contradicts(im->s, p->src, other.rid, p->rel.reason, im->err)))
            im->stats->contradicts++;
        store_memory_clear(&other);
    }
    return st;
}

/* Back to the caller's profile, and a last progress report. */
static ms_status import_done(importer *im, ms_status st)
{
    for (size_t i = 0; i < im->n_pend; i++) {
        free(im->pend[i].rel.id);
        free(im->pend[i].rel.reason);
    }
    free(im->pend);
    im->pend = NULL;
    im->n_pend = im->cap_pend = 0;
    store_use_profile(im->s, im->home_profile, NULL);
    if (!st && im->opts->progress)
        im->opts->progress(im->opts->progress_ctx, im->stats);
    return st;
}

/* ---- export ------------------------------------------------------------ */

static void add_text(cJSON *o, const char *key, const char *v)
{
    if (v)
        cJSON_AddStringToObject(o, key, v);
}

struct export_ctx {
    store *s; /* NULL: the store holds no contradicts relations to write */
    FILE *out;
    ms_status st;
    ms_error *err;
};

static int export_one(void *p, const store_memory *m)
{
    struct export_ctx *x = p;
    x->st = export_memory(x->s, x->out, m, x->err);
    return x->st != MS_OK;
}

/* m's outgoing contradicts relations as o's "contradicts" array. */
static ms_status export_contradicts(store *s, cJSON *o, const store_memory *m, ms_error *err)
{
    store_relation *v;
    size_t n;
    ms_status st = store_contradictions_from(s, m->rid, &v, &n, err);
    cJSON *a = !st && n ? cJSON_AddArrayToObject(o, "contradicts") : NULL;
    for (size_t i = 0; a && i < n; i++) {
        cJSON *r = cJSON_CreateObject();
        if (!r || !cJSON_AddItemToArray(a, r)) {
            cJSON_Delete(r);
            break;
        }
        add_text(r, "id", v[i].other_id);
        add_text(r, "reason", v[i].reason);
    }
    store_relations_free(v, n);
    return st;
}

ms_status export_memory(store *s, FILE *out, const store_memory *m, ms_error *err)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return ms_fail(err, MS_NOMEM, "out of memory exporting");
    add_text(o, "id", m->id);
    add_text(o, "profile", m->profile);
    add_text(o, "content", m->content);
    add_text(o, "created_at", m->created_at);
    add_text(o, "event_time", m->event_time);
    add_text(o, "speaker", m->speaker);
    add_text(o, "session", m->session);
    add_text(o, "source", m->source);
    cJSON_AddNumberToObject(o, "memory_confidence", m->memory_confidence);
    cJSON *t = cJSON_AddObjectToObject(o, "trust");
    if (t) {
        cJSON_AddNumberToObject(t, "alpha", m->trust_alpha);
        cJSON_AddNumberToObject(t, "beta", m->trust_beta);
    }
    cJSON_AddNumberToObject(o, "importance", m->importance);
    if (m->pinned)
        cJSON_AddTrueToObject(o, "pinned");
    if (m->access_count)
        cJSON_AddNumberToObject(o, "access_count", (double)m->access_count);
    add_text(o, "last_accessed", m->last_accessed);
    if (m->n_entities) {
        cJSON *e = cJSON_AddArrayToObject(o, "entities");
        for (size_t i = 0; e && i < m->n_entities; i++)
            cJSON_AddItemToArray(e, cJSON_CreateString(m->entities[i]));
    }
    cJSON *meta = m->metadata ? cJSON_Parse(m->metadata) : NULL;
    if (meta)
        cJSON_AddItemToObject(o, "metadata", meta);
    add_text(o, "superseded_by", m->superseded_by);
    add_text(o, "superseded_at", m->superseded_at);
    add_text(o, "superseded_reason", m->superseded_reason);
    ms_status st = s ? export_contradicts(s, o, m, err) : MS_OK;
    if (st) {
        cJSON_Delete(o);
        return st;
    }
    char *line = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!line)
        return ms_fail(err, MS_NOMEM, "out of memory exporting");
    int bad = fputs(line, out) == EOF || fputc('\n', out) == EOF;
    free(line);
    if (bad)
        return ms_fail(err, MS_IO, "write error: %s", strerror(errno));
    return MS_OK;
}

ms_status export_jsonl(store *s, FILE *out, int all_profiles, ms_error *err)
{
    int any = 0;
    ms_status st = store_has_contradictions(s, &any, err);
    struct export_ctx x = {any ? s : NULL, out, MS_OK, err};
    if (!st)
        st = store_scan(s, all_profiles, STORE_SCAN_GIVEN, export_one, &x, err);
    if (!st)
        st = x.st;
    if (!st && fflush(out) != 0)
        st = ms_fail(err, MS_IO, "write error: %s", strerror(errno));
    return st;
}
