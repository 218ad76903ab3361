/* closing.h - the end of a command that opened the engine for one answer
 * (recall, health, feedback; the shell and the browser): its engine and store
 * closed, and the snapshot file for the next process written on the way
 * (engine_saves_at_close) when the engine read its snapshot from the
 * tables.
 *
 * Writing that file takes about as long again as reading the tables did:
 * at a million memories 12 s after an answer that took 4 (docs/SCALING.md,
 * "What a rewrite costs at 1M"). From CLI_SAVE_BACKGROUND_MIN memories it
 * is written by a child process that outlives the command, so that the
 * shell's prompt (or the pipe's reader) does not wait for it; below that,
 * or with MEMSCOPE_SNAPSHOT_SAVE=wait, the command writes it itself while
 * the status line says so. MEMSCOPE_SNAPSHOT_SAVE=background writes it in
 * the background at any size (tests). The child has its own connection to
 * the store, opened after the fork, and writes nothing when the store has
 * changed since; another process that wants the file meanwhile reads the
 * tables as it would without one (the file is written whole under a lock
 * and renamed into place: engine/snapfile.c). */
#ifndef MS_CLOSING_H
#define MS_CLOSING_H

#include "engine/engine.h"
#include "tui/cli/status_line.h"

#define CLI_SAVE_BACKGROUND_MIN 100000 /* memories: the save takes about 1 s (100k) */

/* Open the engine on s for a command that ends with cli_close_engine: l
 * begun for the store at path (as given), and while the engine reads its
 * snapshot from the tables, how far, on it (when stderr is a terminal). */
ms_status cli_open_engine(store *s, const char *embedder, const char *path, status_line *l,
                          engine **out, ms_error *err);

/* Close e and then s (either may be NULL), writing the snapshot file now or
 * in a child as above; next names what the file is for ("recall",
 * "start"), for the status line. The process exits soon after. */
void cli_close_engine(engine *e, store *s, status_line *l, const char *next);

#endif
