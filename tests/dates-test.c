/* dates-test.c - engine/dates: every form of dates_parse() against two fixed
 * instants (a Saturday in May, and a Wednesday just after New Year), spans
 * and overlaps, dates_has_expression() true and false, the civil day
 * conversions for every day from 1900 to 2100, and hostile input (huge
 * digit runs, invalid UTF-8, impossible dates, extreme instants, random
 * token soup) checked for invariants.
 *
 * Every text is parsed from an exactly sized heap copy, so a sanitizer
 * catches any read past the NUL. Links only engine/dates.c. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/dates.h"
#include "store/base/civil.h"
#include "tests/tap.h"

#define N1 "2023-05-20T12:00:00Z" /* a Saturday */
#define N2 "2024-01-03T08:00:00Z" /* a Wednesday */
#define MAXR 16

enum { D = GRAIN_DAY, W = GRAIN_WEEK, M = GRAIN_MONTH, S = GRAIN_SEASON, Y = GRAIN_YEAR };

/* ------------------------------------------------------------------ helpers */

/* Seconds of "YYYY-MM-DD" (midnight UTC) or "YYYY-MM-DDTHH:MM:SSZ". */
static int64_t iso(const char *s)
{
    int y = 0, hh = 0, mm = 0, ss = 0;
    unsigned mo = 0, d = 0;
    if (sscanf(s, "%d-%u-%uT%d:%d:%d", &y, &mo, &d, &hh, &mm, &ss) < 3)
        return INT64_MIN;
    return civil_days(y, mo, d) * 86400 + hh * 3600 + mm * 60 + ss;
}

/* "YYYY-MM-DD" of a second, in a static buffer (one of four). */
static const char *day_str(int64_t secs)
{
    static char buf[4][32];
    static int k;
    int y;
    unsigned m, d;
    int64_t day = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
    k = (k + 1) % 4;
    civil_from_days(day, &y, &m, &d);
    snprintf(buf[k], sizeof buf[k], "%04d-%02u-%02u", y, m, d);
    return buf[k];
}

/* dates_parse() on an exactly sized heap copy of text. */
static int parse(const char *text, const char *now, date_range *out, int max)
{
    size_t n = strlen(text) + 1;
    char *copy = malloc(n);
    int got;
    if (!copy)
        return -1;
    memcpy(copy, text, n);
    got = dates_parse(copy, iso(now), out, max);
    free(copy);
    return got;
}

static int has(const char *text)
{
    size_t n = strlen(text) + 1;
    char *copy = malloc(n);
    int got;
    if (!copy)
        return -1;
    memcpy(copy, text, n);
    got = dates_has_expression(copy);
    free(copy);
    return got;
}

/* text with bytes outside printable ASCII as \xHH, for test names (one of
 * four static buffers). */
static const char *show(const char *text)
{
    static char buf[4][512];
    static int k;
    size_t n = 0;
    k = (k + 1) % 4;
    for (; *text && n + 5 < sizeof buf[k]; text++) {
        unsigned char c = (unsigned char)*text;
        if (c >= 0x20 && c < 0x7f)
            buf[k][n++] = (char)c;
        else
            n += (size_t)snprintf(buf[k] + n, 5, "\\x%02X", c);
    }
    buf[k][n] = 0;
    return buf[k];
}

/* The text a range spans, in a static buffer. */
static const char *span(const char *text, const date_range *r)
{
    static char buf[256];
    int n = r->end_off - r->start_off;
    if (r->start_off < 0 || n < 0 || n >= (int)sizeof buf || (size_t)r->end_off > strlen(text))
        return "(bad span)";
    memcpy(buf, text + r->start_off, (size_t)n);
    buf[n] = 0;
    return buf;
}

/* ------------------------------------------------------------------ parse table */

typedef struct pcase {
    const char *text;
    const char *now;
    int count;             /* ranges expected */
    const char *from, *to; /* the first range, [from, to) as days */
    int grain;             /* the first range's grain */
    const char *span;      /* the first range's text; NULL: not checked */
} pcase;

