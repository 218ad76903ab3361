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

#include "status.h"
#include "store.h"

#define IMPORT_LINE_MAX (8 * 1024 * 1024)    /* bytes of one JSONL line */
#define IMPORT_DEPTH_MAX 32                  /* nesting of arrays and objects */
#define IMPORT_WHOLE_MAX (512 * 1024 * 1024) /* bytes of a JSON array or LoCoMo file */

typedef enum import_format {
    IMPORT_AUTO,
    IMPORT_JSONL,
    IMPORT_JSON,
    IMPORT_LOCOMO,
    IMPORT_MCP,        /* the MCP memory server's knowledge-graph JSONL (import_mcp.c) */
    IMPORT_MEM0,       /* mem0 OpenMemory's export (import_mem0.c) */
    IMPORT_SLM_BUNDLE, /* SLM's evidence bundle directory (import_bundle.c) */
} import_format;

/* "auto", "jsonl", "json", "locomo", "mcp-memory", "mem0", "slm-bundle" ->
 * format; -1 when unknown. */
int import_format_parse(const char *name);
const char *import_format_name(import_format f);

typedef struct import_stats {
    uint64_t records; /* memory objects read */
    uint64_t inserted, replaced, skipped;
    uint64_t hidden; /* records the source marks deleted, archived or quarantined:
                        not imported */
    uint64_t edges;  /* links the source recorded between memories, added as edges */
    uint64_t bytes;  /* input bytes consumed */
} import_stats;

typedef struct import_opts {
    import_format format;
    store_dup_policy dup;
    const char *embedder_id; /* who made "embedding" arrays; NULL = "given" */
    /* Called now and then during long imports; may be NULL. */
    void (*progress)(void *ctx, const import_stats *st);
    void *progress_ctx;
} import_opts;

/* Import the file at path ("-" = stdin) into s, which must be inside
 * store_begin. Memories go to their "profile" field, else the store's current
 * profile (LoCoMo: the sample_id). stats accumulates across calls. */
ms_status import_file(store *s, const char *path, const import_opts *opts, import_stats *stats,
                      ms_error *err);

/* Write memories as JSONL: the current profile, or every profile when
 * all_profiles. Each line carries its profile and the entities given with it,
 * so that export -> import -> export is identical. */
ms_status export_jsonl(store *s, FILE *out, int all_profiles, ms_error *err);

/* Write one memory (read with its given entities: STORE_SCAN_GIVEN) as the
 * JSONL line export_jsonl writes for it. */
ms_status export_memory(FILE *out, const store_memory *m, ms_error *err);

/* Parse a LoCoMo session time like "1:56 pm on 8 May, 2023" (UTC). */
int import_locomo_time(const char *text, int64_t *ts);

#endif
