/* engine.h - retrieval over a store: five channels, weighted reciprocal-rank
 * fusion, entity-graph enhancement, adjustments and the evidence floor,
 * answered in the Retrieval Score Contract v2 (docs/SCORE_CONTRACT.md).
 *
 * No terminal here. The engine reads the store's current profile into an
 * in-memory snapshot (vectors, edges, entity links) on first use and reloads
 * it when another connection has changed the store. Recall never writes. */
#ifndef MS_ENGINE_H
#define MS_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "store/base/status.h"
#include "store/store.h"

/* The channels, one line each, in the order they appear everywhere (flags,
 * JSON, trace) and run within a stage. A channel is its file, engine/ch_NAME.c
 * defining `ch_NAME_ops` (engine_int.h: its stage, inputs, floor evidence,
 * names), and its line here. MS_EXTRA_CHANNELS lets a build add lines without
 * editing this file: tests/channel6.h adds a test-only sixth channel that
 * tests/channel6-test.c defines. */
#ifndef MS_EXTRA_CHANNELS
#define MS_EXTRA_CHANNELS(_)
#endif
#define ENGINE_CHANNELS(_)                                                                         \
    _(SEMANTIC, semantic)                                                                          \
    _(BM25, bm25)                                                                                  \
    _(TEMPORAL, temporal)                                                                          \
    _(HOPFIELD, hopfield)                                                                          \
    _(SPREADING, spreading)                                                                        \
    MS_EXTRA_CHANNELS(_)

#define CH_ENUM(id, name) CH_##id,
typedef enum channel_id { ENGINE_CHANNELS(CH_ENUM) CH_COUNT } channel_id;
#undef CH_ENUM

#define CH_MASK(c) (1u << (c))
#define CH_ALL ((1u << CH_COUNT) - 1)

/* "semantic", "bm25", ... ; and back (-1 when unknown). */
const char *engine_channel_name(int ch);
/* The channel's name in at most 4 columns ("sem", "bm25", "temp", "hop",
 * "spr"), for narrow status lines. */
const char *engine_channel_short_name(int ch);
/* Does every channel run after the channels whose lists it declares as
 * inputs (an earlier stage, or earlier in the table within its stage)? */
int engine_channel_order_ok(void);
int engine_channel_parse(const char *name);

/* Parse "semantic,bm25" (or "all") into a mask. 0 on success. */
int engine_channel_list(const char *list, unsigned *mask);

/* Parse "semantic=1.5,bm25=0.8" into weights[] and a mask of those set. */
int engine_weight_list(const char *list, double weights[CH_COUNT], unsigned *mask);

typedef struct engine engine;

/* Open an engine over s (which stays owned by the caller and must outlive
 * the engine). embedder_spec: NULL for the built-in embedder, or
 * "cmd:PROGRAM". A missing embedder is not an error here: the semantic and
 * hopfield channels report it as their inactive reason. */
ms_status engine_open(store *s, const char *embedder_spec, engine **out, ms_error *err);
/* Will engine_close write the snapshot file for the next process (the
 * snapshot was read from the tables, or grown, since the file was made)?
 * That takes seconds at a million memories (docs/ENGINE.md). */
int engine_saves_at_close(const engine *e);
/* Memories in the snapshot the engine holds (0 when none yet). */
size_t engine_snapshot_memories(const engine *e);
/* The snapshot file written by another process (tui/cli/closing.c):
 * engine_release_store makes e forget its store, so that engine_close then
 * neither writes the file nor reads the store; the caller closes the store
 * next, and may then fork. In the child, engine_save_with writes the file
 * that engine_close would have, reading through s: a connection the child
 * opened itself to the same store and profile (SQLite's connections are
 * never used across a fork). It writes nothing when the store has changed
 * since the snapshot was read, or when e has a store. With seal, it then
 * waits until the file can be sealed (2 s after it was written) and checks
 * it whole as the next process would, which seals it: that process checks
 * only its header (docs/ENGINE.md). */
void engine_release_store(engine *e);
void engine_save_with(engine *e, store *s, int seal);
/* Close and free; NULL is fine. When the engine read its snapshot from the
 * tables and the store is still as it was then, it first writes the
 * snapshot file that later processes map (docs/ENGINE.md). */
void engine_close(engine *e);
/* engine_close for a process that exits next: the snapshot file is left
 * mapped for the exit to unmap, which costs the kernel less than munmap
 * (at 1,000,000 memories about 12-20 ms of a recall process's CPU,
 * docs/PERFORMANCE.md item 44). */
