/* view_calib.c - the browser's calibration overlay: the report saved beside
 * the store (calreport.h), checked against the store and the default
 * configuration when the overlay opens, and drawn as `calibrate --plot`
 * draws it (calplot.h). */
#include "tui/browser/view_layout.h"

#include <stdlib.h>
#include <string.h>

#include "tui/present/calplot.h"
#include "tui/present/calreport.h"

void view_calib_free(view_model *vm)
{
    if (vm->calib)
        calreport_status_free(vm->calib);
    free(vm->calib);
    vm->calib = NULL;
}

int view_calib_open(view_model *vm)
{
    view_calib_free(vm);
    recall_opts ro;
    recall_opts_init(&ro);
    char *config_text = engine_config_text(vm->eng, &ro);
    calreport_status *cal = calloc(1, sizeof *cal);
    ms_error err;
    ms_error_clear(&err);
    if (!config_text || !cal || calreport_check(vm->st, vm->db_path, config_text, cal, &err)) {
        view_message(vm, ROLE_error, "calibration: %s", err.msg[0] ? err.msg : "out of memory");
        free(config_text);
        if (cal)
            calreport_status_free(cal);
        free(cal);
        return 0;
    }
    free(config_text);
    vm->calib = cal;
    vm->help = VIEW_HELP_CALIBRATION;
    vm->help_top = 0;
    return VIEW_HANDLED | VIEW_REDRAW;
}

typedef struct calib_wrap {
    vrow *out;
    int max, *n, role;
} calib_wrap;

static void calib_piece(void *p, const char *raw, size_t len)
{
    calib_wrap *w = p;
    if (*w->n >= w->max)
        return;
    vrow_stored(&w->out[*w->n], w->role, " ", 1);
    vrow_stored(&w->out[(*w->n)++], w->role, raw, len);
}

/* Add text (ours, or holding a path: escaped) in role, wrapped to the
 * rows' width with a one-column margin. */
static void calib_line(vrow *out, int max, int *n, int role, const char *text)
{
    calib_wrap w = {out, max, n, role};
    if (*n < max)
        vfmt_wrap(text, out[*n].max - 2, calib_piece, &w);
}

static void calib_status(const calreport_status *cal, vrow *out, int max, int *n)
{
    char line[2048];
    calib_line(out, max, n, ROLE_help_key, "Calibration report");
    if (!cal->exists || !cal->valid) {
        snprintf(line, sizeof line, "No usable report at %s%s%s.", cal->path,
                 cal->why[0] ? ": " : "", cal->why);
        calib_line(out, max, n, ROLE_help, line);
        calib_line(out, max, n, ROLE_help,
                   "memscope calibrate --db FIT --queries Q --eval --db HELD --queries Q2 "
                   "saves one (docs/CALIBRATION.md).");
    } else {
        calib_line(out, max, n, ROLE_help, cal->path);
        calib_line(out, max, n, cal->stale ? ROLE_error : ROLE_help,
                   cal->stale ? "STALE, because:" : "current for this store and configuration");
        for (const char *p = cal->why, *e; cal->stale && *p; p = *e ? e + 2 : e) {
            e = strstr(p, "; ");
            e = e ? e : p + strlen(p);
            snprintf(line, sizeof line, "- %.*s", (int)(e - p), p);
            calib_line(out, max, n, ROLE_error, line);
        }
        char sum[512];
        calreport_summary(cal->report, sum, sizeof sum);
        calib_line(out, max, n, ROLE_help, sum);
    }
    calib_line(out, max, n, ROLE_help,
               "Runtime: uncalibrated; answer_confidence stays null. Any key closes.");
}

int view_calib_lines(const view_model *vm, vrow *out, int max, int cols)
{
    int n = 0;
    if (!vm->calib)
        return 0;
    calib_status(vm->calib, out, max, &n);
    char *pic = vm->calib->report ? calplot_text(vm->calib->report, cols - 2, 1) : NULL;
    for (char *p = pic, *nl; p && *p && n < max; p = nl + 1) {
        nl = strchr(p, '\n');
        if (!nl)
            break;
        vrow_stored(&out[n], ROLE_help, " ", 1);
        vrow_stored(&out[n++], ROLE_help, p, (size_t)(nl - p));
    }
    free(pic);
    return n;
}
