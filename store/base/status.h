/* status.h - status codes and error reports shared by store/ and engine/.
 *
 * Libraries never exit(): every fallible function returns an ms_status and,
 * when given an ms_error, fills it with a one-line message that says what went
 * wrong and where (file:line:col for input files, the store path for stores).
 * The X-macro keeps each code next to its generic text so they cannot drift. */
#ifndef MS_STATUS_H
#define MS_STATUS_H

#include <stddef.h>

#define MS_STATUS_INFO(_)                                                                          \
    _(OK, "ok")                                                                                    \
    _(NOMEM, "out of memory")                                                                      \
    _(IO, "input/output error")                                                                    \
    _(USAGE, "invalid argument")                                                                   \
    _(NOT_FOUND, "not found")                                                                      \
    _(DUPLICATE, "duplicate id")                                                                   \
    _(PARSE, "malformed input")                                                                    \
    _(LIMIT, "limit exceeded")                                                                     \
    _(NOT_STORE, "not a memscope store")                                                           \
    _(SCHEMA_NEWER, "store schema is newer than this memscope")                                    \
    _(CORRUPT, "store is corrupt")                                                                 \
    _(READONLY, "store is read-only")                                                              \
    _(BUSY, "store is locked by another process")                                                  \
    _(FULL, "disk or file size limit is full")                                                     \
    _(SQL, "database error")                                                                       \
    _(CHANNEL, "a required channel is inactive")                                                   \
    _(EXTERNAL, "external program failed")                                                         \
    _(EMBEDDER, "vectors come from another embedder")

#define MS_STATUS_ENUM(name, text) MS_##name,
typedef enum ms_status { MS_STATUS_INFO(MS_STATUS_ENUM) MS_STATUS_COUNT } ms_status;
#undef MS_STATUS_ENUM

/* A filled-in error: the code and a complete one-line message. */
typedef struct ms_error {
    ms_status code;
    char msg[768];
} ms_error;

/* The generic text of a code ("out of memory"). Static storage. */
const char *ms_status_text(ms_status code);

/* Fill err (if not NULL) with code and a printf-formatted message; returns
 * code so callers can write `return ms_fail(err, MS_IO, "...")`. */
ms_status ms_fail(ms_error *err, ms_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Reset err to MS_OK with an empty message. */
void ms_error_clear(ms_error *err);

/* Map an SQLite result code to a status (SQLITE_BUSY -> MS_BUSY, ...). */
ms_status ms_status_from_sqlite(int rc);

#endif
