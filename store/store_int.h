/* store_int.h - what the store's own .c files share; not for other modules. */
#ifndef MS_STORE_INT_H
#define MS_STORE_INT_H

#include <sqlite3.h>

#include "store.h"

/* The columns of a memory row, in the order row_to_memory (memory.c) reads
 * them. A schema-5 store read as it is (store.c) has no metadata or
 * supersession columns: STORE_MEM_COLS_V5 reads NULL for them. */
#define STORE_MEM_COLS_BASE                                                                        \
    "rid, profile, id, content, created_at, created_ts, event_time, event_ts, speaker, session,"   \
    " source, memory_confidence, trust_alpha, trust_beta, importance, pinned, access_count,"       \
    " last_accessed, EXISTS (SELECT 1 FROM vectors v WHERE v.rid=memories.rid)"
#define STORE_MEM_COLS                                                                             \
    STORE_MEM_COLS_BASE ", metadata, superseded_by, superseded_at, superseded_reason"
#define STORE_MEM_COLS_V5 STORE_MEM_COLS_BASE ", NULL, NULL, NULL, NULL"

/* Does the store have schema 6's columns (metadata, supersession)? Not
 * when an older schema is read as it is. */
int store_has_v6(const store *s);
/* Does it have schema 7's relations table (relation.c)? */
int store_has_v7(const store *s);

/* relation.c: add the supersedes relations STORE_REL_SYNC_SQL finds.
 * Every write to the relations table (this, store_add_found_supersession,
 * a relation set or cleared) counts as appended (store_key.rewritten): no
 * copy keeps relations (the engine reads them whole), so an add whose new
 * memory supersedes an older one still lets the snapshot grow. So do the
 * superseded_* fields a relation set or cleared changes: a grow reads those
 * of every memory a successor names again (engine/snapgrow.c). */
ms_status store_relations_sync(store *s, ms_error *err);

/* relation.c: record that newer supersedes older, as the detector found
 * (supersede.c): the relation only, unless it or its reverse is recorded
 * already; the older memory's superseded_* fields stay what its source or a
 * curator said. *added is 1 when a row was written. */
ms_status store_add_found_supersession(store *s, int64_t newer, int64_t older, const char *reason,
                                       int *added, ms_error *err);

/* relation.c: remove memory rid's (id's) relations before it is deleted;
 * the memories it superseded then name their next successor, or none. */
ms_status store_relations_forget(store *s, int64_t rid, const char *id, ms_error *err);

/* The supersedes relations that memories' superseded_by imply (it names a
 * memory of the same profile), added where missing: the 6 -> 7 migration
 * and store_relations_sync run it. From schema 9 it reads the memories
 * that have a superseded_by through their own partial index
 * (memories_superseded), not every memory. */
#define STORE_REL_SYNC_SQL                                                                         \
    "INSERT OR IGNORE INTO relations(src, dst, kind, reason)"                                      \
    " SELECT n.rid, o.rid, 1, o.superseded_reason FROM memories o"                                 \
    " JOIN memories n ON n.profile = o.profile AND n.id = o.superseded_by"                         \
    " WHERE o.superseded_by IS NOT NULL AND n.rid <> o.rid"

/* supersede.c: does text hold one of the detector's cue phrases at word
 * boundaries, compared in lower case? A memory without one states no fact.
 * One pass over the text: an import asks it of every memory of a profile. */
int store_holds_cue(const char *text);
/* supersede.c: memory m was just written (replaced when it was there
 * before): when its rid is at or below the fact candidates' mark, list it
 * if its text might state a fact, else unlist it. */
ms_status store_fact_candidate_put(store *s, const store_memory *m, ms_error *err);

/* supersede.c: after store_note_new_facts, note memory m, just inserted
 * (its rid set): counted, and listed when it might state a fact (its
 * might_state, else worked out here). Nothing otherwise. */
ms_status store_note_fact(store *s, const store_memory *m, ms_error *err);
/* supersede.c: forget the notes (the transaction ends). */
void store_facts_clear(store *s);
/* supersede.c: the k-th cue phrase (lower case), NULL past the last. */
const char *store_cue_text(size_t k);
/* supersede.c: does the lower-case text hold a job title's head noun
 * ("engineer", "manager") as a whole word? One pass over its words. */
int store_holds_title_head(const char *lower);
/* supersede.c: the k-th title head noun, NULL past the last. */
const char *store_title_head_text(size_t k);

