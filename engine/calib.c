/* calib.c - Platt scaling, reliability bins, selective risk and the
 * risk-coverage curve (see calib.h for the definitions). */
#include "calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const double calib_thresholds[CALIB_THRESHOLDS] = {0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95};

/* log(1 + exp(x)) without overflow. */
static double softplus(double x)
{
    return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
}

static double sigmoid(double x)
{
    return x >= 0 ? 1 / (1 + exp(-x)) : exp(x) / (1 + exp(x));
}

typedef struct platt_data {
    const double *raw;
    const double *t; /* the smoothed targets */
    size_t n;
} platt_data;

/* The log loss at (a, b): sum t * softplus(-f) + (1 - t) * softplus(f). */
static double platt_loss(const platt_data *d, double a, double b)
{
    double l = 0;
    for (size_t i = 0; i < d->n; i++) {
        double f = a * d->raw[i] + b;
        l += d->t[i] * softplus(-f) + (1 - d->t[i]) * softplus(f);
    }
    return l;
}

/* One Newton step with a halving line search. Returns 1 when converged. */
static int platt_step(const platt_data *d, double *a, double *b)
{
    double ga = 0, gb = 0, haa = 1e-12, hab = 0, hbb = 1e-12;
    for (size_t i = 0; i < d->n; i++) {
        double p = sigmoid(*a * d->raw[i] + *b), w = p * (1 - p), r = p - d->t[i];
        ga += r * d->raw[i];
        gb += r;
        haa += w * d->raw[i] * d->raw[i];
        hab += w * d->raw[i];
        hbb += w;
    }
    if (fabs(ga) + fabs(gb) < 1e-9 * (double)d->n)
        return 1;
    double det = haa * hbb - hab * hab;
    if (det <= 0)
        return 1;
    double da = -(hbb * ga - hab * gb) / det, db = -(haa * gb - hab * ga) / det;
    double l0 = platt_loss(d, *a, *b);
    for (double step = 1; step > 1e-10; step /= 2)
        if (platt_loss(d, *a + step * da, *b + step * db) <
            l0 + 1e-4 * step * (ga * da + gb * db)) {
            *a += step * da;
            *b += step * db;
            return 0;
        }
    return 1; /* no step lowers the loss: at the minimum within precision */
}

int calib_platt_fit(const double *raw, const int *label, size_t n, calib_platt *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return -1;
    double *t = malloc(n * sizeof *t);
    if (!t)
        return -1;
    for (size_t i = 0; i < n; i++)
        label[i] ? out->positives++ : out->negatives++;
    double hi = (out->positives + 1.0) / (out->positives + 2.0), lo = 1.0 / (out->negatives + 2.0);
    for (size_t i = 0; i < n; i++)
        t[i] = label[i] ? hi : lo;
    platt_data d = {raw, t, n};
    double a = 0, b = log((out->positives + 1.0) / (out->negatives + 1.0));
    while (out->iterations < 100 && !out->converged) {
        out->converged = platt_step(&d, &a, &b);
        out->iterations += !out->converged;
    }
    out->a = a;
    out->b = b;
    free(t);
    return 0;
}

double calib_platt_apply(const calib_platt *m, double raw)
{
    return sigmoid(m->a * raw + m->b);
}

static void calib_bins(const double *p, const int *label, size_t n, calib_metrics *m)
{
    for (int k = 0; k < CALIB_BINS; k++) {
        calib_bin *bin = &m->bins[k];
        bin->lower = (double)k / CALIB_BINS;
        bin->upper = (double)(k + 1) / CALIB_BINS;
        double sp = 0, sy = 0;
        for (size_t i = 0; i < n; i++)
            if (p[i] >= bin->lower && (p[i] < bin->upper || k == CALIB_BINS - 1)) {
                bin->count++;
                sp += p[i];
                sy += label[i] != 0;
            }
        if (!bin->count)
            continue;
        bin->mean_p = sp / (double)bin->count;
        bin->observed = sy / (double)bin->count;
        bin->gap = fabs(bin->mean_p - bin->observed);
        m->ece += (double)bin->count / (double)n * bin->gap;
        if (bin->gap > m->mce)
            m->mce = bin->gap;
    }
}

static void calib_selective_all(const double *p, const int *label, size_t n, calib_metrics *m)
{
    for (int k = 0; k < CALIB_THRESHOLDS; k++) {
        calib_selective *s = &m->sel[k];
        size_t wrong = 0;
        s->threshold = calib_thresholds[k];
        for (size_t i = 0; i < n; i++)
            if (p[i] >= s->threshold) {
                s->retained++;
                wrong += label[i] == 0;
            }
        s->coverage = (double)s->retained / (double)n;
        s->abstention_rate = 1 - s->coverage;
        s->risk_defined = s->retained > 0;
        s->risk = s->retained ? (double)wrong / (double)s->retained : 0;
    }
}

typedef struct calib_pair {
    double p;
    int label;
} calib_pair;

static int by_p_desc(const void *x, const void *y)
{
    double a = ((const calib_pair *)x)->p, b = ((const calib_pair *)y)->p;
    return (a < b) - (a > b);
}

static int calib_curve(const double *p, const int *label, size_t n, calib_metrics *m)
{
    calib_pair *v = malloc(n * sizeof *v);
    m->curve = malloc(n * sizeof *m->curve);
    if (!v || !m->curve) {
        free(v);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = (calib_pair){p[i], label[i] != 0};
    qsort(v, n, sizeof *v, by_p_desc);
    size_t wrong = 0;
    for (size_t i = 0, start = 0; i < n; i++) {
        wrong += v[i].label == 0;
        if (i + 1 < n && v[i + 1].p == v[i].p)
            continue; /* the group of equal p is taken whole */
        double risk = (double)wrong / (double)(i + 1);
        m->curve[m->n_curve++] = (calib_point){(double)(i + 1) / (double)n, risk};
        m->aurc += (double)(i + 1 - start) / (double)n * risk;
        start = i + 1;
    }
    free(v);
    return 0;
}

int calib_metrics_compute(const double *p, const int *label, size_t n, calib_metrics *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (!(p[i] >= 0 && p[i] <= 1))
            return -1;
        double y = label[i] != 0;
        out->brier += (p[i] - y) * (p[i] - y);
        out->positives += label[i] != 0;
    }
    out->n = n;
    out->brier /= (double)n;
    calib_bins(p, label, n, out);
    calib_selective_all(p, label, n, out);
    if (calib_curve(p, label, n, out)) {
        calib_metrics_free(out);
        return -1;
    }
    return 0;
}

void calib_metrics_free(calib_metrics *m)
{
    free(m->curve);
    memset(m, 0, sizeof *m);
}

calib_point calib_operating_point(const int *retained, const int *correct, size_t n)
{
    size_t kept = 0, wrong = 0;
    for (size_t i = 0; i < n; i++)
        if (retained[i]) {
            kept++;
            wrong += !correct[i];
        }
    return (calib_point){n ? (double)kept / (double)n : 0, kept ? (double)wrong / (double)kept : 0};
}

double calib_auc(const double *raw, const int *label, size_t n)
{
    double wins = 0;
    size_t pos = 0, neg = 0;
    for (size_t i = 0; i < n; i++) {
        if (!label[i])
            continue;
        pos++;
        for (size_t j = 0; j < n; j++)
            if (!label[j])
                wins += raw[i] > raw[j] ? 1 : raw[i] == raw[j] ? 0.5 : 0;
    }
    neg = n - pos;
    return pos && neg ? wins / ((double)pos * (double)neg) : 0.5;
}
