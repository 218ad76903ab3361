/* history.c - persistent history over libedit. */
#include "tui/present/history.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct hist {
    History *h;
    char path[PATH_MAX];
    int pos; /* -1: the line being edited; else 0 = newest entry */
};

/* mkdir -p of path's folder, 0700 for new parts. */
static void hist_mkdirs(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0700);
            *p = '/';
        }
    mkdir(dir, 0700);
}

static void hist_path(const char *name, char *out, size_t len)
{
    const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    if (state && *state == '/')
        snprintf(out, len, "%s/memscope/%s", state, name);
    else if (home && *home == '/')
        snprintf(out, len, "%s/.local/state/memscope/%s", home, name);
    else
        out[0] = '\0';
}

hist *hist_open(const char *name)
{
    hist *h = calloc(1, sizeof *h);
    if (!h || !(h->h = history_init())) {
        free(h);
        return NULL;
    }
    HistEvent ev;
    history(h->h, &ev, H_SETSIZE, HIST_SIZE);
    history(h->h, &ev, H_SETUNIQUE, 1);
    hist_path(name, h->path, sizeof h->path);
    if (h->path[0])
        history(h->h, &ev, H_LOAD, h->path);
    h->pos = -1;
    return h;
}

void hist_close(hist *h)
{
    if (!h)
        return;
    history_end(h->h);
    free(h);
}

void hist_add(hist *h, const char *line)
{
    HistEvent ev;
    h->pos = -1;
    if (!line || !*line || strspn(line, " \t") == strlen(line) || strchr(line, '\n'))
        return;
    history(h->h, &ev, H_ENTER, line);
    if (!h->path[0])
        return;
    hist_mkdirs(h->path);
    mode_t old = umask(077);
    history(h->h, &ev, H_SAVE, h->path);
    umask(old);
}

/* Entry i (0 = newest), or NULL. */
static const char *hist_at(hist *h, int i)
{
    HistEvent ev;
    if (i < 0 || history(h->h, &ev, H_FIRST) != 0)
        return NULL;
    for (int k = 0; k < i; k++)
        if (history(h->h, &ev, H_NEXT) != 0)
            return NULL;
    return ev.str;
}

const char *hist_older(hist *h)
{
    const char *s = hist_at(h, h->pos + 1);
    if (s)
        h->pos++;
    return s;
}

const char *hist_newer(hist *h)
{
    if (h->pos <= 0) {
        h->pos = -1;
        return NULL;
    }
    h->pos--;
    return hist_at(h, h->pos);
}

void hist_rewind(hist *h)
{
    h->pos = -1;
}

const char *hist_search(hist *h, const char *needle, int again)
{
    int i = h->pos < 0 ? 0 : h->pos + (again ? 1 : 0);
    for (const char *s; (s = hist_at(h, i)); i++)
        if (strstr(s, needle)) {
            h->pos = i;
            return s;
        }
    return NULL;
}

History *hist_libedit(hist *h)
{
    return h->h;
}

const char *hist_file(const hist *h)
{
    return h->path;
}
