/* engine_int.h - what the engine's own files share: the snapshot of a
 * profile, the analysed query, ranked lists and the channel ops table. */
#ifndef MS_ENGINE_INT_H
#define MS_ENGINE_INT_H

#include <stdint.h>

#include "dates.h"
#include "embed.h"
#include "engine.h"
#include "lexicon.h"

/* ---- snapshot: the profile in memory ------------------------------------ */

typedef struct vcache vcache;         /* exact vectors read on demand (vectors.c) */
typedef struct term_cache term_cache; /* document counts of terms (terms.c) */
typedef struct snap_adj snap_adj;     /* one memory's edges (edges.c) */
typedef struct time_index time_index; /* memories by day (ch_temporal.c) */

/* What recall works out once per snapshot, when it is first needed. */
typedef struct snapshot_lazy {
    uint8_t *time_marks;     /* [n] content says when (ch_temporal.c), or NULL */
    term_cache *terms;       /* document counts asked so far, or NULL */
    snap_adj **adj;          /* [n] edges read so far (edges.c), or NULL */
    uint32_t *adj_held;      /* [n_held] the memories whose adj was allocated */
    size_t n_held, cap_held; /* adj_held's length and room */
    time_index *by_day;      /* memories sorted by the day of `when`, or NULL */
    long *unit_terms;        /* the postings' terms that hold a unit of time (ch_temporal.c) */
    size_t n_unit_terms;
    int unit_terms_done; /* 1: unit_terms worked out, 2: they could not be */
} snapshot_lazy;

void time_index_free(time_index *t);

/* Memories are addressed by index 0..n-1 (ascending rid). Built once per
 * store version; read-only afterwards (but for the cache of exact vectors). */
typedef struct snapshot {
    int64_t data_version; /* store_data_version at load */
    char profile[STORE_PROFILE_MAX + 1];
    size_t n;
    int64_t n_all;      /* memories in every profile (for idf) */
    int64_t *rid;       /* [n] ascending */
    int32_t *rid_index; /* [rid_span] rid - rid_base -> index or -1; NULL when
                           the rids are too sparse (snapshot_find searches) */
    int64_t rid_base;
    size_t rid_span;
    int64_t *when;        /* [n] event time if known, else created time */
    int64_t *created;     /* [n] */
    int32_t *session;     /* [n] interned session, -1 when none */
    int32_t *speaker_ent; /* [n] entity index of the memory's speaker, -1 when none */
    uint8_t *pinned;      /* [n] */
    double *trust;        /* [n] alpha / (alpha + beta) */
    double *confidence;   /* [n] memory_confidence */
    /* superseded memories, ascending index: sup_idx[k] is one, sup_text[k]
     * "superseded by m0210 (2026-03-08)" (owned), sup_by[k] whether a
     * memory replaced it (else it expired) */
    size_t n_sup;
    uint32_t *sup_idx;
    char **sup_text;
    uint8_t *sup_by;
    /* supersedes relations between two memories of the profile, sorted by
     * older then newer (store_scan_relations) */
    size_t n_succ;
    struct snap_succ *succ;
    int64_t newest;         /* the latest `when` of the profile */
    int64_t newest_created; /* the latest created time of the profile: its "now" */
    /* vectors */
    int dim;    /* 0 when none */
    int8_t *qv; /* int8 forms (store_qvec), dimension-major by segment of VEC_SEG blocks:
                   code d of memory i at vectors_code_at(sn, i, d); 0 without a vector */
    double *q_scale, *q_resid, *q_norm; /* [n] of each int8 form */
    double *blk_max;                    /* [3 * blocks] largest q_scale, q_resid, q_norm of each */
    uint8_t *q_slope; /* [n] |q_scale| over its block's largest, rounded up, in 255ths (0 without
                         a vector): the scan's test before the norms are read */
    int8_t *stage;    /* while loading: one block memory-major (vectors_put) */
    size_t stage_blk; /* the block staged, SIZE_MAX when none */
    uint8_t *has_vec; /* [n] */
    /* each memory's exact floats by code (store_qvec.n_exact): memory i's
     * code qx_code[k] stands for qx_val[k], k in qx_at[i] .. + qx_n[i];
     * qx_n[i] 0 when its codes do not give its floats back */
    uint32_t *qx_at;     /* [n] */
    uint8_t *qx_n;       /* [n] */
    int8_t *qx_code;     /* [n_qx] */
    float *qx_val;       /* [n_qx] */
    size_t n_qx, cap_qx; /* pairs held, room for (while loading) */
    size_t n_vec;
    char *vec_embedder;  /* who made them */
    char *vec_note;      /* "store vectors from MODEL, D-d; no query embedder for that
                            model - see docs/EMBEDDERS.md" (owned) */
    vcache *exact;       /* exact vectors read so far (snapshot_vector) */
    snapshot_lazy *lazy; /* worked out on first use (never NULL) */
    store *s;            /* the store they are read from (borrowed) */
    /* edges: read per memory on first use (snapshot_edges) */
    int has_edges; /* the profile holds at least one */
    /* store_count_some's counts at the snapshot's generation (pinned 0), as
       the file that was mapped keeps them; counts_known 0 otherwise (read
       from the tables, grown) */
    store_counts counts;
    int counts_known;
    /* entities: memory -> entities and entity -> memories, CSR */
    size_t n_ent;
    char **ent_norm;           /* [n_ent] lower-case names, or NULL when mapped: then
                                  ent_text_file + ent_off_file[e] (snapshot_ent_norm) */
    uint8_t *ent_kind;         /* [n_ent] */
    uint8_t *ent_speaker;      /* [n_ent] some memory of the profile is spoken by it */
    uint32_t *me_off, *me_ent; /* memory -> entity indices */
    uint32_t *em_off, *em_mem; /* entity -> memory indices */
    uint32_t *ent_map;         /* open addressing over ent_norm: index + 1, 0 empty */
    size_t ent_map_cap;
    /* the snapshot file mapped (snapfile.c), or NULL. When mapped, the
     * arrays above are in it (read-only) and only ent_norm, sup_text (the
     * arrays, not their strings), the vector note, the exact vectors, the
     * relations (succ: read from the store, not kept in the file) and the
     * lazy parts are owned */
    void *map;
    size_t map_len;
    int map_fd;   /* the mapped file, open while it is mapped (vectors_alloc_from) */
    int map_left; /* snapshot_free leaves the file mapped (engine_close_at_exit) */
    /* a grown snapshot's arrays that begin with its base file's pages,
     * mapped privately (snap_cow_join): unmapped, not freed */
    struct snap_cow *cow;
    size_t n_cow;
    const uint8_t *marks_file; /* [n] the file's time marks (ch_temporal.c), or NULL */
    const int32_t *doclen;     /* the file's row lengths lent to the store, or NULL */
    int32_t *doclen_own;       /* a grown snapshot's, lent to the store as doclen (owned) */
    const int32_t *file_len; /* the file's row lengths by rid from file_len_base (span), or NULL */
    int64_t file_len_base;
    size_t file_len_span;
    int64_t grown_from;    /* the generation of the snapshot this one extended (snapgrow.c),
                              0 when read from the tables whole */
    struct postings *post; /* bm25's postings in the file (postings.c), or NULL */
    /* each memory's edges as snapshot_edges gives them, in the file: those
     * of memory i are adj_file[adj_off[i] .. adj_off[i + 1]); NULL when the
     * file has none (read from the store when first asked, edges.c) */
    const uint32_t *adj_off;
    const struct snap_edge *adj_file;
    /* the entities' names in the file: name e at ent_text_file +
     * ent_off_file[e] (snapshot_ent_norm), or NULL when not mapped */
    const uint32_t *ent_off_file;
    const char *ent_text_file;
    /* the memories sorted by the day of `when` (ch_temporal.c's time
     * index), in the file: day_file[k] the day, day_idx_file[k] the
     * memory; NULL when not (built on the first dated query) */
    const int64_t *day_file;
    const uint32_t *day_idx_file;
    /* [n] the file's: does memory i's content say how long something
     * lasted (ch_temporal.c), or NULL (its text is read when asked) */
    const uint8_t *dur_file;
} snapshot;

