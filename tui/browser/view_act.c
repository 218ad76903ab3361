/* view_act.c - what each action does to the model. One small function per
 * action, act_ID for each entry of ACTIONS (action.h); they return VIEW_*
 * flags and never draw. */
#include "tui/browser/view.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui/browser/tour.h"

enum { H = VIEW_HANDLED, R = VIEW_REDRAW };

/* ---- moving ---------------------------------------------------------------- */

/* Moving keys move in the view on screen (view_ops.c). */
static int view_move(view_model *vm, int delta, int scroll)
{
    return view_current(vm)->move(vm, delta, scroll);
}

static int view_page(const view_model *vm)
{
    return view_current(vm)->page(vm);
}

static int act_UP(view_model *vm)
{
    return view_move(vm, -1, 0);
}

static int act_DOWN(view_model *vm)
{
    return view_move(vm, 1, 0);
}

static int act_PAGE_UP(view_model *vm)
{
    return view_move(vm, -view_page(vm), 1);
}

static int act_PAGE_DOWN(view_model *vm)
{
    return view_move(vm, view_page(vm), 1);
}

static int act_HOME(view_model *vm)
{
    return view_move(vm, -1000000, 1);
}

static int act_END(view_model *vm)
{
    return view_move(vm, 1000000, 1);
}

static int act_NEXT_PANE(view_model *vm)
{
    vm->focus = (vm->focus + 1) % FOCUS_COUNT;
    return H | R;
}

static int act_PREV_PANE(view_model *vm)
{
    vm->focus = (vm->focus + FOCUS_COUNT - 1) % FOCUS_COUNT;
    return H | R;
}

static int act_QUERY(view_model *vm)
{
    while (vm->det.open)
        view_detail_close(vm);
    view_pick_free(&vm->ents);
    view_pick_free(&vm->profiles);
    vm->list.o.eid = 0; /* a query answers for the whole profile */
    vm->focus = FOCUS_QUERY;
    return H | R;
}

/* Esc: leave the view on screen; on the main screen, leave the query line
 * or end the tour. */
static int act_BACK(view_model *vm)
{
    const view_ops *v = view_current(vm);
    if (v->close)
        return v->close(vm);
    if (vm->focus == FOCUS_QUERY)
        vm->focus = FOCUS_RESULTS;
    else if (vm->tour >= 0)
        return tour_stop(vm);
    return H | R;
}

/* Enter on the main screen (the views take it first: view_ops.c). */
static int act_OPEN(view_model *vm)
{
    if (vm->focus == FOCUS_QUERY) {
        vm->focus = FOCUS_RESULTS;
        return H | R | VIEW_RECALL;
    }
    const view_row *row = view_selected(vm);
    if (row)
        view_detail_open(vm, row->h->mem.id);
    return H | R;
}

/* ---- the mouse ------------------------------------------------------------- */

static int view_click(view_model *vm, int dbl)
{
    int y = vm->mouse_y;
    if (y == 0) {
        vm->focus = FOCUS_QUERY;
        return H | R;
    }
    int hit = y >= 0 && y < VIEW_YMAP_MAX ? vm->g.ymap[y] : -1;
    if (vm->det.open) {
        if (hit >= 0)
            vm->det.sel = hit;
        vm->det.follow = 1;
        return dbl && hit >= 0 ? view_act(vm, A_OPEN) : H | R;
    }
    if (y >= vm->g.low_y && y < vm->g.low_y + vm->g.low_h) {
        vm->focus = FOCUS_LOWER;
        return H | R;
    }
    if (hit < 0)
        return H;
    vm->focus = FOCUS_RESULTS;
    if (hit != vm->sel)
        vm->low_top = 0;
    vm->sel = hit;
    return dbl ? act_OPEN(vm) : H | R;
}

