/* store_int.h - what the store's own .c files share; not for other modules. */
#ifndef MS_STORE_INT_H
#define MS_STORE_INT_H

#include <sqlite3.h>

#include "store.h"

/* Prepared statements, compiled once per store on first use. */
enum stmt_id {
    ST_INSERT,
    ST_UPDATE,
    ST_FIND_ID,
    ST_GET_ID,
    ST_GET_RID,
    ST_DELETE,
    ST_SESSION_PREV,
    ST_ENTITY_FIND,
    ST_ENTITY_INSERT,
    ST_LINK_INSERT,
    ST_LINK_PREV,
    ST_EDGE_UPSERT,
    ST_TIME_NEAR,
    ST_VECTOR_PUT,
    ST_ENTITIES_OF,
    ST_EDGES_OF,
    ST_FTS,
    ST_TERM_DOCS,
    ST_CONTEXT_PREV,
    ST_CONTEXT_NEXT,
    ST_CONTEXT_BODY,
    ST_CONTEXT_SET,
    ST_FTS_ROW,
    ST_FTS_ADD,
    ST_FTS_DEL,
    ST_COUNT
};

/* A memory whose vector store_put still has to compute. */
typedef struct pending_vec {
    int64_t rid;
    char *text;
} pending_vec;

struct store {
    sqlite3 *db;
    char *path;
    int readonly;
    int denied;  /* errno (EACCES, EROFS) when the OS refused write access */
    int checked; /* quick_check passed before this connection's first write */
    int in_txn;
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
    /* tokenizer (FTS5's own) */
    void *fts5_tok;         /* Fts5Tokenizer * */
    void *fts5_tok_api;     /* fts5_tokenizer * */
    int64_t profiles_cached; /* profile count, -1 when unknown */
    /* memories waiting for the text index (fts.c), in order, and a set */
    int64_t *fts_list;      /* [fts_n] */
    int64_t *fts_slot;      /* [fts_cap] open addressing, 0 = empty */
    size_t fts_n, fts_cap;
};

/* Statement i, reset and with bindings cleared; NULL with err set on failure. */
sqlite3_stmt *store_stmt(store *s, enum stmt_id i, ms_error *err);

/* err from the connection's last error, prefixed with what was being done. */
ms_status store_sql_fail(store *s, int rc, const char *doing, ms_error *err);

/* Run SQL with no results. */
ms_status store_exec(store *s, const char *sql, ms_error *err);

/* Copy a column as a fresh string (NULL for SQL NULL). */
char *store_col_text(sqlite3_stmt *st, int col);

/* entity.c: extract entity names from a memory and link them. */
ms_status store_link_entities(store *s, const store_memory *m, ms_error *err);

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
ms_status store_fts_inserted(store *s, int64_t rid, ms_error *err);
ms_status store_fts_pending(store *s, int64_t rid, ms_error *err);
ms_status store_fts_forget(store *s, int64_t rid, ms_error *err);
ms_status store_fts_flush(store *s, ms_error *err);
void store_fts_discard(store *s);
void store_fts_free(store *s);

/* Duplicate a string (NULL stays NULL); aborts nothing, returns NULL on OOM. */
char *store_strdup(const char *s);

#endif
