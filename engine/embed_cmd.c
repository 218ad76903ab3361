/* embed_cmd.c - an external embedder: a program the user runs, spoken to in
 * JSON lines over its stdin and stdout (docs/EMBEDDERS.md).
 *
 *   -> {"op":"info"}                       <- {"id":"NAME","dim":N}
 *   -> {"op":"embed","texts":["a","b"]}    <- {"vectors":[[...],[...]]}
 *
 * One request line, one reply line. Every reply must come within the
 * timeout (MEMSCOPE_EMBED_TIMEOUT_MS, default 10000). The program's stderr
 * goes to /dev/null unless MEMSCOPE_EMBED_STDERR=1. Vectors must have N
 * finite numbers each; memscope normalises them to unit length. The store
 * records the embedder as "cmd:NAME:N". */
#include "embed_int.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CMD_BATCH 64
#define CMD_REPLY_MAX (64 * 1024 * 1024)

typedef struct cmd_state {
    pid_t pid;
    int to_fd, from_fd;
    char *command;
    int timeout_ms;
    char *buf; /* reply bytes read but not consumed */
    size_t n, cap;
} cmd_state;

static int timeout_ms(void)
{
    const char *v = getenv("MEMSCOPE_EMBED_TIMEOUT_MS");
    long ms = v ? strtol(v, NULL, 10) : 0;
    return ms > 0 && ms < 3600000 ? (int)ms : 10000;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static ms_status write_some(cmd_state *c, const char *s, size_t n, ms_error *err);

/* Why the program is gone, as text. Its pipe closes a moment before it can
 * be reaped, so wait up to half a second for its exit status. */
static void exit_reason(cmd_state *c, char *out, size_t len)
{
    int status;
    pid_t r = 0;
    for (int i = 0; i < 100 && c->pid > 0 && (r = waitpid(c->pid, &status, WNOHANG)) == 0; i++)
        usleep(5000);
    if (r == c->pid && c->pid > 0) {
        c->pid = 0;
        if (WIFEXITED(status))
            snprintf(out, len, "exited with status %d%s", WEXITSTATUS(status),
                     WEXITSTATUS(status) == 127 ? " (program not found?)" : "");
        else if (WIFSIGNALED(status))
            snprintf(out, len, "was killed by signal %d", WTERMSIG(status));
        else
            snprintf(out, len, "stopped");
    } else {
        snprintf(out, len, "closed its output");
    }
}

/* Write to the program. SIGPIPE is ignored meanwhile, so a program that died
 * is an error to report rather than a signal that kills memscope. */
static ms_status write_all(cmd_state *c, const char *s, size_t n, ms_error *err)
{
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigaction(SIGPIPE, &ign, &old);
    ms_status st = write_some(c, s, n, err);
    sigaction(SIGPIPE, &old, NULL);
    return st;
}

static ms_status write_some(cmd_state *c, const char *s, size_t n, ms_error *err)
{
    while (n > 0) {
        ssize_t w = write(c->to_fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            char why[96];
            exit_reason(c, why, sizeof why);
            return ms_fail(err, MS_EXTERNAL, "embedder '%s' %s", c->command, why);
        }
        s += w;
        n -= (size_t)w;
    }
    return MS_OK;
}

/* Read one reply line (without its newline) into *line, valid until the
 * next call. */
static ms_status read_line(cmd_state *c, char **line, ms_error *err)
{
    double deadline = now_ms() + c->timeout_ms;
    for (;;) {
        char *nl = c->n ? memchr(c->buf, '\n', c->n) : NULL;
        if (nl) {
            *nl = '\0';
            *line = c->buf;
            return MS_OK;
        }
        if (c->n + 65536 > c->cap) {
            if (c->cap >= CMD_REPLY_MAX)
                return ms_fail(err, MS_EXTERNAL, "embedder '%s' sent a reply over %d MiB",
                               c->command, CMD_REPLY_MAX >> 20);
            size_t cap = c->cap ? c->cap * 2 : 1 << 20;
            char *g = realloc(c->buf, cap);
            if (!g)
                return ms_fail(err, MS_NOMEM, "out of memory");
            c->buf = g;
            c->cap = cap;
        }
        int left = (int)(deadline - now_ms());
        struct pollfd p = {c->from_fd, POLLIN, 0};
        int r = left > 0 ? poll(&p, 1, left) : 0;
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            return ms_fail(err, MS_EXTERNAL, "embedder '%s' did not answer within %d ms",
                           c->command, c->timeout_ms);
        ssize_t got = read(c->from_fd, c->buf + c->n, c->cap - c->n - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            char why[96];
            exit_reason(c, why, sizeof why);
            return ms_fail(err, MS_EXTERNAL, "embedder '%s' %s", c->command, why);
        }
        c->n += (size_t)got;
    }
}

/* Drop the line just returned by read_line. */
static void consume_line(cmd_state *c)
{
    char *end = memchr(c->buf, '\0', c->n);
    size_t used = end ? (size_t)(end - c->buf) + 1 : c->n;
    memmove(c->buf, c->buf + used, c->n - used);
    c->n -= used;
}

static ms_status request(cmd_state *c, cJSON *req, cJSON **reply, ms_error *err)
{
    char *text = cJSON_PrintUnformatted(req);
    if (!text)
        return ms_fail(err, MS_NOMEM, "out of memory");
    ms_status st = write_all(c, text, strlen(text), err);
    if (!st)
        st = write_all(c, "\n", 1, err);
    free(text);
    char *line = NULL;
    if (!st)
        st = read_line(c, &line, err);
    if (st)
        return st;
    *reply = cJSON_Parse(line);
    consume_line(c);
    if (!*reply)
        return ms_fail(err, MS_EXTERNAL, "embedder '%s' answered with malformed JSON",
                       c->command);
    return MS_OK;
}

/* Copy one reply vector into out (dim floats), normalised. */
static ms_status take_vector(cmd_state *c, const cJSON *v, int dim, float *out, size_t which,
                             ms_error *err)
{
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != dim)
        return ms_fail(err, MS_EXTERNAL, "embedder '%s': vector %zu has %d numbers, not %d",
                       c->command, which, cJSON_IsArray(v) ? cJSON_GetArraySize(v) : 0, dim);
    double norm = 0;
    int i = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, v)
    {
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || fabs(x->valuedouble) > 1e30)
            return ms_fail(err, MS_EXTERNAL, "embedder '%s': vector %zu holds a value that is "
                                             "not a finite number", c->command, which);
        out[i] = (float)x->valuedouble;
        norm += (double)out[i] * out[i];
        i++;
    }
    float inv = norm > 0 ? (float)(1.0 / sqrt(norm)) : 0;
    for (i = 0; i < dim; i++)
        out[i] *= inv;
    return MS_OK;
}