static int act_MOUSE(view_model *vm)
{
    int wheel = vm->mouse_kind == VIEW_MOUSE_WHEEL_UP     ? -3
                : vm->mouse_kind == VIEW_MOUSE_WHEEL_DOWN ? 3
                                                          : 0;
    if (wheel && !vm->help && !vm->det.open) {
        int lower = vm->mouse_y >= vm->g.low_y && vm->mouse_y < vm->g.low_y + vm->g.low_h;
        view_focus keep = vm->focus;
        vm->focus = lower ? FOCUS_LOWER : FOCUS_RESULTS;
        int f = view_move(vm, lower ? wheel : wheel / 3, 1);
        vm->focus = keep == FOCUS_QUERY ? keep : vm->focus;
        return f;
    }
    if (wheel)
        return view_move(vm, wheel, 1);
    if (vm->help)
        return H;
    return view_click(vm, vm->mouse_kind == VIEW_MOUSE_DOUBLE);
}

/* ---- why not ----------------------------------------------------------------- */

static int act_PIN(view_model *vm)
{
    if (vm->det.open)
        return view_pin(vm, vm->det.m.id);
    const view_row *row = view_selected(vm);
    if (!row) {
        view_message(vm, ROLE_message, "nothing selected to pin; i pins a memory by its id");
        return H | R;
    }
    return view_pin(vm, row->h->mem.id);
}

static int act_PIN_ID(view_model *vm)
{
    vm->prompting = PROMPT_PIN;
    ledit_clear(&vm->prompt);
    return H | R;
}

/* ---- what-if ------------------------------------------------------------------ */

/* The recall the what-if changes are measured against. */
static const recall_result *view_baseline(const view_model *vm)
{
    return vm->base ? vm->base : vm->cur;
}

static int view_whatif_changed(view_model *vm)
{
    const view_whatif *w = &vm->wi;
    char k[32] = "default";
    if (w->rrf_k >= 0)
        snprintf(k, sizeof k, "%g", w->rrf_k);
    view_message(vm, ROLE_message,
                 "what-if: %d weight(s) changed, %d channel(s) off, k %s, "
                 "floor %s; 0 resets",
                 __builtin_popcount(w->weights_set), __builtin_popcount(w->disabled), k,
                 w->no_floor ? "off" : "on");
    return H | R | VIEW_RECALL;
}

static int act_WI_CHANNEL(view_model *vm)
{
    vm->wi.channel = (vm->wi.channel + 1) % CH_COUNT;
    view_message(vm, ROLE_message, "what-if channel: %s (+ and - change its weight)",
                 engine_channel_name(vm->wi.channel));
    return H | R;
}

static int view_weight_step(view_model *vm, double step)
{
    const recall_result *b = view_baseline(vm);
    if (!b) {
        view_message(vm, ROLE_message, "run a query first: what-if changes a recall");
        return H | R;
    }
    int c = vm->wi.channel;
    double base = b->weights[c];
    double cur = (vm->wi.weights_set & CH_MASK(c)) ? vm->wi.weights[c] : base;
    double w = fmin(1000, fmax(0, cur + step));
    vm->wi.weights[c] = w;
    if (fabs(w - base) < 1e-9)
        vm->wi.weights_set &= ~CH_MASK(c);
    else
        vm->wi.weights_set |= CH_MASK(c);
    return view_whatif_changed(vm);
}

static int act_WI_MORE(view_model *vm)
{
    return view_weight_step(vm, 0.25);
}

static int act_WI_LESS(view_model *vm)
{
    return view_weight_step(vm, -0.25);
}

static int act_WI_TOGGLE(view_model *vm)
{
    int c = vm->key - '1';
    if (c < 0 || c >= CH_COUNT)
        return 0;
    vm->wi.disabled ^= CH_MASK(c);
    return view_whatif_changed(vm);
}

static int view_k_step(view_model *vm, double step)
{
    const recall_result *b = view_baseline(vm);
    if (!b) {
        view_message(vm, ROLE_message, "run a query first: what-if changes a recall");
        return H | R;
    }
    double cur = vm->wi.rrf_k >= 0 ? vm->wi.rrf_k : b->rrf_k;
    double k = fmax(0, cur + step);
    vm->wi.rrf_k = fabs(k - b->rrf_k) < 1e-9 ? -1 : k;
    return view_whatif_changed(vm);
}

