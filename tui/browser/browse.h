/* browse.h - the full-screen browser: terminal set-up and tear-down, the
 * single input loop (keys, mouse, KEY_RESIZE, the debounce timer, signals,
 * store-change polling), themes and config. The model and its layout are
 * in view.h; this is the only place that runs the terminal. */
#ifndef MS_BROWSE_H
#define MS_BROWSE_H

#include "tui/cli/cli.h"

/* Open the browser on the store c names (c->db, c->profile, c->readonly,
 * c->theme); with tour, start the demo tour at once. Returns an exit
 * status; the terminal is restored on every path. */
int browse_run(cli_common *c, int tour);

/* `memscope [options]` with no command: parse the common options, then
 * browse_run. */
int browse_main(int argc, char **argv);

#endif
