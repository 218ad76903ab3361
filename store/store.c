/* store.c - opening, schema and migrations, transactions, profiles, search. */
#include "store_int.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- schema ------------------------------------------------------------ */

/* Forward migrations: migrations[v] takes a store from user_version v to
 * v + 1. A new store runs them all, so every step is exercised. */
static const char *const migrations[STORE_SCHEMA_VERSION] = {
    /* 0 -> 1: the base schema */
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE memories("
    " rid INTEGER PRIMARY KEY,"
    " profile TEXT NOT NULL,"
    " id TEXT NOT NULL,"
    " content TEXT NOT NULL,"
    " ptag TEXT NOT NULL,"               /* 'p' || hex(profile): the FTS profile filter */
    " context TEXT NOT NULL DEFAULT ''," /* neighbouring turns' text (context.c) */
    " created_at TEXT NOT NULL,"
    " created_ts INTEGER NOT NULL,"
    " event_time TEXT,"
    " event_ts INTEGER,"
    " speaker TEXT, session TEXT, source TEXT,"
    " memory_confidence REAL NOT NULL DEFAULT 0.7"
    "  CHECK (memory_confidence >= 0 AND memory_confidence <= 1),"
    " trust_alpha REAL NOT NULL DEFAULT 1 CHECK (trust_alpha > 0),"
    " trust_beta REAL NOT NULL DEFAULT 1 CHECK (trust_beta > 0),"
    " importance REAL NOT NULL DEFAULT 0.5 CHECK (importance >= 0 AND importance <= 1),"
    " pinned INTEGER NOT NULL DEFAULT 0,"
    " access_count INTEGER NOT NULL DEFAULT 0,"
    " last_accessed TEXT,"
    " UNIQUE (profile, id));"
    "CREATE INDEX memories_by_session ON memories(profile, session, rid)"
    " WHERE session IS NOT NULL;"
    "CREATE INDEX memories_by_time ON memories(profile, created_ts);"
    "CREATE INDEX memories_by_event ON memories(profile, event_ts) WHERE event_ts IS NOT NULL;"
    "CREATE VIRTUAL TABLE memories_fts USING fts5(content, context, ptag, content='memories',"
    " content_rowid='rid', tokenize='porter unicode61 remove_diacritics 2');"
    "INSERT INTO memories_fts(memories_fts, rank) VALUES('rank', 'bm25(1.0, 0.5, 0.0)');"
    "CREATE VIRTUAL TABLE memories_vocab USING fts5vocab(memories_fts, col);"
    "CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN"
    " INSERT INTO memories_fts(rowid, content, context, ptag)"
    "  VALUES (new.rid, new.content, new.context, new.ptag);"
    " END;"
    "CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN"
    " INSERT INTO memories_fts(memories_fts, rowid, content, context, ptag)"
    "  VALUES ('delete', old.rid, old.content, old.context, old.ptag);"
    " END;"
    "CREATE TRIGGER memories_au AFTER UPDATE OF content, context, ptag ON memories BEGIN"
    " INSERT INTO memories_fts(memories_fts, rowid, content, context, ptag)"
    "  VALUES ('delete', old.rid, old.content, old.context, old.ptag);"
    " INSERT INTO memories_fts(rowid, content, context, ptag)"
    "  VALUES (new.rid, new.content, new.context, new.ptag);"
    " END;"
    "CREATE TABLE entities("
    " eid INTEGER PRIMARY KEY,"
    " profile TEXT NOT NULL,"
    " name TEXT NOT NULL,"
    " norm TEXT NOT NULL,"
    " kind INTEGER NOT NULL,"
    " UNIQUE (profile, norm));"
    "CREATE TABLE memory_entities("
    " rid INTEGER NOT NULL REFERENCES memories(rid) ON DELETE CASCADE,"
    " eid INTEGER NOT NULL REFERENCES entities(eid) ON DELETE CASCADE,"
    " given INTEGER NOT NULL DEFAULT 0," /* supplied with the memory, not extracted */
    " PRIMARY KEY (rid, eid)) WITHOUT ROWID;"
    "CREATE INDEX memory_entities_by_eid ON memory_entities(eid, rid);"
    "CREATE TABLE edges("
    " src INTEGER NOT NULL REFERENCES memories(rid) ON DELETE CASCADE,"
    " dst INTEGER NOT NULL REFERENCES memories(rid) ON DELETE CASCADE,"
    " type INTEGER NOT NULL,"
    " weight REAL NOT NULL,"
    " PRIMARY KEY (src, dst, type)) WITHOUT ROWID;"
    "CREATE INDEX edges_by_dst ON edges(dst);"
    "CREATE TABLE vectors("
    " rid INTEGER PRIMARY KEY REFERENCES memories(rid) ON DELETE CASCADE,"
    " vec BLOB NOT NULL);",
    /* 1 -> 2: relevance feedback */
    "CREATE TABLE feedback("
    " fid INTEGER PRIMARY KEY,"
    " profile TEXT NOT NULL,"
    " rid INTEGER NOT NULL REFERENCES memories(rid) ON DELETE CASCADE,"
    " query TEXT NOT NULL,"
    " query_type TEXT,"
    " label INTEGER NOT NULL CHECK (label IN (-1, 1)),"
    " at INTEGER NOT NULL);"
    "CREATE INDEX feedback_by_profile ON feedback(profile, fid);"
    "CREATE INDEX feedback_by_rid ON feedback(rid);",
    /* 2 -> 3: which channels had ranked a judged memory (adaptive learning) */
    "ALTER TABLE feedback ADD COLUMN channels INTEGER NOT NULL DEFAULT 0;",
    /* 3 -> 4: the text index is written by the store's code (fts.c), with
     * larger in-memory batches; the int8 form of each vector beside it
     * (vector.c, filled by code).
     * Parenthesised: clang -Wstring-concatenation. */
    ("DROP TRIGGER IF EXISTS memories_ai; DROP TRIGGER IF EXISTS memories_ad;"
     " DROP TRIGGER IF EXISTS memories_au;"
     "CREATE TABLE IF NOT EXISTS vectors_q8("
     " rid INTEGER PRIMARY KEY REFERENCES memories(rid) ON DELETE CASCADE,"
     " scale REAL NOT NULL, resid REAL NOT NULL, qnorm REAL NOT NULL,"
     " q BLOB NOT NULL);"
     /* FTS5 writes a segment per 32 MB of pending terms, not per 1 MB: an
      * import merges far less (the index answers the same) */
     "INSERT INTO memories_fts(memories_fts, rank) VALUES('hashsize', 33554432);"),
    /* 4 -> 5: vectors may be written sparse (vector.c). Dense blobs stay
     * valid, so nothing is rewritten; the version keeps a memscope that
     * reads only dense blobs away from a store that has sparse ones. */
    "",
    /* 5 -> 6: free metadata (a JSON object) per memory, and supersession:
     * what replaced a memory, since when, and why (imported stores such as
     * SuperLocalMemory's keep it: docs/STORES.md). Columns, added by code
     * (add_v6_columns). */
    "",
    /* 6 -> 7: directed relations between memories (relation.c): src
     * supersedes or contradicts dst, with the reason. The supersession a
     * schema-6 store holds becomes relations where its superseded_by names
     * a memory of the same profile. */
    ("CREATE TABLE IF NOT EXISTS relations("
     " src INTEGER NOT NULL REFERENCES memories(rid) ON DELETE CASCADE,"
     " dst INTEGER NOT NULL REFERENCES memories(rid) ON DELETE CASCADE,"
     " kind INTEGER NOT NULL CHECK (kind IN (1, 2)),"
     " reason TEXT,"
     " PRIMARY KEY (src, dst, kind)) WITHOUT ROWID;"
     "CREATE INDEX IF NOT EXISTS relations_by_dst ON relations(dst, kind);" STORE_REL_SYNC_SQL ";"),
    /* 7 -> 8: the int8 forms are computed from the exact vectors as they
     * are read (vector.c), not kept beside them; vectors may be written in
     * the palette form. (Version 4's vectors_q8 was filled from vectors by
     * code; that fill is gone, since the table goes here.) */
    "DROP TABLE IF EXISTS vectors_q8;",
    /* 8 -> 9: the memories that name a successor (superseded_by), in an
     * index of only those: STORE_REL_SYNC_SQL, run by every import, reads
     * them instead of every memory of the store. */
    "CREATE INDEX IF NOT EXISTS memories_superseded ON memories(profile, superseded_by)"
    " WHERE superseded_by IS NOT NULL;",
    /* 9 -> 10: session and entity edges are worked out from the rows when
     * read (graph.c), not written by each put; a link says whether it is
     * the memory's speaker's, which gives no entity edge. Code
     * (store_graph_upgrade) adds that column unless the table has it (a
     * store whose user_version was set back by hand), marks those links
     * and deletes the kept rows the derivation gives again. */
    "",
    /* 10 -> 11: the memories that might state a fact, listed so that
     * supersession reads those instead of every memory of a profile
     * (supersede.c, *the memories that might state a fact*). Filled when a
     * detection first needs it. */
    "CREATE TABLE IF NOT EXISTS fact_candidates(rid INTEGER PRIMARY KEY);",
};

/* The columns of schema 6, each unless the table has it already (a store
 * whose user_version was set back by hand). */
static ms_status add_v6_columns(store *s, ms_error *err)
{
    static const char *const cols[] = {"metadata", "superseded_by", "superseded_at",
                                       "superseded_reason"};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++) {
        sqlite3_stmt *st;
        int rc = sqlite3_prepare_v2(
            s->db, "SELECT count(*) FROM pragma_table_info('memories') WHERE name=?1", -1, &st,
            NULL);
        if (rc != SQLITE_OK)
            return store_sql_fail(s, rc, "upgrading the schema", err);
        sqlite3_bind_text(st, 1, cols[i], -1, SQLITE_STATIC);
        int has = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
        char sql[96];
        snprintf(sql, sizeof sql, "ALTER TABLE memories ADD COLUMN %s TEXT", cols[i]);
        ms_status code = has ? MS_OK : store_exec(s, sql, err);
        if (code)
            return code;
    }
    return MS_OK;
}

