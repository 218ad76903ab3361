/* qline.c - editing keys of the query line and prompts. */
#include "tui/browser/qline.h"

#include <curses.h>
#include <string.h>

#include "tui/browser/action.h"

enum { H = VIEW_HANDLED, R = VIEW_REDRAW };

static char qline_saved[ENGINE_QUERY_MAX + 1]; /* the text before Up went into history */
static int qline_in_history;                   /* Up showed a history entry; Down goes back */

static int qline_is_enter(int kind, wint_t ch)
{
    return (kind == OK && (ch == '\n' || ch == '\r')) || (kind == KEY_CODE_YES && ch == KEY_ENTER);
}

static int qline_is_backspace(int kind, wint_t ch)
{
    return (kind == OK && (ch == 127 || ch == 8)) || (kind == KEY_CODE_YES && ch == KEY_BACKSPACE);
}

/* Editing and cursor keys common to every line; 0 when not one. */
static int qline_edit(ledit *e, int kind, wint_t ch)
{
    if (kind == OK && ch >= 0x20 && ch != 127)
        return ledit_insert(e, (wchar_t)ch) == 0 ? H | R | VIEW_DEBOUNCE : H;
    if (qline_is_backspace(kind, ch))
        return ledit_backspace(e) ? H | R | VIEW_DEBOUNCE : H;
    int changed = -1;
    if (kind == OK && ch == CTRL_KEY('w'))
        changed = ledit_kill_word(e);
    else if (kind == OK && ch == CTRL_KEY('u'))
        changed = ledit_kill_start(e);
    else if (kind == OK && ch == CTRL_KEY('k'))
        changed = ledit_kill_end(e);
    else if (kind == KEY_CODE_YES && ch == KEY_DC)
        changed = ledit_delete(e);
    if (changed >= 0)
        return changed ? H | R | VIEW_DEBOUNCE : H;
    return 0;
}

static int qline_cursor(ledit *e, int kind, wint_t ch)
{
    if ((kind == KEY_CODE_YES && ch == KEY_LEFT) || (kind == OK && ch == CTRL_KEY('b')))
        ledit_left(e);
    else if ((kind == KEY_CODE_YES && ch == KEY_RIGHT) || (kind == OK && ch == CTRL_KEY('f')))
        ledit_right(e);
    else if ((kind == KEY_CODE_YES && ch == KEY_HOME) || (kind == OK && ch == CTRL_KEY('a')))
        ledit_home(e);
    else if ((kind == KEY_CODE_YES && ch == KEY_END) || (kind == OK && ch == CTRL_KEY('e')))
        ledit_end(e);
    else if (kind == KEY_CODE_YES && ch == KEY_SLEFT)
        ledit_word_left(e);
    else if (kind == KEY_CODE_YES && ch == KEY_SRIGHT)
        ledit_word_right(e);
    else
        return 0;
    return H | R;
}

static int qline_history(view_model *vm, hist *h, int older)
{
    const char *s;
    if (older) {
        char now[ENGINE_QUERY_MAX + 1];
        ledit_get(&vm->query, now, sizeof now);
        if (!(s = hist_older(h)))
            return H;
        if (!qline_in_history)
            snprintf(qline_saved, sizeof qline_saved, "%s", now);
        qline_in_history = 1;
    } else if (!qline_in_history) {
        return H; /* Down at the newest entry keeps the line */
    } else if (!(s = hist_newer(h))) {
        s = qline_saved;
        qline_in_history = 0;
    }
    view_set_query(vm, s);
    return H | R | VIEW_DEBOUNCE;
}

/* ---- prompts --------------------------------------------------------------- */

/* The pin and find prompts, the supersedes / contradicts prompts ("ID
 * reason") and the inline edit's field and value. */
static int qline_pin_prompt(view_model *vm, int kind, wint_t ch)
{
    if (qline_is_enter(kind, ch) &&
        (vm->prompting == PROMPT_SUPERSEDES || vm->prompting == PROMPT_CONTRADICTS ||
         vm->prompting == PROMPT_FIELD || vm->prompting == PROMPT_VALUE)) {
        char text[ENGINE_QUERY_MAX + 1];
        ledit_get(&vm->prompt, text, sizeof text);
        return vm->prompting == PROMPT_FIELD   ? view_set_field(vm, text)
               : vm->prompting == PROMPT_VALUE ? view_set_value(vm, text)
                                               : view_relate_answer(vm, text);
    }
    if (qline_is_enter(kind, ch)) {
        char id[STORE_ID_MAX + 1];
        ledit_get(&vm->prompt, id, sizeof id);
        if (vm->prompting == PROMPT_FIND) {
            vm->prompting = PROMPT_NONE;
            return view_find_set(vm, id);
        }
        vm->prompting = PROMPT_NONE;
        if (!id[0] && !vm->pinned[0])
            return H | R;
        return view_pin(vm, id); /* an empty line unpins */
    }
    if (kind == OK && ch == 27) {
        vm->prompting = PROMPT_NONE;
        return H | R;
    }
    int f = qline_edit(&vm->prompt, kind, ch);
    if (!f)
        f = qline_cursor(&vm->prompt, kind, ch);
    return f ? (f & ~VIEW_DEBOUNCE) : (kind == OK && ch == CTRL_KEY('c') ? 0 : H);
}

