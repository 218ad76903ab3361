/* store-test.c - the store: schema and migrations, refusals that leave files
 * untouched, CRUD, duplicate policy, validation, profiles, FTS, read-only
 * opening, entity and edge creation, delete cascades, time and UTF-8 checks.
 *
 * Links only store/ and engine/ objects; every file it makes lives in one
 * temporary directory that it removes at the end. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store/store.h"
#include "store/store_int.h"
#include "tests/tap.h"

static char tmpdir[] = "/tmp/memscope-store-test-XXXXXX";
#include "tests/testdir.h"

static int file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* Run SQL on a file with SQLite directly (not through the store). */
static int raw_exec(const char *path, const char *sql)
{
    sqlite3 *db;
    int rc = sqlite3_open(path, &db);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_close(db);
    return rc;
}

/* One integer from SQL run on a file directly; -999 on error. */
static long long raw_int(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    long long v = -999;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW)
            v = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return v;
}

static char *raw_text(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    char *v = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
            v = strdup((const char *)sqlite3_column_text(st, 0));
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return v;
}

static store *open_new(const char *name)
{
    store *s = NULL;
    ms_error err;
    ms_error_clear(&err);
    unlink(tpath(name));
    if (store_open(tpath(name), 0, &s, &err))
        diag("store_open %s: %s", name, err.msg);
    return s;
}

/* Put one memory (content, id, speaker, session) in its own transaction. */
static int64_t put_simple(store *s, const char *id, const char *content, const char *speaker,
                          const char *session)
{
    store_memory m;
    store_memory_init(&m);
    m.id = id ? strdup(id) : NULL;
    m.content = strdup(content);
    m.speaker = speaker ? strdup(speaker) : NULL;
    m.session = session ? strdup(session) : NULL;
    m.created_at = strdup("2023-05-08T13:56:00Z");
    ms_error err;
    ms_error_clear(&err);
    ms_status st = store_begin(s, &err);
    if (!st)
        st = store_put(s, &m, STORE_DUP_ERROR, NULL, &err);
    if (!st)
        st = store_end(s, &err);
    else
        store_rollback(s);
    if (st)
        diag("put %s: %s", id ? id : "(new)", err.msg);
    int64_t rid = st ? 0 : m.rid;
    store_memory_clear(&m);
    return rid;
}

/* ---- schema ------------------------------------------------------------ */

static void test_new_store(void)
{
    store *s = open_new("new.db");
    ok(s != NULL, "a new store opens");
    store_close(s);
    ok(!file_exists(tpath("new.db-wal")) && !file_exists(tpath("new.db-shm")),
       "closing the store leaves no -wal or -shm file");
    struct stat sb;
    memset(&sb, 0, sizeof sb);
    int have = stat(tpath("new.db"), &sb) == 0;
    ok(have && (sb.st_mode & 0777) == 0600, "a new store file is mode 0600 (got %o)",
       (unsigned)(sb.st_mode & 0777));
    is_int(raw_int(tpath("new.db"), "PRAGMA user_version"), STORE_SCHEMA_VERSION,
           "user_version is STORE_SCHEMA_VERSION");
    is_int(raw_int(tpath("new.db"), "PRAGMA application_id"), STORE_APPLICATION_ID,
           "application_id is memscope's");
    char *mode = raw_text(tpath("new.db"), "PRAGMA journal_mode");
    is_str(mode, "wal", "journal_mode is wal");
    free(mode);
    is_int(raw_int(tpath("new.db"),
                   "SELECT count(*) FROM sqlite_master WHERE name IN ('memories', 'memories_fts',"
                   " 'entities', 'memory_entities', 'edges', 'vectors', 'feedback', 'meta')"),
           8, "every table exists");

    /* Reopening an up-to-date store changes nothing. */
    size_t n1, n2;
    char *before = slurp(tpath("new.db"), &n1);
    store_open(tpath("new.db"), 0, &s, NULL);
    ok(s != NULL, "an existing store reopens");
    store_close(s);
    char *after = slurp(tpath("new.db"), &n2);
    ok(before && after && n1 == n2 && memcmp(before, after, n1) == 0,
       "opening and closing a store does not change its bytes");
    free(before);
    free(after);

    ms_error err;
    ms_error_clear(&err);
    ok(store_open(tpath("missing.db"), STORE_OPEN_NOCREATE, &s, &err) == MS_NOT_FOUND && s == NULL,
       "NOCREATE refuses a missing file with MS_NOT_FOUND");
    ok(!file_exists(tpath("missing.db")), "and creates nothing");
    ok(store_open(tpath("missing.db"), STORE_OPEN_READONLY, &s, &err) == MS_NOT_FOUND,
       "READONLY refuses a missing file");
    ok(!file_exists(tpath("missing.db")), "and creates nothing");
}

/* A new store's first write runs without a write-ahead log (store.c, "a
 * new store"), holding the exclusive lock; it ends in WAL mode. */
static void test_new_store_unlogged(void)
{
    store *s = open_new("unlogged.db");
    ms_error err;
    ms_error_clear(&err);
    ok(store_begin(s, &err) == MS_OK, "a new store's first write begins");
    store_memory m;
    store_memory_init(&m);
    m.content = strdup("The first memory of a new store");
    m.created_at = strdup("2023-05-08T13:56:00Z");
    ok(store_put(s, &m, STORE_DUP_ERROR, NULL, &err) == MS_OK, "and puts a memory");
    store_memory_clear(&m);
    ok(file_exists(tpath("unlogged.db-journal")) && !file_exists(tpath("unlogged.db-wal")),
       "in the first write, a rollback journal and no -wal");
    sqlite3 *db = NULL;
    sqlite3_open(tpath("unlogged.db"), &db);
    sqlite3_busy_timeout(db, 0);
    int rc = sqlite3_exec(db, "SELECT count(*) FROM memories", NULL, NULL, NULL);
    ok(rc == SQLITE_BUSY, "another connection cannot read it meanwhile (rc %d)", rc);
    sqlite3_close(db);
    ok(store_end(s, &err) == MS_OK, "the first write commits");
    char *mode = raw_text(tpath("unlogged.db"), "PRAGMA journal_mode");
    is_str(mode, "wal", "after it, the store is in WAL mode");
    free(mode);
    ok(!file_exists(tpath("unlogged.db-journal")), "and the journal is gone");
    is_int(put_simple(s, "second", "A second memory, written through the log", NULL, NULL) > 0, 1,
           "a second write goes through the log");
    store_close(s);
    is_int(raw_int(tpath("unlogged.db"), "SELECT count(*) FROM memories"), 2,
           "both memories are in the store");

    /* A store left in rollback-journal mode (its maker was killed): reading
     * leaves it so, the first write turns it. */
    s = open_new("left.db");
    store_close(s);
    ok(raw_exec(tpath("left.db"), "PRAGMA journal_mode=DELETE") == SQLITE_OK,
       "a store set back to rollback-journal mode");
    ok(store_open(tpath("left.db"), 0, &s, &err) == MS_OK, "opens");
    int64_t n = -1;
    store_query_int(s, "SELECT count(*) FROM memories", &n, NULL);
    is_int(n, 0, "and reads");
    mode = raw_text(tpath("left.db"), "PRAGMA journal_mode");
    is_str(mode, "delete", "reading leaves its mode as it is");
    free(mode);
    ok(put_simple(s, "one", "A memory that turns the log on", NULL, NULL) > 0, "a write");
    mode = raw_text(tpath("left.db"), "PRAGMA journal_mode");
    is_str(mode, "wal", "turns it to WAL mode");
    free(mode);
    store_close(s);
}

static void test_migration(void)
{
    store *s = open_new("v1.db");
    store_close(s);
    /* Make it a v1 store: the base schema without feedback. */
    is_int(raw_exec(tpath("v1.db"), "DROP TABLE feedback; PRAGMA user_version=1"), SQLITE_OK,
           "built a v1 store by hand");
    is_int(raw_int(tpath("v1.db"), "PRAGMA user_version"), 1, "its user_version is 1");
    ms_error err;
    ms_error_clear(&err);
    ms_status st = store_open(tpath("v1.db"), 0, &s, &err);
    ok(st == MS_OK, "store_open migrates a v1 store (%s)", err.msg);
    int64_t rid = s ? put_simple(s, "x", "after migration", NULL, NULL) : 0;
    if (s) {
        ok(store_add_feedback(s, rid, "query", NULL, 1, 0, &err) == MS_OK,
           "feedback can be recorded after migration");
        store_feedback *fb = NULL;
        size_t nfb = 0;
        ok(store_feedback_all(s, &fb, &nfb, &err) == MS_OK && nfb == 1 && fb[0].rid == rid,
           "and read back");
        store_feedback_free(fb, nfb);
    }
    store_close(s);
    is_int(raw_int(tpath("v1.db"), "PRAGMA user_version"), STORE_SCHEMA_VERSION,
           "user_version is now the current schema");
    is_int(raw_int(tpath("v1.db"), "SELECT count(*) FROM pragma_table_info('feedback')"
                                   " WHERE name='channels'"),
           1, "migration 2 -> 3 added feedback.channels");
    is_int(raw_int(tpath("v1.db"), "SELECT count(*) FROM sqlite_master WHERE name='feedback'"), 1,
           "the feedback table exists");

    /* Read-only cannot migrate, and leaves the file alone. */
    s = open_new("v1ro.db");
    store_close(s);
    raw_exec(tpath("v1ro.db"), "DROP TABLE feedback; PRAGMA user_version=1");
    size_t n1, n2;
    char *before = slurp(tpath("v1ro.db"), &n1);
    ok(store_open(tpath("v1ro.db"), STORE_OPEN_READONLY, &s, &err) == MS_READONLY && !s,
       "a read-only open of an old store is refused with MS_READONLY");
    char *after = slurp(tpath("v1ro.db"), &n2);
    ok(before && after && n1 == n2 && memcmp(before, after, n1) == 0, "and the file is unchanged");
    free(before);
    free(after);

    /* A schema-4 store (dense vectors only) is read as it is read-only, and
     * upgraded by the first writable open. */
    s = open_new("v4.db");
    put_simple(s, "old", "a memory from schema 4", NULL, NULL);
    store_close(s);
    raw_exec(tpath("v4.db"), "PRAGMA user_version=4");
    before = slurp(tpath("v4.db"), &n1);
    ms_error_clear(&err);
    st = store_open(tpath("v4.db"), STORE_OPEN_READONLY, &s, &err);
    ok(st == MS_OK && s, "a read-only open reads a schema-4 store without upgrading (%s)", err.msg);
    store_memory m;
    store_memory_init(&m);
    ok(s && store_use_profile(s, STORE_DEFAULT_PROFILE, &err) == MS_OK &&
           store_get(s, "old", 0, &m, &err) == MS_OK && m.content &&
           strcmp(m.content, "a memory from schema 4") == 0,
       "and finds its memory");
    store_memory_clear(&m);
    store_close(s);
    after = slurp(tpath("v4.db"), &n2);
    ok(before && after && n1 == n2 && memcmp(before, after, n1) == 0, "the file is unchanged");
    free(before);
    free(after);
    ok(store_open(tpath("v4.db"), 0, &s, &err) == MS_OK, "a writable open reads it too");
    store_close(s);
    is_int(raw_int(tpath("v4.db"), "PRAGMA user_version"), 4, "and leaves it at schema 4");
    ok(store_open(tpath("v4.db"), 0, &s, &err) == MS_OK &&
           store_use_profile(s, STORE_DEFAULT_PROFILE, &err) == MS_OK,
       "open it again");
    ok(s && put_simple(s, "new", "written after schema 4", NULL, NULL) > 0,
       "the first write succeeds");
    store_close(s);
    is_int(raw_int(tpath("v4.db"), "PRAGMA user_version"), STORE_SCHEMA_VERSION,
           "and brought the store to the current schema first");
}

/* A schema-5 store (no metadata, no supersession) is read as it is, and
 * the first write brings it to schema 6 with the memory's fields empty. */
static void test_schema5(void)
{
    store *s = open_new("v5.db");
    put_simple(s, "old", "a memory from schema 5", NULL, NULL);
    store_close(s);
    is_int(raw_exec(tpath("v5.db"),
                    "DROP INDEX memories_superseded; ALTER TABLE memories DROP COLUMN metadata;"
                    "ALTER TABLE memories DROP COLUMN superseded_by;"
                    "ALTER TABLE memories DROP COLUMN superseded_at;"
                    "ALTER TABLE memories DROP COLUMN superseded_reason; PRAGMA user_version=5"),
           SQLITE_OK, "make a schema-5 store");
    size_t n1 = 0, n2 = 0;
    char *before = slurp(tpath("v5.db"), &n1);
    ms_error err;
    ms_error_clear(&err);
    ms_status st = store_open(tpath("v5.db"), STORE_OPEN_READONLY, &s, &err);
    ok(st == MS_OK && s, "a read-only open reads a schema-5 store (%s)", err.msg);
    store_memory m;
    store_memory_init(&m);
    ok(s && store_get(s, "old", 0, &m, &err) == MS_OK && m.content && !m.metadata &&
           !store_is_superseded(&m),
       "its memory reads with no metadata and not superseded (%s)", err.msg);
    store_memory_clear(&m);
    store_close(s);
    char *after = slurp(tpath("v5.db"), &n2);
    ok(before && after && n1 == n2 && memcmp(before, after, n1) == 0, "and the file is unchanged");
    free(after);
    ok(store_open(tpath("v5.db"), 0, &s, &err) == MS_OK, "open it writable");
    store_memory_init(&m);
    m.id = strdup("new");
    m.content = strdup("written after schema 5");
    m.metadata = strdup(" { \"scope\" : \"personal\" } ");
    m.superseded_by = strdup("old");
    m.superseded_at = strdup("2026-03-08 12:00");
    st = store_begin(s, &err);
    if (!st)
        st = store_put(s, &m, STORE_DUP_ERROR, NULL, &err);
    if (!st)
        st = store_end(s, &err);
    ok(st == MS_OK, "the first write succeeds (%s)", err.msg);
    store_memory_clear(&m);
    ok(store_get(s, "new", 0, &m, &err) == MS_OK && m.metadata &&
           strcmp(m.metadata, "{\"scope\":\"personal\"}") == 0,
       "metadata is kept minified (%s)", m.metadata ? m.metadata : "NULL");
    ok(m.superseded_at && strcmp(m.superseded_at, "2026-03-08T12:00:00Z") == 0 &&
           store_is_superseded(&m),
       "superseded_at is normalised");
    char text[128];
    store_supersession_text(m.superseded_by, m.superseded_at, text, sizeof text);
    is_str(text, "superseded by old (2026-03-08)", "the supersession reads as one phrase");
    store_memory_clear(&m);
    store_memory_init(&m);
    m.content = strdup("bad metadata");
    m.metadata = strdup("[1, 2]");
    st = store_begin(s, &err);
    ok(!st && store_put(s, &m, STORE_DUP_ERROR, NULL, &err) == MS_PARSE &&
           strstr(err.msg, "\"metadata\" must be a JSON object"),
       "metadata that is not an object is refused (%s)", err.msg);
    store_rollback(s);
    store_memory_clear(&m);
    store_close(s);
    is_int(raw_int(tpath("v5.db"), "PRAGMA user_version"), STORE_SCHEMA_VERSION,
           "the store is at the current schema");
    free(before);
}

/* The int8 forms store_scan_qvectors gives, against store_quantize of the
 * vectors written. */
struct qcheck {
    const float (*v)[8];
    int n, bad;
};

static int check_qvec(void *p, const store_qvec *qv, int dim)
{
    struct qcheck *c = p;
    int8_t q[8];
    store_qvec want;
    int i = (int)qv->rid - 1;
    if (dim != 8 || i < 0 || i >= 3) {
        c->bad++;
        return 0;
    }
    store_quantize(c->v[i], 8, q, &want);
    c->bad += memcmp(q, qv->q, 8) != 0 || want.scale != qv->scale || want.resid != qv->resid ||
              want.qnorm != qv->qnorm;
    c->n++;
    return 0;
}

/* A schema-6 store kept the int8 forms in vectors_q8. It is read as it is
 * (the forms computed from its vectors, not read from that table), and
 * the first write brings it to the current schema without the table. */
static void test_schema6_vectors(void)
{
    static const float v[3][8] = {{0.1f, -0.2f, 0.3f, 0.4f, -0.5f, 0.6f, 0.7f, -0.8f},
                                  {0, 0, 0, 0.25f, 0, 0, 0, 0},
                                  {1, 2, -3, 4, 0, 0, 5, -6}};
    store *s = open_new("v6q8.db");
    ms_error err;
    ms_error_clear(&err);
    put_simple(s, "a", "one", NULL, NULL);
    put_simple(s, "b", "two", NULL, NULL);
    put_simple(s, "c", "three", NULL, NULL);
    ms_status st = store_begin(s, &err);
    if (!st)
        st = store_set_embedder(s, "test-embedder", 8, &err);
    for (int i = 0; !st && i < 3; i++)
        st = store_put_vector(s, i + 1, v[i], 8, &err);
    if (!st)
        st = store_end(s, &err);
    ok(st == MS_OK, "three vectors of 8 (%s)", err.msg);
    store_close(s);
    is_int(raw_int(tpath("v6q8.db"), "SELECT count(*) FROM sqlite_master WHERE name='vectors_q8'"),
           0, "a new store has no vectors_q8");
    /* schema 6 as it was: the table, filled (with junk here: it is not read) */
    is_int(raw_exec(tpath("v6q8.db"),
                    "CREATE TABLE vectors_q8(rid INTEGER PRIMARY KEY REFERENCES memories(rid)"
                    " ON DELETE CASCADE, scale REAL NOT NULL, resid REAL NOT NULL,"
                    " qnorm REAL NOT NULL, q BLOB NOT NULL);"
                    "INSERT INTO vectors_q8 SELECT rid, 9, 9, 9, zeroblob(8) FROM vectors;"
                    "PRAGMA user_version=6"),
           SQLITE_OK, "make a schema-6 store with its int8 table");
    is_int(
        raw_int(tpath("v6q8.db"), "SELECT count(*) FROM vectors WHERE substr(vec, 2, 1) = x'02'"),
        0, "its vectors are dense or sparse, as schema 6 wrote them");
    size_t n1 = 0, n2 = 0;
    char *before = slurp(tpath("v6q8.db"), &n1);
    struct qcheck c = {v, 0, 0};
    st = store_open(tpath("v6q8.db"), STORE_OPEN_READONLY, &s, &err);
    if (!st)
        st = store_scan_qvectors(s, check_qvec, &c, &err);
    ok(st == MS_OK && c.n == 3 && c.bad == 0,
       "read-only, its int8 forms are store_quantize's of its vectors (%d of 3, %d bad; %s)", c.n,
       c.bad, err.msg);
    store_close(s);
    char *after = slurp(tpath("v6q8.db"), &n2);
    ok(before && after && n1 == n2 && memcmp(before, after, n1) == 0, "and the file is unchanged");
    free(before);
    free(after);
    ok(store_open(tpath("v6q8.db"), 0, &s, &err) == MS_OK && put_simple(s, "d", "four", NULL, NULL),
       "the first write succeeds (%s)", err.msg);
    c.n = c.bad = 0;
    ok(store_scan_qvectors(s, check_qvec, &c, &err) == MS_OK && c.n == 3 && c.bad == 0,
       "after the upgrade, the same int8 forms");
    float back[8];
    int same = 0;
    for (int i = 0; i < 3; i++)
        same += store_get_vector(s, i + 1, back, 8, &err) == MS_OK &&
                memcmp(back, v[i], sizeof back) == 0;
    is_int(same, 3, "and the exact vectors, bit for bit");
    store_close(s);
    is_int(raw_int(tpath("v6q8.db"), "PRAGMA user_version"), STORE_SCHEMA_VERSION,
           "the store is at the current schema");
    is_int(raw_int(tpath("v6q8.db"), "SELECT count(*) FROM sqlite_master WHERE name='vectors_q8'"),
           0, "and vectors_q8 is gone");
}

/* Opening path must fail with want and leave its bytes exactly as they were. */
static void refused_unchanged(const char *name, ms_status want, const char *what)
{
    size_t n1 = 0, n2 = 0;
    char *before = slurp(tpath(name), &n1);
    store *s = NULL;
    ms_error err;
    ms_error_clear(&err);
    ms_status st = store_open(tpath(name), 0, &s, &err);
    ok(st == want && s == NULL, "%s is refused with %s (got %s: %s)", what, ms_status_text(want),
       ms_status_text(st), err.msg);
    ok(err.msg[0] && strstr(err.msg, tpath(name)) != NULL, "the message names the file");
    store_close(s);
    char *after = slurp(tpath(name), &n2);
    ok(before && after && n1 == n2 && memcmp(before, after, n1) == 0,
       "%s: the file's bytes are unchanged", what);
    char wal[600];
    snprintf(wal, sizeof wal, "%s-wal", tpath(name));
    ok(!file_exists(wal), "%s: no -wal file is left behind", what);
    free(before);
    free(after);
    unlink(tpath(name));
}

static void test_refusals(void)
{
    store *s = open_new("refuse.db");
    store_close(s);
    raw_exec(tpath("refuse.db"), "PRAGMA user_version=99");
    refused_unchanged("refuse.db", MS_SCHEMA_NEWER, "a store of schema 99");

    static const char text[] = "id,content\n1,this is a CSV file, not a store\n";
    write_file(tpath("text.db"), text, sizeof text - 1);
    refused_unchanged("text.db", MS_NOT_STORE, "a text file");

    write_file(tpath("short.db"), "hi\n", 3);
    refused_unchanged("short.db", MS_NOT_STORE, "a 3-byte text file");

    raw_exec(tpath("other.db"), "CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT);"
                                "INSERT INTO customers(name) VALUES ('Ada');");
    refused_unchanged("other.db", MS_NOT_STORE, "an SQLite database of another application");

    raw_exec(tpath("otherapp.db"), "PRAGMA application_id=1234");
    refused_unchanged("otherapp.db", MS_NOT_STORE, "a database with another application_id");

    /* The SQLite magic followed by garbage. */
    char junk[4096];
    memcpy(junk, "SQLite format 3", 16);
    for (size_t i = 16; i < sizeof junk; i++)
        junk[i] = (char)(i * 7 + 3);
    write_file(tpath("corrupt.db"), junk, sizeof junk);
    size_t n1, n2;
    char *before = slurp(tpath("corrupt.db"), &n1);
    ms_error err;
    ms_error_clear(&err);
    ms_status st = store_open(tpath("corrupt.db"), 0, &s, &err);
    ok(st != MS_OK && s == NULL, "a corrupt SQLite file is refused (%s)", err.msg);
    char *after = slurp(tpath("corrupt.db"), &n2);
    ok(before && after && n1 == n2 && memcmp(before, after, n1) == 0,
       "a corrupt SQLite file is unchanged");
    free(before);
    free(after);
    unlink(tpath("corrupt.db"));
}

/* ---- memories ---------------------------------------------------------- */

static void test_crud(void)
{
    store *s = open_new("crud.db");
    ms_error err;
    ms_error_clear(&err);
    store_memory m;
    store_memory_init(&m);
    m.id = strdup("D1:3");
    m.content = strdup("Caroline: I went to a LGBTQ support group yesterday");
    m.created_at = strdup("2023-05-08 13:56:00+02:00");
    m.event_time = strdup("2023-05-07T09:30:15.250-01:30");
    m.speaker = strdup("Caroline");
    m.session = strdup("1");
    m.source = strdup("chat");
    m.memory_confidence = 0.9;
    m.trust_alpha = 3;
    m.trust_beta = 1.5;
    m.importance = 0.25;
    m.pinned = 1;
    m.entities = calloc(2, sizeof *m.entities);
    m.entities[0] = strdup("LGBTQ support group");
    m.entities[1] = strdup("Pride");
    m.n_entities = 2;
    store_put_result res = STORE_PUT_SKIPPED;
    ok(store_begin(s, &err) == MS_OK, "begin");
    ok(store_put(s, &m, STORE_DUP_ERROR, &res, &err) == MS_OK, "put a memory with every field");
    ok(res == STORE_PUT_INSERTED && m.rid > 0, "it is inserted with a rid");
    ok(store_end(s, &err) == MS_OK, "commit");
    int64_t rid = m.rid;
    store_memory_clear(&m);

    store_memory g;
    ok(store_get(s, "D1:3", 0, &g, &err) == MS_OK, "get by id");
    is_int(g.rid, rid, "rid");
    is_str(g.id, "D1:3", "id");
    is_str(g.profile, "default", "profile");
    is_str(g.content, "Caroline: I went to a LGBTQ support group yesterday", "content");
    is_str(g.created_at, "2023-05-08T11:56:00Z", "created_at normalised to UTC");
    int64_t want_ts;
    store_parse_time("2023-05-08T11:56:00Z", &want_ts);
    is_int(g.created_ts, want_ts, "created_ts");
    is_str(g.event_time, "2023-05-07T11:00:15Z", "event_time normalised to UTC");
    store_parse_time("2023-05-07T11:00:15Z", &want_ts);
    is_int(g.event_ts, want_ts, "event_ts");
    is_str(g.speaker, "Caroline", "speaker");
    is_str(g.session, "1", "session");
    is_str(g.source, "chat", "source");
    is_near(g.memory_confidence, 0.9, 1e-12, "memory_confidence");
    is_near(g.trust_alpha, 3, 1e-12, "trust alpha");
    is_near(g.trust_beta, 1.5, 1e-12, "trust beta");
    is_near(store_trust_score(&g), 2.0 / 3.0, 1e-12, "trust_score = alpha / (alpha + beta)");
    is_near(g.importance, 0.25, 1e-12, "importance");
    is_int(g.pinned, 1, "pinned");
    is_int(g.access_count, 0, "access_count starts at 0");
    ok(g.last_accessed == NULL, "last_accessed starts unset");
    int has_given = 0, has_pride = 0, has_speaker = 0;
    for (size_t i = 0; i < g.n_entities; i++) {
        has_given |= strcmp(g.entities[i], "LGBTQ support group") == 0;
        has_pride |= strcmp(g.entities[i], "Pride") == 0;
        has_speaker |= strcmp(g.entities[i], "Caroline") == 0;
    }
    ok(has_given && has_pride, "given entities come back");
    ok(has_speaker, "the speaker is an entity");
    store_memory_clear(&g);

    ok(store_get(s, NULL, rid, &g, &err) == MS_OK && strcmp(g.id, "D1:3") == 0, "get by rid");
    store_memory_clear(&g);

    /* Defaults, and a generated id. */
    store_memory_init(&m);
    m.content = strdup("a memory with nothing but content");
    store_begin(s, &err);
    ok(store_put(s, &m, STORE_DUP_ERROR, NULL, &err) == MS_OK, "put content only");
    store_end(s, &err);
    ok(m.id && m.id[0], "an id is generated (%s)", m.id ? m.id : "none");
    ok(store_get(s, m.id, 0, &g, &err) == MS_OK, "and the memory is found by it");
    is_near(g.memory_confidence, 0.7, 1e-12, "default memory_confidence 0.7");
    is_near(store_trust_score(&g), 0.5, 1e-12, "default trust 0.5 (Beta(1,1))");
    is_near(g.importance, 0.5, 1e-12, "default importance 0.5");
    ok(g.event_time == NULL && g.event_ts == STORE_TS_NONE, "no event_time");
    ok(g.speaker == NULL && g.session == NULL && g.source == NULL, "no provenance");
    is_int(g.pinned, 0, "not pinned");
    int64_t t;
    ok(g.created_at && store_parse_time(g.created_at, &t) == 0 && llabs(t - time(NULL)) < 86400,
       "created_at defaults to now (%s)", g.created_at ? g.created_at : "none");
    store_memory_clear(&g);
    store_memory_clear(&m);

    /* Delete. */
    store_begin(s, &err);
    ok(store_delete(s, "D1:3", &err) == MS_OK, "delete by id");
    ok(store_delete(s, "D1:3", &err) == MS_NOT_FOUND, "deleting it again is MS_NOT_FOUND");
    store_end(s, &err);
    ok(store_get(s, "D1:3", 0, &g, &err) == MS_NOT_FOUND, "a deleted memory is gone");
    store_counts c;
    store_count(s, &c, &err);
    is_int(c.memories, 1, "one memory left");
    store_close(s);
}