/* Steps of a migration that need code: code_migrations[v] runs after
 * migrations[v], in the same transaction. */
static ms_status (*const code_migrations[STORE_SCHEMA_VERSION])(store *, ms_error *) = {
    [5] = add_v6_columns,
    [9] = store_graph_upgrade,
};

/* The STORE_GET_BATCH parameters ?2..?65 of ST_GET_RIDS and ST_EDGES_OF_RIDS.
 * ST_GET_RIDS reads memories NOT INDEXED: with a list of rids SQLite would
 * otherwise walk the profile's index, every memory of it (rowid lookups
 * are still made). */
#define GET_RIDS_IN                                                                                \
    "?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,"                                 \
    "?19,?20,?21,?22,?23,?24,?25,?26,?27,?28,?29,?30,?31,?32,?33,"                                 \
    "?34,?35,?36,?37,?38,?39,?40,?41,?42,?43,?44,?45,?46,?47,?48,"                                 \
    "?49,?50,?51,?52,?53,?54,?55,?56,?57,?58,?59,?60,?61,?62,?63,"                                 \
    "?64,?65"

static const char *const stmt_sql[ST_COUNT] = {
    [ST_INSERT] = "INSERT INTO memories(profile, id, content, ptag, created_at, created_ts,"
                  " event_time, event_ts, speaker, session, source, memory_confidence,"
                  " trust_alpha, trust_beta, importance, pinned, access_count, last_accessed,"
                  " context, metadata, superseded_by, superseded_at, superseded_reason)"
                  " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,"
                  " coalesce(?19, ''),?20,?21,?22,?23)",
    [ST_UPDATE] = "UPDATE memories SET content=?3, ptag=?4, created_at=?5, created_ts=?6,"
                  " event_time=?7, event_ts=?8, speaker=?9, session=?10, source=?11,"
                  " memory_confidence=?12, trust_alpha=?13, trust_beta=?14, importance=?15,"
                  " pinned=?16, access_count=?17, last_accessed=?18, metadata=?20,"
                  " superseded_by=?21, superseded_at=?22, superseded_reason=?23"
                  " WHERE profile=?1 AND id=?2",
    [ST_FIND_ID] = "SELECT rid FROM memories WHERE profile=?1 AND id=?2",
    [ST_GET_ID] = "SELECT " STORE_MEM_COLS " FROM memories WHERE profile=?1 AND id=?2",
    [ST_GET_RID] = "SELECT " STORE_MEM_COLS " FROM memories WHERE profile=?1 AND rid=?2",
    [ST_GET_RIDS] = "SELECT " STORE_MEM_COLS
                    " FROM memories NOT INDEXED WHERE profile=?1 AND rid IN (" GET_RIDS_IN ")",
    [ST_DELETE] = "DELETE FROM memories WHERE profile=?1 AND id=?2",
    [ST_SESSION_PREV] = "SELECT rid FROM memories WHERE profile=?1 AND session=?2 AND rid<?3"
                        " ORDER BY rid DESC LIMIT 2",
    [ST_ENTITY_FIND] = "SELECT eid FROM entities WHERE profile=?1 AND norm=?2",
    [ST_ENTITY_INSERT] = "INSERT INTO entities(profile, name, norm, kind) VALUES (?1,?2,?3,?4)",
    [ST_LINK_INSERT] = "INSERT INTO memory_entities(rid, eid, given, speaker) VALUES (?1,?2,?3,?4)"
                       " ON CONFLICT(rid, eid) DO UPDATE SET given = max(given, excluded.given),"
                       " speaker = max(speaker, excluded.speaker)",
    [ST_LINK_PREV] = "SELECT rid FROM memory_entities WHERE eid=?1 AND rid<?2"
                     " ORDER BY rid DESC LIMIT ?3",
    [ST_EDGE_UPSERT] = "INSERT INTO edges(src, dst, type, weight) VALUES (?1,?2,?3,?4)"
                       " ON CONFLICT(src, dst, type) DO UPDATE"
                       " SET weight = min(1.0, weight + excluded.weight / 2)",
    /* the events nearest ?6 on each side of it, read from memories_by_event
     * outward and from it alone (a covering index: no row is read), so a
     * put reads a few entries however many events the day holds; the
     * caller skips the memory itself and those of its session
     * (memory.c: temporal_edges) */
    [ST_TIME_AFTER] = "SELECT rid, event_ts FROM memories WHERE profile=?1 AND event_ts"
                      " BETWEEN ?6 AND ?3 ORDER BY event_ts, rid",
    [ST_TIME_BEFORE] = "SELECT rid, event_ts FROM memories WHERE profile=?1 AND event_ts"
                       " >= ?2 AND event_ts < ?6 ORDER BY event_ts DESC, rid",
    [ST_SESSION_OF] = "SELECT session FROM memories WHERE rid=?1",
    /* upserts, not INSERT OR REPLACE: with foreign keys on, a REPLACE needs
     * a statement journal (a copy of each page it touches) */
    [ST_VECTOR_PUT] = "INSERT INTO vectors(rid, vec) VALUES (?1, ?2)"
                      " ON CONFLICT(rid) DO UPDATE SET vec=excluded.vec",
    [ST_ENTITIES_OF] = "SELECT e.eid, e.name, e.norm, e.kind,"
                       " (SELECT count(*) FROM memory_entities x WHERE x.eid=e.eid)"
                       " FROM memory_entities l JOIN entities e ON e.eid=l.eid"
                       " WHERE l.rid=?1 AND l.given>=?2 ORDER BY e.norm",
    [ST_EDGES_OF] = "SELECT src, dst, type, weight FROM edges WHERE src=?1"
                    " UNION ALL SELECT src, dst, type, weight FROM edges WHERE dst=?1"
                    " ORDER BY 3, 4 DESC, 1, 2",
    /* the first column says which end is the rid asked for */
    [ST_EDGES_OF_RIDS] =
        "SELECT 0, src, dst, type, weight FROM edges WHERE src IN (" GET_RIDS_IN ")"
        " UNION ALL SELECT 1, src, dst, type, weight FROM edges WHERE dst IN"
        " (" GET_RIDS_IN ")",
    /* ms_bm25 (bm25.c) is the rank, bm25(1.0, 0.5, 0.0), computed faster */
    [ST_FTS] = "SELECT rowid, -ms_bm25(memories_fts) AS score FROM memories_fts"
               " WHERE memories_fts MATCH ?1 ORDER BY score DESC, rowid LIMIT ?2",
    [ST_TERM_DOCS] = "SELECT doc FROM memories_vocab WHERE term=?1 AND col='content'",
    [ST_CONTEXT_PREV] = "SELECT rid FROM memories WHERE profile=?1 AND session=?2 AND rid<?3"
                        " ORDER BY rid DESC LIMIT 1",
    [ST_CONTEXT_NEXT] = "SELECT rid FROM memories WHERE profile=?1 AND session=?2 AND rid>?3"
                        " ORDER BY rid LIMIT 1",
    [ST_CONTEXT_BODY] = "SELECT content, speaker FROM memories WHERE rid=?1",
    [ST_CONTEXT_SET] = "UPDATE memories SET context=?2 WHERE rid=?1 AND context IS NOT ?2",
    [ST_FTS_ROW] = "SELECT content, context, ptag FROM memories WHERE rid=?1",
    [ST_FTS_ADD] = "INSERT INTO memories_fts(rowid, content, context, ptag) VALUES (?1,?2,?3,?4)",
    [ST_FTS_DEL] = "INSERT INTO memories_fts(memories_fts, rowid, content, context, ptag)"
                   " VALUES ('delete',?1,?2,?3,?4)",
    [ST_VECTOR_GET] = "SELECT vec FROM vectors WHERE rid=?1",
    [ST_OTHER_PROFILES] = "SELECT EXISTS (SELECT 1 FROM memories WHERE profile < ?1)"
                          " OR EXISTS (SELECT 1 FROM memories WHERE profile > ?1)",
    [ST_EDGE_ADD] = "INSERT INTO edges(src, dst, type, weight) VALUES (?1,?2,?3,?4)",
    /* Several rows in one statement, OR FAIL: with the default ABORT a
     * statement of several rows opens a statement journal, whose
     * savepoint makes FTS5 flush its pending terms into a segment. A
     * failure fails the put, and the caller rolls back. */
    [ST_EDGE_ADD2] = "INSERT OR FAIL INTO edges(src, dst, type, weight)"
                     " VALUES (?,?,?,?),(?,?,?,?)",
    [ST_LINK_ADD] = "INSERT INTO memory_entities(rid, eid, given, speaker) VALUES (?1,?2,?3,?4)",
    [ST_LINK_ADD2] = "INSERT OR FAIL INTO memory_entities(rid, eid, given, speaker)"
                     " VALUES (?,?,?,?),(?,?,?,?)",
    [ST_LINK_ADD4] = "INSERT OR FAIL INTO memory_entities(rid, eid, given, speaker)"
                     " VALUES (?,?,?,?),(?,?,?,?),(?,?,?,?),(?,?,?,?)",
    [ST_VECTOR_ADD] = "INSERT INTO vectors(rid, vec) VALUES (?1, ?2)",
    [ST_NEWER] = "SELECT EXISTS (SELECT 1 FROM memories WHERE rid > ?1)",
    [ST_LINKED_EIDS] = "SELECT eid FROM memory_entities WHERE rid=?1",
    [ST_ENTITY_DROP] = "DELETE FROM entities WHERE eid=?1"
                       " AND NOT EXISTS (SELECT 1 FROM memory_entities WHERE eid=?1)",
    [ST_SESSION_NEXT] = "SELECT rid FROM memories WHERE profile=?1 AND session=?2 AND rid>?3"
                        " ORDER BY rid LIMIT 2",
    [ST_GRAPH_MEMORY] = "SELECT profile, session FROM memories WHERE rid=?1",
    [ST_GRAPH_LINKS] = "SELECT eid, speaker FROM memory_entities WHERE rid=?1",
    [ST_GRAPH_LINK_NEXT] = "SELECT rid, speaker FROM memory_entities WHERE eid=?1 AND rid>?2"
                           " ORDER BY rid LIMIT ?3",
    [ST_RID_EXISTS] = "SELECT EXISTS (SELECT 1 FROM memories WHERE rid=?1 AND profile=?2)",
    [ST_FTS_MATCH] = "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?1 AND rowid > ?2",
    [ST_ENTITY_NAMES] = "SELECT e.name FROM memory_entities l JOIN entities e ON e.eid=l.eid"
                        " WHERE l.rid=?1 AND l.given>=?2 ORDER BY e.norm",
    [ST_CAND_LIST] = "INSERT OR IGNORE INTO fact_candidates(rid) VALUES (?1)",
    [ST_CAND_UNLIST] = "DELETE FROM fact_candidates WHERE rid=?1",
    [ST_CAND_MARK] = "INSERT INTO meta(key, value) VALUES ('fact_candidates_through', ?1)"
                     " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    /* min() over an index that leads with profile (memories_by_time) is one
     * seek, however many memories the profiles hold */
    [ST_PROFILE_FIRST] = "SELECT min(profile) FROM memories",
    [ST_PROFILE_AFTER] = "SELECT min(profile) FROM memories WHERE profile > ?1",
    [ST_PROFILE_SIZE] = "SELECT count(*) FROM memories WHERE profile = ?1",
    /* the rids of its oldest and newest memories, a seek at each end of its
     * range of memories_by_time */
    [ST_PROFILE_SPAN] = "SELECT abs((SELECT rid FROM memories WHERE profile = ?1"
                        " ORDER BY created_ts DESC LIMIT 1) - (SELECT rid FROM memories"
                        " WHERE profile = ?1 ORDER BY created_ts LIMIT 1))",
};