/* Load the store's current profile. Call inside a read transaction so the
 * tables are read from one snapshot. */
ms_status snapshot_load(store *s, snapshot **out, ms_error *err);
/* How far a load has got (engine_progress_fn, engine.h): fn NULL for none. */
typedef struct snap_progress {
    engine_progress_fn fn;
    void *ctx;
    const char *what; /* the part being read */
    int64_t span;     /* what its positions are counted against (rids, entities) */
    int last;         /* the last percent said, -1 none yet */
} snap_progress;
/* snapshot_load, saying how far it has got through pg (may be NULL). */
ms_status snapshot_load_with(store *s, snap_progress *pg, snapshot **out, ms_error *err);
void snapshot_free(snapshot *sn);
/* Index of rid, or -1. */
long snapshot_find(const snapshot *sn, int64_t rid);

/* Memory for one of a snapshot's large arrays, freed with free(): malloc,
 * or calloc when zero, asking the kernel for 2 MB pages over it when it is
 * SNAP_BIG bytes or more. Growing a 1M snapshot copies a 1 GB file's
 * columns into such arrays, and each 4 KB page of fresh memory costs a
 * page fault (10-13 us on the project's VM). */
#define SNAP_BIG (4u << 20)
void *snap_big_alloc(size_t n, int zero);
/* bytes for one of sn's large arrays whose first keep bytes are src's, src
 * a section of old's: when old is a mapped file and keep is SNAP_COW_MIN or
 * more, the file's pages wholly inside them are mapped privately instead
 * of copied (a grown snapshot's columns: no fresh page to zero and fill
 * for them), the region recorded in sn; else snap_big_alloc and a copy.
 * The bytes after keep are 0. Free with snap_big_free, grow with
 * snap_big_realloc, never free or realloc.
 * NULL when out of memory. */
#define SNAP_COW_MIN (256u << 10) /* smaller columns are copied */
void *snap_cow_join(snapshot *sn, const snapshot *old, const void *src, size_t keep, size_t bytes);
/* Free p, one of sn's large arrays: unmapped when snap_cow_join mapped it. */
void snap_big_free(snapshot *sn, void *p);
/* p (one of sn's large arrays, of old bytes, or NULL) with room for bytes:
 * realloc's, or for a region snap_cow_join mapped, a copy into memory of
 * its own and the region unmapped. NULL when out of memory (p kept). */
void *snap_big_realloc(snapshot *sn, void *p, size_t old, size_t bytes);

/* A growable array for loading a snapshot (snapshot.c, snapgrow.c): zero
 * it with .size the element's size; snap_grow_push gives room for one more
 * element at the end, or NULL when out of memory (p stays valid). */
typedef struct snap_grow {
    void *p;
    size_t n, cap, size;
} snap_grow;
void *snap_grow_push(snap_grow *g);

/* The store's entities as store_scan_entities lists them (eid order):
 * their eids (int64_t), match forms (char *, owned, "" for none) and kinds
 * (uint8_t), for snapshot.c's loader and snapgrow.c's. Zero it with each
 * array's .size; snap_read_entity is the scan's callback; norm.n of them
 * are read (oom set when memory ran out). */
typedef struct snap_ents {
    snap_grow eid, norm, kind;
    int oom;
} snap_ents;
int snap_read_entity(void *p, const store_entity *e);

/* A link of memory index mem and entity index ent. */
typedef struct snap_pair {
    uint32_t mem, ent;
} snap_pair;

/* The index of eid in the ascending eids[0..n), or -1. */
long snapshot_find_eid(const int64_t *eids, size_t n, int64_t eid);
/* Is memory i superseded? Then *text says by what and since when (valid
 * while sn is) and *by whether a memory replaced it. */
int snapshot_superseded(const snapshot *sn, size_t i, const char **text, int *by);
/* Index of the entity with normalised name norm, or -1. */
long snapshot_entity(const snapshot *sn, const char *norm);
/* sn's rid index (rid_index, rid_base, rid_span) from its rids, when they
 * are dense enough (else snapshot_find searches). */
void snapshot_index_rids(snapshot *sn);
/* The lower-case name of entity e of sn (valid while sn is). */
static inline const char *snapshot_ent_norm(const snapshot *sn, size_t e)
{
    return sn->ent_text_file ? sn->ent_text_file + sn->ent_off_file[e] : sn->ent_norm[e];
}

/* sn's ent_map over its ent_norm. */
ms_status snapshot_map_entities(snapshot *sn, ms_error *err);
/* sn's supersedes relations (succ) from the store, as snapshot_load reads them. */
ms_status snapshot_load_successors(store *s, snapshot *sn, ms_error *err);
/* The snapshot of the store's current profile made from old (of that
 * profile, read under a key whose generation is at least the store's
 * rewritten one: the store only appended since) and the memories appended
 * since (snapgrow.c): what snapshot_load would read, into *out (caller
 * frees with snapshot_free; old is not changed). With marked (a
 * supersession was marked or cleared since old's generation:
 * store_key.superseded_marked), the superseded_* fields of the memories a
 * successor names are read again. *out NULL with MS_OK when old cannot be
 * kept (another embedder, other entities). Inside a read transaction. */
ms_status snapshot_grow(store *s, const snapshot *old, int marked, snapshot **out, ms_error *err);

/* One supersedes relation: newer replaces older (indices), and why. */
typedef struct snap_succ {
    uint32_t older, newer;
    char *reason; /* owned; NULL when none was given */
} snap_succ;

/* The relations in which memory i is the older one: *first and the count. */
size_t snapshot_successors(const snapshot *sn, size_t i, const snap_succ **first);
/* ---- the snapshot file (snapfile.c) ---------------------------------------- */

/* The path of the snapshot file of the store's current profile into
 * buf[cap]: beside the store when its file and folder are writable, else in
 * the user's cache folder (made when missing). 0, or -1 when there is none. */
int snapfile_path(store *s, char *buf, size_t cap);

/* Is a profile of n memories worth a file (MEMSCOPE_SNAPSHOT: "off" never,
 * "always" at any size; else from SNAPFILE_MIN memories)? */
int snapfile_wanted(size_t n);

/* The snapshot in the file, mapped, when it was made under key (the read
 * transaction's, store_cache_key) for the current profile; else NULL, and
 * when the file is there but damaged, of another version or of another
 * store, note[cap] says so in one line (else ""). Free with snapshot_free. */
