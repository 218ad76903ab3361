/* view_panes.c - the result pane (column table, abstention banner, nearest
 * misses, what-if movement) and the lower pane (why-not and trace). */
#include "tui/browser/view_layout.h"

#include <stdio.h>
#include <string.h>

/* ---- columns ------------------------------------------------------------------ */

/* Fixed widths: rank, relevance ("0.910 █████"), trust ("0.90 ▆"),
 * Mem.Conf, ranking, date, move. */
enum {
    CW_RANK = 3,
    CW_REL = 11,
    CW_TRUST = 6,
    CW_CONF = 8,
    CW_RANKING = 8,
    CW_DATE = 10,
    CW_MOVE = 5,
    CW_SPEAKER = 10,
    CW_CONTENT_MIN = 20
};

void view_columns_for(int cols, int whatif, int ranking, int id_width, view_columns *c)
{
    c->move = whatif ? CW_MOVE : 0;
    c->id = id_width < 2 ? 2 : id_width;
    c->ranking = ranking ? CW_RANKING : 0;
    int fixed = CW_RANK + 1 + (c->move ? c->move + 1 : 0) + c->id + 1 + CW_REL + 1 + CW_TRUST + 1 +
                CW_CONF + 1 + (c->ranking ? c->ranking + 1 : 0);
    int rest = cols - fixed;
    c->date = CW_DATE;
    c->speaker = CW_SPEAKER;
    rest -= CW_DATE + 1 + CW_SPEAKER + 1;
    if (rest < CW_CONTENT_MIN) {
        c->speaker = 0;
        rest += CW_SPEAKER + 1;
    }
    if (rest < CW_CONTENT_MIN) {
        c->date = 0;
        rest += CW_DATE + 1;
    }
    c->content = rest > 0 ? rest : 0;
}

static int view_id_width(const view_model *vm)
{
    int w = 2;
    for (size_t i = 0; i < vm->n_rows; i++) {
        const char *id = vm->rows[i].h->mem.id;
        int iw = vfmt_stored_width(id, strlen(id));
        w = iw > w ? iw : w;
    }
    return w > 14 ? 14 : w;
}

static void view_header(const view_model *vm, vrow *l, const view_columns *c)
{
    int role = vm->focus == FOCUS_RESULTS ? ROLE_pane_title_focused : ROLE_header;
    vrow_addf(l, role, "%*s ", CW_RANK, "#");
    if (c->move)
        vrow_addf(l, role, "%-*s ", c->move, "Move");
    vrow_addf(l, role, "%-*s %-*s %-*s %-*s ", c->id, "ID", CW_REL, "Relevance", CW_TRUST, "Trust",
              CW_CONF, "Mem.Conf");
    if (c->ranking)
        vrow_addf(l, role, "%-*s ", c->ranking, "Ranking");
    if (c->date)
        vrow_addf(l, role, "%-*s ", c->date, "Date");
    if (c->speaker)
        vrow_addf(l, role, "%-*s ", c->speaker, "Speaker");
    vrow_add(l, role, "Content");
    l->fill = role;
}

/* "0.90 ▆" in a cell of cols. */
static void view_score_cell(vrow *l, double v, int bar_role, int cols)
{
    char num[16], lev[8];
    snprintf(num, sizeof num, "%.2f ", v);
    vfmt_level(v, lev, sizeof lev);
    int start = l->w;
    vrow_add(l, ROLE_normal, num);
    vrow_add(l, bar_role, lev);
    vrow_pad(l, ROLE_normal, start + cols + 1);
}

static void view_move_cell(vrow *l, const view_row *row, int cols)
{
    char mv[16];
    vfmt_move(row->move, row->is_new, row->kind == ROW_GONE, mv, sizeof mv);
    int role = row->kind == ROW_GONE ? ROLE_gone
               : row->is_new         ? ROLE_move_new
               : row->move > 0       ? ROLE_move_up
               : row->move < 0       ? ROLE_move_down
                                     : ROLE_normal;
    int start = l->w;
    vrow_add(l, row->kind == ROW_MISS ? ROLE_miss : role, row->kind == ROW_MISS ? "" : mv);
    vrow_pad(l, ROLE_normal, start + cols + 1);
}

static void view_scores(vrow *l, const recall_hit *h, const view_columns *c)
{
    char num[32], bar[64];
    snprintf(num, sizeof num, "%.3f ", h->relevance_score);
    vfmt_bar(h->relevance_score, 5, bar, sizeof bar);
    int start = l->w;
    vrow_add(l, ROLE_normal, num);
    vrow_add(l, ROLE_bar_relevance, bar);
    vrow_pad(l, ROLE_normal, start + CW_REL + 1);
    view_score_cell(l, store_trust_score(&h->mem), ROLE_bar_trust, CW_TRUST);
    view_score_cell(l, h->mem.memory_confidence, ROLE_bar_confidence, CW_CONF);
    if (c->ranking)
        vrow_addf(l, ROLE_normal, "%-*.4f ", c->ranking, h->ranking_score);
}

static void view_row_line(const view_model *vm, vrow *l, const view_row *row, const view_columns *c,
                          int selected)
{
    const recall_hit *h = row->h;
    if (row->kind == ROW_HIT)
        vrow_addf(l, ROLE_normal, "%*d ", CW_RANK, h->rank_position);
    else
        vrow_addf(l, ROLE_normal, "%*s ", CW_RANK, "-");
    if (c->move)
        view_move_cell(l, row, c->move);
    int pinned = vm->pinned[0] && strcmp(vm->pinned, h->mem.id) == 0;
    vrow_stored_cell(l, pinned ? ROLE_pinned : ROLE_normal, h->mem.id, c->id);
    vrow_pad(l, ROLE_normal, l->w + 1);
    view_scores(l, h, c);
    if (c->date) {
        char day[11];
        snprintf(day, sizeof day, "%.10s", h->mem.created_at ? h->mem.created_at : "-");
        vrow_stored_cell(l, ROLE_normal, day, c->date);
        vrow_pad(l, ROLE_normal, l->w + 1);
    }
    if (c->speaker) {
        vrow_stored_cell(l, ROLE_normal, h->mem.speaker ? h->mem.speaker : "-", c->speaker);
        vrow_pad(l, ROLE_normal, l->w + 1);
    }
    if (row->judged)
        vrow_add(l, ROLE_move_new, row->judged > 0 ? "[judged +] " : "[judged -] ");
    if (view_edited(vm, h->mem.rid))
        vrow_add(l, ROLE_move_new, "[edited] ");
    char rel[2 * (STORE_ID_MAX + 24) + 16];
    view_relation_mark(row, rel, sizeof rel);
    if (rel[0]) /* ids are stored text */
        vrow_stored(l, ROLE_move_down, rel, strlen(rel));
    if (store_is_superseded(&h->mem)) { /* its id is stored text: shown as stored */
        char sup[STORE_ID_MAX + 64];
        store_supersession_text(h->mem.superseded_by, h->mem.superseded_at, sup, sizeof sup);
        vrow_add(l, ROLE_legend, "[");
        vrow_stored(l, ROLE_legend, sup, strlen(sup));
        vrow_add(l, ROLE_legend, "] ");
    }
    vrow_stored(l, ROLE_normal, h->mem.content, strlen(h->mem.content));
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
