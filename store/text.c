/* text.c - UTF-8 checks and ISO 8601 times for the store. */
#include "store.h"
#include "store/base/civil.h"
#include "store/base/utf8.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Do the 8 bytes at p hold only ASCII, and no NUL? */
static int ascii8(const char *p)
{
    uint64_t x;
    memcpy(&x, p, sizeof x);
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    return ((x | ((x - ones) & ~x)) & highs) == 0;
}

long store_utf8_invalid_at(const char *str, size_t len)
{
    for (size_t i = 0; i < len;) {
        /* runs of plain ASCII eight bytes at a time: an import checks every
         * byte of every line */
        while (len - i >= 8 && ascii8(str + i))
            i += 8;
        if (i == len)
            break;
        unsigned cp;
        int n = utf8_decode(str + i, len - i, &cp);
        if (n == 0 || cp == 0)
            return (long)i;
        i += (size_t)n;
    }
    return -1;
}

/* ---- time ---------------------------------------------------------------- */

static int digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)(*p)[i]))
            return -1;
        v = v * 10 + ((*p)[i] - '0');
    }
    *p += n;
    *out = v;
    return 0;
}

static int days_in_month(int y, int m)
{
    static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 ? 28 + leap : dm[m - 1];
}

int store_parse_time(const char *text, int64_t *ts)
{
    const char *p = text;
    int y, mo, d, h = 0, mi = 0, sec = 0;
    if (!p || digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) || *p++ != '-' ||
        digits(&p, 2, &d))
        return -1;
    if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo))
        return -1;
    int offset = 0;
    if (*p == 'T' || *p == 't' || *p == ' ') {
        p++;
        if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi))
            return -1;
        if (*p == ':') {
            p++;
            if (digits(&p, 2, &sec))
                return -1;
            if (*p == '.' || *p == ',') {
                p++;
                if (!isdigit((unsigned char)*p))
                    return -1;
                while (isdigit((unsigned char)*p))
                    p++;
            }
        }
        if (h > 23 || mi > 59 || sec > 60)
            return -1;
        if (*p == 'Z' || *p == 'z') {
            p++;
        } else if (*p == '+' || *p == '-') {
            int sign = *p++ == '-' ? -1 : 1, oh, om = 0;
            if (digits(&p, 2, &oh))
                return -1;
            int colon = *p == ':';
            p += colon;
            if ((colon || *p) && digits(&p, 2, &om)) /* "+02", "+0200", "+02:00" */
                return -1;
            if (oh > 23 || om > 59)
                return -1;
            offset = sign * (oh * 3600 + om * 60);
        }
    }
    if (*p)
        return -1;
    *ts = civil_days(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + sec - offset;
    /* a leap second or an offset can carry a time past 9999 or before 0000,
     * which store_format_time could not write back as four digits */
    return *ts < STORE_TIME_MIN || *ts > STORE_TIME_MAX ? -2 : 0;
}

/* v as n decimal digits at p (v < 10^n). */
static void put_digits(char *p, unsigned v, int n)
{
    while (n-- > 0) {
        p[n] = (char)('0' + v % 10);
        v /= 10;
    }
}

void store_format_time(int64_t ts, char *buf, size_t len)
{
    int64_t days = ts >= 0 ? ts / 86400 : -((-ts + 86399) / 86400);
    int64_t rem = ts - days * 86400;
    int y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    if (len < 21 || ts < STORE_TIME_MIN || ts > STORE_TIME_MAX) {
        snprintf(buf, len, "%04d-%02u-%02uT%02d:%02d:%02dZ", y, m, d, (int)(rem / 3600),
                 (int)(rem / 60 % 60), (int)(rem % 60));
        return;
    }
    /* a store's time, written digit by digit: an import formats one or two
     * a memory, and snprintf took 3,000 instructions for each */
    memcpy(buf, "0000-00-00T00:00:00Z", 21);
    put_digits(buf, (unsigned)y, 4);
    put_digits(buf + 5, m, 2);
    put_digits(buf + 8, d, 2);
    put_digits(buf + 11, (unsigned)(rem / 3600), 2);
    put_digits(buf + 14, (unsigned)(rem / 60 % 60), 2);
    put_digits(buf + 17, (unsigned)(rem % 60), 2);
}
