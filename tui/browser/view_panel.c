/* view_panel.c - the full-width panels: the detail view of one memory (its
 * full content, every stored field, entities and navigable edges) and the
 * help overlay generated from the action table. */
#include "tui/browser/view_layout.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define VIEW_CONTENT_LINES_MAX 5000 /* wrapped content lines in the detail view */

/* Every column of the result table and what it means (help and docs). */
#define VIEW_COLUMNS(_)                                                                            \
    _("#", "rank_position: the place in the returned list (- for misses and gone rows)")           \
    _("Move", "what-if only: movement against the baseline (up, down, = same, new, gone)")         \
    _("ID", "the memory's id")                                                                     \
    _("Relevance", "relevance_score 0..1 = boosted / max_boosted: how well the memory "            \
                   "matches THIS query, relative to the best possible; not an answer probability") \
    _("Trust", "trust_score = alpha / (alpha + beta) of the memory's source; a property "          \
               "of the memory, not of the answer")                                                 \
    _("Mem.Conf", "memory_confidence stored with the memory; not query relevance")                 \
    _("Ranking", "ranking_score = boosted x adjustments (trust, confidence, recency): the "        \
                 "order of the list; diagnostic and unbounded (r hides it)")                       \
    _("Date", "created_at, the day the memory was stored")                                         \
    _("Speaker", "who said or wrote it")                                                           \
    _("Content", "the text; control characters and escape sequences shown as visible "             \
                 "escapes in their own colour")

/* ---- detail ----------------------------------------------------------------------- */

typedef struct view_content_ctx {
    vlist *list;
    int cut;
} view_content_ctx;

static void view_content_row(void *ctx, const char *raw, size_t len)
{
    view_content_ctx *c = ctx;
    if (c->list->n >= VIEW_CONTENT_LINES_MAX) {
        c->cut = 1;
        return;
    }
    vrow *l = vlist_add(c->list);
    if (!l)
        return;
    vrow_add(l, ROLE_normal, "  ");
    vrow_stored(l, ROLE_normal, raw, len);
}

static void view_field(vlist *list, const char *name, const char *value)
{
    vrow *l = vlist_add(list);
    if (!l)
        return;
    vrow_addf(l, ROLE_detail_field, "  %-18s", name);
    vrow_stored(l, ROLE_normal, value ? value : "-", value ? strlen(value) : 1);
}

