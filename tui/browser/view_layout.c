/* view_layout.c - the model laid out as rows of safe text: query line,
 * legend, tour caption, what-if line, result pane (or abstention banner and
 * nearest misses), lower pane (why-not and trace), status bar, message
 * line. The view below the top lines is drawn by its ops (view_ops.c). */
#include "tui/browser/view_layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/present/text.h"

static const char legend_text[] = "Relevance is query-relative; Trust and Mem.Conf belong to "
                                  "the memory; nothing here is an answer probability.";

/* ---- lists of lines ---------------------------------------------------------- */

vrow *vlist_add(vlist *l)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 32;
        vrow *v = realloc(l->v, (size_t)cap * sizeof *v);
        int *tag = realloc(l->tag, (size_t)cap * sizeof *tag);
        if (!v || !tag) {
            l->v = v ? v : l->v;
            l->tag = tag ? tag : l->tag;
            return NULL;
        }
        l->v = v;
        l->tag = tag;
        l->cap = cap;
    }
    vrow_init(&l->v[l->n], l->width);
    l->tag[l->n] = -1;
    return &l->v[l->n++];
}

void vlist_free(vlist *l)
{
    for (int i = 0; i < l->n; i++)
        vrow_free(&l->v[i]);
    free(l->v);
    free(l->tag);
    memset(l, 0, sizeof *l);
}

/* Copy line src into screen row y. */
void view_put(view_screen *s, int y, const vrow *src)
{
    if (y < 0 || y >= s->rows)
        return;
    vrow *l = &s->lines[y];
    vrow_clear(l);
    vrow_append(l, src);
    l->fill = src->fill;
}

/* Copy lines [top, top + h) of list into rows y.., tagging the mouse map. */
void view_put_list(view_model *vm, view_screen *s, const vlist *list, int top, int y, int h)
{
    for (int k = 0; k < h; k++) {
        if (top + k >= list->n)
            break;
        view_put(s, y + k, &list->v[top + k]);
        if (y + k < VIEW_YMAP_MAX)
            vm->g.ymap[y + k] = list->tag[top + k];
    }
}

/* A first visible line that keeps line `want` in a window of h lines. */
int view_scroll(int top, int want, int h, int n)
{
    if (want >= 0 && want < top)
        top = want;
    if (want >= 0 && want >= top + h)
        top = want - h + 1;
    if (top > n - h)
        top = n - h;
    return top < 0 ? 0 : top;
}

/* ---- the screen ---------------------------------------------------------------- */

void view_screen_init(view_screen *s)
{
    memset(s, 0, sizeof *s);
}

void view_screen_free(view_screen *s)
{
    for (int y = 0; y < s->rows; y++)
        vrow_free(&s->lines[y]);
    free(s->lines);
    memset(s, 0, sizeof *s);
}

static int view_screen_prepare(view_screen *s, int cols, int rows)
{
    if (cols != s->cols || rows != s->rows) {
        view_screen_free(s);
        s->lines = calloc((size_t)(rows > 0 ? rows : 1), sizeof *s->lines);
        if (!s->lines)
            return -1;
        s->cols = cols;
        s->rows = rows;
        for (int y = 0; y < rows; y++)
            vrow_init(&s->lines[y], cols);
    }
    for (int y = 0; y < rows; y++)
        vrow_clear(&s->lines[y]);
    s->cursor_on = 0;
    s->too_small = 0;
    return 0;
}

char *view_screen_text(const view_screen *s)
{
    size_t n = 1;
    for (int y = 0; y < s->rows; y++)
        n += s->lines[y].n + 1;
    char *out = malloc(n), *p = out;
    for (int y = 0; out && y < s->rows; y++) {
        memcpy(p, s->lines[y].s ? s->lines[y].s : "", s->lines[y].n);
        p += s->lines[y].n;
        *p++ = '\n';
    }
    if (out)
        *p = '\0';
    return out;
}

static void view_too_small(view_screen *s)
{
    s->too_small = 1;
    int y = s->rows / 2;
    vrow *l = &s->lines[y];
    vrow_addf(l, ROLE_too_small, "terminal too small (%dx%d; needs %dx%d)", s->cols, s->rows,
              VIEW_MIN_COLS, VIEW_MIN_ROWS);
    l->fill = ROLE_too_small;
}

/* ---- top lines ------------------------------------------------------------------- */

