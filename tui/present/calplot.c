/* calplot.c - a character grid for each of the two plots (calplot.h). */
#include "tui/present/calplot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLOT_H 11     /* rows: y = 1.0 at the top to 0.0 at the bottom */
#define PLOT_W_MAX 51 /* columns of the plotting area */

typedef struct canvas {
    int w;
    char cell[PLOT_H][PLOT_W_MAX + 1];
} canvas;

static void canvas_init(canvas *cv, int w)
{
    cv->w = w;
    for (int r = 0; r < PLOT_H; r++) {
        memset(cv->cell[r], ' ', (size_t)w);
        cv->cell[r][w] = '\0';
    }
}

/* Put ch at (x, y) in [0, 1] x [0, 1]; y is clamped. */
static void canvas_put(canvas *cv, double x, double y, char ch)
{
    y = y < 0 ? 0 : y > 1 ? 1 : y;
    int col = (int)(x * (cv->w - 1) + 0.5), row = PLOT_H - 1 - (int)(y * (PLOT_H - 1) + 0.5);
    if (col >= 0 && col < cv->w)
        cv->cell[row][col] = ch;
}

static void canvas_print(const canvas *cv, FILE *f, const char *xlabel)
{
    for (int r = 0; r < PLOT_H; r++) {
        double y = 1.0 - (double)r / (PLOT_H - 1);
        if (r % 5 == 0)
            fprintf(f, " %3.1f |%s\n", y, cv->cell[r]);
        else
            fprintf(f, "     |%s\n", cv->cell[r]);
    }
    fprintf(f, "     +");
    for (int c = 0; c < cv->w; c++)
        fputc(c % ((cv->w - 1) / 4) == 0 ? '+' : '-', f);
    fprintf(f, "\n     0%*s%*s\n", (cv->w - 1) / 2 + 2, "0.5", (cv->w - 1) / 2 - 1, "1");
    fprintf(f, "     %s\n", xlabel);
}

static double plot_num(const cJSON *o, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(x) ? x->valuedouble : -1;
}

static void reliability(const cJSON *m, int w, FILE *f)
{
    canvas cv;
    canvas_init(&cv, w);
    for (int c = 0; c < w; c++)
        canvas_put(&cv, (double)c / (w - 1), (double)c / (w - 1), '.');
    const cJSON *b;
    cJSON_ArrayForEach(
        b, cJSON_GetObjectItemCaseSensitive(m, "reliability_bins")) if (plot_num(b, "count") > 0)
        canvas_put(&cv, plot_num(b, "mean_probability"), plot_num(b, "observed_accuracy"), 'o');
    fprintf(f, "Reliability: observed share (o) against predicted probability; '.' is perfect\n");
    canvas_print(&cv, f, "predicted probability that the top result is evidence");
    fprintf(f, "     bins:");
    cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(m, "reliability_bins"))
        fprintf(f, " %.0f", plot_num(b, "count"));
    fprintf(f, " examples\n");
}

/* The curve as a step function: at each column, the risk of the last
 * point at or before its coverage. */
static void risk_coverage(const cJSON *m, int w, FILE *f)
{
    canvas cv;
    canvas_init(&cv, w);
    const cJSON *curve = cJSON_GetObjectItemCaseSensitive(m, "risk_coverage_curve");
    int n = cJSON_GetArraySize(curve), k = 0;
    double risk = -1;
    for (int c = 0; c < w; c++) {
        double x = (double)c / (w - 1);
        for (; k < n; k++) {
            const cJSON *pt = cJSON_GetArrayItem(curve, k);
            double cov = cJSON_GetArrayItem(pt, 0)->valuedouble;
            if (cov > x + 1e-9)
                break;
            risk = cJSON_GetArrayItem(pt, 1)->valuedouble;
        }
        if (risk >= 0)
            canvas_put(&cv, x, risk, '*');
    }
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(m, "floor_operating_point");
    canvas_put(&cv, plot_num(op, "coverage"), plot_num(op, "selective_risk"), 'F');
    fprintf(f, "Risk-coverage: risk (*) when keeping the most confident share; F = the floor\n");
    canvas_print(&cv, f, "coverage (share of questions answered)");
    fprintf(f, "     AURC %.3f; F: the floor keeps %.1f %% at risk %.3f (cosine %.2f)\n",
            plot_num(m, "aurc"), 100 * plot_num(op, "coverage"), plot_num(op, "selective_risk"),
            plot_num(op, "cosine_threshold"));
}

char *calplot_text(const cJSON *report, int cols, int with_title)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(report, "metrics");
    if (!cJSON_IsObject(m))
        return NULL;
    int w = cols - 8;
    w = w > PLOT_W_MAX ? PLOT_W_MAX : w < 32 ? 32 : w;
    w = (w - 1) / 4 * 4 + 1; /* ticks at 0, .25, .5, .75, 1 */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    if (with_title)
        fprintf(f, "\n");
    reliability(m, w, f);
    fprintf(f, "\n");
    risk_coverage(m, w, f);
    if (fclose(f)) {
        free(text);
        return NULL;
    }
    return text;
}