/* supersede.c: the match forms of the entities memory ?1 is linked to in
 * profile ?2, sorted. CROSS JOIN keeps the links as the outer loop: left
 * to itself, the planner walks the profile's entities in norm order (the
 * UNIQUE index spares the sort) and probes the memory's links for each,
 * every entity of the profile for every memory read. */
#define STORE_CUED_ENTITIES_SQL                                                                    \
    "SELECT e.norm FROM memory_entities l CROSS JOIN entities e"                                   \
    " ON e.eid=l.eid WHERE l.rid=?1 AND e.profile=?2 ORDER BY e.norm"

/* Prepared statements, compiled once per store on first use. */
enum stmt_id {
    ST_INSERT,
    ST_UPDATE,
    ST_FIND_ID,
    ST_GET_ID,
    ST_GET_RID,
    ST_GET_RIDS,
    ST_DELETE,
    ST_SESSION_PREV,
    ST_ENTITY_FIND,
    ST_ENTITY_INSERT,
    ST_LINK_INSERT,
    ST_LINK_PREV,
    ST_EDGE_UPSERT,
    ST_TIME_AFTER,
    ST_TIME_BEFORE,
    ST_SESSION_OF,
    ST_VECTOR_PUT,
    ST_ENTITIES_OF,
    ST_EDGES_OF,
    ST_EDGES_OF_RIDS,
    ST_FTS,
    ST_TERM_DOCS,
    ST_CONTEXT_PREV,
    ST_CONTEXT_NEXT,
    ST_CONTEXT_BODY,
    ST_CONTEXT_SET,
    ST_FTS_ROW,
    ST_FTS_ADD,
    ST_FTS_DEL,
    ST_VECTOR_GET,
    ST_ENTITY_NAMES,
    ST_OTHER_PROFILES,
    ST_FTS_MATCH,
    ST_NEWER,
    ST_EDGE_ADD,
    ST_EDGE_ADD2, /* the same for 2 rows in one statement (entity.c; an appended
                     memory has at most STORE_EDGE_BATCH_MAX new edges) */
    ST_LINK_ADD,
    ST_LINK_ADD2,
    ST_LINK_ADD4,
    ST_VECTOR_ADD,
    ST_RID_EXISTS,
    ST_LINKED_EIDS,
    ST_ENTITY_DROP,
    ST_SESSION_NEXT,
    ST_GRAPH_MEMORY,
    ST_GRAPH_LINKS,
    ST_GRAPH_LINK_NEXT,
    ST_CAND_LIST, /* the fact candidates (supersede.c) */
    ST_CAND_UNLIST,
    ST_CAND_MARK,
    ST_PROFILE_FIRST, /* the profiles by name, one index seek each (list.c) */
    ST_PROFILE_AFTER,
    ST_PROFILE_SIZE,
    ST_PROFILE_SPAN,
    ST_COUNT
};

typedef struct wcache wcache; /* wcache.c */
typedef struct vjob vjob;     /* vjob.c */

/* A memory whose vector store_put still has to compute. */
typedef struct pending_vec {
    int64_t rid;
    char *text;
    int fresh; /* a new memory: it has no vector yet */
} pending_vec;