void engine_close_at_exit(engine *e);
/* For a process that exits next and has forked a child that still holds
 * e's memory (tui/cli/closing.c): only the embedder is closed; the rest is
 * left for the exit to take, because freeing it would write pages the two
 * share, and the kernel copies each such page first (at 1,000,000 memories
 * a grown snapshot's frees were about a tenth of the process).  e stays
 * reachable (a static), so that a leak checker does not count it. */
void engine_leave_at_exit(engine *e);
/* Remove the snapshot files the engine keeps beside the store at path for
 * its default profile (PATH.snap, its .tmp and its .seal): with
 * store_remove_files, for a store this process created and could not
 * finish. Missing files are fine. */
void engine_remove_files(const char *path);

/* How far a snapshot read from the store's tables has got (seconds at a
 * million memories; a current snapshot file is mapped in milliseconds):
 * what names the part being read ("memories", "vectors", "entity links",
 * in that order), percent goes 0..100 within each part, each value at most
 * once. Called inside engine_recall and the other calls that load the
 * snapshot; it must not call e. */
typedef void (*engine_progress_fn)(void *ctx, const char *what, int percent);
/* Call fn(ctx, ...) while e reads a snapshot from the tables from now on;
 * fn NULL: no longer. */
void engine_set_progress(engine *e, engine_progress_fn fn, void *ctx);

/* ---- options ----------------------------------------------------------- */

#define ENGINE_QUERY_MAX 4096 /* bytes of query text */
#define ENGINE_LIMIT_MAX 1000 /* results per recall */
#define ENGINE_TOPN_MAX 5000  /* candidates per channel */

/* First-stage lists beyond bm25's one query and spreading's seeds
 * (docs/QUALITY.md, "First-stage lists"; engine/firststage.c). The default
 * is ENGINE_FIRST_STAGE_DEFAULT: spreading's seeds from further sessions for
 * a question that asks for a set, the one option that gains on both halves
 * of LoCoMo (docs/QUALITY.md, "Seeds for a set"); the lists are off. */
typedef struct first_stage_opts {
    int prf_docs, prf_terms; /* pseudo-relevance feedback: terms of bm25's top docs */
    double prf_weight;       /* the weight of their list in bm25's; 0 off */
    double sessions;         /* the weight of the best-turn-per-session list; 0 off */
    double aspects;          /* the weight of the one-query-per-predicate-word lists; 0 off */
    int seeds;               /* spreading also seeds from the best turn of each session
                                not yet seeded down to this rank of its seeds */
    double seed_scale;       /* ... at this share of their activation; 0 off */
    double kinds;            /* the weight of the list of memories naming a kind of the
                                noun asked for (WordNet's hyponyms of query.kind); 0 off */
    int kinds_per_session;   /* ... at most this many of a session in it; 0 any */
    double hops;             /* the weight of the list of the named speakers' turns by their
                                best match to any one predicate word; 0 off */
    int hops_per_session;    /* ... at most this many of a session in it; 0 any */
    int lists_only;          /* only for questions of the multi_hop and aggregation types */
    int sets_only;           /* only for questions that ask for a set (query.asks_set) */
} first_stage_opts;

/* recall_opts_init's first stage: for a question that asks for a set of things gathered over
 * time, spreading also seeds from the best turn of each further session down to rank 30. */
#define ENGINE_FIRST_STAGE_DEFAULT "seeds=30:1,sets"

/* Parse "prf=K:T:W,sessions=W,aspects=W,seeds=N:S,kinds=W[:P],hops=W[:P],lists,sets" (any of them,
 * in any order), or "none" (all off), into *out (zeroed first): 0, or -1 when spec is malformed or
 * a number out of range (K 1-64, T 1-32, N 11-200, P 0-50, weights and S 0-10). The spec replaces
 * the default whole. */
int engine_first_stage_parse(const char *spec, first_stage_opts *out);

typedef struct recall_opts {
    const char *query;
    int limit;                /* results returned (default 10) */
    int top_n;                /* candidates per channel (default 200) */
    double rrf_k;             /* < 0: the query type's default */
    double weights[CH_COUNT]; /* overrides where weights_set has the bit */
    unsigned weights_set;
    unsigned disabled;            /* channels switched off */
    unsigned require;             /* channels that must be active, else MS_CHANNEL */
    int no_floor;                 /* keep candidates without evidence */
    double floor_threshold;       /* cosine threshold of the floor; < 0: default */
    double floor_lexical;         /* predicate-coverage threshold of the floor; < 0: default */
    int64_t as_of;                /* "now" for relative dates; STORE_TS_NONE: now */
    int no_adaptive;              /* ignore learned feedback */
    int no_rerank;                /* skip the reranker */
    double synonyms;              /* weight of WordNet synonyms in the query vector
                                     (docs/QUALITY.md); 0: none (the default) */
    first_stage_opts first_stage; /* ENGINE_FIRST_STAGE_DEFAULT by default */
    const char *reranker;         /* "cmd:PROGRAM": rerank with it (kept for later recalls) */
    const char *explain_id;       /* also explain where this memory was cut */
} recall_opts;