static ms_status embed_batch(embedder *e, const char *const *texts, size_t n, float *out,
                             ms_error *err)
{
    cmd_state *c = e->impl;
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "op", "embed");
    cJSON *arr = cJSON_AddArrayToObject(req, "texts");
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(texts[i]));
    cJSON *reply = NULL;
    ms_status st = request(c, req, &reply, err);
    cJSON_Delete(req);
    if (st)
        return st;
    const cJSON *vs = cJSON_GetObjectItemCaseSensitive(reply, "vectors");
    if (!cJSON_IsArray(vs) || (size_t)cJSON_GetArraySize(vs) != n)
        st = ms_fail(err, MS_EXTERNAL, "embedder '%s' must answer {\"vectors\": [...]} with %zu "
                                       "vectors", c->command, n);
    size_t i = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, vs)
    {
        if (st || i >= n)
            break;
        st = take_vector(c, v, e->dim, out + i * (size_t)e->dim, i, err);
        i++;
    }
    cJSON_Delete(reply);
    return st;
}

static ms_status cmd_embed(embedder *e, const char *const *texts, size_t n, float *out,
                           ms_error *err)
{
    for (size_t i = 0; i < n; i += CMD_BATCH) {
        size_t m = n - i < CMD_BATCH ? n - i : CMD_BATCH;
        ms_status st = embed_batch(e, texts + i, m, out + i * (size_t)e->dim, err);
        if (st)
            return st;
    }
    return MS_OK;
}