/* What the statements that read schema 6's columns say on an older schema
 * read as it is (store_has_v6). */
static const char *const stmt_sql_v5[ST_COUNT] = {
    [ST_GET_ID] = "SELECT " STORE_MEM_COLS_V5 " FROM memories WHERE profile=?1 AND id=?2",
    [ST_GET_RID] = "SELECT " STORE_MEM_COLS_V5 " FROM memories WHERE profile=?1 AND rid=?2",
    [ST_GET_RIDS] = "SELECT " STORE_MEM_COLS_V5
                    " FROM memories NOT INDEXED WHERE profile=?1 AND rid IN (" GET_RIDS_IN ")",
};

/* ---- helpers ----------------------------------------------------------- */

char *store_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

char *store_col_text(sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    return t ? store_strdup((const char *)t) : NULL;
}

/* Does the side file path+suffix (-wal, -journal) hold pages? */
static int side_holds_pages(const char *path, const char *suffix)
{
    char side[PATH_MAX + 12];
    struct stat sb;
    snprintf(side, sizeof side, "%s%s", path, suffix);
    return stat(side, &sb) == 0 && sb.st_size > 0;
}

/* errno of the failed system call behind an I/O error. SQLite's own
 * (sqlite3_system_errno) is read late and often lost; the files keep theirs:
 * the log (WAL) first, where writes go, then the main file. */
static int io_errno(store *s)
{
    int e = sqlite3_system_errno(s->db);
    sqlite3_file *f = NULL;
    if (!e && sqlite3_file_control(s->db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &f) == SQLITE_OK &&
        f && f->pMethods)
        f->pMethods->xFileControl(f, SQLITE_FCNTL_LAST_ERRNO, &e);
    if (!e)
        sqlite3_file_control(s->db, "main", SQLITE_FCNTL_LAST_ERRNO, &e);
    return e;
}

ms_status store_sql_fail(store *s, int rc, const char *doing, ms_error *err)
{
    ms_status code = ms_status_from_sqlite(rc);
    const char *why = s && s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
    const char *path = s ? s->path : "?";
    /* A write past `ulimit -f` or a full disk or quota can come back as an
     * I/O error: name the cause. */
    int sys = s && s->db && code == MS_IO ? io_errno(s) : 0;
    if (sys == EFBIG || sys == ENOSPC || sys == EDQUOT) {
        code = MS_FULL;
        why = strerror(sys);
    }
    if (code == MS_BUSY && s && side_holds_pages(path, "-journal")) /* "a new store", below */
        return ms_fail(err, code,
                       "%s: store %s is locked by another process, which is writing it for the "
                       "first time (a new store's import holds it to its end; waited %d ms)",
                       doing, path, STORE_BUSY_MS);
    if (code == MS_BUSY)
        return ms_fail(err, code, "%s: store %s is locked by another process (waited %d ms)", doing,
                       path, STORE_BUSY_MS);
    if (code == MS_FULL && s && s->writing)
        return ms_fail(err, code, "%s: %s (store %s); nothing was written", doing, why, path);
    if (code == MS_FULL) /* a reader, or an open: SQLite needs room for its -shm and -wal */
        return ms_fail(err, code, "%s: %s (store %s); the store is unchanged", doing, why, path);
    if (code == MS_CORRUPT)
        return ms_fail(err, code, "%s: store %s is corrupt (%s)", doing, path, why);
    if (code == MS_READONLY)
        return ms_fail(err, code, "%s: store %s is not writable (%s)", doing, path, why);
    if (code == MS_NOT_STORE)
        return ms_fail(err, code, "%s: %s is not a memscope store (%s)", doing, path, why);
    return ms_fail(err, code, "%s: %s (store %s)", doing, why, path);
}

ms_status store_exec(store *s, const char *sql, ms_error *err)
{
    char *msg = NULL;
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, &msg);
    ms_status kind = ms_status_from_sqlite(rc);
    if (kind == MS_BUSY || kind == MS_FULL || kind == MS_CORRUPT || kind == MS_READONLY ||
        kind == MS_IO || kind == MS_NOT_STORE) {
        sqlite3_free(msg);
        return store_sql_fail(s, rc, "accessing the store", err);
    }
    if (rc != SQLITE_OK) {
        ms_status code = ms_fail(err, ms_status_from_sqlite(rc), "%s (store %s)",
                                 msg ? msg : sqlite3_errstr(rc), s->path);
        sqlite3_free(msg);
        return code;
    }
    return MS_OK;
}

sqlite3_stmt *store_stmt(store *s, enum stmt_id i, ms_error *err)
{
    if (!s->st[i]) {
        const char *sql = !store_has_v6(s) && stmt_sql_v5[i] ? stmt_sql_v5[i] : stmt_sql[i];
        int rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s->st[i], NULL);
        if (rc != SQLITE_OK) {
            store_sql_fail(s, rc, "preparing a statement", err);
            s->st[i] = NULL;
            return NULL;
        }
    }
    sqlite3_reset(s->st[i]);
    sqlite3_clear_bindings(s->st[i]);
    return s->st[i];
}