struct store {
    sqlite3 *db;
    char *path;
    int readonly;
    int denied;           /* errno (EACCES, EROFS) when the OS refused write access */
    int nocreate;         /* STORE_OPEN_NOCREATE: an empty database is not initialised */
    int64_t upgrade_from; /* an older schema read as it is, upgraded by the first
                             write (store_require_writable); 0 when current */
    int checked;          /* quick_check passed, or the seal held, before this connection's
                             first write (store.c, "the seal") */
    int full_checks;      /* the times it ran quick_check (store_full_checks) */
    int in_txn;
    int writing;         /* the open transaction is a write (store_begin) */
    int64_t changes0;    /* sqlite3_total_changes64 when the transaction began */
    int64_t appended;    /* of those since, the changes store_put made appending new
                            memories (each the newest row): when they are all the
                            transaction's changes, it only appended (store_key.rewritten) */
    int sup_marked;      /* this transaction changed the superseded_* fields of a memory a
                            relation names (relation.c): store_key.superseded_marked */
    int64_t own_commits; /* write transactions this connection committed */
    int unlogged;        /* this connection made the store and has not ended its first
                            write: no write-ahead log yet (store.c, "a new store") */
    int log_checked;     /* log_check ran: the store is in WAL mode, or could not be put */
    char profile[STORE_PROFILE_MAX + 1];
    char ptag[2 * STORE_PROFILE_MAX + 2]; /* "p" + hex(profile): FTS filter */
    sqlite3_stmt *st[ST_COUNT];
    /* embedder */
    char *embedder_id; /* recorded in meta, or NULL */
    int embedder_dim;
    int have_vectorizer;
    store_vectorizer vz;
    pending_vec *pending;
    size_t n_pending, cap_pending;
    vjob *vjob; /* a batch of vectors being computed, or NULL */
    /* tokenizer (FTS5's own) */
    void *fts5_tok;          /* Fts5Tokenizer * */
    void *fts5_tok_api;      /* fts5_tokenizer * */
    int64_t profiles_cached; /* profile count, -1 when unknown */
    /* memories waiting for the text index (fts.c), in order, and a set */
    size_t fts_pending_max; /* STORE_FTS_PENDING_MAX (tests set less) */
    /* store_note_new_facts: since it, the memories inserted (noted) and
     * those of them that might state a fact (facts, in rid order) */
    int facts_on;
    int64_t facts_after, facts_noted;
    int64_t cand_through; /* meta fact_candidates_through as this transaction
                             sees it, -1 until read (supersede.c) */
    int64_t *facts;
    size_t n_facts, cap_facts;
    int fts_long;              /* store_fts_long_begin ran in this transaction */
    int64_t fts_automerge_was; /* the index's 'automerge' setting then, -1: none (default) */
    int64_t *fts_list;         /* [fts_n] */
    int64_t *fts_slot;         /* [fts_cap] open addressing, 0 = empty */
    size_t fts_n, fts_cap;
    wcache *wc; /* what appends remember (wcache.c), or NULL */
    /* store_put_hint's memory, for the next put only (context.c) */
    const store_memory *hint;
    /* a row put with the next turn's words in its neighbour text, until
     * the put of that turn confirms it (0: none); the text it was given */
    int64_t guess_rid;
    char *guess_session, *guess_text;
    char *guess_made;      /* the text of such a row being put, until it is the guess */
    int putting;           /* in store_put, which counts what it changes */
    uint64_t fts_gen;      /* moves with every write to the text index */
    struct doclen *doclen; /* row lengths for bm25 (bm25.c), or NULL */
    int bm25_ready;        /* ms_bm25 is registered on the connection */
};

/* Statement i, reset and with bindings cleared; NULL with err set on failure. */
sqlite3_stmt *store_stmt(store *s, enum stmt_id i, ms_error *err);

/* err from the connection's last error, prefixed with what was being done. */
ms_status store_sql_fail(store *s, int rc, const char *doing, ms_error *err);

/* A write called outside a transaction runs in one of its own, so that
 * the generation (store_cache_key) moves with it: store_solo_begin opens
 * one when none is open (*solo = 1); store_solo_end ends it, committing
 * when st is MS_OK, else rolling back; it returns st or the commit's
 * failure. Inside the caller's transaction both do nothing. */
ms_status store_solo_begin(store *s, int *solo, ms_error *err);
ms_status store_solo_end(store *s, int solo, ms_status st, ms_error *err);

/* Run SQL with no results. */
ms_status store_exec(store *s, const char *sql, ms_error *err);

/* Copy a column as a fresh string (NULL for SQL NULL). */
char *store_col_text(sqlite3_stmt *st, int col);

/* The edges an appended memory adds to the table (new rows, each (src, dst,
 * type) once): its temporal ones, the only ones kept (graph.c derives the
 * others). Gathered so that they go in together: a statement of several
 * rows costs SQLite less than that many. src is the earlier memory, dst the
 * new one. */
#define STORE_EDGE_BATCH_MAX 2 /* no more than ST_EDGE_ADD2 writes (rows_take) */
typedef struct store_edge_batch {
    int64_t src[STORE_EDGE_BATCH_MAX];
    int type[STORE_EDGE_BATCH_MAX];
    double w[STORE_EDGE_BATCH_MAX];
    int n;
} store_edge_batch;

/* entity.c: extract entity names from a memory and link them. append: m
 * is a new memory, the newest row (the write cache may answer, and the
 * links go in together). */
ms_status store_link_entities(store *s, const store_memory *m, int append, ms_error *err);
/* entity.c: insert the edges of *b to memory dst, in statements of four,
 * two or one rows (new rows only). */
ms_status store_edges_write(store *s, int64_t dst, const store_edge_batch *b, ms_error *err);

/* entity.c: are the entities given with m (matched as names are: case and
 * apostrophes folded) exactly those linked to memory rid as given? */
int store_given_entities_match(store *s, int64_t rid, const store_memory *m);