struct hits {
    int64_t rid[16];
    int n;
};

static int collect_hit(void *p, int64_t rid, double score)
{
    struct hits *h = p;
    (void)score;
    if (h->n < 16)
        h->rid[h->n++] = rid;
    return 0;
}

static int fts_count(store *s, const char *match, int64_t want_rid)
{
    struct hits h = {{0}, 0};
    ms_error err;
    if (store_fts(s, match, 16, collect_hit, &h, &err))
        return -1;
    if (want_rid)
        for (int i = 0; i < h.n; i++)
            if (h.rid[i] == want_rid)
                return h.n;
    return want_rid ? -2 : h.n;
}

static void test_duplicates(void)
{
    store *s = open_new("dup.db");
    ms_error err;
    ms_error_clear(&err);
    int64_t rid = put_simple(s, "a", "the zebra crossed the road", "Ann", "s1");
    put_simple(s, "b", "another memory", "Ann", "s1");
    ok(rid > 0, "first put");

    store_memory m;
    store_memory_init(&m);
    m.id = strdup("a");
    m.content = strdup("the giraffe crossed the road");
    store_put_result res;
    store_begin(s, &err);
    ok(store_put(s, &m, STORE_DUP_ERROR, &res, &err) == MS_DUPLICATE,
       "error policy: a second put of the same id is MS_DUPLICATE");
    ok(strstr(err.msg, "\"a\"") != NULL, "and the message names the id (%s)", err.msg);
    ok(store_put(s, &m, STORE_DUP_SKIP, &res, &err) == MS_OK && res == STORE_PUT_SKIPPED,
       "skip policy: reports skipped");
    is_int(m.rid, rid, "skip gives the existing rid");
    store_end(s, &err);
    store_memory g;
    store_get(s, "a", 0, &g, &err);
    is_str(g.content, "the zebra crossed the road", "skip keeps the old content");
    store_memory_clear(&g);

    store_begin(s, &err);
    m.rid = 0;
    free(m.speaker);
    m.speaker = strdup("Bob");
    m.memory_confidence = 0.2;
    ok(store_put(s, &m, STORE_DUP_REPLACE, &res, &err) == MS_OK && res == STORE_PUT_REPLACED,
       "replace policy: reports replaced");
    store_end(s, &err);
    is_int(m.rid, rid, "replace keeps the rid");
    store_get(s, "a", 0, &g, &err);
    is_str(g.content, "the giraffe crossed the road", "replace writes the new content");
    is_str(g.speaker, "Bob", "and the new speaker");
    is_near(g.memory_confidence, 0.2, 1e-12, "and the new confidence");
    is_int(g.rid, rid, "under the same rid");
    int has_ann = 0;
    for (size_t i = 0; i < g.n_entities; i++)
        has_ann |= strcmp(g.entities[i], "Ann") == 0;
    ok(!has_ann, "the old speaker entity is no longer linked");
    store_memory_clear(&g);
    is_int(fts_count(s, "zebra", 0), 0, "FTS: the old word no longer matches");
    is_int(fts_count(s, "giraffe", rid), 1, "FTS: the new word matches the same rid");
    store_counts c;
    store_count(s, &c, &err);
    is_int(c.memories, 2, "still two memories");
    store_memory_clear(&m);
    store_close(s);
}

/* Put m in its own transaction and check it is refused with want and that
 * nothing was written. */
static void refuse_put(store *s, store_memory *m, ms_status want, const char *what)
{
    ms_error err;
    ms_error_clear(&err);
    store_counts c0, c1;
    store_count(s, &c0, &err);
    store_begin(s, &err);
    ms_status st = store_put(s, m, STORE_DUP_ERROR, NULL, &err);
    ok(st == want, "%s is refused with %s (got %s: %.120s)", what, ms_status_text(want),
       ms_status_text(st), err.msg);
    /* Commit whatever the put may have left, to prove it left nothing. */
    store_end(s, NULL);
    store_count(s, &c1, &err);
    ok(c1.memories == c0.memories && c1.entities == c0.entities && c1.links == c0.links &&
           c1.edges == c0.edges && c1.vectors == c0.vectors,
       "%s: nothing was written", what);
}

static void test_validation(void)
{
    store *s = open_new("valid.db");
    put_simple(s, "seed", "Ann met Bob in Paris", "Ann", "s1");
    store_memory m;
    store_memory_init(&m);
    m.id = strdup("bad");
    m.session = strdup("s1");
    m.speaker = strdup("Ann");
    m.content = strdup("Ann saw Bob again in Paris");
    m.memory_confidence = 1.5;
    refuse_put(s, &m, MS_PARSE, "memory_confidence 1.5");
    m.memory_confidence = -0.1;
    refuse_put(s, &m, MS_PARSE, "memory_confidence -0.1");
    m.memory_confidence = NAN;
    refuse_put(s, &m, MS_PARSE, "memory_confidence NaN");
    m.memory_confidence = 0.7;
    m.importance = INFINITY;
    refuse_put(s, &m, MS_PARSE, "importance infinity");
    m.importance = 0.5;
    m.trust_alpha = 0;
    refuse_put(s, &m, MS_PARSE, "trust alpha 0");
    m.trust_alpha = 1;
    m.trust_beta = NAN;
    refuse_put(s, &m, MS_PARSE, "trust beta NaN");
    m.trust_beta = 1;

    free(m.content);
    m.content = strdup("");
    refuse_put(s, &m, MS_PARSE, "empty content");
    free(m.content);
    m.content = NULL;
    refuse_put(s, &m, MS_PARSE, "missing content");

    m.content = malloc(STORE_CONTENT_MAX + 2);
    memset(m.content, 'a', STORE_CONTENT_MAX + 1);
    m.content[STORE_CONTENT_MAX + 1] = '\0';
    refuse_put(s, &m, MS_LIMIT, "content of STORE_CONTENT_MAX + 1 bytes");
    free(m.content);
    m.content = strdup("Ann saw Bob \xc3\x28 in Paris");
    refuse_put(s, &m, MS_PARSE, "content with invalid UTF-8");
    free(m.content);
    m.content = strdup("Ann saw Bob again in Paris");
    free(m.speaker);
    m.speaker = strdup("Ann \xed\xa0\x80");
    refuse_put(s, &m, MS_PARSE, "speaker with a surrogate");
    free(m.speaker);
    m.speaker = strdup("Ann");

    m.created_at = strdup("2023-13-01");
    refuse_put(s, &m, MS_PARSE, "created_at 2023-13-01");
    free(m.created_at);
    m.created_at = NULL;
    m.event_time = strdup("yesterday");
    refuse_put(s, &m, MS_PARSE, "event_time \"yesterday\"");
    free(m.event_time);
    m.event_time = NULL;

    free(m.id);
    m.id = strdup("");
    refuse_put(s, &m, MS_PARSE, "an empty id");
    free(m.id);
    m.id = strdup("seed");
    refuse_put(s, &m, MS_DUPLICATE, "an existing id");
    free(m.id);
    m.id = strdup("bad");

    /* A given vector that does not fit the store's embedder. */
    ms_error err;
    store_begin(s, NULL);
    ok(store_set_embedder(s, "test-embedder", 4, &err) == MS_OK, "record a 4-d embedder");
    store_end(s, NULL);
    m.embedding = calloc(3, sizeof *m.embedding);
    m.embedding[0] = 1;
    m.dim = 3;
    m.embedder_id = strdup("test-embedder");
    refuse_put(s, &m, MS_EMBEDDER, "a 3-d vector for a 4-d store");
    m.embedding[1] = NAN;
    refuse_put(s, &m, MS_PARSE, "a vector holding NaN");
    store_memory_clear(&m);
    store_close(s);
}

static int64_t put_event(store *s, const char *id, const char *content, const char *session,
                         const char *event_time);
static int64_t put_event_pin(store *s, const char *id, const char *content, const char *session,
                             const char *event_time, int pinned);

/* store_count counts a profile that is the store's only one without
 * joins: the same numbers as the joins give once another profile exists;
 * store_count_some leaves the pinned out unless asked. */
static void test_count_paths(void)
{
    store *s = open_new("counts.db");
    ms_error err;
    ms_error_clear(&err);
    put_event(s, "c1", "Alice met Bob in Paris", "s1", "2023-05-08T13:00:00Z");
    put_event(s, "c2", "Bob told Alice about Rome", "s1", "2023-05-08T14:00:00Z");
    put_event_pin(s, "c3", "Carol flew to Paris with Alice", "s2", "2023-05-08T15:00:00Z", 1);
    float v[4] = {1, 0, 0.5f, 0};
    ms_status st = store_begin(s, &err);
    if (!st)
        st = store_set_embedder(s, "test-embedder", 4, &err);
    for (int64_t rid = 1; !st && rid <= 2; rid++)
        st = store_put_vector(s, rid, v, 4, &err);
    if (!st)
        st = store_end(s, &err);
    ok(st == MS_OK, "three memories, two vectors, one pinned (%s)", err.msg);
    store_counts alone, some, joined;
    ok(store_count(s, &alone, &err) == MS_OK && store_count_some(s, 0, &some, &err) == MS_OK,
       "counted while default is the only profile");
    ok(alone.memories == 3 && alone.links > 0 && alone.edges > 0 && alone.vectors == 2 &&
           alone.pinned == 1,
       "memories 3, links %lld, edges %lld, vectors 2, pinned 1", (long long)alone.links,
       (long long)alone.edges);
    ok(some.memories == alone.memories && some.entities == alone.entities &&
           some.links == alone.links && some.edges == alone.edges &&
           some.vectors == alone.vectors && some.pinned == 0,
       "store_count_some without the pinned: the rest the same, pinned 0");
    store_use_profile(s, "work", &err);
    put_event(s, "w1", "Dave met Erin in Oslo", "w", "2023-05-08T13:30:00Z");
    put_event(s, "w2", "Erin told Dave about Rome", "w", "2023-05-08T14:30:00Z");
    store_use_profile(s, "default", &err);
    ok(store_count(s, &joined, &err) == MS_OK && joined.memories == alone.memories &&
           joined.entities == alone.entities && joined.links == alone.links &&
           joined.edges == alone.edges && joined.vectors == alone.vectors &&
           joined.pinned == alone.pinned,
       "with another profile, the joins count default's the same");
    store_close(s);
}

static void test_profiles(void)
{
    store *s = open_new("prof.db");
    ms_error err;
    ms_error_clear(&err);
    int64_t r1 = put_simple(s, "same", "apples grow in the orchard", NULL, NULL);
    ok(store_use_profile(s, "work", &err) == MS_OK, "switch to profile work");
    is_str(store_profile(s), "work", "store_profile says work");
    int64_t r2 = put_simple(s, "same", "apples are on the quarterly agenda", NULL, NULL);
    ok(r1 > 0 && r2 > 0 && r1 != r2, "the same id lives in two profiles");
    store_memory g;
    ok(store_get(s, "same", 0, &g, &err) == MS_OK && g.rid == r2 && strcmp(g.profile, "work") == 0,
       "get sees the current profile's memory");
    store_memory_clear(&g);
    ok(store_get(s, NULL, r1, &g, &err) == MS_NOT_FOUND,
       "get by rid does not reach another profile");
    is_int(fts_count(s, "apples", r2), 1, "FTS in work finds only work's memory");
    is_int(fts_count(s, "orchard", 0), 0, "FTS in work does not see default's words");
    store_use_profile(s, "default", &err);
    is_int(fts_count(s, "apples", r1), 1, "FTS in default finds only default's memory");
    store_counts c;
    store_count(s, &c, &err);
    is_int(c.memories, 1, "counts are per profile");
    int64_t np = 0;
    store_profile_count(s, &np, &err);
    is_int(np, 2, "two profiles");
    ok(store_use_profile(s, "", &err) == MS_USAGE, "an empty profile name is refused");
    ok(store_use_profile(s, "bad\xff", &err) == MS_USAGE, "a non-UTF-8 profile is refused");
    is_str(store_profile(s), "default", "and the profile is unchanged");

    /* Deleting in one profile leaves the other alone. */
    store_begin(s, &err);
    ok(store_delete(s, "same", &err) == MS_OK, "delete in default");
    store_end(s, &err);
    store_use_profile(s, "work", &err);
    ok(store_get(s, "same", 0, &g, &err) == MS_OK, "work's memory with that id survives");
    store_memory_clear(&g);
    store_close(s);
}

/* ---- batched reads ------------------------------------------------------- */

static int same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Does b hold every field of a that store_get_rids reads? */
static int same_memory(const store_memory *a, const store_memory *b)
{
    return a->rid == b->rid && same_text(a->id, b->id) && same_text(a->profile, b->profile) &&
           same_text(a->content, b->content) && same_text(a->created_at, b->created_at) &&
           a->created_ts == b->created_ts && same_text(a->event_time, b->event_time) &&
           a->event_ts == b->event_ts && same_text(a->speaker, b->speaker) &&
           same_text(a->session, b->session) && same_text(a->source, b->source) &&
           a->memory_confidence == b->memory_confidence && a->trust_alpha == b->trust_alpha &&
           a->trust_beta == b->trust_beta && a->importance == b->importance &&
           a->pinned == b->pinned && a->access_count == b->access_count &&
           same_text(a->last_accessed, b->last_accessed) && same_text(a->metadata, b->metadata) &&
           same_text(a->superseded_by, b->superseded_by) &&
           same_text(a->vector_model, b->vector_model) && a->vector_dim == b->vector_dim;
}

/* store_edges_of_rids gives each rid the edges store_edges_of gives it. */
static void test_edges_of_rids(store *s, const int64_t *rid, size_t n)
{
    ms_error err;
    ms_error_clear(&err);
    store_edge *v = NULL;
    size_t *first = NULL;
    ms_status st = store_edges_of_rids(s, rid, n, &v, &first, &err);
    ok(st == MS_OK, "store_edges_of_rids reads the edges of %zu memories (%s)", n,
       st ? err.msg : "ok");
    size_t same = 0, total = 0;
    for (size_t k = 0; !st && k < n; k++) {
        store_edge *one = NULL;
        size_t m = 0;
        if (store_edges_of(s, rid[k], &one, &m, &err))
            break;
        size_t got = first[k + 1] - first[k];
        total += m;
        if (m > 1)
            qsort(one, m, sizeof *one, store_edge_cmp);
        if (got > 1)
            qsort(v + first[k], got, sizeof *v, store_edge_cmp);
        int eq = got == m;
        for (size_t j = 0; eq && j < m; j++)
            eq = store_edge_cmp(&one[j], &v[first[k] + j]) == 0 &&
                 one[j].weight == v[first[k] + j].weight;
        same += eq;
        free(one);
    }
    is_int((int)same, (int)n, "each rid has the edges store_edges_of gives it");
    ok(total > n && first && first[n] == total, "%zu edges in all, as many as one by one", total);
    free(v);
    free(first);
}

/* Does the plan of the store's statement id (on the file at path) read
 * memories by rowid only, never walking one of its indexes? */
static int reads_by_rowid(store *s, const char *path, enum stmt_id id)
{
    ms_error err;
    sqlite3_stmt *st = store_stmt(s, id, &err), *plan = NULL;
    sqlite3 *db = NULL;
    char sql[4096];
    snprintf(sql, sizeof sql, "EXPLAIN QUERY PLAN %s", st ? sqlite3_sql(st) : "");
    int by_rowid = 0, by_index = 0;
    if (st && sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &plan, NULL) == SQLITE_OK)
        while (sqlite3_step(plan) == SQLITE_ROW) {
            const char *d = (const char *)sqlite3_column_text(plan, 3);
            by_rowid |= d && strstr(d, "SEARCH memories USING INTEGER PRIMARY KEY") != NULL;
            by_index |= d && strstr(d, "memories USING INDEX") != NULL;
            by_index |= d && strstr(d, "SCAN memories") != NULL;
        }
    sqlite3_finalize(plan);
    sqlite3_close(db);
    return by_rowid && !by_index;
}

/* store_get_rids: the memories of many rids in the order asked, as
 * store_get reads them (but the entities), over several chunks; a rid of
 * another profile is not found. */
static void test_get_rids(void)
{
    store *s = open_new("rids.db");
    ms_error err;
    ms_error_clear(&err);
    enum { N = 2 * STORE_GET_BATCH + 22 };
    int64_t rid[N];
    ms_status st = store_begin(s, &err);
    for (int k = 0; !st && k < N; k++) {
        store_memory m;
        store_memory_init(&m);
        char text[64];
        snprintf(text, sizeof text, "Nora: the %d-th note about the harbour", k);
        m.content = strdup(text);
        m.speaker = strdup(k % 3 ? "Nora" : "Ilse");
        m.session = k % 2 ? strdup("s1") : NULL;
        m.created_at = strdup("2024-02-01T10:00:00Z");
        m.pinned = k % 5 == 0;
        m.memory_confidence = 0.5 + k / 1000.0;
        st = store_put(s, &m, STORE_DUP_ERROR, NULL, &err);
        rid[k] = m.rid;
        store_memory_clear(&m);
    }
    if (!st)
        st = store_end(s, &err);
    ok(st == MS_OK, "%d memories written (%s)", N, st ? err.msg : "ok");
    int64_t ask[N - 10]; /* every other rid backwards, then the rest forwards */
    int n = 0;
    for (int k = N - 1; k >= 0; k -= 2)
        ask[n++] = rid[k];
    for (int k = 0; k < N && n < N - 10; k += 2)
        ask[n++] = rid[k];
    store_memory got[N];
    st = store_get_rids(s, ask, (size_t)n, got, &err);
    ok(st == MS_OK, "store_get_rids reads %d memories in %d chunks (%s)", n,
       (n + STORE_GET_BATCH - 1) / STORE_GET_BATCH, st ? err.msg : "ok");
    int same = 0, none = 0;
    for (int k = 0; k < n; k++) {
        store_memory g;
        if (store_get(s, NULL, ask[k], &g, &err) == MS_OK && same_memory(&g, &got[k]))
            same++;
        none += got[k].n_entities == 0 && got[k].entities == NULL && g.n_entities > 0;
        store_memory_clear(&g);
        store_memory_clear(&got[k]);
    }
    is_int(same, n, "each is in the place asked, with store_get's fields");
    is_int(none, n, "and without the entities store_get reads");
    ok(store_get_rids(s, ask, 0, got, &err) == MS_OK, "no rids: nothing read");
    ok(reads_by_rowid(s, tpath("rids.db"), ST_GET_RIDS),
       "it reads by rowid, not walking the profile's index (every memory of it)");

    test_edges_of_rids(s, ask, (size_t)n);
    ok(store_use_profile(s, "work", &err) == MS_OK, "switch to profile work");
    int64_t other = put_simple(s, "w1", "Nora: a note in another profile", "Nora", NULL);
    store_use_profile(s, "default", &err);
    int64_t two[2] = {rid[3], other};
    st = store_get_rids(s, two, 2, got, &err);
    char want[64];
    snprintf(want, sizeof want, "no memory #%lld in profile \"default\"", (long long)other);
    ok(st == MS_NOT_FOUND && strcmp(err.msg, want) == 0,
       "a rid of another profile is not found, named in one line (%s)", err.msg);
    ok(got[0].rid == rid[3] && got[1].content == NULL, "what was read is the caller's to clear");
    store_memory_clear(&got[0]);
    store_memory_clear(&got[1]);
    store_close(s);
}

/* ---- listing ------------------------------------------------------------ */

/* Memory i of the listing store: fields that repeat and tie, some NULL. */
static int put_listed(store *s, int i)
{
    static const char *const speakers[] = {"Caroline", "mel", NULL, "Bob"};
    char id[32], content[96], at[32], ev[32], sess[16];
    store_memory m;
    store_memory_init(&m);
    snprintf(id, sizeof id, "m%03d", (i * 7) % 23);
    snprintf(content, sizeof content, "turn %d about %s", i, i % 3 ? "the DENTIST" : "yoga");
    snprintf(at, sizeof at, "2023-05-%02dT10:00:00Z", 1 + i % 5);
    snprintf(ev, sizeof ev, "2022-01-%02dT00:00:00Z", 1 + (i * 3) % 7);
    snprintf(sess, sizeof sess, "S%d", i % 4);
    m.id = strdup(id);
    m.content = strdup(content);
    m.created_at = strdup(at);
    m.event_time = i % 4 == 1 ? NULL : strdup(ev);
    m.speaker = speakers[i % 4] ? strdup(speakers[i % 4]) : NULL;
    m.session = i % 5 == 4 ? NULL : strdup(sess);
    m.memory_confidence = (i % 3) / 2.0;
    m.trust_alpha = 1 + i % 4;
    m.importance = (i % 6) / 5.0;
    ms_error err;
    ms_status st = store_put(s, &m, STORE_DUP_ERROR, NULL, &err);
    if (st)
        diag("put %s: %s", id, err.msg);
    store_memory_clear(&m);
    return st ? -1 : 0;
}

#define LISTED_MAX 64

typedef struct listed {
    store_memory m[LISTED_MAX];
    int n;
} listed;

static int collect_listed(void *ctx, const store_memory *m)
{
    listed *l = ctx;
    if (l->n >= LISTED_MAX)
        return 1;
    store_memory *c = &l->m[l->n++];
    store_memory_init(c);
    c->rid = m->rid;
    c->id = strdup(m->id);
    c->content = strdup(m->content);
    c->created_at = strdup(m->created_at);
    c->created_ts = m->created_ts;
    c->event_time = m->event_time ? strdup(m->event_time) : NULL;
    c->event_ts = m->event_ts;
    c->speaker = m->speaker ? strdup(m->speaker) : NULL;
    c->session = m->session ? strdup(m->session) : NULL;
    c->memory_confidence = m->memory_confidence;
    c->trust_alpha = m->trust_alpha;
    c->trust_beta = m->trust_beta;
    c->importance = m->importance;
    return 0;
}

static void listed_clear(listed *l)
{
    for (int i = 0; i < l->n; i++)
        store_memory_clear(&l->m[i]);
    l->n = 0;
}

static int sort_under_test;

/* The order the listing promises, computed here: the field (NULLs last),
 * then rid. */
static int cmp_field(const store_memory *a, const store_memory *b, int sort)
{
    switch (sort) {
    case STORE_SORT_DATE:
        return (a->created_ts > b->created_ts) - (a->created_ts < b->created_ts);
    case STORE_SORT_EVENT:
        return (a->event_ts > b->event_ts) - (a->event_ts < b->event_ts);
    case STORE_SORT_SPEAKER:
        return strcmp(a->speaker, b->speaker);
    case STORE_SORT_SESSION:
        return strcmp(a->session, b->session);
    case STORE_SORT_TRUST: {
        double x = store_trust_score(a), y = store_trust_score(b);
        return (x > y) - (x < y);
    }
    case STORE_SORT_CONFIDENCE:
        return (a->memory_confidence > b->memory_confidence) -
               (a->memory_confidence < b->memory_confidence);
    case STORE_SORT_IMPORTANCE:
        return (a->importance > b->importance) - (a->importance < b->importance);
    default:
        return strcmp(a->id, b->id);
    }
}

static int is_null_field(const store_memory *m, int sort)
{
    return (sort == STORE_SORT_EVENT && m->event_ts == STORE_TS_NONE) ||
           (sort == STORE_SORT_SPEAKER && !m->speaker) ||
           (sort == STORE_SORT_SESSION && !m->session);
}

static int cmp_expected(const void *pa, const void *pb)
{
    const store_memory *a = pa, *b = pb;
    int sort = sort_under_test < 0 ? -sort_under_test - 1 : sort_under_test;
    int desc = sort_under_test < 0 ? -1 : 1;
    int na = is_null_field(a, sort), nb = is_null_field(b, sort);
    if (na != nb)
        return na - nb;
    int c = na ? 0 : cmp_field(a, b, sort);
    if (c == 0)
        c = (a->rid > b->rid) - (a->rid < b->rid);
    return c * desc;
}

static int listing_is(store *s, const listed *all, int sort, int desc, int page)
{
    listed expect = *all, got = {.n = 0};
    sort_under_test = desc ? -sort - 1 : sort;
    qsort(expect.m, (size_t)expect.n, sizeof expect.m[0], cmp_expected);
    store_list_opts o = {.sort = sort, .desc = desc};
    ms_error err;
    for (int off = 0; off < all->n; off += page)
        if (store_list(s, &o, off, page, collect_listed, &got, &err))
            diag("store_list: %s", err.msg);
    int same = got.n == expect.n;
    for (int i = 0; same && i < got.n; i++)
        same = got.m[i].rid == expect.m[i].rid;
    listed_clear(&got);
    return same;
}