static int act_WI_K_LESS(view_model *vm)
{
    return view_k_step(vm, -5);
}

static int act_WI_K_MORE(view_model *vm)
{
    return view_k_step(vm, 5);
}

static int act_WI_FLOOR(view_model *vm)
{
    vm->wi.no_floor = !vm->wi.no_floor;
    return view_whatif_changed(vm);
}

static int act_WI_RESET(view_model *vm)
{
    int channel = vm->wi.channel;
    memset(&vm->wi, 0, sizeof vm->wi);
    vm->wi.rrf_k = -1;
    vm->wi.channel = channel;
    view_message(vm, ROLE_message, "what-if reset: back to the baseline");
    return H | R | VIEW_RECALL;
}

/* ---- feedback, edit, delete, undo (view_curate.c) --------------------------------------- */

static int act_RELEVANT(view_model *vm)
{
    return view_feedback_toggle(vm, 1);
}

static int act_IRRELEVANT(view_model *vm)
{
    return view_feedback_toggle(vm, -1);
}

static int act_EDIT(view_model *vm)
{
    return view_edit_begin(vm);
}

static int act_SET(view_model *vm)
{
    return view_set_ask(vm);
}

static int act_DELETE(view_model *vm)
{
    return view_delete_ask(vm);
}

static int act_SUPERSEDES(view_model *vm)
{
    return view_relate_ask(vm, STORE_REL_SUPERSEDES);
}

static int act_CONTRADICTS(view_model *vm)
{
    return view_relate_ask(vm, STORE_REL_CONTRADICTS);
}

static int act_UNDO(view_model *vm)
{
    return view_undo_last(vm);
}

/* ---- browsing (view_list.c, view_pick.c) ---------------------------------------- */

static int view_list_only(view_model *vm)
{
    if (view_listing(vm))
        return 1;
    view_message(vm, ROLE_message,
                 "o, O and t order the listing: clear the query (/ then "
                 "Ctrl-U) to list every memory, or E for an entity's");
    return 0;
}

/* The listing in a new order, the selection back at the top. */
static int view_reorder(view_model *vm)
{
    vm->list.sel = vm->list.top = 0;
    view_list_reset(vm);
    return H | R;
}

static int act_SORT(view_model *vm)
{
    if (!view_list_only(vm))
        return H | R;
    vm->list.o.sort = (vm->list.o.sort + 1) % STORE_SORT_COUNT;
    vm->list.group = VIEW_GROUP_NONE;
    return view_reorder(vm);
}

static int act_SORT_DIR(view_model *vm)
{
    if (!view_list_only(vm))
        return H | R;
    vm->list.o.desc = !vm->list.o.desc;
    return view_reorder(vm);
}

/* Grouping sorts by what it groups: the session, or the day. */
static int act_GROUP(view_model *vm)
{
    if (!view_list_only(vm))
        return H | R;
    vm->list.group = (vm->list.group + 1) % VIEW_GROUP_COUNT;
    if (vm->list.group == VIEW_GROUP_SESSION)
        vm->list.o.sort = STORE_SORT_SESSION;
    else if (vm->list.group == VIEW_GROUP_DAY)
        vm->list.o.sort = STORE_SORT_DATE;
    return view_reorder(vm);
}

static int act_FIND(view_model *vm)
{
    vm->prompting = PROMPT_FIND;
    ledit_set(&vm->prompt, vm->find.text);
    return H | R;
}

static int act_ENTITIES(view_model *vm)
{
    return view_entities_open(vm);
}

static int act_PROFILES(view_model *vm)
{
    return view_profiles_open(vm);
}

/* ---- view ------------------------------------------------------------------------ */

static int act_RANKING(view_model *vm)
{
    vm->show_ranking = !vm->show_ranking;
    return H | R;
}

