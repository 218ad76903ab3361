/* action.h - every action of the browser, once: its keys, its name in the
 * help, and what it does. browse.c generates the key table from this list
 * and view_panel.c (view_help_lines) the help overlay, so keys and help
 * cannot drift.
 *
 *   _(ID, SECTION, "keys as shown", "what it does", key codes...)
 *
 * The handler of action ID is view_act.c's act_ID; key codes use curses'
 * KEY_* names, which are only expanded where curses is included. In the
 * keys and the text, #N stands for the engine's channel count and #CHANNELS
 * for their names in order (keytext.h), so a sixth channel shows;
 * the digits past the count do nothing. While the
 * query line has the focus, the line editor takes printable characters and
 * its own editing keys (EDIT_KEYS) first. */
#ifndef MS_ACTION_H
#define MS_ACTION_H

#define CTRL_KEY(c) ((c)&0x1f)

#define ACTIONS(_)                                                                                 \
    _(UP, "Move", "Up k", "select the previous row (scroll in the lower pane)", KEY_UP, 'k')       \
    _(DOWN, "Move", "Down j", "select the next row (scroll in the lower pane)", KEY_DOWN, 'j')     \
    _(PAGE_UP, "Move", "PgUp", "one page up", KEY_PPAGE)                                           \
    _(PAGE_DOWN, "Move", "PgDn", "one page down", KEY_NPAGE)                                       \
    _(HOME, "Move", "Home g", "first row", KEY_HOME, 'g')                                          \
    _(END, "Move", "End G", "last row", KEY_END, 'G')                                              \
    _(NEXT_PANE, "Move", "Tab", "next pane: query line, results, trace", '\t')                     \
    _(PREV_PANE, "Move", "Shift-Tab", "previous pane", KEY_BTAB)                                   \
    _(QUERY, "Move", "/",                                                                          \
      "go to the query line (as less and vim start a search); on an empty query line it "          \
      "types nothing, inside a query it is text",                                                  \
      '/')                                                                                         \
    _(BACK, "Move", "Esc Backspace", "leave the query line, close detail, help or tour", 27,       \
      KEY_BACKSPACE, 127)                                                                          \
    _(OPEN, "Move", "Enter", "open the selected memory (in detail: follow the edge)", '\n', '\r',  \
      KEY_ENTER)                                                                                   \
    _(MOUSE, "Move", "mouse", "click selects, double-click opens, wheel scrolls", KEY_MOUSE)       \
    _(PIN, "Why not", "p",                                                                         \
      "pin the selected memory (again: unpin); the lower pane says "                               \
      "where it ranks in each channel and where it was cut",                                       \
      'p')                                                                                         \
    _(PIN_ID, "Why not", "i", "pin a memory by its id", 'i')                                       \
    _(WI_CHANNEL, "What-if", "w", "choose the channel that + and - change", 'w')                   \
    _(WI_MORE, "What-if", "+", "raise that channel's weight by 0.25", '+', '=')                    \
    _(WI_LESS, "What-if", "-", "lower that channel's weight by 0.25", '-')                         \
    _(WI_TOGGLE, "What-if", "1-#N", "switch channel 1-#N off or on (#CHANNELS)", '1', '2', '3',    \
      '4', '5', '6', '7', '8', '9')                                                                \
    _(WI_K_LESS, "What-if", "[", "RRF k minus 5", '[')                                             \
    _(WI_K_MORE, "What-if", "]", "RRF k plus 5", ']')                                              \
    _(WI_FLOOR, "What-if", "f", "evidence floor off or on", 'f')                                   \
    _(WI_RESET, "What-if", "0", "back to the baseline (no what-if)", '0')                          \
    _(RELEVANT, "Feedback", "y",                                                                   \
      "mark the selected memory relevant to this query (again: unmark); the row shows "            \
      "[judged +] and the engine learns from it (the feedback adjustment)",                        \
      'y')                                                                                         \
    _(SORT, "Browse", "o",                                                                         \
      "the listing (empty query): sort by the next column (date, event, "                          \
      "speaker, session, trust, confidence, importance, id)",                                      \
      'o')                                                                                         \
    _(SORT_DIR, "Browse", "O", "the listing: reverse the order", 'O')                              \
    _(GROUP, "Browse", "t", "the listing: group by session, by day (a timeline), or not", 't')     \
    _(FIND, "Browse", "F",                                                                         \
      "find in the list: text in content, speaker, session or id, or field:text (content, "        \
      "speaker, session, id, date, event); matches are marked, n / N go to the next / "            \
      "previous (when no tour runs); empty clears",                                                \
      'F')                                                                                         \
    _(ENTITIES, "Browse", "E",                                                                     \
      "the entities of the profile with their counts; Enter lists one's "                          \
      "memories",                                                                                  \
      'E')                                                                                         \
    _(PROFILES, "Browse", "P", "pick the profile to browse (each with its count)", 'P')            \
    _(IRRELEVANT, "Feedback", "x",                                                                 \
      "mark it not relevant to this query (again: unmark); the row shows [judged -]", 'x')         \
    _(EDIT, "Curation", "e",                                                                       \
      "edit the selected memory in $VISUAL or $EDITOR: content, speaker, times, "                  \
      "confidence, trust; the row shows [edited]",                                                 \
      'e')                                                                                         \
    _(SET, "Curation", "s",                                                                        \
      "edit one field of the selected memory inline: type the field (content, speaker, "           \
      "created_at, event_time, confidence, trust; a prefix will do) and Enter, then change its "   \
      "value on the prompt line; Enter writes it (the row shows [edited], u undoes), Esc cancels", \
      's')                                                                                         \
    _(DELETE, "Curation", "d", "delete the selected memory (asks first; u brings it back)", 'd')   \
    _(SUPERSEDES, "Curation", ">",                                                                 \
      "mark the selected memory as superseding another: type its id and a reason", '>')            \
    _(CONTRADICTS, "Curation", "!",                                                                \
      "mark the selected memory as contradicting another: type its id and a reason", '!')          \
    _(UNDO, "Curation", "u", "undo this session's last write (feedback, edit, delete, relation)",  \
      'u')                                                                                         \
    _(RANKING, "View", "r", "show or hide the Ranking column", 'r')                                \
    _(REFRESH, "View", "R", "run the query again (after another process wrote)", 'R')              \
    _(TOUR, "View", "T", "start or stop the demo tour", 'T')                                       \
    _(TOUR_NEXT, "View", "n Space", "next tour step (no tour: the next match of F)", 'n', ' ')     \
    _(TOUR_PREV, "View", "N", "previous tour step (no tour: the previous match of F)", 'N')        \
    _(CALIBRATION, "View", "c",                                                                    \
      "the calibration report beside the store (what the abstention banner offers): "              \
      "reliability, risk-coverage with this floor marked, and whether it is stale",                \
      'c')                                                                                         \
    _(HELP, "View", "? F1", "this help", '?', KEY_F(1))                                            \
    _(REDRAW, "View", "Ctrl-L", "redraw the screen", CTRL_KEY('l'))                                \
    _(SUSPEND, "View", "Ctrl-Z", "suspend to the shell", CTRL_KEY('z'))                            \
    _(QUIT, "View", "q Ctrl-C",                                                                    \
      "q closes the view on screen (help, detail) and quits from the main screen; Ctrl-C "         \
      "always quits (the terminal is restored)",                                                   \
      'q', CTRL_KEY('c'))

