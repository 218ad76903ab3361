/* view_panes.c - the result pane (column table, abstention banner, nearest
 * misses, what-if movement) and the lower pane (why-not and trace). */
#include "tui/browser/view_layout.h"

#include <stdio.h>
#include <string.h>

/* ---- columns: the one recall table (rtable.h) --------------------------------- */

void view_columns_for(int cols, int whatif, int ranking, int id_width, view_columns *c)
{
    rtab_layout(cols, whatif, ranking, id_width, c);
}

static int view_id_width(const view_model *vm)
{
    int w = 2;
    for (size_t i = 0; i < vm->n_rows; i++)
        w = rtab_id_width(w, vm->rows[i].h, 1);
    return w;
}

static void view_header(const view_model *vm, vrow *l, const view_columns *c)
{
    rtab_header(l, c, vm->focus == FOCUS_RESULTS ? ROLE_pane_title_focused : ROLE_header);
}

static void view_row_line(const view_model *vm, vrow *l, const view_row *row, const view_columns *c,
                          int selected)
{
    const recall_hit *h = row->h;
    char rank[16], mv[16];
    snprintf(rank, sizeof rank, "%d", h->rank_position);
    vfmt_move(row->move, row->is_new, row->kind == ROW_GONE, mv, sizeof mv);
    int role = row->kind == ROW_MISS   ? ROLE_miss
               : row->kind == ROW_GONE ? ROLE_gone
               : row->is_new           ? ROLE_move_new
               : row->move > 0         ? ROLE_move_up
               : row->move < 0         ? ROLE_move_down
                                       : ROLE_normal;
    int pinned = vm->pinned[0] && strcmp(vm->pinned, h->mem.id) == 0;
    char tags[32] = "";
    if (row->judged)
        strcat(tags, row->judged > 0 ? "[judged +] " : "[judged -] ");
    if (view_edited(vm, h->mem.rid))
        strcat(tags, "[edited] ");
    char rel[2 * (STORE_ID_MAX + 24) + 16];
    view_relation_mark(row, rel, sizeof rel);
    rtab_mark m = {.rank = row->kind == ROW_HIT ? rank : "-",
                   .move = row->kind == ROW_MISS ? "" : mv,
                   .move_role = role,
                   .id_role = pinned ? ROLE_pinned : ROLE_normal,
                   .tags = tags,
                   .relation = rel};
    rtab_row(l, c, h, &m);
    if (selected)
        vrow_recolor(l, ROLE_result_selected);
    else if (row->kind != ROW_HIT)
        vrow_recolor(l, row->kind == ROW_MISS ? ROLE_miss : ROLE_gone);
    if (!selected)
        l->fill = -1;
}

/* ---- the abstention banner ------------------------------------------------------ */

static void view_banner(const view_model *vm, vlist *list)
{
    const recall_result *r = vm->cur;
    vrow *l = vlist_add(list);
    if (!l)
        return;
    vrow_addf(l, ROLE_abstain_banner, " ABSTAINED %s %s ", vfmt_ascii ? "--" : "—",
              r->abstention_reason);
    l->fill = ROLE_abstain_banner;
    char text[1024];
    if (strcmp(r->abstention_reason, "no_candidates") == 0) {
        snprintf(text, sizeof text,
                 "No channel produced a single candidate: %s. Nothing to "
                 "rank, so nothing is returned.",
                 r->no_candidates_why);
        view_wrap_into(list, ROLE_abstain_text, text);
        return;
    }
    char held[300] = "";
    if (r->floor_unheld[0])
        snprintf(held, sizeof held, " No candidate holds: %s.", r->floor_unheld);
    snprintf(text, sizeof text, "Nothing about %s.%s",
             r->floor_no_support[0] ? r->floor_no_support + strlen("nothing about ") : "?", held);
    view_wrap_into(list, ROLE_abstain_text, text);
    snprintf(text, sizeof text,
             "%zu candidates, none with evidence. Floor rule: %s. Best predicate coverage "
             "%.3f vs %.2f; best remainder cosine %.3f vs %.2f.",
             r->candidates, r->floor_rule ? r->floor_rule : "?", r->floor_best_coverage,
             r->floor_lexical, r->floor_best_value, r->floor_threshold);
    view_wrap_into(list, ROLE_abstain_text, text);
}

