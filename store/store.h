/* store.h - one SQLite file holding an agent's memories.
 *
 * The store knows SQLite and nothing else: no retrieval, no terminal. It owns
 * the schema (versioned with PRAGMA user_version, migrated forward in code),
 * the memories and their FTS5 index, entities and memory-entity links, typed
 * weighted edges, trust, and vectors. Ingest enrichment (entities, edges) is
 * done here at write time so that recall stays a read.
 *
 * Every query is scoped to the store's current profile (store_use_profile);
 * export is the one operation that can see every profile.
 *
 * Ownership: strings returned inside structs are owned by the struct and freed
 * by its *_clear / *_free function. Callback pointers are valid only during the
 * callback. */
#ifndef MS_STORE_H
#define MS_STORE_H

#include <stdint.h>
#include <stdio.h>

#include "store/base/status.h"

#define STORE_SCHEMA_VERSION 11
#define STORE_SCHEMA_READS_FROM 4       /* an older schema read as it is, without upgrading */
#define STORE_APPLICATION_ID 0x4d53434f /* "MSCO" */
#define STORE_CONTENT_MAX (1024 * 1024) /* bytes of content per memory */
#define STORE_ID_MAX 512                /* bytes of a memory id */
#define STORE_FIELD_MAX 4096            /* bytes of speaker, session, source, ... */
#define STORE_PROFILE_MAX 128           /* bytes of a profile name */
#define STORE_ENTITIES_MAX 64           /* entities linked to one memory */
#define STORE_DIM_MAX 8192              /* dimension of a vector */
#define STORE_METADATA_MAX 65536        /* bytes of a memory's metadata object */
#define STORE_BUSY_MS 5000              /* busy timeout */
#define STORE_DEFAULT_PROFILE "default"
#define STORE_TS_NONE INT64_MIN /* "no time known" */

typedef struct store store;

enum store_open_flags {
    STORE_OPEN_READONLY = 1, /* SQLITE_OPEN_READONLY; every write refuses */
    STORE_OPEN_NOCREATE = 2, /* a reader: a missing or empty file is an error, never a new store */
};

/* Open (or create, mode 0600) the store at path. On failure *out is NULL, err
 * says what and where, and the file is left exactly as it was: a non-SQLite
 * file, a newer schema or a corrupt file is never written to. */
ms_status store_open(const char *path, unsigned flags, store **out, ms_error *err);

/* Close and free; NULL is fine. Rolls back an open transaction. A store
 * that changed nothing (a reader) never checkpoints another process's
 * write-ahead log into the file at its close (docs/ENGINE.md, "What a read
 * touches"). */
void store_close(store *s);

/* Is the file at path a memscope store: a regular file that starts with
 * SQLite's header and memscope's application id? Reads its first 100 bytes
 * and never opens it with SQLite. 0 for a missing, empty or other file. */
int store_file_is_store(const char *path);

/* Remove the store file at path and the side files SQLite and memscope keep
 * beside it (-wal, -shm, -journal, .seal): for a store this process created
 * and could not finish. Missing files are fine. */
void store_remove_files(const char *path);

const char *store_path(const store *s);
int store_is_readonly(const store *s);
/* The schema version an older store is read as (its first write upgrades
 * it: store_require_writable), or 0 when it is the current one. */
int store_upgrade_pending(const store *s);

/* MS_READONLY with "cannot WHAT: store PATH is opened read-only" when the store
 * is read-only, else MS_OK. Writing commands call it before they start; the
 * first call brings an older schema that was read as it is up to date. */
ms_status store_require_writable(store *s, const char *what, ms_error *err);

/* Select the profile every later call works in (default "default"). The name
 * is copied. */
ms_status store_use_profile(store *s, const char *profile, ms_error *err);
const char *store_profile(const store *s);

/* Number of memories in every profile. */
ms_status store_total(store *s, int64_t *n, ms_error *err);

/* Number of distinct profiles holding memories. */
ms_status store_profile_count(store *s, int64_t *n, ms_error *err);

/* Does the current profile hold any memory? One index seek (store_count
 * counts every table: seconds at a million memories). */
ms_status store_profile_has_memories(store *s, int *yes, ms_error *err);
/* Does no memory live outside the current profile? (Scans can then skip
 * joining memories to filter by profile; the profile's count is the
 * store's.) Two index seeks. */
ms_status store_only_profile(store *s, int *only, ms_error *err);

/* How many times this connection ran SQLite's whole-file check (PRAGMA
 * quick_check) before a write: 0 when none wrote, or when the file was as
 * the last checked memscope writer left it (PATH.seal, store.c). For tests
 * and benchmarks. */
int store_full_checks(const store *s);

/* Transactions. store_begin takes the write lock (BEGIN IMMEDIATE);
 * store_read_begin opens a read snapshot (BEGIN DEFERRED) and may be used on
 * read-only stores. store_end commits; store_rollback discards. */
ms_status store_begin(store *s, ms_error *err);
ms_status store_read_begin(store *s, ms_error *err);
ms_status store_end(store *s, ms_error *err);
void store_rollback(store *s);

/* A change counter that moves whenever a write is committed: by another
 * connection (PRAGMA data_version) or by this one (its own commits, which
 * the pragma does not count), so a snapshot can tell it is stale. */
int64_t store_data_version(store *s);

/* What a copy of the store's contents kept outside it (the engine's
 * snapshot file) is valid for. */
