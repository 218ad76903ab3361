/* view_list.c - the listing: every memory of the profile when the query is
 * empty, or one entity's memories, in pages loaded as they come into view
 * (store_list), sorted by any column, grouped by session or by day, with a
 * find whose matches are marked and n/N jump to. Its views are the ops at
 * the end. */
#include "tui/browser/view_layout.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the model ------------------------------------------------------------- */

int view_listing(const view_model *vm)
{
    if (vm->list.o.eid > 0)
        return 1;
    if (vm->cur)
        return 0;
    for (const char *p = vm->ran; *p; p++)
        if (!isspace((unsigned char)*p))
            return 0;
    return 1;
}

static void list_drop_page(view_list *l)
{
    for (int i = 0; i < l->n_page; i++)
        store_memory_clear(&l->page[i]);
    l->n_page = 0;
}

void view_list_reset(view_model *vm)
{
    list_drop_page(&vm->list);
    free(vm->list.order);
    vm->list.order = NULL;
    vm->list.n_order = 0;
    vm->list.total = -1;
    vm->find_matches = -1;
}

static int64_t list_total(view_model *vm)
{
    view_list *l = &vm->list;
    if (l->total >= 0)
        return l->total;
    if (l->o.eid <= 0 && vm->memories >= 0) /* the whole profile: the snapshot counted it */
        return l->total = vm->memories;
    ms_error err;
    ms_error_clear(&err);
    if (store_list_count(vm->st, &l->o, &l->total, &err)) {
        view_message(vm, ROLE_error, "memscope: %s", err.msg);
        l->total = 0;
    }
    return l->total;
}

static char *list_dup(const char *s)
{
    return s ? strdup(s) : NULL;
}

typedef struct list_fill {
    view_list *l;
    int failed;
} list_fill;

/* Copy what the listing shows of m into the next page slot. */
static int list_keep(void *ctx, const store_memory *m)
{
    list_fill *f = ctx;
    store_memory *c = &f->l->page[f->l->n_page];
    store_memory_init(c);
    c->rid = m->rid;
    c->id = list_dup(m->id);
    c->content = list_dup(m->content);
    c->created_at = list_dup(m->created_at);
    c->event_time = list_dup(m->event_time);
    c->speaker = list_dup(m->speaker);
    c->session = list_dup(m->session);
    c->memory_confidence = m->memory_confidence;
    c->trust_alpha = m->trust_alpha;
    c->trust_beta = m->trust_beta;
    c->importance = m->importance;
    c->superseded_by = list_dup(m->superseded_by);
    c->superseded_at = list_dup(m->superseded_at);
    f->l->n_page++;
    if (!c->id || !c->content || !c->created_at) {
        f->failed = 1;
        return 1;
    }
    return f->l->n_page >= VIEW_LIST_PAGE;
}

/* The page from l->first by the rids of l->order (read once: one sort of
 * the profile, where OFFSET would sort it again for every page). */
static ms_status list_by_rid(view_model *vm, list_fill *f, ms_error *err)
{
    view_list *l = f->l;
    ms_status st = MS_OK;
    if (!l->order)
        st = store_list_rids(vm->st, &l->o, &l->order, &l->n_order, err);
    for (int64_t i = l->first; !st && i < l->n_order && i < l->first + VIEW_LIST_PAGE; i++) {
        store_memory m;
        st = store_get(vm->st, NULL, l->order[i], &m, err);
        if (!st && list_keep(f, &m))
            i = l->n_order; /* full, or out of memory */
        store_memory_clear(&m);
    }
    return st;
}

/* Load the page holding position pos: it starts a little before pos (or
 * well before it when moving up), so scrolling either way stays in it. */
static int list_load(view_model *vm, int64_t pos)
{
    view_list *l = &vm->list;
    list_drop_page(l);
    int64_t first = pos < l->first ? pos - VIEW_LIST_PAGE + 32 : pos - 32;
    l->first = first < 0 ? 0 : first;
    list_fill f = {l, 0};
    ms_error err;
    ms_error_clear(&err);
    ms_status st = l->o.sort == STORE_SORT_DATE
                       ? store_list(vm->st, &l->o, l->first, VIEW_LIST_PAGE, list_keep, &f, &err)
                       : list_by_rid(vm, &f, &err);
    if (st || f.failed) {
        view_message(vm, ROLE_error, "memscope: %s", f.failed ? "out of memory" : err.msg);
        list_drop_page(l);
        return -1;
    }
    return 0;
}

