/* history.h - persistent line history on libedit's History API, shared by
 * the browser's query line and the shell.
 *
 * The file lives at $XDG_STATE_HOME/memscope/NAME (default
 * ~/.local/state/memscope/NAME), created with mode 0600 in a 0700 folder.
 * A history that cannot be read or written still works in memory. */
#ifndef MS_HISTORY_H
#define MS_HISTORY_H

#include <histedit.h>

#define HIST_SIZE 1000 /* entries kept */

typedef struct hist hist;

/* Open (and load) history file NAME; NULL only when out of memory. */
hist *hist_open(const char *name);
/* Free; NULL is fine. Every hist_add has already saved. */
void hist_close(hist *h);

/* Add a line (blank lines and repeats of the last one are not kept) and
 * save the file. */
void hist_add(hist *h, const char *line);

/* Walk from the line being edited into the past: hist_older returns the
 * next older entry (NULL at the oldest), hist_newer the next newer one (NULL
 * when back at the line being edited). Pointers are valid until the next
 * call. hist_rewind goes back to the line being edited. */
const char *hist_older(hist *h);
const char *hist_newer(hist *h);
void hist_rewind(hist *h);

/* The next older entry holding needle, from the current position (again:
 * from the one after it). NULL when none; the position is kept. */
const char *hist_search(hist *h, const char *needle, int again);

/* For el_set(EL_HIST). */
History *hist_libedit(hist *h);
/* The file path ("" when no home could be found). */
const char *hist_file(const hist *h);

#endif