static void test_listing(void)
{
    store *s = open_new("list.db");
    ms_error err;
    ms_error_clear(&err);
    store_begin(s, &err);
    int bad = 0;
    for (int i = 0; i < 23; i++)
        bad |= put_listed(s, i);
    store_end(s, &err);
    store_use_profile(s, "other", &err);
    put_simple(s, "o1", "another profile's dentist", "Caroline", "S1");
    store_use_profile(s, "default", &err);
    ok(!bad, "23 memories with repeating and missing fields");
    int64_t n = -1;
    ok(store_list_count(s, &(store_list_opts){0}, &n, &err) == MS_OK && n == 23,
       "the listing counts the profile's memories only");
    listed all = {.n = 0};
    store_list(s, &(store_list_opts){0}, 0, 100, collect_listed, &all, &err);
    is_int(all.n, 23, "one page of 100 holds them all");
    for (int sort = 0; sort < STORE_SORT_COUNT; sort++) {
        ok(listing_is(s, &all, sort, 0, 5), "sort by %s, in pages of 5", store_sort_name(sort));
        ok(listing_is(s, &all, sort, 1, 7), "sort by %s descending, in pages of 7 (NULLs last)",
           store_sort_name(sort));
    }
    int rids_same = 1;
    for (int sort = 0; sort < STORE_SORT_COUNT; sort++) {
        store_list_opts o = {.sort = sort, .desc = sort % 2};
        listed pages = {.n = 0};
        int64_t *rids = NULL, nr = 0;
        store_list(s, &o, 0, 100, collect_listed, &pages, &err);
        rids_same &= store_list_rids(s, &o, &rids, &nr, &err) == MS_OK && nr == pages.n;
        for (int i = 0; rids_same && i < pages.n; i++)
            rids_same = rids[i] == pages.m[i].rid;
        free(rids);
        listed_clear(&pages);
    }
    ok(rids_same, "store_list_rids gives every order's rids as the pages do");
    listed one = {.n = 0};
    store_list(s, &(store_list_opts){0}, 22, 10, collect_listed, &one, &err);
    is_int(one.n, 1, "a page past the end holds what is left");
    listed_clear(&one);
    ok(store_list(s, &(store_list_opts){.sort = STORE_SORT_COUNT}, 0, 1, collect_listed, &one,
                  &err) == MS_USAGE,
       "an unknown sort is a usage error");
    is_str(store_sort_name(STORE_SORT_IMPORTANCE), "importance", "sorts have names");
    ok(store_sort_name(STORE_SORT_COUNT) == NULL, "and none past the end");

    /* find: the parse, the C matcher and the SQL one agree */
    store_find f;
    store_find_parse("speaker:CAROLINE", &f);
    ok(f.field == STORE_FIND_SPEAKER && strcmp(f.text, "caroline") == 0,
       "find: a field prefix and lower case");
    store_find_parse("note:Dentist", &f);
    ok(f.field == STORE_FIND_ANY && strcmp(f.text, "note:dentist") == 0,
       "find: an unknown prefix is text");
    store_find_parse("dentist", &f);
    store_list_opts by_id = {.sort = STORE_SORT_ID};
    listed ids = {.n = 0};
    store_list(s, &by_id, 0, 100, collect_listed, &ids, &err);
    int expect_n = 0, first = -1, after5 = -1, before5 = -1, last = -1;
    for (int i = 0; i < ids.n; i++)
        if (store_find_match(&f, &ids.m[i])) {
            expect_n++;
            first = first < 0 ? i : first;
            after5 = after5 < 0 && i > 5 ? i : after5;
            before5 = i < 5 ? i : before5;
            last = i;
        }
    int64_t pos = -2, matches = -1;
    ok(store_list_find(s, &by_id, &f, 5, 1, &pos, &matches, &err) == MS_OK && pos == after5 &&
           matches == expect_n && expect_n == 15,
       "find: the next match after position 5 and the count, as the C matcher says");
    store_list_find(s, &by_id, &f, 5, -1, &pos, NULL, &err);
    is_int(pos, before5, "find: the previous match");
    store_list_find(s, &by_id, &f, last, 1, &pos, NULL, &err);
    is_int(pos, first, "find: past the last match it wraps to the first");
    store_list_find(s, &by_id, &f, first, -1, &pos, NULL, &err);
    is_int(pos, last, "find: before the first it wraps to the last");
    store_find_parse("speaker:mel", &f);
    int mel = 0;
    for (int i = 0; i < ids.n; i++)
        mel += store_find_match(&f, &ids.m[i]);
    store_list_find(s, &by_id, &f, -1, 1, &pos, &matches, &err);
    ok(matches == mel && mel == 6, "find in one field: speaker:mel");
    store_find_parse("speaker:zzz", &f);
    store_list_find(s, &by_id, &f, 0, 1, &pos, &matches, &err);
    ok(pos == -1 && matches == 0, "find: no match is position -1");
    listed_clear(&ids);
    listed_clear(&all);

    /* one entity's memories */
    store_entity *ents = NULL;
    size_t ne = 0;
    store_entities_all(s, &ents, &ne, &err);
    int64_t eid = 0, docs = 0;
    for (size_t i = 0; i < ne; i++)
        if (strcmp(ents[i].name, "Caroline") == 0) {
            eid = ents[i].eid;
            docs = ents[i].docs;
        }
    store_entities_free(ents, ne);
    store_list_count(s, &(store_list_opts){.eid = eid}, &n, &err);
    ok(eid > 0 && docs == 6 && n == docs, "an entity's listing holds its memories (6)");

    /* profiles */
    store_profile_info *p = NULL;
    size_t np = 0;
    ok(store_profiles(s, &p, &np, &err) == MS_OK && np == 2 && strcmp(p[0].name, "default") == 0 &&
           p[0].memories == 23 && strcmp(p[1].name, "other") == 0 && p[1].memories == 1,
       "store_profiles: each profile with its count, by name");
    store_profiles_free(p, np);
    store_use_profile(s, "empty", &err);
    ok(store_profiles(s, &p, &np, &err) == MS_OK && np == 3 && strcmp(p[2].name, "empty") == 0 &&
           p[2].memories == 0,
       "an empty current profile is listed with 0");
    store_profiles_free(p, np);
    store_close(s);
}

struct toks {
    char tok[8][32];
    int n;
};

static int collect_tok(void *p, const char *tok, int len, int start, int end)
{
    struct toks *t = p;
    (void)start;
    (void)end;
    if (t->n < 8 && len < 32) {
        memcpy(t->tok[t->n], tok, (size_t)len);
        t->tok[t->n][len] = '\0';
        t->n++;
    }
    return 0;
}

static void test_fts(void)
{
    store *s = open_new("fts.db");
    ms_error err;
    ms_error_clear(&err);
    struct toks t = {{{0}}, 0};
    ok(store_tokenize(s, "Running CATS quickly", 20, collect_tok, &t, &err) == MS_OK, "tokenize");
    is_int(t.n, 3, "three tokens");
    is_str(t.tok[0], "run", "porter stem: running -> run");
    is_str(t.tok[1], "cat", "cats -> cat (case folded)");
    is_str(t.tok[2], "quickli", "quickly -> quickli");
    t.n = 0;
    store_tokenize(s, "Café", (int)strlen("Café"), collect_tok, &t, &err);
    is_str(t.tok[0], "cafe", "diacritics removed");

    int64_t r1 = put_simple(s, "r", "She runs every morning", NULL, NULL);
    put_simple(s, "w", "He walked to work", NULL, NULL);
    is_int(fts_count(s, "running", r1), 1, "FTS finds 'runs' by 'running' (stem)");
    is_int(fts_count(s, "walks", 0), 1, "FTS finds 'walked' by 'walks'");
    is_int(fts_count(s, "swimming", 0), 0, "FTS finds nothing for an absent word");
    int64_t docs = -1;
    ok(store_term_docs(s, "run", &docs, &err) == MS_OK && docs == 1, "term_docs(run) is 1");
    store_close(s);
}

/* Every row of sql on the store's own connection, columns joined by '|',
 * rows by newlines (caller frees). */
static char *conn_dump(store *s, const char *sql)
{
    sqlite3_stmt *st;
    size_t len = 0, cap = 256;
    char *out = calloc(1, cap);
    if (!out || sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        return out;
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < sqlite3_column_count(st); c++) {
            const char *v = (const char *)sqlite3_column_text(st, c);
            size_t n = strlen(v ? v : "") + 2;
            if (len + n + 1 > cap) {
                char *g = realloc(out, cap = 2 * (len + n + 1));
                if (!g)
                    break;
                out = g;
            }
            len += (size_t)snprintf(out + len, cap - len, "%s%s", v ? v : "", c ? "|" : "\t");
        }
        out[len++] = '\n';
        out[len] = '\0';
    }
    sqlite3_finalize(st);
    return out;
}

/* Put turns first..first+n-1 (sessions of 7, two speakers, a name now
 * and then) in one transaction; with check, after each put, whether the
 * text index's automerge setting reads 0 then (*off_seen counts them). */
static int put_turns(store *s, int first, int n, int check, int *off_seen, int commit)
{
    static const char *const names[] = {"Nora", "Bea Lind", "Oslo", "Carla"};
    ms_error err;
    ms_error_clear(&err);
    ms_status st = store_begin(s, &err);
    for (int i = first; !st && i < first + n; i++) {
        char id[32], text[160], session[16];
        snprintf(id, sizeof id, "t%d", i);
        snprintf(session, sizeof session, "s%d", i / 7);
        snprintf(text, sizeof text, "%s: turn %d about %s and the harbour, word%d word%d",
                 i % 2 ? "Ann" : "Bob", i, names[i % 4], i % 13, i % 29);
        store_memory m;
        store_memory_init(&m);
        m.id = strdup(id);
        m.content = strdup(text);
        m.speaker = strdup(i % 2 ? "Ann" : "Bob");
        m.session = strdup(session);
        m.created_at = strdup("2023-05-08T13:56:00Z");
        st = store_put(s, &m, STORE_DUP_ERROR, NULL, &err);
        store_memory_clear(&m);
        if (!st && check) {
            char *v = conn_dump(s, "SELECT v FROM memories_fts_config WHERE k='automerge'");
            *off_seen += v && strcmp(v, "0\t\n") == 0;
            free(v);
        }
    }
    if (st || !commit) {
        if (st)
            diag("put_turns: %s", err.msg);
        store_rollback(s);
        return st ? -1 : 0;
    }
    st = store_end(s, &err);
    if (st)
        diag("put_turns commit: %s", err.msg);
    return st ? -1 : 0;
}

/* A copy of s's row lengths as a new read gives them (through a second
 * connection, whose lengths are its own); NULL when there are none. */
static int32_t *doclen_fresh(const char *name, int64_t *base, size_t *span)
{
    store *t = NULL;
    ms_error err;
    const int32_t *len = NULL;
    int32_t *copy = NULL;
    if (store_open(tpath(name), STORE_OPEN_READONLY, &t, &err) == MS_OK &&
        store_read_begin(t, &err) == MS_OK) {
        if (store_doclen_get(t, &len, base, span) == 0 && (copy = malloc(*span * sizeof *copy)))
            memcpy(copy, len, *span * sizeof *copy);
        store_end(t, NULL);
    }
    store_close(t);
    return copy;
}

/* store_doclen_grow: the lengths of an earlier generation, the rows past
 * them and the turns before new ones (in both profiles) read, are a new
 * read's; lengths that are wrong where nothing is read again are refused. */
static void test_doclen_grow(void)
{
    store *s = open_new("doclen-grow.db");
    int off = 0;
    ms_error err;
    ms_error_clear(&err);
    int bad = !s || put_turns(s, 0, 200, 0, &off, 1) || store_use_profile(s, "other", &err) ||
              put_turns(s, 0, 10, 0, &off, 1) || store_use_profile(s, STORE_DEFAULT_PROFILE, &err);
    int64_t base0 = 0, base = 0;
    size_t span0 = 0, span = 0;
    int32_t *old = bad ? NULL : doclen_fresh("doclen-grow.db", &base0, &span0);
    /* turns 200-202 go on session s28 (196-199) and other's 10-12 its s1
     * (7-9): the neighbour text of 199 and of other's 9 changes */
    bad = bad || !old || put_turns(s, 200, 30, 0, &off, 1) || store_use_profile(s, "other", &err) ||
          put_turns(s, 10, 3, 0, &off, 1) || store_use_profile(s, STORE_DEFAULT_PROFILE, &err);
    int32_t *want = bad ? NULL : doclen_fresh("doclen-grow.db", &base, &span);
    int32_t *got = NULL;
    int grew =
        !want || store_read_begin(s, &err) ? -1 : store_doclen_grow(s, old, base0, span0, &got);
    size_t changed = 0; /* old rows whose length the appends changed */
    for (size_t i = 0; got && i < span0; i++)
        changed += got[i] != old[i];
    const int32_t *lent = NULL;
    int64_t lb = 0;
    size_t ls = 0;
    ok(grew == 0 && base == base0 && span == span0 + 33 && changed == 2 &&
           memcmp(got, want, span * sizeof *got) == 0 &&
           store_doclen_get(s, &lent, &lb, &ls) == 0 && lent == got,
       "grown from the earlier lengths: a new read's, byte for byte (%zu old rows changed), and "
       "lent to the store",
       changed);
    store_doclen_return(s, got);
    free(got);
    got = NULL;
    if (old)
        old[5] += 1; /* a row nothing reads again */
    ok(old && store_doclen_grow(s, old, base0, span0, &got) == -1 && !got,
       "a wrong length where nothing is read again: refused");
    if (s)
        store_end(s, NULL);
    free(old);
    free(want);
    store_close(s);
}

/* A long write turns FTS5's automatic merging off until its commit, and
 * the index and its settings come out as a write of the usual length
 * leaves them. */
static void test_fts_long(void)
{
    static const char *const same[] = {
        "SELECT k, v FROM memories_fts_config ORDER BY k",
        "SELECT term, col, doc, cnt FROM memories_vocab ORDER BY term, col",
        "SELECT id, sz FROM memories_fts_docsize ORDER BY id",
    };
    store *a = open_new("fts-short.db"), *b = open_new("fts-long.db");
    int off_a = 0, off_b = 0;
    ok(a && b, "two new stores");
    if (!a || !b)
        return;
    b->fts_pending_max = 40; /* a long write after 40 memories */
    ok(put_turns(a, 0, 300, 1, &off_a, 1) == 0 && put_turns(b, 0, 300, 1, &off_b, 1) == 0,
       "300 turns in one transaction each");
    is_int(off_a, 0, "a write below the threshold leaves automerge alone");
    is_int(off_b, 300 - 39, "a long write runs with automerge 0 from its 40th memory on");
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        char *x = conn_dump(a, same[i]), *y = conn_dump(b, same[i]);
        ok(x && y && strlen(x) > 0 && strcmp(x, y) == 0, "the same after the commit: %s", same[i]);
        free(x);
        free(y);
    }
    /* each flush of 40 left the newest turn pending: the next turn rewrites
     * its neighbour text, and taking it out of the index again would have
     * made FTS5 write a segment after every flush (seven here) */
    char *sa = conn_dump(a, "SELECT count(DISTINCT segid) FROM memories_fts_idx");
    char *sb = conn_dump(b, "SELECT count(DISTINCT segid) FROM memories_fts_idx");
    is_str(sb, "1\t\n", "the long write's index is one segment");
    is_str(sa, "1\t\n", "as the short write's is");
    free(sa);
    free(sb);
    char *cfg = conn_dump(b, "SELECT count(*) FROM memories_fts_config WHERE k='automerge'");
    is_str(cfg, "0\t\n", "no automerge setting is left behind (FTS5's default again)");
    free(cfg);
    ok(store_exec(b, "INSERT INTO memories_fts(memories_fts, rank) VALUES('integrity-check', 1)",
                  NULL) == MS_OK,
       "FTS5's integrity check passes");
    /* a setting of the store's own is kept */
    ok(store_exec(b, "INSERT INTO memories_fts(memories_fts, rank) VALUES('automerge', 8)", NULL) ==
           MS_OK,
       "automerge set to 8");
    off_b = 0;
    ok(put_turns(b, 301, 100, 1, &off_b, 1) == 0, "another long write (a new session first)");
    is_int(off_b, 100 - 39, "merging off during it");
    cfg = conn_dump(b, "SELECT v FROM memories_fts_config WHERE k='automerge'");
    is_str(cfg, "8\t\n", "the store's own setting (8) is back after the commit");
    free(cfg);
    /* a long write that rolls back leaves the setting as it was */
    off_b = 0;
    ok(put_turns(b, 406, 100, 1, &off_b, 0) == 0, "a long write rolled back");
    is_int(off_b, 100 - 39, "merging off during it too");
    cfg = conn_dump(b, "SELECT v FROM memories_fts_config WHERE k='automerge'");
    is_str(cfg, "8\t\n", "the setting is 8 after the rollback");
    free(cfg);
    ok(put_turns(b, 406, 20, 0, &off_b, 1) == 0 &&
           store_exec(b,
                      "INSERT INTO memories_fts(memories_fts, rank) VALUES('integrity-check', 1)",
                      NULL) == MS_OK,
       "a short write after it, and the index checks out");
    store_close(a);
    store_close(b);
}

static void test_readonly(void)
{
    store *s = open_new("ro.db");
    put_simple(s, "a", "a memory in a read-only store", NULL, NULL);
    store_close(s);
    size_t n1, n2;
    char *before = slurp(tpath("ro.db"), &n1);
    ms_error err;
    ms_error_clear(&err);
    ok(store_open(tpath("ro.db"), STORE_OPEN_READONLY, &s, &err) == MS_OK, "open read-only");
    ok(s && store_is_readonly(s), "store_is_readonly");
    if (!s)
        return;
    ok(store_begin(s, &err) == MS_READONLY, "store_begin refuses with MS_READONLY");
    ok(strstr(err.msg, "read-only") != NULL, "with a clear message (%s)", err.msg);
    store_memory m;
    store_memory_init(&m);
    m.content = strdup("new");
    ok(store_put(s, &m, STORE_DUP_ERROR, NULL, &err) == MS_READONLY,
       "store_put refuses with MS_READONLY");
    store_memory_clear(&m);
    ok(store_delete(s, "a", &err) == MS_READONLY, "store_delete refuses with MS_READONLY");
    ok(store_set_trust(s, 1, 2, 2, &err) == MS_READONLY, "store_set_trust refuses");
    ok(store_require_writable(s, "write", &err) == MS_READONLY, "require_writable refuses");
    ok(store_read_begin(s, &err) == MS_OK, "a read transaction works");
    store_memory g;
    ok(store_get(s, "a", 0, &g, &err) == MS_OK, "and reads the memory");
    store_memory_clear(&g);
    store_end(s, &err);
    store_close(s);
    char *after = slurp(tpath("ro.db"), &n2);
    ok(before && after && n1 == n2 && memcmp(before, after, n1) == 0,
       "the read-only session left the file unchanged");
    free(before);
    free(after);
}

/* ---- entities and edges ------------------------------------------------ */

static int has_entity(store *s, int64_t rid, const char *name, int *kind)
{
    store_entity *e = NULL;
    size_t n = 0;
    int found = 0;
    if (store_entities_of(s, rid, &e, &n, NULL))
        return -1;
    for (size_t i = 0; i < n; i++)
        if (strcmp(e[i].name, name) == 0) {
            found = 1;
            if (kind)
                *kind = e[i].kind;
        }
    store_entities_free(e, n);
    return found;
}

static int n_entities_of(store *s, int64_t rid)
{
    store_entity *e = NULL;
    size_t n = 0;
    if (store_entities_of(s, rid, &e, &n, NULL))
        return -1;
    store_entities_free(e, n);
    return (int)n;
}

/* Weight of the edge of type between a and b, or -1 when there is none. */
static double edge_weight(store *s, int64_t a, int64_t b, int type)
{
    store_edge *v = NULL;
    size_t n = 0;
    double w = -1;
    if (store_edges_of(s, a, &v, &n, NULL))
        return -2;
    for (size_t i = 0; i < n; i++)
        if (v[i].type == type &&
            ((v[i].src == a && v[i].dst == b) || (v[i].src == b && v[i].dst == a)))
            w = v[i].weight;
    free(v);
    return w;
}

/* A text summary of every edge and link of the current profile. */
struct graph_text {
    char buf[8192];
    size_t len;
};

static int edge_text(void *p, const store_edge *e)
{
    struct graph_text *g = p;
    if (g->len < sizeof g->buf)
        g->len += (size_t)snprintf(g->buf + g->len, sizeof g->buf - g->len, "e%lld-%lld:%d:%g ",
                                   (long long)e->src, (long long)e->dst, e->type, e->weight);
    return 0;
}

static int link_text(void *p, int64_t rid, int64_t eid)
{
    struct graph_text *g = p;
    if (g->len < sizeof g->buf)
        g->len += (size_t)snprintf(g->buf + g->len, sizeof g->buf - g->len, "l%lld-%lld ",
                                   (long long)rid, (long long)eid);
    return 0;
}

static void graph_text(store *s, struct graph_text *g)
{
    g->len = 0;
    g->buf[0] = '\0';
    store_scan_edges(s, edge_text, g, NULL);
    store_scan_links(s, link_text, g, NULL);
}

/* Every edge of the current profile, each once with its largest weight,
 * sorted by key, as text. */
struct edge_set {
    store_edge_list l;
};

static int edge_collect(void *p, const store_edge *e)
{
    struct edge_set *x = p;
    return store_edge_list_add(&x->l, e->src, e->dst, e->type, e->weight) ? 1 : 0;
}

static char *edges_all_text(store *s)
{
    struct edge_set x = {{NULL, 0, 0}};
    ms_error err;
    ms_error_clear(&err);
    if (store_read_begin(s, &err) || store_scan_edges(s, edge_collect, &x, &err)) {
        diag("scanning edges: %s", err.msg);
        store_end(s, NULL);
        free(x.l.v);
        return NULL;
    }
    store_end(s, NULL);
    store_edges_merge(x.l.v, &x.l.n);
    size_t cap = 64 + 48 * x.l.n, len = 0;
    char *t = malloc(cap);
    if (t)
        t[0] = '\0';
    for (size_t k = 0; t && k < x.l.n; k++)
        len += (size_t)snprintf(t + len, cap - len, "%lld-%lld:%d:%g ", (long long)x.l.v[k].src,
                                (long long)x.l.v[k].dst, x.l.v[k].type, x.l.v[k].weight);
    free(x.l.v);
    return t;
}

/* Does every memory's store_edges_of give the edges of the scan that touch
 * it, with the same weights? */
static int edges_agree(store *s, const int64_t *rid, int n, const char *all)
{
    int same = all != NULL;
    for (int i = 0; same && i < n; i++) {
        store_edge *v = NULL;
        size_t nv = 0;
        if (store_edges_of(s, rid[i], &v, &nv, NULL))
            return 0;
        size_t touching = 0;
        char key[96];
        for (const char *p = all; *p; p = strchr(p, ' ') + 1) {
            long long a, b;
            if (sscanf(p, "%lld-%lld", &a, &b) == 2 && (a == rid[i] || b == rid[i]))
                touching++;
        }
        same = touching == nv;
        for (size_t k = 0; same && k < nv; k++) {
            snprintf(key, sizeof key, "%lld-%lld:%d:%g ", (long long)v[k].src, (long long)v[k].dst,
                     v[k].type, v[k].weight);
            same = strstr(all, key) != NULL;
        }
        free(v);
    }
    return same;
}

/* Session and entity edges are worked out from the rows (store/graph.c):
 * each memory's are the whole scan's, a deletion closes its session's gap,
 * and a store that kept them as rows (schema 9) reads the same before and
 * after its upgrade, which keeps only the rows not derived again. */