/* context.c: the neighbour-text column. After rid (in session) was written,
 * recompute its context and its neighbours'. */
ms_status store_context_written(store *s, int64_t rid, const char *session, ms_error *err);
/* The turns before and after rid in session (0 when none). */
ms_status store_context_neighbours(store *s, int64_t rid, const char *session, int64_t *prev,
                                   int64_t *next, ms_error *err);
/* Recompute the context of one memory (rid 0 or no session: nothing). */
ms_status store_context_refresh(store *s, int64_t rid, const char *session, ms_error *err);

/* fts.c: the text index, written by code (no triggers; see fts.c).
 * store_fts_inserted: rid is a new row, not yet indexed. store_fts_pending:
 * before an UPDATE that may change rid's content, context or ptag.
 * store_fts_forget: before deleting rid. store_fts_flush: index every
 * pending memory (before a commit or a read of the index).
 * store_fts_discard: forget them (rollback). store_fts_free: on close. */
#define STORE_FTS_PENDING_MAX 50000 /* memories waiting for the index at most */
ms_status store_fts_inserted(store *s, int64_t rid, ms_error *err);
ms_status store_fts_pending(store *s, int64_t rid, ms_error *err);
ms_status store_fts_forget(store *s, int64_t rid, ms_error *err);
ms_status store_fts_flush(store *s, ms_error *err);
/* The same in a long write, keeping rid (the row just put) pending: the
 * next turn of its session rewrites its neighbour text (fts.c says why). */
ms_status store_fts_flush_keeping(store *s, int64_t rid, ms_error *err);
/* A long write (STORE_FTS_PENDING_MAX memories pending at once): FTS5's
 * automatic merging of its segments is off until store_fts_long_end, which
 * runs before the commit and sets the index's automerge setting back as it
 * was (fts.c says why). */
ms_status store_fts_long_begin(store *s, ms_error *err);
ms_status store_fts_long_end(store *s, ms_error *err);
void store_fts_discard(store *s);
void store_fts_free(store *s);

/* vector.c: the blob of a vector v[dim] into buf (room for dim floats):
 * sparse when that is shorter (vector.c says how). Returns its bytes. */
size_t store_vec_encode(const float *v, int dim, unsigned char *buf);
/* ... and back into out[dim]: 0, or -1 when blob is no vector of dim. */
int store_vec_decode(const void *blob, size_t len, float *out, int dim);

/* vector.c: the int8 form of the vector in blob[len] (store_quantize of
 * its floats, computed over its non-zero dimensions) into q[dim] and *out
 * (out->rid is left alone): 0, or -1 when blob is no vector of dim. */
int store_vec_codes(const void *blob, size_t len, int dim, int8_t *q, store_qvec *out);

/* memory.c: write rid's vector of dim floats, as store_vec_encode made
 * it: its blob[len]. fresh: rid is a new memory with no vector yet (a plain
 * insert). */
ms_status store_vector_write(store *s, int64_t rid, const unsigned char *blob, size_t len, int dim,
                             int fresh, ms_error *err);

/* vjob.c: vectors on a second thread (store_vectorizer.background).
 * start: finish the batch in flight, then hand it the pending memories.
 * finish: wait for it and write its vectors. discard: wait and drop them. */
ms_status store_vjob_start(store *s, ms_error *err);
ms_status store_vjob_finish(store *s, ms_error *err);
void store_vjob_discard(store *s);

/* store.c: run a one-integer query. */
ms_status store_query_int(store *s, const char *sql, int64_t *out, ms_error *err);
/* store.c: run a one-truth query whose ?1 is the current profile (what:
 * what an error says it was reading). */
ms_status store_query_yes(store *s, const char *sql, const char *what, int *yes, ms_error *err);

/* graph.c: the session and entity edges, worked out from the rows (schema
 * 10) rather than kept in the edges table. */
typedef struct store_edge_list {
    store_edge *v;
    size_t n, cap;
} store_edge_list;
/* Append the edge between a and b (src the smaller): 0, or -1 out of memory. */
int store_edge_list_add(store_edge_list *l, int64_t a, int64_t b, int type, double w);
/* Sort v[0..*n) by (src, dst, type), each key once with its largest weight. */
void store_edges_merge(store_edge *v, size_t *n);
/* Are the session and entity edges derived (not kept) in this store? */
int store_derives_edges(const store *s);
/* The derived edges touching rid, appended to out: all of them (both), or
 * only those to earlier memories (its own, as an import would have added
 * them). */
