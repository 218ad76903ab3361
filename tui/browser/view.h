/* view.h - the browser's model and its layout, with no terminal.
 *
 * A view_model owns everything the screen shows: the query line, the recall
 * results (and, under what-if, the baseline they are compared with), the
 * selection and scroll positions, the pinned memory, the detail view, the
 * tour and the messages. Keys change it only through view_act(); the main
 * loop (browse.c) then calls view_model_update() when a recall is due and
 * view_layout() to turn the model into rows of safe text with theme roles,
 * which paint.c draws. The path key -> view_act -> view_model_update ->
 * view_layout runs headless too: `memscope bench` and tests/view-test.c call
 * it without a terminal.
 *
 * The model borrows the engine and the store (the caller opens and closes
 * them); everything else it allocates it frees in view_model_free(). */
#ifndef MS_VIEW_H
#define MS_VIEW_H

#include <stdint.h>
#include <stdio.h>

#include "tui/browser/action.h"
#include "tui/browser/keytext.h"
#include "engine/engine.h"
#include "tui/browser/ledit.h"
#include "tui/present/theme.h"
#include "tui/present/rtable.h"
#include "tui/present/view_fmt.h"

/* Smallest terminal the browser draws in; below it: "terminal too small". */
#define VIEW_MIN_COLS 60
#define VIEW_MIN_ROWS 14
#define VIEW_YMAP_MAX 512    /* screen rows the mouse map covers */
#define VIEW_DETAIL_DEPTH 32 /* edges followed before the oldest is forgotten */

/* Flags a key handler returns; only the main loop redraws. */
enum {
    VIEW_HANDLED = 1,   /* the key meant something */
    VIEW_REDRAW = 2,    /* the screen must be laid out again */
    VIEW_RECALL = 4,    /* run the query now */
    VIEW_DEBOUNCE = 8,  /* run the query after a pause in typing */
    VIEW_FULL = 16,     /* clear and repaint every cell (Ctrl-L, resize) */
    VIEW_QUIT = 32,     /* leave the browser */
    VIEW_SUSPEND = 64,  /* stop the process (Ctrl-Z) */
    VIEW_HISTORY = 128, /* the query line asked for history (qline.c) */
    VIEW_EDITOR = 256,  /* edit vm->edit_id in $EDITOR (browse.c runs it) */
};

/* What view_model.help shows: the keys, or the calibration report. */
enum { VIEW_HELP_KEYS = 1, VIEW_HELP_CALIBRATION = 2 };

typedef enum view_focus { FOCUS_QUERY, FOCUS_RESULTS, FOCUS_LOWER, FOCUS_COUNT } view_focus;
typedef enum view_prompt {
    PROMPT_NONE,
    PROMPT_PIN,
    PROMPT_SEARCH,
    PROMPT_FIND,
    PROMPT_CONFIRM,
    PROMPT_SUPERSEDES,  /* the id (and reason) the selected memory supersedes */
    PROMPT_CONTRADICTS, /* the id (and reason) it contradicts */
    PROMPT_FIELD,       /* s: the field to edit inline */
    PROMPT_VALUE        /* s: its new value (the prompt starts with the old) */
} view_prompt;
typedef enum view_row_kind { ROW_HIT, ROW_MISS, ROW_GONE } view_row_kind;

/* One selectable row of the result pane. */
typedef struct view_row {
    const recall_hit *h; /* into cur (hits, misses) or base (gone rows) */
    view_row_kind kind;
    int move;             /* baseline rank - current rank (what-if) */
    int is_new;           /* not in the baseline's results */
    int judged;           /* the store's judgement of it for this query: +1, -1, 0 none */
    store_relation *rels; /* its supersedes / contradicts relations (owned), n_rels */
    size_t n_rels;
} view_row;