static void view_fieldf(vlist *list, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void view_fieldf(vlist *list, const char *name, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    view_field(list, name, buf);
}

static void view_fields(vlist *list, const store_memory *m)
{
    view_field(list, "id", m->id);
    view_field(list, "profile", m->profile);
    view_field(list, "created_at", m->created_at);
    view_field(list, "event_time", m->event_time);
    view_field(list, "speaker", m->speaker);
    view_field(list, "session", m->session);
    view_field(list, "source", m->source);
    view_fieldf(list, "memory_confidence", "%.2f", m->memory_confidence);
    view_fieldf(list, "trust", "alpha %g, beta %g: trust_score = alpha/(alpha+beta) = %.3f",
                m->trust_alpha, m->trust_beta, store_trust_score(m));
    view_fieldf(list, "importance", "%.2f", m->importance);
    view_field(list, "pinned", m->pinned ? "yes: always passes the evidence floor" : "no");
    view_fieldf(list, "access_count", "%lld", (long long)m->access_count);
    view_field(list, "last_accessed", m->last_accessed);
    char buf[STORE_ID_MAX + 64];
    store_supersession_text(m->superseded_by, m->superseded_at, buf, sizeof buf);
    view_field(list, "status", buf[0] ? buf : "current");
    if (m->superseded_reason)
        view_field(list, "superseded_reason", m->superseded_reason);
    if (m->vector_model)
        view_fieldf(list, "vector", "%.200s, %d-d", m->vector_model, m->vector_dim);
    else
        view_field(list, "vector", NULL);
    view_field(list, "metadata", m->metadata);
}

static void view_entities(vlist *list, const view_detail *d)
{
    static const char *const kinds[] = {"?", "speaker", "name", "quoted", "given"};
    vrow *l = vlist_add(list);
    if (l)
        vrow_addf(l, ROLE_detail_field, "  entities (%zu)", d->n_ents);
    for (size_t i = 0; i < d->n_ents && (l = vlist_add(list)); i++) {
        vrow_add(l, ROLE_normal, "    ");
        vrow_stored(l, ROLE_normal, d->ents[i].name, strlen(d->ents[i].name));
        int k = d->ents[i].kind >= 1 && d->ents[i].kind <= 4 ? d->ents[i].kind : 0;
        vrow_addf(l, ROLE_legend, "  (%s, in %lld memories)", kinds[k], (long long)d->ents[i].docs);
    }
}

/* "supersedes", "superseded by", "contradicts", "contradicted by". */
static void view_relation_label(vrow *l, const store_relation *r)
{
    const char *name = r->kind == STORE_REL_SUPERSEDES
                           ? (r->outgoing ? "supersedes" : "superseded by")
                           : (r->outgoing ? "contradicts" : "contradicted by");
    vrow_addf(l, ROLE_trace_total, "    %-15s ", name);
}

static void view_edges(view_model *vm, vlist *list)
{
    const view_detail *d = &vm->det;
    vrow *l = vlist_add(list);
    if (l) {
        vrow_addf(l, ROLE_detail_field, "  edges (%zu)", d->n_edges - d->n_rels);
        if (d->n_rels)
            vrow_addf(l, ROLE_detail_field, " and relations (%zu)", d->n_rels);
        if (d->n_edges)
            vrow_add(l, ROLE_detail_field,
                     ": Up/Down choose, Enter opens the memory at the other end");
    }
    vm->g.detail_edge0 = list->n;
    for (size_t i = 0; i < d->n_edges && (l = vlist_add(list)); i++) {
        const store_memory *o = &d->other[i];
        list->tag[list->n - 1] = (int)i;
        if (i < d->n_rels)
            view_relation_label(l, &d->rels[i]);
        else
            vrow_addf(l, ROLE_normal, "    %-9s %.2f  ", store_edge_type_name(d->edges[i].type),
                      d->edges[i].weight);
        vrow_stored_cell(l, ROLE_trace_label, o->id ? o->id : "?", 10);
        vrow_add(l, ROLE_normal, " ");
        if (i < d->n_rels && d->rels[i].reason) {
            vrow_add(l, ROLE_legend, "(");
            vrow_stored(l, ROLE_legend, d->rels[i].reason, strlen(d->rels[i].reason));
            vrow_add(l, ROLE_legend, ") ");
        }
        vrow_stored(l, ROLE_normal, o->content ? o->content : "",
                    o->content ? strlen(o->content) : 0);
        if ((int)i == d->sel)
            vrow_recolor(l, ROLE_result_selected);
    }
}

static void view_detail_lines(view_model *vm, vlist *list)
{
    const store_memory *m = &vm->det.m;
    vrow *l = vlist_add(list);
    if (l)
        vrow_add(l, ROLE_detail_field, "  content");
    view_content_ctx ctx = {list, 0};
    vfmt_wrap(m->content, list->width - 3, view_content_row, &ctx);
    if (ctx.cut && (l = vlist_add(list)))
        vrow_addf(l, ROLE_legend,
                  "  (the rest of the content is not shown: more than %d "
                  "lines)",
                  VIEW_CONTENT_LINES_MAX);
    vlist_add(list);
    view_fields(list, m);
    vlist_add(list);
    view_entities(list, &vm->det);
    vlist_add(list);
    view_edges(vm, list);
}

void view_detail_pane(view_model *vm, view_screen *s, int y, int bottom)
{
    view_detail *d = &vm->det;
    vrow *t = &s->lines[y];
    vrow_add(t, ROLE_pane_title_focused, " Memory ");
    vrow_stored(t, ROLE_pane_title_focused, d->m.id, strlen(d->m.id));
    vrow_addf(t, ROLE_pane_title_focused, "  (Esc/q back%s, p pin, PgUp/PgDn scroll) ",
              d->depth ? " to the previous memory" : "");
    t->fill = ROLE_pane_title_focused;
    vlist list = {.width = s->cols};
    view_detail_lines(vm, &list);
    int h = bottom - y - 1;
    int want = d->follow && d->n_edges ? vm->g.detail_edge0 + d->sel : -1;
    d->top = view_scroll(d->top, want, h, list.n);
    view_put_list(vm, s, &list, d->top, y + 1, h);
    vm->g.detail_y = y + 1;
    vm->g.detail_h = h;
    vlist_free(&list);
}

/* ---- help --------------------------------------------------------------------------- */

static void view_help_entry(vrow *out, int max, int *n, int cols, const char *keys,
                            const char *text)
{
    vlist list = {.width = cols - 18};
    view_wrap_into(&list, ROLE_help, text);
    for (int k = 0; k < list.n && *n < max; k++) {
        vrow *l = &out[(*n)++];
        vrow_addf(l, ROLE_help_key, "  %-15s", k == 0 ? keys : "");
        vrow_append(l, &list.v[k]);
        l->fill = ROLE_help;
    }
    vlist_free(&list);
}

static void view_help_title(vrow *out, int max, int *n, const char *title)
{
    if (*n + 1 >= max)
        return;
    out[(*n)++].fill = ROLE_help;
    vrow *l = &out[(*n)++];
    vrow_addf(l, ROLE_help_key, " %s", title);
    l->fill = ROLE_help;
}

/* One entry of the action table, its #N and #CHANNELS filled in. */
static void view_help_action(vrow *out, int max, int *n, int cols, const char *keys,
                             const char *text)
{
    char k[64], t[512];
    keytext_expand(keys, k, sizeof k);
    keytext_expand(text, t, sizeof t);
    view_help_entry(out, max, n, cols, k, t);
}

int view_help_lines(vrow *out, int max, int cols)
{
    int n = 0;
    const char *section = "";
    if (max < 1)
        return 0;
    vrow_add(&out[n], ROLE_help_key, " memscope browser: every key (Esc closes, arrows scroll)");
    out[n++].fill = ROLE_help;
#define VIEW_HELP_ACTION(id, sec, keys, help, ...)                                                 \
    if (strcmp(section, sec) != 0)                                                                 \
        view_help_title(out, max, &n, (section = sec));                                            \
    view_help_action(out, max, &n, cols, keys, help);
    ACTIONS(VIEW_HELP_ACTION)
#undef VIEW_HELP_ACTION
    view_help_title(out, max, &n, "Query line");
#define VIEW_HELP_EDIT(keys, help) view_help_entry(out, max, &n, cols, keys, help);
    EDIT_KEYS(VIEW_HELP_EDIT)
#undef VIEW_HELP_EDIT
    view_help_title(out, max, &n, "Columns of the result pane");
#define VIEW_HELP_COLUMN(name, meaning) view_help_entry(out, max, &n, cols, name, meaning);
    VIEW_COLUMNS(VIEW_HELP_COLUMN)
#undef VIEW_HELP_COLUMN
    view_help_title(out, max, &n, "Status bar");
    view_help_entry(out, max, &n, cols, "channels",
                    "each channel: candidates and ms when it "
                    "ran; EMPTY when it found nothing; OFF:reason when inactive (disabled, "
                    "no_vectors, no_edges, store_empty...), in their own colours");
    return n;
}

void view_help_pane(view_model *vm, view_screen *s, int y, int bottom)
{
    enum { HELP_MAX = 160 };
    vrow lines[HELP_MAX];
    for (int k = 0; k < HELP_MAX; k++)
        vrow_init(&lines[k], s->cols);
    int n = vm->help == VIEW_HELP_CALIBRATION ? view_calib_lines(vm, lines, HELP_MAX, s->cols)
                                              : view_help_lines(lines, HELP_MAX, s->cols);
    int h = bottom - y;
    vm->help_top = view_scroll(vm->help_top, -1, h, n);
    for (int k = 0; k < h; k++) {
        vrow *l = &s->lines[y + k];
        if (vm->help_top + k < n)
            view_put(s, y + k, &lines[vm->help_top + k]);
        l->fill = ROLE_help;
    }
    vm->g.help_h = h;
    for (int k = 0; k < HELP_MAX; k++)
        vrow_free(&lines[k]);
}