typedef struct store_key {
    char uid[33];              /* the store's own id, made with its first write */
    int64_t generation;        /* moves with every committed write but feedback */
    int64_t schema;            /* the schema the store is read with */
    int64_t rewritten;         /* the last generation whose transaction did more than append
                                  new memories (store_put of new ids, each the newest row, with
                                  what they derive) and write relations between memories (with
                                  the superseded_* fields those set or clear): a copy made under
                                  generation g >= rewritten holds every row but those appended
                                  since, unchanged (relations, which no copy keeps, and the
                                  superseded_* fields of the memories a successor names, which a
                                  grow reads again, aside).
                                  INT64_MAX when not known (nothing written since an older
                                  memscope wrote the store) */
    int64_t superseded_marked; /* the last generation whose transaction changed the
                                  superseded_* fields of a memory a relation names (a
                                  supersession marked or cleared), 0 when none: a grow from
                                  an earlier one reads those fields again */
} store_key;

/* The store's key as the open read transaction sees it (call inside one).
 * The generation moves in the same transaction as every change (store_end;
 * a write made outside a transaction runs in one of its own) but feedback
 * (store_add_feedback, store_feedback_reset: not what a copy keeps), so a copy
 * made under one key holds what the store held under it. 0 with *out
 * filled; -1 when the store has no id yet (nothing written since an older
 * memscope made it) or it cannot be read: then nothing may be kept. */
int store_cache_key(store *s, store_key *out);

/* The length in tokens of every row of the text index, by rowid: len[rid -
 * base] for base <= rid < base + span, -1 where not known; what ms_bm25
 * reads instead of FTS5's per-row lookups. Call inside a read transaction.
 * store_doclen_get gives the store's own (read now if it has none; valid
 * until the index changes); -1 when there is none (sparse rowids, no
 * memory). store_doclen_lend makes the store use len (borrowed: it must
 * stay valid until the store closes or the index changes) as the lengths
 * of the index as the transaction sees it; the caller vouches for them
 * (the engine's snapshot file, made under the same store_cache_key). */
int store_doclen_get(store *s, const int32_t **len, int64_t *base, size_t *span);
int store_doclen_lend(store *s, const int32_t *len, int64_t base, size_t span);
/* The loan of len ends (before len goes away); nothing when the store uses
 * other lengths by now. */
void store_doclen_return(store *s, const int32_t *len);
/* The lengths as they are now, made from those of an earlier generation
 * (len from base over span) after which the store only appended
 * (store_key.rewritten): the rows past span read, and the one old row each
 * append changes read again (the turn before the new memory in its
 * session, whose neighbour text now holds it: context.c); the result
 * checked against the index's own row count and token total. 0 with the
 * new array in *out (the caller's: free it after store_doclen_return) and
 * lent to the store as store_doclen_lend does; -1 when it cannot be made so
 * (the store reads its own when asked). Inside a read transaction. */
int store_doclen_grow(store *s, const int32_t *len, int64_t base, size_t span, int32_t **out);

/* ---- memories ---------------------------------------------------------- */

typedef struct store_memory {
    int64_t rid;                      /* internal row id; 0 before insertion */
    char *id;                         /* stable text id; generated when NULL on put */
    char *profile;                    /* profile it lives in (output only) */
    char *content;                    /* the text (required) */
    char *created_at;                 /* ISO 8601, normalised to UTC "YYYY-MM-DDTHH:MM:SSZ" */
    int64_t created_ts;               /* the same in Unix seconds */
    char *event_time;                 /* when it happened, or NULL */
    int64_t event_ts;                 /* Unix seconds, or STORE_TS_NONE */
    char *speaker, *session, *source; /* provenance, each may be NULL */
    double memory_confidence;         /* 0..1, default 0.7 */
    double trust_alpha, trust_beta;   /* Beta(alpha, beta), default (1, 1) */
    double importance;                /* 0..1, default 0.5 */
    int pinned;                       /* always passes the evidence floor */
    int64_t access_count;
    char *last_accessed; /* ISO 8601 or NULL */
    char **entities;     /* names; on put: given entities; on get: all linked */
    size_t n_entities;
    float *embedding;  /* on put: a given vector (NULL = compute); on get: NULL */
    int dim;           /* length of embedding */
    char *embedder_id; /* on put with embedding: who made it */
    char *metadata;    /* a JSON object of free keys and values, or NULL; stored
                          minified, keys in their order */
    /* Supersession: what replaced this memory and since when (a newer fact,
     * an expired validity). Any of them may be NULL; the memory counts as
     * superseded when superseded_by or superseded_at is set. */
    char *superseded_by;     /* id of the memory that replaced it */
    char *superseded_at;     /* ISO 8601, normalised like created_at */
    char *superseded_reason; /* free text: "supersedes edge", "valid_until passed" */
    /* on put (optional): store_might_state(content), worked out by the
     * caller (an import's reader thread); -1 (the default) when not */
    int might_state;
    /* on put (optional): store_memory_words(m), worked out by the caller
     * (an import's reader thread); NULL (the default) when not. Owned. */
    struct store_words *words;
    /* on get (output only): the model and dimension of its stored vector;
     * NULL and 0 when it has none */
    char *vector_model;
    int vector_dim;
} store_memory;

/* Set every field to its default (nothing allocated). */
void store_memory_init(store_memory *m);
/* Free every owned field and re-initialise. */
void store_memory_clear(store_memory *m);

/* trust_score = alpha / (alpha + beta). */
double store_trust_score(const store_memory *m);

/* Is m superseded (superseded_by or superseded_at set)? */
int store_is_superseded(const store_memory *m);

/* "superseded by m0210 (2026-03-08)" (the date part of at; either part is
 * left out when NULL) into buf of cap bytes; "" when both are NULL. The one
 * wording `show`, the browser and the engine's trace use. */
void store_supersession_text(const char *by, const char *at, char *buf, size_t cap);

