/* ledit.h - a one-line text editor over wide characters, for the query line
 * and the prompts of the browser. No terminal and no history here (qline.c
 * joins it to the keys and to libedit's history).
 *
 * The text is at most LEDIT_MAX characters and always converts to at most
 * ENGINE_QUERY_MAX bytes of UTF-8. Only printable characters go in. */
#ifndef MS_LEDIT_H
#define MS_LEDIT_H

#include <stddef.h>
#include <wchar.h>

#define LEDIT_MAX 1000

typedef struct ledit {
    wchar_t buf[LEDIT_MAX + 1]; /* NUL-terminated */
    int len;                    /* characters in buf */
    int cur;                    /* cursor, 0..len */
} ledit;

void ledit_clear(ledit *e);
/* Replace the text with UTF-8 text (invalid bytes and controls dropped);
 * the cursor goes to the end. */
void ledit_set(ledit *e, const char *utf8);
/* The text as UTF-8 into out (len bytes). */
void ledit_get(const ledit *e, char *out, size_t len);
/* The text from character index from on, as UTF-8. */
void ledit_get_range(const ledit *e, int from, char *out, size_t len);
/* The first character index to show so that the cursor fits in cols
 * columns (horizontal scrolling); *skipped gets the columns left out. */
int ledit_scroll(const ledit *e, int cols, int *skipped);

/* Is the text at its limit (LEDIT_MAX characters, or the bytes)? */
int ledit_full(const ledit *e);
/* Insert a character at the cursor; 0 when inserted, -1 when refused
 * (not printable, or full). */
int ledit_insert(ledit *e, wchar_t c);
/* Editing keys; each returns 1 when the text changed, 0 when only the
 * cursor moved or nothing happened. */
int ledit_backspace(ledit *e);
int ledit_delete(ledit *e);
int ledit_kill_word(ledit *e);  /* Ctrl-W: the word before the cursor */
int ledit_kill_start(ledit *e); /* Ctrl-U: everything before the cursor */
int ledit_kill_end(ledit *e);   /* Ctrl-K: everything after the cursor */
void ledit_left(ledit *e);
void ledit_right(ledit *e);
void ledit_home(ledit *e);
void ledit_end(ledit *e);
void ledit_word_left(ledit *e);
void ledit_word_right(ledit *e);

/* Display columns of the text before the cursor (wcwidth). */
int ledit_cursor_col(const ledit *e);

#endif