static void view_label(vlist *list, const char *text)
{
    vrow *l = vlist_add(list);
    if (l)
        vrow_addf(l, ROLE_legend, " %s", text);
}

static void view_empty_hint(const view_model *vm, vlist *list)
{
    if (vm->cur)
        return;
    view_label(list, vm->msg_role == ROLE_error && vm->msg[0] && vm->ran[0]
                         ? "The query failed: see the message below."
                         : "Type a question: the results follow as you type; Enter runs it now.");
    view_label(list, "T starts the demo tour (on the demo store), ? lists every key, q quits.");
}

/* Result lines: banner, rows with a label where their kind changes.
 * Returns the line of the selected row (or -1). */
static int view_result_lines(view_model *vm, vlist *list, const view_columns *c)
{
    int want = -1;
    view_empty_hint(vm, list);
    if (vm->cur && vm->cur->abstained)
        view_banner(vm, list);
    if (vm->cur && vm->cur->abstained)
        view_wrap_into(list, ROLE_abstain_text,
                       "c (from the results): the calibration report, with this floor's "
                       "operating point on the risk-coverage curve.");
    for (size_t i = 0; i < vm->n_rows; i++) {
        const view_row *row = &vm->rows[i];
        if (i == 0 || row->kind != vm->rows[i - 1].kind) {
            if (row->kind == ROW_GONE)
                view_label(list, "gone under what-if (returned by the baseline):");
            else if (row->kind == ROW_MISS)
                view_label(list, "nearest misses, cut by the evidence floor (dimmed):");
        }
        vrow *l = vlist_add(list);
        if (!l)
            break;
        list->tag[list->n - 1] = (int)i;
        if ((int)i == vm->sel)
            want = list->n - 1;
        view_row_line(vm, l, row, c, (int)i == vm->sel && vm->focus != FOCUS_LOWER);
    }
    return want;
}

/* ---- the lower pane -------------------------------------------------------------- */

/* "Trace of ID, rank N" (or its kind) of the selected row. */
static void view_trace_title(const view_row *row, vrow *l, int role)
{
    vrow_add(l, role, " Trace of ");
    vrow_stored(l, role, row->h->mem.id, strlen(row->h->mem.id));
    if (row->kind == ROW_HIT)
        vrow_addf(l, role, ", rank %d ", row->h->rank_position);
    else
        vrow_add(l, role,
                 row->kind == ROW_MISS ? ", a nearest miss (cut by the floor) "
                                       : " in the baseline (gone under what-if) ");
}

/* The pane's title names what comes first: the why-not block of the pinned
 * memory, or the selected row's trace. */
static void view_lower_title(const view_model *vm, vrow *l)
{
    int role = vm->focus == FOCUS_LOWER ? ROLE_pane_title_focused : ROLE_pane_title;
    const view_row *row = view_selected(vm);
    l->fill = role;
    if (vm->pinned[0]) {
        const recall_explain *ex = vm->cur ? vm->cur->explain : NULL;
        vrow_add(l, role, " Why not ");
        vrow_stored(l, role, vm->pinned, strlen(vm->pinned));
        vrow_addf(l, role, "? %s (p, or i and an empty line, unpins) ",
                  ex && ex->verdict ? ex->verdict : "");
        return;
    }
    if (row)
        view_trace_title(row, l, role);
    else
        vrow_add(l, role, " Trace ");
}

/* The why-not rows; compact when the pane is short, so the trace below
 * still shows: the reason and the scores, without the verdict line (the
 * title has it) and the channel rows. */