/* Run a one-integer query. */
ms_status store_query_int(store *s, const char *sql, int64_t *out, ms_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading the store", err);
    rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "reading the store", err);
    return MS_OK;
}

/* ---- opening ----------------------------------------------------------- */

static const char sqlite_magic[16] = "SQLite format 3";

/* Look at the file's first bytes without SQLite: 1 missing, 2 empty, 0 an
 * SQLite file, -1 something else, -2 unreadable (errno), -3 not a regular
 * file (*mode says what). */
static int probe_file(const char *path, int *exists, mode_t *mode)
{
    /* O_NONBLOCK: opening a FIFO that no process writes must not wait */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *exists = errno != ENOENT;
        return errno == ENOENT ? 1 : -2;
    }
    *exists = 1;
    struct stat sb;
    if (fstat(fd, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        *mode = sb.st_mode;
        close(fd);
        return -3;
    }
    char head[16];
    ssize_t n = read(fd, head, sizeof head);
    int read_errno = errno;
    close(fd);
    if (n < 0) { /* an unreadable file: say why */
        errno = read_errno;
        return -2;
    }
    if (n == 0)
        return 2;
    if (n < (ssize_t)sizeof head || memcmp(head, sqlite_magic, sizeof head) != 0)
        return -1;
    return 0;
}

/* What a file that is not regular is, for a message. */
static const char *file_kind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "a special file";
}

int store_file_is_store(const char *path)
{
    unsigned char head[100];
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat sb;
    if (fd < 0)
        return 0;
    ssize_t n = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) ? read(fd, head, sizeof head) : -1;
    close(fd);
    if (n != (ssize_t)sizeof head || memcmp(head, sqlite_magic, sizeof sqlite_magic) != 0)
        return 0;
    uint32_t app = (uint32_t)head[68] << 24 | (uint32_t)head[69] << 16 | (uint32_t)head[70] << 8 |
                   head[71]; /* big-endian, at offset 68 */
    return app == STORE_APPLICATION_ID;
}

static ms_status create_file(const char *path, ms_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST)
        return ms_fail(err, MS_IO, "cannot create store %s: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
    return MS_OK;
}

static ms_status migrate(store *s, int64_t from, ms_error *err)
{
    ms_status st = store_exec(s, "BEGIN IMMEDIATE", err);
    if (st)
        return st;
    int64_t now = from; /* another connection may have upgraded it since it was opened */
    st = store_query_int(s, "PRAGMA user_version", &now, err);
    if (st) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return st;
    }
    if (now > from)
        from = now;
    for (int64_t v = from; v < STORE_SCHEMA_VERSION; v++) {
        st = store_exec(s, migrations[v], err);
        if (!st && code_migrations[v])
            st = code_migrations[v](s, err);
        if (st)
            break;
    }
    if (!st) {
        char sql[96];
        snprintf(sql, sizeof sql, "PRAGMA application_id=%d; PRAGMA user_version=%d",
                 STORE_APPLICATION_ID, STORE_SCHEMA_VERSION);
        st = store_exec(s, sql, err);
    }
    if (!st)
        st = store_exec(s, "COMMIT", err);
    if (st) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        return st;
    }
    return MS_OK;
}

/* Check what is in the file and bring its schema up to date. */
static ms_status check_schema(store *s, ms_error *err)
{
    int64_t version, app, tables;
    ms_status st = store_query_int(s, "PRAGMA user_version", &version, err);
    if (!st)
        st = store_query_int(s, "PRAGMA application_id", &app, err);
    if (!st)
        st = store_query_int(s, "SELECT count(*) FROM sqlite_master", &tables, err);
    if (st) {
        if (st == MS_NOT_STORE)
            return ms_fail(err, st, "%s is not a memscope store (not a readable SQLite database)",
                           s->path);
        return st;
    }
    if (app != 0 && app != STORE_APPLICATION_ID)
        return ms_fail(err, MS_NOT_STORE,
                       "%s is an SQLite database of another application, "
                       "not a memscope store",
                       s->path);
    if (app == 0 && tables > 0)
        return ms_fail(err, MS_NOT_STORE,
                       "%s is an SQLite database but not a memscope store "
                       "(it has tables of its own)",
                       s->path);
    if (version > STORE_SCHEMA_VERSION)
        return ms_fail(err, MS_SCHEMA_NEWER,
                       "%s has schema version %lld; this memscope knows up to %d: "
                       "upgrade memscope",
                       s->path, (long long)version, STORE_SCHEMA_VERSION);
    if (version == STORE_SCHEMA_VERSION)
        return MS_OK;
    if (version >= STORE_SCHEMA_READS_FROM) {
        s->upgrade_from = version; /* readable as it is: reading never writes */
        return MS_OK;
    }
    if (version == 0 && s->nocreate)
        return ms_fail(err, MS_NOT_FOUND,
                       "%s is an empty SQLite database: no store yet (create one with "
                       "`memscope import` or `memscope demo`)",
                       s->path);
    if (s->denied)
        return ms_fail(err, MS_READONLY, "%s needs %s, but it is not writable (%s)", s->path,
                       version == 0 ? "initialising" : "a schema upgrade", strerror(s->denied));
    if (s->readonly)
        return ms_fail(err, MS_READONLY,
                       version == 0 ? "%s is empty and cannot be initialised read-only"
                                    : "%s needs a schema upgrade, which a read-only open "
                                      "cannot do: run `memscope list --limit 0` on it once",
                       s->path);
    if (version == 0) {
        /* 16 KB pages: a 2 KB vector fills a 4 KB page by itself (cells of
         * 2 KB do not fit twice), seven share a 16 KB one; a store of
         * 100,000 memories is 390 MB instead of 570 MB and imports faster.
         * No write-ahead log until its first write ends (log_on). */
        st = store_exec(s, "PRAGMA page_size=16384", err);
        if (st)
            return st;
        s->unlogged = 1;
    }
    return migrate(s, version, err);
}

/* ---- a new store: its first write without a write-ahead log ------------- *
 *
 * In WAL mode every page a write transaction makes goes into the -wal, and
 * the checkpoint after the commit copies it into the file: a new store's
 * first import writes the store twice. A store this connection has just
 * made holds nothing to protect yet, so its first write transaction runs
 * in SQLite's rollback-journal mode, which journals only the pages the file
 * had before the transaction (the schema's few) and writes the rest once,
 * in place: the commit of a 1M import no longer copies 1.0 GB after it,
 * which took 6 s (docs/PERFORMANCE.md, item 77). All or nothing as before:
 * killed, the journal takes the file back to the empty store at the next
 * open.
 *
 * That transaction holds SQLite's exclusive lock (BEGIN EXCLUSIVE): in
 * rollback-journal mode a reader would otherwise block the writer as soon
 * as it spills pages into the file, and fail the import after the busy
 * timeout. A reader of a store being made waits, then says it is locked.
 * When the transaction ends the store turns to WAL mode for good; a store
 * left in rollback-journal mode (the writer was killed) is turned by the
 * next connection's first write (log_check). */
static void log_on(store *s)
{
    if (!s->unlogged)
        return;
    s->unlogged = 0;
    sqlite3_exec(s->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
}

/* After a transaction: the end of the first write (begun as EXCLUSIVE,
 * unlogged 2) turns the log on; a read before it leaves it off. */
static void log_after(store *s)
{
    if (s->unlogged == 2)
        log_on(s);
}

/* BEGIN a write: IMMEDIATE, or EXCLUSIVE for a new store's first (which
 * then ends with log_after). */
static ms_status begin_write(store *s, ms_error *err)
{
    int rc =
        sqlite3_exec(s->db, s->unlogged ? "BEGIN EXCLUSIVE" : "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "starting a write", err);
    if (s->unlogged)
        s->unlogged = 2;
    return MS_OK;
}

/* A store in rollback-journal mode, about to be written: into WAL mode,
 * when no other connection has it open; once a connection. Never waits: a
 * failed attempt leaves it to the next one. */
static void log_check(store *s)
{
    if (s->log_checked || s->unlogged)
        return;
    s->log_checked = 1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, "PRAGMA journal_mode", -1, &st, NULL) != SQLITE_OK)
        return;
    int wal = sqlite3_step(st) == SQLITE_ROW &&
              sqlite3_stricmp((const char *)sqlite3_column_text(st, 0), "wal") == 0;
    sqlite3_finalize(st);
    if (wal)
        return;
    sqlite3_busy_timeout(s->db, 0);
    sqlite3_exec(s->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
    sqlite3_busy_timeout(s->db, STORE_BUSY_MS);
}

static fts5_api *fts5_api_of(sqlite3 *db);

static ms_status configure(store *s, ms_error *err)
{
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, STORE_BUSY_MS);
    /* statement journals (and sorts) in memory: an import's upserts and
     * REPLACEs otherwise spill their journals to a temporary file, three
     * times the size of the store */
    /* Foreign keys are not enforced: every row that names a memory is
     * written by the store's code with a rid it has just written or read,
     * and store_delete removes a memory's rows itself (the schema's ON
     * DELETE CASCADE says what it removes). Enforcing them costs a parent
     * lookup on every insert into edges, memory_entities and vectors (and
     * the int8 forms schema 6 kept): a tenth of an import's instructions
     * (callgrind). */
    ms_status st = store_exec(s, "PRAGMA foreign_keys=OFF; PRAGMA temp_store=MEMORY", err);
    /* secure_delete=FAST: a deleted memory's text is overwritten in the
     * pages that held it when that costs no extra I/O (docs/SECURITY.md). */
    if (!st && !s->readonly)
        st = store_exec(s, "PRAGMA synchronous=NORMAL; PRAGMA secure_delete=FAST", err);
    /* A reader maps the file (up to SQLite's largest mapping, 2 GB on
     * Debian): the pages a recall reads (its pool's rows, their vectors)
     * come from the page cache without a copy into fresh memory each, which
     * was a fifth of a whole recall process's page faults at 100,000
     * memories. The store is never truncated under it: memscope does not
     * VACUUM, and WAL checkpoints do not shrink it. */
    if (!st && s->readonly)
        st = store_exec(s, "PRAGMA mmap_size=2147418112", err);
    /* the text index's tokenizer, reusing what it cut (tokring.c); when it
       cannot be had, SQLite's own cuts the same tokens */
    fts5_api *api = st ? NULL : fts5_api_of(s->db);
    if (api)
        store_tokring_register(api);
    return st;
}