typedef enum store_dup_policy {
    STORE_DUP_ERROR,   /* an existing id is an error (default) */
    STORE_DUP_SKIP,    /* keep the existing memory, ignore the new one */
    STORE_DUP_REPLACE, /* overwrite fields in place (keeps its position) */
} store_dup_policy;

typedef enum store_put_result {
    STORE_PUT_INSERTED,
    STORE_PUT_SKIPPED,
    STORE_PUT_REPLACED,
} store_put_result;

/* Validate m and write it into the current profile with its entities, edges
 * and vector. Fills m->rid (and m->id when generated). Must run inside
 * store_begin/store_end. On a validation error nothing is written and err
 * names the field. */
ms_status store_put(store *s, store_memory *m, store_dup_policy dup, store_put_result *res,
                    ms_error *err);

/* The memory the next store_put will write, when the caller knows it (an
 * import reads ahead): a new turn of a session then goes in with its
 * neighbour text whole, the next turn's words included, instead of having
 * that text rewritten by the next put (an UPDATE of the row, a tenth of an
 * import's writing). It is a guess the next put confirms; any other next
 * put corrects it, and so does store_end, so nothing committed differs.
 * next is borrowed until the next store_put returns, or the transaction
 * ends; NULL says nothing. */
void store_put_hint(store *s, const store_memory *next);

/* Fetch one memory of the current profile by id (or by rid when id is NULL)
 * into *out, which the caller clears. MS_NOT_FOUND when absent. */
ms_status store_get(store *s, const char *id, int64_t rid, store_memory *out, ms_error *err);

/* Fetch the memories of the current profile with the n distinct rids
 * rid[0..n) into out[0..n), in that order: every field store_get fills but
 * the entities, which are left empty (what recall shows of a memory needs
 * none). One query per STORE_GET_BATCH rids, where store_get takes two per
 * memory. Every out[k] is initialised and the caller clears them all, also
 * on failure. MS_NOT_FOUND, naming the first rid of a chunk that is not in
 * the profile, when one is missing. */
#define STORE_GET_BATCH 64
ms_status store_get_rids(store *s, const int64_t *rid, size_t n, store_memory *out, ms_error *err);

/* Delete one memory (and its links, edges, vector) by id. */
ms_status store_delete(store *s, const char *id, ms_error *err);

/* What a delete took away, row by row (undelete.c): the memory's row, its
 * entity links and the entities only it named, its edges, relations,
 * judgements and vector, and the superseded_* fields of the memories it
 * superseded as they were. Owns its values. */
typedef struct store_removed store_removed;

/* Delete memory id like store_delete, keeping in *out every row it takes
 * away or changes, for store_undelete. Nothing is kept on an error. The
 * caller frees *out with store_removed_free. */
ms_status store_delete_saving(store *s, const char *id, store_removed **out, ms_error *err);

/* Put back what r kept, as it was: the memory at its own rid (its place
 * in the session and every row that names it), its neighbours' context
 * again. One transaction (or inside the caller's). MS_DUPLICATE when its
 * rid or id was taken since, MS_USAGE when another profile is in use;
 * nothing changes then. r stays the caller's. */
ms_status store_undelete(store *s, const store_removed *r, ms_error *err);
void store_removed_free(store_removed *r);

/* Memory id as store_put would take it back: store_get's fields with
 * entities = only the ones given with it (the derived ones are derived
 * again), so store_put(out, STORE_DUP_REPLACE) after an edit, or
 * STORE_DUP_ERROR after a delete, writes it back as it was. The caller
 * clears *out. MS_NOT_FOUND when absent. */
ms_status store_get_for_put(store *s, const char *id, store_memory *out, ms_error *err);

/* What a user changes of one memory; NULL strings and negative numbers
 * keep the field. An empty speaker or event_time clears it. */
typedef struct store_edit_fields {
    const char *content, *speaker, *created_at, *event_time;
    double memory_confidence;       /* 0..1, < 0 keeps */
    double trust_alpha, trust_beta; /* both > 0, or both < 0 to keep */
} store_edit_fields;

/* Every field kept (the starting point of an edit). */
void store_edit_fields_init(store_edit_fields *f);

/* Change memory id in place (its rid, position, session, metadata and given
 * entities stay): a store_put with STORE_DUP_REPLACE of the edited memory,
 * so the index, the derived entities and edges and (when the content
 * changed) the vector follow. Validation errors name the field; nothing is
 * written then. Must run inside store_begin/store_end. */
ms_status store_edit(store *s, const char *id, const store_edit_fields *f, ms_error *err);

enum store_scan_entities {
    STORE_SCAN_NONE = 0,  /* leave entities empty */
    STORE_SCAN_ALL = 1,   /* every linked entity */
    STORE_SCAN_GIVEN = 2, /* only those supplied with the memory (export) */
};

/* Call fn for each memory of the current profile (or of every profile when
 * all_profiles), ordered by profile then insertion, with entities as
 * with_entities says. fn returns 0 to continue, non-zero to stop. */
typedef int (*store_memory_fn)(void *ctx, const store_memory *m);
ms_status store_scan(store *s, int all_profiles, int with_entities, store_memory_fn fn, void *ctx,
                     ms_error *err);

/* What recall needs of a memory, without its text (for loading the
 * engine's snapshot). Strings are valid during the callback only. */
typedef struct store_meta {
    int64_t rid;
    int64_t created_ts;
    int64_t event_ts;              /* STORE_TS_NONE when unknown */
    const char *session, *speaker; /* NULL when none */
    int pinned;
    double trust_alpha, trust_beta, memory_confidence;
    int superseded;            /* superseded_by or superseded_at is set */
    const char *superseded_by; /* NULL when none */
    int64_t superseded_ts;     /* STORE_TS_NONE when unknown */
} store_meta;