/* One write of this session that u can take back. */
typedef enum view_undo_kind { UNDO_FEEDBACK, UNDO_EDIT, UNDO_DELETE, UNDO_RELATION } view_undo_kind;
typedef struct view_undo {
    view_undo_kind kind;
    int64_t rid;               /* the memory written */
    char id[STORE_ID_MAX + 1]; /* its id, for the message */
    char *query;               /* UNDO_FEEDBACK: the query judged (owned) */
    store_feedback before;     /* UNDO_FEEDBACK: the judgement before (owned strings) */
    int had;                   /* UNDO_FEEDBACK: there was one */
    store_memory mem;          /* UNDO_EDIT: the memory before (owned) */
    store_removed *removed;    /* UNDO_DELETE: every row the delete took (owned) */
    int64_t other;             /* UNDO_RELATION: the memory at the other end */
    int rel_kind;              /* UNDO_RELATION: store_rel_kind */
    store_relation was;        /* UNDO_RELATION: the relation of that kind before (owned) */
    int had_rel;               /* UNDO_RELATION: there was one */
} view_undo;
#define VIEW_UNDO_MAX 64 /* writes remembered; older ones can no longer be undone */

/* What-if overrides of the baseline recall. */
typedef struct view_whatif {
    double weights[CH_COUNT]; /* valid where weights_set has the bit */
    unsigned weights_set;
    unsigned disabled; /* channels switched off */
    double rrf_k;      /* < 0: the query type's default */
    int no_floor;
    int channel; /* the channel + and - change */
} view_whatif;

/* The detail view of one memory and its edges. */
typedef struct view_detail {
    int open;
    store_memory m;     /* the memory (owned) */
    store_entity *ents; /* owned, n_ents */
    size_t n_ents;
    store_edge *edges; /* owned, n_edges: the relations first (n_rels, src = this
                          memory), then the edges, strongest first */
    size_t n_edges;
    store_relation *rels; /* owned, n_rels: what edges[0 .. n_rels) stand for */
    size_t n_rels;
    store_memory *other; /* the memory at the other end of each edge (owned) */
    int sel;             /* selected edge */
    int top;             /* first line shown */
    int follow;          /* keep the selected edge in view */
    char stack[VIEW_DETAIL_DEPTH][STORE_ID_MAX + 1]; /* ids opened before, for Esc */
    int depth;
} view_detail;

#define VIEW_LIST_PAGE 256 /* memories of a listing held in memory at once */

/* How a listing groups its rows (the order follows the group). */
enum { VIEW_GROUP_NONE, VIEW_GROUP_SESSION, VIEW_GROUP_DAY, VIEW_GROUP_COUNT };

/* The memories of the profile (an empty query) or of one entity, in pages
 * loaded as they come into view: a million-memory store opens at once. */
typedef struct view_list {
    store_list_opts o;                 /* order, entity */
    char entity[256];                  /* the entity listed (o.eid > 0) */
    int group;                         /* VIEW_GROUP_* */
    int64_t total;                     /* memories in the listing, -1 = count again */
    int64_t sel, top;                  /* selected position, first position shown */
    int64_t first;                     /* position of page[0] */
    store_memory page[VIEW_LIST_PAGE]; /* owned, n_page of them */
    int n_page;
    int64_t *order; /* owned: every rid in order, for the orders no index
                       serves (read once, then pages by rid); NULL for date */
    int64_t n_order;
} view_list;

/* A picker: the entities with their counts, or the profiles. */
typedef struct view_pick {
    int open;
    store_entity *ents;        /* owned, n (the entity view) */
    store_profile_info *profs; /* owned, n (the profile picker) */
    size_t n;
    int sel, top;
} view_pick;

/* Geometry of the last layout, for mouse clicks and page sizes. */
typedef struct view_geom {
    int res_y, res_h;                     /* first row of result rows, how many */
    int res_first;                        /* index of the row at res_y */
    int low_y, low_h;                     /* the lower pane's text rows */
    int detail_y, detail_h, detail_edge0; /* detail text rows; line of edge 0 */
    int help_h;
    int ymap[VIEW_YMAP_MAX]; /* screen row -> result row (or edge in detail), -1 */
} view_geom;

