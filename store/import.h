/* import.h - reading memories from files into a store, and writing them out.
 *
 * Formats: memory JSONL (one object a line), a JSON array of memory objects,
 * the original LoCoMo conversation file, and other memory systems' files
 * (import_int.h; docs/STORES.md says how each maps). Import never opens or commits a
 * transaction itself: the caller wraps a whole command in store_begin /
 * store_end, so a malformed line anywhere leaves the store as it was.
 *
 * Errors name the place: "FILE:LINE:COL: what is wrong", columns counted in
 * characters from 1. */
#ifndef MS_IMPORT_H
#define MS_IMPORT_H

#include <stdint.h>
#include <stdio.h>

#include "store/base/status.h"
#include "store.h"

#define IMPORT_LINE_MAX (8 * 1024 * 1024)    /* bytes of one JSONL line */
#define IMPORT_DEPTH_MAX 32                  /* nesting of arrays and objects */
#define IMPORT_WHOLE_MAX (512 * 1024 * 1024) /* bytes of a JSON array or LoCoMo file */

typedef enum import_format {
    IMPORT_AUTO,
    IMPORT_JSONL,
    IMPORT_JSON,
    IMPORT_LOCOMO,
    IMPORT_SLM,        /* a SuperLocalMemory store: memory.db or its data root */
    IMPORT_MCP,        /* the MCP memory server's knowledge-graph JSONL (import_mcp.c) */
    IMPORT_MEM0,       /* mem0 OpenMemory's export (import_mem0.c) */
    IMPORT_SLM_BUNDLE, /* SLM's evidence bundle directory (import_bundle.c) */
} import_format;

/* "auto", "jsonl", "json", "locomo", "slm", "mcp-memory", "mem0",
 * "slm-bundle" -> format; -1 when unknown. */
int import_format_parse(const char *name);
const char *import_format_name(import_format f);

typedef struct import_stats {
    uint64_t records; /* memory objects read */
    uint64_t inserted, replaced, skipped;
    uint64_t hidden;              /* records the source marks deleted, archived or quarantined:
                                     not imported */
    uint64_t edges;               /* links the source recorded between memories, added as edges */
    uint64_t superseded_found;    /* supersedes relations found (supersede.c) */
    uint64_t contradicts;         /* contradictions the source recorded, as relations */
    uint64_t contradicts_missing; /* ... left out: the other memory is not in the store */
    uint64_t bytes;               /* input bytes consumed */
} import_stats;

#define IMPORT_SLM_SCHEMA 42 /* the newest SLM slm_schema_version read (SLM 4.0.10) */

/* What an SLM import did in one profile (import_opts.slm_report). */
typedef struct import_slm_report {
    const char *slm_profile;                      /* SLM's profile_id */
    const char *profile;                          /* the memscope profile written */
    uint64_t added, replaced, unchanged, removed; /* memories */
    uint64_t kept; /* ids memscope had from elsewhere, kept (--on-duplicate skip) */
    uint64_t archived, quarantined;    /* hidden in SLM: never imported */
    uint64_t out_of_recall;            /* retention zone archive/forgotten: skipped */
    uint64_t superseded;               /* imported with their supersession */
    uint64_t vectors, vectors_skipped; /* vectors imported / left out (other model) */
    uint64_t vectors_unlabelled;       /* left out: no embedding_metadata names the model */
    uint64_t edges, edges_skipped;     /* SLM edges imported / with no memscope type */
    uint64_t contradicts;              /* contradiction edges, as contradicts relations */
    const char *model;                 /* the vectors' model, or NULL */
    int model_dim;
    const char *skipped_why; /* why vectors were left out, or NULL */
    int64_t version;         /* SLM's schema version read (0: no marker) */
    const char *missing;     /* tables and columns this SLM store lacks ("" none) */
} import_slm_report;

typedef struct import_opts {
    import_format format;
    store_dup_policy dup;
    const char *embedder_id; /* who made "embedding" arrays; NULL = "given" */
    /* SLM: only this SLM profile (NULL: every one); the memscope profile
     * to write it to (NULL: SLM's own name); called once per profile. */
    const char *slm_profile;
    const char *slm_target;
    void (*slm_report)(void *ctx, const import_slm_report *r);
    void *slm_report_ctx;
    /* Called now and then during long imports; may be NULL. */
    void (*progress)(void *ctx, const import_stats *st);
    void *progress_ctx;
} import_opts;

/* Import the file at path ("-" = stdin) into s, which must be inside
 * store_begin. Memories go to their "profile" field, else the store's current
 * profile (LoCoMo: the sample_id). stats accumulates across calls. */
ms_status import_file(store *s, const char *path, const import_opts *opts, import_stats *stats,
                      ms_error *err);

/* import_slm.c: import the SLM store at path (memory.db or its data root),
 * opened read-only and never written, into s (inside store_begin). Each SLM
 * profile goes to the memscope profile of its name (opts->slm_profile picks
 * one, opts->slm_target renames it); importing again brings memscope up to
 * date. Errors are one line naming the file. */
ms_status import_slm(store *s, const char *path, const import_opts *opts, import_stats *stats,
                     ms_error *err);

/* Is path (a file or a folder) a SuperLocalMemory store? */
int import_is_slm(const char *path);

/* Write memories as JSONL: the current profile, or every profile when
 * all_profiles. Each line carries its profile and the entities given with it,
 * so that export -> import -> export is identical. */
ms_status export_jsonl(store *s, FILE *out, int all_profiles, ms_error *err);

/* Write one memory (read with its given entities: STORE_SCAN_GIVEN) as the
 * JSONL line export_jsonl writes for it. With s, the line also carries the
 * contradicts relations m is the source of ("contradicts": [{"id", "reason"}]),
 * which import records once the whole file is in; s may be NULL (no
 * relations are read). */
ms_status export_memory(store *s, FILE *out, const store_memory *m, ms_error *err);

/* Parse a LoCoMo session time like "1:56 pm on 8 May, 2023" (UTC). */
int import_locomo_time(const char *text, int64_t *ts);

#endif