const store_memory *view_list_at(view_model *vm, int64_t pos)
{
    view_list *l = &vm->list;
    if (pos < 0 || pos >= list_total(vm))
        return NULL;
    if ((pos < l->first || pos >= l->first + l->n_page) && list_load(vm, pos))
        return NULL;
    if (pos < l->first || pos >= l->first + l->n_page)
        return NULL;
    return &l->page[pos - l->first];
}

/* ---- find ------------------------------------------------------------------ */

/* The next match in the result rows (a query's list). */
static int find_in_rows(view_model *vm, int from, int dir)
{
    int n = (int)vm->n_rows, count = 0, to = -1;
    for (int i = 0; i < n; i++)
        count += store_find_match(&vm->find, &vm->rows[i].h->mem);
    for (int k = 1; k <= n && to < 0; k++) {
        int i = ((from + dir * k) % n + n) % n;
        if (store_find_match(&vm->find, &vm->rows[i].h->mem))
            to = i;
    }
    if (to >= 0) {
        vm->sel = to;
        vm->low_top = 0;
    }
    vm->find_matches = count;
    return to;
}

static int find_in_list(view_model *vm, int64_t from, int dir)
{
    int64_t pos = -1, matches = 0;
    ms_error err;
    ms_error_clear(&err);
    if (store_list_find(vm->st, &vm->list.o, &vm->find, from, dir, &pos, &matches, &err)) {
        view_message(vm, ROLE_error, "memscope: %s", err.msg);
        return -1;
    }
    vm->find_matches = matches;
    if (pos >= 0)
        vm->list.sel = pos;
    return pos >= 0 ? 0 : -1;
}

static int find_go(view_model *vm, int64_t from, int dir)
{
    int found = view_listing(vm) ? find_in_list(vm, from, dir) : find_in_rows(vm, (int)from, dir);
    if (found < 0 && vm->msg_role != ROLE_error)
        view_message(vm, ROLE_message, "find: nothing matches \"%s\"", vm->find.text);
    else if (found >= 0)
        view_message(vm, ROLE_message, "find \"%s\": %lld match%s; n next, N previous",
                     vm->find.text, (long long)vm->find_matches, vm->find_matches == 1 ? "" : "es");
    return VIEW_HANDLED | VIEW_REDRAW;
}

int view_find_set(view_model *vm, const char *text)
{
    store_find_parse(text, &vm->find);
    vm->find_matches = -1;
    if (!vm->find.text[0]) {
        view_message(vm, ROLE_message, "find cleared");
        return VIEW_HANDLED | VIEW_REDRAW;
    }
    int64_t sel = view_listing(vm) ? vm->list.sel : vm->sel;
    return find_go(vm, sel - 1, 1);
}

int view_find_step(view_model *vm, int dir)
{
    if (!vm->find.text[0]) {
        view_message(vm, ROLE_message, "nothing to find: F sets what to look for");
        return VIEW_HANDLED | VIEW_REDRAW;
    }
    return find_go(vm, view_listing(vm) ? vm->list.sel : vm->sel, dir);
}

/* ---- drawing ----------------------------------------------------------------- */

/* The columns of the listing: a title, the order it sorts, its width and
 * the narrowest screen that shows it. */
typedef struct list_col {
    const char *name;
    int sort;
    int width;
    int min_cols;
} list_col;

enum { LC_DATE, LC_EVENT, LC_SPEAKER, LC_SESSION, LC_TRUST, LC_CONF, LC_IMP, LC_COUNT };