snapshot *snapfile_open(store *s, const store_key *key, char *note, size_t cap);
/* The snapshot in the file, mapped, when it was made for the current
 * profile under an older key of the store since which the store only
 * appended (key->rewritten): a base for snapshot_grow, its generation in
 * *generation; else NULL. */
snapshot *snapfile_open_base(store *s, const store_key *key, int64_t *generation);

/* Write sn, loaded under key, to the file: a temporary file, synced and
 * renamed over it. Does nothing when another process is writing it or the
 * file cannot be written (recall then loads the tables, as without it). */
void snapfile_save(store *s, const snapshot *sn, const store_key *key);
/* After snapfile_save, in a process with nothing else to do (the child of
 * tui/cli/closing.c): wait until the file under key is old enough to be
 * sealed (SEAL_AGE), then open it as the next reader would, which checks
 * it whole and seals it, and reads every page of it once: that reader then
 * checks only its header and finds its pages in the page cache. Nothing
 * when there is no such file. Outside a transaction: it begins its own
 * after the wait. */
void snapfile_seal_saved(store *s, const store_key *key);

/* ---- vectors (vectors.c) ------------------------------------------------ */

/* A cache of up to min(n, 4096) exact vectors of dim floats. */
vcache *vcache_new(int dim, size_t n);
void vcache_free(vcache *c);

/* The exact vector of memory i, read from the store the first time (call
 * inside the recall's read transaction), or NULL when it has none or it
 * cannot be read. Valid until the next call. Not made from the codes:
 * dimension-major, a memory's codes are on as many pages as it has
 * dimensions (vectors_exact_dot reads only a sparse vector's). */
const float *snapshot_vector(const snapshot *sn, size_t i);

/* The non-zero dimensions of x[dim] into nz[dim], ascending: their count. */
int vectors_nonzero(const float *x, int dim, uint16_t *nz);
/* The dot product of x[dim] with memory i's exact vector, computed from
 * its codes at x's non-zero dimensions nz[n] (vectors_nonzero) as
 * vectors_dot computes it over every dimension, bit for bit, into *out:
 * 0, or -1 when memory i's codes do not give its floats back (then ask
 * snapshot_vector). */
int vectors_exact_dot(const snapshot *sn, const float *x, const uint16_t *nz, int n, size_t i,
                      float *out);
/* The dot product of two float vectors of dim, in eight partial sums. */
float vectors_dot(const float *a, const float *b, int dim);

/* The int8 forms are kept by segment of VEC_SEG blocks of VEC_BLOCK
 * memories (block b holds indices b * VEC_BLOCK ..; the last segment has
 * as many blocks as are left), and within a segment by dimension: the
 * codes of one dimension for the segment's memories are adjacent bytes,
 * block after block (64 KB in a whole segment). A scan reads only the
 * dimensions where the query's code is not 0, and so only their pages. */
#define VEC_BLOCK 512
#define VEC_SEG 128

/* Room for the int8 forms of n memories of dim dimensions (sn->qv, the
 * norms and the block maxima), all 0; -1 when out of memory. */
int vectors_alloc(snapshot *sn, size_t n, int dim);
/* Keep v as memory i's int8 form (dim == sn->dim, i < sn->n). Fastest in
 * ascending i; any order works. Call vectors_done after the last. */
void vectors_put(snapshot *sn, size_t i, const store_qvec *v);
/* v's int8 form into the memory of sn it belongs to (snapshot.c); nothing
 * for a memory sn lacks or a vector of another dimension. */
void snapshot_put_vector(snapshot *sn, const store_qvec *v, int dim);
/* Keep v's exact pairs (store_qvec.n_exact) as memory i's, after those
 * kept so far: 0, or -1 when out of memory. */
int vectors_put_exact(snapshot *sn, size_t i, const store_qvec *v);
/* Every form put is in place (sn->qv); the staging buffer is freed. */
void vectors_done(snapshot *sn);
/* Code d of memory i's int8 form. */
int8_t vectors_code_at(const snapshot *sn, size_t i, int d);
/* The codes of old's blocks first..whole - 1 (every one of them full,
 * first a multiple of VEC_SEG, old->n <= sn->n, the same dim) copied into
 * sn's place for them: what vectors_put of each of their memories would
 * write. */
void vectors_copy_blocks(snapshot *sn, const snapshot *old, size_t first, size_t whole);
/* vectors_alloc for a snapshot grown from old (snapgrow.c, old->dim ==
 * dim), with old's scales, residuals and norms in place for its memories
 * and the codes of old's whole segments, which are the same bytes in sn:
 * *kept gets those blocks (a multiple of VEC_SEG). When old is a mapped
 * file, they are its pages mapped privately instead of copied
 * (snap_cow_join; at 1M, 480 of 512 MB of codes that a copy would fault in
 * and fill). */
int vectors_alloc_from(snapshot *sn, size_t n, int dim, const snapshot *old, size_t *kept);

/* A query vector's int16 form and what its error bounds need. */
typedef struct vec_query {
    const int16_t *q; /* [dim] codes (the caller's buffer) */
    double scale;     /* q ~= scale * codes */
    double resid;     /* ||q - scale * codes|| */
    double norm;      /* ||q|| */
    double gamma;     /* relative rounding of the exact float dot product */
    int nz;           /* dimensions whose code is not 0 */
    uint16_t *nz_dim; /* [nz] those dimensions, ascending (the caller's buffer) */
} vec_query;

/* The int16 form of qvec[dim] into codes[dim] (scaled so that the largest
 * code's dot product with dim codes of 127 fits an int32: 32767 up to 516
 * dimensions), and the list of its non-zero dimensions into nz_dim[dim]
 * (both the caller's buffers). Finer than a memory's int8 form, so the
 * query's own part of a bound is small. */
void vectors_query(const float *qvec, int dim, int16_t *codes, uint16_t *nz_dim, vec_query *out);

/* The integer dot products of the query's codes with the int8 forms of the
 * memories of block b, dots[k] for memory b * VEC_BLOCK + k (0 for one
 * without a vector); reads only the query's non-zero dimensions. Returns
 * how many memories the block has (VEC_BLOCK, fewer in the last). */
size_t vectors_block_dots(const snapshot *sn, const vec_query *q, size_t b, int32_t *dots);
/* on != 0: vectors_block_dots uses its portable loop even where the CPU has
 * AVX2 (the tests compare the two; the integers are the same). */
void vectors_scan_plain(int on);

/* For every memory i of block b: estimate + bound <= *slope * max(dot, 0)
 * + return value, with estimate and bound those of vectors_estimate. */
double vectors_block_cap(const snapshot *sn, const vec_query *q, size_t b, double *slope);
/* 0 when memory i of a block whose least |dot| to reach a threshold is
 * least (from its cap: least + 1 <= (thr - cap) / slope) cannot reach it
 * with dot: estimate + bound <= slope * q_slope[i] / 255 * |dot| + cap. 1
 * when it may (always, for least 0). */
int vectors_may_reach(const snapshot *sn, size_t i, int32_t dot, int32_t least);
/* The places k < m of block b whose memory may reach (vectors_may_reach
 * with dots[k] and least) into cand, in order; their count. A slope is at
 * most 255, so each of them has |dots[k]| >= least. */