static const char *view_prompt_text(const view_model *vm)
{
    const char *arrow = vfmt_ascii ? ">" : "▸";
    static char buf[STORE_ID_MAX + 96];
    if (vm->prompting == PROMPT_FIELD || vm->prompting == PROMPT_VALUE) {
        snprintf(buf, sizeof buf, " %s of %s %s ",
                 vm->prompting == PROMPT_FIELD ? "Edit field" : view_set_field_name(vm),
                 vm->edit_id, arrow);
        return buf;
    }
    snprintf(buf, sizeof buf, " %s %s ",
             vm->prompting == PROMPT_PIN           ? "Pin id"
             : vm->prompting == PROMPT_SEARCH      ? "History search"
             : vm->prompting == PROMPT_FIND        ? "Find (field:text)"
             : vm->prompting == PROMPT_CONFIRM     ? "Delete? y/N"
             : vm->prompting == PROMPT_SUPERSEDES  ? "Supersedes id [reason]"
             : vm->prompting == PROMPT_CONTRADICTS ? "Contradicts id [reason]"
                                                   : "Query",
             arrow);
    return buf;
}

static void view_query_line(view_model *vm, view_screen *s)
{
    vrow *l = &s->lines[0];
    const ledit *e = vm->prompting ? &vm->prompt : &vm->query;
    int pw = vrow_add(l, ROLE_query_prompt, view_prompt_text(vm));
    int room = s->cols - pw - 1, skipped = 0;
    if (vm->prompting == PROMPT_SEARCH && vm->search_match[0])
        room = room / 2;
    int from = ledit_scroll(e, room, &skipped);
    char text[ENGINE_QUERY_MAX + 1];
    ledit_get_range(e, from, text, sizeof text);
    vrow sub;
    vrow_init(&sub, room);
    vrow_stored(&sub, ROLE_query_text, text, strlen(text));
    vrow_append(l, &sub);
    vrow_free(&sub);
    if (vm->prompting == PROMPT_SEARCH && vm->search_match[0]) {
        vrow_add(l, ROLE_legend, vfmt_ascii ? "  -> " : "  → ");
        vrow_stored(l, ROLE_query_text, vm->search_match, strlen(vm->search_match));
    }
    s->cursor_on = (vm->focus == FOCUS_QUERY || vm->prompting) && !vm->help;
    s->cursor_y = 0;
    s->cursor_x = pw + ledit_cursor_col(e) - skipped;
    if (s->cursor_x >= s->cols)
        s->cursor_x = s->cols - 1;
}

/* Wrap our own text into rows y.. (at most max) in role; returns rows used. */
typedef struct view_wrap_ctx {
    vlist *list;
    int role;
} view_wrap_ctx;

static void view_wrap_row(void *ctx, const char *raw, size_t len)
{
    view_wrap_ctx *w = ctx;
    vrow *l = vlist_add(w->list);
    if (!l)
        return;
    vrow_add(l, w->role, " ");
    vrow_stored(l, w->role, raw, len);
    l->fill = w->role;
}

void view_wrap_into(vlist *list, int role, const char *text)
{
    view_wrap_ctx w = {list, role};
    vfmt_wrap(text, list->width - 2, view_wrap_row, &w);
}

/* Where text's last sentence starts (just after the ". " before it), or
 * NULL when the title and one sentence are all there is. */
static char *view_caption_cut(char *text)
{
    char *end = NULL;
    int sentences = 0;
    for (char *p = text; (p = strstr(p, ". ")) != NULL; p += 2) {
        end = p + 1;
        sentences++;
    }
    return sentences >= 2 ? end : NULL;
}

/* The tour's caption, wrapped: whole sentences only. When it does not fit
 * in max rows, its last sentences go (the title and the first one, the
 * step's claim, always stay, on more rows if need be, up to most). */
static int view_caption(view_model *vm, view_screen *s, int y, int max, int most)
{
    char text[sizeof vm->caption];
    snprintf(text, sizeof text, "%s", vm->caption);
    vlist list = {.width = s->cols};
    view_wrap_into(&list, ROLE_tour_caption, text);
    char *cut;
    while (list.n > max && (cut = view_caption_cut(text)) != NULL) {
        *cut = '\0';
        vlist_free(&list);
        list = (vlist){.width = s->cols};
        view_wrap_into(&list, ROLE_tour_caption, text);
    }
    int room = max > most ? max : most;
    int n = list.n < room ? list.n : room;
    view_put_list(vm, s, &list, 0, y, n);
    vlist_free(&list);
    return n;
}

