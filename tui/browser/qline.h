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

/* A bracketed paste starts: the text goes into the open prompt, or else
 * into the query line at its cursor (help and detail close, the query line
 * takes the focus). Returns VIEW_* flags. */
int qline_paste_begin(view_model *vm);

/* One key of a paste: printable characters are inserted, newlines and tabs
 * become spaces, other controls and key codes are dropped. Nothing pasted
 * ever runs a command. Returns VIEW_* flags. */
int qline_paste(view_model *vm, int kind, wint_t ch);

#endif