/* Call fn for each memory of the current profile in rid order; fn returns
 * 0 to continue. */
typedef int (*store_meta_fn)(void *ctx, const store_meta *m);
ms_status store_scan_meta(store *s, store_meta_fn fn, void *ctx, ms_error *err);
/* The same for the memories of rid > after only. */
ms_status store_scan_meta_after(store *s, int64_t after, store_meta_fn fn, void *ctx,
                                ms_error *err);
/* The same for the memories whose superseded_by names a successor, through
 * their own index (few: what a grown snapshot reads again, since a
 * supersession set between two memories changes the older one's fields
 * and is no rewrite). */
ms_status store_scan_superseded_by(store *s, store_meta_fn fn, void *ctx, ms_error *err);
/* *rid: the first memory (lowest rid) of session in the current profile, 0
 * when it has none. */
ms_status store_session_first(store *s, const char *session, int64_t *rid, ms_error *err);

/* Counts in the current profile. */
typedef struct store_counts {
    int64_t memories, entities, links, edges, vectors, pinned;
} store_counts;
ms_status store_count(store *s, store_counts *out, ms_error *err);
/* The same, with pinned 0 unless asked for: counting the pinned memories
 * reads every row of the table (0.78 s at a million memories), where the
 * engine's snapshot already holds them (engine_health_get). */
ms_status store_count_some(store *s, int pinned, store_counts *out, ms_error *err);

/* Set the trust evidence of one memory (feedback, corrections). */
ms_status store_set_trust(store *s, int64_t rid, double alpha, double beta, ms_error *err);

/* ---- text search ------------------------------------------------------- */

/* Tokenise text exactly as the FTS5 index does (porter unicode61
 * remove_diacritics 2). fn gets each token (not NUL-terminated) and the byte
 * range of its source text; returns 0 to continue. */
typedef int (*store_token_fn)(void *ctx, const char *tok, int len, int start, int end);
ms_status store_tokenize(store *s, const char *text, int len, store_token_fn fn, void *ctx,
                         ms_error *err);
/* The same for the stored texts of memories, one after another in rid
 * order, each memory's text before its neighbour text (as the index is
 * built): the tokens of a text cut a moment before are used again
 * (store/tokring.c), the same tokens. */
ms_status store_tokenize_stored(store *s, const char *text, int len, store_token_fn fn, void *ctx,
                                ms_error *err);

/* Number of memories (all profiles) whose content holds the FTS token term. */
ms_status store_term_docs(store *s, const char *term, int64_t *docs, ms_error *err);

/* Run an FTS5 MATCH expression against content, restricted to the current
 * profile, best first. score = -bm25() (larger is better). Ties by rid. */
typedef int (*store_hit_fn)(void *ctx, int64_t rid, double score);
ms_status store_fts(store *s, const char *match, int limit, store_hit_fn fn, void *ctx,
                    ms_error *err);

/* FTS5's totals for the whole index (every profile), as bm25 reads them:
 * *rows the rows it holds, *tokens the tokens of all their columns. */
ms_status store_fts_totals(store *s, int64_t *rows, int64_t *tokens, ms_error *err);

/* Call fn for every memory of every profile in rid order with the two
 * indexed columns bm25 ranks by, content and context (neither
 * NUL-terminated here: clen and xlen bytes; "" when NULL); fn returns 0 to
 * continue. The texts are valid during the call. */
typedef int (*store_text_fn)(void *ctx, int64_t rid, const char *content, int clen,
                             const char *context, int xlen);
ms_status store_scan_text(store *s, store_text_fn fn, void *ctx, ms_error *err);
/* store_scan_text for the n memories rids[] (ascending; a missing one is
 * skipped), then for every memory whose rid is above after. */
ms_status store_scan_text_some(store *s, const int64_t *rids, size_t n, int64_t after,
                               store_text_fn fn, void *ctx, ms_error *err);
/* store_scan_text for the content alone (context "", xlen 0) of every
 * memory of every profile whose rid is above after, in rid order. */
ms_status store_scan_content(store *s, int64_t after, store_text_fn fn, void *ctx, ms_error *err);

/* Call fn(ctx, rid) for every memory of the current profile whose text
 * matches the FTS5 expression match (columns named in it as it likes), in
 * rid order, unranked: cheaper than store_fts when the order and the score
 * do not matter. fn returns 0 to continue. */
typedef int (*store_rid_fn)(void *ctx, int64_t rid);
ms_status store_fts_match(store *s, const char *match, store_rid_fn fn, void *ctx, ms_error *err);
/* The same for the memories whose rid is above after only (the index
 * seeks past the others). */
ms_status store_fts_match_after(store *s, const char *match, int64_t after, store_rid_fn fn,
                                void *ctx, ms_error *err);

/* ---- entities and edges ------------------------------------------------ */

typedef enum store_entity_kind {
    STORE_ENTITY_SPEAKER = 1,
    STORE_ENTITY_NAME = 2,   /* capitalised (multi-word) name */
    STORE_ENTITY_QUOTED = 3, /* quoted phrase */
    STORE_ENTITY_GIVEN = 4,  /* supplied with the memory */
} store_entity_kind;

typedef struct store_entity {
    int64_t eid;
    char *name;   /* display form */
    char *norm;   /* lower-cased match form */
    int kind;     /* store_entity_kind */
    int64_t docs; /* memories linked to it */
} store_entity;

void store_entities_free(store_entity *v, size_t n);

/* The match form of an entity name: lower case (ASCII and Latin-1 capitals),
 * curly apostrophes made straight, runs of spaces collapsed. out gets at
 * most cap - 1 bytes (4 * len + 8 is always enough). */
void store_entity_norm(const char *text, size_t len, char *out, size_t cap);

