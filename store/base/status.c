/* status.c - status texts and error reports. */
#include "store/base/status.h"

#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>

#define MS_STATUS_TEXT(name, text) text,
static const char *const status_texts[] = {MS_STATUS_INFO(MS_STATUS_TEXT)};
#undef MS_STATUS_TEXT

const char *ms_status_text(ms_status code)
{
    if ((unsigned)code >= MS_STATUS_COUNT)
        return "unknown status";
    return status_texts[code];
}

ms_status ms_fail(ms_error *err, ms_status code, const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}

void ms_error_clear(ms_error *err)
{
    if (!err)
        return;
    err->code = MS_OK;
    err->msg[0] = '\0';
}

ms_status ms_status_from_sqlite(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_OK:
    case SQLITE_ROW:
    case SQLITE_DONE:
        return MS_OK;
    case SQLITE_NOMEM:
        return MS_NOMEM;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return MS_BUSY;
    case SQLITE_READONLY:
        return MS_READONLY;
    case SQLITE_CORRUPT:
        return MS_CORRUPT;
    case SQLITE_NOTADB:
        return MS_NOT_STORE;
    case SQLITE_FULL:
        return MS_FULL;
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
        return MS_IO;
    case SQLITE_CONSTRAINT:
        return MS_DUPLICATE;
    default:
        return MS_SQL;
    }
}
