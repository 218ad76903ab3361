/* import_slm.c - a SuperLocalMemory (SLM) store into a memscope store.
 *
 * SLM keeps an agent's memory in one SQLite file, memory.db, under its data
 * root (docs/STORES.md says where). Its retrievable unit is the atomic fact;
 * each visible fact becomes one memscope memory with the fact's id, in a
 * memscope profile named after SLM's profile.
 *
 * The source is opened read-only (mode=ro, query_only) and never written:
 * a live SLM daemon may hold it in WAL mode. Tables and columns arrive in
 * SLM by migration, so every one beyond atomic_facts(fact_id, content) is
 * looked up before it is used; what is missing is reported, not fatal.
 *
 * Importing the same store again brings memscope up to date: memories of
 * the profile that came from SLM (metadata "origin") and are no longer
 * visible there are deleted, changed ones replaced, unchanged ones left. */
#include "import.h"
#include "import_int.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define SLM_ORIGIN "superlocalmemory"
#define SLM_TRUST_MIN 1e-9 /* a Beta parameter SLM's t = 0 or 1 leaves at 0 */

/* The source store and what its schema has. */
typedef struct slm_src {
    sqlite3 *db;
    char path[PATH_MAX]; /* memory.db */
    int64_t version;     /* slm_schema_version, else schema_version, else 0 */
    char missing[1024];  /* "table.column, table, ..." that this store lacks */
} slm_src;

/* One import: the source, the target and what the caller asked. */
typedef struct slm_run {
    slm_src *src;
    store *s;
    const import_opts *opts;
    import_stats *stats;
    ms_error *err;
    char *model; /* the vectors imported: the model with the most, or NULL */
    int model_dim;
    int vectors_ok; /* the store may take vectors of model */
    import_slm_report rep;
    char **ids; /* fact ids imported into the profile, for the removal pass */
    size_t n_ids, cap_ids;
} slm_run;

/* ---- the source's schema -------------------------------------------------------- */

