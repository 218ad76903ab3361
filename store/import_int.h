/* import_int.h - what import.c shares with the readers of other memory
 * systems' files (import_mcp.c, import_mem0.c, import_bundle.c), and the
 * line reader they use (import_read.c); not for other modules.
 *
 * Every reader writes through import_put into the store the caller holds
 * inside store_begin, so a bad record anywhere leaves the store as it was;
 * every error is one line naming the file (and line and column when there
 * is one) and what is wrong. */
#ifndef MS_IMPORT_INT_H
#define MS_IMPORT_INT_H

#include <cjson/cJSON.h>

#include "import.h"

/* ---- shared with import.c ------------------------------------------------ */

/* The checks import makes on every line before parsing it: UTF-8, NUL
 * bytes and \u0000 escapes, nesting depth. MS_OK, or the failure with err
 * "FILE:LINE:COL: what". t need not be NUL-terminated. */
ms_status import_check_text(const char *file, uint64_t line, const char *t, size_t len,
                            ms_error *err);

/* Check and parse the one JSON value t[0..len) of line `line` of file.
 * Returns it (caller frees with cJSON_Delete), or NULL with err
 * "FILE:LINE:COL: what". */
cJSON *import_parse_json(const char *file, uint64_t line, const char *t, size_t len, ms_error *err);

/* Write m into the store's current profile with opts->dup, and count it in
 * stats (records, inserted / replaced / skipped). A record the store refuses
 * is bad input: err "FILE:LINE: what" (line 0 leaves the line out). m
 * stays the caller's; m->rid is set. */
ms_status import_put(store *s, const import_opts *opts, import_stats *stats, store_memory *m,
                     const char *file, uint64_t line, ms_error *err);

/* A confidence, importance or weight another system stored, made 0..1:
 * clamped, and 0.5 (no evidence either way) when it is not a number. */
double import_unit(double v);

/* ---- the line reader (import_read.c) ------------------------------------ */

/* Lines of a file, read through zlib so that a gzip file reads as its
 * content ("-" is standard input). */
typedef struct import_lines import_lines;

/* Open path. NULL with err "cannot open PATH: why". */
import_lines *import_lines_open(const char *path, ms_error *err);
void import_lines_close(import_lines *r);

/* The next line without its line end into *text (NUL-terminated, owned by
 * r, valid until the next call) and its length: 1; 0 at the end; -1 with
 * err "FILE:LINE: why" for a line over IMPORT_LINE_MAX bytes, a NUL byte,
 * a read error or corrupt compressed data. *line gets its 1-based number. */
int import_lines_next(import_lines *r, const char *file, char **text, size_t *len, uint64_t *line,
                      ms_error *err);

/* Bytes of (uncompressed) input read so far. */
uint64_t import_lines_bytes(const import_lines *r);

/* The whole content of path (at most IMPORT_WHOLE_MAX bytes, gzip read as
 * its content) into *out, NUL-terminated; caller frees. */
ms_status import_read_whole(const char *path, const char *file, char **out, size_t *len,
                            ms_error *err);

/* ---- the formats --------------------------------------------------------- */

/* Does the head of a file (its first bytes, NUL-terminated) look like the
 * format? Used by `auto`. */
int import_mcp_sniff(const char *head, size_t n);
int import_mem0_sniff(const char *head, size_t n);

/* Is path a directory holding an SLM evidence bundle's manifest.json (or
 * that manifest itself)? */
int import_bundle_sniff(const char *path);

/* Import one file (or bundle directory) of the format into s; file is the
 * name errors use. */
ms_status import_mcp(store *s, const char *path, const char *file, const import_opts *opts,
                     import_stats *stats, ms_error *err);
ms_status import_mem0(store *s, const char *path, const char *file, const import_opts *opts,
                      import_stats *stats, ms_error *err);
ms_status import_bundle(store *s, const char *path, const import_opts *opts, import_stats *stats,
                        ms_error *err);

/* The reason of a contradicts relation imported from SuperLocalMemory's
 * graph (import_slm.c, import_bundle.c). */
#define SLM_CONTRADICTION "contradiction edge (SuperLocalMemory)"

/* What an SLM graph_edges edge_type becomes, for both SLM readers (the store
 * and the evidence bundle): temporal and entity edges are memscope's
 * temporal and entity edges; semantic, causal and any other named type a
 * relation edge; SLM_EDGE_SUPERSEDES is the facts' supersession (not an
 * edge), SLM_EDGE_CONTRADICTS a contradicts relation (source contradicts
 * target), and 0 (no type given) nothing. */
enum { SLM_EDGE_SUPERSEDES = -1, SLM_EDGE_CONTRADICTS = -2 };
int import_slm_edge_type(const char *edge_type);

#endif
