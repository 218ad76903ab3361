/* jsonproc.c - a helper program spoken to in JSON lines (jsonproc.h). */
#include "jsonproc.h"
#include "store/base/mono.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REPLY_MAX (64 * 1024 * 1024)

struct jsonproc {
    pid_t pid;
    int to_fd, from_fd;
    char *command;
    int timeout_ms;
    char *buf; /* reply bytes read but not consumed */
    size_t n, cap;
    const char *what; /* "embedder", "reranker" */
};

int jsonproc_timeout(const char *name, int fallback)
{
    const char *v = getenv(name);
    long ms = v ? strtol(v, NULL, 10) : 0;
    return ms > 0 && ms < 3600000 ? (int)ms : fallback;
}

static ms_status write_some(jsonproc *c, const char *s, size_t n, ms_error *err);

/* Why the program is gone, as text. Its pipe closes a moment before it can
 * be reaped, so wait up to half a second for its exit status. */
static void exit_reason(jsonproc *c, char *out, size_t len)
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
        snprintf(out, len, "closed its output while still running");
    }
}

/* Write to the program. SIGPIPE is ignored meanwhile, so a program that died
 * is an error to report rather than a signal that kills memscope. */
static ms_status write_all(jsonproc *c, const char *s, size_t n, ms_error *err)
{
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigaction(SIGPIPE, &ign, &old);
    ms_status st = write_some(c, s, n, err);
    sigaction(SIGPIPE, &old, NULL);
    return st;
}

static ms_status write_some(jsonproc *c, const char *s, size_t n, ms_error *err)
{
    while (n > 0) {
        ssize_t w = write(c->to_fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            char why[96];
            exit_reason(c, why, sizeof why);
            return ms_fail(err, MS_EXTERNAL, "%s '%s' %s", c->what, c->command, why);
        }
        s += w;
        n -= (size_t)w;
    }
    return MS_OK;
}

/* Read one reply line (without its newline) into *line, valid until the
 * next call. */
static ms_status read_line(jsonproc *c, char **line, ms_error *err)
{
    double deadline = mono_ms() + c->timeout_ms;
    for (;;) {
        char *nl = c->n ? memchr(c->buf, '\n', c->n) : NULL;
        if (nl) {
            *nl = '\0';
            *line = c->buf;
            return MS_OK;
        }
        if (c->n + 65536 > c->cap) {
            if (c->cap >= REPLY_MAX)
                return ms_fail(err, MS_EXTERNAL, "%s '%s' sent a reply over %d MiB", c->what,
                               c->command, REPLY_MAX >> 20);
            size_t cap = c->cap ? c->cap * 2 : 1 << 20;
            char *g = realloc(c->buf, cap);
            if (!g)
                return ms_fail(err, MS_NOMEM, "out of memory");
            c->buf = g;
            c->cap = cap;
        }
        int left = (int)(deadline - mono_ms());
        struct pollfd p = {c->from_fd, POLLIN, 0};
        int r = left > 0 ? poll(&p, 1, left) : 0;
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            return ms_fail(err, MS_EXTERNAL, "%s '%s' did not answer within %d ms", c->what,
                           c->command, c->timeout_ms);
        ssize_t got = read(c->from_fd, c->buf + c->n, c->cap - c->n - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            char why[96];
            exit_reason(c, why, sizeof why);
            return ms_fail(err, MS_EXTERNAL, "%s '%s' %s", c->what, c->command, why);
        }
        c->n += (size_t)got;
    }
}

/* Drop the line just returned by read_line. */
static void consume_line(jsonproc *c)
{
    char *end = memchr(c->buf, '\0', c->n);
    size_t used = end ? (size_t)(end - c->buf) + 1 : c->n;
    memmove(c->buf, c->buf + used, c->n - used);
    c->n -= used;
}

ms_status jsonproc_request(jsonproc *c, const cJSON *req, cJSON **reply, ms_error *err)
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
        return ms_fail(err, MS_EXTERNAL, "%s '%s' answered with malformed JSON", c->what,
                       c->command);
    return MS_OK;
}

/* Length of the leading NAME=value words of a simple command (value with
 * no quotes or blanks), so "exec" can go after them: "A=1 exec prog". */