static ms_status load_embedder(store *s, ms_error *err);
static void seal_write(const char *path);

/* Once per process, before SQLite starts: no global memory statistics
 * (nothing reads them), so an allocation takes no process-wide mutex. */
static void sqlite_setup(void)
{
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/* Can a store that opens read-only but cannot be read the usual way be
 * read as immutable? SQLite reads a WAL store through its -shm index, which
 * it must create when missing: on a read-only mount, or in a directory this
 * process may not write (a 0444 file of another user), it cannot. Immutable
 * (no locks, no index) is right when the directory is not writable, no
 * write-ahead log holds pages the main file lacks, and no rollback journal
 * holds pages the file had before a write that never committed (a new
 * store's maker killed in its first write: "a new store", below). */
static int can_open_immutable(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        slash[slash == dir] = '\0'; /* "/x.db": "/" */
    if (side_holds_pages(path, "-wal") || side_holds_pages(path, "-journal"))
        return 0;
    return access(dir, W_OK) != 0;
}

/* Reopen s->db as "file:PATH?immutable=1", read-only. */
static ms_status open_immutable(store *s, const char *path, ms_error *err)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = strlen(path);
    char *uri = malloc(3 * n + 32);
    if (!uri)
        return ms_fail(err, MS_NOMEM, "out of memory opening %s", path);
    char *w = uri + sprintf(uri, "file:");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)path[i];
        if (isalnum(c) || strchr("/-._~", c)) {
            *w++ = (char)c;
        } else { /* '?', '#', '%' and the rest: percent-encoded */
            *w++ = '%';
            *w++ = hex[c >> 4];
            *w++ = hex[c & 15];
        }
    }
    strcpy(w, "?immutable=1");
    sqlite3_close(s->db);
    s->db = NULL;
    int rc = sqlite3_open_v2(uri, &s->db,
                             SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
    free(uri);
    s->readonly = 1;
    if (!s->denied)
        s->denied = access(path, W_OK) == 0 ? EACCES : errno;
    return rc == SQLITE_OK ? MS_OK : store_sql_fail(s, rc, "opening the store", err);
}

/* Are a -wal and a -shm beside the store at path: a process has it open
 * (or left them)? A reader then opens it read-only and reads through them:
 * it creates and removes no file and never checkpoints into the store. */
static int wal_files_exist(const char *path)
{
    char side[PATH_MAX + 8];
    struct stat sb;
    snprintf(side, sizeof side, "%s-wal", path);
    if (stat(side, &sb) != 0)
        return 0;
    snprintf(side, sizeof side, "%s-shm", path);
    return stat(side, &sb) == 0;
}

/* Open s->db on path with SQLite's flags oflags and check it: query_only
 * for a reader, the OS's refusal of writes noted, the schema read. */
static ms_status open_connection(store *s, const char *path, int oflags, ms_error *err)
{
    int rc = sqlite3_open_v2(path, &s->db, oflags, NULL);
    ms_status st = rc == SQLITE_OK ? MS_OK : store_sql_fail(s, rc, "opening the store", err);
    if (!st && s->readonly)
        st = store_exec(s, "PRAGMA query_only=1", err);
    if (!st && !s->readonly && sqlite3_db_readonly(s->db, "main") == 1) {
        /* SQLite falls back to reading when the OS refuses writes (a 0444
         * file, a read-only mount): reads work, writes say why not. */
        s->readonly = 1;
        s->denied = access(path, W_OK) == 0 ? EACCES : errno;
    }
    if (!st)
        st = configure(s, err);
    return st ? st : check_schema(s, err);
}

ms_status store_open(const char *path, unsigned flags, store **out, ms_error *err)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, sqlite_setup);
    *out = NULL;
    int readonly = (flags & STORE_OPEN_READONLY) != 0;
    int exists = 0;
    mode_t mode = 0;
    int kind = probe_file(path, &exists, &mode);
    if (kind == -2)
        return ms_fail(err, MS_IO, "cannot read store %s: %s", path, strerror(errno));
    if (kind == -1)
        return ms_fail(err, MS_NOT_STORE, "%s is not a memscope store (not an SQLite database)",
                       path);
    if (kind == -3)
        return ms_fail(err, MS_NOT_STORE, "%s is %s, not a memscope store (a store is a file)",
                       path, file_kind(mode));
    /* A reader never creates or initialises a store, not even in an empty
     * file. */
    if (kind == 2 && (flags & STORE_OPEN_NOCREATE))
        return ms_fail(err, MS_NOT_FOUND,
                       "%s is empty: no store yet (create one with `memscope import` or "
                       "`memscope demo`)",
                       path);
    if (!exists && (readonly || (flags & STORE_OPEN_NOCREATE)))
        return ms_fail(err, MS_NOT_FOUND,
                       "no store at %s (create one with `memscope import` "
                       "or `memscope demo`)",
                       path);
    if (!exists && create_file(path, err))
        return err ? err->code : MS_IO;

    store *s = calloc(1, sizeof *s);
    if (!s || !(s->path = store_strdup(path))) {
        free(s);
        return ms_fail(err, MS_NOMEM, "out of memory opening %s", path);
    }
    s->readonly = readonly;
    s->nocreate = (flags & STORE_OPEN_NOCREATE) != 0;
    s->profiles_cached = -1;
    s->cand_through = -1;
    s->fts_pending_max = STORE_FTS_PENDING_MAX;
    store_use_profile(s, STORE_DEFAULT_PROFILE, NULL);
    /* A reader of a store another process has open (its -wal and -shm are
     * there) opens it read-only and uses them. Else read-only is
     * query_only on a read-write connection where the OS allows it: a
     * read-only connection to a WAL store would leave the -wal and -shm it
     * had to create behind, where SQLite removes them at the last close;
     * store_close keeps that close from checkpointing (reader_close). */
    ms_status st = MS_SQL;
    if (readonly && exists && wal_files_exist(path)) {
        st = open_connection(s, path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, err);
        if (st) { /* a log to recover, say: open read-write as below */
            ms_error_clear(err);
            sqlite3_close(s->db);
            s->db = NULL;
        }
    }
    if (st)
        st = open_connection(s, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, err);
    if (st && exists && s->readonly && can_open_immutable(path)) {
        ms_error_clear(err);
        st = open_immutable(s, path, err);
        if (!st)
            st = configure(s, err);
        if (!st)
            st = check_schema(s, err);
    } else if (st == MS_READONLY && exists && side_holds_pages(path, "-journal")) {
        st = ms_fail(err, MS_READONLY,
                     "store %s has a write that never finished (%s-journal): SQLite rolls it "
                     "back before anything is read, which needs write access to the store "
                     "and its folder",
                     path, path);
    }
    if (!st)
        st = load_embedder(s, err);
    if (st) {
        store_close(s);
        if (!exists)
            unlink(path);
        return st;
    }
    *out = s;
    return MS_OK;
}

/* Before the connection of a store that changed nothing closes (a reader,
 * or a command that only read): when the -wal holds another process's
 * frames, SQLite's checkpoint at the last close is turned off, so that
 * reading never writes the store; the -wal and -shm stay for the next
 * writer, whose last close checkpoints them. An empty -wal (no one wrote)
 * is removed at the close as usual. */
static void reader_close(store *s)
{
    char wal[PATH_MAX + 8];
    struct stat sb;
    if (!s->db || (!s->readonly && sqlite3_total_changes(s->db) > 0))
        return;
    snprintf(wal, sizeof wal, "%s-wal", s->path);
    if (stat(wal, &sb) == 0 && sb.st_size > 0)
        sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)NULL);
}