static const list_col list_cols[LC_COUNT] = {
    [LC_DATE] = {"Date", STORE_SORT_DATE, 10, 0},
    [LC_EVENT] = {"Event", STORE_SORT_EVENT, 10, 110},
    [LC_SPEAKER] = {"Speaker", STORE_SORT_SPEAKER, 10, 0},
    [LC_SESSION] = {"Session", STORE_SORT_SESSION, 12, 100},
    [LC_TRUST] = {"Trust", STORE_SORT_TRUST, 5, 0},
    [LC_CONF] = {"Conf", STORE_SORT_CONFIDENCE, 4, 0},
    [LC_IMP] = {"Imp", STORE_SORT_IMPORTANCE, 4, 90},
};

#define LIST_ID_MAX 16 /* columns of the id cell at most */

static int list_id_width(const view_list *l)
{
    int w = 2;
    for (int i = 0; i < l->n_page; i++) {
        int iw = vfmt_stored_width(l->page[i].id, strlen(l->page[i].id));
        w = iw > w ? iw : w;
    }
    return w > LIST_ID_MAX ? LIST_ID_MAX : w;
}

static const char *list_arrow(const view_list *l, int sort)
{
    if (l->o.sort != sort)
        return "";
    return l->o.desc ? (vfmt_ascii ? "v" : "▼") : (vfmt_ascii ? "^" : "▲");
}

static void list_header(const view_model *vm, vrow *r, int cols, int idw)
{
    int role = vm->focus == FOCUS_QUERY ? ROLE_header : ROLE_pane_title_focused;
    char name[32];
    snprintf(name, sizeof name, "ID%s", list_arrow(&vm->list, STORE_SORT_ID));
    vrow_addf(r, role, "  %-*s ", idw, name);
    for (int c = 0; c < LC_COUNT; c++) {
        if (cols < list_cols[c].min_cols)
            continue;
        snprintf(name, sizeof name, "%s%s", list_cols[c].name,
                 list_arrow(&vm->list, list_cols[c].sort));
        int start = r->w;
        vrow_add(r, role, name);
        vrow_pad(r, role, start + list_cols[c].width + 1);
    }
    vrow_add(r, role, "Content");
    r->fill = role;
}

static void list_cell(vrow *r, const char *text, int width)
{
    vrow_stored_cell(r, ROLE_normal, text ? text : "-", width);
    vrow_pad(r, ROLE_normal, r->w + 1);
}

static void list_number(vrow *r, double v, int width)
{
    int start = r->w;
    vrow_addf(r, ROLE_normal, "%.2f", v);
    vrow_pad(r, ROLE_normal, start + width + 1);
}

static void list_cells(vrow *r, const store_memory *m, int cols)
{
    char day[11], ev[11];
    snprintf(day, sizeof day, "%.10s", m->created_at);
    snprintf(ev, sizeof ev, "%.10s", m->event_time ? m->event_time : "-");
    const char *text[LC_COUNT] = {day, ev, m->speaker, m->session};
    double num[LC_COUNT] = {[LC_TRUST] = store_trust_score(m),
                            [LC_CONF] = m->memory_confidence,
                            [LC_IMP] = m->importance};
    for (int c = 0; c < LC_COUNT; c++) {
        if (cols < list_cols[c].min_cols)
            continue;
        if (c < LC_TRUST)
            list_cell(r, text[c], list_cols[c].width);
        else
            list_number(r, num[c], list_cols[c].width);
    }
}

static void list_row(const view_model *vm, vrow *r, const store_memory *m, int cols, int idw,
                     int selected)
{
    int hit = vm->find.text[0] && store_find_match(&vm->find, m);
    vrow_add(r, hit ? ROLE_move_new : ROLE_normal, hit ? (vfmt_ascii ? "> " : "» ") : "  ");
    vrow_stored_cell(r, ROLE_normal, m->id, idw);
    vrow_pad(r, ROLE_normal, r->w + 1);
    list_cells(r, m, cols);
    if (store_is_superseded(m))
        vrow_add(r, ROLE_legend, "[superseded] ");
    vrow_stored(r, ROLE_normal, m->content, strlen(m->content));
    if (selected)
        vrow_recolor(r, ROLE_result_selected);
}

