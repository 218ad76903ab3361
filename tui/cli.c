/* cli.c - options, paths and errors shared by the subcommands. */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "text.h"

int cli_tty(int fd)
{
    return isatty(fd);
}

void cli_print_safe(FILE *out, const char *text)
{
    if (!text)
        return;
    if (!isatty(fileno(out))) {
        fputs(text, out);
        return;
    }
    char *safe = text_escape(text, strlen(text), 1);
    fputs(safe ? safe : "(out of memory)", out);
    free(safe);
}

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    /* One line, always: escapes replace newlines and controls. */
    char *safe = text_escape(msg, strlen(msg), 0);
    fprintf(stderr, "%s%s\n", prefix, safe ? safe : msg);
    free(safe);
}

int cli_error(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport("memscope: ", fmt, ap);
    va_end(ap);
    return status;
}

int cli_fail(const ms_error *err)
{
    int status = err->code == MS_USAGE ? EXIT_USAGE : EXIT_RUNTIME;
    return cli_error(status, "%s", err->msg[0] ? err->msg : ms_status_text(err->code));
}

int cli_finish(int status)
{
    errno = 0;
    int failed = fflush(stdout) != 0;
    if ((failed || ferror(stdout)) && status == EXIT_OK)
        return cli_error(EXIT_RUNTIME, "cannot write standard output: %s",
                         failed && errno ? strerror(errno) : "write error");
    return status;
}

int cli_usage(const cli_command *cmd, const char *fmt, ...)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "memscope %s: ", cmd->name);
    va_list ap;
    va_start(ap, fmt);
    vreport(prefix, fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try 'memscope %s --help'.\n", cmd->name);
    return EXIT_USAGE;
}

int cli_common_option(cli_common *c, int opt, const cli_command *cmd)
{
    switch (opt) {
    case OPT_DB:
        c->db = optarg;
        return 1;
    case OPT_PROFILE:
        c->profile = optarg;
        c->profile_given = 1;
        return 1;
    case OPT_READONLY:
        c->readonly = 1;
        return 1;
    case OPT_THEME:
        c->theme = optarg;
        return 1;
    case OPT_HELP:
        fputs(cmd->usage, stdout);
        exit(EXIT_OK);
    default:
        return 0;
    }
}

const char *cli_db_path(const cli_common *c)
{
    static char path[PATH_MAX];
    if (c->db && *c->db)
        return c->db;
    const char *env = getenv("MEMSCOPE_DB");
    if (env && *env)
        return env;
    const char *data = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    if (data && *data == '/')
        snprintf(path, sizeof path, "%s/memscope/memory.db", data);
    else
        snprintf(path, sizeof path, "%s/.local/share/memscope/memory.db", home ? home : ".");
    return path;
}

/* mkdir -p of the directory holding path, mode 0700 for new parts. */
static void make_parent(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0700);
            *p = '/';
        }
    }
    mkdir(dir, 0700);
}

store *cli_open(cli_common *c, int writable, int *created)
{
    const char *path = cli_db_path(c);
    struct stat sb;
    int existed = stat(path, &sb) == 0;
    if (created)
        *created = !existed;
    if (writable && c->readonly) {
        cli_error(EXIT_RUNTIME, "cannot write: --read-only was given (store %s)", path);
        return NULL;
    }
    unsigned flags = 0;
    if (c->readonly)
        flags |= STORE_OPEN_READONLY;
    if (!writable)
        flags |= STORE_OPEN_NOCREATE;
    if (writable && !existed)
        make_parent(path);
    store *s = NULL;
    ms_error err;
    ms_error_clear(&err);
    if (store_open(path, flags, &s, &err)) {
        cli_fail(&err);
        return NULL;
    }
    const char *profile = c->profile;
    if (!profile || !*profile)
        profile = getenv("MEMSCOPE_PROFILE");
    if (!profile || !*profile)
        profile = STORE_DEFAULT_PROFILE;
    if (store_use_profile(s, profile, &err)) {
        cli_fail(&err);
        store_close(s);
        if (created && *created)
            cli_unlink_store(path);
        return NULL;
    }
    return s;
}

void cli_unlink_store(const char *path)
{
    char side[PATH_MAX + 8];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
}

int cli_parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int cli_parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}