/* Entities linked to memory rid, ordered by name. Caller frees with
 * store_entities_free. */
ms_status store_entities_of(store *s, int64_t rid, store_entity **out, size_t *n, ms_error *err);

/* Every entity of the current profile. */
ms_status store_entities_all(store *s, store_entity **out, size_t *n, ms_error *err);

/* Call fn for every entity of the current profile in eid order, with docs
 * -1 (not counted: cheaper than store_entities_all). The strings are valid
 * during the callback only; fn returns 0 to continue. */
typedef int (*store_entity_fn)(void *ctx, const store_entity *e);
ms_status store_scan_entities(store *s, store_entity_fn fn, void *ctx, ms_error *err);

/* Call fn(ctx, rid, eid) for each memory-entity link of the current profile,
 * ordered by eid then rid. */
typedef int (*store_link_fn)(void *ctx, int64_t rid, int64_t eid);
ms_status store_scan_links(store *s, store_link_fn fn, void *ctx, ms_error *err);
/* The links of the memories of rid > after only, ordered by rid then eid. */
ms_status store_scan_links_after(store *s, int64_t after, store_link_fn fn, void *ctx,
                                 ms_error *err);

typedef enum store_edge_type {
    STORE_EDGE_SESSION = 1,  /* adjacent turns of one session (+-1, +-2) */
    STORE_EDGE_ENTITY = 2,   /* share a named entity */
    STORE_EDGE_TEMPORAL = 3, /* events close in time across sessions */
    STORE_EDGE_RELATION = 4, /* a link the source store recorded between two memories
                                (an MCP relation between their entities, an SLM graph
                                edge); spreading activation walks it */
    STORE_EDGE_TYPES = 5,
} store_edge_type;

/* "session", "entity", "temporal", "relation". */
const char *store_edge_type_name(int type);

typedef struct store_edge {
    int64_t src, dst; /* src < dst: edges are undirected, stored once */
    int type;
    double weight; /* 0..1 */
} store_edge;

/* qsort's order of store_edge: by (src, dst, type), the edges table's key. */
int store_edge_cmp(const void *a, const void *b);

/* Add an undirected edge of type between memories (rids) a and b of the
 * current profile, given by an imported store (SuperLocalMemory's graph, an
 * MCP relation), weight clamped to 0..1, inside store_begin/store_end. An
 * edge that exists keeps the larger weight, so importing the same links again
 * changes nothing; a == b adds nothing. MS_USAGE for an unknown type or a
 * weight that is not finite; an error when either memory is not in the
 * profile. */
ms_status store_add_edge(store *s, int64_t a, int64_t b, int type, double weight, ms_error *err);

/* Edges touching rid, either end, each once: by type, the heaviest first.
 * Caller frees *out with free(). Session and entity edges are worked out
 * from the rows (store/graph.c); the edges table keeps the others. */
ms_status store_edges_of(store *s, int64_t rid, store_edge **out, size_t *n, ms_error *err);

/* The edges touching each of the n distinct rids rid[0..n), either end, as
 * store_edges_of gives them for each but in no set order: those of rid[k]
 * are (*out)[(*first)[k] .. (*first)[k + 1]) (an edge between two of them
 * is in both). One query per STORE_GET_BATCH rids. The caller frees *out
 * and *first with free(); both are NULL on failure. */
ms_status store_edges_of_rids(store *s, const int64_t *rid, size_t n, store_edge **out,
                              size_t **first, ms_error *err);

/* Does the current profile hold any edge? */
ms_status store_has_edges(store *s, int *yes, ms_error *err);

/* Call fn for every edge of the current profile, in no set order, until
 * it returns non-zero. An edge the store keeps and derives too (an imported
 * store's entity edge, say) may come twice, with two weights: the larger is
 * the edge's, as store_edges_of gives it. */
typedef int (*store_edge_fn)(void *ctx, const store_edge *e);
ms_status store_scan_edges(store *s, store_edge_fn fn, void *ctx, ms_error *err);
/* Call fn for every edge with an end above rid after (those derived: of
 * the current profile; those kept: of any), in no set order, perhaps twice
 * as store_scan_edges. */
ms_status store_scan_edges_after(store *s, int64_t after, store_edge_fn fn, void *ctx,
                                 ms_error *err);

/* ---- relations --------------------------------------------------------- */

/* Directed relations between two memories, with the evidence or reason for
 * each: what a curator, an importer or the supersession detector says about
 * two memories' facts, as opposed to the edges above (which say they are
 * near). Kept in their own table (schema 7), src -> dst:
 *   supersedes:  src is the newer fact that replaces dst. Recorded by
 *                store_set_supersedes (or an importer), dst's superseded_by /
 *                superseded_at / superseded_reason say the same; one found
 *                by store_detect_supersession is the relation alone;
 *   contradicts: src says the opposite of dst (src is the one that
 *                contradicts; one row per pair, either direction). */
typedef enum store_rel_kind {
    STORE_REL_SUPERSEDES = 1,
    STORE_REL_CONTRADICTS = 2,
    STORE_REL_KINDS = 3,
} store_rel_kind;

/* "supersedes", "contradicts"; "unknown" for any other kind. */
const char *store_rel_kind_name(int kind);

/* Record that memory newer_rid supersedes memory older_rid (both of the
 * current profile), with reason (the evidence: free text, may be NULL).
 * older's superseded_by becomes newer's id, superseded_at newer's time (its
 * event_time, else created_at) and superseded_reason the reason (or
 * "supersedes relation"). A relation that exists gets the new reason; the
 * reverse one (older supersedes newer), if recorded, is removed with it.
 * One transaction (a savepoint inside the caller's): on an error nothing is
 * changed. MS_USAGE when newer_rid == older_rid or the reason is not valid
 * UTF-8 of at most STORE_FIELD_MAX bytes; MS_NOT_FOUND when a rid is not a
 * memory of the profile; MS_READONLY on a read-only store. */