size_t vectors_block_candidates(const snapshot *sn, size_t b, const int32_t *dots, size_t m,
                                int32_t least, uint16_t *cand);

/* The int8 estimate of the cosine of q with memory i (which has a vector),
 * from dot, the integer dot product of their codes; *bound gets e with
 * |exact cosine - estimate| <= e, where "exact" is semantic_cosine's value. */
double vectors_estimate(const snapshot *sn, const vec_query *q, size_t i, int32_t dot,
                        double *bound);

/* Dot product of two int8 vectors. */
int32_t vectors_idot(const int8_t *a, const int8_t *b, int dim);

/* ---- edges (edges.c) ------------------------------------------------------ */

/* One edge of a memory, seen from it (as the snapshot file keeps it too:
 * the three bytes after type are 0 there). */
typedef struct snap_edge {
    uint32_t other; /* the memory at the other end (index) */
    float w;        /* weight 0..1 */
    uint8_t type;   /* store_edge_type */
} snap_edge;

/* The edges of memory i, both directions, in the order of the store's
 * (src, dst, type) key: from the snapshot file when it has them, else read
 * from the store the first time (inside the recall's read transaction) and
 * kept with the snapshot. 0, or -1 when they cannot be read (then *n is
 * 0). */
int snapshot_edges(const snapshot *sn, size_t i, const snap_edge **out, size_t *n);
/* Read the edges of those of the n distinct memories idx[] that
 * snapshot_edges has not read yet, in batched reads (store_edges_of_rids),
 * as it would read them one by one. On failure they are left to it. */
void snapshot_edges_preload(const snapshot *sn, const uint32_t *idx, size_t n);
void snapshot_edges_free(snapshot_lazy *lz);
/* Every memory's edges as snapshot_edges gives them, for the snapshot
 * file: those of memory i are (*e)[(*off)[i] .. (*off)[i + 1]) (two
 * arrays the caller frees; the bytes after each type 0). Their count, or
 * -1 when they cannot be read or do not fit the file's 32-bit offsets. */
long long snapshot_edges_all(store *s, const snapshot *sn, uint32_t **off, snap_edge **e);
/* snapshot_edges_all for a snapshot sn grown from base, whose first base_n
 * memories are base's, in order (the store only appended since: every edge
 * added touches a memory after them): a memory that no edge added since
 * touches keeps base's list, the others' are read from the store. The same
 * arrays; -1 when base has no edges in its file or they cannot be read. */
long long snapshot_edges_extend(store *s, const snapshot *sn, const snapshot *base, size_t base_n,
                                uint32_t **off, snap_edge **e);

/* ---- term counts (terms.c) ------------------------------------------------ */

/* store_term_docs, asked once per snapshot and term. */
ms_status snapshot_term_docs(const snapshot *sn, store *s, const char *term, int64_t *df,
                             ms_error *err);
void term_cache_free(term_cache *c);

/* ---- query analysis ------------------------------------------------------ */

#define QUERY_TERMS_MAX 64
#define QUERY_DATES_MAX 4
#define QUERY_ENTS_MAX 16

typedef enum query_type {
    QT_GENERAL,
    QT_TEMPORAL,
    QT_MULTI_HOP,
    QT_ENTITY,
    QT_FACTUAL,
    QT_RECENCY,
    QT_OPINION,
    QT_AGGREGATION,
    QT_VAGUE,
    QT_COUNT
} query_type;

const char *query_type_name(query_type t);

typedef struct query_term {
    char text[64];    /* as FTS5 sees it (porter stem, lower case) */
    char surface[64]; /* the word as written, lower case: what the bm25 query quotes */
    int start, end;   /* its bytes in the query text */
    int in_date;      /* part of a date expression ("8", "May", "2023") */
    int in_subject;   /* part of the name of a speaker the query names ("Caroline") */
    int predicate;    /* neither: what the query asks about its subject */
    double idf;       /* log((N - df + 0.5) / (df + 0.5) + 1) */
    int64_t df;
} query_term;

/* Synonyms added to the query vector (recall_opts.synonyms): at most this
 * many, from the first QUERY_SYN_SENSES senses of each predicate word. */
#define QUERY_SYN_MAX 32
#define QUERY_SYN_SENSES 2

/* A synonym of a predicate word (lexicon.h) that the store holds. */
typedef struct query_synonym {
    char word[32]; /* as WordNet has it, lower case */
    char stem[64]; /* its FTS5 stem */
    char from[64]; /* the query word it stands for */
    double weight; /* of its features in the query vector */
} query_synonym;

/* The kind of number a question asks for (query.c, floor.c). */
typedef enum amount_kind {
    AMOUNT_ANY,   /* "how much"; "how many N has/have ...", a tally (query.c) */
    AMOUNT_MONEY, /* "how much" with cost, price, paid, raise, worth...: a sum of money */
    AMOUNT_AGE,   /* "how old": an age */
    AMOUNT_COUNT  /* "how many N" (its focus) otherwise: a count of N ("40 students") */
} amount_kind;

/* The slot a who- or where-question asks to fill (query.c, floor.c). */
enum { WH_NONE, WH_WHO, WH_WHERE };

typedef struct query {
    const char *text;
    query_type type;
    query_term terms[QUERY_TERMS_MAX]; /* distinct, stop words removed */
    int n_terms;
    double idf_sum;
    int unknown_terms; /* terms no memory holds (1 when there are no terms) */
    date_range dates[QUERY_DATES_MAX];
    int n_dates;
    uint32_t named[QUERY_ENTS_MAX]; /* speakers named (entity indices) */
    int n_named;
    uint32_t qents[QUERY_ENTS_MAX]; /* other entities of the store named */
    int n_qents;
    int subj_start[QUERY_ENTS_MAX], subj_end[QUERY_ENTS_MAX]; /* bytes of each speaker's name */
    int n_subj;
    int n_pred;          /* predicate terms */
    int asks_name;       /* the answer is a name: "the name of", "called", "named" */
    int name_of;         /* "the name(s) of N", N the focus: N's name is said beside N */
    int asks_surname;    /* "last name", "surname", "maiden name", "full name": a name said
                            after the subject's first name */
    int asks_number;     /* the answer is a number: "how many", "how much", "how old" */
    amount_kind amount;  /* what kind of number: a price for "how much ... cost", an age */
    int tally;           /* "how many N has|have|had ...": a count over memories (query.c) */
    int focus;           /* the predicate term naming what is asked ("salary" in "what was
                            Jon's salary"), -1 when the question's form names none */
    char kind[48];       /* the noun the answer is a kind of ("city" in "which city does she
                            live in"), "" when none (query.c) */
    int kind_which;      /* asked with "which": the answer names one in particular */
    int wh;              /* WH_WHO, WH_WHERE: the question asks who or where someone did
                            something (not "who is ..."), else WH_NONE (query.c) */
    char wh_verb[48];    /* the verb of that question ("won" in "who won the ..."), "" when
                            none */
    char what_verb[48];  /* the verb of "what AUX [SUBJECT] VERB ..." ("cook" in "what did
                            she cook"; "work" for "do for a living"): the answer is what it
                            is done to; not do, be, have, nor a verb of thinking, telling or
                            a clause ("say", "want"); "" when none (query.c) */
    char owner[48];      /* the person or animal a possessive names ("daughter" in "what
                            instrument does Melanie's daughter play"): what the question asks
                            about, not its owner; "" when none (query.c) */
    int about_now;       /* asks how things are now (query.c): the latest fact wins */
    int asks_set;        /* asks for a set of things gathered over time (query.c): "what
                            novels has Ana read", "what tools does Ana own", "how many
                            times", "both" */
    int asks_newest;     /* says latest, most recent(ly), recently, last time: the newest */
    double pred_idf_sum; /* sum of their idf */
    int64_t now;
    float *qvec;                      /* [dim] query vector, NULL without embedder */
    query_synonym syn[QUERY_SYN_MAX]; /* in the order of the query's words */
    int n_syn;
    float *rvec; /* [dim] the remainder's vector: the query with the speakers' names
                    blanked (== qvec when it names none); NULL without embedder */
} query;