static const pcase cases[] = {
    /* absolute days */
    {"What happened on 8 May 2023?", N1, 1, "2023-05-08", "2023-05-09", D, "on 8 May 2023"},
    {"2023-05-08", N1, 1, "2023-05-08", "2023-05-09", D, "2023-05-08"},
    {"2023/05/08", N1, 1, "2023-05-08", "2023-05-09", D, "2023/05/08"},
    {"logged 2023-5-8T10:30:00Z ok", N1, 1, "2023-05-08", "2023-05-09", D, "2023-5-8"},
    {"May 8, 2023", N1, 1, "2023-05-08", "2023-05-09", D, "May 8, 2023"},
    {"may 8th 2023", N1, 1, "2023-05-08", "2023-05-09", D, "may 8th 2023"},
    {"on the 8th of May, 2023.", N1, 1, "2023-05-08", "2023-05-09", D, "on the 8th of May, 2023"},
    {"8th of May, 2023", N1, 1, "2023-05-08", "2023-05-09", D, "8th of May, 2023"},
    {"Sept. 8th, 2022", N1, 1, "2022-09-08", "2022-09-09", D, "Sept. 8th, 2022"},
    {"sep 8 2022", N1, 1, "2022-09-08", "2022-09-09", D, "sep 8 2022"},
    {"Mon, May 8, 2023", N1, 1, "2023-05-08", "2023-05-09", D, "Mon, May 8, 2023"},
    {"DECEMBER 31ST, 1999", N1, 1, "1999-12-31", "2000-01-01", D, NULL},
    {"May 8", N1, 1, "2023-05-08", "2023-05-09", D, "May 8"},
    {"May 25", N1, 1, "2022-05-25", "2022-05-26", D, "May 25"},
    {"8 May", N1, 1, "2023-05-08", "2023-05-09", D, "8 May"},
    {"Feb 29", N1, 1, "2020-02-29", "2020-03-01", D, "Feb 29"},
    {"January 1, 0", N1, 1, "2023-01-01", "2023-01-02", D, "January 1"},
    {"5/8/2023", N1, 1, "2023-05-08", "2023-05-09", D, "5/8/2023"},
    {"on 5/8/23", N1, 1, "2023-05-08", "2023-05-09", D, "on 5/8/23"},
    {"12/31/99", N1, 1, "1999-12-31", "2000-01-01", D, NULL},
    {"25/12/2022", N1, 1, "2022-12-25", "2022-12-26", D, NULL},
    /* months, years, seasons with a year */
    {"May 2023", N1, 1, "2023-05-01", "2023-06-01", M, "May 2023"},
    {"in May of 2023", N1, 1, "2023-05-01", "2023-06-01", M, "in May of 2023"},
    {"2023-05", N1, 1, "2023-05-01", "2023-06-01", M, "2023-05"},
    {"Did Melanie paint a sunrise in 2022?", N1, 1, "2022-01-01", "2023-01-01", Y, "in 2022"},
    {"2022", N1, 1, "2022-01-01", "2023-01-01", Y, "2022"},
    {"the best of 2019", N1, 1, "2019-01-01", "2020-01-01", Y, "2019"},
    {"2019 was hard", N1, 1, "2019-01-01", "2020-01-01", Y, "2019"},
    {"it's 2023 now", N1, 1, "2023-01-01", "2024-01-01", Y, "2023"},
    {"1:56 pm on 8 May, 2023", N1, 1, "2023-05-08", "2023-05-09", D, "on 8 May, 2023"},
    {"our 2019 trip", N1, 1, "2019-01-01", "2020-01-01", Y, "2019"},
    {"mid-2022", N1, 1, "2022-05-01", "2022-09-01", M, "mid-2022"},
    {"From 2020 to 2022", N1, 1, "2020-01-01", "2023-01-01", Y, "From 2020 to 2022"},
    {"2010-2015", N1, 1, "2010-01-01", "2016-01-01", Y, "2010-2015"},
    {"the 2019-20 season", N1, 1, "2019-01-01", "2021-01-01", Y, "2019-20"},
    {"2011-12", N1, 1, "2011-12-01", "2012-01-01", M, "2011-12"},
    {"1234-5678", N1, 0, NULL, NULL, 0, NULL},
    {"the summer of 2019", N1, 1, "2019-06-01", "2019-09-01", S, "the summer of 2019"},
    {"Spring 2021", N1, 1, "2021-03-01", "2021-06-01", S, "Spring 2021"},
    {"winter 2022", N1, 1, "2022-12-01", "2023-03-01", S, "winter 2022"},
    /* months without a year */
    {"in May", N1, 1, "2023-05-01", "2023-06-01", M, "in May"},
    {"What did I do last May?", N1, 1, "2022-05-01", "2022-06-01", M, "last May"},
    {"this May", N1, 1, "2023-05-01", "2023-06-01", M, "this May"},
    {"next May", N1, 1, "2024-05-01", "2024-06-01", M, "next May"},
    {"in June", N1, 1, "2022-06-01", "2022-07-01", M, "in June"},
    {"last Sept", N1, 1, "2022-09-01", "2022-10-01", M, "last Sept"},
    {"What did I do last May?", N2, 1, "2023-05-01", "2023-06-01", M, "last May"},
    {"December", N2, 1, "2023-12-01", "2024-01-01", M, "December"},
    {"in January", N2, 1, "2024-01-01", "2024-02-01", M, "in January"},
    {"last January", N2, 1, "2023-01-01", "2023-02-01", M, "last January"},
    /* days relative to now */
    {"today", N1, 1, "2023-05-20", "2023-05-21", D, "today"},
    {"tonight", N1, 1, "2023-05-20", "2023-05-21", D, "tonight"},
    {"What did we talk about yesterday?", N1, 1, "2023-05-19", "2023-05-20", D, "yesterday"},
    {"tomorrow", N1, 1, "2023-05-21", "2023-05-22", D, "tomorrow"},
    {"the day before yesterday", N1, 1, "2023-05-18", "2023-05-19", D, NULL},
    {"last night", N2, 1, "2024-01-02", "2024-01-03", D, "last night"},
    {"yesterday", N2, 1, "2024-01-02", "2024-01-03", D, "yesterday"},
    /* N units ago / ahead */
    {"3 days ago", N1, 1, "2023-05-17", "2023-05-18", D, "3 days ago"},
    {"three weeks ago", N1, 1, "2023-04-24", "2023-05-01", W, "three weeks ago"},
    {"a couple of days ago", N1, 1, "2023-05-18", "2023-05-19", D, "a couple of days ago"},
    {"a few months ago", N1, 1, "2023-02-01", "2023-03-01", M, "a few months ago"},
    {"2 years ago", N1, 1, "2021-01-01", "2022-01-01", Y, "2 years ago"},
    {"in 3 days", N1, 1, "2023-05-23", "2023-05-24", D, "in 3 days"},
    {"in two weeks", N1, 1, "2023-05-29", "2023-06-05", W, "in two weeks"},
    {"5 days from now", N1, 1, "2023-05-25", "2023-05-26", D, "5 days from now"},
    {"3 days ago", N2, 1, "2023-12-31", "2024-01-01", D, NULL},
    {"2 weeks ago", N2, 1, "2023-12-18", "2023-12-25", W, NULL},
    {"a year ago", N2, 1, "2023-01-01", "2024-01-01", Y, "a year ago"},
    {"in 2 months", N2, 1, "2024-03-01", "2024-04-01", M, "in 2 months"},
    {"10000 years ago", N1, 1, "-7977-01-01", "-7976-01-01", Y, NULL},
    /* calendar units */
    {"last week", N1, 1, "2023-05-08", "2023-05-15", W, "last week"},
    {"this week", N1, 1, "2023-05-15", "2023-05-22", W, "this week"},
    {"next week", N1, 1, "2023-05-22", "2023-05-29", W, "next week"},
    {"last month", N1, 1, "2023-04-01", "2023-05-01", M, "last month"},
    {"this year", N1, 1, "2023-01-01", "2024-01-01", Y, "this year"},
    {"next year", N1, 1, "2024-01-01", "2025-01-01", Y, "next year"},
    {"last week", N2, 1, "2023-12-25", "2024-01-01", W, NULL},
    {"next week", N2, 1, "2024-01-08", "2024-01-15", W, NULL},
    {"last month", N2, 1, "2023-12-01", "2024-01-01", M, NULL},
    {"last year", N2, 1, "2023-01-01", "2024-01-01", Y, NULL},
    /* weekends and weekdays */
    {"this weekend", N1, 1, "2023-05-20", "2023-05-22", D, "this weekend"},
    {"last weekend", N1, 1, "2023-05-13", "2023-05-15", D, "last weekend"},
    {"next weekend", N1, 1, "2023-05-27", "2023-05-29", D, NULL},
    {"over the weekend", N2, 1, "2023-12-30", "2024-01-01", D, "over the weekend"},
    {"this past weekend", N1, 1, "2023-05-13", "2023-05-15", D, NULL},
    {"last Friday", N1, 1, "2023-05-19", "2023-05-20", D, "last Friday"},
    {"last Saturday", N1, 1, "2023-05-13", "2023-05-14", D, NULL},
    {"next Monday", N1, 1, "2023-05-22", "2023-05-23", D, NULL},
    {"this Monday", N1, 1, "2023-05-15", "2023-05-16", D, NULL},
    {"on Friday", N1, 1, "2023-05-19", "2023-05-20", D, "on Friday"},
    {"Saturday", N1, 1, "2023-05-20", "2023-05-21", D, NULL},
    {"see you next sat", N1, 1, "2023-05-27", "2023-05-28", D, "next sat"},
    {"tuesday", N2, 1, "2024-01-02", "2024-01-03", D, NULL},
    /* seasons without a year */
    {"last summer", N1, 1, "2022-06-01", "2022-09-01", S, "last summer"},
    {"this summer", N1, 1, "2023-06-01", "2023-09-01", S, NULL},
    {"next winter", N1, 1, "2023-12-01", "2024-03-01", S, NULL},
    {"last winter", N1, 1, "2022-12-01", "2023-03-01", S, NULL},
    {"in the fall", N1, 1, "2022-09-01", "2022-12-01", S, "in the fall"},
    {"during spring", N1, 1, "2023-03-01", "2023-06-01", S, "during spring"},
    {"this winter", N2, 1, "2023-12-01", "2024-03-01", S, NULL},
    {"last winter", N2, 1, "2022-12-01", "2023-03-01", S, NULL},
    {"this spring", N2, 1, "2024-03-01", "2024-06-01", S, NULL},
    {"last spring", N2, 1, "2023-03-01", "2023-06-01", S, NULL},
    /* rolling windows */
    {"recently", N1, 1, "2023-05-07", "2023-05-21", D, "recently"},
    {"what have I been up to lately", N1, 1, "2023-05-07", "2023-05-21", D, "lately"},
    {"the past 3 days", N1, 1, "2023-05-18", "2023-05-21", D, "the past 3 days"},
    {"the past week", N1, 1, "2023-05-14", "2023-05-21", W, "the past week"},
    {"over the last couple of weeks", N1, 1, "2023-05-07", "2023-05-21", W,
     "over the last couple of weeks"},
    {"last 10 days", N1, 1, "2023-05-11", "2023-05-21", D, "last 10 days"},
    {"the past 2 months", N1, 1, "2023-03-21", "2023-05-21", M, NULL},
    {"the next few days", N1, 1, "2023-05-21", "2023-05-24", D, "the next few days"},
    {"over the next 2 months", N1, 1, "2023-05-21", "2023-07-21", M, NULL},
    {"previous week", N1, 1, "2023-05-08", "2023-05-15", W, "previous week"},
    /* overlaps keep the longest */
    {"last May 8, 2023", N1, 1, "2023-05-08", "2023-05-09", D, "May 8, 2023"},
    {"in May 2023 and in June 2023", N1, 2, "2023-05-01", "2023-06-01", M, "in May 2023"},
    /* not dates */
    {"When did Ana go to the choir rehearsal?", N1, 0, NULL, NULL, 0, NULL},
    {"the week before my birthday", N1, 0, NULL, NULL, 0, NULL},
    {"I have 3 kids", N1, 0, NULL, NULL, 0, NULL},
    {"2000 people came", N1, 0, NULL, NULL, 0, NULL},
    {"a crowd of 2000 people", N1, 0, NULL, NULL, 0, NULL},
    {"room 2022.", N1, 0, NULL, NULL, 0, NULL},
    {"I may go to the party", N1, 0, NULL, NULL, 0, NULL},
    {"May I ask you something?", N1, 0, NULL, NULL, 0, NULL},
    {"this may be wrong", N1, 0, NULL, NULL, 0, NULL},
    {"the fall of Rome", N1, 0, NULL, NULL, 0, NULL},
    {"the 1990s band", N1, 0, NULL, NULL, 0, NULL},
    {"call me at 5", N1, 0, NULL, NULL, 0, NULL},
    {"1/2 cup of sugar", N1, 0, NULL, NULL, 0, NULL},
    {"we will march tomorrow", N1, 1, "2023-05-21", "2023-05-22", D, "tomorrow"},
    /* impossible or hostile */
    {"February 30, 2023", N1, 0, NULL, NULL, 0, NULL},
    {"2023-02-29", N1, 0, NULL, NULL, 0, NULL},
    {"2023-13-01", N1, 0, NULL, NULL, 0, NULL},
    {"99999999-99-99", N1, 0, NULL, NULL, 0, NULL},
    {"0000-01-01", N1, 0, NULL, NULL, 0, NULL},
    {"13/45/2023", N1, 0, NULL, NULL, 0, NULL},
    {"May 32, 2023", N1, 0, NULL, NULL, 0, NULL},
    {"-2023-05-08", N1, 0, NULL, NULL, 0, NULL},
    {"-5 days ago", N1, 0, NULL, NULL, 0, NULL},
    {"in the year 0", N1, 0, NULL, NULL, 0, NULL},
    {"10001 days ago", N1, 0, NULL, NULL, 0, NULL},
    {"99999999999999999999 days ago", N1, 0, NULL, NULL, 0, NULL},
    {"\xff\xfe May 8 \xc3(\xa0\xa1", N1, 1, "2023-05-08", "2023-05-09", D, "May 8"},
    {"“2022” – it was \xe2\x80\x9cgreat\xe2\x80\x9d", N1, 1, "2022-01-01", "2023-01-01", Y, "2022"},
};

