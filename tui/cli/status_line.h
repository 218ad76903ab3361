/* status_line.h - one line on the terminal (stderr) while a command waits
 * for its store: reading a snapshot from the tables, or writing the
 * snapshot file for the next process (seconds at a million memories).
 *
 * The line is written over itself ("\r"), cut to the terminal's width so
 * that it never wraps (the store's path loses its start first), and erased
 * before anything else is printed, so that an error stays one line and
 * nothing of it is left above the shell's prompt. Nothing is written when
 * stderr is not a terminal. MEMSCOPE_BROWSE_LOAD_DELAY_MS (tests only,
 * docs/BROWSER.md) sleeps that long at each step of the load it shows, so
 * that a small store loads slowly enough to watch. */
#ifndef MS_STATUS_LINE_H
#define MS_STATUS_LINE_H

typedef struct status_line {
    const char *path; /* the store's, as given */
    int on;           /* stderr is a terminal */
    int shown;        /* something is on the line */
    int cols;         /* of the terminal, less one */
    long delay_ms;    /* MEMSCOPE_BROWSE_LOAD_DELAY_MS */
} status_line;

/* Begin for the store at path: on only when stderr is a terminal. */
void status_line_begin(status_line *l, const char *path);

/* "LEAD PATH REST" over what the line said before, PATH cut from its start
 * to "...TAIL" when the line would be wider than the terminal. */
void status_line_say(status_line *l, const char *lead, const char *rest);

/* "memscope: opening PATH (reading its WHAT, N %) ..." (no N when pct < 0). */
void status_line_opening(status_line *l, const char *what, int pct);

/* Sleep the test delay (MEMSCOPE_BROWSE_LOAD_DELAY_MS), when one is set:
 * each step of a load shown on the terminal holds that long. */
void status_line_hold(const status_line *l);

/* An engine_progress_fn (engine/engine.h) for ctx = a status_line:
 * status_line_opening, then the test delay. */
void status_line_progress(void *ctx, const char *what, int percent);

/* Erase the line when anything is on it. */
void status_line_clear(status_line *l);

#endif
