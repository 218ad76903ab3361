/* tap.h - a tiny Test Anything Protocol producer for prove.
 *
 *   ok(x == 1, "x is one"); is_int(a, b, "..."); return done_testing();
 */
#ifndef MS_TAP_H
#define MS_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_run, tap_failed;

static inline int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    tap_run++;
    printf("%sok %d - ", cond ? "" : "not ", tap_run);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    if (!cond) {
        tap_failed++;
        printf("#   Failed test at %s line %d\n", file, line);
    }
    fflush(stdout);
    return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

#define is_int(got, want, ...)                                                                     \
    do {                                                                                           \
        long long g_ = (long long)(got), w_ = (long long)(want);                                   \
        if (!ok(g_ == w_, __VA_ARGS__))                                                            \
            printf("#          got: %lld\n#     expected: %lld\n", g_, w_);                        \
    } while (0)

#define is_str(got, want, ...)                                                                     \
    do {                                                                                           \
        const char *g_ = (got), *w_ = (want);                                                      \
        int same_ = (g_ && w_) ? strcmp(g_, w_) == 0 : g_ == w_;                                   \
        if (!ok(same_, __VA_ARGS__))                                                               \
            printf("#          got: '%s'\n#     expected: '%s'\n", g_ ? g_ : "(null)",             \
                   w_ ? w_ : "(null)");                                                            \
    } while (0)

#define is_near(got, want, eps, ...)                                                               \
    do {                                                                                           \
        double g_ = (got), w_ = (want);                                                            \
        if (!ok(fabs(g_ - w_) <= (eps), __VA_ARGS__))                                              \
            printf("#          got: %.9g\n#     expected: %.9g\n", g_, w_);                        \
    } while (0)

static inline void diag(const char *fmt, ...)
{
    va_list ap;
    printf("# ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

static inline int done_testing(void)
{
    printf("1..%d\n", tap_run);
    return tap_failed ? 1 : 0;
}

#endif