ms_status store_set_supersedes(store *s, int64_t newer_rid, int64_t older_rid, const char *reason,
                               ms_error *err);

/* Record that memory a_rid contradicts memory b_rid, with reason (may be
 * NULL). A contradiction already recorded between the two, either way, gets
 * the new reason and keeps its direction. Transaction and errors as for
 * store_set_supersedes; the memories' own fields are not changed. */
ms_status store_set_contradicts(store *s, int64_t a_rid, int64_t b_rid, const char *reason,
                                ms_error *err);

/* Undo: remove the relation of kind (store_rel_kind) between a_rid and
 * b_rid, whichever way it points. Clearing a supersedes relation also
 * clears the older memory's superseded_by / _at / _reason when they name
 * the newer one, or points them at another memory that still supersedes
 * it. One transaction as above. MS_USAGE for an unknown kind; MS_NOT_FOUND
 * when a rid is not a memory of the profile or the two have no such
 * relation. */
ms_status store_clear_relation(store *s, int64_t a_rid, int64_t b_rid, int kind, ms_error *err);

/* Find supersession among the memories written after rid `after` (every
 * profile) and all the others: the same attribute of the same subject stated
 * again later with another value, or a correction that rejects the earlier
 * value (store/supersede.c, docs/ENGINE.md). First the superseded_by fields
 * that name a memory become supersedes relations; then each pair found is
 * recorded as a supersedes relation whose reason is the evidence, unless it
 * or its reverse is recorded already. A relation found this way leaves the
 * older memory's superseded_* fields alone: they stay what its source or a
 * curator (store_set_supersedes) said, so recall applies it only to
 * questions about now. *found gets how many were added. Inside the import's
 * transaction. */
ms_status store_detect_supersession(store *s, int64_t after, uint64_t *found, ms_error *err);

/* The attributes supersession knows (store/supersede.c): what a memory may
 * state of a subject, and a question may ask. */
enum {
    STORE_ATTR_EMPLOYER,
    STORE_ATTR_RESIDENCE,
    STORE_ATTR_MANAGER,
    STORE_ATTR_ROLE,
    STORE_ATTR_ALLERGY,
    STORE_ATTR_DATE,
    STORE_ATTR_LEAD,
    STORE_ATTR_AGE,
    STORE_ATTR_COUNT
};

/* Whom a question asks about, as far as its words say. */
enum {
    STORE_WHO_ANY,   /* the question does not say */
    STORE_WHO_SELF,  /* "I", "me", "my manager", "my job title": a speaker */
    STORE_WHO_OTHER, /* "my sister", "my dad": someone who is not a speaker */
};

/* The attribute a question asks (STORE_ATTR_*), or -1: "where ... work",
 * "work for", "employer" an employer; "where ... live", "address" a
 * residence; "manager", "boss" a manager; "job title", "role", "position"
 * a role; "allergic" an allergy; "in charge of", "who leads" a lead;
 * "how old", "age" an age.
 * *who gets whom it asks about (STORE_WHO_*). */
int store_attr_asked(const char *question, int *who);

/* "employer", "residence", ...; "?" out of range. Static. */
const char *store_attr_name(int attr);

/* Does a memory (its content, its speaker or NULL, the match forms of the
 * entities linked to it) state attribute attr (or reject a value of it:
 * "he's not allergic to shellfish") of the subject asked about? Each of a
 * statement's subjects (match forms as the detector makes them: a linked
 * name, the speaker, "leah's sister") goes to about(subject, arg): > 0 it
 * is the one asked about, < 0 the statement is about someone else, 0 it
 * says neither; a statement counts with a yes and no veto. With the same
 * cues the import detector reads. phrase (cap bytes) gets the statement
 * as written, "" when none. */
int store_states(const char *content, const char *speaker, char *const *ents, size_t n_ents,
                 int attr, int (*about)(const char *subject, void *arg), void *arg, char *phrase,
                 size_t cap);

/* The largest rid of any memory (0 for an empty store): what
 * store_detect_supersession is given before a write. */
ms_status store_max_rid(store *s, int64_t *rid, ms_error *err);

/* Might content state a fact that supersession compares (a cue, an age, a
 * title): 1 or 0; -1 when out of memory. Only such memories are read by
 * store_detect_supersession. */
int store_might_state(const char *content);

/* The words entity linking cuts m's text into (after a leading "Speaker:"),
 * and which of them cannot start a name, worked out ahead of store_put
 * (m->words, freed with m): a put uses them while m's content and speaker
 * are the ones they were made from. 0, or -1 when out of memory. */
int store_memory_words(store_memory *m);

/* Inside a write transaction, before the puts whose supersession
 * store_detect_supersession(s, after, ...) will look for (after is
 * store_max_rid's answer): from here on, the store notes each memory it
 * inserts and which of them might state a fact, so that the detection
 * reads only those instead of every new memory. Without it, or when
 * anything else wrote rows after `after`, the detection reads them all as
 * before. Ends with the transaction. */
void store_note_new_facts(store *s, int64_t after);

/* One relation as seen from one of its memories. */
typedef struct store_relation {
    int64_t rid;    /* the memory asked about */
    int64_t other;  /* the memory at the other end */
    char *other_id; /* its id */
    int kind;       /* store_rel_kind */
    int outgoing;   /* 1: rid supersedes / contradicts other; 0: other -> rid */
    char *reason;   /* NULL when none was given */
} store_relation;

void store_relations_free(store_relation *v, size_t n);