static void view_whatif_line(const view_model *vm, vrow *l)
{
    const recall_result *r = vm->cur;
    vrow_add(l, ROLE_whatif, " WHAT-IF ");
    if (vm->base && r) {
        int of,
            shared = vfmt_overlap(r->hits, r->n_hits, vm->base->hits, vm->base->n_hits, 10, &of);
        vrow_addf(l, ROLE_trace_total, " overlap@10 %d/%d vs baseline │", shared, of);
    }
    for (int c = 0; c < CH_COUNT; c++) {
        int off = vm->wi.disabled & CH_MASK(c), changed = off || (vm->wi.weights_set & CH_MASK(c));
        vrow_addf(l, c == vm->wi.channel ? ROLE_trace_label : ROLE_normal, " %s%s ",
                  c == vm->wi.channel ? "w:" : "", engine_channel_short_name(c));
        if (off)
            vrow_add(l, ROLE_channel_off, "off");
        else
            vrow_addf(l, changed ? ROLE_move_new : ROLE_normal, "%.2f", r ? r->weights[c] : 0);
    }
    vrow_addf(l, vm->wi.rrf_k >= 0 ? ROLE_move_new : ROLE_normal, "  k %g", r ? r->rrf_k : 0);
    vrow_addf(l, vm->wi.no_floor ? ROLE_move_new : ROLE_normal, "  floor %s",
              vm->wi.no_floor ? "off" : "on");
    vrow_add(l, ROLE_legend, "  (0 resets)");
}

/* ---- the status bar and message line ----------------------------------------- */

/* Forms of a channel's indicator, richest first. */
enum { CH_FORM_FULL, CH_FORM_SHORT, CH_FORM_BRIEF };

static void view_channel_status(const view_model *vm, vrow *l, int c, int form)
{
    const channel_status *cs = vm->cur ? &vm->cur->ch[c] : &vm->health[c];
    const char *name = form == CH_FORM_FULL ? engine_channel_name(c) : engine_channel_short_name(c);
    vrow_add(l, ROLE_status, " ");
    if (!cs->active)
        vrow_addf(l, ROLE_channel_off, "%s OFF:%s", name, cs->reason ? cs->reason : "?");
    else if (!vm->cur)
        vrow_addf(l, theme_channel_role(c), "%s on", name);
    else if (cs->candidates == 0)
        vrow_addf(l, ROLE_channel_empty, "%s 0 EMPTY", name);
    else if (form == CH_FORM_BRIEF)
        vrow_addf(l, theme_channel_role(c), "%s %d", name, cs->candidates);
    else
        vrow_addf(l, theme_channel_role(c), "%s %d %.1fms", name, cs->candidates, cs->ms);
}

/* The channel indicators in the richest form that fits in room columns. */
static void view_channels(const view_model *vm, vrow *l, int room)
{
    for (int form = CH_FORM_FULL; form <= CH_FORM_BRIEF; form++) {
        vrow_clear(l);
        for (int c = 0; c < CH_COUNT; c++)
            view_channel_status(vm, l, c, form);
        if (l->w <= room)
            return;
    }
}

/* Path, cut at the left so its end (the file name) shows. */
static void view_path(const view_model *vm, vrow *l, int room)
{
    const char *p = vm->db_path;
    size_t n = strlen(p);
    while (n > 0 && vfmt_stored_width(p, n) > room - 1 && strchr(p + 1, '/')) {
        p = strchr(p + 1, '/');
        n = strlen(p);
    }
    if (p != vm->db_path)
        vrow_add(l, ROLE_status, vfmt_ascii ? "..." : "…");
    vrow_stored(l, ROLE_status, p, n);
}

/* How much of the store part to show, most first; the count, the profile
 * and whether the browser can write are always there. */
enum { STORE_PART_FULL, STORE_PART_NO_PATH, STORE_PART_NO_SIZE, STORE_PART_BRIEF };

static void view_store_part(const view_model *vm, vrow *l, int cols, int form)
{
    char size[32];
    vfmt_size(vm->db_bytes, size, sizeof size);
    vrow_add(l, ROLE_status, " ");
    if (form == STORE_PART_FULL) {
        view_path(vm, l, cols / 4);
        vrow_add(l, ROLE_status, " ");
    }
    if (form <= STORE_PART_NO_PATH)
        vrow_addf(l, ROLE_status, "%s · ", size);
    vrow_addf(l, ROLE_status, "%lld mem · ", (long long)vm->memories);
    vrow_stored(l, ROLE_status, store_profile(vm->st), strlen(store_profile(vm->st)));
    if (store_is_readonly(vm->st))
        vrow_add(l, ROLE_channel_off, " READ-ONLY");
    else
        vrow_add(l, ROLE_status, " · writable");
    if (vm->cur && form < STORE_PART_BRIEF)
        vrow_addf(l, ROLE_status, " · %s · k %g", vm->cur->query_type, vm->cur->rrf_k);
    vrow_add(l, ROLE_status, " │");
}