typedef struct view_model {
    engine *eng; /* borrowed */
    store *st;   /* borrowed */
    char db_path[1024];
    long long db_bytes;
    int64_t memories;                /* in the profile */
    channel_status health[CH_COUNT]; /* before the first query */

    ledit query;  /* the query line */
    ledit prompt; /* pin-by-id or history-search text */
    view_prompt prompting;
    char search_match[ENGINE_QUERY_MAX + 1]; /* Ctrl-R: the entry found */
    recall_result *cur;                      /* the recall shown (with what-if) */
    recall_result *base;                     /* the baseline, only while what-if is on */
    char ran[ENGINE_QUERY_MAX + 1];          /* the query cur answers */
    view_row *rows;                          /* selectable rows, n_rows */
    size_t n_rows;
    view_whatif wi;
    int limit;      /* results per recall */
    int base_limit; /* the limit outside the tour (config) */
    int sel;        /* selected row */
    int res_top;    /* first result-pane line shown (scroll) */
    int low_top;    /* scroll of the lower pane */
    view_focus focus;
    int armed;          /* the result pane takes keys that write: an arrow, PgUp/PgDn,
                           Home/End or the mouse chose a row since the last Enter */
    int help, help_top; /* overlay open (0, VIEW_HELP_KEYS, VIEW_HELP_CALIBRATION), its scroll */
    struct calreport_status *calib; /* the calibration overlay's report, checked (owned) */
    int show_ranking;
    char pinned[STORE_ID_MAX + 1]; /* why-not memory, "" = none */
    view_detail det;
    view_list list;                /* the listing (empty query, or an entity's memories) */
    view_pick ents;                /* the entity view */
    view_pick profiles;            /* the profile picker */
    store_find find;               /* F: what rows are marked with; text "" = none */
    int64_t find_matches;          /* in the listing, -1 = not counted */
    view_undo undo[VIEW_UNDO_MAX]; /* this session's writes, oldest first (owned) */
    int n_undo;
    char edit_id[STORE_ID_MAX + 1]; /* the memory e or s edits, or d asks to delete */
    int edit_field;                 /* the field s edits (view_set_field_name) */
    char msg[768];                  /* one-line message, "" = key hints */
    int msg_role;
    unsigned msg_gen;     /* counts view_message calls: the next key clears an old message */
    int tour;             /* current step, -1 = no tour */
    char caption[1024];   /* the tour step's caption */
    int64_t data_version; /* store_data_version at the last recall */
    long long file_sig;   /* size and time of the store file and its WAL then */
    int store_changed;    /* another process wrote since */
    int mouse_y, mouse_x, mouse_kind; /* the event MOUSE handles */
    int key;                          /* the key that triggered the action */
    double last_ms;                   /* duration of the last update */
    view_geom g;
} view_model;

/* Mouse events for view_model.mouse_kind. */
enum { VIEW_MOUSE_CLICK = 1, VIEW_MOUSE_DOUBLE, VIEW_MOUSE_WHEEL_UP, VIEW_MOUSE_WHEEL_DOWN };

/* Set up vm over an open engine and store; db_path is shown in the status
 * bar. Reads the store's counts and channel health. 0, or -1 with err. */
int view_model_init(view_model *vm, engine *eng, store *st, const char *db_path, ms_error *err);
void view_model_free(view_model *vm);

/* Read the store's size, counts and channel health again (after another
 * process wrote). 0, or -1 with err. */
int view_model_reload(view_model *vm, ms_error *err);

/* Run the query line's text (and, under what-if, the baseline), rebuild the
 * rows and keep the selection on the same memory where possible. An empty
 * query clears the results. Errors go into vm->msg. Returns 0 or -1. */
int view_model_update(view_model *vm);

/* Replace the query text (the tour and tests use it). */
void view_set_query(view_model *vm, const char *query);

/* Is any what-if override set? */
int view_whatif_active(const view_model *vm);

/* Handle action a (vm->key is the key pressed); returns VIEW_* flags. */
int view_act(view_model *vm, action_id a);

/* Would action a write to the store (WRITE_ACTIONS of action.h)? */
int view_action_writes(action_id a);