/* Defaults: limit 10, top_n 200, the first stage ENGINE_FIRST_STAGE_DEFAULT, everything else
 * off or from the profile. */
void recall_opts_init(recall_opts *o);

/* ---- the response ------------------------------------------------------ */

typedef struct trace_channel {
    int ranked;          /* this channel ranked the memory */
    int rank;            /* 1-based rank in the channel */
    double raw;          /* the channel's own score */
    double weight;       /* w_c */
    double contribution; /* w_c / (k + rank) */
} trace_channel;

#define TRACE_ADJ_MAX 8

typedef struct trace_adjustment {
    const char *name; /* "trust", "confidence", "recency", "feedback", ... */
    double factor;
    char detail[96]; /* how the factor was derived */
} trace_adjustment;

typedef struct recall_hit {
    store_memory mem; /* the memory (content, times, speaker, trust...; not its entities) */
    trace_channel ch[CH_COUNT];
    double fused;     /* sum of contributions */
    int eg_spoken;    /* spoken by a speaker the query names */
    int eg_mentions;  /* linked to another entity the query names */
    double eg_factor; /* (1 + eg_speaker * spoken) * (1 + eg_mention * mentions) */
    double eg_score;  /* eg_factor - 1 */
    double boosted;   /* fused * eg_factor */
    trace_adjustment adj[TRACE_ADJ_MAX];
    int n_adj;
    double ranking_score;         /* boosted * product of adjustment factors */
    double max_fused;             /* the best fused score possible for this query */
    double relevance_score;       /* min(1, boosted / max_fused) */
    double coverage;              /* idf-weighted share of query terms in it (diagnostic) */
    double pred_coverage;         /* the same share of the predicate's terms */
    double context_coverage;      /* ... in it and the pooled memories joined to it */
    double cosine;                /* dense similarity to the query (0 without vectors) */
    double rcosine;               /* to the remainder: the query without speakers' names */
    uint64_t terms_held;          /* bit t: query term t occurs in it */
    uint64_t context_held;        /* ... in it or a pooled memory joined to it */
    int holds_name, holds_number; /* it (or a pooled memory joined to it) holds a name
                                     other than the query's, a number */
    int holds_kind;               /* it (or a pooled memory joined to it) names a kind of
                                     the noun the question asks for (floor.c) */
    int holds_slot;   /* it says the verb of a who- or where-question and a filler of its slot */
    int holds_verb;   /* it (or a pooled memory joined to it) says the verb of a what-question
                         or a word of its family (floor.c floor_verb) */
    int on_date;      /* it falls on a date the query names */
    int states_focus; /* it states the attribute the asked word names
                         (engine.c focus_stated) */
    const char *passed_by;             /* "pinned", "subject", "lexical", "context",
                                          "semantic", "temporal", "states" (stage2.c),
                                          "association", "no_floor", or NULL (cut) */
    char floor_why[256];               /* the floor's rule and numbers, pass or cut */
    char associated[STORE_ID_MAX + 1]; /* for "association": the memory with evidence */
    int rank_position;                 /* 1-based in results (0 for misses) */
} recall_hit;

#define CHANNEL_FIRST_STAGE_MAX 192

typedef struct channel_status {
    int active;
    const char *reason; /* when inactive: disabled, no_vectors, ... */
    const char *note;   /* when active but empty: why (no date in query, ...);
                           when inactive for its vectors: their model */
    int candidates;
    double ms;
    char first_stage[CHANNEL_FIRST_STAGE_MAX]; /* what --first-stage added to the channel's list
                              ("prf 5:10:0.5 pottery kiln; sessions 0.5"), "" when nothing */
} channel_status;

/* Why a memory was or was not returned (recall_opts.explain_id). */
typedef struct recall_explain {
    int found; /* the id exists in the profile */
    char *id;
    trace_channel ch[CH_COUNT]; /* rank and raw score in each channel's full list */
    int in_top_n[CH_COUNT];     /* within the channel's top N */
    double fused, boosted, ranking_score, relevance_score, coverage, cosine;
    int passes_floor;    /* has evidence of its own, or by association in the pool */
    int fused_rank;      /* position among all fused candidates, 0 = none */
    const char *verdict; /* returned / not_a_candidate / below_channel_top_n /
                            below_floor / below_limit */
    int rank_position;   /* when returned */
} recall_explain;