static void test_derived_edges(void)
{
    store *s = open_new("derived.db");
    static const char *const turns[][3] = {
        {"Caroline", "Caroline: I met Melanie at the Rocky Mountains last summer.", "1"},
        {"Melanie", "Melanie: Thanks! Caroline took the photos.", "1"},
        {"Caroline", "Caroline: The Rocky Mountains were cold; Melanie did not mind.", "1"},
        {"Melanie", "Melanie: Next time, Yosemite.", "1"},
        {"Caroline", "Caroline: Melanie and I planned Yosemite and the Rocky Mountains.", "2"},
        {"Melanie", "Melanie: Caroline, Yosemite opens in May.", "2"},
        {"Caroline", "Caroline: Then May it is.", "2"},
    };
    enum { N = sizeof turns / sizeof turns[0] };
    int64_t r[N];
    int stored = 0;
    for (int i = 0; i < N; i++) {
        char id[16];
        snprintf(id, sizeof id, "T%d", i + 1);
        r[i] = put_simple(s, id, turns[i][1], turns[i][0], turns[i][2]);
        stored += r[i] > 0;
    }
    is_int(stored, N, "seven turns of two sessions stored");
    is_int(raw_int(tpath("derived.db"), "SELECT count(*) FROM edges"), 0,
           "no session or entity edge is written as a row");
    is_int(raw_int(tpath("derived.db"), "SELECT count(*) FROM memory_entities WHERE speaker"), N,
           "each turn's link to its speaker says so");
    /* turn 5 names Melanie, Yosemite and the Rocky Mountains; the two
     * newest before it linked to each: Melanie 4 (her own turn), 3;
     * Yosemite 4; Rocky Mountains 3, 1. So 3 and 4 twice (0.75), 1 once
     * (0.5). */
    is_near(edge_weight(s, r[2], r[4], STORE_EDGE_ENTITY), 0.75, 1e-9,
            "two names give turns 3 and 5 an entity edge of 0.75");
    is_near(edge_weight(s, r[3], r[4], STORE_EDGE_ENTITY), 0.75, 1e-9,
            "Yosemite and Melanie (turn 4 is hers: a speaker's own turn counts as linked) give "
            "turns 4 and 5 one of 0.75");
    is_near(edge_weight(s, r[0], r[4], STORE_EDGE_ENTITY), 0.5, 1e-9,
            "the Rocky Mountains give turns 1 and 5 one of 0.5");
    is_near(edge_weight(s, r[4], r[6], STORE_EDGE_ENTITY), -1, 0,
            "turn 7 names only its speaker: no entity edge");
    is_near(edge_weight(s, r[2], r[5], STORE_EDGE_ENTITY), 0.5, 1e-9,
            "turn 6 names Caroline: her turn 3 is one of the two newest linked to her");
    is_near(edge_weight(s, r[1], r[5], STORE_EDGE_ENTITY), -1, 0,
            "and her mention in turn 2 is older than those two");
    is_near(edge_weight(s, r[3], r[4], STORE_EDGE_SESSION), -1, 0,
            "no session edge across two sessions");
    char *all = edges_all_text(s);
    ok(edges_agree(s, r, N, all), "each memory's edges are those of the whole scan");
    store_counts c;
    ms_error err;
    ms_error_clear(&err);
    size_t n_all = 0;
    for (const char *p = all ? all : ""; *p; p = strchr(p, ' ') + 1)
        n_all++;
    ok(store_count(s, &c, &err) == MS_OK && c.edges == (int64_t)n_all,
       "store_count counts them: %lld", (long long)c.edges);

    /* a kept edge that is derived too counts once, with the larger weight */
    store_begin(s, &err);
    ok(store_add_edge(s, r[3], r[4], STORE_EDGE_ENTITY, 0.9, &err) == MS_OK &&
           store_add_edge(s, r[0], r[6], STORE_EDGE_ENTITY, 0.3, &err) == MS_OK,
       "two entity edges given, one of them derived too");
    store_end(s, &err);
    is_near(edge_weight(s, r[3], r[4], STORE_EDGE_ENTITY), 0.9, 1e-9,
            "the given weight, larger, is the edge's");
    ok(store_count(s, &c, &err) == MS_OK && c.edges == (int64_t)n_all + 1,
       "and the count has one more edge, not two");
    free(all);
    all = edges_all_text(s);
    ok(edges_agree(s, r, N, all), "each memory's edges are still those of the whole scan");

    /* schema 9 kept every edge as a row, and no speaker column */
    store_close(s);
    char *rows = NULL;
    if (all) {
        size_t cap = 128 * (n_all + 1) + 256, len = 0;
        rows = malloc(cap);
        len += (size_t)snprintf(rows, cap,
                                "ALTER TABLE memory_entities DROP COLUMN speaker;"
                                " PRAGMA user_version=9;");
        for (const char *p = all; *p; p = strchr(p, ' ') + 1) {
            long long a, b;
            int type;
            double w;
            if (sscanf(p, "%lld-%lld:%d:%lg", &a, &b, &type, &w) == 4)
                len += (size_t)snprintf(
                    rows + len, cap - len,
                    "INSERT OR REPLACE INTO edges VALUES (%lld, %lld, %d, %.17g);", a, b, type, w);
        }
    }
    is_int(rows ? raw_exec(tpath("derived.db"), rows) : -1, SQLITE_OK,
           "the store made over as schema 9 made it: every edge a row");
    free(rows);
    int64_t kept = raw_int(tpath("derived.db"), "SELECT count(*) FROM edges");
    is_int(kept, (long long)n_all + 1, "%lld rows", (long long)kept);
    s = NULL;
    ok(store_open(tpath("derived.db"), STORE_OPEN_READONLY, &s, &err) == MS_OK,
       "opened read-only as it is");
    char *before = s ? edges_all_text(s) : NULL;
    is_str(before ? before : "", all ? all : "-", "read-only, its rows are its edges, as before");
    free(before);
    store *reader = s; /* kept open while another connection upgrades the file */
    s = NULL;
    ok(store_open(tpath("derived.db"), 0, &s, &err) == MS_OK, "opened to write");
    int64_t lone = put_simple(s, "lone", "a quiet afternoon with nothing planned", NULL, NULL);
    ok(lone > 0, "the first write upgrades it");
    is_int(raw_int(tpath("derived.db"), "PRAGMA user_version"), STORE_SCHEMA_VERSION,
           "to the current schema");
    is_int(raw_int(tpath("derived.db"), "SELECT count(*) FROM memory_entities WHERE speaker"), N,
           "the speakers' links are marked");
    is_int(raw_int(tpath("derived.db"), "SELECT count(*) FROM edges"), 2,
           "only the rows the derivation does not give again are kept");
    is_int(raw_int(tpath("derived.db"),
                   "SELECT count(*) FROM edges WHERE (weight=0.9 AND dst=5) OR weight=0.3"),
           2, "the two given ones");
    char *after = edges_all_text(s);
    is_str(after ? after : "", all ? all : "-", "and its edges read as before");
    free(after);
    after = reader ? edges_all_text(reader) : NULL;
    is_str(after ? after : "", all ? all : "-",
           "also by the connection that had it open as schema 9 (its next read sees the upgrade)");
    free(after);
    store_close(reader);

    /* deleting a turn closes its session's gap */
    store_begin(s, &err);
    ok(store_delete(s, "T6", &err) == MS_OK, "delete turn 6");
    store_end(s, &err);
    is_near(edge_weight(s, r[4], r[6], STORE_EDGE_SESSION), 1.0, 1e-9,
            "turns 5 and 7 are now next to each other");
    is_near(edge_weight(s, r[2], r[5], STORE_EDGE_ENTITY), -1, 0,
            "and turn 6's entity edges are gone");
    free(all);
    all = edges_all_text(s);
    ok(edges_agree(s, r, N, all), "each memory's edges are still those of the whole scan");
    free(all);
    store_close(s);
}

/* Entity ids far apart (a file written by something else may hold any):
 * the walk of every link gives the edges it gives with SQLite's ids. */
static void test_sparse_entity_ids(void)
{
    store *s = open_new("sparse.db");
    static const char *const turns[][2] = {
        {"Ann", "Ann: Bo and I went to Oslo with Cy."},
        {"Bo", "Bo: Oslo was cold, Ann."},
        {"Cy", "Cy: Next year Bergen, Bo?"},
        {"Ann", "Ann: Bergen and Oslo both, with Cy."},
    };
    int64_t r[4];
    for (int i = 0; i < 4; i++) {
        char id[16];
        snprintf(id, sizeof id, "s%d", i);
        r[i] = put_simple(s, id, turns[i][1], turns[i][0], i < 2 ? "a" : "b");
    }
    char *dense = edges_all_text(s);
    ok(dense && strstr(dense, ":2:") != NULL, "entity edges between the turns: %s",
       dense ? dense : "-");
    store_close(s);
    is_int(raw_exec(tpath("sparse.db"),
                    "UPDATE entities SET eid = eid * 1000000000000000000;"
                    "UPDATE memory_entities SET eid = eid * 1000000000000000000"),
           SQLITE_OK, "entity ids made far apart, up to %lld",
           raw_int(tpath("sparse.db"), "SELECT max(eid) FROM entities"));
    ms_error err;
    ms_error_clear(&err);
    s = NULL;
    ok(store_open(tpath("sparse.db"), STORE_OPEN_READONLY, &s, &err) == MS_OK, "opened again");
    char *sparse = s ? edges_all_text(s) : NULL;
    is_str(sparse ? sparse : "", dense ? dense : "-", "the walk gives the same edges");
    ok(s && edges_agree(s, r, 4, sparse), "and so does each memory's own");
    free(dense);
    free(sparse);
    store_close(s);
}

/* Put a memory again with the same fields, policy replace. */
static ms_status replace_same(store *s, const char *id, const char *content, const char *speaker,
                              const char *session)
{
    store_memory m;
    store_memory_init(&m);
    m.id = strdup(id);
    m.content = strdup(content);
    m.speaker = strdup(speaker);
    m.session = strdup(session);
    m.created_at = strdup("2023-05-08T13:56:00Z");
    m.memory_confidence = 0.3; /* not an input of entities or edges */
    ms_error err;
    store_begin(s, &err);
    store_put_result res = STORE_PUT_INSERTED;
    ms_status st = store_put(s, &m, STORE_DUP_REPLACE, &res, &err);
    store_end(s, &err);
    store_memory_clear(&m);
    return st || res != STORE_PUT_REPLACED ? MS_SQL : MS_OK;
}

/* put_event, pinned or not. */
static int64_t put_event_pin(store *s, const char *id, const char *content, const char *session,
                             const char *event_time, int pinned)
{
    store_memory m;
    store_memory_init(&m);
    m.id = strdup(id);
    m.content = strdup(content);
    m.session = strdup(session);
    m.event_time = strdup(event_time);
    m.created_at = strdup(event_time);
    m.pinned = pinned;
    ms_error err;
    store_begin(s, &err);
    ms_status st = store_put(s, &m, STORE_DUP_ERROR, NULL, &err);
    store_end(s, &err);
    int64_t rid = st ? 0 : m.rid;
    store_memory_clear(&m);
    return rid;
}

static int64_t put_event(store *s, const char *id, const char *content, const char *session,
                         const char *event_time)
{
    return put_event_pin(s, id, content, session, event_time, 0);
}

/* Temporal edges against the rule computed here by brute force: each new
 * dated memory joins the two nearest events (then the smaller rid) within a
 * day in other sessions. 240 memories over three days, at whole hours so
 * that distances tie, in five sessions, put in one transaction. */
/* Temporal edges against a brute-force rule, with the memories put in one
 * transaction (appends: sessions from the write cache) or each in its own
 * (sessions read from the rows); session 5 is none. */
static void temporal_nearest(int one_txn)
{
    enum { N = 240 };
    const char *file = one_txn ? "temporal.db" : "temporal-solo.db";
    store *s = open_new(file);
    int64_t rid[N], ts[N];
    int sess[N];
    unsigned seed = 7;
    ms_error err;
    ms_error_clear(&err);
    ms_status st = !s ? MS_USAGE : one_txn ? store_begin(s, &err) : MS_OK;
    for (int i = 0; !st && i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        ts[i] = 1685577600 + (int64_t)((seed >> 8) % 72) * 3600; /* 2023-06-01 + 0..71 h */
        sess[i] = (int)((seed >> 20) % 6);
        char id[16], session[8], when[32], text[32];
        snprintf(id, sizeof id, "t%d", i);
        snprintf(session, sizeof session, "s%d", sess[i]);
        snprintf(text, sizeof text, "note number %d", i);
        store_format_time(ts[i], when, sizeof when);
        store_memory m;
        store_memory_init(&m);
        m.id = id;
        m.content = text;
        m.session = sess[i] == 5 ? NULL : session;
        m.event_time = when;
        m.created_at = when;
        st = store_put(s, &m, STORE_DUP_ERROR, NULL, &err);
        rid[i] = m.rid;
    }
    if (!st && one_txn)
        st = store_end(s, &err);
    ok(st == MS_OK, "%d dated memories, %s (%s)", N,
       one_txn ? "in one transaction" : "each in its own", st ? err.msg : "ok");
    char *want = calloc(N * 2, 64), *got = calloc(N * 2, 64);
    size_t wn = 0, gn = 0;
    long edges = 0;
    for (int i = 0; want && i < N; i++) {
        int best[2] = {-1, -1};
        for (int j = 0; j < i; j++) {
            int64_t d = llabs(ts[j] - ts[i]);
            if ((sess[j] == sess[i] && sess[i] != 5) || d > 86400)
                continue;
            for (int k = 0; k < 2; k++) {
                int64_t bd = best[k] < 0 ? INT64_MAX : llabs(ts[best[k]] - ts[i]);
                if (best[k] < 0 || d < bd || (d == bd && rid[j] < rid[best[k]])) {
                    if (k == 0)
                        best[1] = best[0];
                    best[k] = j;
                    break;
                }
            }
        }
        if (best[1] >= 0 && rid[best[1]] < rid[best[0]]) { /* listed by src */
            int t = best[0];
            best[0] = best[1];
            best[1] = t;
        }
        for (int k = 0; k < 2 && best[k] >= 0; k++) {
            double dt = (double)llabs(ts[best[k]] - ts[i]) / 86400.0;
            wn += (size_t)snprintf(want + wn, 64, "%lld-%lld:%.9f ", (long long)rid[best[k]],
                                   (long long)rid[i], 0.5 - 0.4 * dt);
            edges++;
        }
    }
    store_close(s);
    sqlite3 *db;
    sqlite3_stmt *q;
    if (got && sqlite3_open_v2(tpath(file), &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        char sql[128];
        snprintf(sql, sizeof sql,
                 "SELECT src, dst, weight FROM edges WHERE type=%d ORDER BY dst, src",
                 STORE_EDGE_TEMPORAL);
        if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK) {
            while (sqlite3_step(q) == SQLITE_ROW && gn + 64 < (size_t)N * 128)
                gn += (size_t)snprintf(
                    got + gn, 64, "%lld-%lld:%.9f ", (long long)sqlite3_column_int64(q, 0),
                    (long long)sqlite3_column_int64(q, 1), sqlite3_column_double(q, 2));
            sqlite3_finalize(q);
        }
        sqlite3_close(db);
    }
    ok(edges > N, "the rule gives more than one edge per memory (%ld)", edges);
    ok(want && got && strcmp(want, got) == 0,
       "every temporal edge joins the two nearest events in other sessions");
    if (want && got && strcmp(want, got) != 0)
        diag("want %.300s\n#  got %.300s", want, got);
    free(want);
    free(got);
}

static void test_temporal_nearest(void)
{
    temporal_nearest(1);
    temporal_nearest(0);
}

/* How many entities of graph.db match the SQL condition where. */
static long long graph_entities(const char *where)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM entities WHERE %s", where);
    return raw_int(tpath("graph.db"), sql);
}

static void test_entities_edges(void)
{
    store *s = open_new("graph.db");
    static const char *const turns[5][2] = {
        {"Caroline", "Caroline: I met Melanie at the Rocky Mountains last summer."},
        {"Melanie", "Melanie: Thanks! It was a lovely trip."},
        {"Caroline", "Caroline: My favourite song that week was \"on the road again\"."},
        {"Caroline", "Caroline: I still think about Melanie's photos of the Rocky Mountains."},
        {"Melanie", "Melanie: Same here. They are on my wall now."},
    };
    int64_t r[5];
    for (int i = 0; i < 5; i++) {
        char id[16];
        snprintf(id, sizeof id, "D1:%d", i + 1);
        r[i] = put_simple(s, id, turns[i][1], turns[i][0], "1");
    }
    ok(r[0] && r[1] && r[2] && r[3] && r[4], "five turns of one session stored");
    int kind = 0;
    ok(has_entity(s, r[0], "Caroline", &kind) == 1 && kind == STORE_ENTITY_SPEAKER,
       "turn 1: the speaker Caroline is a speaker entity");
    is_int(has_entity(s, r[0], "Melanie", NULL), 1, "turn 1: Melanie is an entity");
    ok(has_entity(s, r[0], "Rocky Mountains", &kind) == 1 && kind == STORE_ENTITY_NAME,
       "turn 1: the multi-word name Rocky Mountains is an entity");
    is_int(n_entities_of(s, r[0]), 3, "turn 1 has exactly 3 entities");
    is_int(has_entity(s, r[1], "Thanks", NULL), 0,
           "turn 2: a sentence-initial Thanks is not an entity");
    is_int(n_entities_of(s, r[1]), 1, "turn 2 has only its speaker");
    ok(has_entity(s, r[2], "on the road again", &kind) == 1 && kind == STORE_ENTITY_QUOTED,
       "turn 3: a quoted phrase is an entity");
    is_int(has_entity(s, r[2], "My", NULL), 0, "turn 3: 'My' is not an entity");
    is_int(has_entity(s, r[3], "Rocky Mountains", NULL), 1,
           "turn 4: Rocky Mountains links the same entity");
    ok(has_entity(s, r[3], "Melanie", &kind) == 1 && kind != STORE_ENTITY_SPEAKER,
       "turn 4 (Caroline's): the possessive Melanie's links Melanie");
    is_int(has_entity(s, r[3], "Melanie's", NULL), 0, "turn 4: no \"Melanie's\" entity");
    is_int(n_entities_of(s, r[3]), 3, "turn 4 has exactly 3 entities");
    is_int(has_entity(s, r[4], "Same", NULL), 0, "turn 5: sentence-initial Same is not one");
    is_int(n_entities_of(s, r[4]), 1, "turn 5 has only its speaker");

    /* Every entity of the profile exists once, possessive folded in. */
    store_entity *all = NULL;
    size_t nall = 0;
    store_entities_all(s, &all, &nall, NULL);
    int melanies = 0;
    int64_t melanie_docs = 0;
    for (size_t i = 0; i < nall; i++)
        if (strcmp(all[i].norm, "melanie") == 0 || strcmp(all[i].norm, "melanie's") == 0) {
            melanies++;
            melanie_docs = all[i].docs;
        }
    is_int(melanies, 1, "one Melanie entity in the profile");
    is_int(melanie_docs, 4, "linked to turns 1, 2, 4 and 5");
    store_entities_free(all, nall);
    is_int(nall, 4, "4 entities: Caroline, Melanie, Rocky Mountains and the quote");

    /* Session adjacency. */
    is_near(edge_weight(s, r[0], r[1], STORE_EDGE_SESSION), 1.0, 1e-9, "session edge +-1: 1.0");
    is_near(edge_weight(s, r[1], r[2], STORE_EDGE_SESSION), 1.0, 1e-9, "session edge 2-3: 1.0");
    is_near(edge_weight(s, r[3], r[4], STORE_EDGE_SESSION), 1.0, 1e-9, "session edge 4-5: 1.0");
    is_near(edge_weight(s, r[0], r[2], STORE_EDGE_SESSION), 0.5, 1e-9, "session edge +-2: 0.5");
    is_near(edge_weight(s, r[2], r[4], STORE_EDGE_SESSION), 0.5, 1e-9, "session edge 3-5: 0.5");
    is_near(edge_weight(s, r[0], r[3], STORE_EDGE_SESSION), -1, 0, "no session edge at distance 3");
    is_near(edge_weight(s, r[0], r[4], STORE_EDGE_SESSION), -1, 0, "no session edge at distance 4");

    /* Entity edges: turns 1 and 4 share Rocky Mountains. */
    ok(edge_weight(s, r[0], r[3], STORE_EDGE_ENTITY) > 0,
       "an entity edge joins the turns sharing Rocky Mountains and Melanie");
    ok(edge_weight(s, r[1], r[3], STORE_EDGE_ENTITY) > 0,
       "an entity edge joins turn 4 (mentions Melanie) to Melanie's turn 2");
    is_near(edge_weight(s, r[1], r[2], STORE_EDGE_ENTITY), -1, 0,
            "no entity edge between turns sharing nothing but being in one session");
    is_near(edge_weight(s, r[2], r[3], STORE_EDGE_ENTITY), -1, 0,
            "no entity edge between turns sharing only their speaker");

    /* Edges are stored once with src < dst. */
    store_edge *v = NULL;
    size_t nv = 0;
    store_edges_of(s, r[2], &v, &nv, NULL);
    int ordered = nv > 0;
    for (size_t i = 0; i < nv; i++)
        ordered &= v[i].src < v[i].dst && (v[i].src == r[2] || v[i].dst == r[2]);
    ok(ordered, "edges_of returns edges touching the memory with src < dst");
    free(v);

    /* Replacing a turn with the same text changes neither links nor edges,
     * though later turns linked to it. */
    struct graph_text g0, g1;
    graph_text(s, &g0);
    ok(replace_same(s, "D1:1", turns[0][1], turns[0][0], "1") == MS_OK,
       "replace turn 1 with the same text and another confidence");
    graph_text(s, &g1);
    ok(g0.len > 0 && strcmp(g0.buf, g1.buf) == 0,
       "replacing a memory with the same text keeps its links and edges");
    if (strcmp(g0.buf, g1.buf) != 0)
        diag("before: %s\nafter:  %s", g0.buf, g1.buf);
    store_memory gm;
    store_get(s, "D1:1", 0, &gm, NULL);
    is_near(gm.memory_confidence, 0.3, 1e-12, "and the new confidence is stored");
    store_memory_clear(&gm);
    store_memory_init(&gm);
    gm.id = strdup("D1:1");
    gm.content = strdup(turns[0][1]);
    gm.speaker = strdup(turns[0][0]);
    gm.session = strdup("1");
    gm.entities = calloc(1, sizeof *gm.entities);
    gm.entities[0] = strdup("Summer Trip");
    gm.n_entities = 1;
    store_begin(s, NULL);
    ok(store_put(s, &gm, STORE_DUP_REPLACE, NULL, NULL) == MS_OK,
       "replace turn 1 with the same text and a given entity");
    store_end(s, NULL);
    store_memory_clear(&gm);
    ok(has_entity(s, r[0], "Summer Trip", &kind) == 1 && kind == STORE_ENTITY_GIVEN,
       "the new given entity is linked");
    ok(replace_same(s, "D1:3", "Caroline: My favourite song was \"the long way round\".",
                    "Caroline", "1") == MS_OK,
       "replace turn 3 with new text");
    is_int(has_entity(s, r[2], "the long way round", NULL), 1, "its new quoted phrase is linked");
    is_int(has_entity(s, r[2], "on the road again", NULL), 0, "its old one is not");
    is_int(graph_entities("lower(name) LIKE '%road again%'"), 0,
           "and the old one, linked by nothing now, is gone from the entity table");
    is_int(graph_entities("lower(name) LIKE '%long way round%'"), 1, "the new one is in it");
    is_near(edge_weight(s, r[1], r[2], STORE_EDGE_SESSION), 1.0, 1e-9,
            "its session edges stay (same session)");

    /* Temporal edges across sessions. */
    int64_t a = put_event(s, "t1", "The dentist appointment", "s-a", "2023-06-01T10:00:00Z");
    int64_t b = put_event(s, "t2", "Picked up new glasses", "s-b", "2023-06-01T20:00:00Z");
    int64_t c = put_event(s, "t3", "Went to the market", "s-c", "2023-06-03T10:00:00Z");
    int64_t d = put_event(s, "t4", "Bought flowers", "s-a", "2023-06-01T12:00:00Z");
    ok(a && b && c && d, "four dated memories stored");
    double w = edge_weight(s, a, b, STORE_EDGE_TEMPORAL);
    ok(w > 0 && w <= 0.5, "a temporal edge joins events 10 h apart in two sessions (%g)", w);
    is_near(w, 0.5 - 0.4 * 10.0 / 24.0, 1e-9, "its weight falls with the time between");
    is_near(edge_weight(s, a, c, STORE_EDGE_TEMPORAL), -1, 0,
            "no temporal edge between events two days apart");
    is_near(edge_weight(s, a, d, STORE_EDGE_TEMPORAL), -1, 0,
            "no temporal edge inside one session");
    ok(edge_weight(s, b, d, STORE_EDGE_TEMPORAL) > 0, "a temporal edge joins t2 and t4");

    /* Delete cascades. */
    ms_error err;
    ms_error_clear(&err);
    store_begin(s, &err);
    ok(store_set_embedder(s, "test-embedder", 2, &err) == MS_OK, "record a 2-d embedder");
    float vec[2] = {0.6f, 0.8f};
    ok(store_put_vector(s, r[3], vec, 2, &err) == MS_OK, "store a vector for turn 4");
    ok(store_add_feedback(s, r[3], "mountains", NULL, 1, 0, &err) == MS_OK,
       "record feedback on turn 4");
    store_end(s, &err);
    store_counts c0, c1;
    store_count(s, &c0, &err);
    is_int(c0.vectors, 1, "one vector");
    store_begin(s, &err);
    ok(store_delete(s, "D1:4", &err) == MS_OK, "delete turn 4");
    store_end(s, &err);
    store_count(s, &c1, &err);
    is_int(c1.memories, c0.memories - 1, "one memory fewer");
    is_int(c1.vectors, 0, "its vector is gone");
    is_int(c1.links, c0.links - 3, "its three entity links are gone");
    store_edges_of(s, r[3], &v, &nv, NULL);
    is_int(nv, 0, "no edge touches it any more");
    free(v);
    is_int(raw_int(tpath("graph.db"), "SELECT count(*) FROM edges WHERE src NOT IN"
                                      " (SELECT rid FROM memories) OR dst NOT IN"
                                      " (SELECT rid FROM memories)"),
           0, "no dangling edges in the file");
    is_int(raw_int(tpath("graph.db"), "SELECT count(*) FROM memory_entities WHERE rid NOT IN"
                                      " (SELECT rid FROM memories)"),
           0, "no dangling links in the file");
    is_int(raw_int(tpath("graph.db"), "SELECT count(*) FROM feedback"), 0, "its feedback is gone");
    is_int(raw_int(tpath("graph.db"), "SELECT count(*) FROM vectors WHERE rid NOT IN"
                                      " (SELECT rid FROM memories)"),
           0, "no dangling vectors in the file");
    is_int(graph_entities("name IN ('Caroline', 'Melanie', 'Rocky Mountains')"), 3,
           "the names it shared with other memories stay");
    int64_t z = put_simple(s, "zeb", "Caroline: Zebulon Quark called about the Rocky Mountains.",
                           "Caroline", "2");
    ok(z && graph_entities("name LIKE 'Zebulon%'") == 1, "a memory naming Zebulon Quark adds him");
    store_begin(s, &err);
    ok(store_delete(s, "zeb", &err) == MS_OK, "delete it");
    store_end(s, &err);
    is_int(graph_entities("name LIKE 'Zebulon%'"), 0,
           "the name only it had is gone from the entity table");
    is_int(graph_entities("name IN ('Caroline', 'Rocky Mountains')"), 2,
           "names other memories have stay");
    is_int(graph_entities("NOT EXISTS (SELECT 1 FROM memory_entities l"
                          " WHERE l.eid = entities.eid)"),
           0, "no entity is left that nothing links");
    /* the store deletes what ON DELETE CASCADE names itself (foreign keys
     * are not enforced on its connections): SQLite finds nothing amiss */
    is_int(raw_int(tpath("graph.db"), "SELECT count(*) FROM pragma_foreign_key_check"), 0,
           "PRAGMA foreign_key_check: no row names a missing parent");
    /* nor does it write a row for a memory that is gone */
    store_begin(s, &err);
    ms_error_clear(&err);
    ok(store_add_feedback(s, r[3], "mountains", NULL, 1, 0, &err) == MS_NOT_FOUND &&
           strstr(err.msg, "not in profile"),
       "feedback on a deleted memory is refused (%s)", err.msg);
    ms_error_clear(&err);
    ok(store_put_vector(s, r[3], vec, 2, &err) == MS_NOT_FOUND, "so is a vector for it (%s)",
       err.msg);
    store_end(s, &err);
    is_int(raw_int(tpath("graph.db"), "SELECT count(*) FROM pragma_foreign_key_check"), 0,
           "and foreign_key_check still finds nothing");
    is_int(fts_count(s, "\"still think\"", 0), 0, "its text is gone from the FTS index");
    store_close(s);
}

/* A sentence's capitalised first word before a known name is not part of
 * the name (entity.c, name_start): "Asked Róisín" names Róisín. */
static void test_sentence_first_word(void)
{
    store *s = open_new("first.db");
    int64_t r[6];
    r[0] = put_simple(s, "n1", "Leah: My sister Róisín lives in Leeds.", "Leah", "1");
    r[1] = put_simple(s, "n2", "Leah: Asked Róisín about the promotion: she got it!", "Leah", "1");
    r[2] = put_simple(s, "n3", "Leah: Asked Róisín Brennan about it.", "Leah", "1");
    r[3] = put_simple(s, "n4", "Leah: Caroline Smith called about the flat.", "Leah", "1");
    r[4] = put_simple(s, "n5", "Leah: Visited Caroline Smith in Leeds.", "Leah", "1");
    r[5] = put_simple(s, "n6", "Leah: Caroline Smith called again.", "Leah", "1");
    ok(r[0] && r[1] && r[2] && r[3] && r[4] && r[5], "six memories stored");
    is_int(has_entity(s, r[0], "Róisín", NULL), 1, "mid-sentence Róisín is a name");
    is_int(has_entity(s, r[1], "Asked Róisín", NULL), 0,
           "a sentence-initial Asked before the known Róisín is not part of the name");
    is_int(has_entity(s, r[1], "Róisín", NULL), 1, "the memory links Róisín");
    is_int(n_entities_of(s, r[1]), 2, "and only Róisín and the speaker");
    is_int(has_entity(s, r[2], "Róisín Brennan", NULL), 1,
           "Asked before a name whose first word is known: the name is Róisín Brennan");
    is_int(has_entity(s, r[3], "Caroline Smith", NULL), 1,
           "a sentence-initial name nothing is known of stays whole (Caroline Smith)");
    is_int(has_entity(s, r[4], "Caroline Smith", NULL), 1,
           "Visited before the known Caroline Smith: the name is Caroline Smith");
    is_int(has_entity(s, r[4], "Visited Caroline Smith", NULL), 0, "not Visited Caroline Smith");
    is_int(has_entity(s, r[5], "Caroline Smith", NULL), 1,
           "a known name at a sentence's start keeps its first word");
    store_close(s);
}

