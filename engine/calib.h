/* calib.h - calibration metrics and a Platt-scaling calibrator, with no
 * terminal and no store: numbers in, numbers out.
 *
 * An example is a predicted probability p in [0, 1] and a binary label (1:
 * the event happened). The metrics follow SLM's calibration-report/v1 so the
 * two engines' reports compare: the Brier score, the expected and maximum
 * calibration error over CALIB_BINS equal-width bins ([i/10, (i+1)/10),
 * the last one closed), and selective risk at CALIB_THRESHOLDS thresholds
 * (keep the examples with p >= t; risk = share of them with label 0). Added:
 * the risk-coverage curve of ranking by p and its area (AURC). */
#ifndef MS_CALIB_H
#define MS_CALIB_H

#include <stddef.h>

#define CALIB_BINS 10
#define CALIB_THRESHOLDS 7

/* 0, .5, .6, .7, .8, .9, .95 */
extern const double calib_thresholds[CALIB_THRESHOLDS];

/* p = 1 / (1 + exp(-(a * raw + b))), fitted by Platt's method: Newton's
 * method on the log loss against the smoothed targets (N+ + 1) / (N+ + 2)
 * and 1 / (N- + 2), which keep a separable split from running to infinity. */
typedef struct calib_platt {
    double a, b;
    int iterations; /* Newton steps taken */
    int converged;  /* the gradient fell below 1e-9 per example */
    size_t positives, negatives;
} calib_platt;

/* Fit on n examples (raw score, label). 0, or -1 when n is 0. */
int calib_platt_fit(const double *raw, const int *label, size_t n, calib_platt *out);

/* The calibrated probability of a raw score. */
double calib_platt_apply(const calib_platt *m, double raw);

typedef struct calib_bin {
    double lower, upper; /* [lower, upper); the last bin includes 1 */
    size_t count;
    double mean_p;   /* mean predicted probability (0 when empty) */
    double observed; /* share of label 1 (0 when empty) */
    double gap;      /* |mean_p - observed| */
} calib_bin;

typedef struct calib_selective {
    double threshold;
    size_t retained; /* examples with p >= threshold */
    double coverage; /* retained / n */
    double abstention_rate;
    double risk;      /* share of the retained with label 0 */
    int risk_defined; /* retained > 0 (else risk is 0 and means nothing) */
} calib_selective;

typedef struct calib_point {
    double coverage, risk;
} calib_point;

typedef struct calib_metrics {
    size_t n, positives;
    double brier, ece, mce;
    calib_bin bins[CALIB_BINS];
    calib_selective sel[CALIB_THRESHOLDS];
    /* The risk-coverage curve: examples taken best p first, examples with
     * equal p together; one point after each group. Owned, n_curve points. */
    calib_point *curve;
    size_t n_curve;
    /* Its area: sum over the points of (group size / n) * risk, which is
     * the mean of risk(k) over k = 1..n when no two p are equal. */
    double aurc;
} calib_metrics;

/* Compute every metric of n examples into out. 0, or -1 when n is 0, a p is
 * outside [0, 1] or memory runs out (out is then empty). Free with
 * calib_metrics_free. */
int calib_metrics_compute(const double *p, const int *label, size_t n, calib_metrics *out);
void calib_metrics_free(calib_metrics *m);

/* The operating point of a fixed decision: of n examples, those with
 * retained[i] set are kept; coverage = kept / n, risk = share of the kept
 * with correct[i] == 0 (0 when none is kept). */
calib_point calib_operating_point(const int *retained, const int *correct, size_t n);

/* The area under the ROC curve of raw against label (ties count one half):
 * how well the raw score separates the classes, before any calibration.
 * 0.5 when a class is empty. */
double calib_auc(const double *raw, const int *label, size_t n);

#endif