/* One word of the query's predicate, as the floor saw it. */
typedef struct floor_term {
    char word[64]; /* as written, lower case */
    double idf;    /* its weight in the predicate coverage */
    int64_t df;    /* memories holding it (0: none in the store) */
    int held;      /* some pooled memory holds it */
} floor_term;

#define FLOOR_TERMS_MAX 64

/* What the pool-wide floor rules ask a memory that passes by overlap or
 * meaning to hold (recall_result.floor_pool_held, floor_checks): the asked
 * word, the kind asked for, the verb with its filler (who, where), the verb
 * of "what did she VERB". */
enum {
    FLOOR_HELD_FOCUS = 1,
    FLOOR_HELD_KIND = 2,
    FLOOR_HELD_SLOT = 4,
    FLOOR_HELD_VERB = 8,
};

typedef struct recall_result {
    char *query;
    const char *query_type;
    double rrf_k;
    double weights[CH_COUNT];
    double eg_speaker, eg_mention; /* entity-graph factors of the profile */
    channel_status ch[CH_COUNT];
    recall_hit *hits; /* returned, best first */
    size_t n_hits;
    recall_hit *misses; /* nearest misses cut by the floor, best first */
    size_t n_misses;
    size_t candidates; /* distinct memories any channel produced */
    int abstained;
    const char *abstention_reason;                   /* NULL, "no_candidates", "evidence_floor" */
    char no_candidates_why[STORE_PROFILE_MAX + 160]; /* empty store, all disabled... */
    /* the floor (floor.c) */
    const char *floor_rule; /* in words */
    double floor_threshold; /* cosine threshold (of the remainder cosine) */
    double floor_lexical;   /* predicate-coverage threshold */
    int floor_applied;
    char *floor_best_id;            /* the pooled candidate with the best remainder cosine */
    double floor_best_value;        /* its remainder cosine */
    int floor_unknown_terms;        /* query terms no memory holds */
    int floor_named;                /* speakers and entities of the store named */
    int floor_other_pass;           /* a pooled memory passes by a rule with no threshold
                                       (pinned, subject, temporal) */
    int floor_lexical_open;         /* the lexical rule can pass: the query names an entity of
                                       the store, or every predicate word occurs in it */
    double *floor_pool_cov;         /* [floor_pool_n] each pooled memory's predicate coverage */
    double *floor_pool_cos;         /* [floor_pool_n] and remainder cosine (for sweeps) */
    unsigned char *floor_pool_ok;   /* [floor_pool_n] holds the kind of answer asked for */
    unsigned char *floor_pool_held; /* [floor_pool_n] FLOOR_HELD_* bits: what it holds, with the
                                       memories an edge joins it to, of what each rule asks */
    unsigned floor_checks;          /* FLOOR_HELD_* bits of the rules this question applies: the
                                       passes stand only if, for each, one of them holds it */
    size_t floor_pool_n;
    floor_term floor_terms[FLOOR_TERMS_MAX]; /* the predicate's words */
    int n_floor_terms;
    double floor_best_coverage; /* the best predicate coverage in the pool */
    char floor_predicate[256];  /* the predicate's words ("blood type"), "" when none */
    char floor_unheld[256];     /* those no pooled memory holds */
    char floor_subject[256];    /* the speakers the query names ("Caroline") */
    char floor_focus[64]; /* the predicate word naming what is asked ("salary"), "" when none */
    int floor_focus_held; /* some pooled memory holds it */
    int floor_focus_supported;  /* some memory passing by overlap or meaning holds it, itself
                                   or with a memory an edge joins it to */
    char floor_kind[48];        /* the noun the answer is a kind of ("city"), "" when none or
                                   not checked (floor.c: WordNet, a nameable class) */
    int floor_kind_which;       /* asked with "which" */
    int floor_kind_supported;   /* a memory passing by overlap or meaning names one */
    char floor_verb[48];        /* the verb of a what-question checked ("study"), "" when none */
    int floor_verb_supported;   /* a memory passing by overlap or meaning says it */
    char floor_no_support[640]; /* when it abstains on the floor: what found no support,
                                   "nothing about \"blood type\" for Caroline" */
    /* query analysis */
    char **terms; /* query terms as FTS5 sees them, stop words removed */
    size_t n_terms;
    char **synonyms; /* "word>synonym" added to the query vector (--synonyms) */
    size_t n_synonyms;
    char **entities; /* entities of the store named in the query */
    size_t n_entities;
    char **dates; /* dates found, as ranges "START..END" */
    size_t n_dates;
    recall_explain *explain;    /* when asked */
    const char *rerank_status;  /* "off", "applied" or "failed" */
    char rerank_error[768];     /* why it failed (the ranking then stays as fused) */
    size_t feedback_judgements; /* judgements the feedback adjustment learned from */
    double timing_ms;
} recall_result;