/* Puts outside a transaction, from two connections taking turns: what one
 * remembered between its puts (wcache.c) must not hide the other's. */
/* store_add_edge: a relation edge between two memories, keeping the larger
 * weight when added again (a re-import changes nothing), refused for an
 * unknown type or weight; named "relation". */
static void test_add_edge(void)
{
    store *s = open_new("relation.db");
    int64_t a = put_simple(s, "a", "the boiler is serviced every autumn", NULL, NULL);
    int64_t b = put_simple(s, "b", "gas safety certificate renewed", NULL, NULL);
    ms_error err;
    ms_error_clear(&err);
    ms_status st = store_begin(s, &err);
    if (!st)
        st = store_add_edge(s, b, a, STORE_EDGE_RELATION, 0.5, &err);
    if (!st)
        st = store_add_edge(s, a, b, STORE_EDGE_RELATION, 0.5, &err);
    if (!st)
        st = store_add_edge(s, a, b, STORE_EDGE_RELATION, 0.25, &err);
    if (!st)
        st = store_add_edge(s, a, a, STORE_EDGE_RELATION, 1.0, &err);
    ok(st == MS_OK, "relation edges added (%s)", err.msg);
    ok(store_add_edge(s, a, b, STORE_EDGE_TYPES, 0.5, &err) == MS_USAGE &&
           strstr(err.msg, "known type"),
       "an unknown edge type is refused: %s", err.msg);
    ok(store_add_edge(s, a, b, STORE_EDGE_RELATION, NAN, &err) == MS_USAGE &&
           strstr(err.msg, "finite weight"),
       "a weight that is not a number is refused: %s", err.msg);
    ok(store_end(s, &err) == MS_OK, "committed");
    is_near(edge_weight(s, a, b, STORE_EDGE_RELATION), 0.5, 1e-9,
            "one undirected relation edge; adding it again keeps the larger weight");
    is_near(edge_weight(s, a, a, STORE_EDGE_RELATION), -1, 0, "no edge from a memory to itself");
    is_str(store_edge_type_name(STORE_EDGE_RELATION), "relation", "the type is named relation");
    store_close(s);
}

/* Put one memory with an event time in its own transaction. */
static int64_t put_at(store *s, const char *id, const char *content, const char *event_time)
{
    store_memory m;
    store_memory_init(&m);
    m.id = strdup(id);
    m.content = strdup(content);
    m.created_at = strdup("2026-03-10T09:00:00Z");
    m.event_time = event_time ? strdup(event_time) : NULL;
    ms_error err;
    ms_error_clear(&err);
    ms_status st = store_begin(s, &err);
    if (!st)
        st = store_put(s, &m, STORE_DUP_ERROR, NULL, &err);
    if (!st)
        st = store_end(s, &err);
    else
        store_rollback(s);
    if (st)
        diag("put %s: %s", id, err.msg);
    int64_t rid = st ? 0 : m.rid;
    store_memory_clear(&m);
    return rid;
}

/* "by|at|reason" of memory id's supersession ("-" for each NULL). */
static void supersession_of(store *s, const char *id, char *buf, size_t cap)
{
    store_memory m;
    store_memory_init(&m);
    if (store_get(s, id, 0, &m, NULL) != MS_OK) {
        snprintf(buf, cap, "(missing)");
        return;
    }
    snprintf(buf, cap, "%s|%s|%s", m.superseded_by ? m.superseded_by : "-",
             m.superseded_at ? m.superseded_at : "-",
             m.superseded_reason ? m.superseded_reason : "-");
    store_memory_clear(&m);
}

/* The relations of rid as "kind>other:reason" (outgoing) or "kind<other",
 * joined by spaces. */
static void relations_text(store *s, int64_t rid, char *buf, size_t cap)
{
    store_relation *v = NULL;
    size_t n = 0;
    buf[0] = '\0';
    if (store_relations_of(s, rid, &v, &n, NULL) != MS_OK) {
        snprintf(buf, cap, "(error)");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(buf);
        snprintf(buf + len, cap - len, "%s%s%c%s:%s", i ? " " : "", store_rel_kind_name(v[i].kind),
                 v[i].outgoing ? '>' : '<', v[i].other_id, v[i].reason ? v[i].reason : "-");
    }
    store_relations_free(v, n);
}

static int count_relation(void *ctx, int64_t src, int64_t dst, int kind, const char *reason)
{
    (void)src, (void)dst, (void)kind, (void)reason;
    ++*(int *)ctx;
    return 0;
}

static int n_relations(store *s)
{
    int n = 0;
    if (store_scan_relations(s, count_relation, &n, NULL) != MS_OK)
        return -1;
    return n;
}

/* The relations an import's superseded_by fields imply are found through
 * the partial index of the memories that have one (schema 9), not a scan
 * of every memory; an older memory naming one imported later still gets
 * its relation. */
/* The steps of sql's query plan on s, "; " after each, into plan[512]. */
static void plan_of(store *s, const char *sql, char plan[512])
{
    char q[1024];
    snprintf(q, sizeof q, "EXPLAIN QUERY PLAN %s", sql);
    plan[0] = '\0';
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, q, -1, &st, NULL) != SQLITE_OK)
        return;
    while (sqlite3_step(st) == SQLITE_ROW && strlen(plan) < 400) {
        strncat(plan, (const char *)sqlite3_column_text(st, 3), 400 - strlen(plan));
        strcat(plan, "; ");
    }
    sqlite3_finalize(st);
}

static void test_relation_sync(void)
{
    store *s = open_new("relsync.db");
    char plan[512];
    plan_of(s, STORE_REL_SYNC_SQL, plan);
    ok(strstr(plan, "SCAN o USING INDEX memories_superseded") != NULL,
       "the sync reads only the memories that name a successor (%s)", plan);
    store_memory m;
    store_memory_init(&m);
    m.id = strdup("old");
    m.content = strdup("The office is on Mill Street.");
    m.superseded_by = strdup("new"); /* not in the store yet */
    ms_error err;
    ms_error_clear(&err);
    ok(store_put(s, &m, STORE_DUP_ERROR, NULL, &err) == MS_OK, "old names new (%s)", err.msg);
    store_memory_clear(&m);
    int64_t new_rid = put_at(s, "new", "The office moved to Quay Road.", NULL);
    uint64_t found = 0;
    ok(new_rid && store_begin(s, &err) == MS_OK &&
           store_detect_supersession(s, new_rid - 1, &found, &err) == MS_OK &&
           store_end(s, &err) == MS_OK,
       "an import's sync (%s)", err.msg);
    char buf[256];
    relations_text(s, new_rid, buf, sizeof buf);
    is_str(buf, "supersedes>old:-", "adds the relation the older memory's field names");
    store_close(s);
}

/* The detector's word boundary (supersede.c word_byte). */
static int cue_word_byte(unsigned char c)
{
    return isalnum(c) || c >= 0x80 || c == '\'' || c == '&' || c == '-';
}

/* Does text hold a cue: every cue at every place of its lower-case copy. */
static int holds_cue_slowly(const char *text)
{
    size_t len = strlen(text);
    char *lower = malloc(len + 1);
    for (size_t i = 0; i <= len; i++)
        lower[i] = (char)tolower((unsigned char)text[i]);
    int yes = 0;
    for (size_t k = 0; !yes && store_cue_text(k); k++) {
        const char *w = store_cue_text(k);
        size_t n = strlen(w);
        for (size_t p = 0; !yes && p + n <= len; p++)
            yes = memcmp(lower + p, w, n) == 0 &&
                  (p == 0 || !cue_word_byte((unsigned char)lower[p - 1])) &&
                  (p + n == len || !cue_word_byte((unsigned char)lower[p + n]));
    }
    free(lower);
    return yes;
}

/* A random text of 1-8 of the bits, most of them followed by a space
 * (text holds 256 bytes; *x is the generator's state). */
static void random_text(char *text, const char *const *bits, size_t n_bits, unsigned *x)
{
    text[0] = '\0';
    int words = 1 + (int)((*x = *x * 1103515245u + 12345u) >> 16) % 8;
    for (int w = 0; w < words; w++) {
        *x = *x * 1103515245u + 12345u;
        strcat(text, bits[(*x >> 16) % n_bits]);
        *x = *x * 1103515245u + 12345u;
        if ((*x >> 16) % 3)
            strcat(text, " ");
    }
}

/* store_holds_cue, one pass over the text, answers as a search for every
 * cue at every place does: random texts of cue words, parts of them,
 * capitals, joining bytes and UTF-8. */
static void test_holds_cue(void)
{
    static const char *const bits[] = {
        "works",    "at",          "Works At", "WORKS",   "lives",     "in",       "is my",
        "manager",  "my boss is",  "go-live",  "is",      "in charge", "of",       "taken over",
        "moved",    "to",          "re",       "xworks",  "-",         "'",        "&",
        " ",        " ",           "  ",       ".",       "3",         "\xc3\xa9", "Ana",
        "allergic", "new address", "job",      "reports", "to-do"};
    unsigned x = 12345;
    int yes = 0, agree = 0;
    const int n = 20000;
    for (int t = 0; t < n; t++) {
        char text[256];
        random_text(text, bits, sizeof bits / sizeof *bits, &x);
        int want = holds_cue_slowly(text);
        yes += want;
        agree += store_holds_cue(text) == want;
        if (store_holds_cue(text) != want)
            diag("differs on '%s' (want %d)", text, want);
    }
    is_int(agree, n, "store_holds_cue agrees with a search for every cue on %d texts", n);
    int each = 0, k = 0;
    for (; store_cue_text(k); k++) {
        char text[96];
        snprintf(text, sizeof text, "So %s", store_cue_text(k));
        text[3] = (char)toupper((unsigned char)text[3]);
        each += store_holds_cue(text) && store_holds_cue(store_cue_text(k));
    }
    ok(k > 30 && each == k, "each of the %d cues is found, also capitalised (%d)", k, each);
    ok(yes > n / 10 && yes < n - n / 10, "of which some hold a cue and some not (%d)", yes);
}

/* Does the lower-case text hold a title head at word boundaries: every
 * head at every place. */
static int holds_head_slowly(const char *lower)
{
    size_t len = strlen(lower);
    int yes = 0;
    for (size_t k = 0; !yes && store_title_head_text(k); k++) {
        const char *w = store_title_head_text(k);
        size_t n = strlen(w);
        for (size_t p = 0; !yes && p + n <= len; p++)
            yes = memcmp(lower + p, w, n) == 0 &&
                  (p == 0 || !cue_word_byte((unsigned char)lower[p - 1])) &&
                  (p + n == len || !cue_word_byte((unsigned char)lower[p + n]));
    }
    return yes;
}

/* store_holds_title_head, one pass over the words, answers as a search
 * for every head at every place does: random lower-case texts of heads,
 * parts and extensions of them, joining bytes and UTF-8. */
static void test_holds_title_head(void)
{
    static const char *const bits[] = {
        "engineer", "engineers", "manager",   "lead",    "leader",   "nurse", "tutor",
        "co-lead",  "chef's",    "x",         "analyst", "-",        "'",     "&",
        " ",        " ",         ".",         "3",       "\xc3\xa9", "my",    "is",
        "senior",   "data",      "scientist", "ceo",     "in",       "chief", "intern"};
    unsigned x = 54321;
    int yes = 0, agree = 0;
    const int n = 20000;
    for (int t = 0; t < n; t++) {
        char text[256];
        random_text(text, bits, sizeof bits / sizeof *bits, &x);
        int want = holds_head_slowly(text);
        yes += want;
        agree += store_holds_title_head(text) == want;
        if (store_holds_title_head(text) != want)
            diag("differs on '%s' (want %d)", text, want);
    }
    is_int(agree, n, "store_holds_title_head agrees with a search for every head on %d texts", n);
    int each = 0, k = 0;
    for (; store_title_head_text(k); k++) {
        char text[96];
        snprintf(text, sizeof text, "she is a %s, now", store_title_head_text(k));
        each += store_holds_title_head(text) && store_holds_title_head(store_title_head_text(k));
    }
    ok(k > 40 && each == k, "each of the %d heads is found (%d)", k, each);
    ok(yes > n / 10 && yes < n - n / 10, "of which some hold a head and some not (%d)", yes);
}

/* store_profiles as "name=count name=count ..." (NULL on failure). */
static char *profiles_line(store *s)
{
    static char line[1024];
    store_profile_info *p = NULL;
    size_t np = 0;
    ms_error err;
    ms_error_clear(&err);
    if (store_profiles(s, &p, &np, &err) != MS_OK) {
        diag("store_profiles: %s", err.msg);
        return NULL;
    }
    line[0] = '\0';
    for (size_t i = 0; i < np; i++) {
        size_t used = strlen(line);
        snprintf(line + used, sizeof line - used, "%s%s=%lld", i ? " " : "", p[i].name,
                 (long long)p[i].memories);
    }
    store_profiles_free(p, np);
    return line;
}

/* Put n memories "<profile>-<k>" into profile, then go back to default. */
static void put_in(store *s, const char *profile, int n)
{
    ms_error err;
    ms_error_clear(&err);
    store_use_profile(s, profile, &err);
    for (int k = 0; k < n; k++) {
        char id[64], text[96];
        snprintf(id, sizeof id, "%s-%d", profile, k);
        snprintf(text, sizeof text, "memory %d of profile %s", k, profile);
        put_simple(s, id, text, NULL, NULL);
    }
    store_use_profile(s, "default", &err);
}

/* Delete memory id of profile, then go back to default. */
static int delete_in(store *s, const char *profile, const char *id)
{
    ms_error err;
    ms_error_clear(&err);
    store_use_profile(s, profile, &err);
    ms_status st = store_begin(s, &err);
    if (!st)
        st = store_delete(s, id, &err);
    if (!st)
        st = store_end(s, &err);
    else
        store_rollback(s);
    store_use_profile(s, "default", &err);
    return st == MS_OK;
}

/* Is any statement of the store's connection still stepping (holding its
 * read snapshot open)? */
static int stmt_busy(store *s)
{
    for (sqlite3_stmt *st = sqlite3_next_stmt(s->db, NULL); st; st = sqlite3_next_stmt(s->db, st))
        if (sqlite3_stmt_busy(st))
            return 1;
    return 0;
}

/* A write by another connection when the store's connection starts its
 * first count of one profile (a trace callback): store_profiles' total and
 * counts must still read one snapshot. */
struct snap_write {
    const char *path;
    int done, rc;
};

static int write_at_count(unsigned type, void *ctx, void *stmt, void *x)
{
    struct snap_write *w = ctx;
    (void)x;
    const char *sql = type == SQLITE_TRACE_STMT ? sqlite3_sql(stmt) : NULL;
    if (!w->done && sql && strstr(sql, "count(*) FROM memories WHERE profile")) {
        w->done = 1;
        w->rc = raw_exec(w->path, "INSERT INTO memories(profile, id, content, ptag, created_at,"
                                  " created_ts) VALUES ('b', 'b-raw', 'x', 'p62',"
                                  " '2023-05-08T13:56:00Z', 1683554160)");
    }
    return 0;
}

/* store_profiles finds the profiles by a skip-scan (one index seek each),
 * counts each over its index entries but the widest (rid span), which gets
 * the rest of the total: every count exact, whichever profile is left out. */
static void test_profile_counts(void)
{
    store *s = open_new("profcounts.db");
    ms_error err;
    ms_error_clear(&err);
    is_str(profiles_line(s), "default=0", "an empty store: the current profile with 0");
    store_use_profile(s, "zeta", &err);
    is_str(profiles_line(s), "zeta=0", "an empty store: another current profile with 0");
    store_use_profile(s, "default", &err);

    put_in(s, "default", 3);
    is_str(profiles_line(s), "default=3", "one profile: the total");
    store_use_profile(s, "work", &err);
    is_str(profiles_line(s), "default=3 work=0",
           "one profile, the current one absent: added with 0");
    store_use_profile(s, "default", &err);

    /* "0first" sorts before every other name, "\u00fcber" (UTF-8 c3 bc)
     * after every ASCII one and "\u65e5\u672c" (e6 97 a5 ...) last */
    put_in(s, "0first", 2);
    put_in(s, "mid", 1);
    put_in(s, "\303\274ber", 4);
    put_in(s, "\xe6\x97\xa5\xe6\x9c\xac", 6);
    is_str(profiles_line(s), "0first=2 default=3 mid=1 \303\274ber=4 \xe6\x97\xa5\xe6\x9c\xac=6",
           "five profiles of different sizes, each its own count, by name (bytes)");
    ok(!s->in_txn && !stmt_busy(s), "and no transaction or statement is left open");
    store_use_profile(s, "absent", &err);
    is_str(profiles_line(s),
           "0first=2 default=3 mid=1 \303\274ber=4 \xe6\x97\xa5\xe6\x9c\xac=6 absent=0",
           "the current profile absent: listed last with 0");
    store_use_profile(s, "default", &err);

    ok(delete_in(s, "\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac-0") &&
           delete_in(s, "\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac-5") &&
           delete_in(s, "0first", "0first-1") && delete_in(s, "default", "default-2"),
       "delete two of the last profile's memories, one of the first's, one of default's");
    is_str(profiles_line(s), "0first=1 default=2 mid=1 \303\274ber=4 \xe6\x97\xa5\xe6\x9c\xac=4",
           "after the deletes: each count down by what it lost");
    ok(delete_in(s, "mid", "mid-0"), "delete the only memory of mid");
    is_str(profiles_line(s), "0first=1 default=2 \303\274ber=4 \xe6\x97\xa5\xe6\x9c\xac=4",
           "a profile left empty is no longer listed");
    for (int k = 1; k < 5; k++) {
        char id[32];
        snprintf(id, sizeof id, "\xe6\x97\xa5\xe6\x9c\xac-%d", k);
        delete_in(s, "\xe6\x97\xa5\xe6\x9c\xac", id);
    }
    is_str(profiles_line(s), "0first=1 default=2 \303\274ber=4",
           "the last profile emptied: the one before it is now the last");

    /* inside a write transaction (an import's counts before and after): it
     * reads the transaction's own rows and leaves the transaction open */
    store_begin(s, &err);
    store_memory m;
    store_memory_init(&m);
    m.id = strdup("d-txn");
    m.content = strdup("written in the open transaction");
    m.created_at = strdup("2023-05-08T13:56:00Z");
    store_put(s, &m, STORE_DUP_ERROR, NULL, &err);
    store_memory_clear(&m);
    is_str(profiles_line(s), "0first=1 default=3 \303\274ber=4",
           "inside a write transaction: its own new memory is counted");
    ok(s->in_txn, "and the transaction stays open");
    store_rollback(s);
    is_str(profiles_line(s), "0first=1 default=2 \303\274ber=4", "rolled back: as before");

    /* Each seek for the next profile is one step into the index, not a
     * walk over the previous profile's entries. */
    put_in(s, "many", 150);
    char plan[512];
    sqlite3_stmt *st = store_stmt(s, ST_PROFILE_AFTER, &err);
    plan_of(s, st ? sqlite3_sql(st) : "", plan);
    ok(strstr(plan, "SEARCH memories USING COVERING INDEX") && strstr(plan, "(profile>?)"),
       "the next profile: a search of an index that leads with profile (%s)", plan);
    int steps = -1;
    if (st) {
        sqlite3_bind_text(st, 1, "default", -1, SQLITE_STATIC);
        sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 1);
        int rc = sqlite3_step(st);
        ok(rc == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(st, 0), "many") == 0,
           "the profile after default is many");
        steps = sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 0);
        sqlite3_reset(st);
    }
    ok(steps > 0 && steps < 40, "found in one seek: %d steps of the VM, for 150 memories in many",
       steps);
    st = store_stmt(s, ST_PROFILE_FIRST, &err);
    plan_of(s, st ? sqlite3_sql(st) : "", plan);
    ok(strstr(plan, "SEARCH memories USING COVERING INDEX") != NULL,
       "the first profile: a search too (%s)", plan);
    st = store_stmt(s, ST_PROFILE_SIZE, &err);
    plan_of(s, st ? sqlite3_sql(st) : "", plan);
    ok(strstr(plan, "SEARCH memories USING COVERING INDEX") && strstr(plan, "(profile=?)"),
       "a profile's count: its own range of an index (%s)", plan);
    st = store_stmt(s, ST_PROFILE_SPAN, &err);
    plan_of(s, st ? sqlite3_sql(st) : "", plan);
    ok(strstr(plan, "SCAN memories") == NULL && strstr(plan, "(profile=?)"),
       "a profile's rid span: a search at each end of its range (%s)", plan);
    if (st) {
        sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 1);
        st = store_stmt(s, ST_PROFILE_SIZE, &err);
    }
    if (st)
        sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 1);
    is_str(profiles_line(s), "0first=1 default=2 many=150 \303\274ber=4",
           "a large profile before the last: exact");
    steps = st ? sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 0) : -1;
    ok(steps > 0 && steps < 150,
       "it is the one left to the total, the others counted in %d steps of the VM", steps);
    st = store_stmt(s, ST_PROFILE_SPAN, &err);
    steps = -1;
    if (st) {
        sqlite3_bind_text(st, 1, "many", -1, SQLITE_STATIC);
        sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 1);
        ok(sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) == 149,
           "the span of many: 149 rids");
        steps = sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 0);
        sqlite3_reset(st);
    }
    ok(steps > 0 && steps < 60, "found in two seeks: %d steps of the VM", steps);
    store_close(s);

    /* The widest profile first by name, then one wider than the largest:
     * the counts come out the same whichever is left to the total. */
    s = open_new("profwide.db");
    put_in(s, "a", 5);
    put_in(s, "b", 1);
    put_in(s, "c", 2);
    is_str(profiles_line(s), "a=5 b=1 c=2 default=0", "the first profile the widest");
    struct snap_write w = {tpath("profwide.db"), 0, -1};
    sqlite3_trace_v2(s->db, SQLITE_TRACE_STMT, write_at_count, &w);
    is_str(profiles_line(s), "a=5 b=1 c=2 default=0",
           "another connection adds a memory to b as b is counted: the counts are of before it");
    sqlite3_trace_v2(s->db, 0, NULL, NULL);
    ok(w.done && w.rc == SQLITE_OK, "(that write was made: %d)", w.rc);
    is_str(profiles_line(s), "a=5 b=2 c=2 default=0", "and the next listing counts it");
    put_in(s, "d", 3);
    store_use_profile(s, "b", &err);
    put_simple(s, "b-late", "a late memory of profile b", NULL, NULL);
    store_use_profile(s, "default", &err);
    int64_t span_a = -1, span_b = -1;
    st = store_stmt(s, ST_PROFILE_SPAN, &err);
    for (int k = 0; st && k < 2; k++) {
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, k ? "b" : "a", -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW)
            *(k ? &span_b : &span_a) = sqlite3_column_int64(st, 0);
    }
    if (st)
        sqlite3_reset(st);
    ok(span_a == 4 && span_b == 7, "rid spans: a 4, b 7 (%lld, %lld)", (long long)span_a,
       (long long)span_b);
    is_str(profiles_line(s), "a=5 b=3 c=2 d=3 default=0",
           "the widest (b, its memories 7 rids apart) not the largest");
    store_close(s);

    /* Rows a foreign write left that the store's own writes refuse: the
     * empty profile name (sorts first, before any seek past a name) and a
     * blob (sorts after every text), stepped past and counted all the same. */
    s = open_new("profodd.db");
    put_in(s, "default", 2);
    put_in(s, "a", 3);
    store_close(s);
    ok(raw_exec(tpath("profodd.db"),
                "INSERT INTO memories(profile, id, content, ptag, created_at, created_ts)"
                " VALUES ('', 'e1', 'x', 'p', '2023-05-08T13:56:00Z', 0),"
                " ('', 'e2', 'x', 'p', '2023-05-08T13:56:00Z', 0),"
                " (x'7a7a', 'b1', 'x', 'p7a7a', '2023-05-08T13:56:00Z', 0)") == SQLITE_OK,
       "a foreign write adds two memories of profile '' and one of blob x'7a7a'");
    ok(store_open(tpath("profodd.db"), STORE_OPEN_READONLY, &s, &err) == MS_OK, "reopened (%s)",
       err.msg);
    is_str(profiles_line(s), "=2 a=3 default=2 zz=1",
           "the empty name first, the blob last (shown as its bytes), each counted");
    store_close(s);
}

/* Supersession reads the entities of each memory that holds a cue from its
 * links, not by probing them for every entity of the profile (at 1M
 * memories, 58,725 entities for each of 609 memories: 20 s of an import). */
static void test_cued_entities_plan(void)
{
    store *s = open_new("cuedplan.db");
    put_at(s, "a", "Ana met Bo and Cy at Dale Farm.", NULL);
    put_at(s, "b", "Ana works at Hartley now.", NULL);
    char plan[512];
    plan_of(s, STORE_CUED_ENTITIES_SQL, plan);
    ok(strncmp(plan, "SEARCH l USING PRIMARY KEY (rid=?)", 34) == 0,
       "a memory's links first, then each one's entity (%s)", plan);
    ok(strstr(plan, "(profile=?)") == NULL, "no walk over the profile's entities (%s)", plan);
    store_close(s);
}

/* supersedes and contradicts: directed, with reasons, kept consistent with
 * the older memory's superseded_* fields, undone by store_clear_relation. */
