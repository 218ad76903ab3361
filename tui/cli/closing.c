/* closing.c - a recalling command's engine and store closed, the snapshot
 * file written now or by a child that outlives the command (closing.h). */
#include "tui/cli/closing.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/base/mono.h"
#include "tui/cli/cli.h"

/* Is the save to go to a child: MEMSCOPE_SNAPSHOT_SAVE, else the size? */
static int in_background(const engine *e)
{
    const char *how = getenv("MEMSCOPE_SNAPSHOT_SAVE");
    if (how && strcmp(how, "wait") == 0)
        return 0;
    if (how && strcmp(how, "background") == 0)
        return 1;
    return engine_snapshot_memories(e) >= CLI_SAVE_BACKGROUND_MIN;
}

/* The test delay before the child writes (MEMSCOPE_SNAPSHOT_SAVE_DELAY_MS,
 * tests only: the command has long returned when the file appears). */
static void child_hold(void)
{
    const char *ms = getenv("MEMSCOPE_SNAPSHOT_SAVE_DELAY_MS");
    long v = ms ? strtol(ms, NULL, 10) : 0;
    mono_sleep_ms(v <= 60000 ? v : 0);
}

/* Write the file through a connection of one's own to path's profile; with
 * seal, then seal it (engine_save_with: 2 s later). */
static void save_through(engine *e, const char *path, const char *profile, int seal)
{
    store *s = NULL;
    ms_error err;
    ms_error_clear(&err);
    if (store_open(path, STORE_OPEN_READONLY | STORE_OPEN_NOCREATE, &s, &err) == MS_OK &&
        store_use_profile(s, profile, &err) == MS_OK)
        engine_save_with(e, s, seal);
    store_close(s);
}

/* The child: out of the terminal's session, holding nothing of the
 * command's (its standard streams, the external embedder's pipes, ...),
 * then the save. Never returns. */
static void child_save(engine *e, const char *path, const char *profile)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
    for (size_t k = 0; k < sizeof sigs / sizeof *sigs; k++)
        signal(sigs[k], SIG_DFL);
    setsid();
    int null = open("/dev/null", O_RDWR);
    for (int fd = 0; null >= 0 && fd <= 2; fd++)
        dup2(null, fd);
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = 3; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
        close((int)fd);
    child_hold();
    save_through(e, path, profile, 1);
    _exit(0);
}

ms_status cli_open_engine(store *s, const char *embedder, const char *path, status_line *l,
                          engine **out, ms_error *err)
{
    status_line_begin(l, path);
    ms_status st = engine_open(s, embedder, out, err);
    if (!st && l->on)
        engine_set_progress(*out, status_line_progress, l);
    return st;
}

void cli_close_engine(engine *e, store *s, status_line *l, const char *next)
{
    char rest[96];
    snprintf(rest, sizeof rest, " for the next %s ...", next);
    if (!engine_saves_at_close(e) || !s || !in_background(e)) {
        if (engine_saves_at_close(e))
            status_line_say(l, "memscope: saving the snapshot of ", rest);
        engine_close_at_exit(e);
        status_line_clear(l);
        store_close(s);
        return;
    }
    char *path = strdup(store_path(s)), *profile = strdup(store_profile(s));
    engine_release_store(e); /* the child opens its own connection, after the fork */
    store_close(s);
    fflush(NULL);
    pid_t pid = path && profile ? fork() : -1;
    if (pid == 0)
        child_save(e, path, profile);
    /* no child: written here, through a connection opened again */
    if (pid < 0 && path && profile) {
        status_line_say(l, "memscope: saving the snapshot of ", rest);
        save_through(e, path, profile, 0);
    } else if (l->on) { /* it stays: what the command left running is said, path whole */
        status_line_clear(l);
        cli_printf(
            stderr,
            "memscope: process %ld writes the snapshot of %s for the next %s in the background\n",
            (long)pid, l->path, next);
    }
    if (pid > 0)
        engine_leave_at_exit(e); /* the child's pages: not written here */
    else
        engine_close_at_exit(e);
    status_line_clear(l);
    free(path);
    free(profile);
}