static void cmd_close(embedder *e)
{
    cmd_state *c = e->impl;
    if (!c)
        return;
    if (c->to_fd >= 0)
        close(c->to_fd);
    if (c->from_fd >= 0)
        close(c->from_fd);
    if (c->pid > 0) {
        int status;
        double until = now_ms() + 500;
        while (waitpid(c->pid, &status, WNOHANG) == 0 && now_ms() < until)
            usleep(5000);
        if (waitpid(c->pid, &status, WNOHANG) == 0) {
            kill(c->pid, SIGKILL);
            waitpid(c->pid, &status, 0);
        }
    }
    free(c->command);
    free(c->buf);
    free(c);
    e->impl = NULL;
}

static const embedder_ops cmd_ops = {"cmd", cmd_embed, cmd_close};

static ms_status spawn(cmd_state *c, ms_error *err)
{
    int in[2], out[2];
    if (pipe(in) || pipe(out))
        return ms_fail(err, MS_EXTERNAL, "cannot start embedder '%s': %s", c->command,
                       strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        return ms_fail(err, MS_EXTERNAL, "cannot start embedder '%s': %s", c->command,
                       strerror(errno));
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        /* Its diagnostics would break memscope's one-line errors and the
         * browser's screen; MEMSCOPE_EMBED_STDERR=1 lets them through. */
        const char *keep = getenv("MEMSCOPE_EMBED_STDERR");
        if (!keep || strcmp(keep, "1") != 0) {
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0)
                dup2(null, 2);
        }
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        execl("/bin/sh", "sh", "-c", c->command, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    c->pid = pid;
    c->to_fd = in[1];
    c->from_fd = out[0];
    return MS_OK;
}

/* Ask the program who it is. */
static ms_status handshake(embedder *e, cmd_state *c, ms_error *err)
{
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "op", "info");
    cJSON *reply = NULL;
    ms_status st = request(c, req, &reply, err);
    cJSON_Delete(req);
    if (st)
        return st;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(reply, "id");
    const cJSON *dim = cJSON_GetObjectItemCaseSensitive(reply, "dim");
    if (!cJSON_IsString(id) || !*id->valuestring || strlen(id->valuestring) > 100 ||
        !cJSON_IsNumber(dim) || dim->valuedouble < 1 || dim->valuedouble > STORE_DIM_MAX ||
        dim->valuedouble != floor(dim->valuedouble)) {
        cJSON_Delete(reply);
        return ms_fail(err, MS_EXTERNAL,
                       "embedder '%s' must answer {\"op\":\"info\"} with {\"id\": text, "
                       "\"dim\": 1..%d}", c->command, STORE_DIM_MAX);
    }
    e->dim = dim->valueint;
    snprintf(e->id, sizeof e->id, "cmd:%s:%d", id->valuestring, e->dim);
    cJSON_Delete(reply);
    return MS_OK;
}

embedder *embed_cmd_open(const char *command, ms_error *err)
{
    if (!command || !*command) {
        ms_fail(err, MS_USAGE, "cmd: needs a program, as in cmd:./my-embedder");
        return NULL;
    }
    embedder *e = calloc(1, sizeof *e);
    cmd_state *c = calloc(1, sizeof *c);
    if (!e || !c || !(c->command = strdup(command))) {
        free(e);
        free(c);
        ms_fail(err, MS_NOMEM, "out of memory");
        return NULL;
    }
    c->to_fd = c->from_fd = -1;
    c->timeout_ms = timeout_ms();
    e->ops = &cmd_ops;
    e->impl = c;
    e->batch = CMD_BATCH;
    ms_status st = spawn(c, err);
    if (!st)
        st = handshake(e, c, err);
    if (st) {
        embed_close(e);
        return NULL;
    }
    return e;
}