static void test_parse_table(void)
{
    size_t i;
    for (i = 0; i < sizeof cases / sizeof *cases; i++) {
        const pcase *c = &cases[i];
        date_range r[MAXR];
        int n = parse(c->text, c->now, r, MAXR);
        is_int(n, c->count, "'%s' @%.10s: %d range(s)", show(c->text), c->now, c->count);
        if (n < 1 || c->count < 1)
            continue;
        is_str(day_str(r[0].start), c->from, "'%s': starts %s", show(c->text), c->from);
        is_str(day_str(r[0].end), c->to, "'%s': ends %s", show(c->text), c->to);
        is_int(r[0].grain, c->grain, "'%s': grain", show(c->text));
        if (c->span)
            is_str(span(c->text, &r[0]), c->span, "'%s': span '%s'", show(c->text), c->span);
    }
}

/* Several expressions come back in text order, each with its own span. */
static void test_many(void)
{
    const char *t = "3 days ago, last week and yesterday";
    date_range r[MAXR];
    int n = parse(t, N1, r, MAXR);
    is_int(n, 3, "three expressions");
    if (n != 3)
        return;
    is_str(span(t, &r[0]), "3 days ago", "first span");
    is_str(span(t, &r[1]), "last week", "second span");
    is_str(span(t, &r[2]), "yesterday", "third span");
    is_str(day_str(r[1].start), "2023-05-08", "last week starts on a Monday");
    is_int(r[1].grain, GRAIN_WEEK, "last week is a week");
    is_str(day_str(r[2].start), "2023-05-19", "yesterday");
    is_int(parse(t, N1, r, 2), 2, "max 2 keeps two");
    is_str(span(t, &r[1]), "last week", "the first two, in order");
    is_int(parse(t, N1, r, 1), 1, "max 1 keeps one");
    is_str(span(t, &r[0]), "3 days ago", "the first one");
    is_int(parse("yesterday, yesterday", N1, r, MAXR), 2, "the same day twice: two spans");
}

