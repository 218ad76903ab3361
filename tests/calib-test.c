/* calib-test.c - engine/calib and engine/digest (SHA-256): every metric of the
 * calibration report computed by hand on small fixtures (Brier, ECE, MCE,
 * the ten bins, selective risk at the seven thresholds, the risk-coverage
 * curve and its area, with and without ties), a Platt fit whose optimum is
 * known in closed form, the AUC, and SHA-256 against the FIPS 180-4
 * examples. Links only engine/calib.c and engine/digest.c, no terminal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/calib.h"
#include "engine/digest.h"
#include "tests/tap.h"

#define EPS 1e-12

/* p = .9 .8 .7 .3 .2, labels 1 1 0 1 0 (worked in the comments). */
static void test_metrics(void)
{
    const double p[] = {0.9, 0.8, 0.7, 0.3, 0.2};
    const int y[] = {1, 1, 0, 1, 0};
    calib_metrics m;
    ok(calib_metrics_compute(p, y, 5, &m) == 0, "metrics of five examples");
    is_int(m.n, 5, "example count");
    is_int(m.positives, 3, "three positives");
    /* (.01 + .04 + .49 + .49 + .04) / 5 */
    is_near(m.brier, 0.214, EPS, "Brier score 1.07 / 5");
    /* one example per bin 2, 3, 7, 8, 9; gaps .2 .7 .7 .2 .1 */
    is_near(m.ece, 1.9 / 5, EPS, "ECE: mean gap 1.9 / 5");
    is_near(m.mce, 0.7, EPS, "MCE: the largest gap, .7");
    const int counts[CALIB_BINS] = {0, 0, 1, 1, 0, 0, 0, 1, 1, 1};
    int same = 1;
    for (int k = 0; k < CALIB_BINS; k++)
        same &= m.bins[k].count == (size_t)counts[k];
    ok(same, "bin counts 0 0 1 1 0 0 0 1 1 1 (.3 in [.3, .4), .7 in [.7, .8))");
    is_near(m.bins[7].mean_p, 0.7, EPS, "bin 7 mean probability");
    is_near(m.bins[7].observed, 0, EPS, "bin 7 observed accuracy");
    is_near(m.bins[3].gap, 0.7, EPS, "bin 3 gap |.3 - 1|");
    is_near(m.bins[9].upper, 1.0, EPS, "the last bin ends at 1");
    /* thresholds 0 .5 .6 .7 .8 .9 .95: kept 5 3 3 3 2 1 0 */
    const int kept[CALIB_THRESHOLDS] = {5, 3, 3, 3, 2, 1, 0};
    same = 1;
    for (int k = 0; k < CALIB_THRESHOLDS; k++)
        same &= m.sel[k].retained == (size_t)kept[k];
    ok(same, "retained 5 3 3 3 2 1 0 (p >= t keeps .7 at t = .7)");
    is_near(m.sel[0].risk, 0.4, EPS, "risk at 0: 2 wrong of 5");
    is_near(m.sel[1].risk, 1.0 / 3, EPS, "risk at .5: 1 wrong of 3");
    is_near(m.sel[1].coverage, 0.6, EPS, "coverage at .5");
    is_near(m.sel[1].abstention_rate, 0.4, EPS, "abstention at .5");
    is_near(m.sel[4].risk, 0, EPS, "risk at .8: none wrong");
    ok(!m.sel[6].risk_defined && m.sel[6].coverage == 0, "at .95 nothing is kept: risk undefined");
    /* risk(k) = 0, 0, 1/3, 1/4, 2/5 */
    is_int(m.n_curve, 5, "five points on the curve");
    is_near(m.curve[2].risk, 1.0 / 3, EPS, "curve at coverage .6");
    is_near(m.curve[4].coverage, 1, EPS, "the curve ends at full coverage");
    is_near(m.aurc, (1.0 / 3 + 0.25 + 0.4) / 5, EPS, "AURC = mean of risk(k)");
    calib_metrics_free(&m);
}