static void qline_search(view_model *vm, hist *h, int again)
{
    char needle[ENGINE_QUERY_MAX + 1];
    ledit_get(&vm->prompt, needle, sizeof needle);
    const char *s = needle[0] ? hist_search(h, needle, again) : NULL;
    if (s)
        snprintf(vm->search_match, sizeof vm->search_match, "%s", s);
    else if (needle[0])
        view_message(vm, ROLE_message, "no older history entry holds that text");
}

static int qline_search_prompt(view_model *vm, hist *h, int kind, wint_t ch)
{
    if (kind == OK && (ch == 27 || ch == CTRL_KEY('g'))) {
        vm->prompting = PROMPT_NONE;
        hist_rewind(h);
        return H | R;
    }
    if (kind == OK && ch == CTRL_KEY('r')) {
        qline_search(vm, h, 1);
        return H | R;
    }
    int f = qline_edit(&vm->prompt, kind, ch);
    if (f & VIEW_DEBOUNCE) {
        hist_rewind(h);
        vm->search_match[0] = '\0';
        qline_search(vm, h, 0);
    }
    if (f)
        return f & ~VIEW_DEBOUNCE;
    if (qline_is_enter(kind, ch) || kind == KEY_CODE_YES) {
        vm->prompting = PROMPT_NONE;
        if (vm->search_match[0])
            view_set_query(vm, vm->search_match);
        hist_rewind(h);
        if (qline_is_enter(kind, ch)) {
            vm->focus = FOCUS_RESULTS;
            vm->armed = 0;
        }
        return H | R | VIEW_RECALL;
    }
    return kind == OK && ch == CTRL_KEY('c') ? 0 : H;
}

/* ---- the query line ------------------------------------------------------------ */

/* A key or a paste that the full line cannot take: said, not dropped silently. */
static void qline_full(view_model *vm)
{
    view_message(vm, ROLE_message,
                 "the query is at its limit of %d characters: the rest was not taken", LEDIT_MAX);
}

static int qline_query(view_model *vm, hist *h, int kind, wint_t ch)
{
    if (qline_is_enter(kind, ch)) {
        char q[ENGINE_QUERY_MAX + 1];
        ledit_get(&vm->query, q, sizeof q);
        hist_add(h, q);
        qline_saved[0] = '\0';
        qline_in_history = 0;
        vm->focus = FOCUS_RESULTS;
        vm->armed = 0;
        return H | R | VIEW_RECALL;
    }
    if (kind == KEY_CODE_YES && (ch == KEY_UP || ch == KEY_DOWN))
        return qline_history(vm, h, ch == KEY_UP);
    if (kind == OK && ch == CTRL_KEY('r')) {
        vm->prompting = PROMPT_SEARCH;
        ledit_clear(&vm->prompt);
        vm->search_match[0] = '\0';
        hist_rewind(h);
        return H | R;
    }
    if (kind == OK && ch == '/' && vm->query.len == 0)
        return H; /* the key that goes to the query line, typed on it: no text */
    if (kind == OK && ch >= 0x20 && ch != 127 && ledit_full(&vm->query))
        qline_full(vm);
    int f = qline_edit(&vm->query, kind, ch);
    if (f & VIEW_DEBOUNCE) {
        vm->tour = -1; /* a new question: the tour's caption no longer applies */
        vm->caption[0] = '\0';
    }
    return f ? f : qline_cursor(&vm->query, kind, ch);
}

/* ---- bracketed paste ------------------------------------------------------------ */

int qline_paste_begin(view_model *vm)
{
    vm->help = 0;
    if (vm->prompting == PROMPT_CONFIRM)
        view_delete_answer(vm, 0); /* a paste never confirms */
    if (vm->prompting)
        return H | R;
    while (vm->det.open)
        view_detail_close(vm);
    vm->focus = FOCUS_QUERY;
    vm->armed = 0;
    return H | R;
}

int qline_paste(view_model *vm, int kind, wint_t ch)
{
    if (kind != OK)
        return H;
    if (ch == '\n' || ch == '\r' || ch == '\t')
        ch = ' ';
    if (ch < 0x20 || ch == 127)
        return H;
    ledit *e = vm->prompting ? &vm->prompt : &vm->query;
    if (ledit_insert(e, (wchar_t)ch)) {
        if (ledit_full(e))
            qline_full(vm);
        return H | R;
    }
    if (vm->prompting)
        return H | R;
    vm->tour = -1; /* a new question: the tour's caption no longer applies */
    vm->caption[0] = '\0';
    return H | R | VIEW_DEBOUNCE;
}

/* A confirmation takes one key: y (typed, never pasted) says yes. */
static int qline_confirm_prompt(view_model *vm, int kind, wint_t ch)
{
    if (kind == KEY_CODE_YES && ch == KEY_RESIZE)
        return 0;
    return view_delete_answer(vm, kind == OK && (ch == 'y' || ch == 'Y'));
}

int qline_key(view_model *vm, hist *h, int kind, wint_t ch)
{
    if (vm->prompting == PROMPT_CONFIRM)
        return qline_confirm_prompt(vm, kind, ch);
    if (vm->prompting == PROMPT_PIN || vm->prompting == PROMPT_FIND ||
        vm->prompting == PROMPT_SUPERSEDES || vm->prompting == PROMPT_CONTRADICTS ||
        vm->prompting == PROMPT_FIELD || vm->prompting == PROMPT_VALUE)
        return qline_pin_prompt(vm, kind, ch);
    if (vm->prompting == PROMPT_SEARCH)
        return qline_search_prompt(vm, h, kind, ch);
    return qline_query(vm, h, kind, ch);
}
