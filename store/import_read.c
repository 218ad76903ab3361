/* import_read.c - lines and whole files for the readers of other systems'
 * formats, through zlib's gz* functions: they read a gzip file as its
 * content and any other file as it is, so `memories.jsonl.gz` and a plain
 * JSONL file take the same path. */
#include "import_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

struct import_lines {
    gzFile gz;
    char *buf;
    size_t cap;
    uint64_t line;
    uint64_t bytes;
};

import_lines *import_lines_open(const char *path, ms_error *err)
{
    import_lines *r = calloc(1, sizeof *r);
    if (!r) {
        ms_fail(err, MS_NOMEM, "out of memory");
        return NULL;
    }
    int fd = strcmp(path, "-") == 0 ? dup(0) : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || !(r->gz = gzdopen(fd, "rb"))) {
        ms_fail(err, MS_IO, "cannot open %s: %s", path, strerror(errno ? errno : ENOMEM));
        if (fd >= 0)
            close(fd);
        free(r);
        return NULL;
    }
    gzbuffer(r->gz, 1 << 16);
    return r;
}

void import_lines_close(import_lines *r)
{
    if (!r)
        return;
    gzclose(r->gz);
    free(r->buf);
    free(r);
}

uint64_t import_lines_bytes(const import_lines *r)
{
    return r->bytes;
}

/* zlib's reason for a failed read: corrupt data, or the system's error. */
static ms_status read_fail(import_lines *r, const char *file, ms_error *err)
{
    int zerr = Z_OK;
    const char *why = gzerror(r->gz, &zerr);
    if (zerr == Z_ERRNO)
        return ms_fail(err, MS_IO, "%s:%llu: read error: %s", file, (unsigned long long)r->line + 1,
                       strerror(errno));
    const char *colon = why ? strstr(why, ": ") : NULL; /* after zlib's "<fd:N>: " */
    why = colon ? colon + 2 : why;
    return ms_fail(err, MS_PARSE, "%s:%llu: corrupt compressed data (%s)", file,
                   (unsigned long long)r->line + 1, why && *why ? why : "zlib error");
}

int import_lines_next(import_lines *r, const char *file, char **text, size_t *len, uint64_t *line,
                      ms_error *err)
{
    size_t n = 0;
    int c;
    while ((c = gzgetc(r->gz)) != -1) {
        if (c == '\n')
            break;
        if (n >= IMPORT_LINE_MAX) {
            ms_fail(err, MS_LIMIT, "%s:%llu: line is longer than the limit of %d bytes", file,
                    (unsigned long long)r->line + 1, IMPORT_LINE_MAX);
            return -1;
        }
        if (c == 0) {
            ms_fail(err, MS_PARSE, "%s:%llu:%zu: a NUL byte in the text", file,
                    (unsigned long long)r->line + 1, n + 1);
            return -1;
        }
        if (n + 2 > r->cap) {
            size_t ncap = r->cap ? r->cap * 2 : 4096;
            char *g = realloc(r->buf, ncap);
            if (!g) {
                ms_fail(err, MS_NOMEM, "out of memory");
                return -1;
            }
            r->buf = g;
            r->cap = ncap;
        }
        r->buf[n++] = (char)c;
    }
    int zerr = Z_OK;
    gzerror(r->gz, &zerr);
    if (c == -1 && zerr != Z_OK && zerr != Z_STREAM_END) {
        read_fail(r, file, err);
        return -1;
    }
    if (c == -1 && n == 0)
        return 0;
    r->bytes += n + (c == '\n');
    r->line++;
    if (n && r->buf[n - 1] == '\r')
        n--;
    if (!r->buf && !(r->buf = malloc(r->cap = 1))) {
        ms_fail(err, MS_NOMEM, "out of memory");
        return -1;
    }
    r->buf[n] = '\0';
    *text = r->buf;
    *len = n;
    *line = r->line;
    return 1;
}

ms_status import_read_whole(const char *path, const char *file, char **out, size_t *len,
                            ms_error *err)
{
    import_lines *r = import_lines_open(path, err);
    if (!r)
        return err ? err->code : MS_IO;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    ms_status st = buf ? MS_OK : ms_fail(err, MS_NOMEM, "out of memory reading %s", file);
    while (!st) {
        if (n + 1 >= cap) {
            char *g = cap >= IMPORT_WHOLE_MAX ? NULL : realloc(buf, cap * 2);
            if (!g) {
                st =
                    cap >= IMPORT_WHOLE_MAX
                        ? ms_fail(err, MS_LIMIT, "%s: a JSON file over %d MiB cannot be read whole",
                                  file, IMPORT_WHOLE_MAX >> 20)
                        : ms_fail(err, MS_NOMEM, "out of memory reading %s", file);
                break;
            }
            buf = g;
            cap *= 2;
        }
        int got = gzread(r->gz, buf + n, (unsigned)(cap - n - 1));
        if (got < 0)
            st = read_fail(r, file, err);
        else if (got == 0)
            break;
        n += (size_t)got;
    }
    import_lines_close(r);
    if (st) {
        free(buf);
        return st;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return MS_OK;
}