/* No range from inside another: "2023-05-08" is not also the year 2023. */
static void test_no_double(void)
{
    date_range r[MAXR];
    int n = parse("2023-05-08 and 8 May 2023 and May 2023", N1, r, MAXR);
    is_int(n, 3, "three expressions, no pieces");
    is_int(r[2].grain, GRAIN_MONTH, "the last is a month");
    ok(n == 3 && r[0].end_off <= r[1].start_off && r[1].end_off <= r[2].start_off,
       "spans do not overlap");
}

/* A date named outright anchors whatever else is relative, never now. */
static void test_named_anchor(void)
{
    const char *t1 = "In May 2023, what did she do last week?";
    const char *t2 = "What did she start recently, as mentioned on 3 June 2023?";
    const char *t3 = "What was the issue last week, as mentioned on November 6, 2023?";
    date_range r[MAXR];
    int n = parse(t1, N2, r, MAXR);
    is_int(n, 2, "'%s': two ranges", t1);
    if (n == 2) {
        is_str(day_str(r[1].start), "2023-05-22", "last week: the week before 31 May 2023");
        is_str(day_str(r[1].end), "2023-05-29", "last week ends on a Monday");
    }
    n = parse(t3, N1, r, MAXR);
    is_int(n, 2, "'%s': two ranges", t3);
    if (n == 2)
        is_str(day_str(r[0].start), "2023-10-30", "last week: before 6 Nov 2023, not before now");
    n = parse(t2, N1, r, MAXR);
    is_int(n, 1, "recently next to a named date adds no window of its own");
    if (n == 1)
        is_str(span(t2, &r[0]), "on 3 June 2023", "the named date stays");
    is_int(parse("the 15th, in March 2023", N1, r, MAXR), 2, "the 15th and March 2023");
    is_str(day_str(r[0].start), "2023-03-15", "the 15th of the named month");
    is_int(parse("in 2020 and last year", N1, r, MAXR), 2, "a year and last year");
    is_str(day_str(r[1].start), "2019-01-01", "last year: the year before 2020");
    is_int(parse("last week and yesterday", N1, r, MAXR), 2, "nothing named: now anchors");
    is_str(day_str(r[0].start), "2023-05-08", "last week of now");
}

