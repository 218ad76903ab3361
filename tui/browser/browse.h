/* browse.h - the full-screen browser: terminal set-up and tear-down, the
 * single input loop (keys, mouse, KEY_RESIZE, the debounce timer, signals,
 * store-change polling), themes and config. The model and its layout are
 * in view.h; this is the only place that runs the terminal. Its entries
 * (browse_run, browse_main) are declared in tui/cli/browser_face.h, all the
 * command line may see of the browser. */
#ifndef MS_BROWSE_H
#define MS_BROWSE_H

#include "tui/cli/browser_face.h"
#include "tui/cli/cli.h"

#endif
