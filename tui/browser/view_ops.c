/* view_ops.c - the views of the browser as one table of operations: the
 * main screen (query line, results, trace), the help (or calibration)
 * overlay and the detail view of one memory; the listing and the pickers
 * are in view_list.c and view_pick.c. view_current() is the one
 * place that says which view is on screen; view_act.c and view_layout.c
 * dispatch through it. A new view is one more entry. */
#include "tui/browser/view_layout.h"

#include <stdio.h>
#include <string.h>

static int ops_clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static int ops_page_of(int h)
{
    return h > 2 ? h - 1 : 1;
}

/* ---- the main screen ---------------------------------------------------------- */

static int main_move(view_model *vm, int delta, int scroll)
{
    (void)scroll;
    if (vm->focus == FOCUS_LOWER) {
        vm->low_top = vm->low_top + delta < 0 ? 0 : vm->low_top + delta;
        return VIEW_HANDLED | VIEW_REDRAW;
    }
    if (vm->n_rows == 0)
        return VIEW_HANDLED;
    int sel = ops_clamp(vm->sel + delta, 0, (int)vm->n_rows - 1);
    if (sel != vm->sel)
        vm->low_top = 0;
    vm->sel = sel;
    return VIEW_HANDLED | VIEW_REDRAW;
}

static int main_page(const view_model *vm)
{
    return ops_page_of(vm->focus == FOCUS_LOWER ? vm->g.low_h : vm->g.res_h);
}

static void main_title(const view_model *vm, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", vm->ran[0] ? "Results" : "Query");
}

/* n and N (with no tour running) go to the next and previous match of F. */
static int main_key(view_model *vm, action_id a)
{
    if ((a == A_TOUR_NEXT || a == A_TOUR_PREV) && vm->tour < 0 && vm->find.text[0])
        return view_find_step(vm, a == A_TOUR_NEXT ? 1 : -1);
    return 0;
}

static const view_ops main_ops = {
    .name = "main",
    .draw = view_panes,
    .key = main_key,
    .move = main_move,
    .page = main_page,
    .title = main_title,
};

/* ---- the help and calibration overlay ------------------------------------------ */

/* Moving keys scroll the overlay; any other key closes it (Ctrl-C still
 * quits). */
static int help_key(view_model *vm, action_id a)
{
    switch (a) {
    case A_UP:
    case A_DOWN:
    case A_PAGE_UP:
    case A_PAGE_DOWN:
    case A_HOME:
    case A_END:
    case A_REDRAW:
    case A_MOUSE:
    case A_SUSPEND:
        return 0;
    default:
        if (a == A_QUIT && vm->key == CTRL_KEY('c'))
            return 0;
        vm->help = 0;
        return VIEW_HANDLED | VIEW_REDRAW;
    }
}

static int help_move(view_model *vm, int delta, int scroll)
{
    (void)scroll;
    vm->help_top = vm->help_top + delta < 0 ? 0 : vm->help_top + delta;
    return VIEW_HANDLED | VIEW_REDRAW;
}

static int help_page(const view_model *vm)
{
    return ops_page_of(vm->g.help_h);
}

static void help_title(const view_model *vm, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", vm->help == VIEW_HELP_CALIBRATION ? "Calibration" : "Help");
}

static int help_close(view_model *vm)
{
    vm->help = 0;
    return VIEW_HANDLED | VIEW_REDRAW;
}

static const view_ops help_ops = {
    .name = "help",
    .draw = view_help_pane,
    .key = help_key,
    .move = help_move,
    .page = help_page,
    .title = help_title,
    .close = help_close,
};

/* ---- the detail view ----------------------------------------------------------- */

/* Enter follows the selected edge to the memory at its other end. */
static int detail_key(view_model *vm, action_id a)
{
    if (a != A_OPEN)
        return 0;
    const view_detail *d = &vm->det;
    if (d->n_edges == 0 || !d->other[d->sel].id)
        return VIEW_HANDLED;
    char id[STORE_ID_MAX + 1];
    snprintf(id, sizeof id, "%s", d->other[d->sel].id);
    view_detail_open(vm, id);
    return VIEW_HANDLED | VIEW_REDRAW;
}

/* Up and Down choose an edge (and bring it into view); the paging keys
 * and a memory without edges scroll the text. */
static int detail_move(view_model *vm, int delta, int scroll)
{
    view_detail *d = &vm->det;
    if (scroll || d->n_edges == 0) {
        d->top = d->top + delta < 0 ? 0 : d->top + delta; /* the layout clamps the end */
        d->follow = 0;
        return VIEW_HANDLED | VIEW_REDRAW;
    }
    d->sel = ops_clamp(d->sel + delta, 0, (int)d->n_edges - 1);
    d->follow = 1;
    return VIEW_HANDLED | VIEW_REDRAW;
}

static int detail_page(const view_model *vm)
{
    return ops_page_of(vm->g.detail_h);
}

static void detail_title(const view_model *vm, char *buf, size_t cap)
{
    snprintf(buf, cap, "Memory %s", vm->det.m.id ? vm->det.m.id : "?");
}

/* Back to the memory opened before, or to the list. */
static int detail_close(view_model *vm)
{
    view_detail_close(vm);
    return VIEW_HANDLED | VIEW_REDRAW;
}

static const view_ops detail_ops = {
    .name = "detail",
    .draw = view_detail_pane,
    .key = detail_key,
    .move = detail_move,
    .page = detail_page,
    .title = detail_title,
    .close = detail_close,
};

/* ---- which ------------------------------------------------------------------------ */

const view_ops *view_current(const view_model *vm)
{
    if (vm->help)
        return &help_ops;
    if (vm->det.open)
        return &detail_ops;
    if (vm->profiles.open)
        return &view_profiles_ops;
    if (vm->list.o.eid > 0)
        return &view_entity_list_ops;
    if (vm->ents.open)
        return &view_entities_ops;
    if (view_listing(vm))
        return &view_list_ops;
    return &main_ops;
}