/* The group a memory falls in: its session, or its day. */
static void list_group_key(const view_list *l, const store_memory *m, char *buf, size_t cap)
{
    if (l->group == VIEW_GROUP_SESSION)
        snprintf(buf, cap, "session %s", m->session ? m->session : "(none)");
    else
        snprintf(buf, cap, "%.10s", m->created_at);
}

static void list_group_line(vrow *r, const char *key)
{
    vrow_add(r, ROLE_trace_label, vfmt_ascii ? "-- " : "── ");
    vrow_stored(r, ROLE_trace_label, key, strlen(key));
    vrow_add(r, ROLE_trace_label, vfmt_ascii ? " --" : " ──");
}

/* Lines from position top into list (group lines where the group
 * changes), at most h; the position of each memory line in tag. Returns
 * the position after the last memory shown. */
static int64_t list_lines(view_model *vm, vlist *list, int64_t top, int h, int idw, int cols)
{
    view_list *l = &vm->list;
    char prev[STORE_FIELD_MAX + 16] = "", key[STORE_FIELD_MAX + 16];
    if (l->group && top > 0) {
        const store_memory *m = view_list_at(vm, top - 1);
        if (m)
            list_group_key(l, m, prev, sizeof prev);
    }
    int64_t pos = top;
    while (list->n < h) {
        const store_memory *m = view_list_at(vm, pos);
        if (!m)
            break;
        if (l->group) {
            list_group_key(l, m, key, sizeof key);
            if (pos == top || strcmp(key, prev) != 0) {
                vrow *g = vlist_add(list);
                if (!g)
                    break;
                list_group_line(g, key);
                snprintf(prev, sizeof prev, "%s", key);
                if (list->n >= h)
                    break;
            }
        }
        vrow *r = vlist_add(list);
        if (!r)
            break;
        list_row(vm, r, m, cols, idw, pos == l->sel && vm->focus != FOCUS_QUERY);
        pos++;
    }
    return pos;
}

/* Keep the selection in view: the first position shown, then the lines. */
static void list_scroll(view_model *vm, vlist *list, int h, int idw, int cols)
{
    view_list *l = &vm->list;
    int64_t total = list_total(vm);
    if (l->sel >= total)
        l->sel = total - 1;
    if (l->sel < 0)
        l->sel = 0;
    if (l->top > l->sel)
        l->top = l->sel;
    if (l->top < l->sel - h + 1)
        l->top = l->sel - h + 1;
    for (int tries = 0; tries <= h; tries++) {
        for (int i = 0; i < list->n; i++)
            vrow_free(&list->v[i]);
        list->n = 0;
        int64_t end = list_lines(vm, list, l->top, h, idw, cols);
        if (l->sel < end || end >= total)
            return;
        l->top++;
    }
}

/* An empty profile: say which profiles hold memories. */
static void list_empty(view_model *vm, view_screen *s, int y, int bottom)
{
    vlist list = {.width = s->cols};
    char text[1024];
    snprintf(text, sizeof text, "The profile \"%s\" holds no memories.", store_profile(vm->st));
    if (vm->list.o.eid > 0)
        snprintf(text, sizeof text, "No memory of this profile mentions the entity.");
    view_wrap_into(&list, ROLE_legend, text);
    store_profile_info *p = NULL;
    size_t n = 0;
    ms_error err;
    if (vm->list.o.eid == 0 && store_profiles(vm->st, &p, &n, &err) == MS_OK) {
        size_t used = (size_t)snprintf(text, sizeof text, "Profiles with memories:");
        int any = 0;
        for (size_t i = 0; i < n && used < sizeof text - 64; i++)
            if (p[i].memories > 0) {
                used += (size_t)snprintf(text + used, sizeof text - used, "%s %.40s (%lld)",
                                         any++ ? "," : "", p[i].name, (long long)p[i].memories);
            }
        if (!any)
            snprintf(text, sizeof text,
                     "No profile holds memories yet: memscope import or "
                     "memscope add writes some (memscope demo writes a demo).");
        else
            snprintf(text + used, sizeof text - used, ". P picks one (or --profile NAME).");
        view_wrap_into(&list, ROLE_legend, text);
        store_profiles_free(p, n);
    }
    view_put_list(vm, s, &list, 0, y, bottom - y);
    vlist_free(&list);
}