/* The relations of memory rid, either end, ordered by kind, then outgoing
 * first, then the other's rid. Caller frees with store_relations_free. An
 * older schema read as it is has none. */
ms_status store_relations_of(store *s, int64_t rid, store_relation **out, size_t *n, ms_error *err);

/* The contradicts relations memory rid is the source of (whatever the
 * current profile: relations never cross profiles), ordered by the other
 * memory's rid, with outgoing = 1; for export. Caller frees with
 * store_relations_free. *yes of store_has_contradictions is 1 when any
 * profile holds one. An older schema has none. */
ms_status store_contradictions_from(store *s, int64_t rid, store_relation **out, size_t *n,
                                    ms_error *err);
ms_status store_has_contradictions(store *s, int *yes, ms_error *err);

/* Call fn for every relation of the current profile, ordered by kind, src,
 * dst; reason is NULL when none and valid during the callback only. fn
 * returns 0 to continue. */
typedef int (*store_relation_fn)(void *ctx, int64_t src, int64_t dst, int kind, const char *reason);
ms_status store_scan_relations(store *s, store_relation_fn fn, void *ctx, ms_error *err);

/* ---- vectors ----------------------------------------------------------- */

/* The embedder that made a store's vectors. When set, store_put calls it in
 * batches for memories given without an embedding. */
typedef struct store_vectorizer {
    const char *id; /* e.g. "hash3-5:512" */
    int dim;
    size_t batch;   /* texts per call (>= 1) */
    int background; /* embed may run on a thread of the store's own (one call at a
                       time), overlapping the writes */
    /* Embed n texts into out[n * dim]; unit length. */
    ms_status (*embed)(void *ctx, const char *const *texts, size_t n, float *out, ms_error *err);
    void *ctx;
} store_vectorizer;

/* Use v (copied; v->ctx must outlive the store) for later puts; NULL stops. */
void store_set_vectorizer(store *s, const store_vectorizer *v);

/* Embed whatever store_put queued. Called by store_end; call it yourself to
 * bound memory in long imports. */
ms_status store_flush_vectors(store *s, ms_error *err);

/* The embedder recorded in the store (id NULL and dim 0 when none). *id is
 * owned by the store, valid until the next call. */
ms_status store_embedder(store *s, const char **id, int *dim, ms_error *err);

/* Record the store's embedder (in a write transaction). Vectors from another
 * embedder are deleted (they cannot be compared). */
ms_status store_set_embedder(store *s, const char *id, int dim, ms_error *err);

/* Write one memory's vector (dim floats of the recorded embedder). */
ms_status store_put_vector(store *s, int64_t rid, const float *v, int dim, ms_error *err);

/* The exact vector of memory rid into out[dim]. MS_NOT_FOUND when it has
 * none of that dimension. */
ms_status store_get_vector(store *s, int64_t rid, float *out, int dim, ms_error *err);

/* The int8 form of a vector v, kept beside it for fast scans: v[j] ~=
 * scale * q[j], |q[j]| <= 127. For any x, |x . v - scale * (x . q)| <=
 * ||x|| * resid, and ||scale * q|| = qnorm, so a dot product computed on
 * int8 forms has an error bound that needs no exact vector. */
#define STORE_EXACT_MAX 254 /* distinct non-zero codes */
typedef struct store_qvec {
    int64_t rid;
    const int8_t *q; /* [dim] codes; valid during the callback */
    double scale;
    double resid; /* ||v - scale * q|| */
    double qnorm; /* ||scale * q|| */
    /* The exact vector from the codes (store_vec_codes), when each non-zero
     * code stands for one float in every dimension that has it, every
     * float is finite and exactly the dimensions of code 0 hold +0.0:
     * n_exact pairs, code exact_code[k] for the float exact[k]. 0 when the
     * codes do not give the floats back (store_quantize leaves it 0). */
    int n_exact;
    int8_t exact_code[STORE_EXACT_MAX];
    float exact[STORE_EXACT_MAX];
} store_qvec;

/* The store's quantisation of v[dim] into q[dim] (caller's buffer), with
 * out->q = q and the scale and norms; out->rid is left alone. */
void store_quantize(const float *v, int dim, int8_t *q, store_qvec *out);

/* Call fn for the int8 form of each vector of the current profile, in rid
 * order (every vector written by store_put_vector has one). */
typedef int (*store_qvec_fn)(void *ctx, const store_qvec *v, int dim);
ms_status store_scan_qvectors(store *s, store_qvec_fn fn, void *ctx, ms_error *err);
/* The same for the memories of rid > after only. */
ms_status store_scan_qvectors_after(store *s, int64_t after, store_qvec_fn fn, void *ctx,
                                    ms_error *err);

/* ---- feedback ---------------------------------------------------------- */

/* One relevance judgement a user made: memory rid was (label +1) or was not
 * (label -1) relevant to query. */
typedef struct store_feedback {
    int64_t rid;
    char *query;
    char *query_type;
    int label;
    unsigned channels; /* bit c: channel c had ranked the memory for that query */
    int64_t at;
} store_feedback;

/* Record a judgement; it replaces an earlier judgement of rid for the same
 * query (one per memory and query, never a counter). The caller holds the
 * transaction. */
ms_status store_add_feedback(store *s, int64_t rid, const char *query, const char *query_type,
                             int label, unsigned channels, ms_error *err);
/* Withdraw rid's judgement for query (nothing when there is none). The
 * caller holds the transaction. */
ms_status store_clear_feedback(store *s, int64_t rid, const char *query, ms_error *err);
/* rid's judgement for query in the current profile into *out, whose
 * strings the caller frees with store_feedback_clear(); *found is 0 (and
 * *out zeroed) when there is none. */