static void test_relations(void)
{
    store *s = open_new("relations.db");
    int64_t old = put_at(s, "old", "My sister works at Hartley & Finch.", "2025-06-01");
    int64_t fix = put_at(s, "fix", "Small correction: my sister works at Brightwell now.",
                         "2026-03-08T10:00:00Z");
    int64_t later = put_at(s, "later", "My sister moved on to Ostara.", "2026-05-02");
    int64_t x = put_at(s, "x", "The train leaves at 8.", NULL);
    int64_t y = put_at(s, "y", "The train leaves at 9.", NULL);
    ok(old && fix && later && x && y, "five memories");
    ms_error err;
    ms_error_clear(&err);
    char buf[512];

    ok(store_set_supersedes(s, fix, old, "small correction", &err) == MS_OK,
       "fix supersedes old (%s)", err.msg);
    supersession_of(s, "old", buf, sizeof buf);
    is_str(buf, "fix|2026-03-08T10:00:00Z|small correction",
           "old is superseded by fix, since fix's time, for the reason given");
    relations_text(s, old, buf, sizeof buf);
    is_str(buf, "supersedes<fix:small correction", "old lists the relation, incoming");
    relations_text(s, fix, buf, sizeof buf);
    is_str(buf, "supersedes>old:small correction", "fix lists it, outgoing");
    ok(store_set_supersedes(s, fix, old, "same employer, later time", &err) == MS_OK &&
           n_relations(s) == 1,
       "setting it again keeps one relation");
    relations_text(s, old, buf, sizeof buf);
    is_str(buf, "supersedes<fix:same employer, later time", "with the new reason");

    ok(store_set_supersedes(s, old, fix, NULL, &err) == MS_OK, "the reverse (%s)", err.msg);
    relations_text(s, fix, buf, sizeof buf);
    is_str(buf, "supersedes<old:-", "replaces the relation: fix is now the older one");
    supersession_of(s, "old", buf, sizeof buf);
    is_str(buf, "-|-|-", "old is no longer superseded");
    supersession_of(s, "fix", buf, sizeof buf);
    is_str(buf, "old|2025-06-01T00:00:00Z|supersedes relation", "fix is, with the default reason");
    ok(store_clear_relation(s, fix, old, STORE_REL_SUPERSEDES, &err) == MS_OK,
       "undo, naming the two either way (%s)", err.msg);
    supersession_of(s, "fix", buf, sizeof buf);
    is_str(buf, "-|-|-", "undo clears the superseded fields");
    is_int(n_relations(s), 0, "and the relation");
    ok(store_clear_relation(s, fix, old, STORE_REL_SUPERSEDES, &err) == MS_NOT_FOUND &&
           strstr(err.msg, "fix and old have no supersedes relation"),
       "undoing again: %s", err.msg);

    /* two successors: old names the latest set; clearing it or deleting
     * it falls back to the other, then to none */
    ok(!store_set_supersedes(s, later, old, "moved on", &err) &&
           !store_set_supersedes(s, fix, old, "small correction", &err),
       "later and fix both supersede old");
    supersession_of(s, "old", buf, sizeof buf);
    is_str(buf, "fix|2026-03-08T10:00:00Z|small correction", "old names the one set last");
    ok(store_clear_relation(s, old, fix, STORE_REL_SUPERSEDES, &err) == MS_OK, "clear fix's");
    supersession_of(s, "old", buf, sizeof buf);
    is_str(buf, "later|2026-05-02T00:00:00Z|moved on", "old now names the other successor");
    ok(!store_set_supersedes(s, fix, old, "small correction", &err), "fix again");
    ok(store_delete(s, "fix", &err) == MS_OK, "delete fix (%s)", err.msg);
    supersession_of(s, "old", buf, sizeof buf);
    is_str(buf, "later|2026-05-02T00:00:00Z|moved on", "deleting a successor falls back too");
    ok(store_delete(s, "later", &err) == MS_OK, "delete later");
    supersession_of(s, "old", buf, sizeof buf);
    is_str(buf, "-|-|-", "and with no successor left old is current");
    is_int(n_relations(s), 0, "deleting a memory deletes its relations");

    ok(store_set_contradicts(s, x, y, "8 or 9?", &err) == MS_OK, "x contradicts y (%s)", err.msg);
    ok(store_set_contradicts(s, y, x, "timetable changed", &err) == MS_OK && n_relations(s) == 1,
       "y contradicts x is the same contradiction");
    relations_text(s, x, buf, sizeof buf);
    is_str(buf, "contradicts>y:timetable changed", "it keeps its direction, with the new reason");
    supersession_of(s, "y", buf, sizeof buf);
    is_str(buf, "-|-|-", "a contradiction supersedes nothing");
    ok(store_clear_relation(s, x, y, STORE_REL_SUPERSEDES, &err) == MS_NOT_FOUND,
       "clearing another kind finds none: %s", err.msg);

    /* refusals change nothing */
    ok(store_set_supersedes(s, x, x, "r", &err) == MS_USAGE && strstr(err.msg, "itself"),
       "a memory cannot supersede itself: %s", err.msg);
    ok(store_set_supersedes(s, x, 99999, "r", &err) == MS_NOT_FOUND &&
           strstr(err.msg, "memory #99999 is not in profile \"default\""),
       "an unknown rid: %s", err.msg);
    ok(store_set_contradicts(s, 0, x, "r", &err) == MS_USAGE, "rid 0: %s", err.msg);
    ok(store_set_contradicts(s, x, y, "bad \xff", &err) == MS_USAGE && strstr(err.msg, "UTF-8"),
       "a reason that is not UTF-8: %s", err.msg);
    ok(store_clear_relation(s, x, y, 7, &err) == MS_USAGE && strstr(err.msg, "unknown kind 7"),
       "an unknown kind: %s", err.msg);
    relations_text(s, x, buf, sizeof buf);
    is_str(buf, "contradicts>y:timetable changed", "after the refusals the relation is as it was");
    ok(store_use_profile(s, "other", &err) == MS_OK && put_at(s, "z", "elsewhere", NULL),
       "a memory in another profile");
    ok(store_set_supersedes(s, x, y, NULL, &err) == MS_NOT_FOUND,
       "memories of another profile cannot be related: %s", err.msg);
    store_use_profile(s, STORE_DEFAULT_PROFILE, &err);

    /* inside the caller's transaction: a failure undoes only itself; the
     * caller's rollback undoes everything */
    ok(store_begin(s, &err) == MS_OK, "begin");
    ok(store_set_supersedes(s, y, x, "later timetable", &err) == MS_OK, "y supersedes x");
    ok(store_set_supersedes(s, y, 4242, "r", &err) == MS_NOT_FOUND, "a failing one");
    is_int(n_relations(s), 2, "the first holds inside the transaction");
    store_rollback(s);
    is_int(n_relations(s), 1, "the caller's rollback undoes it");
    supersession_of(s, "x", buf, sizeof buf);
    is_str(buf, "-|-|-", "with x's fields");
    store_close(s);

    ok(store_open(tpath("relations.db"), STORE_OPEN_READONLY, &s, &err) == MS_OK, "read-only");
    ok(s && store_set_contradicts(s, y, x, NULL, &err) == MS_READONLY,
       "a read-only store refuses: %s", err.msg);
    store_close(s);
}

/* A schema-6 store with a supersession: read as it is it has no relations;
 * the upgrade turns superseded_by into a supersedes relation. */
static void test_schema6(void)
{
    store *s = open_new("v6.db");
    put_at(s, "m0010", "My sister works at Hartley & Finch.", "2025-06-01");
    store_memory m;
    store_memory_init(&m);
    m.id = strdup("m0011");
    m.content = strdup("She left Hartley & Finch.");
    m.superseded_by = strdup("m9999");
    m.superseded_at = strdup("2026-03-08");
    m.superseded_reason = strdup("no successor in the store");
    ms_error err;
    ms_error_clear(&err);
    ok(!store_begin(s, &err) && !store_put(s, &m, STORE_DUP_ERROR, NULL, &err) &&
           !store_end(s, &err),
       "a superseded memory whose successor is not in the store");
    store_memory_clear(&m);
    put_at(s, "m0210", "Small correction: she works at Brightwell.", "2026-03-08");
    store_close(s);
    is_int(
        raw_exec(tpath("v6.db"),
                 "UPDATE memories SET superseded_by='m0210', superseded_at='2026-03-08T00:00:00Z',"
                 " superseded_reason='supersedes edge' WHERE id='m0010';"
                 "DROP TABLE relations; PRAGMA user_version=6"),
        SQLITE_OK, "make a schema-6 store");
    size_t n1 = 0, n2 = 0;
    char *before = slurp(tpath("v6.db"), &n1);
    ok(store_open(tpath("v6.db"), STORE_OPEN_READONLY, &s, &err) == MS_OK,
       "a read-only open reads a schema-6 store (%s)", err.msg);
    char buf[256];
    relations_text(s, 1, buf, sizeof buf);
    ok(s && strcmp(buf, "") == 0 && n_relations(s) == 0, "with no relations (%s)", buf);
    store_close(s);
    char *after = slurp(tpath("v6.db"), &n2);
    ok(before && after && n1 == n2 && memcmp(before, after, n1) == 0, "and the file is unchanged");
    free(before);
    free(after);
    ok(store_open(tpath("v6.db"), 0, &s, &err) == MS_OK && !store_begin(s, &err) &&
           !store_end(s, &err),
       "the first write upgrades it (%s)", err.msg);
    is_int(raw_int(tpath("v6.db"), "PRAGMA user_version"), STORE_SCHEMA_VERSION,
           "to the current schema");
    relations_text(s, 1, buf, sizeof buf);
    is_str(buf, "supersedes<m0210:supersedes edge", "m0010's supersession became a relation");
    is_int(n_relations(s), 1, "and the one whose successor is absent has none");
    supersession_of(s, "m0011", buf, sizeof buf);
    is_str(buf, "m9999|2026-03-08T00:00:00Z|no successor in the store", "but keeps its fields");
    store_close(s);
}

/* Put a memory with speaker, created time and entities (NULL-ended). */
static int64_t put_fact(store *s, const char *id, const char *speaker, const char *created,
                        const char *content, const char *const *entities)
{
    store_memory m;
    store_memory_init(&m);
    m.id = strdup(id);
    m.content = strdup(content);
    m.speaker = speaker ? strdup(speaker) : NULL;
    m.created_at = strdup(created);
    size_t n = 0;
    while (entities && entities[n])
        n++;
    m.entities = n ? calloc(n, sizeof *m.entities) : NULL;
    for (size_t i = 0; i < n; i++)
        m.entities[i] = strdup(entities[i]);
    m.n_entities = n;
    ms_error err;
    ms_error_clear(&err);
    ms_status st = store_put(s, &m, STORE_DUP_ERROR, NULL, &err);
    if (st)
        diag("put %s: %s", id, err.msg);
    int64_t rid = st ? 0 : m.rid;
    store_memory_clear(&m);
    return rid;
}

static int show_relation(void *ctx, int64_t src, int64_t dst, int kind, const char *reason)
{
    (void)ctx;
    diag("relation #%lld %s #%lld: %s", (long long)src, store_rel_kind_name(kind), (long long)dst,
         reason ? reason : "-");
    return 0;
}

/* Supersession found at import: hand-written cases, each positive one with
 * a negative twin (another attribute, an earlier time, the same value,
 * another subject, the past tense, a negation without a correction). */
/* The detection's memories, in order: statements of facts among turns
 * that state none. */
static const char *const noted_texts[] = {
    "Ana: I work at Westway Buses.",          "Ana: the weather was grey, word1",
    "Leah: Róisín lives in Leeds.",           "Ben: we had soup for lunch, word2",
    "Ana: I work at Cartwheel Labs now.",     "Ben: the train was late again, word3",
    "Leah: Róisín lives in Manchester now.",  "Ana: nothing new to report, word4",
    "Ana: the harbour was busy today, word5", "Ben: I am 34 years old.",
};

/* Put noted_texts (ids n0..) into s in one transaction; with note, after
 * store_note_new_facts; replace_at >= 0: then that memory is written again
 * (replaced) with a statement of its own. The relations found, as text,
 * into buf; *listed: the memories noted as ones that might state a fact
 * before the detection, -1 when the notes were dropped. */
static void noted_import(store *s, int note, int replace_at, char *buf, size_t cap, int *n_noted)
{
    ms_error err;
    ms_error_clear(&err);
    size_t n = sizeof noted_texts / sizeof *noted_texts;
    ok(store_begin(s, &err) == MS_OK, "begin");
    if (note)
        store_note_new_facts(s, 0);
    for (size_t i = 0; i < n; i++) {
        char id[16], day[16];
        snprintf(id, sizeof id, "n%zu", i);
        snprintf(day, sizeof day, "2025-%02zu-10", i + 1);
        put_fact(s, id, strncmp(noted_texts[i], "Ana", 3) == 0 ? "Ana" : "Leah", day,
                 noted_texts[i], NULL);
    }
    if (replace_at >= 0) {
        store_memory m;
        store_memory_init(&m);
        char id[16];
        snprintf(id, sizeof id, "n%d", replace_at);
        m.id = strdup(id);
        m.content = strdup("Ana: I work at Riverside Vets now.");
        m.speaker = strdup("Ana");
        m.created_at = strdup("2025-12-10");
        ok(store_put(s, &m, STORE_DUP_REPLACE, NULL, &err) == MS_OK, "a memory replaced");
        store_memory_clear(&m);
    }
    *n_noted = s->facts_on ? (int)s->n_facts : -1;
    uint64_t found = 0;
    ok(store_detect_supersession(s, 0, &found, &err) == MS_OK && store_end(s, &err) == MS_OK,
       "detect and commit (%s)", err.msg);
    ok(s->n_facts == 0 && !s->facts_on, "the notes end with the transaction");
    buf[0] = '\0';
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        char one[512];
        store_memory m;
        store_memory_init(&m);
        char id[16];
        snprintf(id, sizeof id, "n%zu", i);
        if (store_get(s, id, 0, &m, &err) == MS_OK) {
            relations_text(s, m.rid, one, sizeof one);
            len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s;", one);
        }
        store_memory_clear(&m);
    }
}

/* store_note_new_facts: the detection reads only the memories that might
 * state a fact, and finds what reading them all finds. */
static void test_detect_noted(void)
{
    char all[4096], noted[4096];
    int noted_all_n = 0, n_listed = 0, expect = 0;
    for (size_t i = 0; i < sizeof noted_texts / sizeof *noted_texts; i++)
        expect += store_might_state(noted_texts[i]) == 1;
    store *a = open_new("detect-all.db"), *b = open_new("detect-noted.db");
    noted_import(a, 0, -1, all, sizeof all, &noted_all_n);
    noted_import(b, 1, -1, noted, sizeof noted, &n_listed);
    is_int(expect, 5, "five of the ten texts might state a fact");
    is_int(noted_all_n, -1, "without store_note_new_facts nothing is noted");
    is_int(n_listed, expect, "with it, those five are listed");
    ok(strstr(all, "supersedes") != NULL && strcmp(all, noted) == 0,
       "the same relations found (%s)", noted);
    store_close(a);
    store_close(b);
    /* a memory replaced in place: the notes are dropped and all are read */
    a = open_new("detect-all2.db");
    b = open_new("detect-noted2.db");
    noted_import(a, 0, 3, all, sizeof all, &noted_all_n);
    noted_import(b, 1, 3, noted, sizeof noted, &n_listed);
    is_int(n_listed, -1, "a replacement drops the notes");
    ok(strstr(all, "Riverside") != NULL && strcmp(all, noted) == 0,
       "and the relations are those of reading them all (%s)", noted);
    store_close(a);
    store_close(b);
}

/* One memory added as `memscope add` adds it: in its own transaction,
 * noted, then supersession looked for. Its rid, 0 on failure. With
 * replace, put over the memory of that id instead. The relations found go
 * to *found_out unless it is NULL. */
static int64_t add_noted(store *s, const char *id, const char *speaker, const char *created,
                         const char *content, int replace, uint64_t *found_out)
{
    ms_error err;
    ms_error_clear(&err);
    int64_t before = 0;
    uint64_t found = 0;
    store_memory m;
    store_memory_init(&m);
    m.id = strdup(id);
    m.content = strdup(content);
    m.speaker = strdup(speaker);
    m.created_at = strdup(created);
    ms_status st = store_begin(s, &err);
    if (!st)
        st = store_max_rid(s, &before, &err);
    if (!st)
        store_note_new_facts(s, before);
    if (!st)
        st = store_put(s, &m, replace ? STORE_DUP_REPLACE : STORE_DUP_ERROR, NULL, &err);
    if (!st)
        st = store_detect_supersession(s, before, &found, &err);
    if (!st)
        st = store_end(s, &err);
    else
        store_rollback(s);
    if (st)
        diag("add %s: %s", id, err.msg);
    if (found_out)
        *found_out = found;
    int64_t rid = st ? 0 : m.rid;
    store_memory_clear(&m);
    return rid;
}

/* Append "src>dst:reason;" of every relation to the buffer ctx (4096). */
static int text_relation(void *ctx, int64_t src, int64_t dst, int kind, const char *reason)
{
    char *buf = ctx;
    size_t len = strlen(buf);
    snprintf(buf + len, 4096 - len, "%lld%c%lld:%s;", (long long)src, kind == 1 ? '>' : '~',
             (long long)dst, reason ? reason : "-");
    return 0;
}

/* The fact candidates scenario on a new store; wipe: the list and its mark
 * removed before each add, so that every detection reads every text (what
 * it did before the list). The relations found, as text, into rels. */
static void cand_scenario(const char *name, int wipe, char *rels, char *ids, size_t cap)
{
    store *s = open_new(name);
    ms_error err;
    ms_error_clear(&err);
    const char *path = tpath(name);
    char id[16], text[96], when[32];
    /* 200 memories put as the bench puts them: no notes, no detection */
    ok(store_begin(s, &err) == MS_OK, "%s: begin", name);
    for (int i = 0; i < 200; i++) {
        snprintf(id, sizeof id, "x%03d", i);
        snprintf(when, sizeof when, "2025-01-%02dT10:00:00Z", i % 28 + 1);
        if (i == 50)
            snprintf(text, sizeof text, "Ana: I work at Westway Buses.");
        else if (i == 120)
            snprintf(text, sizeof text, "Ben: I live in Leeds.");
        else
            snprintf(text, sizeof text, "Ana: the weather was mild on day %d.", i);
        put_fact(s, id, i == 120 ? "Ben" : "Ana", when, text, NULL);
    }
    ok(store_end(s, &err) == MS_OK, "%s: commit", name);
    const char *wipe_sql =
        "DELETE FROM fact_candidates; DELETE FROM meta WHERE key='fact_candidates_through'";
    int64_t r[5] = {0};
    /* a later employer of Ana: the list is made (every text read once) */
    if (wipe)
        raw_exec(path, wipe_sql);
    r[0] = add_noted(s, "n1", "Ana", "2026-01-10T10:00:00Z", "Ana: I work at Cartwheel Labs now.",
                     0, NULL);
    if (!wipe) {
        is_int(raw_int(path, "SELECT count(*) FROM fact_candidates"), 3,
               "the list holds the three memories that might state a fact");
        is_int(raw_int(path, "SELECT CAST(value AS INTEGER) FROM meta"
                             " WHERE key='fact_candidates_through'"),
               r[0], "its mark is the newest memory");
    }
    /* a memory below the mark replaced by one that states a residence */
    if (wipe)
        raw_exec(path, wipe_sql);
    r[1] = add_noted(s, "x010", "Ben", "2025-06-01T10:00:00Z", "Ben: I live in York now.", 1, NULL);
    if (!wipe)
        is_int(raw_int(path, "SELECT count(*) FROM fact_candidates WHERE rid=11"), 1,
               "a memory replaced below the mark by a fact is listed at its put");
    if (wipe)
        raw_exec(path, wipe_sql);
    r[2] = add_noted(s, "n2", "Ben", "2026-02-01T10:00:00Z", "Ben: I live in Bath.", 0, NULL);
    /* the newest deleted: the next memory takes its rid, below the mark */
    ok(store_delete(s, "n2", &err) == MS_OK, "%s: delete the newest", name);
    if (wipe)
        raw_exec(path, wipe_sql);
    r[3] = add_noted(s, "n3", "Ben", "2026-03-01T10:00:00Z", "Ben: I live in Derby.", 0, NULL);
    if (!wipe) {
        is_int(r[3], r[2], "the next memory took the deleted one's rid");
        is_int(raw_int(path, "SELECT count(*) FROM fact_candidates WHERE rid="
                             "(SELECT rid FROM memories WHERE id='n3')"),
               1, "and is listed, though its rid is not above the mark");
    }
    /* Ana's first employer deleted and taken back */
    store_removed *rm = NULL;
    ok(store_begin(s, &err) == MS_OK && store_delete_saving(s, "x050", &rm, &err) == MS_OK &&
           store_end(s, &err) == MS_OK,
       "%s: delete x050, keeping it", name);
    if (!wipe)
        is_int(raw_int(path, "SELECT count(*) FROM fact_candidates WHERE rid=51"), 0,
               "a deleted memory is unlisted");
    ok(rm && store_undelete(s, rm, &err) == MS_OK, "%s: undelete it (%s)", name, err.msg);
    store_removed_free(rm);
    if (!wipe)
        is_int(raw_int(path, "SELECT count(*) FROM fact_candidates WHERE rid=51"), 1,
               "taken back, it is listed again");
    if (wipe)
        raw_exec(path, wipe_sql);
    r[4] = add_noted(s, "n4", "Ben", "2026-04-01T10:00:00Z", "Ben: I live in Hull.", 0, NULL);
    rels[0] = '\0';
    ok(store_scan_relations(s, text_relation, rels, &err) == MS_OK, "%s: read the relations", name);
    snprintf(ids, cap, "%lld %lld %lld %lld %lld", (long long)r[0], (long long)r[1],
             (long long)r[2], (long long)r[3], (long long)r[4]);
    store_close(s);
}

/* The memories that might state a fact, listed (store/supersede.c): a
 * detection reads those instead of every memory, and finds what reading
 * every memory finds, through puts below the mark, deletes, a reused rid
 * and an undelete. */
static void test_fact_candidates(void)
{
    char with_list[4096], every[4096], ids_l[128], ids_e[128];
    cand_scenario("cand-list.db", 0, with_list, ids_l, sizeof ids_l);
    cand_scenario("cand-every.db", 1, every, ids_e, sizeof ids_e);
    ok(strstr(with_list, ">51:employer of ana") != NULL,
       "the first add finds the employer it supersedes (%s)", with_list);
    ok(strstr(with_list, ">11:residence of ben") != NULL &&
           strstr(with_list, ">121:residence") != NULL,
       "a later residence supersedes the replaced memory's and the first (%s)", with_list);
    ok(strcmp(ids_l, ids_e) == 0 && strcmp(with_list, every) == 0,
       "the same relations as reading every memory at each add (%s)", every);
}

static void test_detect(void)
{
    store *s = open_new("detect.db");
    ms_error err;
    ms_error_clear(&err);
    static const char *const roisin[] = {"Róisín", NULL};
    static const char *const kestrel[] = {"Kestrel", NULL};
    static const char *const sam[] = {"Sam", NULL};
    ok(store_begin(s, &err) == MS_OK, "begin");
    int64_t w1 = put_fact(s, "w1", "Ana", "2025-01-10", "Ana: I work at Westway Buses.", NULL);
    int64_t w2 = put_fact(s, "w2", "Ana", "2026-01-10", "Ana: I work at Cartwheel Labs now.", NULL);
    int64_t w3 = put_fact(s, "w3", "Ben", "2026-02-10", "Ben: I work at Riverside Vets.", NULL);
    int64_t w4 = put_fact(s, "w4", "Ana", "2026-03-10", "Ana: I worked at Tesco as a teen.", NULL);
    int64_t w5 =
        put_fact(s, "w5", "Ana", "2026-04-10", "Ana: Still works at Cartwheel Labs, yes.", NULL);
    int64_t r1 = put_fact(s, "r1", "Leah", "2025-04-12", "Leah: Róisín lives in Leeds.", roisin);
    int64_t r2 =
        put_fact(s, "r2", "Leah", "2026-03-08", "Leah: Róisín lives in Manchester now.", roisin);
    int64_t r3 = put_fact(s, "r3", "Leah", "2026-05-01",
                          "Leah: Róisín works at Halden & Price these days.", roisin);
    int64_t a1 = put_fact(s, "a1", "Assistant", "2025-12-04",
                          "Assistant: Sam may be allergic to shellfish.", sam);
    int64_t a2 =
        put_fact(s, "a2", "Leah", "2025-12-30",
                 "Leah: Small correction: Sam is not allergic to shellfish, it's cashews.", sam);
    int64_t a3 = put_fact(s, "a3", "Leah", "2026-01-05",
                          "Leah: Sam is not allergic to peanuts, as far as I know.", sam);
    int64_t d1 = put_fact(s, "d1", "Leah", "2025-07-15",
                          "Leah: The Kestrel go-live is the 2nd of November.", kestrel);
    int64_t d2 = put_fact(s, "d2", "Leah", "2025-10-15",
                          "Leah: Kestrel is rescheduled to January, the board heard.", kestrel);
    /* written after the others, but stated earlier: it is the older fact */
    int64_t w0 = put_fact(s, "w0", "Ana", "2024-05-01", "Ana: I work at Acme Foods.", NULL);
    uint64_t found = 0;
    ok(store_detect_supersession(s, 0, &found, &err) == MS_OK, "detect (%s)", err.msg);
    ok(store_end(s, &err) == MS_OK, "commit");
    ok(w0 && w1 && w2 && w3 && w4 && w5 && r1 && r2 && r3 && a1 && a2 && a3 && d1 && d2,
       "the memories are in");
    char buf[1024];
    relations_text(s, w1, buf, sizeof buf);
    ok(strstr(buf, "supersedes<w2:employer of ana") && strstr(buf, "supersedes>w0:employer of ana"),
       "employer: a later statement with another value supersedes, an earlier-stated one is "
       "superseded (%s)",
       buf);
    relations_text(s, w3, buf, sizeof buf);
    is_str(buf, "", "another speaker's employer is another subject");
    relations_text(s, w4, buf, sizeof buf);
    is_str(buf, "", "the past tense states no current value");
    relations_text(s, w5, buf, sizeof buf);
    ok(!strstr(buf, "supersedes>w2"), "the same value said again supersedes nothing (%s)", buf);
    relations_text(s, r1, buf, sizeof buf);
    ok(strstr(buf, "supersedes<r2:residence of róisín: \"lives in Manchester\" after \"lives in "
                   "Leeds\"") != NULL,
       "residence of a named subject (%s)", buf);
    relations_text(s, r3, buf, sizeof buf);
    is_str(buf, "", "the same subject's other attribute supersedes nothing");
    relations_text(s, a1, buf, sizeof buf);
    ok(strstr(buf, "supersedes<a2:allergy of sam: a correction rejects") != NULL,
       "a correction that rejects the earlier value (%s)", buf);
    relations_text(s, a3, buf, sizeof buf);
    is_str(buf, "", "a negation without correction words supersedes nothing");
    relations_text(s, d1, buf, sizeof buf);
    ok(strstr(buf, "supersedes<d2:date of kestrel") != NULL, "the date of a named thing (%s)", buf);
    is_int((long long)found, 6, "six supersessions in all (w2 supersedes w0 too)");
    if (found != 6)
        store_scan_relations(s, show_relation, NULL, NULL);
    store_memory m;
    store_memory_init(&m);
    ok(store_get(s, "r1", 0, &m, &err) == MS_OK && !store_is_superseded(&m),
       "a supersession found is the relation alone: the older memory's fields are its own");
    store_memory_clear(&m);
    /* the newest successor of w0 is w2: a curator who records it gets it */
    ok(store_set_supersedes(s, w2, w0, "checked", &err) == MS_OK, "a curator confirms w2 > w0");
    store_memory_init(&m);
    ok(store_get(s, "w0", 0, &m, &err) == MS_OK && m.superseded_by &&
           strcmp(m.superseded_by, "w2") == 0 && strcmp(m.superseded_reason, "checked") == 0,
       "then w0 names it (%s)", m.superseded_by ? m.superseded_by : "NULL");
    store_memory_clear(&m);
    ok(store_begin(s, &err) == MS_OK && store_detect_supersession(s, 0, &found, &err) == MS_OK &&
           store_end(s, &err) == MS_OK && n_relations(s) == 6,
       "detecting again adds no relation");
    store_close(s);
}