static void list_title(const view_model *vm, char *buf, size_t cap)
{
    static const char *const groups[VIEW_GROUP_COUNT] = {"", ", by session", ", by day"};
    const view_list *l = &vm->list;
    char what[300];
    if (l->o.eid > 0)
        snprintf(what, sizeof what, "Memories mentioning %.200s", l->entity);
    else
        snprintf(what, sizeof what, "Every memory");
    snprintf(buf, cap, "%s (%lld), by %s%s%s", what, (long long)l->total,
             store_sort_name(l->o.sort), l->o.desc ? " descending" : "", groups[l->group]);
}

static void list_draw(view_model *vm, view_screen *s, int y, int bottom)
{
    char title[512];
    if (list_total(vm) == 0) {
        list_empty(vm, s, y, bottom);
        return;
    }
    list_title(vm, title, sizeof title);
    vrow *t = &s->lines[y];
    vrow_add(t, ROLE_pane_title, " ");
    vrow_stored(t, ROLE_pane_title, title, strlen(title));
    vrow_add(t, ROLE_pane_title,
             vm->list.o.eid > 0 ? "  (Esc back to the entities; o sort, t group, F find) "
                                : "  (o O sort, t group, F find, E entities, P profiles) ");
    t->fill = ROLE_pane_title;
    view_list_at(vm, vm->list.sel); /* the page the ids are measured on */
    int idw = list_id_width(&vm->list);
    list_header(vm, &s->lines[y + 1], s->cols, idw);
    int h = bottom - y - 2;
    vlist list = {.width = s->cols};
    list_scroll(vm, &list, h, idw, s->cols);
    view_put_list(vm, s, &list, 0, y + 2, h);
    vm->g.res_y = y + 2;
    vm->g.res_h = h;
    vlist_free(&list);
}

/* ---- keys and moving ----------------------------------------------------------- */

static int list_move(view_model *vm, int delta, int scroll)
{
    (void)scroll;
    view_list *l = &vm->list;
    int64_t total = list_total(vm);
    if (total == 0)
        return VIEW_HANDLED;
    int64_t sel = l->sel + delta;
    l->sel = sel < 0 ? 0 : sel >= total ? total - 1 : sel;
    if (vm->focus == FOCUS_QUERY)
        vm->focus = FOCUS_RESULTS;
    return VIEW_HANDLED | VIEW_REDRAW;
}

static int list_page(const view_model *vm)
{
    return vm->g.res_h > 2 ? vm->g.res_h - 1 : 1;
}

/* Enter opens the selected memory; n and N (with no tour) find. */
static int list_key(view_model *vm, action_id a)
{
    if (a == A_OPEN && vm->focus != FOCUS_QUERY) {
        const store_memory *m = view_list_at(vm, vm->list.sel);
        if (!m)
            return VIEW_HANDLED;
        char id[STORE_ID_MAX + 1];
        snprintf(id, sizeof id, "%s", m->id);
        view_detail_open(vm, id);
        return VIEW_HANDLED | VIEW_REDRAW;
    }
    if ((a == A_TOUR_NEXT || a == A_TOUR_PREV) && vm->tour < 0 && vm->find.text[0])
        return view_find_step(vm, a == A_TOUR_NEXT ? 1 : -1);
    return 0;
}

/* Esc in an entity's listing: back to the entity view. */
static int entity_list_close(view_model *vm)
{
    vm->list.o.eid = 0;
    vm->list.entity[0] = '\0';
    vm->list.sel = vm->list.top = 0;
    view_list_reset(vm);
    return VIEW_HANDLED | VIEW_REDRAW;
}

const view_ops view_list_ops = {
    .name = "list",
    .draw = list_draw,
    .key = list_key,
    .move = list_move,
    .page = list_page,
    .title = list_title,
};

const view_ops view_entity_list_ops = {
    .name = "entity-list",
    .draw = list_draw,
    .key = list_key,
    .move = list_move,
    .page = list_page,
    .title = list_title,
    .close = entity_list_close,
};
