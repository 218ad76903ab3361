/* jsonproc.h - a helper program spoken to in JSON lines over its stdin and
 * stdout: one request line, one reply line, each reply within a timeout.
 * Used by external embedders and rerankers (docs/EMBEDDERS.md). The
 * program runs under /bin/sh -c, as "exec PROGRAM" when it is a simple
 * command, so its stdout is the pipe read; its stderr goes to /dev/null unless
 * MEMSCOPE_EMBED_STDERR=1. A program that exits, stalls or answers
 * something that is not JSON is an MS_EXTERNAL error naming it. */
#ifndef MS_JSONPROC_H
#define MS_JSONPROC_H

#include <cjson/cJSON.h>

#include "store/base/status.h"

typedef struct jsonproc jsonproc;

/* Start command. what names it in errors ("embedder", "reranker");
 * timeout_ms bounds every reply. NULL with err on failure. */
jsonproc *jsonproc_start(const char *command, const char *what, int timeout_ms, ms_error *err);

/* Send req as one line and parse the reply line into *reply (caller frees
 * with cJSON_Delete). */
ms_status jsonproc_request(jsonproc *p, const cJSON *req, cJSON **reply, ms_error *err);

/* Close its pipes, give it half a second to exit, then kill it. NULL is
 * fine. */
void jsonproc_stop(jsonproc *p);

/* The command line it was started with. */
const char *jsonproc_command(const jsonproc *p);

/* A timeout from environment variable name, in ms, else fallback. */
int jsonproc_timeout(const char *name, int fallback);

#endif