void store_close(store *s)
{
    if (!s)
        return;
    if (s->in_txn)
        store_rollback(s);
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(s->st[i]);
    if (s->fts5_tok) {
        fts5_tokenizer *api = s->fts5_tok_api;
        api->xDelete(s->fts5_tok);
        free(api);
    }
    for (size_t i = 0; i < s->n_pending; i++)
        free(s->pending[i].text);
    free(s->pending);
    store_fts_free(s);
    store_context_forget(s);
    store_facts_clear(s);
    store_wcache_clear(s);
    store_vjob_discard(s);
    store_doclen_free(s);
    log_on(s);
    reader_close(s);
    sqlite3_close(s->db);
    if (s->checked && s->own_commits && !s->readonly)
        seal_write(s->path); /* after the close: its checkpoint writes the file */
    free(s->embedder_id);
    free(s->path);
    free(s);
}

int store_has_v6(const store *s)
{
    return s->upgrade_from == 0 || s->upgrade_from >= 6;
}

int store_has_v7(const store *s)
{
    return s->upgrade_from == 0 || s->upgrade_from >= 7;
}

void store_remove_files(const char *path)
{
    /* -journal: a new store's first write; .seal: its whole-file check (seal_write) */
    static const char *const side[] = {"", "-wal", "-shm", "-journal", ".seal"};
    char name[PATH_MAX + 16];
    for (size_t k = 0; k < sizeof side / sizeof *side; k++)
        if (snprintf(name, sizeof name, "%s%s", path, side[k]) < (int)sizeof name)
            unlink(name);
}

const char *store_path(const store *s)
{
    return s->path;
}

int store_upgrade_pending(const store *s)
{
    return (int)s->upgrade_from;
}

int store_is_readonly(const store *s)
{
    return s->readonly;
}

/* Forget the statements compiled for the schema the store had (some read
 * an older one's columns). */
static void forget_statements(store *s)
{
    for (int i = 0; i < ST_COUNT; i++) {
        sqlite3_finalize(s->st[i]);
        s->st[i] = NULL;
    }
}

ms_status store_require_writable(store *s, const char *what, ms_error *err)
{
    if (s->denied)
        return ms_fail(err, MS_READONLY, "cannot %s: store %s is not writable (%s)", what, s->path,
                       strerror(s->denied));
    if (s->readonly)
        return ms_fail(err, MS_READONLY, "cannot %s: store %s is opened read-only", what, s->path);
    if (s->upgrade_from && !s->in_txn) { /* the first write brings the schema up to date */
        ms_status st = migrate(s, s->upgrade_from, err);
        if (st)
            return st;
        s->upgrade_from = 0;
        forget_statements(s); /* some read the old schema */
    }
    if (!s->in_txn)
        log_check(s);
    return MS_OK;
}

/* ---- profiles ---------------------------------------------------------- */

ms_status store_use_profile(store *s, const char *profile, ms_error *err)
{
    size_t n = profile ? strlen(profile) : 0;
    if (n == 0 || n > STORE_PROFILE_MAX)
        return ms_fail(err, MS_USAGE, "profile name must be 1 to %d bytes", STORE_PROFILE_MAX);
    if (store_utf8_invalid_at(profile, n) >= 0)
        return ms_fail(err, MS_USAGE, "profile name is not valid UTF-8");
    if (strcmp(s->profile, profile) != 0) {
        store_wcache_clear(s); /* entities belong to a profile */
        /* a guessed row's neighbours are found in its own profile */
        ms_status st = store_context_settle(s, err);
        if (st)
            return st;
    }
    memcpy(s->profile, profile, n + 1);
    static const char hex[] = "0123456789abcdef";
    s->ptag[0] = 'p';
    for (size_t i = 0; i < n; i++) {
        s->ptag[1 + 2 * i] = hex[(unsigned char)profile[i] >> 4];
        s->ptag[2 + 2 * i] = hex[(unsigned char)profile[i] & 15];
    }
    s->ptag[1 + 2 * n] = '\0';
    return MS_OK;
}

const char *store_profile(const store *s)
{
    return s->profile;
}

ms_status store_total(store *s, int64_t *n, ms_error *err)
{
    return store_query_int(s, "SELECT count(*) FROM memories", n, err);
}

ms_status store_profile_count(store *s, int64_t *n, ms_error *err)
{
    return store_query_int(s, "SELECT count(DISTINCT profile) FROM memories", n, err);
}

ms_status store_query_yes(store *s, const char *sql, const char *what, int *yes, ms_error *err)
{
    *yes = 0;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, what, err);
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    *yes = rc == SQLITE_ROW && sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? MS_OK : store_sql_fail(s, rc, what, err);
}

ms_status store_profile_has_memories(store *s, int *yes, ms_error *err)
{
    return store_query_yes(s, "SELECT EXISTS (SELECT 1 FROM memories WHERE profile=?1)",
                           "reading profiles", yes, err);
}

/* Does any memory live outside the current profile? Decides whether FTS
 * queries need the profile filter. */
