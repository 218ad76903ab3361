/* view_fmt.h - lines of safe text with a role per byte, and the number and
 * bar formats the browser and the shell share.
 *
 * A vrow is one screen row: UTF-8 text that is always terminal-safe (stored
 * text goes in through vrow_stored, which turns controls, escape sequences,
 * bidi overrides and invalid bytes into visible escapes in ROLE_escape) and
 * a theme role for each byte. It never grows wider than its column limit;
 * text that does not fit is cut with "…". No curses here: paint.c draws
 * vrows, the shell prints their text, tests read them. */
#ifndef MS_VIEW_FMT_H
#define MS_VIEW_FMT_H

#include <stddef.h>

#include "engine/engine.h"

typedef struct vrow {
    char *s;             /* UTF-8, NUL-terminated, terminal-safe */
    unsigned char *role; /* role of each byte of s */
    size_t n, cap;       /* bytes used / allocated */
    int w;               /* display columns used */
    int max;             /* column limit */
    int fill;            /* role of the rest of the row, or -1 */
    int cut;             /* something did not fit */
} vrow;

/* Start an empty line of at most max columns (owns nothing yet). */
void vrow_init(vrow *l, int max);
/* Free the text; the line can be initialised again. */
void vrow_free(vrow *l);
/* Forget the text, keep the buffers and limit. */
void vrow_clear(vrow *l);

/* Append safe text (our own text, or text_escape output) in role, cut at
 * the limit. Returns the columns added. */
int vrow_add(vrow *l, int role, const char *safe);
/* printf into the line. */
int vrow_addf(vrow *l, int role, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Append n bytes of stored (hostile) text: visible runs in role, each
 * hidden character or invalid byte as its escape in ROLE_escape; newlines
 * and tabs shown as \n and \t. */
int vrow_stored(vrow *l, int role, const char *raw, size_t n);
/* Same, but at most cols columns, padded with spaces to exactly cols. */
void vrow_stored_cell(vrow *l, int role, const char *raw, int cols);
/* Pad with spaces (in role) up to column col. */
void vrow_pad(vrow *l, int role, int col);
/* Right-align safe text in a cell of cols columns. */
void vrow_cell_right(vrow *l, int role, const char *safe, int cols);
/* Append another line's text and roles (when it fits in the limit). */
void vrow_append(vrow *l, const vrow *src);
/* Set every byte's role to role, except escapes. */
void vrow_recolor(vrow *l, int role);

/* Display columns of n bytes of stored text once escaped. */
int vfmt_stored_width(const char *raw, size_t n);

/* ---- wrapping ------------------------------------------------------------ */

/* Wrap stored text to cols columns at spaces (hard breaks in long words;
 * newlines kept). Calls fn(ctx, raw + start, len) for each piece of raw
 * text making up one row. */
typedef void (*vfmt_row_fn)(void *ctx, const char *raw, size_t len);
void vfmt_wrap(const char *raw, int cols, vfmt_row_fn fn, void *ctx);

/* ---- numbers and bars ---------------------------------------------------- */

/* Use ASCII bars and arrows (set when the locale is not UTF-8). */
extern int vfmt_ascii;
/* Set vfmt_ascii from the locale (after setlocale): ASCII unless its
 * codeset is UTF-8. main() calls it once for every command and the shell;
 * the browser, the same. */
void vfmt_use_locale(void);

/* A horizontal bar of v (0..1) in cols cells with eighth blocks (or '#').
 * Writes safe text into out. */
void vfmt_bar(double v, int cols, char *out, size_t len);
/* One cell showing level v (0..1): ▁▂▃▄▅▆▇█ (or 0..9). */
void vfmt_level(double v, char *out, size_t len);

/* The movement of a row against the baseline: "↑3", "↓1", "=", "new",
 * "gone" (move = base rank - current rank; is_new, gone as flags). */
void vfmt_move(int move, int is_new, int gone, char *out, size_t len);

/* The numbers of a trace row, exactly as recall --trace prints them:
 * "rank 3", "raw 0.2803", "w 1.00", "1.00/(15+3) = 0.055556". */
void vfmt_contribution(const trace_channel *tc, double k, char *out, size_t len);
void vfmt_raw(double raw, char *out, size_t len);

/* A file size: "512 B", "1.3 MiB" (binary units). */
void vfmt_size(long long bytes, char *out, size_t len);

/* Overlap@n between two hit lists by id: shared ids among the first n of
 * each; *of is the larger of the two list lengths (capped at n). */
int vfmt_overlap(const recall_hit *a, size_t na, const recall_hit *b, size_t nb, int n, int *of);

/* The rows describing one hit's trace, appended to out[] (at most max
 * lines, each already initialised with a width): one per channel, then
 * fused, entity graph, adjustments, ranking, relevance and floor. Returns the
 * number of lines used. Shared by the trace pane and the shell. */
int vfmt_trace(vrow *out, int max, const recall_result *r, const recall_hit *h);
/* The same without the rows of what the first stage added, which are the
 * same for every hit: for a list of traces, with vfmt_first_stage once. */
int vfmt_trace_hit(vrow *out, int max, const recall_result *r, const recall_hit *h);
/* What the first stage added to each channel's list, a row each: how many. */
int vfmt_first_stage(vrow *out, int max, const recall_result *r);
/* The why-not rows for r->explain (see vfmt_trace). */
int vfmt_explain(vrow *out, int max, const recall_result *r);
/* A sentence saying what an explain verdict means. Static storage. */
const char *vfmt_verdict_text(const char *verdict);

#endif
