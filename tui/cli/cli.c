/* cli.c - options, paths and errors shared by the subcommands. */
#include "tui/cli/cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wchar.h>

#include "store/base/utf8.h"
#include "tui/present/text.h"
#include "tui/present/theme.h"
#include "tui/present/view_fmt.h"

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
    char *safe = text_escape(text, strlen(text), 0); /* one line */
    fputs(safe ? safe : "(out of memory)", out);
    free(safe);
}

/* ---- terminal-safe text ---------------------------------------------- */

typedef struct cli_buf {
    char *p;
    size_t n, cap;
    int failed;
} cli_buf;

static void cli_buf_put(cli_buf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *g = realloc(b->p, cap);
        if (!g) {
            b->failed = 1;
            return;
        }
        b->p = g;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

/* The character at s: its escape (text_escape's, for that character
 * alone; "?" if that fails) into esc, or "" when it is shown as itself; its
 * display width into *w. Returns its length in bytes. */
static size_t cli_char(const char *s, size_t n, char esc[16], int *w)
{
    unsigned cp;
    int len = utf8_decode(s, n, &cp);
    esc[0] = '\0';
    if (len == 0 || cp == '\n' || cp == '\t' || text_is_hidden(cp)) {
        len = len ? len : 1;
        char *e = text_escape(s, (size_t)len, 0);
        snprintf(esc, 16, "%s", e && *e ? e : "?");
        free(e);
        *w = (int)strlen(esc);
    } else {
        *w = wcwidth((wchar_t)cp);
        *w = *w < 0 ? 1 : *w;
    }
    return (size_t)len;
}

int cli_mark(int fd)
{
    const char *term = getenv("TERM");
    return isatty(fd) && term && *term && strcmp(term, "dumb") != 0;
}

char *cli_safe(const char *text, int cols, int mark, int *width)
{
    const char *no_color = getenv("NO_COLOR");
    const char *on = no_color && *no_color ? "\033[7m" : "\033[7;35m", *off = "\033[0m";
    size_t n = text ? strlen(text) : 0;
    int total = 0, w, used = 0;
    char esc[16];
    for (size_t i = 0; i < n;) { /* the whole width first: is a cut needed? */
        i += cli_char(text + i, n - i, esc, &w);
        total += w;
    }
    int room = cols < 0 || total <= cols ? total : cols - 1;
    cli_buf b = {0};
    cli_buf_put(&b, "", 0);
    for (size_t i = 0; i < n;) {
        size_t len = cli_char(text + i, n - i, esc, &w);
        if (used + w > room)
            break;
        if (esc[0] && mark)
            cli_buf_put(&b, on, strlen(on));
        cli_buf_put(&b, esc[0] ? esc : text + i, esc[0] ? strlen(esc) : len);
        if (esc[0] && mark)
            cli_buf_put(&b, off, strlen(off));
        used += w;
        i += len;
    }
    if (room < total && cols >= 1) {
        cli_buf_put(&b, "\xe2\x80\xa6", 3); /* … */
        used++;
    }
    if (width)
        *width = used;
    if (b.failed) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

void cli_put_row(FILE *out, const vrow *l)
{
    const char *no_color = getenv("NO_COLOR");
    const char *on = no_color && *no_color ? "\033[7m" : "\033[7;35m", *off = "\033[0m";
    int mark = cli_mark(fileno(out));
    for (size_t i = 0; i < l->n;) {
        size_t j = i;
        int esc = l->role[i] == ROLE_escape;
        while (j < l->n && (l->role[j] == ROLE_escape) == esc)
            j++;
        if (esc && mark)
            fputs(on, out);
        fwrite(l->s + i, 1, j - i, out);
        if (esc && mark)
            fputs(off, out);
        i = j;
    }
    fputc('\n', out);
}

int cli_width(FILE *out)
{
    struct winsize ws;
    int fd = fileno(out);
    if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
        return ws.ws_col;
    return 120;
}

void cli_put_safe(FILE *out, const char *text)
{
    char *safe = cli_safe(text, -1, cli_mark(fileno(out)), NULL);
    fputs(safe ? safe : "(out of memory)", out);
    free(safe);
}

/* One character of JSON text for a terminal: what text_escape would show
 * as an escape becomes a JSON \u escape (a surrogate pair above U+FFFF), an
 * invalid byte becomes \ufffd. Raw newlines and tabs only lay out the JSON
 * (cJSON escapes them inside strings) and stay. Returns the bytes used. */
static size_t json_char(FILE *out, const char *s, size_t n)
{
    unsigned cp;
    int len = utf8_decode(s, n, &cp);
    if (len == 0) {
        fputs("\\ufffd", out);
        return 1;
    }
    if (cp == '\n' || cp == '\t' || !text_is_hidden(cp)) {
        fwrite(s, 1, (size_t)len, out);
    } else if (cp > 0xffff) {
        cp -= 0x10000;
        fprintf(out, "\\u%04x\\u%04x", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
    } else {
        fprintf(out, "\\u%04x", cp);
    }
    return (size_t)len;
}

void cli_print_json(FILE *out, const char *json)
{
    if (!json)
        return;
    if (!isatty(fileno(out))) {
        fputs(json, out);
        return;
    }
    size_t n = strlen(json);
    for (size_t i = 0; i < n;)
        i += json_char(out, json + i, n - i);
}

/* ---- the output layer ------------------------------------------------- */

/* One %s (or %c) argument of cli_printf: escaped for a terminal, cut to
 * precision bytes (< 0: whole) first, padded to width columns (left when
 * left is set). */
static void put_arg(FILE *out, int tty, const char *text, int width, int left, int precision)
{
    char *cut = NULL;
    if (!text)
        text = "(null)";
    if (precision >= 0 && strlen(text) > (size_t)precision)
        text = cut = strndup(text, (size_t)precision);
    int w = 0;
    char *safe = tty ? cli_safe(text, -1, cli_mark(fileno(out)), &w) : NULL;
    if (!tty)
        w = (int)strlen(text);
    int pad = width > w ? width - w : 0;
    if (!left)
        fprintf(out, "%*s", pad, "");
    fputs(tty ? (safe ? safe : "?") : text, out);
    if (left)
        fprintf(out, "%*s", pad, "");
    free(safe);
    free(cut);
}

/* Pull one argument of conversion conv with length modifier len from ap
 * and print it with the conversion spec (a complete "%...X" without '*'). */
static void put_number(FILE *out, const char *spec, const char *len, char conv, va_list *ap)
{
    if (strchr("diouxXc", conv)) {
        if (strcmp(len, "ll") == 0)
            fprintf(out, spec, va_arg(*ap, long long));
        else if (strcmp(len, "l") == 0)
            fprintf(out, spec, va_arg(*ap, long));
        else if (strcmp(len, "z") == 0)
            fprintf(out, spec, va_arg(*ap, size_t));
        else if (strcmp(len, "j") == 0)
            fprintf(out, spec, va_arg(*ap, intmax_t));
        else if (strcmp(len, "t") == 0)
            fprintf(out, spec, va_arg(*ap, ptrdiff_t));
        else
            fprintf(out, spec, va_arg(*ap, int));
    } else if (strchr("feEgGaA", conv)) {
        if (strcmp(len, "L") == 0)
            fprintf(out, spec, va_arg(*ap, long double));
        else
            fprintf(out, spec, va_arg(*ap, double));
    } else if (conv == 'p') {
        fprintf(out, spec, va_arg(*ap, void *));
    }
}

/* One conversion of cli_printf at fmt (just past the '%'): returns the
 * byte after it. */
static const char *put_conversion(FILE *out, int tty, const char *fmt, va_list *ap)
{
    char spec[64] = "%", len[3] = "";
    size_t n = 1;
    int width = 0, precision = -1, left = 0;
    for (; *fmt && strchr("-+ #0", *fmt) && n < 8; fmt++) {
        left |= *fmt == '-';
        spec[n++] = *fmt;
    }
    if (*fmt == '*') {
        width = va_arg(*ap, int);
        left |= width < 0;
        width = width < 0 ? -width : width;
        fmt++;
        n += (size_t)snprintf(spec + n, sizeof spec - n, "%d", width);
    }
    for (; *fmt >= '0' && *fmt <= '9' && n < 20; fmt++) {
        width = width * 10 + (*fmt - '0');
        spec[n++] = *fmt;
    }
    if (*fmt == '.') {
        spec[n++] = *fmt++;
        precision = 0;
        if (*fmt == '*') {
            precision = va_arg(*ap, int);
            fmt++;
            n += (size_t)snprintf(spec + n, sizeof spec - n, "%d", precision);
        }
        for (; *fmt >= '0' && *fmt <= '9' && n < 40; fmt++) {
            precision = precision * 10 + (*fmt - '0');
            spec[n++] = *fmt;
        }
    }
    for (size_t k = 0; *fmt && strchr("hlzjtL", *fmt) && k < 2; fmt++, k++)
        len[k] = *fmt;
    for (size_t k = 0; len[k]; k++)
        spec[n++] = len[k];
    char conv = *fmt ? *fmt++ : '%';
    spec[n++] = conv;
    spec[n] = '\0';
    if (conv == 's') {
        put_arg(out, tty, va_arg(*ap, const char *), width, left, precision);
    } else if (conv == 'c') {
        char ch[2] = {(char)va_arg(*ap, int), '\0'};
        put_arg(out, tty, ch, width, left, -1);
    } else if (conv == '%') {
        fputc('%', out);
    } else {
        put_number(out, spec, len, conv, ap);
    }
    return fmt;
}

static void vcli_printf(FILE *out, const char *fmt, va_list ap)
{
    int tty = isatty(fileno(out));
    va_list aq;
    va_copy(aq, ap);
    while (*fmt) {
        const char *pct = strchr(fmt, '%');
        size_t lit = pct ? (size_t)(pct - fmt) : strlen(fmt);
        fwrite(fmt, 1, lit, out);
        fmt += lit;
        if (*fmt == '%')
            fmt = put_conversion(out, tty, fmt + 1, &aq);
    }
    va_end(aq);
}

void cli_printf(FILE *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vcli_printf(out, fmt, ap);
    va_end(ap);
}

void cli_put_cut(FILE *out, const char *text, int cols, int pad)
{
    int w = 0;
    char *safe = cli_safe(text, cols, cli_mark(fileno(out)), &w);
    fputs(safe ? safe : "?", out);
    if (pad)
        fprintf(out, "%*s", cols > w ? cols - w : 0, "");
    free(safe);
}

void cli_put_text(FILE *out, const char *text)
{
    char *safe = text_escape(text ? text : "", text ? strlen(text) : 0, 1);
    fputs(safe ? safe : "?", out);
    free(safe);
}

void cli_put_own(FILE *out, const char *text)
{
    fputs(text, out);
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

/* Set by cli_committed: standard output failed after a committed write,
 * which was reported already. */
static int stdout_reported;

int cli_committed(const char *what)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return EXIT_OK;
    cli_error(EXIT_OK,
              "note: %s was saved, but its report could not be written to standard output "
              "(%s)",
              what, errno ? strerror(errno) : "write error");
    stdout_reported = 1;
    return EXIT_OK;
}

int cli_finish(int status)
{
    if (stdout_reported)
        return status;
    errno = 0;
    int failed = fflush(stdout) != 0;
    if ((failed || ferror(stdout)) && status == EXIT_OK)
        return cli_error(EXIT_RUNTIME, "cannot write standard output: %s",
                         failed && errno ? strerror(errno) : "write error");
    return status;
}

int cli_usage(const cli_command *cmd, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* one line, with the hint on it */
    return cli_error(EXIT_USAGE, "%s: %s (see 'memscope %s --help')", cmd->name, msg, cmd->name);
}

int cli_bad_option(const cli_command *cmd, char **argv)
{
    /* An unknown short option: getopt may still be inside its word
     * ("-dentist": argv[optind]) or past it (argv[optind - 1]). */
    if (optopt > 0 && optopt < 128) {
        const char *word =
            argv[optind] && argv[optind][0] == '-' && strchr(argv[optind] + 1, optopt)
                ? argv[optind]
            : optind > 0 ? argv[optind - 1]
                         : "?";
        return cli_usage(cmd,
                         "unknown option '-%c' in '%s' (a word that starts with '-' goes "
                         "after '--')",
                         optopt, word);
    }
    const char *arg = optind > 0 ? argv[optind - 1] : "?";
    return cli_usage(cmd, "unknown option, or an option without its value: '%s'", arg);
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

int cli_data_path(const char *name, char *out, size_t len)
{
    const char *data = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    struct stat sb;
    int n;
    if (data && *data == '/') /* XDG: a relative value is ignored */
        n = snprintf(out, len, "%s/memscope/%s", data, name);
    else if (home && *home == '/' && stat(home, &sb) == 0 && S_ISDIR(sb.st_mode))
        n = snprintf(out, len, "%s/.local/share/memscope/%s", home, name);
    else
        n = -1;
    if (n < 0 || (size_t)n >= len) {
        out[0] = '\0';
        return -1;
    }
    return 0;
}

const char *cli_db_path(const cli_common *c)
{
    static char path[PATH_MAX];
    if (c->db && *c->db)
        return c->db;
    const char *env = getenv("MEMSCOPE_DB");
    if (env && *env)
        return env;
    cli_data_path("memory.db", path, sizeof path);
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
    if (!*path) {
        cli_error(EXIT_RUNTIME, "no place for the default store: HOME is not an existing "
                                "directory and XDG_DATA_HOME is not an absolute path; give "
                                "--db PATH or set MEMSCOPE_DB (environment)");
        return NULL;
    }
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
    int from = writable ? store_upgrade_pending(s) : 0;
    if (from && cli_tty(2)) /* a big store's upgrade takes seconds: say why it waits */
        cli_printf(stderr,
                   "memscope: store %s has schema %d; its first write upgrades it to %d, "
                   "once%s\n",
                   path, from, STORE_SCHEMA_VERSION,
                   /* the 9 -> 10 step reads every link and session */
                   from < 10 ? " (seconds at a million memories)" : "");
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
    store_remove_files(path);
    engine_remove_files(path);
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

char *cli_join(int argc, char **argv, int from)
{
    size_t n = 1;
    for (int i = from; i < argc; i++)
        n += strlen(argv[i]) + 1;
    char *s = calloc(1, n);
    for (int i = from; s && i < argc; i++) {
        if (i > from)
            strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}
