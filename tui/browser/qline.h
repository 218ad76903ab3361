/* qline.h - the keys of the query line and of the prompts (pin by id,
 * Ctrl-R history search): editing with ledit, history with libedit. */
#ifndef MS_QLINE_H
#define MS_QLINE_H

#include <wchar.h>

#include "tui/present/history.h"
#include "tui/browser/view.h"

/* Handle a key read by get_wch (kind OK or KEY_CODE_YES) while the query
 * line has the focus or a prompt is open. Returns VIEW_* flags, or 0 when
 * the key is not the line's (the action table gets it). */
int qline_key(view_model *vm, hist *h, int kind, wint_t ch);

#endif