/* Put a message on the bottom line (role ROLE_message or ROLE_error). */
void view_message(view_model *vm, int role, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The row selected, or NULL. */
const view_row *view_selected(const view_model *vm);

/* Open the detail view on memory id (pushing the current one); -1 with a
 * message when it does not exist. */
int view_detail_open(view_model *vm, const char *id);
void view_detail_close(view_model *vm);

/* Pin memory id for why-not ("" or the same id again unpins); an id the
 * profile does not hold is refused with a message. Returns VIEW_* flags
 * (a recall is due when the pin changed). */
int view_pin(view_model *vm, const char *id);

/* ---- listings, find, pickers (view_list.c, view_pick.c) -------------------- */

/* Is the listing on screen (an empty query, or an entity opened)? */
int view_listing(const view_model *vm);

/* Forget the loaded pages and the count (after a change of order, profile
 * or store); the next layout loads again. */
void view_list_reset(view_model *vm);

/* The memory at position pos of the listing, loading its page; NULL when
 * out of range or unreadable (a message says why). */
const store_memory *view_list_at(view_model *vm, int64_t pos);

/* Set the find text (store_find_parse syntax) and go to the first match
 * from the selection; "" clears it. Returns VIEW_* flags. */
int view_find_set(view_model *vm, const char *text);
/* Select the next (dir > 0) or previous match. VIEW_* flags. */
int view_find_step(view_model *vm, int dir);

/* Open the entity view / the profile picker. VIEW_* flags. */
int view_entities_open(view_model *vm);
int view_profiles_open(view_model *vm);
/* Switch to profile name: the status, the listing and the query follow. */
int view_profile_use(view_model *vm, const char *name);
void view_pick_free(view_pick *p);
/* ---- curation (view_curate.c) ------------------------------------------------- */

/* Toggle this query's judgement of the selected memory: label (+1 relevant,
 * -1 not) when it has another or none, none when it has label already.
 * One transaction; remembered for view_undo_last. Returns VIEW_* flags. */
int view_feedback_toggle(view_model *vm, int label);

/* Take back the session's last write (one transaction). VIEW_* flags. */
int view_undo_last(view_model *vm);

/* Ask to delete the selected memory (PROMPT_CONFIRM), and the answer: y
 * deletes it in one transaction (undo puts it back as it was, at its rid,
 * with its relations, edges, judgements and pin: store_undelete), anything
 * else keeps it. VIEW_* flags. */
int view_delete_ask(view_model *vm);
int view_delete_answer(view_model *vm, int yes);

/* Edit the selected memory: view_edit_begin sets vm->edit_id and returns
 * VIEW_EDITOR; browse.c writes the file with view_edit_write, runs the
 * editor on it, and gives it back to view_edit_apply, which parses it
 * ("field: value" lines, then the content after "content:") and writes the
 * change in one transaction. A bad line is a message naming PATH:LINE:COL
 * and writes nothing. view_edit_write returns 0 or -1 (with a message);
 * the others VIEW_* flags. */
int view_edit_begin(view_model *vm);
int view_edit_write(view_model *vm, FILE *f);
int view_edit_apply(view_model *vm, const char *path);

/* Edit one field inline: view_set_ask asks which (PROMPT_FIELD) for the
 * selected memory (or the detail view's); view_set_field takes the name
 * (a unique prefix of content, speaker, created_at, event_time, confidence,
 * trust) and opens PROMPT_VALUE holding the field's value now;
 * view_set_value checks the edited value and writes it in one transaction
 * (u undoes). A bad value (confidence 2, a time that is not ISO 8601) is a
 * one-line message naming the field and the memory, and writes nothing.
 * Each returns VIEW_* flags. */
int view_set_ask(view_model *vm);
int view_set_field(view_model *vm, const char *name);
int view_set_value(view_model *vm, const char *text);
/* The name of the field PROMPT_VALUE edits. */
const char *view_set_field_name(const view_model *vm);

/* Ask for the memory the selected one supersedes (kind
 * STORE_REL_SUPERSEDES) or contradicts (STORE_REL_CONTRADICTS): a prompt of
 * "ID [reason]". view_relate_answer records it in one transaction (u
 * undoes). VIEW_* flags. */
int view_relate_ask(view_model *vm, int kind);
int view_relate_answer(view_model *vm, const char *text);

/* "[supersedes m0113]" / "[contradicted by m0124]" of row's relations into
 * buf (cap bytes); "" when none. */
void view_relation_mark(const view_row *row, char *buf, size_t cap);
/* "superseded by m0124: reason" of one relation into buf. */
void view_relation_text(const store_relation *r, char *buf, size_t cap);

/* Did this session edit memory rid (the [edited] mark)? */
int view_edited(const view_model *vm, int64_t rid);

/* The store's judgement of each row for the query shown (view_row.judged). */
void view_mark_rows(view_model *vm);

/* Forget the undo list (view_model_free). */
void view_undo_free(view_model *vm);

/* Check whether another process changed the store; sets store_changed and
 * a message. Returns 1 when it newly changed. */
int view_poll_store(view_model *vm);

/* ---- layout ---------------------------------------------------------------- */

/* A laid-out screen: rows lines of at most cols columns. */
typedef struct view_screen {
    int cols, rows;
    vrow *lines;            /* rows lines, owned */
    int cursor_y, cursor_x; /* where the terminal cursor goes */
    int cursor_on;
    int too_small; /* the "terminal too small" notice is all there is */
} view_screen;

void view_screen_init(view_screen *s);
void view_screen_free(view_screen *s);

/* Lay vm out on a cols x rows screen into s (reusing its buffers). Also
 * records geometry in vm->g and keeps the selection in view. -1 when out of
 * memory. */
int view_layout(view_model *vm, int cols, int rows, view_screen *s);

/* The screen's rows as plain text, one line each, for tests and bench.
 * Caller frees. */
char *view_screen_text(const view_screen *s);

/* The help overlay's lines (generated from ACTIONS, EDIT_KEYS and the
 * column table) into out[max] of width cols; returns the count. */
int view_help_lines(vrow *out, int max, int cols);

/* Open the calibration overlay: read the report beside the store and check
 * it against the store and the default configuration now (calreport.h).
 * Returns VIEW_* flags; a failure is a message. */
int view_calib_open(view_model *vm);
/* Its lines (status, then the picture of calplot.h) into out[max]. */
int view_calib_lines(const view_model *vm, vrow *out, int max, int cols);
void view_calib_free(view_model *vm);

/* ---- views ------------------------------------------------------------------ */

/* One view of the browser: what fills the screen between the top lines
 * and the status bar (the panes, the help, the detail view, ...). Each view
 * file ends in its ops; view_current() names the one on screen, and the
 * layout and every moving key dispatch through it, never on the view's
 * state. */
typedef struct view_ops {
    const char *name; /* "main", "help", "detail", ...: tests and the title */
    /* Lay the view out on rows y .. bottom - 1 of s. */
    void (*draw)(view_model *vm, view_screen *s, int y, int bottom);
    /* A key before the action table: VIEW_* flags, or 0 to let action a
     * run as usual. NULL: the view takes no key of its own. */
    int (*key)(view_model *vm, action_id a);
    /* Move the selection (scroll = 0) or the text (scroll = 1) by delta. */
    int (*move)(view_model *vm, int delta, int scroll);
    /* Rows one page moves. */
    int (*page)(const view_model *vm);
    /* The view's title into buf of cap bytes. */
    void (*title)(const view_model *vm, char *buf, size_t cap);
    /* q and Esc: leave the view (VIEW_* flags); NULL on the main screen,
     * where q quits. */
    int (*close)(view_model *vm);
} view_ops;

/* The view on screen now. */
const view_ops *view_current(const view_model *vm);

/* How the result area of avail rows is split: the number of rows for the
 * result pane (header and banner included); the lower pane gets the rest. */
int view_split(int avail, int result_lines, int lower_lines);

/* Columns of the result table for a given width: the widths of the
 * snippet, speaker and date (0 = hidden) after the fixed columns. */
typedef rtab_cols view_columns; /* the one recall table's (rtable.h) */
void view_columns_for(int cols, int whatif, int ranking, int id_width, view_columns *c);

#endif