static ms_status other_profiles(store *s, int *yes, ms_error *err)
{
    /* two index seeks: `profile <> ?` would scan every memory */
    sqlite3_stmt *st = store_stmt(s, ST_OTHER_PROFILES, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_text(st, 1, s->profile, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    *yes = rc == SQLITE_ROW && sqlite3_column_int(st, 0);
    sqlite3_reset(st);
    if (rc != SQLITE_ROW)
        return store_sql_fail(s, rc, "reading profiles", err);
    return MS_OK;
}

ms_status store_only_profile(store *s, int *only, ms_error *err)
{
    int others = 1;
    ms_status st = other_profiles(s, &others, err);
    *only = !others;
    return st;
}

/* ---- transactions ------------------------------------------------------ */

/* ---- the seal: a whole-file check remembered ------------------------------ */

/* PATH.seal: the store file as a connection that had checked it (or found
 * it sealed) and wrote it left it when it closed, with its writes
 * checkpointed and no write-ahead log left: device, inode, size, change
 * time and modification time. The modification time is set first to a
 * reading of the nanosecond clock, which a later write by anything else
 * does not reproduce (it sets the clock's coarse tick, also within the
 * same tick as the change time), so a file that matches its seal, with no
 * log holding pages, is the file memscope wrote after a check, and the next
 * write skips PRAGMA quick_check. Only stat and utimensat touch the file:
 * a process that opened and closed it would drop the locks SQLite holds on
 * it (POSIX locks belong to the process). No sum of its own: a torn or
 * stale seal does not match the file. */
typedef struct store_seal {
    char magic[8];
    uint64_t dev, ino, size;
    int64_t ctime_s, ctime_ns, mtime_s, mtime_ns;
} store_seal;

#define STORE_SEAL_MAGIC "MSSTORE1"

/* The seal the file at path would have now; -1 when it cannot be read. */
static int seal_now(const char *path, store_seal *out)
{
    struct stat st;
    memset(out, 0, sizeof *out);
    memcpy(out->magic, STORE_SEAL_MAGIC, 8);
    if (stat(path, &st) || !S_ISREG(st.st_mode))
        return -1;
    out->dev = (uint64_t)st.st_dev;
    out->ino = (uint64_t)st.st_ino;
    out->size = (uint64_t)st.st_size;
    out->ctime_s = (int64_t)st.st_ctim.tv_sec;
    out->ctime_ns = (int64_t)st.st_ctim.tv_nsec;
    out->mtime_s = (int64_t)st.st_mtim.tv_sec;
    out->mtime_ns = (int64_t)st.st_mtim.tv_nsec;
    return 0;
}

/* No write-ahead log holds pages the main file lacks. */
static int log_empty(const char *path)
{
    char wal[PATH_MAX + 8];
    struct stat st;
    snprintf(wal, sizeof wal, "%s-wal", path);
    return stat(wal, &st) ? errno == ENOENT : st.st_size == 0;
}

/* Does PATH.seal describe the store file as it is? */
static int seal_holds(const char *path)
{
    char name[PATH_MAX + 8];
    store_seal want, got;
    snprintf(name, sizeof name, "%s.seal", path);
    if (!log_empty(path) || seal_now(path, &want))
        return 0;
    int fd = open(name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int same = pread(fd, &got, sizeof got, 0) == (ssize_t)sizeof got &&
               memcmp(&want, &got, sizeof got) == 0;
    close(fd);
    return same;
}

/* Seal the store file at path (closed, its log checkpointed): into
 * PATH.seal.PID.tmp, renamed over PATH.seal. Nothing when it cannot be. */
static void seal_write(const char *path)
{
    char name[PATH_MAX + 8], tmp[PATH_MAX + 40];
    struct timespec t[2] = {{.tv_nsec = UTIME_OMIT}, {0}};
    store_seal seal;
    snprintf(name, sizeof name, "%s.seal", path);
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", name, (long)getpid());
    if (!log_empty(path) || clock_gettime(CLOCK_REALTIME, &t[1]) ||
        utimensat(AT_FDCWD, path, t, 0) || seal_now(path, &seal)) {
        unlink(name); /* the file changes without a seal that matches */
        return;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    int ok = write(fd, &seal, sizeof seal) == (ssize_t)sizeof seal;
    close(fd);
    if (!ok || rename(tmp, name))
        unlink(tmp);
}

int store_full_checks(const store *s)
{
    return s->full_checks;
}

/* Before a connection's first write: is the file sound? SQLite notices a
 * damaged page only when it reads it, so a write into a corrupt store could
 * succeed and change a file whose other pages are junk. PRAGMA quick_check
 * reads every page (about 4 s for the 1.2 GB store of a million memories,
 * milliseconds for usual ones), so it runs only when the file is not as a
 * checked writer left it (its seal, above). Called holding the write lock. */
static ms_status check_pages(store *s, ms_error *err)
{
    if (seal_holds(s->path))
        return MS_OK;
    s->full_checks++;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA quick_check(1)", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "checking the store", err);
    rc = sqlite3_step(st);
    const char *res = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    ms_status code = MS_OK;
    if (rc != SQLITE_ROW)
        code = store_sql_fail(s, rc, "checking the store", err);
    else if (!res || strcmp(res, "ok") != 0) {
        const char *nl = res ? strrchr(res, '\n') : NULL; /* after "*** in database main ***" */
        code = ms_fail(err, MS_CORRUPT,
                       "store %s is corrupt (%.200s); nothing was written: "
                       "`memscope export` saves what is still readable",
                       s->path,
                       nl    ? nl + 1
                       : res ? res
                             : "?");
    }
    sqlite3_finalize(st);
    return code;
}

/* Past this much page cache at the end of a write (bytes), the memory is
 * handed back to the system: an import's, not a single add's. */
#define WRITE_CACHE_GIVE_BACK (16 << 20)

/* A larger page cache while writing: an import touches every index, and
 * with SQLite's default 2 MB the pages it dirties spill into the WAL
 * mid-transaction and are read back. Reset (which frees it) after. The
 * allocator keeps what is freed for the process's next allocations; after
 * a large write (up to the 64 MB cache and FTS5's 32 MB of pending terms)
 * a long-lived process (the browser, a program using the library) would
 * hold it for good, so it is handed back (malloc_trim: the free pages of
 * the heap, not only its top). */
static void write_cache(store *s, int on)
{
    int cur = 0, hi = 0;
    if (!on)
        sqlite3_db_status(s->db, SQLITE_DBSTATUS_CACHE_USED, &cur, &hi, 0);
    sqlite3_exec(s->db, on ? "PRAGMA cache_size=-65536" : "PRAGMA cache_size=-2000", NULL, NULL,
                 NULL);
    s->writing = on;
#ifdef __GLIBC__
    if (cur > WRITE_CACHE_GIVE_BACK)
        malloc_trim(0);
#endif
}

ms_status store_begin(store *s, ms_error *err)
{
    ms_status st = store_require_writable(s, "write", err);
    if (st)
        return st;
    if (s->in_txn)
        return ms_fail(err, MS_USAGE, "a transaction is already open on %s", s->path);
    st = begin_write(s, err);
    if (st)
        return st;
    write_cache(s, 1);
    if (!s->checked && (st = check_pages(s, err))) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        write_cache(s, 0);
        return st;
    }
    s->checked = 1;
    s->in_txn = 1;
    s->changes0 = sqlite3_total_changes64(s->db);
    s->appended = 0;
    s->sup_marked = 0;
    s->cand_through = -1;
    return MS_OK;
}

/* An older schema read as it is: has another connection upgraded the file
 * since (its first write)? Then read it as what it is now (the edges it
 * derives, its columns), from this read on. */
static ms_status notice_upgrade(store *s, ms_error *err)
{
    int64_t version = 0;
    ms_status st = store_query_int(s, "PRAGMA user_version", &version, err);
    if (!st && version == STORE_SCHEMA_VERSION) {
        s->upgrade_from = 0;
        forget_statements(s);
    }
    if (st) {
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
        s->in_txn = 0;
    }
    return st;
}

ms_status store_read_begin(store *s, ms_error *err)
{
    if (s->in_txn)
        return ms_fail(err, MS_USAGE, "a transaction is already open on %s", s->path);
    int rc = sqlite3_exec(s->db, "BEGIN DEFERRED", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "starting a read", err);
    s->in_txn = 1;
    s->changes0 = sqlite3_total_changes64(s->db);
    s->appended = 0;
    s->sup_marked = 0;
    s->cand_through = -1;
    return s->upgrade_from ? notice_upgrade(s, err) : MS_OK;
}

ms_status store_solo_begin(store *s, int *solo, ms_error *err)
{
    *solo = 0;
    if (s->in_txn || s->readonly || s->denied) /* the write itself says why not */
        return MS_OK;
    ms_status st = store_require_writable(s, "write", err); /* upgrades an older schema */
    if (st)
        return st;
    st = begin_write(s, err);
    if (st)
        return st;
    s->in_txn = 1;
    s->changes0 = sqlite3_total_changes64(s->db);
    s->appended = 0;
    s->sup_marked = 0;
    s->cand_through = -1;
    *solo = 1;
    return MS_OK;
}

ms_status store_solo_end(store *s, int solo, ms_status st, ms_error *err)
{
    if (!solo)
        return st;
    if (st) {
        store_rollback(s);
        return st;
    }
    return store_end(s, err);
}

/* A transaction that changed rows moves the generation with them, and
 * gives the store its id if it has none. One that did more than append
 * (only_appended 0) records its generation as the last rewrite; one that
 * only appended records the generation before it when none is recorded
 * yet (a rewrite by an older memscope is at most that). */
static ms_status bump_generation(store *s, int only_appended, ms_error *err)
{
    if (sqlite3_total_changes64(s->db) == s->changes0)
        return MS_OK;
    ms_status st =
        store_exec(s,
                   "INSERT INTO meta(key, value) VALUES ('store_uid', lower(hex(randomblob(16))))"
                   " ON CONFLICT(key) DO NOTHING;"
                   "INSERT INTO meta(key, value) VALUES ('rewritten',"
                   " coalesce((SELECT value FROM meta WHERE key='generation'), '0'))"
                   " ON CONFLICT(key) DO NOTHING;"
                   "INSERT INTO meta(key, value) VALUES ('generation', '1') ON CONFLICT(key)"
                   " DO UPDATE SET value = CAST(value AS INTEGER) + 1",
                   err);
    if (!st && !only_appended)
        st = store_exec(s,
                        "UPDATE meta SET value=(SELECT value FROM meta WHERE key='generation')"
                        " WHERE key='rewritten'",
                        err);
    if (!st && s->sup_marked)
        st = store_exec(s,
                        "INSERT INTO meta(key, value) VALUES ('superseded_marked',"
                        " (SELECT value FROM meta WHERE key='generation'))"
                        " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                        err);
    return st;
}

/* For tests only (tests/faults.t kills an import there): with
 * MEMSCOPE_TEST_HOLD_COMMIT set to a path, a write transaction that changed
 * rows, everything written but its COMMIT, writes the number of rows it
 * changed into that file and waits until the process is killed. Unset (the
 * default), nothing happens. */
static void hold_commit(store *s)
{
    const char *path = getenv("MEMSCOPE_TEST_HOLD_COMMIT");
    int64_t changed = sqlite3_total_changes64(s->db) - s->changes0;
    if (!path || !path[0] || !s->writing || changed == 0)
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0) {
        dprintf(fd, "%lld\n", (long long)changed);
        close(fd);
    }
    for (;;)
        pause();
}

ms_status store_end(store *s, ms_error *err)
{
    if (!s->in_txn)
        return MS_OK;
    /* before the flushes: they write what the puts left pending */
    s->hint = NULL;                              /* a hint outlives no transaction */
    ms_status st = store_context_settle(s, err); /* a guess no put confirmed */
    int only_appended = sqlite3_total_changes64(s->db) - s->changes0 == s->appended;
    if (!st && !s->readonly)
        st = store_flush_vectors(s, err);
    if (!st)
        st = store_fts_flush(s, err);
    if (!st)
        st = store_fts_long_end(s, err);
    if (!st && !s->readonly)
        st = bump_generation(s, only_appended, err);
    if (st) {
        store_rollback(s);
        return st;
    }
    store_wcache_clear(s);
    store_facts_clear(s);
    hold_commit(s);
    int rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        st = store_sql_fail(s, rc, "committing", err);
        store_rollback(s);
        return st;
    }
    s->in_txn = 0;
    if (s->writing) {
        write_cache(s, 0);
        s->own_commits++;
    }
    log_after(s);
    return MS_OK;
}

void store_rollback(store *s)
{
    if (!s->in_txn)
        return;
    for (size_t i = 0; i < s->n_pending; i++)
        free(s->pending[i].text);
    s->n_pending = 0;
    store_vjob_discard(s);
    store_fts_discard(s);
    store_context_forget(s);
    s->fts_long = 0; /* the setting rolls back with the rest */
    store_facts_clear(s);
    s->fts_gen++; /* the index is as it was before: row lengths may differ */
    store_wcache_clear(s);
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    s->in_txn = 0;
    if (s->writing)
        write_cache(s, 0);
    log_after(s);
    free(s->embedder_id);
    s->embedder_id = NULL;
    load_embedder(s, NULL);
}

int64_t store_data_version(store *s)
{
    int64_t v = 0;
    store_query_int(s, "PRAGMA data_version", &v, NULL);
    return v + s->own_commits; /* the pragma does not move for our own commits */
}

int store_cache_key(store *s, store_key *out)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                "SELECT (SELECT value FROM meta WHERE key='store_uid'),"
                                " (SELECT CAST(value AS INTEGER) FROM meta WHERE key='generation'),"
                                " (SELECT CAST(value AS INTEGER) FROM meta WHERE key='rewritten'),"
                                " (SELECT CAST(value AS INTEGER) FROM meta"
                                " WHERE key='superseded_marked')",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return -1;
    int ok = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_TEXT &&
             sqlite3_column_bytes(st, 0) == 32;
    if (ok) {
        memcpy(out->uid, sqlite3_column_text(st, 0), 32);
        out->generation = sqlite3_column_int64(st, 1);
        out->rewritten =
            sqlite3_column_type(st, 2) == SQLITE_NULL ? INT64_MAX : sqlite3_column_int64(st, 2);
        out->schema = s->upgrade_from ? s->upgrade_from : STORE_SCHEMA_VERSION;
        out->superseded_marked = sqlite3_column_int64(st, 3); /* 0 when never */
    }
    sqlite3_finalize(st);
    return ok ? 0 : -1;
}

/* ---- embedder metadata ------------------------------------------------- */

static ms_status load_embedder(store *s, ms_error *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                "SELECT (SELECT value FROM meta WHERE key='embedder_id'),"
                                " (SELECT value FROM meta WHERE key='embedder_dim')",
                                -1, &st, NULL);
    if (rc != SQLITE_OK)
        return store_sql_fail(s, rc, "reading the embedder", err);
    free(s->embedder_id);
    s->embedder_id = NULL;
    s->embedder_dim = 0;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        s->embedder_id = store_col_text(st, 0);
        s->embedder_dim = sqlite3_column_int(st, 1);
    }
    sqlite3_finalize(st);
    return MS_OK;
}