static int64_t put_auto(store *s, const char *id, const char *content, const char *speaker)
{
    store_memory m;
    store_memory_init(&m);
    m.id = strdup(id);
    m.content = strdup(content);
    m.speaker = strdup(speaker);
    m.session = strdup("talk");
    m.created_at = strdup("2023-05-08T13:56:00Z");
    ms_error err;
    ms_error_clear(&err);
    int64_t rid = store_put(s, &m, STORE_DUP_ERROR, NULL, &err) ? 0 : m.rid;
    if (!rid)
        diag("put %s: %s", id, err.msg);
    store_memory_clear(&m);
    return rid;
}

static void test_two_writers(void)
{
    store *a = open_new("two.db"), *b = NULL;
    ms_error err;
    ms_error_clear(&err);
    ok(a && store_open(tpath("two.db"), 0, &b, &err) == MS_OK, "two connections to one store");
    if (!a || !b)
        return;
    store_use_profile(b, STORE_DEFAULT_PROFILE, &err);
    int64_t r1 = put_auto(a, "w1", "Ana: Quintessa Marlowe starts on Monday.", "Ana");
    int64_t r2 = put_auto(b, "w2", "Ben: Then Quintessa Marlowe needs a desk.", "Ben");
    int64_t r3 = put_auto(a, "w3", "Ana: I ordered one yesterday.", "Ana");
    ok(r1 && r2 && r3, "A, B, then A again append to one session");
    is_near(edge_weight(a, r2, r3, STORE_EDGE_SESSION), 1.0, 1e-9,
            "A's second turn follows B's in the session, not its own first");
    char *ctx = raw_text(tpath("two.db"), "SELECT context FROM memories WHERE id='w3'");
    ok(ctx && strstr(ctx, "needs a desk"), "and its neighbour text is B's turn (%s)",
       ctx ? ctx : "NULL");
    free(ctx);
    is_int(raw_int(tpath("two.db"), "SELECT count(*) FROM entities WHERE name='Quintessa Marlowe'"),
           1, "the name both wrote is one entity");
    store_close(b);
    store_close(a);
}

/* Open name and put one memory in its own transaction: the status, and
 * how many whole-file checks the write ran (*checks). */
static ms_status sealed_put(const char *name, const char *id, int *checks)
{
    store *s = NULL;
    ms_error err;
    ms_error_clear(&err);
    ms_status st = store_open(tpath(name), 0, &s, &err);
    store_memory m;
    store_memory_init(&m);
    m.id = strdup(id);
    m.content = strdup("Ana: the seal keeps the check for a changed file.");
    m.session = strdup("seal");
    m.created_at = strdup("2023-05-08T13:56:00Z");
    if (!st)
        st = store_begin(s, &err);
    if (!st && (st = store_put(s, &m, STORE_DUP_ERROR, NULL, &err)) == MS_OK)
        st = store_end(s, &err);
    *checks = s ? store_full_checks(s) : -1;
    store_memory_clear(&m);
    store_close(s);
    return st;
}

/* Junk over the last page of the file at path, at once. */
static void junk_last_page(const char *path)
{
    FILE *f = fopen(path, "r+b");
    char junk[16384];
    memset(junk, 0x5a, sizeof junk);
    if (f && fseek(f, -(long)sizeof junk, SEEK_END) == 0)
        fwrite(junk, 1, sizeof junk, f);
    if (f)
        fclose(f);
}

/* The whole-file check runs once: a writer that checked seals the file it
 * leaves (PATH.seal), the next writer of that file skips the check, and a
 * file changed behind the seal (even at once after it) is checked again
 * and refused when corrupt. */
static void test_seal(void)
{
    store *s = open_new("seal.db");
    for (int i = 0; s && i < 40; i++) {
        char id[16];
        snprintf(id, sizeof id, "z%d", i);
        put_simple(s, id, "Ben: a few pages of memories before the seal is tried.", "Ben", "z");
    }
    store_close(s);
    int checks = -1;
    ok(file_exists(tpath("seal.db.seal")), "a writer that checked the store seals it");
    ms_status st = sealed_put("seal.db", "k1", &checks);
    ok(st == MS_OK && checks == 0, "the next write skips the whole-file check (%d)", checks);
    store *r = NULL;
    ms_error err;
    if (store_open(tpath("seal.db"), STORE_OPEN_READONLY, &r, &err) == MS_OK &&
        store_read_begin(r, &err) == MS_OK)
        store_end(r, NULL);
    store_close(r);
    st = sealed_put("seal.db", "k2", &checks);
    ok(st == MS_OK && checks == 0, "and so does one after a reader (%d)", checks);
    raw_exec(tpath("seal.db"), "INSERT INTO meta(key, value) VALUES ('sealtest', '1')");
    st = sealed_put("seal.db", "k3", &checks);
    ok(st == MS_OK && checks == 1,
       "a write by another program: the next write checks the file (%d)", checks);
    st = sealed_put("seal.db", "k4", &checks);
    ok(st == MS_OK && checks == 0, "and seals it again (%d)", checks);
    junk_last_page(tpath("seal.db"));
    st = sealed_put("seal.db", "k5", &checks);
    ok(st == MS_CORRUPT && checks == 1,
       "a page overwritten right after the seal: the write checks and refuses (%s, %d)",
       ms_status_text(st), checks);
    is_int(raw_int(tpath("seal.db"), "SELECT count(*) FROM memories WHERE id='k5'"), 0,
           "and writes nothing");
}

/* The key of what is kept outside the store (store_cache_key) under a
 * read transaction. */
static int key_of(store *s, store_key *k)
{
    ms_error err;
    ms_error_clear(&err);
    if (store_read_begin(s, &err))
        return -2;
    int r = store_cache_key(s, k);
    store_end(s, NULL);
    return r;
}

/* Which writes leave a copy growable (store_key.rewritten, what the
 * snapshot file relies on): appends, writes to the relations table (no
 * copy keeps relations), found by an add or set by a curator, and the
 * superseded_* fields a supersession set or cleared changes (a grow reads
 * them again); not a delete. */
static void test_rewritten(void)
{
    store *s = open_new("rewritten.db");
    ms_error err;
    ms_error_clear(&err);
    store_key k = {0}, was = {0};
    int64_t x = put_simple(s, "x", "Ana: the bus leaves at 8", "Ana", "s1");
    int64_t y = put_simple(s, "y", "Ben: the bus leaves at 9", "Ben", "s1");
    /* STEP: the key before and after the call; a copy made under the first
     * is growable under the second, or not */
#define STEP(what, call, growable)                                                                 \
    do {                                                                                           \
        int got = key_of(s, &was) == 0 && (call) == MS_OK && key_of(s, &k) == 0;                   \
        ok(got &&k.generation > was.generation && (was.generation >= k.rewritten) == (growable),   \
           "%s: %s (generation %lld -> %lld, rewritten %lld) %s", what,                            \
           (growable) ? "a copy still grows" : "a rewrite", (long long)was.generation,             \
           (long long)k.generation, (long long)k.rewritten, err.msg);                              \
    } while (0)
    STEP("a contradiction set", store_set_contradicts(s, x, y, "8 or 9?", &err), 1);
    STEP("its reason changed", store_set_contradicts(s, y, x, "timetable", &err), 1);
    STEP("cleared", store_clear_relation(s, x, y, STORE_REL_CONTRADICTS, &err), 1);
    is_int((long long)k.superseded_marked, 0, "no supersession marked yet");
    STEP("a supersession set (the older memory's superseded_by changes)",
         store_set_supersedes(s, y, x, "later timetable", &err), 1);
    is_int((long long)k.superseded_marked, (long long)k.generation,
           "the key says a supersession was marked in this generation: a grow reads them again");
    STEP("and cleared", store_clear_relation(s, y, x, STORE_REL_SUPERSEDES, &err), 1);
    is_int((long long)k.superseded_marked, (long long)k.generation, "and again when cleared");
    add_noted(s, "w1", "Ana", "2025-01-10T10:00:00Z", "Ana: I work at Westway Buses.", 0, NULL);
    uint64_t found = 0;
    STEP("an add whose memory supersedes an older one (a relation found)",
         add_noted(s, "w2", "Ana", "2026-01-10T10:00:00Z", "Ana: I work at Cartwheel Labs now.", 0,
                   &found)
             ? MS_OK
             : MS_SQL,
         1);
    is_int((long long)found, 1, "that add found the relation");
    STEP("a delete", store_delete(s, "w1", &err), 0);
#undef STEP
    store_close(s);
}

/* ---- store_put_hint ------------------------------------------------------ */

/* One turn of the hint tests: put (id, speaker, text, session) inside the
 * open transaction, with the turn hinted as the next (NULL: none) when
 * hint is set; dup as store_put takes it. */
typedef struct hturn {
    const char *id, *speaker, *text, *session, *profile;
} hturn;

static void hturn_memory(const hturn *h, store_memory *m)
{
    store_memory_init(m);
    m->id = (char *)h->id; /* borrowed: store_put frees nothing of m */
    m->speaker = (char *)h->speaker;
    m->content = (char *)h->text;
    m->session = (char *)h->session;
    m->created_at = (char *)"2023-05-08T13:56:00Z";
}

static ms_status hput(store *s, const hturn *h, const hturn *next, int hint, store_dup_policy dup,
                      ms_error *err)
{
    store_memory m, n;
    hturn_memory(h, &m);
    if (next)
        hturn_memory(next, &n);
    ms_status st = store_use_profile(s, h->profile ? h->profile : STORE_DEFAULT_PROFILE, err);
    if (hint)
        store_put_hint(s, next ? &n : NULL);
    return st ? st : store_put(s, &m, dup, NULL, err);
}

/* The rows sql gives on the store at path, their columns as text joined
 * by '|', one row a line, appended to out (from *len, within cap). */
static void rows_into(const char *path, const char *sql, char *out, size_t cap, size_t *len)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW)
            for (int c = 0; c < sqlite3_column_count(st); c++) {
                const char *v = (const char *)sqlite3_column_text(st, c);
                size_t n = v ? strlen(v) : 0;
                if (*len + n + 2 >= cap)
                    break;
                memcpy(out + *len, v ? v : "", n);
                *len += n;
                out[(*len)++] = c + 1 < sqlite3_column_count(st) ? '|' : '\n';
            }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    out[*len] = '\0';
}

/* The same as a fresh string (1 MB at most). */
static char *rows_of(const char *path, const char *sql)
{
    size_t len = 0, cap = 1 << 20;
    char *out = calloc(1, cap);
    if (out)
        rows_into(path, sql, out, cap, &len);
    return out;
}

/* Every (profile, id, context) of a store, one line each, for comparison. */
static char *contexts_of(const char *path)
{
    return rows_of(path, "SELECT profile, id, context FROM memories ORDER BY rid");
}

/* FTS5's own check that its index holds exactly the table's text. SQLite
 * counts the command as a change; it writes nothing, so it is counted as
 * the appends around it are (store_key.rewritten). */
static int fts_agrees(store *s)
{
    int64_t c0 = sqlite3_total_changes64(s->db);
    int rc = sqlite3_exec(s->db, "INSERT INTO memories_fts(memories_fts) VALUES('integrity-check')",
                          NULL, NULL, NULL);
    s->appended += sqlite3_total_changes64(s->db) - c0;
    return rc == SQLITE_OK;
}

/* The same puts into two stores, one told the next turn before each put
 * (right, wrong, of another session, of another profile, or a turn never
 * put): the same rows, the same neighbour text, an index that agrees with
 * it, and the same key (an import that only appended stays one). A right
 * guess saves the next put its UPDATE of the row before it. */
static void test_put_hint(void)
{
    const hturn t[] = {
        {"a1", "Ana", "Ana: Did you see the heron by the weir?", "s1", NULL},
        {"a2", "Ben", "Ben: Twice! It stands there every morning.", "s1", NULL},
        {"a3", "Ana", "Ana: I should bring the long lens then.", "s1", NULL},
        {"a4", "Ben", "Ben: Bring a flask as well, it gets cold.", "s1", NULL},
        {"b1", "Ana", "Ana: The quarry pond froze last night.", "s2", NULL},
        {"old", "Ana", "Ana: Skating is banned on the quarry pond.", "s2", NULL},
        {"b2", "Ben", "Ben: Someone tried anyway, I heard.", "s2", NULL},
        {"c1", "Cy", "Cy: Another profile, another session.", "s2", "other"},
        {"b3", "Ana", "Ana: They had to be pulled out.", "s2", NULL},
        {"b4", "Ben", "Ben: Lucky the fire crew was near.", "s2", NULL},
    };
    const hturn wrong = {"a4", "Ben", "Ben: Zebras crossing the weir, honestly.", "s1", NULL};
    const hturn never = {"b5", "Ana", "Ana: Xylophones at the fire station party.", "s2", NULL};
    /* what each put is told comes next (index into t, or a stand-in) */
    const hturn *told[] = {&t[1], &t[2], &wrong, &t[4], &t[5], &t[7], &t[8], &t[8], &t[9], &never};
    store *s[2] = {open_new("hint0.db"), open_new("hint1.db")};
    ok(s[0] && s[1], "two new stores");
    if (!s[0] || !s[1])
        return;
    ms_error err;
    ms_error_clear(&err);
    int64_t changes[2] = {0, 0};
    char *ctxs[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        ms_status st = hput(s[k], &t[5], NULL, 0, STORE_DUP_ERROR, &err); /* "old", first */
        ok(!st, "store %d: a turn put on its own (%s)", k, err.msg);
        st = store_begin(s[k], &err);
        int64_t c0 = sqlite3_total_changes64(s[k]->db);
        for (size_t i = 0; !st && i < sizeof t / sizeof *t; i++)
            st = hput(s[k], &t[i], told[i], k, i == 5 ? STORE_DUP_SKIP : STORE_DUP_ERROR, &err);
        changes[k] = sqlite3_total_changes64(s[k]->db) - c0;
        int agrees = !st && fts_agrees(s[k]);
        ok(!st && !store_end(s[k], &err), "store %d: ten puts in one transaction (%s)", k, err.msg);
        ok(agrees, "store %d: before the commit, the text index held the table's text", k);
        store_key was = {0};
        int kr = key_of(s[k], &was);
        ok(kr == 0 && was.rewritten < was.generation,
           "store %d: and it only appended (rewritten %lld, generation %lld)", k,
           (long long)was.rewritten, (long long)was.generation);
        ctxs[k] = contexts_of(tpath(k ? "hint1.db" : "hint0.db")); /* as committed */
        is_int(raw_exec(tpath(k ? "hint1.db" : "hint0.db"),
                        "INSERT INTO memories_fts(memories_fts) VALUES('integrity-check')"),
               SQLITE_OK, "store %d: after it too", k);
        /* five turns of a new session, each told the next rightly */
        const hturn run[] = {{"r1", "Ana", "Ana: Who left the gate open?", "s4", NULL},
                             {"r2", "Ben", "Ben: The goats did, somehow.", "s4", NULL},
                             {"r3", "Ana", "Ana: Goats cannot lift latches.", "s4", NULL},
                             {"r4", "Ben", "Ben: This one can.", "s4", NULL},
                             {"r5", "Ana", "Ana: Then it gets a padlock.", "s4", NULL}};
        st = store_begin(s[k], &err);
        c0 = sqlite3_total_changes64(s[k]->db);
        for (int i = 0; !st && i < 5; i++)
            st = hput(s[k], &run[i], i < 4 ? &run[i + 1] : NULL, k, STORE_DUP_ERROR, &err);
        changes[k] = sqlite3_total_changes64(s[k]->db) - c0;
        ok(!st && !store_end(s[k], &err), "store %d: five more turns (%s)", k, err.msg);
    }
    char *c0 = ctxs[0], *c1 = ctxs[1];
    ok(c0 && c1 && strcmp(c0, c1) == 0, "told or not, every row has the same neighbour text");
    ok(c1 && !strstr(c1, "Zebras") && !strstr(c1, "Xylophones"),
       "and no row keeps the words of a turn that did not come");
    ok(c1 && strstr(c1, "default|a1|Twice! It stands there every morning.\n"),
       "a turn's text holds the next turn's words");
    free(c0);
    free(c1);
    is_int((long long)(changes[0] - changes[1]), 4,
           "told rightly, the four turns after the first rewrite no row before them (%lld "
           "against %lld changes)",
           (long long)changes[1], (long long)changes[0]);
    /* told, then another put (a replacement): no guess outlives it */
    const hturn x1 = {"x1", "Ana", "Ana: The ferry is late again.", "s5", NULL};
    const hturn x2 = {"x2", "Ben", "Ben: Walruses on the slipway.", "s5", NULL};
    ms_status st = store_begin(s[1], &err);
    if (!st)
        st = hput(s[1], &x1, &x2, 1, STORE_DUP_ERROR, &err);
    int guessed = s[1]->guess_rid != 0;
    if (!st)
        st = hput(s[1], &t[5], NULL, 1, STORE_DUP_REPLACE, &err);
    sqlite3_stmt *q = NULL;
    int clean = 0;
    if (!st &&
        sqlite3_prepare_v2(s[1]->db, "SELECT context FROM memories WHERE id='x1'", -1, &q, NULL) ==
            SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW)
        clean = !strstr((const char *)sqlite3_column_text(q, 0), "Walruses");
    sqlite3_finalize(q);
    ok(!st && guessed && s[1]->guess_rid == 0 && clean,
       "a guess, then a replacement put: the guessed row is corrected at once (%s)", err.msg);
    ok(!st && !store_end(s[1], &err), "and committed (%s)", err.msg);
    /* a rollback leaves no guess behind */
    const hturn r1 = {"q1", "Ana", "Ana: This one is rolled back.", "s3", NULL};
    const hturn r2 = {"q2", "Ben", "Ben: Quokkas, never written.", "s3", NULL};
    ok(!store_begin(s[1], &err) && !hput(s[1], &r1, &r2, 1, STORE_DUP_ERROR, &err),
       "a told put (%s)", err.msg);
    store_rollback(s[1]);
    ok(s[1]->guess_rid == 0 && !s[1]->guess_text, "rolled back: no guess left");
    /* told, but the put never came (its line failed before it) */
    store_memory gone;
    hturn_memory(&r2, &gone);
    ok(!store_begin(s[1], &err), "a transaction (%s)", err.msg);
    store_put_hint(s[1], &gone);
    store_rollback(s[1]);
    ok(s[1]->hint == NULL, "rolled back: the hint of a put that never came is dropped");
    ok(!store_begin(s[1], &err) && !hput(s[1], &r1, NULL, 0, STORE_DUP_ERROR, &err) &&
           !store_end(s[1], &err),
       "the same put again, untold (%s)", err.msg);
    char *ctx = raw_text(tpath("hint1.db"), "SELECT context FROM memories WHERE id='q1'");
    ok(ctx && strcmp(ctx, "") == 0, "its text holds no word of the turn once told (\"%s\")",
       ctx ? ctx : "NULL");
    free(ctx);
    store_close(s[0]);
    store_close(s[1]);
}

/* Every link of a store, one line each: memory id, entity, given, speaker. */
static char *links_of(const char *path)
{
    return rows_of(path, "SELECT m.id, e.norm, l.given, l.speaker FROM memory_entities l"
                         " JOIN memories m ON m.rid=l.rid JOIN entities e ON e.eid=l.eid"
                         " ORDER BY m.rid, e.norm");
}

/* Words worked out before a put (store_memory_words, an import's reader)
 * link the same entities as words cut at the put; words made for another
 * text or speaker are not used. */
static void test_memory_words(void)
{
    static char big[8192];
    size_t o = 0;
    for (int i = 0; o + 40 < sizeof big && i < 300; i++) /* more words than the stack holds */
        o +=
            (size_t)snprintf(big + o, sizeof big - o, "%s ", i == 290 ? "Zephyrine Okafor" : "and");
    const char *text[][2] = {
        {"Ana", "Ana: Caroline went to Lisbon with Marta Quist on Monday."},
        {"Ana", "Ana: Caroline said \"the long goodbye\" was Ben's favourite."},
        {"Ben", "Asked Róisín about it. Thanks, Sounds Good."},
        {"Ben", "Ben: I met 2023 Volunteers and the Harbour Choir."},
        {NULL, "Nobody Speaks Here, says Ingrid Falk."},
        {"Cy", big},
    };
    size_t n = sizeof text / sizeof *text;
    store *s[2] = {open_new("words0.db"), open_new("words1.db")};
    ok(s[0] && s[1], "two new stores");
    if (!s[0] || !s[1])
        return;
    ms_error err;
    ms_error_clear(&err);
    for (int k = 0; k < 2; k++) {
        ms_status st = store_begin(s[k], &err);
        for (size_t i = 0; !st && i < n + 1; i++) {
            store_memory m;
            store_memory_init(&m);
            char id[16];
            snprintf(id, sizeof id, "w%zu", i);
            m.id = strdup(id);
            m.session = strdup("talk");
            m.created_at = strdup("2023-05-08T13:56:00Z");
            if (i < n) {
                m.content = strdup(text[i][1]);
                m.speaker = text[i][0] ? strdup(text[i][0]) : NULL;
                if (k == 1)
                    ok(store_memory_words(&m) == 0 && m.words, "words of text %zu worked out", i);
            } else { /* store 1: words made for one text, then another text and speaker */
                m.content = strdup("Ana: Caroline met Tobias Wren.");
                m.speaker = strdup("Ana");
                if (k == 1)
                    store_memory_words(&m);
                free(m.content);
                free(m.speaker);
                m.content = strdup("Greta Lindqvist phoned Oskar Bell.");
                m.speaker = NULL;
            }
            st = store_put(s[k], &m, STORE_DUP_ERROR, NULL, &err);
            store_memory_clear(&m);
        }
        ok(!st && !store_end(s[k], &err), "store %d: the puts (%s)", k, err.msg);
    }
    char *l0 = links_of(tpath("words0.db")), *l1 = links_of(tpath("words1.db"));
    ok(l0 && l1 && strcmp(l0, l1) == 0, "the same links either way");
    ok(l1 && strstr(l1, "w0|marta quist|0|0") && strstr(l1, "w5|zephyrine okafor|0|0") &&
           strstr(l1, "w1|the long goodbye|0|0"),
       "names, a quote and a name past 256 words are linked");
    ok(l1 && strstr(l1, "w6|oskar bell|") && !strstr(l1, "tobias wren"),
       "words made for another text are not used");
    free(l0);
    free(l1);
    store_close(s[0]);
    store_close(s[1]);
}

/* The text index's tables of a store, as hex, one row a line. */
static char *index_of(const char *path)
{
    static const char *const sql[] = {
        "SELECT id, hex(block) FROM memories_fts_data ORDER BY id",
        "SELECT segid, hex(term), pgno FROM memories_fts_idx ORDER BY segid, term",
        "SELECT id, hex(sz) FROM memories_fts_docsize ORDER BY id",
    };
    size_t len = 0, cap = 1 << 22;
    char *out = calloc(1, cap);
    for (size_t q = 0; out && q < sizeof sql / sizeof *sql; q++)
        rows_into(path, sql[q], out, cap, &len);
    return out;
}

/* Append "token@start-end;" to the buffer ctx (8 KB). */
static int tok_line(void *ctx, const char *tok, int len, int start, int end)
{
    char *out = ctx;
    size_t o = strlen(out);
    if (o + (size_t)len + 32 < 8192)
        snprintf(out + o, 8192 - o, "%.*s@%d-%d;", len, tok, start, end);
    return 0;
}

/* The text index built with the tokens of recent texts used again
 * (store/tokring.c) is the one SQLite's porter builds alone, byte for
 * byte: random sessions of turns whose words cross every kind of boundary
 * (a leading name and colon with and without a space, colons and spaces
 * inside texts, double spaces, accents, capitals, long words), put
 * interleaved, then some deleted. */