/* Analyse text against the snapshot. q->qvec is allocated when emb; with
 * synonyms > 0 and the built-in embedder it also holds the WordNet
 * synonyms of the predicate's words at that weight (q->syn; the remainder's
 * vector q->rvec never does). */
ms_status query_analyse(store *s, const snapshot *sn, embedder *emb, const char *text, int64_t now,
                        double synonyms, query *q, ms_error *err);
void query_clear(query *q);

/* The FTS5 stem of word[0..n) into out; 0 on success. */
int query_stem(store *s, const char *word, size_t n, char *out, size_t cap);

/* ---- ranked lists -------------------------------------------------------- */

typedef struct ranked {
    uint32_t idx; /* snapshot index */
    double raw;   /* the channel's score */
} ranked;

typedef struct ranked_list {
    ranked *v;
    size_t n, cap;
} ranked_list;

int ranked_push(ranked_list *l, uint32_t idx, double raw);
/* Sort best first, ties by rid (ascending), and keep the first `keep`. */
void ranked_finish(ranked_list *l, const snapshot *sn, size_t keep);
void ranked_free(ranked_list *l);
/* 1-based rank of idx in l, 0 when absent. */
int ranked_rank(const ranked_list *l, uint32_t idx);
/* A sum per memory for the memories a recall touches, sized by them and not
 * by the store (fusion, spreading activation): an open-addressing table.
 * Zero it with {0}; idx_sum_free when done. */
typedef struct idx_sum {
    uint32_t *key; /* memory index + 1, 0 = empty */
    double *val;
    size_t n, cap; /* held, slots (a power of 2, or 0) */
} idx_sum;

/* The sum of memory idx, added with 0 when m does not hold it yet (*added
 * 1 then, 0 else; added may be NULL); NULL when out of memory. Valid until
 * the next call. */
double *idx_sum_at(idx_sum *m, uint32_t idx, int *added);
/* The sum of memory idx, or NULL when m does not hold it. */
const double *idx_sum_find(const idx_sum *m, uint32_t idx);
void idx_sum_free(idx_sum *m);

/* ---- bm25's postings (postings.c) ------------------------------------------ */

typedef struct postings postings;

/* The postings of the whole text index (every profile) as one blob of
 * *len bytes, the caller frees; rows map to sn's indices (-1 for another
 * profile's). Its first *lists bytes (a multiple of 64) are the tables a
 * reader checks before use (postings_open), the rest the posting lists,
 * each checked when a query first reads it. Inside the read transaction
 * sn was loaded in. NULL when the index cannot be read as bm25 reads it
 * (no row lengths, rows that are not the table's, a count too large) or
 * memory is short. */
void *postings_build(store *s, const snapshot *sn, size_t *len, size_t *lists);
/* postings_build's blob, byte for byte, from old: the postings of the
 * store when it held the rows whose lengths are old_len[rid - old_base]
 * (span of them; -1 for none), since which it only appended. Only the
 * rows past old's and the old rows whose length changed (an appended
 * turn's words join its predecessor's context) are read and tokenized;
 * the other postings are copied, the scores' tables computed again. NULL
 * when old is not such a base (rows missing or moved, a list that does not
 * match its hash) or memory is short: then build. Caller frees. */
void *postings_extend(store *s, const snapshot *sn, const postings *old, const int32_t *old_len,
                      int64_t old_base, size_t old_span, size_t *len, size_t *lists);

/* The postings in blob[len] (borrowed: it must outlive them), their tables
 * checked for a snapshot of n_snap memories of a store of n_all (every
 * profile: the rows the postings must cover, so that a file whose other
 * sections were brought up to date without them is not trusted); NULL when
 * they do not add up. Free with postings_free. */
postings *postings_open(const void *blob, size_t len, size_t n_snap, int64_t n_all);
/* postings_open for postings found sound before, tables and every list
 * (postings_lists_ok, in a snapshot file that was then sealed): only the
 * header is checked, and no list is checked when read. */
postings *postings_open_sound(const void *blob, size_t len, size_t n_snap, int64_t n_all);
/* Does every posting list of p add up (each checked now, as a query's first
 * read of it would)? */
int postings_lists_ok(const postings *p);
void postings_free(postings *p);

/* The index of the term tok in p, or -1. */
long postings_term(const postings *p, const char *tok);

/* Which of the single tokens tok[0..n) (n <= 64; NULL or unknown ones are
 * not held) snapshot memory i holds in its own text (content, without its
 * neighbours' context), as store_tokenize reads it: bit k for tok[k] in
 * *held. 0; 1, with *held 0, when the postings cannot say (i's row is not
 * the one their checked table gives, or a term's list does not add up):
 * read the text. */
int postings_own(const postings *p, const char *const *tok, int n, uint32_t i, uint64_t *held);

/* The terms of p whose text holds one of the strings sub[] (a NULL-ended
 * list), ascending, into *out (*n_out; caller frees; NULL and 0 when none).
 * -1 when out of memory. */
int postings_terms_holding(const postings *p, const char *const *sub, long **out, size_t *n_out);

/* Does snapshot memory i hold one of the terms t[0..n) (postings_term
 * indexes) in its own text? 1 or 0; -1 when the postings cannot say (as
 * postings_own): read the text. */
int postings_own_any(const postings *p, const long *t, size_t n, uint32_t i);

/* How many rows of every profile hold the single token tok in their own
 * text (content), as store_term_docs counts them from FTS5's vocabulary:
 * *df, 0 for a token the index lacks. 0; 1, with *df 0, when the term's
 * list does not add up (ask the store). */
int postings_docs(const postings *p, const char *tok, int64_t *df);

/* What a search did: rows its walked postings brought, rows it scored in full. */
typedef struct postings_stats {
    size_t rows, scored;
} postings_stats;

/* The k best memories of the snapshot's profile for the OR of the single
 * tokens tok[0..n) (one phrase each, in the query's order; NULL or unknown
 * ones match nothing), as store_fts ranks them with ms_bm25: pushed onto
 * out as (snapshot index, score) in no order, the same rows and the same
 * doubles. 0; 1, with nothing pushed, when a term's postings do not add up
 * (ask FTS5); -1 when out of memory (out may hold some). st may be NULL. */
int postings_search(const postings *p, const char *const *tok, int n, size_t k, ranked_list *out,
                    postings_stats *st);

/* ---- channels ------------------------------------------------------------ */