static int view_explain_rows(const recall_result *r, vrow *tmp, int max, int compact)
{
    int n = vfmt_explain(tmp, max, r), keep = 0;
    for (int k = 0; k < n; k++) {
        int channel_row = k >= 2 && k < 2 + CH_COUNT && n > 2 + CH_COUNT;
        if (compact && (k == 0 || channel_row))
            continue;
        if (keep != k) {
            vrow_clear(&tmp[keep]);
            vrow_append(&tmp[keep], &tmp[k]);
        }
        keep++;
    }
    return keep;
}

/* The selected row's relations under its trace: the other memory and why. */
static void view_relation_lines(const view_row *row, vlist *list)
{
    for (size_t i = 0; i < row->n_rels; i++) {
        char text[STORE_ID_MAX + STORE_FIELD_MAX + 32];
        view_relation_text(&row->rels[i], text, sizeof text);
        vrow *l = vlist_add(list);
        if (!l)
            return;
        vrow_addf(l, ROLE_trace_label, "%-11s", i == 0 ? "relations" : "");
        vrow_stored(l, ROLE_normal, text, strlen(text));
    }
}

static void view_lower_lines(const view_model *vm, vlist *list, int compact)
{
    vrow tmp[24];
    const recall_result *r = vm->cur;
    int n = 0;
    for (int k = 0; k < 24; k++)
        vrow_init(&tmp[k], list->width);
    if (r && r->explain) {
        n = view_explain_rows(r, tmp, 24, compact);
        for (int k = 0; k < n; k++)
            if (vlist_add(list))
                vrow_append(&list->v[list->n - 1], &tmp[k]);
    } else if (vm->pinned[0]) {
        view_label(list, "A memory is pinned: run a query to see where it ranks.");
    }
    const view_row *row = view_selected(vm);
    if (row && vm->pinned[0]) {
        vrow *l = vlist_add(list);
        if (l)
            view_trace_title(row, l, ROLE_pane_title);
    }
    if (row) {
        for (int k = 0; k < 24; k++)
            vrow_clear(&tmp[k]);
        n = vfmt_trace(tmp, 24, row->kind == ROW_GONE ? vm->base : r, row->h);
        for (int k = 0; k < n; k++)
            if (vlist_add(list))
                vrow_append(&list->v[list->n - 1], &tmp[k]);
        view_relation_lines(row, list);
    }
    for (int k = 0; k < 24; k++)
        vrow_free(&tmp[k]);
}

/* ---- both panes ------------------------------------------------------------------- */

void view_panes(view_model *vm, view_screen *s, int y, int bottom)
{
    view_columns c;
    view_columns_for(s->cols, vm->base != NULL, vm->show_ranking, view_id_width(vm), &c);
    vlist res = {.width = s->cols}, low = {.width = s->cols};
    int want = view_result_lines(vm, &res, &c);
    view_lower_lines(vm, &low, 0);
    int avail = bottom - y;
    int rh = view_split(avail, res.n + 1, low.n + 1);
    if (vm->pinned[0] && low.n > bottom - (y + rh) - 1) { /* the trace would be cut */
        vlist_free(&low);
        low.width = s->cols;
        view_lower_lines(vm, &low, 1);
        rh = view_split(avail, res.n + 1, low.n + 1);
    }
    view_header(vm, &s->lines[y], &c);
    int body = rh - 1;
    vm->res_top = view_scroll(vm->res_top, want < body ? 0 : want, body, res.n);
    view_put_list(vm, s, &res, vm->res_top, y + 1, body);
    vm->g.res_y = y + 1;
    vm->g.res_h = body;
    int ly = y + rh;
    view_lower_title(vm, &s->lines[ly]);
    vm->g.low_y = ly + 1;
    vm->g.low_h = bottom - ly - 1;
    vm->low_top = view_scroll(vm->low_top, -1, vm->g.low_h, low.n);
    for (int k = 0; k < vm->g.low_h && vm->low_top + k < low.n; k++)
        view_put(s, ly + 1 + k, &low.v[vm->low_top + k]);
    vlist_free(&res);
    vlist_free(&low);
}