ms_status store_feedback_of(store *s, int64_t rid, const char *query, store_feedback *out,
                            int *found, ms_error *err);
void store_feedback_clear(store_feedback *f);
/* All feedback of the current profile, oldest first; free with
 * store_feedback_free. */
ms_status store_feedback_all(store *s, store_feedback **out, size_t *n, ms_error *err);
void store_feedback_free(store_feedback *v, size_t n);
ms_status store_feedback_reset(store *s, ms_error *err);

/* ---- listing and profiles ---------------------------------------------- */

/* The orders a listing takes (store_list); ties go by rid, memories without
 * the field (no event time, speaker or session) come last either way. */
#define STORE_SORTS(_)                                                                             \
    _(DATE, "date", "created_ts")                                                                  \
    _(EVENT, "event", "event_ts")                                                                  \
    _(SPEAKER, "speaker", "speaker")                                                               \
    _(SESSION, "session", "session")                                                               \
    _(TRUST, "trust", "trust_alpha / (trust_alpha + trust_beta)")                                  \
    _(CONFIDENCE, "confidence", "memory_confidence")                                               \
    _(IMPORTANCE, "importance", "importance")                                                      \
    _(ID, "id", "id")
#define STORE_SORT_ENUM(id, name, expr) STORE_SORT_##id,
typedef enum store_sort { STORE_SORTS(STORE_SORT_ENUM) STORE_SORT_COUNT } store_sort;
#undef STORE_SORT_ENUM

/* "date", "event", ... for a store_sort; NULL when out of range. */
const char *store_sort_name(int sort);

/* Which memories a listing holds and in what order. */
typedef struct store_list_opts {
    int sort;    /* store_sort */
    int desc;    /* largest (newest) first */
    int64_t eid; /* > 0: only the memories linked to this entity */
} store_list_opts;

/* Call fn for at most limit memories of the current profile from position
 * offset (0-based) of the order o gives; entities are not filled, strings
 * are valid during the callback. MS_USAGE for an unknown sort. */
ms_status store_list(store *s, const store_list_opts *o, int64_t offset, int limit,
                     store_memory_fn fn, void *ctx, ms_error *err);

/* Every rid of listing o in its order into *rids (caller frees with
 * free()), *n of them: one sort of the profile, after which any page is
 * store_get by rid (for the orders no index serves). */
ms_status store_list_rids(store *s, const store_list_opts *o, int64_t **rids, int64_t *n,
                          ms_error *err);

/* How many memories the listing o holds. */
ms_status store_list_count(store *s, const store_list_opts *o, int64_t *n, ms_error *err);

/* What the browser's find looks for: text in one field, or in any of
 * content, speaker, session and id. Matching is a substring test that
 * ignores ASCII case, the same in SQL (store_list_find) and in C
 * (store_find_match). */
typedef enum store_find_field {
    STORE_FIND_ANY,
    STORE_FIND_CONTENT,
    STORE_FIND_SPEAKER,
    STORE_FIND_SESSION,
    STORE_FIND_ID,
    STORE_FIND_DATE,  /* created_at as stored, "2023-05-08T..." */
    STORE_FIND_EVENT, /* event_time as stored */
    STORE_FIND_FIELDS
} store_find_field;

typedef struct store_find {
    int field;      /* store_find_field */
    char text[256]; /* ASCII-lowercased; "" matches nothing */
} store_find;

/* Parse "speaker:caroline", "content:my dentist" or plain "dentist" (any
 * field) into f; the field names are those of store_find_field in lower
 * case. An unknown "word:" prefix is text. Text longer than 255 bytes is
 * cut on a character boundary. */
void store_find_parse(const char *text, store_find *f);

/* Does memory m match f? */
int store_find_match(const store_find *f, const store_memory *m);

/* The position in listing o of the next memory matching f after position
 * from (dir > 0) or the previous one before it (dir < 0), wrapping round
 * the end; *pos = -1 when none matches. *matches (may be NULL) gets how
 * many match. One scan of the listing. */
ms_status store_list_find(store *s, const store_list_opts *o, const store_find *f, int64_t from,
                          int dir, int64_t *pos, int64_t *matches, ms_error *err);

/* One profile and the memories it holds. */
typedef struct store_profile_info {
    char *name; /* owned */
    int64_t memories;
} store_profile_info;

/* Every profile holding memories, by name; plus the current profile when
 * it holds none (with 0), so a picker always shows where it is. Caller
 * frees with store_profiles_free. */
ms_status store_profiles(store *s, store_profile_info **out, size_t *n, ms_error *err);
void store_profiles_free(store_profile_info *v, size_t n);

/* ---- time -------------------------------------------------------------- */

/* The times a store keeps: 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z,
 * the ones that format back into four-digit years. */
#define STORE_TIME_MIN (-62167219200LL)
#define STORE_TIME_MAX 253402300799LL

/* Parse ISO 8601 ("2023-05-08", "2023-05-08T13:56", "...:00Z", "+02:00",
 * fractional seconds, a space for T) into Unix seconds UTC. 0 on success,
 * -1 when text is not such a time, -2 when it is one outside
 * [STORE_TIME_MIN, STORE_TIME_MAX] (a leap second or an offset can carry
 * 9999-12-31 into year 10000). */
int store_parse_time(const char *text, int64_t *ts);
/* Format ts as "YYYY-MM-DDTHH:MM:SSZ" into buf (>= 21 bytes). */
void store_format_time(int64_t ts, char *buf, size_t len);

/* ---- text checks ------------------------------------------------------- */

/* Byte offset of the first invalid UTF-8 sequence in s[0..len), or -1. */
long store_utf8_invalid_at(const char *s, size_t len);

#endif