/* Store path and size, profile, can it write, query type, k; then every
 * channel. The path, the size and the query's type give way before the
 * channels; the count, the profile and the read-only marker never do. */
static void view_status(const view_model *vm, view_screen *s, int y)
{
    vrow chans, left;
    vrow_init(&left, s->cols);
    vrow_init(&chans, s->cols);
    for (int form = STORE_PART_FULL; form <= STORE_PART_BRIEF; form++) {
        vrow_clear(&left);
        view_store_part(vm, &left, s->cols, form);
        view_channels(vm, &chans, s->cols - left.w);
        if (left.w + chans.w <= s->cols)
            break;
    }
    if (left.w + chans.w > s->cols) { /* the channels, cut, in what is left */
        vrow_free(&chans);
        vrow_init(&chans, s->cols - left.w);
        view_channels(vm, &chans, s->cols - left.w);
    }
    vrow *l = &s->lines[y];
    vrow_append(l, &left);
    vrow_append(l, &chans);
    l->fill = ROLE_status;
    vrow_free(&chans);
    vrow_free(&left);
}

/* The key hints, in this order; a narrow screen drops the higher levels
 * first, so "? help", "T tour" and "q quit" always show. */
static const struct view_hint {
    int level;
    const char *text;
} view_hint_list[] = {
    {0, "? help"},
    {1, "/ query"},
    {3, "Tab pane"},
    {2, "Enter open"},
    {2, "p pin"},
    {2, "y x u"},
    {4, "w + - 1-#N [ ] f what-if"},
    {4, "0 reset"},
    {0, "T tour"},
    {0, "q quit"},
};

static void view_hints(const view_model *vm, vrow *l, int cols)
{
    int unarmed = vm->focus == FOCUS_RESULTS && !vm->armed && vm->cur && !vm->det.open;
    for (int level = 4; level >= 0; level--) {
        vrow_clear(l);
        if (unarmed) /* the focus rule of action.h's WRITE_ACTIONS */
            vrow_add(l, ROLE_legend,
                     vfmt_ascii ? " Down picks a row for y x u;" : " ↓ picks a row for y x u;");
        for (size_t i = 0; i < sizeof view_hint_list / sizeof *view_hint_list; i++)
            if (view_hint_list[i].level <= level) {
                char hint[64];
                keytext_expand(view_hint_list[i].text, hint, sizeof hint);
                vrow_addf(l, ROLE_legend, " %s ", hint);
            }
        if (!l->cut && l->w <= cols)
            return;
    }
}

static void view_message_line(const view_model *vm, view_screen *s, int y)
{
    vrow *l = &s->lines[y];
    if (vm->msg[0]) {
        vrow_add(l, vm->msg_role, " ");
        vrow_stored(l, vm->msg_role, vm->msg, strlen(vm->msg));
        l->fill = vm->msg_role == ROLE_error ? ROLE_error : -1;
        return;
    }
    view_hints(vm, l, s->cols);
}

/* ---- layout ------------------------------------------------------------------------ */

int view_split(int avail, int result_lines, int lower_lines)
{
    if (result_lines + lower_lines <= avail)
        return result_lines > 3 ? result_lines : (avail < 3 ? avail : 3);
    int r = avail - lower_lines;
    if (r < avail / 2)
        r = avail / 2;
    if (r > result_lines)
        r = result_lines;
    if (r < 3)
        r = avail < 3 ? avail : 3;
    return r;
}

int view_layout(view_model *vm, int cols, int rows, view_screen *s)
{
    if (view_screen_prepare(s, cols, rows))
        return -1;
    for (int y = 0; y < VIEW_YMAP_MAX; y++)
        vm->g.ymap[y] = -1;
    if (cols < VIEW_MIN_COLS || rows < VIEW_MIN_ROWS) {
        if (rows > 0)
            view_too_small(s);
        return 0;
    }
    int y = 0, bottom = rows - 2;
    view_query_line(vm, s);
    y++;
    vrow_add(&s->lines[y++], ROLE_legend, legend_text);
    if (vm->caption[0])
        y += view_caption(vm, s, y, rows / 4, bottom - y - 4);
    if (view_whatif_active(vm))
        view_whatif_line(vm, &s->lines[y++]);
    view_current(vm)->draw(vm, s, y, bottom);
    view_status(vm, s, rows - 2);
    view_message_line(vm, s, rows - 1);
    return 0;
}
