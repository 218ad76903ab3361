/* calplot.h - the calibration report as a picture in plain text: the
 * reliability diagram (observed share against mean predicted probability,
 * per bin, beside the diagonal of perfect calibration) and the
 * risk-coverage curve with the current floor's operating point marked.
 *
 * Drawn from a saved report (calreport.h), so `calibrate --plot` and the
 * browser show the same picture. ASCII only: it reads the same in every
 * terminal and every locale. No curses here. */
#ifndef MS_CALPLOT_H
#define MS_CALPLOT_H

#include <cjson/cJSON.h>

/* The picture of report as lines ending in '\n', at most cols columns
 * wide (at least 40 are used). Caller frees; NULL when out of memory or
 * when report has no metrics. */
char *calplot_text(const cJSON *report, int cols, int with_title);

#endif
