/* rtable.h - the one recall table: its columns at a width, its header and
 * its rows, as vrows (view_fmt.h: safe text with a theme role per byte).
 * `recall`'s text output, the shell and the browser's result pane all lay
 * out their rows here, so the same hit reads the same in all three
 * (tests/rooms-render.t); the browser colours the roles, the others print
 * the text. With the trace rows of vfmt_trace (view_trace.c) this is the
 * whole of a recall on screen or on paper. No curses here. */
#ifndef MS_RTABLE_H
#define MS_RTABLE_H

#include "engine/engine.h"
#include "tui/present/view_fmt.h"

/* The widest id column: a longer id is cut in its middle ("m1a2…db0000"),
 * keeping the head and the tail that tell neighbours apart. 24 fits the
 * 16-character ids `memscope add` makes, and the demo's. */
enum { RTAB_ID_MAX = 24 };

/* Column widths of one table (0 = the column is not shown); each column
 * is followed by one space, and content takes the rest of the row. */
typedef struct rtab_cols {
    int rank, move, id, rel, trust, conf, ranking, date, speaker, content;
} rtab_cols;

/* The columns for a row of cols columns: a move column when move, a
 * ranking column when ranking, the id column id_width wide (2 to
 * RTAB_ID_MAX; see rtab_id_width); the speaker, then the date, are hidden
 * when the content would get fewer than 20 columns. */
void rtab_layout(int cols, int move, int ranking, int id_width, rtab_cols *c);

/* The id column width for n hits: the widest escaped id, at least w, at
 * most RTAB_ID_MAX. Call it once per list (hits, then misses). */
int rtab_id_width(int w, const recall_hit *h, size_t n);

/* The header row ("  # ID  Relevance Trust Mem.Conf Ranking Date ..."),
 * every byte in role, the rest of the row filled with it. */
void rtab_header(vrow *l, const rtab_cols *c, int role);

/* What the caller says about one row beyond its hit. */
typedef struct rtab_mark {
    const char *rank;     /* "3", "m1" (a nearest miss), "-" */
    const char *move;     /* the move cell ("↑3", "new"), when c->move */
    int move_role;        /* its role */
    int id_role;          /* ROLE_normal, or ROLE_pinned */
    const char *tags;     /* the browser's marks of what this session did ("[judged +] [edited] "),
                             our own text; NULL or "" for none */
    const char *relation; /* "[supersedes m0113] " and the like: stored ids, shown escaped */
} rtab_mark;

/* One hit as a row: rank, move, id, relevance with its bar, trust and
 * Mem.Conf with their levels, ranking (%.4f), the day it was stored,
 * speaker, m's tags and relation marks, a supersession mark, then the content until the row's limit
 * (a vrow with a large limit gets all of it). Stored text is escaped. */
void rtab_row(vrow *l, const rtab_cols *c, const recall_hit *h, const rtab_mark *m);

/* The legend printed under (or above) every table. */
extern const char rtab_legend[];

/* "query: Q   type: T   k: K   candidates: N   X ms" (the query is stored
 * text: escaped). */
void rtab_summary(vrow *l, const recall_result *r);
/* "channels:  semantic 12 (0.3 ms)  bm25 OFF (no_fts) ...". */
void rtab_channels(vrow *l, const recall_result *r);

/* An abstention, as rows appended to out[] (at most max, each already
 * initialised): "ABSTAINED: reason", then what found no support (or why
 * there were no candidates) and the floor's numbers. Returns the rows
 * used. */
int rtab_abstention(vrow *out, int max, const recall_result *r);

#endif
