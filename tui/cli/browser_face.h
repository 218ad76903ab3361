/* browser_face.h - all the command line asks of the browser room, declared
 * here and defined in tui/browser/ (browse.c, browse_bench.c), so no file
 * of tui/cli/ or tui/shell/ includes a browser header (tests/rooms.t). */
#ifndef MS_BROWSER_FACE_H
#define MS_BROWSER_FACE_H

#include "engine/engine.h"
#include "tui/cli/cli.h"

/* Open the browser on the store c names (c->db, c->profile, c->readonly,
 * c->theme); with tour, start the demo tour at once. Returns an exit
 * status; the terminal is restored on every path. */
int browse_run(cli_common *c, int tour);

/* `memscope [options]` with no command: parse the common options, then
 * browse_run. */
int browse_main(int argc, char **argv);

/* The browser's path for one key press, headless, for each of the n
 * queries: the query line holds all but the query's last character, then
 * the timed part: the last character typed, the screen laid out at
 * cols x rows (the echo), the model recalls, the screen laid out again.
 * ms[i] gets query i's milliseconds; progress (may be NULL) is called
 * after each. path names the store in the status line. MS_OK, or a status
 * with err set. */
ms_status browse_bench_keys(engine *e, store *s, const char *path, char *const *queries, int n,
                            int cols, int rows, double *ms, void (*progress)(void *, int),
                            void *ctx, ms_error *err);

#endif