static void test_ties(void)
{
    const double p[] = {0.5, 0.5, 1.0, 0.0};
    const int y[] = {1, 0, 1, 0};
    calib_metrics m;
    ok(calib_metrics_compute(p, y, 4, &m) == 0, "metrics with ties");
    is_int(m.n_curve, 3, "equal p is one step of the curve");
    /* 1.0 (right) then both .5 (one wrong) then 0 (wrong): risks 0, 1/3, 1/2 */
    is_near(m.curve[1].risk, 1.0 / 3, EPS, "the tied pair enters together");
    is_near(m.aurc, 0.25 * 0 + 0.5 * (1.0 / 3) + 0.25 * 0.5, EPS, "AURC weighs each step");
    is_int(m.bins[9].count, 1, "p = 1 falls in the last bin");
    is_int(m.bins[0].count, 1, "p = 0 falls in the first bin");
    is_near(m.bins[5].gap, 0, EPS, "bin 5: mean .5, observed .5");
    is_near(m.brier, (0.25 + 0.25) / 4, EPS, "Brier with exact extremes");
    is_near(m.ece, 0, EPS, "perfectly calibrated bins: ECE 0");
    calib_metrics_free(&m);

    const double bad[] = {1.5};
    const int one[] = {1};
    ok(calib_metrics_compute(bad, one, 1, &m) == -1, "a probability above 1 is refused");
    ok(calib_metrics_compute(p, y, 0, &m) == -1, "no examples is refused");
}

/* raw 0: 1 of 4 positive; raw 1: 3 of 4. Targets 5/6 and 1/6, so the
 * group means are 1/3 and 2/3: b = log(1/2), a + b = log 2. */
static void test_platt(void)
{
    const double raw[] = {0, 0, 0, 0, 1, 1, 1, 1};
    const int y[] = {1, 0, 0, 0, 1, 1, 1, 0};
    calib_platt c;
    ok(calib_platt_fit(raw, y, 8, &c) == 0, "Platt fit");
    ok(c.converged, "converged in %d steps", c.iterations);
    is_near(c.b, log(0.5), 1e-7, "b = log(1/2)");
    is_near(c.a, 2 * log(2.0), 1e-7, "a = 2 log 2");
    is_near(calib_platt_apply(&c, 0), 1.0 / 3, 1e-7, "p(0) = 1/3");
    is_near(calib_platt_apply(&c, 1), 2.0 / 3, 1e-7, "p(1) = 2/3");
    is_int(c.positives, 4, "positives counted");

    const double sep[] = {0.1, 0.2, 0.8, 0.9};
    const int ys[] = {0, 0, 1, 1};
    ok(calib_platt_fit(sep, ys, 4, &c) == 0 && c.a > 0, "a separable split fits, increasing");
    double p_hi = calib_platt_apply(&c, 0.9);
    ok(p_hi < 1 && p_hi > 0.5, "smoothed targets keep p below 1 (%.4f)", p_hi);
    ok(calib_platt_fit(sep, ys, 0, &c) == -1, "no examples: no fit");
}

static void test_auc(void)
{
    const double raw[] = {0.9, 0.4, 0.4, 0.1};
    const int y[] = {1, 1, 0, 0};
    /* pairs (pos, neg): .9>.4 .9>.1 .4=.4 (half) .4>.1 -> 3.5 / 4 */
    is_near(calib_auc(raw, y, 4), 3.5 / 4, EPS, "AUC with a tie");
    is_near(calib_auc(raw, y, 1), 0.5, EPS, "one class only: 0.5");
    const int retained[] = {1, 1, 0, 1}, correct[] = {1, 0, 1, 1};
    calib_point op = calib_operating_point(retained, correct, 4);
    is_near(op.coverage, 0.75, EPS, "operating point coverage");
    is_near(op.risk, 1.0 / 3, EPS, "operating point risk");
}

static const char *hex_of(const char *s, size_t repeat)
{
    static char hex[DIGEST_HEX];
    digest c;
    digest_init(&c);
    for (size_t i = 0; i < repeat; i++)
        digest_update(&c, s, strlen(s));
    digest_hex(&c, hex);
    return hex;
}

static void test_sha256(void)
{
    is_str(hex_of("", 1), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
           "sha256 of nothing");
    is_str(hex_of("abc", 1), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
           "sha256 abc");
    is_str(hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1),
           "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
           "sha256 of 448 bits (two blocks of padding)");
    is_str(hex_of("aaaaaaaaaa", 100000),
           "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
           "sha256 of a million a, fed 10 bytes at a time");
}

int main(void)
{
    test_metrics();
    test_ties();
    test_platt();
    test_auc();
    test_sha256();
    return done_testing();
}