static void test_bad_arguments(void)
{
    date_range r[2];
    is_int(dates_parse(NULL, 0, r, 2), 0, "NULL text");
    is_int(dates_parse("today", 0, NULL, 2), 0, "NULL out");
    is_int(dates_parse("today", 0, r, 0), 0, "max 0");
    is_int(dates_parse("today", 0, r, -5), 0, "negative max");
    is_int(dates_parse("", 0, r, 2), 0, "empty text");
    is_int(dates_has_expression(NULL), 0, "has_expression(NULL)");
    is_int(dates_has_expression(""), 0, "has_expression(\"\")");
}

/* ------------------------------------------------------------------ has_expression */

typedef struct hcase {
    const char *text;
    int want;
} hcase;

static const hcase hcases[] = {
    {"We met on 8 May 2023", 1},
    {"deployed 2023-05-08T10:00:00Z", 1},
    {"We moved there in May", 1},
    {"It rained last Friday", 1},
    {"Tuesday was long", 1},
    {"yesterday I ran", 1},
    {"today is fine", 1},
    {"tonight we eat pizza", 1},
    {"see you tomorrow", 1},
    {"last week was busy", 1},
    {"next month we fly", 1},
    {"this year has been good", 1},
    {"last weekend at the lake", 1},
    {"last summer in Rome", 1},
    {"3 days ago", 1},
    {"a long time ago", 1},
    {"I recently started painting", 1},
    {"for a few days", 1},
    {"since we met", 1},
    {"Did Melanie paint a sunrise in 2022?", 1},
    {"2019 was hard", 1},
    {"signed on 5/8/2023", 1},
    {"on Mondays we swim", 1},
    {"the week before my birthday", 1},
    {"at Christmas", 1},
    {"Spring 2021 collection", 1},
    {"Caroline said June was her favourite", 1},
    {"once a year", 1},
    {"we spend weekends hiking", 1},
    {"2010-2015", 1},
    {"We talked 2 hours ago", 1},
    {"I have 3 kids", 0},
    {"room 101", 0},
    {"call me at 5", 0},
    {"the 1990s band", 0},
    {"2000 people", 0},
    {"I may go", 0},
    {"May I help you?", 0},
    {"we march on", 0},
    {"the fall of Rome", 0},
    {"a spring in her step", 0},
    {"1234", 0},
    {"pi is 3.14", 0},
    {"version 2.0", 0},
    {"it cost $2022", 0},
    {"a 2022-page book", 0},
    {"call 555-2023", 0},
    {"I sat on the sun lounger", 0},
    {"The Sun is hot", 0},
    {"they wed in a chapel", 0},
    {"I love painting sunsets", 0},
    {"this may be wrong", 0},
    {"card 1234-5678", 0},
    {"", 0},
};