ms_status store_graph_of(store *s, int64_t rid, int both, store_edge_list *out, ms_error *err);
/* Every derived edge of profile, once each, in no set order (only: the
 * store has no other profile). */
ms_status store_graph_scan(store *s, const char *profile, int only, store_edge_fn fn, void *ctx,
                           ms_error *err);
/* The derived edges of the current profile's memories after rid `after`
 * to earlier ones (every derived edge with an end past it). */
ms_status store_graph_after(store *s, int64_t after, store_edge_fn fn, void *ctx, ms_error *err);
/* Does the current profile have a derived edge? */
ms_status store_graph_exists(store *s, int *yes, ms_error *err);
/* How many edges of the current profile the derivation adds to the kept ones. */
ms_status store_graph_count(store *s, int64_t *n, ms_error *err);
/* Schema 9 -> 10: mark the speakers' links, drop the kept rows derived again. */
ms_status store_graph_upgrade(store *s, ms_error *err);
/* entity.c: the match form of a speaker, as its link's entity has it: 1, or
 * 0 when a speaker of that name is not linked. */
int store_speaker_norm(const char *speaker, char *norm, size_t cap);
#define STORE_NAME_MAX_BYTES 96

/* wcache.c: copies of what the tables say, kept while a transaction only
 * appends memories. store_wcache_clear before any other write, at the end
 * of a transaction and when the profile changes.
 * entity: 1 (*eid set), 0 (the profile has none), -1 (not known).
 * body: the text a memory gives its neighbours' context, or NULL.
 * session: the count (0-2) of last[] (the session's newest memories, newest
 * first), -1 not known. */
void store_wcache_clear(store *s);
int store_wcache_entity(store *s, const char *norm, int64_t *eid);
void store_wcache_set_entity(store *s, const char *norm, int64_t eid);
const char *store_wcache_body(store *s, int64_t rid);
void store_wcache_set_body(store *s, int64_t rid, const char *body);
int store_wcache_session(store *s, const char *session, int64_t last[2]);
void store_wcache_set_session(store *s, const char *session, const int64_t *last, int n);
/* newest: is rid the row after the newest one appended (so the newest)? */
/* The session of memory rid, appended in this transaction with an event
 * time (temporal_edges' candidates): 1 and *session (NULL: none; valid
 * until the cache is cleared) when known, else 0. */
int store_wcache_session_of(store *s, int64_t rid, const char **session);
void store_wcache_set_session_of(store *s, int64_t rid, const char *session);
int store_wcache_newest(store *s, int64_t rid);
void store_wcache_set_newest(store *s, int64_t rid);

/* context.c: before a new memory m of m->session is inserted: the turns
 * before it (the session's newest, newest first) into prev[0..*n_prev),
 * and its neighbour text while it is the newest row (*context, the caller
 * frees; NULL for none).
 * After it was inserted as the newest row with that text: what
 * store_context_written does, with fewer queries. */
ms_status store_context_new(store *s, const store_memory *m, int64_t prev[2], int *n_prev,
                            char **context, ms_error *err);
ms_status store_context_appended(store *s, const store_memory *m, const int64_t *prev, int n_prev,
                                 ms_error *err);
/* tokring.c: register FTS5's porter tokenizer on api's connection, over
 * SQLite's own: the same tokens, those of recent texts used again; an
 * SQLite code. */
int store_tokring_register(fts5_api *api);
/* How many tokens it has handed on from memory in this process (tests). */
uint64_t store_tokring_reused(void);

/* context.c: the row of an unconfirmed guess (store_put_hint) given the
 * neighbour text the tables say; forget: drop the guess unwritten (at a
 * rollback). */
ms_status store_context_settle(store *s, ms_error *err);
void store_context_forget(store *s);

/* bm25.c: FTS5's bm25 as ms_bm25(memories_fts), with row lengths read in
 * one scan. register: on the connection (fts5api is its fts5_api *).
 * refresh: before a ranked search, make the lengths those of the index as
 * it is. free: on close. */
int store_bm25_register(store *s, void *fts5api);
void store_doclen_refresh(store *s);
void store_doclen_free(store *s);

/* memory.c: fill m (which the caller clears) from a row of STORE_MEM_COLS,
 * entities left empty. MS_NOMEM when out of memory. */
ms_status store_row_memory(store *s, sqlite3_stmt *st, store_memory *m);

/* Duplicate a string (NULL stays NULL); aborts nothing, returns NULL on OOM. */
char *store_strdup(const char *s);

#endif