/* Run one recall. On MS_OK *out is the response (also when it abstains);
 * free with recall_free. MS_CHANNEL when a required channel is inactive. */
ms_status engine_recall(engine *e, const recall_opts *o, recall_result **out, ms_error *err);
void recall_free(recall_result *r);
/* Position (1-based) of memory id among r's results, 0 when absent or r is
 * NULL. */
int recall_rank_of(const recall_result *r, const char *id);
/* Memory id among r's results or the nearest misses it cut, or NULL. */
const recall_hit *recall_find(const recall_result *r, const char *id);

/* The response as Score Contract v2 JSON (with per-result traces when
 * trace). Caller frees. */
char *recall_json(const recall_result *r, int trace);

/* Recompute every hit's fused, boosted, ranking and relevance scores from
 * its trace alone; returns the number of mismatches (0 = consistent) and
 * writes a line per mismatch into report (may be NULL). */
int recall_audit(const recall_result *r, char *report, size_t len);

/* ---- reranking and feedback -------------------------------------------- */

/* Rerank every later recall's candidate pool with an external program
 * ("cmd:PROGRAM"); NULL stops. A program that cannot start is not an
 * error here: recalls say "failed" with the reason and keep the fused
 * ranking. */
void engine_set_reranker(engine *e, const char *spec);

/* Record that memory id was (+1) or was not (-1) relevant to the query of
 * r, the recall it was judged in, replacing an earlier judgement of id for
 * that query (label 0 withdraws it): stored in the store (which must be
 * writable) in one transaction and learned at once. */
ms_status engine_feedback(engine *e, const recall_result *r, const char *id, int label,
                          ms_error *err);

/* Set memory rid's judgement for the query text to f's label, query type and
 * channels, or withdraw it when f is NULL; one transaction, learned at
 * once (the browser's undo). f is not kept. */
ms_status engine_feedback_put(engine *e, int64_t rid, const char *text, const store_feedback *f,
                              ms_error *err);

/* The same, learned for this engine only and never stored. */
ms_status engine_learn(engine *e, const recall_result *r, const char *id, int label, ms_error *err);

/* Forget every judgement of the current profile, stored ones included. */
ms_status engine_feedback_reset(engine *e, ms_error *err);

/* ---- health ------------------------------------------------------------ */

typedef struct engine_health {
    channel_status ch[CH_COUNT];
    const char *embedder_id; /* the query side's embedder */
    int embedder_dim;
    const char *store_embedder_id; /* who made the stored vectors, or NULL */
    store_counts counts;
    int64_t vectors_missing;
} engine_health;

ms_status engine_health_get(engine *e, engine_health *h, ms_error *err);
/* The same but of the counts only counts.memories (the others 0), from the
 * snapshot: what the browser's status bar shows, without store_count's
 * joins over links, edges and vectors (seconds at a million memories). */
ms_status engine_health_brief(engine *e, engine_health *h, ms_error *err);
char *engine_health_json(const engine_health *h);

/* What was wrong with the snapshot file the last recall found (damaged,
 * of another memscope version, of another store: see docs/PERFORMANCE.md),
 * in one line naming the file; the engine read the tables instead and
 * wrote a new file. NULL when nothing was wrong (a missing or stale file is
 * rebuilt without a word). Valid until the next call on e. */
const char *engine_snapshot_note(const engine *e);

/* ---- identity ---------------------------------------------------------- */

/* The whole configuration a recall with options o runs under, as text with
 * one "key=value" line each: the embedder, the reranker, every option, the floor's threshold and
 * rule, and each query type's weights, RRF k and entity-graph factors. Two runs with the same text
 * rank the same store (and profile) the same way. Caller frees; NULL when out of memory. */
char *engine_config_text(engine *e, const recall_opts *o);

/* ---- query analysis (also for the browser's status bar) ---------------- */

/* The query type engine_recall would choose: "temporal", "multi_hop", ... */
const char *engine_query_type(engine *e, const char *query);

#endif