static size_t assignments_len(const char *s)
{
    size_t i = 0, end = 0;
    for (;;) {
        while (s[i] == ' ' || s[i] == '\t')
            i++;
        size_t w = i;
        if (!(s[w] == '_' || (s[w] >= 'A' && s[w] <= 'Z') || (s[w] >= 'a' && s[w] <= 'z')))
            return end;
        while (s[w] == '_' || (s[w] >= 'A' && s[w] <= 'Z') || (s[w] >= 'a' && s[w] <= 'z') ||
               (s[w] >= '0' && s[w] <= '9'))
            w++;
        if (s[w] != '=')
            return end;
        while (s[w] && s[w] != ' ' && s[w] != '\t') {
            if (strchr("'\"\\", s[w]))
                return end;
            w++;
        }
        end = i = w;
    }
}

/* The shell text that runs command. A simple command (no ; & | ( ) `,
 * newline, or a leading keyword) gets "exec", so the shell becomes the
 * program: the pipe we read is then the program's own stdout, and its
 * closing is seen at once instead of after the timeout. NULL when out of
 * memory. */
static char *shell_text(const char *command)
{
    static const char *const keywords[] = {"!",   "{",    "if",   "while", "until",
                                           "for", "case", "exec", "time"};
    size_t a = assignments_len(command);
    const char *word = command + a + strspn(command + a, " \t");
    size_t wlen = strcspn(word, " \t");
    int simple = !strpbrk(command, ";&|()`\n") && wlen > 0;
    for (size_t i = 0; simple && i < sizeof keywords / sizeof *keywords; i++)
        if (wlen == strlen(keywords[i]) && !strncmp(word, keywords[i], wlen))
            simple = 0;
    size_t n = strlen(command);
    char *t = malloc(n + 7);
    if (!t)
        return NULL;
    if (!simple)
        memcpy(t, command, n + 1);
    else
        snprintf(t, n + 7, "%.*s exec %s", (int)a, command, word);
    return t;
}

static ms_status spawn(jsonproc *c, ms_error *err)
{
    char *text = shell_text(c->command);
    if (!text)
        return ms_fail(err, MS_NOMEM, "out of memory");
    int in[2], out[2];
    if (pipe(in)) {
        free(text);
        return ms_fail(err, MS_EXTERNAL, "cannot start %s '%s': %s", c->what, c->command,
                       strerror(errno));
    }
    if (pipe(out)) {
        free(text);
        close(in[0]);
        close(in[1]);
        return ms_fail(err, MS_EXTERNAL, "cannot start %s '%s': %s", c->what, c->command,
                       strerror(errno));
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        free(text);
        return ms_fail(err, MS_EXTERNAL, "cannot start %s '%s': %s", c->what, c->command,
                       strerror(errno));
    }
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
        execl("/bin/sh", "sh", "-c", text, (char *)NULL);
        _exit(127);
    }
    free(text);
    close(in[0]);
    close(out[1]);
    c->pid = pid;
    c->to_fd = in[1];
    c->from_fd = out[0];
    return MS_OK;
}

jsonproc *jsonproc_start(const char *command, const char *what, int timeout_ms, ms_error *err)
{
    jsonproc *c = calloc(1, sizeof *c);
    if (!c || !(c->command = strdup(command))) {
        free(c);
        ms_fail(err, MS_NOMEM, "out of memory");
        return NULL;
    }
    c->what = what;
    c->timeout_ms = timeout_ms;
    c->to_fd = c->from_fd = -1;
    if (spawn(c, err)) {
        jsonproc_stop(c);
        return NULL;
    }
    return c;
}

void jsonproc_stop(jsonproc *c)
{
    if (!c)
        return;
    if (c->to_fd >= 0)
        close(c->to_fd);
    if (c->from_fd >= 0)
        close(c->from_fd);
    if (c->pid > 0) {
        int status;
        double until = mono_ms() + 500;
        while (waitpid(c->pid, &status, WNOHANG) == 0 && mono_ms() < until)
            usleep(5000);
        if (waitpid(c->pid, &status, WNOHANG) == 0) {
            kill(c->pid, SIGKILL);
            waitpid(c->pid, &status, 0);
        }
    }
    free(c->command);
    free(c->buf);
    free(c);
}

const char *jsonproc_command(const jsonproc *c)
{
    return c->command;
}
