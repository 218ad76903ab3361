/* jsonnum-test.c - response_number (engine/response.c) writes a number as
 * cJSON_Print does ("%d" for a whole number in int's range, else "%1.15g"
 * when sscanf reads it back within DBL_EPSILON, else "%1.17g"), compared
 * with the cJSON this is linked with, text for text:
 *   - 200,000 numbers of each of seven kinds: uniform in [0, 1), the
 *     fusion's w / (k + rank) (and a thousandth of it: exponents), short
 *     decimals, any magnitude from 1e-7 to
 *     1e17 with either sign, ties and near ties of the 15th and 17th digit,
 *     near powers of ten, and random bit patterns (denormals, infinities,
 *     NaNs);
 *   - where it declines (returns 0), cJSON prints the number itself; it
 *     takes most of the kinds a recall writes (scores, fusion terms, short
 *     decimals).
 * Links libcore and cJSON. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_int.h"
#include "tests/tap.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double unit(void)
{
    return (double)(next() >> 11) / 9007199254740992.0;
}

static double kind_uniform(void)
{
    return unit();
}

static double kind_fusion(void)
{
    static const double w[] = {1.0, 0.35, 0.6, 1.2, 0.15, 2.0 / 3.0};
    return w[next() % 6] / (60.0 + (double)(1 + next() % 5000)) / (next() % 4 ? 1.0 : 1e3);
}

static double kind_decimal(void)
{
    double v = (double)(next() % 100000000) / pow(10.0, (double)(next() % 12));
    return next() % 2 ? -v : v;
}

static double kind_magnitude(void)
{
    double v = pow(10.0, -7.0 + 24.0 * unit()) * (next() % 2 ? -1 : 1);
    return v;
}

/* Decimals whose 16th or 18th significant digit is a 5, and neighbours. */
static double kind_tie(void)
{
    int digits = next() % 2 ? 16 : 18;
    double v = (double)(next() % 900000000000000ull + 100000000000000ull);
    v = (v * 10.0 + 5.0) / pow(10.0, (double)(next() % (unsigned)digits));
    switch (next() % 3) {
    case 0:
        return v;
    case 1:
        return nextafter(v, INFINITY);
    default:
        return nextafter(v, 0.0);
    }
}

static double kind_power(void)
{
    double v = pow(10.0, (double)((int)(next() % 22) - 5));
    for (int k = (int)(next() % 4); k > 0; k--)
        v = nextafter(v, next() % 2 ? INFINITY : 0.0);
    return v;
}

static double kind_bits(void)
{
    uint64_t b = next();
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

int main(void)
{
    static const struct {
        const char *name;
        double (*make)(void);
        int most; /* response_number must write most of them itself */
    } kinds[] = {
        {"uniform in [0, 1)", kind_uniform, 1}, {"w / (k + rank)", kind_fusion, 1},
        {"short decimals", kind_decimal, 1},    {"any magnitude", kind_magnitude, 0},
        {"ties and near ties", kind_tie, 0},    {"near powers of ten", kind_power, 0},
        {"random bits", kind_bits, 0},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        int n = 200000, differ = 0, written = 0;
        for (int i = 0; i < n; i++) {
            double d = kinds[k].make();
            char got[32];
            if (!response_number(d, got))
                continue;
            written++;
            cJSON *num = cJSON_CreateNumber(d);
            char *want = num ? cJSON_PrintUnformatted(num) : NULL;
            if (!want || strcmp(got, want) != 0) {
                if (differ++ < 5)
                    diag("%.17g: \"%s\", cJSON \"%s\"", d, got, want ? want : "(none)");
            }
            free(want);
            cJSON_Delete(num);
        }
        ok(differ == 0 && written > (kinds[k].most ? n * 9 / 10 : 0),
           "%s: the %d of %d that response_number writes are cJSON's text (%d differ)",
           kinds[k].name, written, n, differ);
    }
    return done_testing();
}