/* The query line's own keys, for the help (qline.c handles them). */
#define EDIT_KEYS(_)                                                                               \
    _("typing", "edit the query; results follow as you type (after a pause)")                      \
    _("Enter", "run now, keep it in the history, go to the results")                               \
    _("Left Right Home End", "move the cursor (Ctrl-A, Ctrl-E too)")                               \
    _("Ctrl-W", "delete the word before the cursor")                                               \
    _("Ctrl-U  Ctrl-K", "delete before / after the cursor")                                        \
    _("Up Down", "older / newer query from the history")                                           \
    _("Ctrl-R", "search the history backwards (again: the next match)")

/* The actions that write to the store. They act only on a row the user
 * chose with a key that is not a letter (view_model.armed): after Enter,
 * letters typed next, or pasted text without bracketed paste, cannot write. */
#define WRITE_ACTIONS(_)                                                                           \
    _(RELEVANT) _(IRRELEVANT) _(EDIT) _(SET) _(DELETE) _(SUPERSEDES) _(CONTRADICTS) _(UNDO)

/* The keys that choose a row and so let WRITE_ACTIONS act: no letter, no
 * Enter (a paste without bracketed paste holds those). */
#define ARMING_ACTIONS(_)                                                                          \
    _(UP) _(DOWN) _(PAGE_UP) _(PAGE_DOWN) _(HOME) _(END) _(NEXT_PANE) _(PREV_PANE) _(MOUSE)

#define ACTION_ENUM(id, section, keys, help, ...) A_##id,
typedef enum action_id { ACTIONS(ACTION_ENUM) A_COUNT } action_id;
#undef ACTION_ENUM

#endif
