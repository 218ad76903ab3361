/* text.c - UTF-8 checks and ISO 8601 times for the store. */
#include "store.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long store_utf8_invalid_at(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        if (c < 0x80) {
            if (c == 0)
                return (long)i;
            i++;
            continue;
        }
        size_t n;
        unsigned cp;
        if (c >= 0xc2 && c <= 0xdf) {
            n = 1;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            n = 2;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            n = 3;
            cp = c & 0x07;
        } else {
            return (long)i;
        }
        if (i + n >= len) /* truncated sequence */
            return (long)i;
        for (size_t k = 1; k <= n; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return (long)i;
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        /* overlong forms, surrogates, beyond U+10FFFF */
        if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return (long)i;
        i += n + 1;
    }
    return -1;
}

/* ---- time ---------------------------------------------------------------- */

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t yy = (int64_t)yoe + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int)(yy + (*m <= 2));
}

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
    *ts = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + sec - offset;
    /* a leap second or an offset can carry a time past 9999 or before 0000,
     * which store_format_time could not write back as four digits */
    return *ts < STORE_TIME_MIN || *ts > STORE_TIME_MAX ? -2 : 0;
}

void store_format_time(int64_t ts, char *buf, size_t len)
{
    int64_t days = ts >= 0 ? ts / 86400 : -((-ts + 86399) / 86400);
    int64_t rem = ts - days * 86400;
    int y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    snprintf(buf, len, "%04d-%02u-%02uT%02d:%02d:%02dZ", y, m, d, (int)(rem / 3600),
             (int)(rem / 60 % 60), (int)(rem % 60));
}