static void test_has_expression(void)
{
    size_t i;
    for (i = 0; i < sizeof hcases / sizeof *hcases; i++)
        is_int(has(hcases[i].text), hcases[i].want, "has_expression('%s') is %d",
               show(hcases[i].text), hcases[i].want);
}

/* ------------------------------------------------------------------ civil */

static int leap(int y)
{
    return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

/* Walk every day from 1900-01-01 to 2100-12-31 with a plain calendar and
 * compare both conversions. */
static void test_civil_walk(void)
{
    static const unsigned len[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y = 1900, bad_from = 0, bad_to = 0, days = 0;
    unsigned m = 1, d = 1;
    int64_t z = civil_days(1900, 1, 1);
    is_int(z, -25567, "1900-01-01 is day -25567");
    while (y <= 2100) {
        int gy;
        unsigned gm, gd;
        civil_from_days(z, &gy, &gm, &gd);
        bad_from += gy != y || gm != m || gd != d;
        bad_to += civil_days(y, m, d) != z;
        days++;
        z++;
        if (++d > len[m - 1] + (m == 2 && leap(y))) {
            d = 1;
            if (++m > 12) {
                m = 1;
                y++;
            }
        }
    }
    is_int(days, 73414, "73414 days walked");
    is_int(bad_from, 0, "civil_from_days right on every day 1900-2100");
    is_int(bad_to, 0, "days_from_civil right on every day 1900-2100");
    is_int(z - 1, 47846, "2100-12-31 is day 47846");
}

static void test_civil_anchors(void)
{
    int y;
    unsigned m, d;
    int64_t z, bad = 0;
    is_int(civil_days(1970, 1, 1), 0, "the epoch is day 0");
    is_int(civil_days(2000, 3, 1), 11017, "2000-03-01");
    is_int(civil_days(2023, 5, 20), 19497, "2023-05-20");
    is_int(civil_days(0, 3, 1), -719468, "0000-03-01, the algorithm's origin");
    civil_from_days(-719469, &y, &m, &d);
    ok(y == 0 && m == 2 && d == 29, "day -719469 is 0000-02-29 (year 0 is a leap year)");
    for (z = -400000000; z <= 400000000; z += 999983) {
        civil_from_days(z, &y, &m, &d);
        bad += civil_days(y, m, d) != z || m < 1 || m > 12 || d < 1 || d > 31;
    }
    is_int(bad, 0, "round trip over a million years either side");
    civil_from_days(INT64_MAX, &y, &m, &d);
    ok(y > 1000000000 && m >= 1 && m <= 12, "INT64_MAX days is clamped, no overflow");
    civil_from_days(INT64_MIN, &y, &m, &d);
    ok(y < -1000000000 && d >= 1 && d <= 31, "INT64_MIN days is clamped, no overflow");
    ok(civil_days(INT64_MAX, 12, 31) > 0, "INT64_MAX years is clamped");
    ok(civil_days(INT64_MIN, 1, 1) < 0, "INT64_MIN years is clamped");
    civil_from_days(0, NULL, NULL, NULL); /* a crash (or a sanitizer) fails here */
    y = 0;
    civil_from_days(19497, &y, NULL, NULL);
    is_int(y, 2023, "NULL month and day: the year is still set");
    m = d = 0;
    civil_from_days(19497, NULL, &m, &d);
    ok(m == 5 && d == 20, "NULL year: month and day are still set (%u-%u)", m, d);
}

/* ------------------------------------------------------------------ the table */

#define DATES_TSV "tests/data/dates.tsv"
#define TSV_MIN_ROWS 300

/* One row of tests/data/dates.tsv (its format is described at its top):
 * anchor, expression, start, end, split in place at the tabs. 0 if the
 * line is not four fields. */
static int tsv_fields(char *line, char **f)
{
    int n = 0;
    char *p = line;
    line[strcspn(line, "\r\n")] = 0;
    while (n < 4) {
        f[n++] = p;
        if (!(p = strchr(p, '\t')))
            break;
        *p++ = 0;
    }
    return n == 4 && !p;
}

/* Does the row hold? Exactly one interval [start, end), or none for "-". */
static int tsv_row_holds(char **f, char *got, size_t cap)
{
    char anchor[40];
    date_range r[MAXR];
    int n, want_none = strcmp(f[2], "-") == 0;
    snprintf(anchor, sizeof anchor, "%sT12:00:00Z", f[0]);
    n = parse(f[1], anchor, r, MAXR);
    if (n < 1)
        snprintf(got, cap, "no date");
    else
        snprintf(got, cap, "%d: [%s, %s) '%s'%s", n, day_str(r[0].start), day_str(r[0].end),
                 span(f[1], &r[0]), n > 1 ? " and more" : "");
    if (want_none)
        return n == 0;
    return n == 1 && strcmp(day_str(r[0].start), f[2]) == 0 && strcmp(day_str(r[0].end), f[3]) == 0;
}

static void test_tsv(void)
{
    FILE *fp = fopen(DATES_TSV, "r");
    char line[512], got[400];
    int lineno = 0, rows = 0, failed = 0, malformed = 0;
    ok(fp != NULL, "%s opens (run from the repository root)", DATES_TSV);
    if (!fp)
        return;
    while (fgets(line, sizeof line, fp)) {
        char *f[4];
        lineno++;
        if (line[0] == '#' || line[strspn(line, " \t\r\n")] == 0)
            continue;
        if (!tsv_fields(line, f)) {
            malformed++;
            ok(0, "%s:%d: four tab-separated fields", DATES_TSV, lineno);
            continue;
        }
        rows++;
        if (!ok(tsv_row_holds(f, got, sizeof got), "%s:%d: '%s' @%s is [%s, %s)", DATES_TSV, lineno,
                f[1], f[0], f[2], f[3])) {
            failed++;
            diag("     got %s", got);
        }
    }
    fclose(fp);
    ok(rows >= TSV_MIN_ROWS, "%d rows in the table (at least %d)", rows, TSV_MIN_ROWS);
    is_int(malformed, 0, "no malformed rows");
    diag("%s: %d of %d rows hold", DATES_TSV, rows - failed, rows);
}

/* ------------------------------------------------------------------ hostile */

/* Are these ranges sane for a text of length len? */
static int sane(const date_range *r, int n, int max, size_t len)
{
    int i;
    if (n < 0 || n > max)
        return 0;
    for (i = 0; i < n; i++) {
        if (r[i].start >= r[i].end || r[i].grain < GRAIN_DAY || r[i].grain > GRAIN_YEAR)
            return 0;
        if (r[i].start_off < 0 || r[i].start_off >= r[i].end_off || (size_t)r[i].end_off > len)
            return 0;
        if (i > 0 && r[i].start_off < r[i - 1].end_off)
            return 0;
        if (r[i].start < -800000000000LL || r[i].end > 800000000000LL)
            return 0;
    }
    return 1;
}

static char *repeat(const char *piece, size_t total)
{
    size_t n = strlen(piece), i;
    char *s = malloc(total + 1);
    if (!s)
        return NULL;
    for (i = 0; i < total; i++)
        s[i] = piece[i % n];
    s[total] = 0;
    return s;
}

static void test_huge(void)
{
    static const char *pieces[] = {"9",           "1 ",       "a",    "-",          "May ",
                                   "2023-05-08 ", "\xe2\x80", "\xff", "3 days ago "};
    size_t i;
    date_range r[64];
    for (i = 0; i < sizeof pieces / sizeof *pieces; i++) {
        char *s = repeat(pieces[i], 100000);
        int n = s ? dates_parse(s, iso(N1), r, 64) : -1;
        ok(s && sane(r, n, 64, 100000), "100 KB of '%s': %d sane ranges", show(pieces[i]), n);
        if (s)
            dates_has_expression(s);
        free(s);
    }
    {
        char *s = repeat("2023-05-08 ", 110000);
        int n = s ? dates_parse(s, iso(N1), r, 64) : -1;
        is_int(n, 64, "10000 ISO dates, max 64: 64 ranges");
        ok(n == 64 && r[63].start == r[0].start && r[63].start_off == 63 * 11, "all the same day");
        free(s);
    }
    {
        char *s = repeat("9", 100000);
        is_int(s ? dates_parse(s, iso(N1), r, 64) : -1, 0, "100 KB of digits: nothing");
        is_int(s ? dates_has_expression(s) : -1, 0, "100 KB of digits: no expression");
        free(s);
    }
}

/* A NUL ends the text, whatever follows it. */
static void test_nul(void)
{
    static const char buf[] = "May 8\0, 2023";
    static const char *tails[] = {"May 8\xe2", "May 8\xe2\x80", "May 8\xc2", "May 8 \xe2\x80\x94"};
    date_range r[4];
    size_t i;
    is_int(dates_parse(buf, iso(N1), r, 4), 1, "text stops at the NUL");
    is_int(r[0].end_off, 5, "the span ends before the NUL");
    is_str(day_str(r[0].start), "2023-05-08", "no year read past the NUL");
    for (i = 0; i < sizeof tails / sizeof *tails; i++) {
        int n = parse(tails[i], N1, r, 4);
        ok(sane(r, n, 4, strlen(tails[i])), "truncated UTF-8 tail %zu: %d sane", i, n);
    }
}

/* Extreme instants are clamped to the years 1..9999. */
static void test_extreme_now(void)
{
    static const char text[] = "yesterday, 10000 years ago, in 10000 years, next winter, last "
                               "May, Feb 29, recently, the past 10000 years, next week";
    static const int64_t nows[] = {INT64_MIN,      INT64_MIN + 1, -1, 0, INT64_MAX - 1, INT64_MAX,
                                   -62135596800LL, 253402300799LL};
    date_range r[MAXR];
    size_t i;
    for (i = 0; i < sizeof nows / sizeof *nows; i++) {
        int n = dates_parse(text, nows[i], r, MAXR);
        ok(n >= 8 && sane(r, n, MAXR, strlen(text)), "now = %" PRId64 ": %d sane ranges", nows[i],
           n);
    }
    is_int(dates_parse("yesterday", -1, r, 1), 1, "one second before the epoch");
    is_str(day_str(r[0].start), "1969-12-30", "yesterday of 1969-12-31");
}

/* Random soup of date words, numbers and punctuation: whatever comes back
 * must be sane, and a text with a range must have an expression. */
static void test_soup(void)
{
    static const char *vocab[] = {
        "May",    "may",     "8",       "8th",     "2023",     "-",
        "/",      ",",       ".",       "of",      "the",      "last",
        "next",   "this",    "in",      "on",      "ago",      "days",
        "week",   "a",       "couple",  "few",     "Sept",     "Mon",
        "Friday", "summer",  "fall",    "past",    "today",    "12",
        "31",     "1999",    "99",      "T",       "10:30",    "\xe2\x80\x93",
        "\xff",   "year",    "weekend", "from",    "now",      "0",
        "-1",     "2/29/24", "Feb",     "29",      "recently", "1900",
        "2099",   "100000",  "winter",  "of 2019", "st",       "\xc2\xa0",
    };
    static const char *seps[] = {" ", "", ", ", "-", "/", "  "};
    unsigned long seed = 12345;
    int iter, bad = 0, mismatch = 0;
    char text[512];
    for (iter = 0; iter < 20000; iter++) {
        size_t len = 0;
        int words =
            1 + (int)((seed = seed * 6364136223846793005UL + 1442695040888963407UL) >> 33) % 12;
        date_range r[8];
        int n, w;
        for (w = 0; w < words; w++) {
            const char *v, *s;
            seed = seed * 6364136223846793005UL + 1442695040888963407UL;
            v = vocab[(seed >> 33) % (sizeof vocab / sizeof *vocab)];
            s = seps[(seed >> 20) % (sizeof seps / sizeof *seps)];
            if (len + strlen(v) + strlen(s) + 1 >= sizeof text)
                break;
            memcpy(text + len, v, strlen(v));
            len += strlen(v);
            memcpy(text + len, s, strlen(s));
            len += strlen(s);
        }
        text[len] = 0;
        n = dates_parse(text, iso(iter % 2 ? N1 : N2), r, 8);
        bad += !sane(r, n, 8, len);
        mismatch += n > 0 && !dates_has_expression(text);
    }
    is_int(bad, 0, "20000 random soups: all results sane");
    is_int(mismatch, 0, "a text with a range always has an expression");
}

/* Random bytes, NUL excluded. */
static void test_bytes(void)
{
    unsigned long seed = 777;
    int iter, bad = 0;
    for (iter = 0; iter < 2000; iter++) {
        size_t len = 1 + (size_t)((seed = seed * 6364136223846793005UL + 1) >> 40) % 2048, i;
        char *s = malloc(len + 1);
        date_range r[8];
        if (!s)
            break;
        for (i = 0; i < len; i++) {
            seed = seed * 6364136223846793005UL + 1442695040888963407UL;
            s[i] = (char)(1 + (seed >> 33) % 255);
        }
        s[len] = 0;
        bad += !sane(r, dates_parse(s, iso(N1), r, 8), 8, len);
        dates_has_expression(s);
        free(s);
    }
    is_int(bad, 0, "2000 random byte strings: all results sane");
}

int main(void)
{
    test_parse_table();
    test_tsv();
    test_many();
    test_no_double();
    test_named_anchor();
    test_bad_arguments();
    test_has_expression();
    test_civil_walk();
    test_civil_anchors();
    test_huge();
    test_nul();
    test_extreme_now();
    test_soup();
    test_bytes();
    return done_testing();
}