typedef struct channel_ctx {
    store *s;
    const snapshot *sn;
    const query *q;
    const recall_opts *o;
    embedder *emb;
    size_t top_n;
    /* the lists of the channels this one declares as inputs
     * (channel_ops.inputs; the others are empty), and for stage-two channels
     * the fusion of stage one */
    const ranked_list *lists; /* [CH_COUNT] */
    const ranked_list *seed_fusion;
    char *first_stage; /* [CHANNEL_FIRST_STAGE_MAX] the channel's account of what
                          --first-stage added, or NULL (explain's rerun) */
    void *pre;         /* what channel_ops.prepare gave, for produce to take over, or NULL */
} channel_ctx;

/* A bm25 search for the terms of q (only its terms are read), into out
 * best first, at most c->top_n (ch_bm25.c). */
typedef ms_status (*fs_search_fn)(const channel_ctx *c, const query *q, ranked_list *out,
                                  ms_error *err);
/* The first-stage lists the options ask for fused into bm25's list bm
 * (firststage.c); bm unchanged when none is asked for. */
ms_status firststage_extend(const channel_ctx *c, fs_search_fn search, ranked_list *bm,
                            ms_error *err);
/* Append fmt's text to channel c's account of what the first-stage options
 * added (channel_status.first_stage, "first_stage" in the JSON), when it
 * keeps one. */
