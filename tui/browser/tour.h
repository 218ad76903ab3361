/* tour.h - the demo tour: a scripted sequence of queries on the demo store,
 * each with a caption that explains what the screen shows. Captions are
 * written from the live result (ids, scores, ranks), so they stay true when
 * the engine's numbers move. No terminal here. */
#ifndef MS_TOUR_H
#define MS_TOUR_H

#include "tui/browser/view.h"

/* Number of steps. */
int tour_steps(void);

/* Go to step (clamped): set the query and what-if, run it, select the row
 * the step is about and write vm->caption. Returns VIEW_* flags. */
int tour_go(view_model *vm, int step);

/* Leave the tour: caption cleared, what-if and limit reset (a recall is
 * due: the flags say so). */
int tour_stop(view_model *vm);

/* The query of step (for tests and docs). */
const char *tour_query(int step);

#endif