static int src_has_table(slm_src *src, const char *table)
{
    sqlite3_stmt *st;
    int yes = 0;
    if (sqlite3_prepare_v2(src->db,
                           "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name=?1",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
        yes = sqlite3_step(st) == SQLITE_ROW;
        sqlite3_finalize(st);
    }
    return yes;
}

static int src_has_col(slm_src *src, const char *table, const char *col)
{
    sqlite3_stmt *st;
    int yes = 0;
    if (sqlite3_prepare_v2(src->db, "SELECT 1 FROM pragma_table_info(?1) WHERE name=?2", -1, &st,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
        yes = sqlite3_step(st) == SQLITE_ROW;
        sqlite3_finalize(st);
    }
    return yes;
}

static void note_missing(slm_src *src, const char *what)
{
    size_t n = strlen(src->missing), w = strlen(what);
    for (const char *p = strstr(src->missing, what); p; p = strstr(p + 1, what))
        if ((p == src->missing || p[-1] == ' ') && (p[w] == ',' || p[w] == '\0'))
            return; /* noted already */
    if (n + w + 3 < sizeof src->missing)
        snprintf(src->missing + n, sizeof src->missing - n, "%s%s", n ? ", " : "", what);
}

/* Is table.col there? Notes it as missing when not (col NULL: the table). */
static int src_want(slm_src *src, const char *table, const char *col)
{
    int yes =
        col ? src_has_table(src, table) && src_has_col(src, table, col) : src_has_table(src, table);
    if (!yes) {
        char what[128];
        snprintf(what, sizeof what, "%s%s%s", table, col ? "." : "", col ? col : "");
        note_missing(src, what);
    }
    return yes;
}

static int64_t src_int(slm_src *src, const char *sql)
{
    sqlite3_stmt *st;
    int64_t v = 0;
    if (sqlite3_prepare_v2(src->db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    return v;
}

/* An error reading the source: one line naming it. */
static ms_status src_fail(slm_src *src, int rc, const char *doing, ms_error *err)
{
    int base = rc & 0xff;
    const char *why = src->db ? sqlite3_errmsg(src->db) : sqlite3_errstr(rc);
    if (base == SQLITE_BUSY || base == SQLITE_LOCKED)
        return ms_fail(err, MS_BUSY, "%s: locked by another process (waited %d ms) while %s",
                       src->path, STORE_BUSY_MS, doing);
    if (base == SQLITE_NOTADB)
        return ms_fail(err, MS_PARSE, "%s: not a SuperLocalMemory store (not an SQLite database)",
                       src->path);
    if (base == SQLITE_CORRUPT)
        return ms_fail(err, MS_CORRUPT, "%s: the SuperLocalMemory store is corrupt (%s) while %s",
                       src->path, why, doing);
    return ms_fail(err, MS_SQL, "%s: %s while %s", src->path, why, doing);
}

/* PATH is memory.db or a data root holding it. */
static ms_status src_locate(slm_src *src, const char *path, ms_error *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return ms_fail(err, MS_IO, "cannot open %s: %s", path, strerror(errno));
    if (S_ISDIR(sb.st_mode)) {
        int n = snprintf(src->path, sizeof src->path, "%s/memory.db", path);
        if (n < 0 || (size_t)n >= sizeof src->path)
            return ms_fail(err, MS_USAGE, "%s: path too long", path);
        if (stat(src->path, &sb) != 0)
            return ms_fail(err, MS_NOT_FOUND,
                           "%s: no memory.db in this folder (a SuperLocalMemory data root "
                           "holds one)",
                           path);
    } else {
        snprintf(src->path, sizeof src->path, "%s", path);
    }
    return MS_OK;
}

static void src_close(slm_src *src)
{
    sqlite3_close(src->db);
    src->db = NULL;
}

/* Does the database header say WAL (file format versions 2)? */
static int wal_mode(const char *path)
{
    unsigned char head[20] = {0};
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    return n == sizeof head && head[18] == 2 && head[19] == 2;
}

/* Open read-only and check it is an SLM store whose schema we read,
 * waiting up to wait_ms for a lock. */
static ms_status src_open(slm_src *src, const char *path, int wait_ms, ms_error *err)
{
    ms_status st = src_locate(src, path, err);
    if (st)
        return st;
    /* a URI for mode=ro; '?', '#' and '%' in the path are escaped */
    char uri[3 * PATH_MAX + 32];
    size_t o = (size_t)snprintf(uri, sizeof uri, "file:");
    for (const char *p = src->path; *p && o + 4 < sizeof uri; p++) {
        if (*p == '?' || *p == '#' || *p == '%')
            o += (size_t)snprintf(uri + o, sizeof uri - o, "%%%02X", (unsigned char)*p);
        else
            uri[o++] = *p;
    }
    /* A store in WAL mode with no -wal beside it: no SLM process has it
     * open (the last connection to close removes the log) and the file is
     * the whole store; reading it immutable takes no locks and creates no
     * -wal or -shm, which even a read-only open would. With a log, a live
     * SLM may be writing: read through the log with its locks. A store in
     * rollback-journal mode is read with its locks (that creates nothing). */
    char wal[PATH_MAX + 8];
    struct stat sb;
    snprintf(wal, sizeof wal, "%s-wal", src->path);
    int quiet = wal_mode(src->path) && stat(wal, &sb) != 0;
    snprintf(uri + o, sizeof uri - o, quiet ? "?mode=ro&immutable=1" : "?mode=ro");
    int rc = sqlite3_open_v2(uri, &src->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    if (rc != SQLITE_OK)
        return src_fail(src, rc, "opening it", err);
    sqlite3_busy_timeout(src->db, wait_ms);
    rc = sqlite3_exec(src->db, "PRAGMA query_only=ON", NULL, NULL, NULL);
    sqlite3_stmt *probe;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(src->db, "SELECT count(*) FROM sqlite_master", -1, &probe, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(probe);
        sqlite3_finalize(probe);
        rc = rc == SQLITE_ROW ? SQLITE_OK : rc;
    }
    if (rc != SQLITE_OK)
        return src_fail(src, rc, "reading its schema", err);
    if (!src_has_table(src, "atomic_facts") || !src_has_col(src, "atomic_facts", "fact_id") ||
        !src_has_col(src, "atomic_facts", "content"))
        return ms_fail(err, MS_PARSE,
                       "%s: an SQLite database but not a SuperLocalMemory store (no "
                       "atomic_facts table with fact_id and content)",
                       src->path);
    if (src_has_table(src, "slm_schema_version"))
        src->version = src_int(src, "SELECT max(version) FROM slm_schema_version");
    else if (src_has_table(src, "schema_version"))
        src->version = src_int(src, "SELECT max(version) FROM schema_version");
    if (src->version > IMPORT_SLM_SCHEMA)
        return ms_fail(err, MS_SCHEMA_NEWER,
                       "%s: SuperLocalMemory schema version %lld is newer than this memscope "
                       "reads (up to %d): upgrade memscope",
                       src->path, (long long)src->version, IMPORT_SLM_SCHEMA);
    return MS_OK;
}

int import_is_slm(const char *path)
{
    slm_src src = {0};
    ms_error err;
    ms_error_clear(&err);
    struct stat sb;
    /* a pipe is never one, and must not lose what is read from it here */
    if (stat(path, &sb) != 0 || (!S_ISDIR(sb.st_mode) && !S_ISREG(sb.st_mode)))
        return 0;
    if (!S_ISDIR(sb.st_mode)) {
        FILE *f = fopen(path, "rb");
        char head[16] = {0};
        size_t n = f ? fread(head, 1, sizeof head, f) : 0;
        if (f)
            fclose(f);
        if (n < sizeof head || memcmp(head, "SQLite format 3", 16) != 0)
            return 0;
    }
    ms_status st = src_open(&src, path, 0, &err); /* a guess need not wait for a lock */
    src_close(&src);
    /* an SLM store we cannot read still is one: the import says why */
    return st == MS_OK || st == MS_SCHEMA_NEWER || st == MS_BUSY;
}

/* ---- the fact query ------------------------------------------------------------- */

/* Columns of the fact query, in order. */
enum fact_col {
    FC_ID,
    FC_CONTENT,
    FC_PROFILE,
    FC_SCOPE,
    FC_FACT_TYPE,
    FC_OBSERVED,
    FC_REFERENCED,
    FC_INTERVAL,
    FC_CONFIDENCE,
    FC_IMPORTANCE,
    FC_PINNED,
    FC_SESSION,
    FC_EMBEDDING,
    FC_CREATED,
    FC_MEMORY_ID,
    FC_LIFECYCLE,
    FC_ARCHIVED,
    FC_QUARANTINED,
    FC_VALID_UNTIL,
    FC_ZONE,
    FC_SPEAKER,
    FC_RAW_SESSION,
    FC_TRUST,
    FC_TRUST_N,
    FC_EXPIRED_AT,
    FC_EXPIRED_BY,
    FC_EXPIRED_WHY,
    FC_EDGE_BY,
    FC_EDGE_AT,
    FC_CASE_BY,
    FC_CASE_AT,
    FC_CASE_WHY,
    FC_MODEL,
    FC_DIM,
    FC_ACCESS,
    FC_SOURCE,
    FC_COUNT
};

/* An expression for atomic_facts.col, or fallback when the column is
 * missing (noted). */
static const char *fcol(slm_src *src, char *buf, size_t cap, const char *col, const char *fallback)
{
    if (src_want(src, "atomic_facts", col))
        snprintf(buf, cap, "f.%s", col);
    else
        snprintf(buf, cap, "%s", fallback);
    return buf;
}

/* expr when table (and col) exist, else NULL (noted as missing). */
static const char *when(slm_src *src, const char *table, const char *col, const char *expr)
{
    return src_want(src, table, col) ? expr : "NULL";
}

/* The facts visible to profile ?1 (its own, scope global, shared with it),
 * with all a memory needs, in SLM's insertion order. Caller frees. */
static char *fact_sql(slm_src *src)
{
    char c[FC_COUNT][96];
    const char *prof = fcol(src, c[FC_PROFILE], 96, "profile_id", "'default'");
    int scoped = src_has_col(src, "atomic_facts", "scope");
    int shared = src_has_col(src, "atomic_facts", "shared_with");
    int trust = src_want(src, "trust_scores", NULL);
    int prov = src_want(src, "provenance", NULL);
    char trust_agent[400] = "NULL";
    if (trust && prov)
        snprintf(trust_agent, sizeof trust_agent,
                 "(SELECT t.trust_score FROM trust_scores t WHERE t.target_type='agent' AND"
                 " t.target_id=(SELECT p.created_by FROM provenance p WHERE p.fact_id=f.fact_id"
                 " LIMIT 1) ORDER BY t.profile_id=?1 DESC LIMIT 1)");
    char trust_agent_n[400] = "NULL";
    if (trust && prov)
        snprintf(trust_agent_n, sizeof trust_agent_n,
                 "(SELECT t.evidence_count FROM trust_scores t WHERE t.target_type='agent' AND"
                 " t.target_id=(SELECT p.created_by FROM provenance p WHERE p.fact_id=f.fact_id"
                 " LIMIT 1) ORDER BY t.profile_id=?1 DESC LIMIT 1)");
    int mem = src_has_table(src, "memories") && src_has_col(src, "atomic_facts", "memory_id");
    int tv = src_want(src, "fact_temporal_validity", NULL);
    int ge = src_want(src, "graph_edges", NULL);
    int cc = src_want(src, "correction_cases", NULL);
    int em = src_want(src, "embedding_metadata", NULL);
    char *sql = sqlite3_mprintf(
        "SELECT f.fact_id, f.content, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s,"
        " %s, %s,"
        /* valid_until: the fact's own, else its validity row */
        " coalesce(%s, %s),"
        " %s,"
        /* speaker and session of the raw memory */
        " %s, %s,"
        /* trust: the fact's row, else the agent's */
        " coalesce(%s, %s), coalesce(%s, %s),"
        " %s, %s, %s,"
        " %s, %s,"
        " %s, %s, %s,"
        " %s, %s, %s, %s"
        " FROM atomic_facts f WHERE (%s = ?1%s%s) ORDER BY f.rowid",
        prof, fcol(src, c[FC_SCOPE], 96, "scope", "'personal'"),
        fcol(src, c[FC_FACT_TYPE], 96, "fact_type", "NULL"),
        fcol(src, c[FC_OBSERVED], 96, "observation_date", "NULL"),
        fcol(src, c[FC_REFERENCED], 96, "referenced_date", "NULL"),
        fcol(src, c[FC_INTERVAL], 96, "interval_start", "NULL"),
        fcol(src, c[FC_CONFIDENCE], 96, "confidence", "1.0"),
        fcol(src, c[FC_IMPORTANCE], 96, "importance", "0.5"),
        fcol(src, c[FC_PINNED], 96, "pinned", "0"),
        fcol(src, c[FC_SESSION], 96, "session_id", "NULL"),
        fcol(src, c[FC_EMBEDDING], 96, "embedding", "NULL"),
        fcol(src, c[FC_CREATED], 96, "created_at", "NULL"),
        fcol(src, c[FC_MEMORY_ID], 96, "memory_id", "NULL"),
        fcol(src, c[FC_LIFECYCLE], 96, "lifecycle", "NULL"),
        src_want(src, "atomic_facts", "archive_status")
            ? "coalesce(f.archive_status, 'live') = 'archived'"
            : "0",
        src_want(src, "atomic_facts", "quarantined") ? "coalesce(f.quarantined, 0) = 1" : "0",
        src_has_col(src, "atomic_facts", "valid_until") ? "f.valid_until" : "NULL",
        tv ? "(SELECT v.valid_until FROM fact_temporal_validity v WHERE v.fact_id=f.fact_id)"
           : "NULL",
        when(src, "fact_retention", "lifecycle_zone",
             "(SELECT r.lifecycle_zone FROM fact_retention r WHERE r.fact_id=f.fact_id)"),
        mem && src_has_col(src, "memories", "speaker")
            ? "(SELECT m.speaker FROM memories m WHERE m.memory_id=f.memory_id)"
            : "NULL",
        mem && src_has_col(src, "memories", "session_id")
            ? "(SELECT m.session_id FROM memories m WHERE m.memory_id=f.memory_id)"
            : "NULL",
        trust ? "(SELECT t.trust_score FROM trust_scores t WHERE t.target_type='fact' AND"
                " t.target_id=f.fact_id ORDER BY t.profile_id=?1 DESC LIMIT 1)"
              : "NULL",
        trust_agent,
        trust ? "(SELECT t.evidence_count FROM trust_scores t WHERE t.target_type='fact' AND"
                " t.target_id=f.fact_id ORDER BY t.profile_id=?1 DESC LIMIT 1)"
              : "NULL",
        trust_agent_n,
        tv ? "(SELECT v.system_expired_at FROM fact_temporal_validity v"
             " WHERE v.fact_id=f.fact_id)"
           : "NULL",
        tv ? "(SELECT v.invalidated_by FROM fact_temporal_validity v WHERE v.fact_id=f.fact_id)"
           : "NULL",
        tv ? "(SELECT v.invalidation_reason FROM fact_temporal_validity v"
             " WHERE v.fact_id=f.fact_id)"
           : "NULL",
        ge ? "(SELECT g.source_id FROM graph_edges g WHERE g.edge_type='supersedes' AND"
             " g.target_id=f.fact_id ORDER BY g.rowid DESC LIMIT 1)"
           : "NULL",
        ge ? "(SELECT g.created_at FROM graph_edges g WHERE g.edge_type='supersedes' AND"
             " g.target_id=f.fact_id ORDER BY g.rowid DESC LIMIT 1)"
           : "NULL",
        cc ? "(SELECT c.successor_fact_id FROM correction_cases c WHERE c.status='applied' AND"
             " c.predecessor_fact_id=f.fact_id ORDER BY c.applied_at DESC LIMIT 1)"
           : "NULL",
        cc ? "(SELECT coalesce(c.system_effective_at, c.applied_at) FROM correction_cases c"
             " WHERE c.status='applied' AND c.predecessor_fact_id=f.fact_id"
             " ORDER BY c.applied_at DESC LIMIT 1)"
           : "NULL",
        cc ? "(SELECT c.reason_code FROM correction_cases c WHERE c.status='applied' AND"
             " c.predecessor_fact_id=f.fact_id ORDER BY c.applied_at DESC LIMIT 1)"
           : "NULL",
        em ? "(SELECT e.model_name FROM embedding_metadata e WHERE e.fact_id=f.fact_id"
             " ORDER BY e.rowid DESC LIMIT 1)"
           : "NULL",
        em ? "(SELECT e.dimension FROM embedding_metadata e WHERE e.fact_id=f.fact_id"
             " ORDER BY e.rowid DESC LIMIT 1)"
           : "NULL",
        fcol(src, c[FC_ACCESS], 96, "access_count", "0"),
        prov ? "(SELECT p.source_type FROM provenance p WHERE p.fact_id=f.fact_id LIMIT 1)"
             : "NULL",
        prof, scoped ? " OR f.scope = 'global'" : "",
        shared ? " OR (json_valid(f.shared_with) AND EXISTS (SELECT 1 FROM"
                 " json_each(f.shared_with) j WHERE j.value = ?1))"
               : "");
    return sql;
}

/* ---- one fact into one memory --------------------------------------------------- */

static const char *col_str(sqlite3_stmt *st, int c)
{
    const char *v = (const char *)sqlite3_column_text(st, c);
    return v && *v ? v : NULL;
}

static char *dup_or_null(const char *v)
{
    return v ? strdup(v) : NULL;
}

/* An SLM time ("2026-12-01T08:45:18.706130+00:00", "2026-12-01 08:45:29")
 * as memscope's ISO 8601, or NULL when it is none. */
static char *slm_time(const char *v)
{
    int64_t ts;
    if (!v || store_parse_time(v, &ts))
        return NULL;
    char buf[32];
    store_format_time(ts, buf, sizeof buf);
    return strdup(buf);
}

/* SLM's trust_score t from n pieces of evidence as Beta(alpha, beta):
 * alpha = t (n + 2), beta = (1 - t)(n + 2), so that alpha / (alpha + beta)
 * is t; no row is the 0.5 prior, Beta(1, 1). */
static void slm_trust(sqlite3_stmt *st, store_memory *m)
{
    if (sqlite3_column_type(st, FC_TRUST) == SQLITE_NULL)
        return;
    double t = import_unit(sqlite3_column_double(st, FC_TRUST));
    double n = sqlite3_column_double(st, FC_TRUST_N);
    if (!isfinite(n) || n < 0)
        n = 0;
    if (n > 1e8)
        n = 1e8;
    m->trust_alpha = t * (n + 2);
    m->trust_beta = (1 - t) * (n + 2);
    if (m->trust_alpha < SLM_TRUST_MIN)
        m->trust_alpha = SLM_TRUST_MIN;
    if (m->trust_beta < SLM_TRUST_MIN)
        m->trust_beta = SLM_TRUST_MIN;
}

/* What superseded the fact: its expiry (system_expired_at, invalidated_by),
 * an applied correction case, a supersedes edge, a valid_until that has
 * passed, in that order of authority. */
/* The time of fact id (observation_date, else created_at) as memscope's
 * ISO 8601, or NULL. Caller frees. */
static char *successor_time(slm_run *r, const char *id)
{
    int obs = src_has_col(r->src, "atomic_facts", "observation_date");
    int made = src_has_col(r->src, "atomic_facts", "created_at");
    if (!obs && !made)
        return NULL;
    sqlite3_stmt *st;
    char *t = NULL;
    const char *sql = obs && made
                          ? "SELECT coalesce(observation_date, created_at) FROM atomic_facts"
                            " WHERE fact_id=?1"
                      : obs ? "SELECT observation_date FROM atomic_facts WHERE fact_id=?1"
                            : "SELECT created_at FROM atomic_facts WHERE fact_id=?1";
    if (sqlite3_prepare_v2(r->src->db, sql, -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW)
            t = slm_time(col_str(st, 0));
        sqlite3_finalize(st);
    }
    return t;
}

static ms_status slm_supersession(slm_run *r, sqlite3_stmt *st, store_memory *m, ms_error *err)
{
    const char *by = col_str(st, FC_EXPIRED_BY), *at = col_str(st, FC_EXPIRED_AT);
    const char *why = col_str(st, FC_EXPIRED_WHY);
    if (!by && col_str(st, FC_CASE_BY)) {
        by = col_str(st, FC_CASE_BY);
        why = why ? why : col_str(st, FC_CASE_WHY);
    }
    if (!at && col_str(st, FC_CASE_BY))
        at = col_str(st, FC_CASE_AT);
    if (!by && col_str(st, FC_EDGE_BY)) {
        by = col_str(st, FC_EDGE_BY);
        why = why ? why : "supersedes edge";
    }
    if (!at && col_str(st, FC_EDGE_BY))
        at = col_str(st, FC_EDGE_AT);
    const char *until = col_str(st, FC_VALID_UNTIL);
    int64_t ts;
    if (!by && !at && until && store_parse_time(until, &ts) == 0 && ts <= (int64_t)time(NULL)) {
        at = until;
        why = "valid_until passed";
    }
    if (!by && !at)
        return MS_OK;
    m->superseded_by = dup_or_null(by);
    /* since when: the successor's own time (when the newer fact was
     * stated) rather than SLM's bookkeeping time of the expiry */
    char *succ = by ? successor_time(r, by) : NULL;
    m->superseded_at = succ ? succ : slm_time(at);
    m->superseded_reason = dup_or_null(why ? why : "expired in SuperLocalMemory");
    if ((by && !m->superseded_by) || !m->superseded_reason)
        return ms_fail(err, MS_NOMEM, "out of memory");
    return MS_OK;
}

/* Add name to m->entities unless it is there, too long or one too many
 * (store.c's limits). */
static ms_status add_entity(store_memory *m, const char *name)
{
    if (!name || !*name || strlen(name) > 96 || m->n_entities >= STORE_ENTITIES_MAX ||
        store_utf8_invalid_at(name, strlen(name)) >= 0)
        return MS_OK;
    for (size_t i = 0; i < m->n_entities; i++)
        if (strcmp(m->entities[i], name) == 0)
            return MS_OK;
    char **g = realloc(m->entities, (m->n_entities + 1) * sizeof *g);
    if (!g)
        return MS_NOMEM;
    m->entities = g;
    if (!(m->entities[m->n_entities] = strdup(name)))
        return MS_NOMEM;
    m->n_entities++;
    return MS_OK;
}

/* The fact's entities by their canonical names (fact_entity_associations),
 * else the names in canonical_entities_json or entities_json; their aliases
 * into aliases (an object name -> [alias, ...]). */
static ms_status slm_entities(slm_run *r, const char *fact_id, store_memory *m, cJSON *aliases)
{
    slm_src *src = r->src;
    int assoc =
        src_has_table(src, "fact_entity_associations") && src_has_table(src, "canonical_entities");
    int has_alias = src_has_table(src, "entity_aliases");
    const char *sql =
        assoc ? "SELECT ce.canonical_name, ce.entity_id FROM fact_entity_associations a JOIN"
                " canonical_entities ce ON ce.entity_id=a.entity_id WHERE a.fact_id=?1"
                " ORDER BY a.rowid"
        : src_has_col(src, "atomic_facts", "canonical_entities_json")
            ? "SELECT j.value, NULL FROM atomic_facts f, json_each(CASE WHEN"
              " json_valid(f.canonical_entities_json) THEN f.canonical_entities_json ELSE '[]'"
              " END) j WHERE f.fact_id=?1 AND j.type='text'"
        : src_has_col(src, "atomic_facts", "entities_json")
            ? "SELECT j.value, NULL FROM atomic_facts f, json_each(CASE WHEN"
              " json_valid(f.entities_json) THEN f.entities_json ELSE '[]' END) j"
              " WHERE f.fact_id=?1 AND j.type='text'"
            : NULL;
    if (!sql)
        return MS_OK;
    sqlite3_stmt *st, *al = NULL;
    int rc = sqlite3_prepare_v2(src->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK && assoc && has_alias)
        rc = sqlite3_prepare_v2(
            src->db, "SELECT alias FROM entity_aliases WHERE entity_id=?1 ORDER BY rowid", -1, &al,
            NULL);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(st);
        return src_fail(src, rc, "reading entities", r->err);
    }
    sqlite3_bind_text(st, 1, fact_id, -1, SQLITE_STATIC);
    ms_status code = MS_OK;
    while (!code && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = col_str(st, 0);
        code = add_entity(m, name);
        if (code || !al || !name)
            continue;
        sqlite3_reset(al);
        sqlite3_bind_text(al, 1, (const char *)sqlite3_column_text(st, 1), -1, SQLITE_TRANSIENT);
        cJSON *list = NULL;
        while (sqlite3_step(al) == SQLITE_ROW) {
            const char *a = col_str(al, 0);
            if (!a || strcmp(a, name) == 0)
                continue;
            if (!list && !(list = cJSON_AddArrayToObject(aliases, name)))
                break;
            cJSON_AddItemToArray(list, cJSON_CreateString(a));
        }
    }
    if (code)
        code = ms_fail(r->err, MS_NOMEM, "out of memory");
    else if (rc != SQLITE_DONE)
        code = src_fail(src, rc, "reading entities", r->err);
    sqlite3_finalize(st);
    sqlite3_finalize(al);
    return code;
}

/* SLM's metadata of a fact: where it came from, fact_type, scope, the raw
 * memory and lifecycle, entity aliases. */
static ms_status slm_metadata(slm_run *r, sqlite3_stmt *st, store_memory *m, const char *profile)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *aliases = cJSON_CreateObject();
    if (!o || !aliases) {
        cJSON_Delete(o);
        cJSON_Delete(aliases);
        return ms_fail(r->err, MS_NOMEM, "out of memory");
    }
    cJSON_AddStringToObject(o, "origin", SLM_ORIGIN);
    cJSON_AddStringToObject(o, "slm_profile", profile);
    static const struct {
        const char *key;
        int col;
    } keys[] = {{"fact_type", FC_FACT_TYPE},
                {"scope", FC_SCOPE},
                {"memory_id", FC_MEMORY_ID},
                {"lifecycle", FC_LIFECYCLE}};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (col_str(st, keys[i].col))
            cJSON_AddStringToObject(o, keys[i].key, col_str(st, keys[i].col));
    ms_status code = slm_entities(r, m->id, m, aliases);
    if (!code && aliases->child)
        cJSON_AddItemToObject(o, "entity_aliases", aliases);
    else
        cJSON_Delete(aliases);
    if (!code && !(m->metadata = cJSON_PrintUnformatted(o)))
        code = ms_fail(r->err, MS_NOMEM, "out of memory");
    cJSON_Delete(o);
    return code;
}

/* The fact's vector: a little-endian float32 BLOB, or JSON text on old
 * rows. Only vectors of the run's model (r->model, r->model_dim) are taken;
 * *skipped counts the others. */
static ms_status slm_vector(slm_run *r, sqlite3_stmt *st, store_memory *m, int *skipped)
{
    *skipped = 0;
    int type = sqlite3_column_type(st, FC_EMBEDDING);
    if (type == SQLITE_NULL)
        return MS_OK;
    const char *model = col_str(st, FC_MODEL);
    int dim = sqlite3_column_int(st, FC_DIM);
    if (!model) { /* no model named: it could be compared with nothing */
        r->rep.vectors_unlabelled++;
        return MS_OK;
    }
    if (!r->vectors_ok || strcmp(model, r->model) != 0 || dim != r->model_dim) {
        *skipped = 1;
        return MS_OK;
    }
    float *v = malloc((size_t)dim * sizeof *v);
    if (!v)
        return ms_fail(r->err, MS_NOMEM, "out of memory");
    int got = 0;
    if (type == SQLITE_BLOB) {
        const unsigned char *b = sqlite3_column_blob(st, FC_EMBEDDING);
        int len = sqlite3_column_bytes(st, FC_EMBEDDING);
        if (len == dim * 4) {
            for (int i = 0; i < dim; i++) {
                uint32_t u = (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 |
                             (uint32_t)b[4 * i + 2] << 16 | (uint32_t)b[4 * i + 3] << 24;
                memcpy(&v[i], &u, sizeof u);
            }
            got = dim;
        }
    } else {
        cJSON *a = cJSON_Parse((const char *)sqlite3_column_text(st, FC_EMBEDDING));
        const cJSON *x;
        cJSON_ArrayForEach(x, a)
        {
            if (got >= dim || !cJSON_IsNumber(x))
                break;
            v[got++] = (float)x->valuedouble;
        }
        if (got != cJSON_GetArraySize(a))
            got = 0;
        cJSON_Delete(a);
    }
    for (int i = 0; i < got; i++)
        if (!isfinite(v[i]))
            got = 0;
    if (got != dim) {
        free(v);
        return ms_fail(r->err, MS_PARSE,
                       "%s: fact %s: its embedding is not %d float32 numbers, as "
                       "embedding_metadata says",
                       r->src->path, m->id, dim);
    }
    m->embedding = v;
    m->dim = dim;
    if (!(m->embedder_id = strdup(r->model)))
        return ms_fail(r->err, MS_NOMEM, "out of memory");
    return MS_OK;
}

/* Fill m from a row of fact_sql. */
static ms_status fact_to_memory(slm_run *r, sqlite3_stmt *st, store_memory *m, const char *profile,
                                int *vec_skipped)
{
    store_memory_init(m);
    m->id = dup_or_null(col_str(st, FC_ID));
    m->content = strdup(sqlite3_column_text(st, FC_CONTENT)
                            ? (const char *)sqlite3_column_text(st, FC_CONTENT)
                            : "");
    if (!m->id || !m->content)
        return ms_fail(r->err, MS_NOMEM, "out of memory");
    m->created_at = slm_time(col_str(st, FC_CREATED));
    if (!m->created_at)
        m->created_at = slm_time(col_str(st, FC_OBSERVED));
    m->event_time = slm_time(col_str(st, FC_REFERENCED));
    if (!m->event_time)
        m->event_time = slm_time(col_str(st, FC_INTERVAL));
    if (!m->event_time)
        m->event_time = slm_time(col_str(st, FC_OBSERVED));
    m->speaker = dup_or_null(col_str(st, FC_SPEAKER));
    const char *session = col_str(st, FC_RAW_SESSION);
    m->session = dup_or_null(session ? session : col_str(st, FC_SESSION));
    m->source = dup_or_null(col_str(st, FC_SOURCE));
    m->memory_confidence = import_unit(sqlite3_column_double(st, FC_CONFIDENCE));
    m->importance = import_unit(sqlite3_column_double(st, FC_IMPORTANCE));
    m->pinned = sqlite3_column_int(st, FC_PINNED) != 0;
    int64_t access = sqlite3_column_int64(st, FC_ACCESS);
    m->access_count = access > 0 ? access : 0;
    slm_trust(st, m);
    ms_status code = slm_supersession(r, st, m, r->err);
    if (!code)
        code = slm_metadata(r, st, m, profile);
    if (!code)
        code = slm_vector(r, st, m, vec_skipped);
    return code;
}

/* ---- writing -------------------------------------------------------------------- */

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Is the existing memory old what m would write? (Entities compared as
 * sets of names; the vector by its bytes.) */
static int unchanged(store *s, const store_memory *old, const store_memory *m)
{
    if (!same_str(old->content, m->content) || !same_str(old->created_at, m->created_at) ||
        !same_str(old->event_time, m->event_time) || !same_str(old->speaker, m->speaker) ||
        !same_str(old->session, m->session) || !same_str(old->source, m->source) ||
        !same_str(old->metadata, m->metadata) || !same_str(old->superseded_by, m->superseded_by) ||
        !same_str(old->superseded_at, m->superseded_at) ||
        !same_str(old->superseded_reason, m->superseded_reason) ||
        old->memory_confidence != m->memory_confidence || old->importance != m->importance ||
        old->pinned != m->pinned || old->access_count != m->access_count ||
        fabs(old->trust_alpha - m->trust_alpha) > 1e-12 ||
        fabs(old->trust_beta - m->trust_beta) > 1e-12 || (m->embedding && !old->vector_model))
        return 0; /* a vector SLM has not (or one left out) leaves memscope's as it is */
    for (size_t i = 0; i < m->n_entities; i++) {
        int found = 0;
        for (size_t j = 0; j < old->n_entities && !found; j++)
            found = strcmp(old->entities[j], m->entities[i]) == 0;
        if (!found)
            return 0;
    }
    if (!m->embedding)
        return 1;
    float *v = malloc((size_t)m->dim * sizeof *v);
    int same = v && store_get_vector(s, old->rid, v, m->dim, NULL) == MS_OK &&
               memcmp(v, m->embedding, (size_t)m->dim * sizeof *v) == 0;
    free(v);
    return same;
}

/* Did an SLM import write the memory with this metadata? */
static int from_slm(const char *metadata)
{
    return metadata && strstr(metadata, "\"origin\":\"" SLM_ORIGIN "\"") != NULL;
}

static ms_status remember_id(slm_run *r, const char *id)
{
    if (r->n_ids == r->cap_ids) {
        size_t cap = r->cap_ids ? 2 * r->cap_ids : 256;
        char **g = realloc(r->ids, cap * sizeof *g);
        if (!g)
            return ms_fail(r->err, MS_NOMEM, "out of memory");
        r->ids = g;
        r->cap_ids = cap;
    }
    if (!(r->ids[r->n_ids] = strdup(id)))
        return ms_fail(r->err, MS_NOMEM, "out of memory");
    r->n_ids++;
    return MS_OK;
}

/* Write m into the current profile: added, replaced or left unchanged. */
static ms_status put_fact(slm_run *r, store_memory *m)
{
    store_memory old;
    ms_error e;
    ms_status code = store_get(r->s, m->id, 0, &old, &e);
    int exists = code == MS_OK;
    int same = exists && unchanged(r->s, &old, m);
    int foreign = exists && !from_slm(old.metadata);
    store_memory_clear(&old);
    if (code && code != MS_NOT_FOUND)
        return ms_fail(r->err, code, "%s", e.msg);
    /* a memory of that id that an SLM import did not write: --on-duplicate */
    if (foreign && r->opts->dup == STORE_DUP_ERROR)
        return ms_fail(r->err, MS_DUPLICATE,
                       "%s: fact %s: id \"%s\" already exists in profile \"%s\" and did not "
                       "come from SuperLocalMemory (see --on-duplicate)",
                       r->src->path, m->id, m->id, store_profile(r->s));
    if (foreign && r->opts->dup == STORE_DUP_SKIP) {
        r->rep.kept++;
        r->stats->skipped++;
        return remember_id(r, m->id);
    }
    code = remember_id(r, m->id);
    if (code || same) {
        r->rep.unchanged += !code;
        r->stats->skipped += !code;
        return code;
    }
    code = store_put(r->s, m, STORE_DUP_REPLACE, NULL, &e);
    if (code)
        return ms_fail(r->err, code, "%s: fact %s: %s", r->src->path, m->id, e.msg);
    r->stats->records++;
    if (exists) {
        r->rep.replaced++;
        r->stats->replaced++;
    } else {
        r->rep.added++;
        r->stats->inserted++;
    }
    return MS_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

struct gone_ctx {
    slm_run *r;
    char **gone;
    size_t n, cap;
    int nomem;
};

/* A memory of the profile that came from SLM and was not imported now. */
static int collect_gone(void *p, const store_memory *m)
{
    struct gone_ctx *g = p;
    if (!from_slm(m->metadata))
        return 0;
    const char *id = m->id;
    if (bsearch(&id, g->r->ids, g->r->n_ids, sizeof *g->r->ids, cmp_str))
        return 0;
    if (g->n == g->cap) {
        size_t cap = g->cap ? 2 * g->cap : 64;
        char **n = realloc(g->gone, cap * sizeof *n);
        if (!n) {
            g->nomem = 1;
            return 1;
        }
        g->gone = n;
        g->cap = cap;
    }
    if (!(g->gone[g->n] = strdup(m->id))) {
        g->nomem = 1;
        return 1;
    }
    g->n++;
    return 0;
}

/* Delete the memories an earlier import of this store brought that SLM no
 * longer shows (deleted, archived, quarantined, out of recall). */
static ms_status remove_gone(slm_run *r)
{
    qsort(r->ids, r->n_ids, sizeof *r->ids, cmp_str);
    struct gone_ctx g = {r, NULL, 0, 0, 0};
    ms_status code = store_scan(r->s, 0, STORE_SCAN_NONE, collect_gone, &g, r->err);
    if (!code && g.nomem)
        code = ms_fail(r->err, MS_NOMEM, "out of memory");
    for (size_t i = 0; i < g.n; i++) {
        if (!code)
            code = store_delete(r->s, g.gone[i], r->err);
        if (!code)
            r->rep.removed++;
        free(g.gone[i]);
    }
    free(g.gone);
    return code;
}

/* ---- edges ---------------------------------------------------------------------- */

static int64_t rid_of(slm_run *r, const char *id)
{
    const char *key = id;
    if (!id || !bsearch(&key, r->ids, r->n_ids, sizeof *r->ids, cmp_str))
        return 0;
    store_memory m;
    int64_t rid = store_get(r->s, id, 0, &m, NULL) == MS_OK ? m.rid : 0;
    store_memory_clear(&m);
    return rid;
}

/* SLM's graph and association edges between two imported facts. A graph
 * edge maps by import_slm_edge_type, as the bundle reader maps it
 * (supersedes edges are supersession, slm_supersession); association edges
 * (co-access) have no memscope type and are counted as skipped. */
static ms_status import_edges(slm_run *r, const char *profile)
{
    slm_src *src = r->src;
    if (!src_has_table(src, "graph_edges"))
        return MS_OK;
    int by_profile = src_has_col(src, "graph_edges", "profile_id");
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(src->db,
                                by_profile ? "SELECT source_id, target_id, edge_type, weight FROM"
                                             " graph_edges WHERE profile_id=?1 ORDER BY rowid"
                                           : "SELECT source_id, target_id, edge_type, weight FROM"
                                             " graph_edges ORDER BY rowid",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return src_fail(src, rc, "reading graph_edges", r->err);
    sqlite3_bind_text(st, 1, profile, -1, SQLITE_STATIC);
    ms_status code = MS_OK;
    while (!code && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int t = import_slm_edge_type(col_str(st, 2));
        if (t == SLM_EDGE_SUPERSEDES)
            continue;
        if (t == SLM_EDGE_CONTRADICTS) {
            int64_t a = rid_of(r, col_str(st, 0)), b = rid_of(r, col_str(st, 1));
            if (a && b && a != b)
                code = store_set_contradicts(r->s, a, b, SLM_CONTRADICTION, r->err);
            r->rep.contradicts += !code && a && b && a != b;
            continue;
        }
        int64_t a = t ? rid_of(r, col_str(st, 0)) : 0, b = t ? rid_of(r, col_str(st, 1)) : 0;
        if (!a || !b) {
            r->rep.edges_skipped += t == 0;
            continue;
        }
        code = store_add_edge(r->s, a, b, t, sqlite3_column_double(st, 3), r->err);
        r->rep.edges += !code;
    }
    if (!code && rc != SQLITE_DONE)
        code = src_fail(src, rc, "reading graph_edges", r->err);
    sqlite3_finalize(st);
    if (code || !src_has_table(src, "association_edges"))
        return code;
    int assoc_profile = src_has_col(src, "association_edges", "profile_id");
    rc = sqlite3_prepare_v2(src->db,
                            assoc_profile
                                ? "SELECT count(*) FROM association_edges WHERE profile_id=?1"
                                : "SELECT count(*) FROM association_edges",
                            -1, &st, NULL);
    if (rc != SQLITE_OK)
        return src_fail(src, rc, "reading association_edges", r->err);
    sqlite3_bind_text(st, 1, profile, -1, SQLITE_STATIC);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW)
        r->rep.edges_skipped += (uint64_t)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? MS_OK : src_fail(src, rc, "reading association_edges", r->err);
}

/* ---- profiles ------------------------------------------------------------------- */

/* Import the facts visible to SLM profile `profile` into the store's
 * current profile. */
static ms_status import_facts(slm_run *r, const char *profile)
{
    char *sql = fact_sql(r->src);
    if (!sql)
        return ms_fail(r->err, MS_NOMEM, "out of memory");
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(r->src->db, sql, -1, &st, NULL);
    sqlite3_free(sql);
    if (rc != SQLITE_OK)
        return src_fail(r->src, rc, "reading atomic_facts", r->err);
    sqlite3_bind_text(st, 1, profile, -1, SQLITE_STATIC);
    ms_status code = MS_OK;
    while (!code && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sqlite3_column_int(st, FC_ARCHIVED) || sqlite3_column_int(st, FC_QUARANTINED)) {
            r->rep.archived += sqlite3_column_int(st, FC_ARCHIVED) != 0;
            r->rep.quarantined += !sqlite3_column_int(st, FC_ARCHIVED);
            continue;
        }
        const char *zone = col_str(st, FC_ZONE);
        if (zone && (strcmp(zone, "archive") == 0 || strcmp(zone, "forgotten") == 0)) {
            r->rep.out_of_recall++;
            continue;
        }
        store_memory m;
        int vec_skipped = 0;
        code = fact_to_memory(r, st, &m, profile, &vec_skipped);
        if (!code)
            code = put_fact(r, &m);
        r->rep.vectors += !code && m.embedding;
        r->rep.vectors_skipped += vec_skipped;
        r->rep.superseded += !code && store_is_superseded(&m);
        store_memory_clear(&m);
    }
    if (!code && rc != SQLITE_DONE)
        code = src_fail(r->src, rc, "reading atomic_facts", r->err);
    sqlite3_finalize(st);
    return code;
}

/* The model of most vectors: the one the import takes (a store holds one
 * model's vectors; the others are reported). */
static ms_status choose_model(slm_run *r)
{
    slm_src *src = r->src;
    if (!src_has_table(src, "embedding_metadata"))
        return MS_OK;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(src->db,
                                "SELECT model_name, dimension FROM embedding_metadata"
                                " WHERE model_name IS NOT NULL AND dimension BETWEEN 1 AND ?1"
                                " GROUP BY 1, 2 ORDER BY count(*) DESC, 1 LIMIT 1",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return src_fail(src, rc, "reading embedding_metadata", r->err);
    sqlite3_bind_int(st, 1, STORE_DIM_MAX);
    if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        r->model = strdup((const char *)sqlite3_column_text(st, 0));
        r->model_dim = sqlite3_column_int(st, 1);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return src_fail(src, rc, "reading embedding_metadata", r->err);
    if (rc == SQLITE_ROW && !r->model)
        return ms_fail(r->err, MS_NOMEM, "out of memory");
    const char *id;
    int dim;
    store_embedder(r->s, &id, &dim, NULL);
    r->vectors_ok = r->model && (!id || (strcmp(id, r->model) == 0 && dim == r->model_dim));
    return MS_OK;
}

static ms_status one_profile(slm_run *r, const char *profile)
{
    const char *target = r->opts->slm_target ? r->opts->slm_target : profile;
    ms_status code = store_use_profile(r->s, target, r->err);
    if (code)
        return ms_fail(r->err, code, "%s: SuperLocalMemory profile \"%s\": %s", r->src->path,
                       profile, r->err->msg);
    memset(&r->rep, 0, sizeof r->rep);
    for (size_t i = 0; i < r->n_ids; i++)
        free(r->ids[i]);
    r->n_ids = 0;
    code = import_facts(r, profile);
    if (!code)
        code = remove_gone(r);
    if (!code)
        code = import_edges(r, profile);
    if (code)
        return code;
    const char *id;
    int dim;
    store_embedder(r->s, &id, &dim, NULL);
    r->rep.slm_profile = profile;
    r->rep.profile = target;
    r->rep.model = r->model;
    r->rep.model_dim = r->model_dim;
    r->rep.skipped_why = r->model && !r->vectors_ok ? id : NULL;
    r->rep.version = r->src->version;
    r->rep.missing = r->src->missing;
    if (r->opts->slm_report)
        r->opts->slm_report(r->opts->slm_report_ctx, &r->rep);
    return MS_OK;
}

/* SLM's profiles, in name order, into *out (caller frees each and it). */
static ms_status list_profiles(slm_run *r, char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    const char *sql = src_has_col(r->src, "atomic_facts", "profile_id")
                          ? "SELECT DISTINCT profile_id FROM atomic_facts WHERE profile_id IS NOT"
                            " NULL AND profile_id <> '' ORDER BY 1"
                          : "SELECT 'default'";
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(r->src->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return src_fail(r->src, rc, "reading profiles", r->err);
    ms_status code = MS_OK;
    while (!code && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        char **g = realloc(*out, (*n + 1) * sizeof *g);
        if (!g || !(g[*n] = strdup((const char *)sqlite3_column_text(st, 0)))) {
            if (g)
                *out = g;
            code = ms_fail(r->err, MS_NOMEM, "out of memory");
            break;
        }
        *out = g;
        (*n)++;
    }
    if (!code && rc != SQLITE_DONE)
        code = src_fail(r->src, rc, "reading profiles", r->err);
    sqlite3_finalize(st);
    return code;
}

static ms_status import_profiles(slm_run *r)
{
    char **names;
    size_t n;
    ms_status code = list_profiles(r, &names, &n);
    const char *only = r->opts->slm_profile;
    size_t matched = 0;
    for (size_t i = 0; !code && i < n; i++)
        if (!only || strcmp(names[i], only) == 0) {
            matched++;
            code = one_profile(r, names[i]);
        }
    if (!code && only && !matched)
        code = ms_fail(r->err, MS_NOT_FOUND,
                       "%s: no SuperLocalMemory profile \"%s\" (it has %zu: %s%s)", r->src->path,
                       only, n, n ? names[0] : "none", n > 1 ? ", ..." : "");
    if (!code && !only && n > 1 && r->opts->slm_target)
        code = ms_fail(r->err, MS_USAGE,
                       "%s holds %zu SuperLocalMemory profiles: name one with --slm-profile to "
                       "import it into --profile",
                       r->src->path, n);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return code;
}

ms_status import_slm(store *s, const char *path, const import_opts *opts, import_stats *stats,
                     ms_error *err)
{
    slm_src src = {0};
    ms_status code = src_open(&src, path, STORE_BUSY_MS, err);
    slm_run r = {.src = &src, .s = s, .opts = opts, .stats = stats, .err = err};
    char home[STORE_PROFILE_MAX + 1];
    snprintf(home, sizeof home, "%s", store_profile(s));
    if (!code)
        code = sqlite3_exec(src.db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK
                   ? MS_OK
                   : src_fail(&src, sqlite3_errcode(src.db), "starting a read", err);
    if (!code)
        code = choose_model(&r);
    if (!code)
        code = import_profiles(&r);
    for (size_t i = 0; i < r.n_ids; i++)
        free(r.ids[i]);
    free(r.ids);
    free(r.model);
    if (src.db)
        sqlite3_exec(src.db, "ROLLBACK", NULL, NULL, NULL);
    src_close(&src);
    store_use_profile(s, home, NULL);
    return code;
}