void firststage_account(const channel_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Do the first-stage options o act on query q (their `lists` restriction)? */
int firststage_applies(const first_stage_opts *o, const query *q);

typedef struct floor_rule floor_rule; /* a channel's evidence rule (the floor, below) */

typedef struct channel_ops {
    const char *name;       /* "semantic": the trace, the JSON, health, --weights */
    const char *short_name; /* at most 4 columns, for narrow status lines: "sem" */
    /* 1: runs first, and the fusion of the stage-one channels seeds stage 2
     * (channel_ctx.seed_fusion); 2: runs after that fusion. Every channel
     * takes part in the final fusion. */
    int stage;
    /* CH_MASK of the channels whose lists produce reads from
     * channel_ctx.lists: each must run before it (an earlier stage, or
     * earlier in the engine's table within the same stage). Lists not
     * declared here are empty when produce runs. */
    unsigned inputs;
    /* Does the channel speak to this query at all? NULL: whenever it is
     * active. (temporal: only when the query names or asks a time.) A
     * channel that does not apply adds nothing to the best reachable fused
     * score that relevance divides by. */
    int (*applies)(const query *q);
    /* NULL when the channel can run on this snapshot and engine, else the
     * inactive reason ("no_vectors", ...). */
    const char *(*health)(const snapshot *sn, embedder *emb);
    /* Fill out with (index, raw score), best first, at most top_n. *note may
     * explain an empty answer. */
    ms_status (*produce)(const channel_ctx *c, ranked_list *out, const char **note, ms_error *err);
    /* NULL, or the part of produce that reads only the snapshot's arrays and
     * the query: never the store, the embedder or a cache, and nothing another
     * channel writes. The engine may run it on a second thread while the other
     * stage-one channels run (engine.c run_channels), and hands its result to
     * produce as channel_ctx.pre; produce owns and frees it (release frees one
     * that produce never gets). NULL from prepare: produce does it all. */
    void *(*prepare)(const channel_ctx *c);
    void (*release)(void *pre);
    /* The channel's evidence rule for the floor (floor.c asks it about every
     * pooled memory), or NULL when the channel brings none. */
    const floor_rule *floor;
} channel_ops;

#define CH_EXTERN(id, name) extern const channel_ops ch_##name##_ops;
ENGINE_CHANNELS(CH_EXTERN)
#undef CH_EXTERN

/* Every channel's ops, by channel id (engine.c). */
extern const channel_ops *const engine_channels[CH_COUNT];

/* Cosine of the sparse vector x (the query's, or its remainder's) with
 * memory i (0 without vectors): from its codes at x's non-zero dimensions
 * when they give its floats back (vectors_exact_dot), else vectors_dot
 * with snapshot_vector; the same bits either way. */
double semantic_cosine(const snapshot *sn, const float *x, size_t i);

/* Which list the temporal channel gives for a query (ch_temporal.c). */
typedef enum temporal_mode_t {
    TEMPORAL_NONE,
    TEMPORAL_DATE,   /* a date named: memories near it */
    TEMPORAL_WHEN,   /* a when-question: bm25 hits that say when */
    TEMPORAL_RECENT, /* a recency question: bm25 hits, newest first */
} temporal_mode_t;

temporal_mode_t temporal_mode(const query *q);

/* Which memories of sn say when (a time expression in their content, or
 * that something was just done): *out[n] of 0 and 1, the caller frees.
 * base[0..base_n), when given, are the marks of sn's first base_n
 * memories as a snapshot it grew from found them (its content is as it
 * was): only the memories after them are looked at. Inside a read
 * transaction. */
ms_status temporal_marks(store *s, const snapshot *sn, const uint8_t *base, size_t base_n,
                         uint8_t **out, ms_error *err);
/* The time channel's index of sn's memories by day, for the snapshot file:
 * (*day)[k] the day of the k-th (ascending, ties by index), (*idx)[k] its
 * memory; two arrays of n the caller frees. 0, or -1 when out of memory. */
int temporal_by_day(const snapshot *sn, int64_t **day, uint32_t **idx);
/* Which of sn's memories' content says how long something lasted (the
 * when-list's other test), for the snapshot file: *out[n] of 0 and 1 (the
 * caller frees), those of the first base_n memories copied from base (of a
 * snapshot sn grew from: the same memories, whose content an append does
 * not change; base_n 0 for none), the others' content read. Inside a read
 * transaction; 0, or -1 when it cannot be read. */
int temporal_durations(store *s, const snapshot *sn, const uint8_t *base, size_t base_n,
                       uint8_t **out);

/* Does text say how long something has lasted: an amount (a word that
 * starts with a digit, a number word, "a", "few", "couple", "several",
 * "many", "half") right before a unit of time ("for 3 years", "a couple of
 * months" does not: "of" stands between)? Words split at bytes that are not
 * isalnum, compared as tolower makes them. The when-question's list keeps a
 * bm25 hit that does (ch_temporal.c). */
int temporal_says_duration(const char *text);
/* Does text say that something was just done: "just" right before a past
 * form of a verb ("I just got accepted", "we've just opened"), which dates
 * it at the time of telling as "today" would? Irregular forms come from
 * WordNet's exception list of verbs (lexicon_default); without it only
 * the regular "-ed" forms count. */
int temporal_says_just_done(const char *text);

/* The text cJSON_Print gives the number d (response.c), into out, without
 * the C library's number conversions: 1; 0 when this cannot be sure of it
 * (|d| below 1e-9 or from 1e15, not a whole number in int's range, or its
 * last digit near a tie): let cJSON print it. */
int response_number(double d, char out[32]);

/* Why dense vectors cannot be used (shared by semantic and hopfield), or
 * NULL when they can. */
const char *semantic_health(const snapshot *sn, embedder *emb);

/* The FTS5 expression OR-ing the query's terms, each double-quoted; "" when
 * there are none. Caller frees. */
char *bm25_match(const query *q);

/* ---- weight profiles ----------------------------------------------------- */

typedef struct weight_profile {
    double w[CH_COUNT];  /* channel weights; temporal: its date list */
    double temporal_aux; /* temporal's when-question and recency lists */
    double eg_speaker;   /* entity graph: x(1 + eg_speaker) spoken by a named speaker */
    double eg_mention;   /* x(1 + eg_mention) linked to another named entity */
    double rrf_k;
} weight_profile;

const weight_profile *profile_for(query_type t);

/* ---- the evidence floor (floor.c) --------------------------------------- */

#define FLOOR_COSINE_DEFAULT 0.28  /* remainder cosine */
#define FLOOR_LEXICAL_DEFAULT 0.16 /* predicate coverage */
#define FLOOR_RULE                                                                                 \
    "a memory passes when it is pinned, holds at least the lexical threshold of the "              \
    "idf-weighted predicate (the query's words beyond the speakers it names), has a "              \
    "remainder cosine >= the cosine threshold, or falls on the date the query names; "             \
    "or when an edge joins it to one that passes. A question asking for a name, a number, "        \
    "a word (its focus), a kind of thing, who or where needs a memory that holds one. Naming a "   \
    "speaker is not evidence"

/* Bit t set: query term t occurs in text (as FTS5 tokenizes it; the first
 * 64 terms). */
uint64_t floor_terms_in(store *s, const query *q, const char *text);

/* idf-weighted share of all the query's terms (diagnostic), and of its
 * predicate terms, among those set in seen. 0 when there are none. */
double floor_coverage(const query *q, uint64_t seen);
double floor_predicate_coverage(const query *q, uint64_t seen);

/* Does text say an amount of the kind asked: for AMOUNT_MONEY a number
 * beside a currency sign or word ("$40", "forty dollars", "2 million
 * euros"); for AMOUNT_AGE an age ("34 years old", "a one-year-old", "aged
 * 6", "turned five", "her 30th birthday", "in his twenties"). AMOUNT_ANY:
 * 1 (the caller's number rule applies). */
int floor_holds_amount(amount_kind kind, const char *text);
/* Does text hold an age as floor_holds_amount(AMOUNT_AGE) does, said of
 * whom a question asks about: not one a determiner or a possessive makes
 * the attribute of someone described ("a thirty year old woman", "our
 * one-year-old")? */
int floor_holds_own_age(const char *text);

/* Does text count noun (a "how many" question's focus, lower case): a
 * number or a count word (a dozen, a couple, a few, several, both, half)
 * within the three words before it, itself or in a base form lx knows
 * ("40 students", "a dozen new students", "two of the dogs"); for "times",
 * also "once" or "twice"? lx may be NULL (the words as they are). */
int floor_holds_count(const lexicon *lx, const char *noun, const char *text);

/* What the floor knows about one memory. */
typedef struct floor_in {
    const recall_hit *hit; /* the memory: its trace and the channels' measures */
    int pinned;
    int names_subject; /* spoken by or naming a speaker the query names */
    int n_pred;        /* predicate terms of the query */
    double pred_coverage, lexical_min;
    double context_coverage;      /* with the pooled memories an edge joins it to (>= own) */
    double rcosine, cosine_min;   /* remainder cosine and its threshold */
    int has_date;                 /* the query names a date */
    int asks_name, asks_number;   /* the query asks for a name, a number */
    amount_kind amount;           /* the kind of number asked for */
    int holds_name, holds_number; /* it or a memory joined to it holds one */
    int on_date;                  /* falls on a date the query names */
    int pred_known;               /* every predicate word occurs in the store */
    int names_known;              /* the query names a speaker or another entity of the store */
    const char *focus;            /* the word naming what is asked ("salary"), or NULL */
    int holds_focus;              /* the memory holds it */
    int context_focus;            /* it or a pooled memory an edge joins it to holds it */
    const char *kind;             /* the noun the answer is a kind of ("city"), or NULL */
    int kind_which;               /* asked with "which" */
    int holds_kind;               /* it or a pooled memory an edge joins it to names one */
    const char *owner;   /* the person a possessive names ("daughter"): the name, number and kind
                            count only beside them; NULL when none */
    const char *name_of; /* what "the name of N" asks the name of ("studio"): a name counts
                            only beside it; NULL when none */
    int surname;         /* the query asks for the subject's last name: a name after theirs */
    int age_self;        /* "how old is Maria": the age of a speaker, said of them */
} floor_in;

/* Can the lexical rule pass at all: the query names something the store
 * knows (a speaker or another entity), or every predicate word occurs in
 * the store? */
int floor_lexical_open(const floor_in *in);
/* May a memory on the date the query names pass the temporal rule: every
 * predicate word occurs in the store, or the query names someone the store
 * knows and the word it asks about, if any, is held (floor.c's header). */
int floor_date_open(const floor_in *in);

/* What a channel's floor rule may read to measure a pooled memory. */
typedef struct floor_ctx {
    store *s;
    const snapshot *sn;
    const query *q;
} floor_ctx;

/* A channel's evidence rule (channel_ops.floor): does a pooled memory pass
 * the floor by the channel's own evidence, with what numbers, and why? The
 * floor first applies the rules that belong to no channel (pinned, subject,
 * the kind of answer asked for: floor.c), then asks the channels' rules in
 * ascending `ask`; the first that passes names the pass. When none does, the
 * cut memory's why joins each rule's clause in ascending `tell`, with ", ". */
struct floor_rule {
    int ask, tell;
    /* A pass by it needs the word the question asks about (floor_in.focus)
     * in the pool: a rule of overlap or meaning (floor_needs_focus). */
    int needs_focus;
    /* The names its passes carry (passed_by), NULL-terminated. */
    const char *const *names;
    /* Put the numbers the rule judges by into h (bm25: the terms held and
     * their coverage; semantic: the cosines; temporal: on_date), for memory
     * i, whose trace (h->ch) and content (h->mem.content) are set. Called for
     * every pooled memory before any rule judges. NULL: it measures nothing. */
    void (*measure)(const floor_ctx *c, uint32_t i, recall_hit *h);
    /* One of names when the memory passes, with why[len] its numbers; NULL
     * when it does not, with why[len] the rule's clause for a cut ("" when
     * it has nothing to say). */
    const char *(*judge)(const floor_in *in, char *why, size_t len);
};

/* The rule that lets the memory pass ("pinned", "subject", or the name a
 * channel's rule gives: "lexical", "context", "temporal", "semantic"), or
 * NULL when it is cut; why gets the rule and its numbers either way. */
const char *floor_judge(const floor_in *in, char *why, size_t len);

/* Does the memory (with its neighbours) hold the kind of value the query
 * asks for (a name, a number), or fall on the date it names? The rule
 * cuts a memory that does not, whatever its overlap. */
int floor_answer_held(const floor_in *in);

/* Does a pass by this rule need the word the question asks about
 * (floor_in.focus) in the pool: is it a channel's rule of overlap or
 * meaning (floor_rule.needs_focus)? */
int floor_needs_focus(const char *by);

/* The query's predicate words (surface forms, space separated), those of
 * them not set in held, and the speakers it names ("Caroline and
 * Melanie"), each into a buffer of cap bytes. */
void floor_describe(const query *q, uint64_t held, char *predicate, char *unheld, char *subject,
                    size_t cap);

/* The kinds of the noun a question asks for (query.kind): the words
 * WordNet files below its senses, to tell whether a memory names one
 * ("which city" -> "rome"). Only for a noun of a class whose members are
 * named (an artifact, a place, an organisation, a person, an act, a
 * communication...: floor.c). */
typedef struct floor_kinds floor_kinds;

#define FLOOR_KIND_SENSES 3     /* the noun's most frequent senses */
#define FLOOR_KIND_SYNSETS 4096 /* a noun with more below it names no kind worth checking */

/* The kinds for q from lx, or NULL: no kind asked, no lexicon, a noun of
 * another class or too broad, or out of memory. Free with
 * floor_kinds_free (NULL is fine). */
floor_kinds *floor_kinds_new(const query *q, const lexicon *lx);
/* The words naming the person or animal a possessive names (query.owner:
 * "daughter", "girl", ...), as kinds, or NULL: none named, no lexicon, or
 * out of memory. A memory whose text holds one (floor_kinds_held) is about
 * them. */
floor_kinds *floor_owner_new(const query *q, const lexicon *lx);
/* The words naming what "the name of N" asks the name of (query.name_of,
 * the focus N: "studio", "atelier", "dance_studio", and every kind below
 * them), as kinds, or NULL: no such question, no lexicon, a noun too broad,
 * or out of memory. A name counts for the question only in a memory that
 * says one of them (engine.c): the pool that talks about the studio and
 * names Rome elsewhere does not say what the studio is called. */
floor_kinds *floor_named_new(const query *q, const lexicon *lx);
/* Does text say a surname after name[0..n) (a first name, any case): the
 * name, one space and a capitalised word ("Gina Ortiz")? */
int floor_holds_surname(const char *text, const char *name, size_t n);
void floor_kinds_free(floor_kinds *k);

/* What text holds (its words and pairs of words, in their base forms):
 * FLOOR_KIND_BELOW when it names a kind below the noun ("clarinet"),
 * FLOOR_KIND_OWN when it says the noun itself (or a synonym); both may be
 * set; 0 for none, or k NULL. */
#define FLOOR_KIND_BELOW 1
#define FLOOR_KIND_OWN 2
int floor_kinds_held(const floor_kinds *k, const char *text);

/* Call fn for each word of k (as lexicon_kinds gives them, in byte order,
 * each once) until it returns non-zero: how many were given before that;
 * 0 for k NULL. */
int floor_kinds_each(const floor_kinds *k, lexicon_kind_fn fn, void *ctx);

/* Does the question ask "which" (one in particular)? 0 for k NULL. */
int floor_kinds_which(const floor_kinds *k);

/* Is the noun a work or a message (WordNet's class communication: a song,
 * a magazine, a language)? Its kinds are named by titles and brands ("Blue Harbour
 * by Mara Lind", "Vogue") more than by the words WordNet files below
 * it, so a name in the memory names one too. 0 for k NULL. */
int floor_kinds_titled(const floor_kinds *k);

/* The verb of a who- or where-question (query.wh_verb) and the slot it
 * asks to fill: a memory answers it only when it, with the memories an edge
 * joins it to (its exchange), says that verb (in any form WordNet relates:
 * "won" and "winning") and a filler of the slot: a name beyond the
 * speakers' and those the query names, a person for "who", a place for
 * "where" (floor.c). */
typedef struct floor_slot floor_slot;

/* The slot for q from lx, or NULL (no such question, no lexicon, out of
 * memory). Free with floor_slot_free (NULL is fine). */
floor_slot *floor_slot_new(const query *q, const lexicon *lx);
void floor_slot_free(floor_slot *sl);

/* What text says of the slot (named: the memory names someone or
 * something beyond the speakers and the query's names): FLOOR_SLOT_VERB
 * the verb, FLOOR_SLOT_FILLER a filler; both may be set; 0 for sl NULL. */
#define FLOOR_SLOT_VERB 1
#define FLOOR_SLOT_FILLER 2
int floor_slot_held(const floor_slot *sl, const char *text, int named);

/* The verb of a what-question (query.what_verb) and its family: its base
 * forms, the words of its first FLOOR_VERB_SENSES senses and the words
 * derived from them ("painting" for "paint", "death" for "die"), but not
 * a noun of a person ("painter"). A memory answers "what did she cook"
 * only when it, or a memory an edge joins it to, says one of them with
 * what it is done to (floor.c). */
typedef struct floor_verb floor_verb;

#define FLOOR_VERB_SENSES 3

/* The family for q from lx, or NULL (no such question, no lexicon, out of
 * memory). Free with floor_verb_free (NULL is fine). */
floor_verb *floor_verb_new(const query *q, const lexicon *lx);
void floor_verb_free(floor_verb *v);

/* Does text say a word of the family, in any of its forms (WordNet's
 * verb and noun base forms: "cooked", "paintings"), with what it is done
 * to: a noun among the next four content words of the same sentence? 0
 * for v NULL. */
int floor_verb_held(const floor_verb *v, const char *text);

/* ---- adaptive learning (adaptive.c) ------------------------------------- */

typedef struct adaptive adaptive;

adaptive *adaptive_new(void);
void adaptive_free(adaptive *a);
size_t adaptive_count(const adaptive *a);
/* Learn one judgement (kept in memory only). */
ms_status adaptive_add(adaptive *a, store *s, int64_t rid, const char *text, const char *type_name,
                       int label, unsigned channels, ms_error *err);
/* Replace the judgements that came from the store with its feedback table,
 * keeping those learned in this process. */
ms_status adaptive_load(adaptive *a, store *s, ms_error *err);
void adaptive_clear(adaptive *a);
/* The channel nudges learned for query type `type`. */
void adaptive_channels(const adaptive *a, int type, double delta[CH_COUNT]);
/* The feedback factor of memory rid, ranked by the channels in ranked_by,
 * for query q; *judged gets how many judgements of similar queries it has. */
double adaptive_factor(const adaptive *a, const query *q, const double delta[CH_COUNT], int64_t rid,
                       unsigned ranked_by, int *judged);

/* ---- an external reranker (rerank.c) ------------------------------------- */

typedef struct reranker reranker;

reranker *rerank_open(const char *spec, ms_error *err);
void rerank_close(reranker *r);
/* scores[i] for texts[i] against query. */
ms_status rerank_score(reranker *r, const char *question, const char *const *texts, size_t n,
                       double *scores, ms_error *err);

/* ---- the second stage (stage2.c) ----------------------------------------- */

typedef struct stage2_in {
    const snapshot *sn;
    const query *q;
    double eg_speaker; /* the entity enhancement's speaker factor - 1 */
} stage2_in;

/* Append the second stage's adjustments to each of the n pooled hits
 * (idx[t] is hs[t]'s snapshot index; hs[t].mem is hydrated). The caller
 * recomputes ranking_score. MS_OK, or MS_NOMEM with nothing added. */
ms_status stage2_apply(const stage2_in *in, recall_hit *hs, const uint32_t *idx, size_t n,
                       ms_error *err);

/* Does hit h (snapshot index i, hydrated) state the attribute question q
 * asks (store_attr_asked) of the subject it asks about, by the import
 * detector's cues (store_states)? The attribute (STORE_ATTR_*), phrase
 * (cap bytes) getting the statement as written; else -1, phrase "". */
int stage2_states(const snapshot *sn, const query *q, uint32_t i, const recall_hit *h, char *phrase,
                  size_t cap);

#endif