static void test_tokring(void)
{
    static const char *const words[] = {
        "the",
        "Café",
        "naïve",
        "STRASSE",
        "Straße",
        "10:30",
        "a:b",
        "don't",
        "e-mail",
        "x",
        "running",
        "ran",
        "runs",
        "ÉCOLE",
        "übung",
        "🙂",
        "42",
        "co-op",
        "   ",
        "Ana:",
        ":",
        "x:",
        "walked",
        "walking",
        "supercalifragilisticexpialidocious-antidisestablishmentarianism-"
        "floccinaucinihilipilification",
    };
    static const char *const names[] = {"Ana", "Ben", "Zoë", NULL};
    size_t nw = sizeof words / sizeof *words;
    uint64_t seed = 12345;
    enum { TURNS = 360, SESSIONS = 7 };
    static char texts[TURNS][400];
    int speaker[TURNS], session[TURNS];
    for (int i = 0; i < TURNS; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        speaker[i] = (int)((seed >> 33) % 4);
        session[i] = (int)((seed >> 40) % SESSIONS);
        size_t o = 0;
        const char *who = names[speaker[i]];
        int form = (int)((seed >> 50) % 3);
        if (who)
            o += (size_t)snprintf(texts[i], sizeof texts[i],
                                  form == 0   ? "%s: "
                                  : form == 1 ? "%s:"
                                              : "%s says ",
                                  who);
        int n = 3 + (int)((seed >> 20) % 25);
        for (int k = 0; k < n && o + 120 < sizeof texts[i]; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            o += (size_t)snprintf(texts[i] + o, sizeof texts[i] - o, "%s%s", k ? " " : "",
                                  words[(seed >> 33) % nw]);
        }
    }
    char *index[2] = {NULL, NULL};
    uint64_t reused[2];
    for (int k = 0; k < 2; k++) {
        if (k == 0)
            setenv("MEMSCOPE_FTS_REUSE", "off", 1);
        else
            unsetenv("MEMSCOPE_FTS_REUSE");
        const char *name = k ? "tokring1.db" : "tokring0.db";
        store *s = open_new(name);
        ms_error err;
        ms_error_clear(&err);
        uint64_t r0 = store_tokring_reused();
        ms_status st = s ? store_begin(s, &err) : MS_IO;
        for (int i = 0; !st && i < TURNS; i++) {
            store_memory m;
            store_memory_init(&m);
            char id[16], sess[16];
            snprintf(id, sizeof id, "t%d", i);
            snprintf(sess, sizeof sess, "s%d", session[i]);
            m.id = id; /* borrowed: store_put frees nothing of m */
            m.content = texts[i];
            m.speaker = (char *)names[speaker[i]];
            m.session = sess;
            m.created_at = (char *)"2023-05-08T13:56:00Z";
            st = store_put(s, &m, STORE_DUP_ERROR, NULL, &err);
        }
        if (!st)
            st = store_end(s, &err);
        for (int i = 0; !st && i < TURNS; i += 37) { /* deletes cut the old text again */
            char id[16];
            snprintf(id, sizeof id, "t%d", i);
            st = store_delete(s, id, &err);
        }
        reused[k] = store_tokring_reused() - r0;
        ok(!st, "store %d: %d turns put, some deleted (%s)", k, TURNS, err.msg);
        store_close(s);
        is_int(raw_exec(tpath(name),
                        "INSERT INTO memories_fts(memories_fts) VALUES('integrity-check')"),
               SQLITE_OK, "store %d: the index agrees with the table", k);
        index[k] = index_of(tpath(name));
    }
    unsetenv("MEMSCOPE_FTS_REUSE");
    /* token by token, offsets too (the index keeps no offsets; snippets
       and postings read them): each text, and a neighbour text made of two
       bodies, as stored texts and as a query, which is never reused */
    store *s = open_new("tokring2.db");
    int same = s != NULL, stored_reused = 0;
    for (int i = 1; same && i + 1 < TURNS; i++) {
        const char *prev = texts[i - 1], *next = texts[i + 1], *c;
        if ((c = strstr(prev, ": ")) && c - prev < 8)
            prev = c + 2;
        if ((c = strstr(next, ":")) && c - next < 8)
            next = c + 1 + (c[1] == ' ');
        char ctx[1024];
        size_t lp = strlen(prev), ln = strlen(next);
        if (lp + ln + 2 > sizeof ctx)
            continue;
        memcpy(ctx, prev, lp);
        ctx[lp] = ' ';
        memcpy(ctx + lp + 1, next, ln + 1);
        const char *each[] = {texts[i], ctx};
        for (int e = 0; e < 2; e++) {
            char a[8192] = "", b[8192] = "";
            uint64_t r0 = store_tokring_reused();
            ms_status x =
                store_tokenize_stored(s, each[e], (int)strlen(each[e]), tok_line, a, NULL);
            stored_reused += store_tokring_reused() > r0;
            uint64_t r1 = store_tokring_reused();
            ms_status y = store_tokenize(s, each[e], (int)strlen(each[e]), tok_line, b, NULL);
            same = !x && !y && store_tokring_reused() == r1 && strcmp(a, b) == 0;
            if (!same)
                diag("text %d.%d: %s\nstored: %s\nquery:  %s", i, e, each[e], a, b);
        }
    }
    /* texts that begin with one cut before, but go on within its last
       word, after a colon, or after two spaces */
    static const char *const seq[] = {
        "Ana: walking the long road home",     "walking the long road homes and more",
        "walking the long road home:and back", "walking the long road home  twice over",
        "Ben:walking the long road home",      "walking the long road homeward bound",
        "x walking the long road home",
    };
    for (size_t i = 0; same && i < sizeof seq / sizeof *seq; i++) {
        char a[8192] = "", b[8192] = "";
        ms_status x = store_tokenize_stored(s, seq[i], (int)strlen(seq[i]), tok_line, a, NULL);
        ms_status y = store_tokenize(s, seq[i], (int)strlen(seq[i]), tok_line, b, NULL);
        same = !x && !y && strcmp(a, b) == 0;
        if (!same)
            diag("%s\nstored: %s\nquery:  %s", seq[i], a, b);
    }
    ok(same && stored_reused > TURNS / 2,
       "each token and its offsets are the same, stored or asked (%d texts used tokens again)",
       stored_reused);
    store_close(s);
    ok(reused[0] == 0 && reused[1] > 1000, "tokens used again: %llu off, %llu on",
       (unsigned long long)reused[0], (unsigned long long)reused[1]);
    ok(index[0] && index[1] && strlen(index[0]) > 10000 && strcmp(index[0], index[1]) == 0,
       "the same index byte for byte (%zu bytes of hex)", index[0] ? strlen(index[0]) : 0);
    free(index[0]);
    free(index[1]);
}

static void test_cache_key(void)
{
    store *a = open_new("key.db"), *b = NULL;
    ms_error err;
    ms_error_clear(&err);
    /* The keys are zeroed, and the checks read a key before ok() formats
     * it: the order arguments are evaluated in is unset. */
    store_key k0 = {0}, k1 = {0}, k2 = {0}, k3 = {0}, kb = {0};
    ok(a && key_of(a, &k0) == -1, "a new store has no key: nothing may be kept for it");
    if (!a)
        return;
    int64_t r1 = put_simple(a, "k1", "Ana: the first note", "Ana", "s1");
    int got = r1 ? key_of(a, &k1) : -2;
    ok(got == 0 && strlen(k1.uid) == 32 && k1.generation == 1 && k1.schema == STORE_SCHEMA_VERSION,
       "its first write gives it an id and generation 1 (%lld)",
       got ? -1LL : (long long)k1.generation);
    ok(store_begin(a, &err) == MS_OK && store_end(a, &err) == MS_OK && key_of(a, &k2) == 0 &&
           k2.generation == 1,
       "a write transaction that changes nothing keeps the generation");
    store_memory m;
    store_memory_init(&m);
    m.content = strdup("Ana: outside any transaction");
    got = store_put(a, &m, STORE_DUP_ERROR, NULL, &err) == MS_OK ? key_of(a, &k3) : -2;
    ok(got == 0 && k3.generation == 2 && strcmp(k3.uid, k1.uid) == 0,
       "a put outside a transaction moves it in one of its own (%lld)",
       got ? -1LL : (long long)k3.generation);
    store_memory_clear(&m);
    ok(store_begin(a, &err) == MS_OK && store_delete(a, "k1", &err) == MS_OK, "a delete");
    store_rollback(a);
    ok(key_of(a, &k2) == 0 && k2.generation == 2, "rolled back, it leaves the generation");
    ok(store_open(tpath("key.db"), STORE_OPEN_READONLY, &b, &err) == MS_OK && key_of(b, &kb) == 0 &&
           kb.generation == 2 && strcmp(kb.uid, k1.uid) == 0,
       "another connection, read-only, sees the same key");
    ok(store_set_trust(a, r1, 3, 1, &err) == MS_OK && key_of(b, &kb) == 0 && kb.generation == 3,
       "and sees a trust change move it");
    ok(store_begin(a, &err) == MS_OK &&
           store_add_feedback(a, r1, "note", NULL, 1, 1, &err) == MS_OK &&
           store_end(a, &err) == MS_OK && key_of(b, &kb) == 0 && kb.generation == 3 &&
           raw_int(tpath("key.db"), "SELECT count(*) FROM feedback") == 1,
       "feedback is written but leaves the generation (what a copy keeps has not changed)");
    store_close(b);
    store_close(a);
    store *c = open_new("key2.db");
    store_key kc;
    ok(c && put_simple(c, "k1", "Ana: the first note", "Ana", "s1") && key_of(c, &kc) == 0 &&
           strcmp(kc.uid, k1.uid) != 0,
       "another store with the same history has another id");
    store_close(c);
}

/* ---- time and UTF-8 ---------------------------------------------------- */

static void test_parse_time(void)
{
    static const struct {
        const char *text;
        const char *want; /* NULL: must be rejected */
    } cases[] = {
        {"2023-05-08", "2023-05-08T00:00:00Z"},
        {"2023-05-08T13:56", "2023-05-08T13:56:00Z"},
        {"2023-05-08T13:56:00Z", "2023-05-08T13:56:00Z"},
        {"2023-05-08t13:56:00z", "2023-05-08T13:56:00Z"},
        {"2023-05-08 13:56:00", "2023-05-08T13:56:00Z"},
        {"2023-05-08 13:56:00+02:00", "2023-05-08T11:56:00Z"},
        {"2023-05-08T13:56:00-0530", "2023-05-08T19:26:00Z"},
        {"2023-05-08T13:56:00+02", "2023-05-08T11:56:00Z"},
        {"2023-05-08T13:56:00.123456Z", "2023-05-08T13:56:00Z"},
        {"2023-05-08T00:30:00+01:00", "2023-05-07T23:30:00Z"},
        {"2024-02-29", "2024-02-29T00:00:00Z"},
        {"2000-02-29", "2000-02-29T00:00:00Z"},
        {"1969-12-31T23:59:59Z", "1969-12-31T23:59:59Z"},
        {"1970-01-01T00:00:00Z", "1970-01-01T00:00:00Z"},
        {"", NULL},
        {"2023", NULL},
        {"2023-5-8", NULL},
        {"2023-05-08T", NULL},
        {"2023-05-08T13", NULL},
        {"2023-05-08T24:00:00Z", NULL},
        {"2023-05-08T13:60:00Z", NULL},
        {"2023-13-01", NULL},
        {"2023-00-10", NULL},
        {"2023-04-31", NULL},
        {"2023-02-29", NULL},
        {"1900-02-29", NULL},
        {"2023-05-08T13:56:00.Z", NULL},
        {"2023-05-08T13:56:00+25:00", NULL},
        {"2023-05-08T13:56:00Zjunk", NULL},
        {"2023-05-08T13:56:00+02:", NULL},
        {"2023-05-08T13:56:00+2", NULL},
        {"2023-05-08T13:56:00+02:0", NULL},
        {"2023-05-08X13:56", NULL},
        {"08/05/2023", NULL},
        {"yesterday", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int64_t ts = 12345;
        int rc = store_parse_time(cases[i].text, &ts);
        if (!cases[i].want) {
            ok(rc != 0 && ts == 12345, "parse_time rejects '%s'", cases[i].text);
            continue;
        }
        char buf[32] = "";
        if (rc == 0)
            store_format_time(ts, buf, sizeof buf);
        ok(rc == 0 && strcmp(buf, cases[i].want) == 0, "parse_time '%s' -> %s (got %s)",
           cases[i].text, cases[i].want, buf);
    }
    int64_t ts = 0;
    store_parse_time("2023-05-08T13:56:00Z", &ts);
    is_int(ts, 1683554160, "2023-05-08T13:56:00Z is 1683554160");
    ok(store_parse_time(NULL, &ts) != 0, "parse_time rejects NULL");
}

/* store_format_time writes what gmtime_r and strftime do, over the whole
 * range a store keeps (and its ends), and what snprintf would for a short
 * buffer. */
static void test_format_time(void)
{
    unsigned x = 777;
    int same = 0, n = 0;
    for (int i = 0; i < 20002; i++, n++) {
        x = x * 1103515245u + 12345u;
        uint64_t r = ((uint64_t)x << 20) ^ (uint64_t)(x >> 4) * 2654435761u;
        int64_t ts = i == 0   ? STORE_TIME_MIN
                     : i == 1 ? STORE_TIME_MAX
                              : STORE_TIME_MIN +
                                    (int64_t)(r % (uint64_t)(STORE_TIME_MAX - STORE_TIME_MIN + 1));
        char got[32], want[80] = "";
        store_format_time(ts, got, sizeof got);
        time_t t = (time_t)ts;
        struct tm tm;
        if (gmtime_r(&t, &tm))
            strftime(want, sizeof want, "%Y-%m-%dT%H:%M:%SZ", &tm);
        if (tm.tm_year + 1900 < 1000) /* strftime's %Y does not pad */
            snprintf(want, sizeof want, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
        same += strcmp(got, want) == 0;
        if (strcmp(got, want) != 0 && n - same < 5)
            diag("%lld: %s, want %s", (long long)ts, got, want);
    }
    is_int(same, n, "format_time is gmtime's on %d times from 0000 to 9999", n);
    char small[8];
    store_format_time(1683554160, small, sizeof small);
    is_str(small, "2023-05", "a short buffer gets what fits");
}

static void test_utf8(void)
{
    static const struct {
        const char *s;
        size_t len;
        long want;
        const char *what;
    } cases[] = {
        {"plain ASCII", 11, -1, "ASCII is valid"},
        {"caf\xc3\xa9", 5, -1, "2-byte sequence"},
        {"\xe2\x82\xac", 3, -1, "3-byte sequence (euro)"},
        {"\xf0\x9f\x98\x80", 4, -1, "4-byte sequence (emoji)"},
        {"\xef\xbf\xbf", 3, -1, "U+FFFF is valid"},
        {"\xf4\x8f\xbf\xbf", 4, -1, "U+10FFFF is valid"},
        {"ab\xc0\xaf", 4, 2, "overlong 2-byte (C0 AF)"},
        {"ab\xc1\xbf", 4, 2, "overlong 2-byte (C1 BF)"},
        {"a\xe0\x80\xaf", 4, 1, "overlong 3-byte (E0 80 AF)"},
        {"\xf0\x80\x80\xaf", 4, 0, "overlong 4-byte (F0 80 80 AF)"},
        {"xy\xed\xa0\x80", 5, 2, "surrogate U+D800"},
        {"\xed\xbf\xbf", 3, 0, "surrogate U+DFFF"},
        {"\xf4\x90\x80\x80", 4, 0, "beyond U+10FFFF"},
        {"\xf5\x80\x80\x80", 4, 0, "F5 lead byte"},
        {"abc\xe2\x82", 5, 3, "truncated 3-byte sequence at the end"},
        {"abc\xc3", 4, 3, "truncated 2-byte sequence at the end"},
        {"abc\xf0\x9f\x98", 6, 3, "truncated 4-byte sequence at the end"},
        {"a\xe2\x82z", 4, 1, "truncated sequence in the middle"},
        {"\x80", 1, 0, "a lone continuation byte"},
        {"ok\xff", 3, 2, "0xFF"},
        {"a\0b", 3, 1, "a NUL byte"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        is_int(store_utf8_invalid_at(cases[i].s, cases[i].len), cases[i].want, "utf8: %s",
               cases[i].what);

    /* Long texts, where runs of ASCII are checked eight bytes at a time: one
     * bad byte, NUL or sequence at every place of a 40-byte line, and a
     * good sequence, which leaves it valid. */
    static const struct {
        const char *b;
        int n, bad;
    } put[] = {{"\x80", 1, 1},         {"\xff", 1, 1},
               {"\0", 1, 1},           {"\xc3", 1, 1},
               {"\xc3\xa9", 2, 0},     {"\xe2\x82\xac", 3, 0},
               {"\xed\xa0\x80", 3, 1}, {"\xf0\x9f\x98\x80", 4, 0}};
    int wrong = 0, cases_run = 0;
    for (size_t k = 0; k < sizeof put / sizeof *put; k++)
        for (int at = 0; at + put[k].n <= 40; at++) {
            char line[40];
            memset(line, 'a', sizeof line);
            memcpy(line + at, put[k].b, (size_t)put[k].n);
            long got = store_utf8_invalid_at(line, sizeof line);
            wrong += got != (put[k].bad ? at : -1);
            cases_run++;
        }
    ok(wrong == 0 && cases_run > 250,
       "utf8: a bad byte found at every place of a long line, a good sequence passed (%d of "
       "%d wrong)",
       wrong, cases_run);
}

/* Feedback is one judgement per memory and query: again replaces it,
 * clear withdraws it, and the other query's judgement stays. */
static void test_feedback_toggle(void)
{
    store *s = open_new("fb.db");
    ms_error err;
    ms_error_clear(&err);
    int64_t v0 = store_data_version(s);
    int64_t rid = put_simple(s, "f1", "the dentist is on Friday", NULL, NULL);
    ok(store_data_version(s) != v0, "this connection's own commit moves store_data_version");
    for (int i = 0; i < 10; i++)
        store_add_feedback(s, rid, "dentist?", "general", 1, 3, &err);
    store_add_feedback(s, rid, "other?", "general", -1, 0, &err);
    store_feedback *fb = NULL;
    size_t n = 0;
    ok(store_feedback_all(s, &fb, &n, &err) == MS_OK && n == 2,
       "ten judgements of one memory for one query are one (got %zu rows)", n);
    store_feedback_free(fb, n);
    store_add_feedback(s, rid, "dentist?", "general", -1, 1, &err);
    store_feedback f;
    int found = 0;
    ok(store_feedback_of(s, rid, "dentist?", &f, &found, &err) == MS_OK && found && f.label == -1 &&
           f.channels == 1 && strcmp(f.query_type, "general") == 0,
       "a new judgement replaces the earlier one (label -1, channels 1)");
    store_feedback_clear(&f);
    ok(store_clear_feedback(s, rid, "dentist?", &err) == MS_OK, "store_clear_feedback");
    ok(store_feedback_of(s, rid, "dentist?", &f, &found, &err) == MS_OK && !found, "withdraws it");
    ok(store_feedback_of(s, rid, "other?", &f, &found, &err) == MS_OK && found && f.label == -1,
       "the other query's judgement stays");
    store_feedback_clear(&f);
    store_close(s);
}

/* store_edit changes the fields in place; store_get_for_put of the memory
 * before, put back, undoes it; and after a delete brings it back. */
/* Do two edge lists hold the same edges in the same order? */
static int same_edges(const store_edge *a, size_t na, const store_edge *b, size_t nb)
{
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++)
        if (a[i].src != b[i].src || a[i].dst != b[i].dst || a[i].type != b[i].type ||
            a[i].weight != b[i].weight)
            return 0;
    return 1;
}

/* store_delete_saving keeps what a delete takes and store_undelete puts it
 * back as it was: the memory at its rid, its edges, relations both ways
 * (and the superseded memory's fields), its judgement; a rid taken since
 * is refused and changes nothing. */
static void test_undelete(void)
{
    store *s = open_new("undelete.db");
    ms_error err;
    ms_error_clear(&err);
    int64_t a = put_simple(s, "u1", "Kestrel goes live on Sunday", "Leah", "s1");
    int64_t b = put_simple(s, "u2", "Kestrel is moving to January", "Leah", "s1");
    int64_t c = put_simple(s, "u3", "Marcus told the board about Kestrel", "Leah", "s1");
    ok(store_set_supersedes(s, b, a, "moved", &err) == MS_OK &&
           store_set_contradicts(s, c, b, "not January", &err) == MS_OK &&
           store_begin(s, &err) == MS_OK &&
           store_add_feedback(s, b, "when is kestrel", "factual", 1, 3, &err) == MS_OK &&
           store_end(s, &err) == MS_OK,
       "u2 supersedes u1, u3 contradicts u2, u2 is judged (%s)", err.msg);
    store_edge *e0 = NULL, *e1 = NULL;
    store_relation *r0 = NULL, *r1 = NULL;
    size_t ne0 = 0, ne1 = 0, nr0 = 0, nr1 = 0;
    store_edges_of(s, b, &e0, &ne0, &err);
    store_relations_of(s, b, &r0, &nr0, &err);
    store_removed *rm = NULL;
    ok(store_begin(s, &err) == MS_OK && store_delete_saving(s, "u2", &rm, &err) == MS_OK &&
           store_end(s, &err) == MS_OK && rm,
       "delete u2, keeping its rows");
    store_memory m;
    store_relation *ra = NULL;
    size_t nra = 9;
    ok(store_get(s, "u2", 0, &m, &err) == MS_NOT_FOUND &&
           store_relations_of(s, a, &ra, &nra, &err) == MS_OK && nra == 0,
       "it is gone, and so are its relations");
    store_relations_free(ra, nra);
    ok(store_get(s, "u1", 0, &m, &err) == MS_OK && m.superseded_by == NULL,
       "u1 is no longer superseded");
    store_memory_clear(&m);
    ms_error_clear(&err);
    ok(store_undelete(s, rm, &err) == MS_OK, "store_undelete (%s)", err.msg);
    ok(store_get(s, "u2", 0, &m, &err) == MS_OK && m.rid == b &&
           strcmp(m.content, "Kestrel is moving to January") == 0,
       "u2 is back at its rid");
    store_memory_clear(&m);
    store_edges_of(s, b, &e1, &ne1, &err);
    store_relations_of(s, b, &r1, &nr1, &err);
    ok(ne0 > 0 && same_edges(e0, ne0, e1, ne1), "with its %zu edges as they were", ne0);
    int rel_same = nr0 == 2 && nr1 == nr0;
    for (size_t i = 0; rel_same && i < nr0; i++)
        rel_same = r0[i].other == r1[i].other && r0[i].kind == r1[i].kind &&
                   r0[i].outgoing == r1[i].outgoing && !strcmp(r0[i].reason, r1[i].reason);
    ok(rel_same, "and both relations, direction and reason");
    ok(store_get(s, "u1", 0, &m, &err) == MS_OK && m.superseded_by &&
           strcmp(m.superseded_by, "u2") == 0,
       "u1 is superseded by u2 again");
    store_memory_clear(&m);
    store_feedback f;
    int found = 0;
    ok(store_feedback_of(s, b, "when is kestrel", &f, &found, &err) == MS_OK && found &&
           f.label == 1 && f.channels == 3,
       "and its judgement is back");
    if (found)
        store_feedback_clear(&f);
    store_removed_free(rm);
    rm = NULL;
    /* the newest memory deleted, and its rid taken by the next one */
    ok(store_begin(s, &err) == MS_OK && store_delete_saving(s, "u3", &rm, &err) == MS_OK &&
           store_end(s, &err) == MS_OK,
       "delete u3, the newest");
    int64_t d = put_simple(s, "u4", "another memory", NULL, NULL);
    ms_error_clear(&err);
    ok(d == c && store_undelete(s, rm, &err) == MS_DUPLICATE && strstr(err.msg, "u3"),
       "when its rid was taken since, store_undelete refuses with MS_DUPLICATE (%s)", err.msg);
    int u4 = store_get(s, "u4", 0, &m, &err) == MS_OK;
    if (u4)
        store_memory_clear(&m);
    ok(u4 && store_get(s, "u3", 0, &m, &err) == MS_NOT_FOUND, "and changes nothing");
    store_removed_free(rm);
    free(e0);
    free(e1);
    store_relations_free(r0, nr0);
    store_relations_free(r1, nr1);
    store_close(s);
}

static void test_edit(void)
{
    store *s = open_new("edit.db");
    ms_error err;
    ms_error_clear(&err);
    int64_t rid = put_simple(s, "e1", "Leah's dentist is on Friday", "Leah", "s1");
    store_memory before;
    ms_status got = store_get_for_put(s, "e1", &before, &err);
    ok(got == MS_OK && before.rid == rid && before.n_entities == 0,
       "store_get_for_put: the memory, without its derived entities");
    store_edit_fields f;
    store_edit_fields_init(&f);
    f.content = "Leah's dentist moved to Monday";
    f.speaker = "Sam";
    f.memory_confidence = 0.25;
    f.trust_alpha = 3;
    f.trust_beta = 1;
    ok(store_begin(s, &err) == MS_OK && store_edit(s, "e1", &f, &err) == MS_OK &&
           store_end(s, &err) == MS_OK,
       "store_edit in a transaction");
    store_memory m;
    ok(store_get(s, "e1", 0, &m, &err) == MS_OK && m.rid == rid &&
           strcmp(m.content, "Leah's dentist moved to Monday") == 0 &&
           strcmp(m.speaker, "Sam") == 0 && m.memory_confidence == 0.25 && m.trust_alpha == 3 &&
           m.trust_beta == 1 && strcmp(m.session, "s1") == 0,
       "the fields changed in place (same rid, session kept)");
    store_memory_clear(&m);
    store_edit_fields_init(&f);
    f.memory_confidence = 7;
    ok(store_edit(s, "e1", &f, &err) != MS_OK && strstr(err.msg, "memory_confidence"),
       "a bad value is refused naming the field");
    ok(store_get(s, "e1", 0, &m, &err) == MS_OK && m.memory_confidence == 0.25,
       "and the memory is unchanged");
    store_memory_clear(&m);
    store_edit_fields_init(&f);
    f.speaker = "";
    ok(store_edit(s, "e1", &f, &err) == MS_OK && store_get(s, "e1", 0, &m, &err) == MS_OK &&
           m.speaker == NULL,
       "an empty speaker clears it");
    store_memory_clear(&m);
    ok(store_edit(s, "nosuch", &f, &err) == MS_NOT_FOUND, "editing a missing id: MS_NOT_FOUND");
    ok(store_put(s, &before, STORE_DUP_REPLACE, NULL, &err) == MS_OK &&
           store_get(s, "e1", 0, &m, &err) == MS_OK &&
           strcmp(m.content, "Leah's dentist is on Friday") == 0 && strcmp(m.speaker, "Leah") == 0,
       "putting back store_get_for_put's copy undoes the edit");
    store_memory_clear(&m);
    ok(store_delete(s, "e1", &err) == MS_OK && store_get(s, "e1", 0, &m, &err) == MS_NOT_FOUND,
       "deleted");
    ms_error_clear(&err);
    before.rid = 0;
    ok(store_put(s, &before, STORE_DUP_ERROR, NULL, &err) == MS_OK &&
           store_get(s, "e1", 0, &m, &err) == MS_OK &&
           strcmp(m.content, "Leah's dentist is on Friday") == 0,
       "and the copy brings it back after a delete (%s)", err.msg);
    store_memory_clear(&m);
    store_memory_clear(&before);
    store_close(s);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        printf("Bail out! cannot create a temporary directory: %s\n", strerror(errno));
        return 1;
    }
    test_new_store();
    test_new_store_unlogged();
    test_migration();
    test_schema5();
    test_schema6_vectors();
    test_refusals();
    test_crud();
    test_duplicates();
    test_validation();
    test_count_paths();
    test_profiles();
    test_profile_counts();
    test_get_rids();
    test_listing();
    test_fts();
    test_fts_long();
    test_doclen_grow();
    test_readonly();
    test_entities_edges();
    test_derived_edges();
    test_sparse_entity_ids();
    test_sentence_first_word();
    test_temporal_nearest();
    test_add_edge();
    test_relations();
    test_relation_sync();
    test_cued_entities_plan();
    test_holds_cue();
    test_holds_title_head();
    test_schema6();
    test_detect();
    test_detect_noted();
    test_fact_candidates();
    test_two_writers();
    test_seal();
    test_cache_key();
    test_rewritten();
    test_put_hint();
    test_memory_words();
    test_tokring();
    test_parse_time();
    test_format_time();
    test_utf8();
    test_feedback_toggle();
    test_edit();
    test_undelete();
    remove_tmpdir();
    return done_testing();
}