static int act_REFRESH(view_model *vm)
{
    ms_error err;
    vm->store_changed = 0;
    vm->msg[0] = '\0';
    if (view_model_reload(vm, &err))
        view_message(vm, ROLE_error, "memscope: %s", err.msg);
    return H | R | VIEW_RECALL;
}

static int act_TOUR(view_model *vm)
{
    return vm->tour >= 0 ? tour_stop(vm) : tour_go(vm, 0);
}

static int view_tour_step(view_model *vm, int delta)
{
    if (vm->tour < 0) {
        view_message(vm, ROLE_message, "no tour is running: T starts it");
        return H | R;
    }
    int step = vm->tour + delta;
    if (step < 0 || step >= tour_steps()) {
        view_message(vm, ROLE_message, "%s step of the tour; Esc or T ends it",
                     step < 0 ? "first" : "last");
        return H | R;
    }
    return tour_go(vm, step);
}

static int act_TOUR_NEXT(view_model *vm)
{
    return view_tour_step(vm, 1);
}

static int act_TOUR_PREV(view_model *vm)
{
    return view_tour_step(vm, -1);
}

static int act_HELP(view_model *vm)
{
    vm->help = vm->help ? 0 : VIEW_HELP_KEYS;
    vm->help_top = 0;
    return H | R;
}

static int act_CALIBRATION(view_model *vm)
{
    return view_calib_open(vm);
}

static int act_REDRAW(view_model *vm)
{
    (void)vm;
    return H | R | VIEW_FULL;
}

static int act_SUSPEND(view_model *vm)
{
    (void)vm;
    return H | R | VIEW_FULL | VIEW_SUSPEND;
}

/* q closes the view on screen and quits only from the main screen;
 * Ctrl-C always quits. */
static int act_QUIT(view_model *vm)
{
    const view_ops *v = view_current(vm);
    if (v->close && vm->key != CTRL_KEY('c'))
        return v->close(vm);
    return H | VIEW_QUIT;
}

/* ---- dispatch ------------------------------------------------------------------ */

#define ACTION_HANDLER(id, section, keys, help, ...) [A_##id] = act_##id,
static int (*const handlers[A_COUNT])(view_model *vm) = {ACTIONS(ACTION_HANDLER)};
#undef ACTION_HANDLER

#define ACTION_CASE(id) case A_##id:
int view_action_writes(action_id a)
{
    switch (a) {
        WRITE_ACTIONS(ACTION_CASE)
        return 1;
    default:
        return 0;
    }
}

/* Did key a choose a row with something other than a letter? */
static int view_action_arms(action_id a)
{
    switch (a) {
        ARMING_ACTIONS(ACTION_CASE)
        return 1;
    default:
        return 0;
    }
}
#undef ACTION_CASE

/* A key that writes, before the user chose a row: refused with the reason
 * (typing after Enter must never write). */
static int view_unarmed_write(view_model *vm)
{
    view_message(vm, ROLE_message,
                 "keys that write act on a row you choose: move to it with the arrow keys, "
                 "PgUp/PgDn or the mouse first");
    return H | R;
}

static int view_read_only(view_model *vm)
{
    view_message(vm, ROLE_error,
                 "read-only: this browser does not write (opened with --read-only "
                 "or on a read-only file)");
    return H | R;
}

int view_act(view_model *vm, action_id a)
{
    if ((unsigned)a >= A_COUNT)
        return 0;
    /* the view on screen first: an overlay closes on any key it does not
     * use, and writes nothing */
    const view_ops *v = view_current(vm);
    int f = v->key ? v->key(vm, a) : 0;
    if (f)
        return f;
    if (view_action_writes(a) && store_is_readonly(vm->st))
        return view_read_only(vm);
    if (view_action_writes(a) && !vm->armed)
        return view_unarmed_write(vm);
    f = handlers[a](vm);
    if (view_action_arms(a))
        vm->armed = 1;
    if (vm->focus == FOCUS_QUERY)
        vm->armed = 0;
    return f;
}