ms_status store_embedder(store *s, const char **id, int *dim, ms_error *err)
{
    (void)err;
    *id = s->embedder_id;
    *dim = s->embedder_dim;
    return MS_OK;
}

static ms_status set_embedder(store *s, const char *id, int dim, ms_error *err)
{
    if (!id || !*id || dim <= 0 || dim > STORE_DIM_MAX)
        return ms_fail(err, MS_USAGE, "embedder needs an id and a dimension of 1 to %d",
                       STORE_DIM_MAX);
    if (s->embedder_id && strcmp(s->embedder_id, id) == 0 && s->embedder_dim == dim)
        return MS_OK;
    ms_status need = store_require_writable(s, "record the embedder", err);
    if (need)
        return need;
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(s->db,
                                "INSERT OR REPLACE INTO meta(key, value) VALUES"
                                " ('embedder_id', ?1), ('embedder_dim', ?2)",
                                -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 2, dim);
        rc = sqlite3_step(st);
        sqlite3_finalize(st);
    }
    if (rc != SQLITE_DONE && rc != SQLITE_OK)
        return store_sql_fail(s, rc, "recording the embedder", err);
    ms_status code = store_exec(s, "DELETE FROM vectors", err);
    if (code)
        return code;
    free(s->embedder_id);
    s->embedder_id = store_strdup(id);
    s->embedder_dim = dim;
    return s->embedder_id ? MS_OK : ms_fail(err, MS_NOMEM, "out of memory");
}

ms_status store_set_embedder(store *s, const char *id, int dim, ms_error *err)
{
    int solo;
    ms_status st = store_solo_begin(s, &solo, err);
    if (!st)
        st = set_embedder(s, id, dim, err);
    return store_solo_end(s, solo, st, err);
}

/* ---- tokenizer and full-text search ------------------------------------ */

static fts5_api *fts5_api_of(sqlite3 *db)
{
    fts5_api *api = NULL;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, NULL) != SQLITE_OK)
        return NULL;
    sqlite3_bind_pointer(st, 1, (void *)&api, "fts5_api_ptr", NULL);
    sqlite3_step(st);
    sqlite3_finalize(st);
    return api;
}

static ms_status open_tokenizer(store *s, ms_error *err)
{
    if (s->fts5_tok)
        return MS_OK;
    fts5_api *api = fts5_api_of(s->db);
    fts5_tokenizer *tk = calloc(1, sizeof *tk);
    void *user = NULL;
    if (!api || !tk || api->xFindTokenizer(api, "porter", &user, tk) != SQLITE_OK) {
        free(tk);
        return ms_fail(err, MS_SQL, "this SQLite has no FTS5 porter tokenizer");
    }
    const char *args[] = {"unicode61", "remove_diacritics", "2"};
    Fts5Tokenizer *t = NULL;
    if (tk->xCreate(user, args, 3, &t) != SQLITE_OK) {
        free(tk);
        return ms_fail(err, MS_SQL, "cannot create the FTS5 tokenizer");
    }
    s->fts5_tok = t;
    s->fts5_tok_api = tk;
    return MS_OK;
}

struct tok_ctx {
    store_token_fn fn;
    void *ctx;
};

static int tok_cb(void *p, int flags, const char *tok, int len, int start, int end)
{
    struct tok_ctx *c = p;
    (void)flags;
    return c->fn(c->ctx, tok, len, start, end) ? SQLITE_DONE : SQLITE_OK;
}

static ms_status tokenize(store *s, int flags, const char *text, int len, store_token_fn fn,
                          void *ctx, ms_error *err)
{
    ms_status st = open_tokenizer(s, err);
    if (st)
        return st;
    struct tok_ctx c = {fn, ctx};
    fts5_tokenizer *api = s->fts5_tok_api;
    int rc = api->xTokenize(s->fts5_tok, &c, flags, text, len, tok_cb);
    if (rc != SQLITE_OK && rc != SQLITE_DONE)
        return ms_fail(err, MS_SQL, "tokenizing text failed (%s)", sqlite3_errstr(rc));
    return MS_OK;
}

ms_status store_tokenize(store *s, const char *text, int len, store_token_fn fn, void *ctx,
                         ms_error *err)
{
    return tokenize(s, FTS5_TOKENIZE_QUERY, text, len, fn, ctx, err);
}

/* As a document: unicode61 and porter cut it as a query, and tokring.c
 * uses the tokens of the texts before it again. */
ms_status store_tokenize_stored(store *s, const char *text, int len, store_token_fn fn, void *ctx,
                                ms_error *err)
{
    return tokenize(s, FTS5_TOKENIZE_DOCUMENT, text, len, fn, ctx, err);
}

ms_status store_term_docs(store *s, const char *term, int64_t *docs, ms_error *err)
{
    ms_status code = s->fts_n ? store_fts_flush(s, err) : MS_OK;
    if (code)
        return code;
    sqlite3_stmt *st = store_stmt(s, ST_TERM_DOCS, err);
    if (!st)
        return err ? err->code : MS_SQL;
    sqlite3_bind_text(st, 1, term, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    *docs = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    code = rc == SQLITE_ROW || rc == SQLITE_DONE
               ? MS_OK
               : store_sql_fail(s, rc, "reading term counts", err);
    /* A statement left on its row keeps the read transaction open after
     * store_end: the next recall would see the store as it was. */
    sqlite3_reset(st);
    return code;
}

ms_status store_fts(store *s, const char *match, int limit, store_hit_fn fn, void *ctx,
                    ms_error *err)
{
    int others = 0;
    ms_status code = s->fts_n ? store_fts_flush(s, err) : MS_OK;
    if (!code)
        code = other_profiles(s, &others, err);
    if (code)
        return code;
    size_t n = strlen(match) + strlen(s->ptag) + 64;
    char *expr = malloc(n);
    if (!expr)
        return ms_fail(err, MS_NOMEM, "out of memory");
    if (others)
        snprintf(expr, n, "{content context} : ( %s ) AND ptag : \"%s\"", match, s->ptag);
    else
        snprintf(expr, n, "{content context} : ( %s )", match);
    fts5_api *api = s->bm25_ready ? NULL : fts5_api_of(s->db);
    if (api && store_bm25_register(s, api) == SQLITE_OK)
        s->bm25_ready = 1;
    store_doclen_refresh(s);
    sqlite3_stmt *st = store_stmt(s, ST_FTS, err);
    if (!st) {
        free(expr);
        return err ? err->code : MS_SQL;
    }
    sqlite3_bind_text(st, 1, expr, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, limit);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (fn(ctx, sqlite3_column_int64(st, 0), sqlite3_column_double(st, 1)))
            break;
    sqlite3_reset(st);
    free(expr);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_sql_fail(s, rc, "searching text", err);
    return MS_OK;
}
