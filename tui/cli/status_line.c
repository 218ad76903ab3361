/* status_line.c - the line a command shows on the terminal while it waits
 * for its store (status_line.h). */
#include "tui/cli/status_line.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "store/base/mono.h"
#include "store/base/utf8.h"
#include "tui/cli/cli.h"

static int line_cols(void)
{
    struct winsize ws;
    return ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 ? ws.ws_col - 1 : 79;
}

/* Terminal columns of s. */
static int text_cols(const char *s)
{
    int w = 0;
    unsigned cp;
    for (size_t n = strlen(s), k; (k = (size_t)utf8_next(s, n, &cp)) > 0; s += k, n -= k)
        w += utf8_cp_width(cp);
    return w;
}

void status_line_begin(status_line *l, const char *path)
{
    const char *delay = getenv("MEMSCOPE_BROWSE_LOAD_DELAY_MS");
    memset(l, 0, sizeof *l);
    l->path = path;
    l->on = isatty(STDERR_FILENO);
    l->cols = l->on ? line_cols() : 79;
    l->delay_ms = delay ? strtol(delay, NULL, 10) : 0;
}

void status_line_say(status_line *l, const char *lead, const char *rest)
{
    if (!l->on)
        return;
    int room = l->cols - (int)strlen(lead) - (int)strlen(rest);
    const char *p = l->path;
    int cut = 0;
    unsigned cp;
    while (*p && text_cols(p) + (cut ? 3 : 0) > room) {
        p += utf8_next(p, strlen(p), &cp);
        cut = 1;
    }
    char line[PATH_MAX + 160];
    snprintf(line, sizeof line, "%s%s%s%s", lead, cut ? "..." : "", p, rest);
    int pad = l->cols - text_cols(line);
    cli_printf(stderr, "\r%s%*s", line, pad > 0 ? pad : 0, "");
    fflush(stderr);
    l->shown = 1;
}

void status_line_opening(status_line *l, const char *what, int pct)
{
    char rest[96], num[24] = "";
    if (pct >= 0)
        snprintf(num, sizeof num, ", %d %%", pct);
    snprintf(rest, sizeof rest, " (reading its %s%s) ...", what, num);
    status_line_say(l, "memscope: opening ", rest);
}

void status_line_hold(const status_line *l)
{
    mono_sleep_ms(l->delay_ms);
}

void status_line_progress(void *ctx, const char *what, int percent)
{
    status_line *l = ctx;
    status_line_opening(l, what, percent);
    if (l->on)
        status_line_hold(l);
}

void status_line_clear(status_line *l)
{
    if (!l->on || !l->shown)
        return;
    cli_printf(stderr, "\r%*s\r", line_cols(), "");
    fflush(stderr);
    l->shown = 0;
}
