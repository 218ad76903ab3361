/* dates.c - date expressions in free text, resolved to ranges of Unix seconds.
 *
 * How it reads. The text is cut into tokens: runs of letters, runs of
 * digits, single punctuation marks. Bytes >= 0x80 count as letters, except
 * the UTF-8 no-break space (a space) and U+2010..U+201F, U+2026 (dashes,
 * curly quotes, ellipsis: folded to '-', '"', '.'). At every token each
 * recogniser below is tried; the longest match starting there is a
 * candidate, and of overlapping candidates the longest wins. Results come
 * in text order, at most `max`, never overlapping. A form shaped like a
 * date but impossible ("February 30, 2023", "2023-13-01", "0000-01-01") is
 * matched and then dropped, so its pieces are not read again as something
 * else ("2023" as a year).
 *
 * Every range is whole UTC days [start, end): a day, a Monday-Sunday week, a
 * calendar month, a season, a year, or a run of days.
 *
 * Absolute forms. Case-insensitive; ordinals 1st 2nd 3rd 8th, or in words
 * (first..thirty-first: "the first of June", "May first"); the comma and
 * "of" are optional; a leading weekday ("Mon, May 8") is allowed and
 * ignored; months may be abbreviated Jan Feb Mar Apr Jun Jul Aug Sep Sept
 * Oct Nov Dec, with or without a '.':
 *   2023-05-08, 2023/05/08, 2023-5-8   a day; a glued "T10:00" may follow
 *   2023-05                            a month
 *   May 8, 2023; May 8th 2023          a day
 *   8 May 2023; the 8th of May, 2023   a day
 *   May 8; 8th of May                  a day with no year: the latest May 8
 *                                      on or before today (for Feb 29, the
 *                                      latest in a leap year)
 *   5/8/2023, 5/8/23                   US month/day/year; when the first
 *                                      number cannot be a month (25/12/2023)
 *                                      it is read day/month/year. Two-digit
 *                                      years 00-69 are 2000-2069, 70-99 are
 *                                      1970-1999 (as POSIX strptime %y)
 *   May 2023, May of 2023, May, 2023   a month
 *   May, in May                        a month with no year: the latest May
 *                                      that has begun (in May: this May)
 *   2022, in 2022, of 2019             a year (see "bare year" below)
 *   2010-2015, 2019-20                 whole years, first to last (1900-2099)
 *   summer 2022, the summer of 2022    a season
 *
 * Relative forms, resolved against now:
 *   today, tonight, this morning|afternoon|evening   today
 *   yesterday, last night / tomorrow                 one day back / ahead
 *   the day before yesterday / after tomorrow        two days
 *   N days|weeks|months|years ago, N ... from now    the calendar day, week,
 *       month or year holding the day N units back (ahead): "2 weeks ago"
 *       is the Monday-week holding today - 14, "3 months ago" a whole
 *       month. N is 1-10000 in digits, or one..twelve, a, an, a couple
 *       (of), couple of, a few, few, several (few and several are 3).
 *   in N days|weeks|months|years                     the same, ahead
 *   last|this|next week|month|year                   the calendar unit
 *       ("previous" is read as "last" here and below)
 *   last|this|next weekend, this past weekend        Saturday and Sunday of
 *       the previous, current or next Monday-week ("this past" = "last")
 *   the weekend              this weekend on a Saturday or Sunday, else last
 *   Monday, on Monday        the latest Monday on or before today
 *   last Monday              the latest Monday before today (a week ago
 *                            when today is Monday)
 *   this Monday              the Monday of this Monday-week (may be ahead)
 *   next Monday              the first Monday after today
 *   last|this|next May and last|this|next summer (months and seasons alike):
 *       last   the latest one that began before the current one (in May,
 *              "last May" is a year ago; in June it is this May)
 *       this   the current one if we are in it, else the one in this
 *              calendar year (may be ahead)
 *       next   the first one that begins after the current one
 *   the past|last N days|weeks|months|years, past week, the last week:
 *       a rolling window ending with today, [today - N units + 1 day,
 *       tomorrow). Without "the" or N, "last week" is the calendar week.
 *   the next N days|..., the next week: the window [tomorrow, tomorrow + N
 *       units); "next week" alone is the calendar week.
 *   recently, lately         the past 14 days, today included; grain DAY
 *       ("more|most|less recently" compare and name no days)
 *   the other day            the 7 days before today
 *   earlier|later this week|month|year   up to and with today / from today
 *   a week ago today, a week from today|tomorrow   that very day
 *   a fortnight              two weeks ("a fortnight ago", "the past fortnight")
 *   N Mondays|weekends ago   the Nth before today ("two Saturdays ago")
 *   the week|month|year|weekend|Monday|summer before last   two back
 *   the 15th, on the 2nd     the latest such day on or before today; only
 *       with the ordinal and with no noun after it ("the 15th century")
 *
 * Parts of a period P (a month, year or season with or without its year,
 * "last month", "next week"...; see tests/data/dates.tsv for each):
 *   early|mid|late P, mid-P, later in P, the beginning|start|middle|end of P
 *       thirds: a month 1-10, 11-20, 21-end; a week Mon-Wed, Tue-Thu,
 *       Thu-Sun; a year or season by months (Jan-Apr, May-Aug, Sep-Dec)
 *   the first|second half of P       a month split after the 15th; a year
 *                                    after June
 *   [the] first|last|final [N] days|weeks|months of|in P, the second week
 *       of P: counted from P's first day or back from its last
 *   the first|...|fifth|last Monday|weekend of|in P: the nth Monday (the
 *       nth Saturday and the Sunday after it); none when P has no fifth
 *   the first|last quarter of 2023, Q1 2023: three months
 *
 * Holidays, [last|this|next] H [[,|of] 2022], without a year the latest on
 * or before today: Christmas (Eve, Day), Xmas, Boxing Day, New Year's Eve
 * and Day, Halloween, Valentine's Day, St Patrick's Day, Independence Day
 * (fixed days); Thanksgiving (4th Thursday of November), Mother's Day (2nd
 * Sunday of May), Father's Day (3rd Sunday of June), Memorial Day (last
 * Monday of May), Labor Day (1st Monday of September): US usage; Easter
 * (Gregorian computus), Good Friday, Easter Monday. "'s" may be written
 * "’s", "s" or left out.
 *
 * Built on another date X (any form above):
 *   the day|week|month|year before X    the unit just before X starts
 *   the day|week|month|year after X     the unit just after X ends
 *   the weekend|Monday before|after X   the nearest one wholly before/after
 *   N days|weeks|... before|after X     "N ... ago|from now" with X as now
 *   X to|through|until Y, between X and Y, from X to Y: X's start to Y's
 *       end; an X without a year takes Y's ("from June to August 2023")
 *   May 5-12, 5-12 May 2023, May 5 to 12: days of one month
 *
 * One anchor. A date the text names outright (one whose range is the same
 * whatever now is, and that names its year) anchors everything relative
 * in the same text: "last week, as mentioned on November 6, 2023" is the
 * week before 6 November 2023, never a week before now on top of it. Next
 * to such a date "recently" gives no range (it says "shortly before",
 * which the temporal channel's one-sided distance already says).
 *
 * Choices.
 *   - Weeks start on Monday. Seasons are the northern meteorological ones:
 *     spring Mar-May, summer Jun-Aug, autumn/fall Sep-Nov, winter Dec-Feb.
 *     A winter is named by the year of its December: "winter 2022" is
 *     Dec 2022 - Feb 2023.
 *   - Grains: DAY for days, weekends, "recently" and windows counted in
 *     days; WEEK, MONTH, SEASON, YEAR for those units and for windows
 *     counted in them.
 *   - A leading "in", "on", "during", "over" or "at" is part of the span
 *     ("in May", "on Friday"); "since", "until"... are not.
 *   - Words that are usually something else need context. Lower-case "may"
 *     counts only after in, on, of, last, next, since, until, by, early,
 *     mid, late...; "May" capitalised counts anywhere but at the start of a
 *     sentence ("May I ask?" is not a date). "march" and "august" need a
 *     capital or such a word; abbreviations ("Jan", "Sept") and "spring",
 *     "fall" need such a word ("in the fall", "this spring"); "summer",
 *     "winter", "autumn" also count after "the". Weekday abbreviations
 *     ("Fri", "sat") count only after last, this, next or on. Next to a day
 *     number or a year all of these count ("may 8", "Sep 2022").
 *   - A bare year is a 4-digit number 1900-2099 with nothing numeric glued
 *     to it ("$2022", "2022.5", "x2022", "2022s", "555-2022" are not years;
 *     the 2022 of "mid-2022" is), not after room, number, page, flight, about, over...,
 *     and it must read as a year: followed by no word (end of text,
 *     punctuation), or by was, is, and, when, we, now...; or preceded by
 *     in, since, during, until, before, after, through, circa, early, mid,
 *     late, year, born, the, or a possessive (my, our; not "her"). So "in
 *     2022", "2022", "2019 was hard", "our 2019 trip" are years; "2000
 *     people" and "a crowd of 2000 people" are not; "the 2000 people" is
 *     (the price of reading "the 2019 election").
 *   - Not dates: decades ("the 1990s", "90s music": too coarse, and mostly
 *     adjectives), times of day ("at 5", "5:30pm"), day/month without a year
 *     ("5/8" is a fraction as often as a date), dotted dates ("8.5.2023"),
 *     anchors we cannot resolve ("the week before my birthday"), and hours
 *     or minutes ("2 hours ago": dates_has_expression() sees the "ago").
 *   - now is clamped to the years 1..9999; only the first INT_MAX - 1 bytes
 *     of text are read, and never past its NUL.
 *
 * dates_has_expression() is dates_parse() plus cues that say "when" without
 * naming a date: "ago" ("long ago"), "since", "weekend(s)", weekday plurals
 * ("on Mondays"), fixed holidays (Christmas, Easter, New Year...), spans and
 * frequencies ("a few days", "3 weeks", "once a year"), and "the week|day|
 * month|year before|after ...". It aims at recall: it says whether a memory
 * says when, not which date. */
#include "dates.h"
#include "store/base/civil.h"
#include "store/base/utf8.h"

#include <limits.h>
#include <string.h>

#define DAY_SECS 86400
#define WIN 16             /* tokens visible from one position: the longest form is 14 */
#define MAX_COUNT 10000    /* the largest N in "N days ago" */
#define HAS_NOW 1700000000 /* any instant will do to ask whether a text has a date */

/* ------------------------------------------------------------------ calendar */

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int64_t floor_mod(int64_t a, int64_t b)
{
    return a - floor_div(a, b) * b;
}

static int is_leap(int64_t y)
{
    return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

/* Days in month m (1..12) of year y. */
static int64_t month_days(int64_t y, int64_t m)
{
    static const unsigned char n[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : n[m - 1];
}

/* Is y-m-d a real day in the years 1..9999? */
static int valid_date(int64_t y, int64_t m, int64_t d)
{
    return y >= 1 && y <= 9999 && m >= 1 && m <= 12 && d >= 1 && d <= month_days(y, m);
}

/* The first day of month m of year y; m may run outside 1..12. */
static int64_t month_start(int64_t y, int64_t m)
{
    return civil_days(y + floor_div(m - 1, 12), (unsigned)(floor_mod(m - 1, 12) + 1), 1);
}

/* Monday is 0; 1970-01-01 was a Thursday. */
static int weekday(int64_t day)
{
    return (int)floor_mod(day + 3, 7);
}

/* ------------------------------------------------------------------ ranges */

static void set_days(date_range *r, int64_t from, int64_t to, date_grain g)
{
    r->start = from * DAY_SECS;
    r->end = to * DAY_SECS;
    r->grain = g;
}

/* An impossible date: it is a candidate, so its parts are not read again,
 * but an empty range is never returned. */
static void set_invalid(date_range *r)
{
    r->start = r->end = 0;
    r->grain = GRAIN_DAY;
}

static void set_ymd(date_range *r, int64_t y, int64_t m, int64_t d)
{
    int64_t day;
    if (!valid_date(y, m, d)) {
        set_invalid(r);
        return;
    }
    day = civil_days(y, (unsigned)m, (unsigned)d);
    set_days(r, day, day + 1, GRAIN_DAY);
}

static void set_week(date_range *r, int64_t day)
{
    int64_t monday = day - weekday(day);
    set_days(r, monday, monday + 7, GRAIN_WEEK);
}

static void set_month(date_range *r, int64_t y, int64_t m)
{
    set_days(r, month_start(y, m), month_start(y, m + 1), GRAIN_MONTH);
}

/* The season whose first month is sm (3, 6, 9 or 12) in year y. */
static void set_season(date_range *r, int64_t y, int sm)
{
    set_days(r, month_start(y, sm), month_start(y, sm + 3), GRAIN_SEASON);
}

static void set_year(date_range *r, int64_t y)
{
    set_days(r, month_start(y, 1), month_start(y + 1, 1), GRAIN_YEAR);
}

/* ------------------------------------------------------------------ now */

typedef struct ctx {
    int64_t today; /* days since 1970-01-01 */
    int64_t y;     /* today's civil date */
    int m, d;
    int wd; /* today's weekday, Monday = 0 */
} ctx;

static void ctx_init(ctx *c, int64_t now)
{
    int64_t lo = civil_days(1, 1, 1), hi = civil_days(9999, 12, 31);
    int y;
    unsigned m, d;
    c->today = floor_div(now, DAY_SECS);
    if (c->today < lo)
        c->today = lo;
    if (c->today > hi)
        c->today = hi;
    civil_from_days(c->today, &y, &m, &d);
    c->y = y;
    c->m = (int)m;
    c->d = (int)d;
    c->wd = weekday(c->today);
}

/* How last/this/next (and no word at all) choose among yearly or weekly
 * occurrences; LAST, THIS and NEXT double as the offsets -1, 0, +1. */
enum { PICK_LAST = -1, PICK_THIS = 0, PICK_NEXT = 1, PICK_RECENT = 2 };

/* The year of the occurrence of a yearly period that starts in month sm (a
 * month, or a season's first month), given the current occurrence of the
 * same kind of period, which began in month cm of year cy, and the calendar
 * year cal_y. Occurrences are ordered by y * 12 + start month. */
static int64_t pick_year(int64_t cal_y, int64_t cy, int cm, int sm, int mode)
{
    int64_t cur = cy * 12 + cm, y;
    switch (mode) {
    case PICK_THIS:
        return sm == cm ? cy : cal_y;
    case PICK_NEXT:
        for (y = cal_y - 1; y * 12 + sm <= cur; y++)
            ;
        return y;
    case PICK_LAST:
        for (y = cal_y; y * 12 + sm >= cur; y--)
            ;
        return y;
    default: /* the latest that has begun */
        for (y = cal_y; y * 12 + sm > cur; y--)
            ;
        return y;
    }
}

/* The day of weekday wd (Monday = 0) that mode picks. */
static int64_t pick_weekday(const ctx *c, int wd, int mode)
{
    int back = (int)floor_mod(c->wd - wd, 7), ahead = (int)floor_mod(wd - c->wd, 7);
    switch (mode) {
    case PICK_LAST:
        return c->today - (back ? back : 7);
    case PICK_THIS:
        return c->today - c->wd + wd;
    case PICK_NEXT:
        return c->today + (ahead ? ahead : 7);
    default:
        return c->today - back;
    }
}

static void set_month_pick(const ctx *c, int m, int mode, date_range *r)
{
    set_month(r, pick_year(c->y, c->y, c->m, m, mode), m);
}

/* Seasons: the current one began in month cm of year cy (Jan, Feb belong
 * to the winter of the December before). */
static void set_season_pick(const ctx *c, int sm, int mode, date_range *r)
{
    int cm = c->m == 12 || c->m < 3 ? 12 : c->m - (c->m - 3) % 3;
    int64_t cy = c->y - (c->m < 3);
    set_season(r, pick_year(c->y, cy, cm, sm, mode), sm);
}

/* The latest mon/day on or before today; Feb 29 looks back to a leap year. */
static void set_recent_day(const ctx *c, int mon, int day, date_range *r)
{
    int64_t y;
    for (y = c->y; y > c->y - 9; y--) {
        if (valid_date(y, mon, day) && civil_days(y, (unsigned)mon, (unsigned)day) <= c->today) {
            set_ymd(r, y, mon, day);
            r->no_year = 1;
            return;
        }
    }
    set_invalid(r);
}

/* The calendar unit g (day, Monday-week, month, year) delta units from today. */
static void set_shift(const ctx *c, int g, int64_t delta, date_range *r)
{
    switch (g) {
    case GRAIN_DAY:
        set_days(r, c->today + delta, c->today + delta + 1, GRAIN_DAY);
        break;
    case GRAIN_WEEK:
        set_week(r, c->today + 7 * delta);
        break;
    case GRAIN_MONTH:
        set_month(r, c->y, c->m + delta);
        break;
    default:
        set_year(r, c->y + delta);
        break;
    }
}

/* Today's day of the month, n months on (back if n < 0), clamped to that
 * month's length. */
static int64_t months_on(const ctx *c, int64_t n)
{
    int64_t m = c->m + n, y = c->y + floor_div(m - 1, 12), mm = floor_mod(m - 1, 12) + 1;
    int64_t d = c->d < month_days(y, mm) ? c->d : month_days(y, mm);
    return civil_days(y, (unsigned)mm, (unsigned)d);
}

/* A context whose today is day. */
static ctx ctx_at(int64_t day)
{
    ctx c;
    ctx_init(&c, day * DAY_SECS);
    return c;
}

/* day moved by n months, its day of the month clamped to the month's length. */
static int64_t add_months(int64_t day, int64_t n)
{
    ctx c = ctx_at(day);
    return months_on(&c, n);
}

/* The day n units g from today (back if n < 0). */
static int64_t days_on(const ctx *c, int g, int64_t n)
{
    switch (g) {
    case GRAIN_DAY:
        return c->today + n;
    case GRAIN_WEEK:
        return c->today + 7 * n;
    case GRAIN_MONTH:
        return months_on(c, n);
    default:
        return months_on(c, 12 * n);
    }
}

/* A rolling window of |n| units g: the past ones ending with today (n < 0),
 * or the coming ones starting tomorrow. */
static void set_window(const ctx *c, int g, int64_t n, date_range *r)
{
    int64_t far = days_on(c, g, n) + 1;
    if (n < 0)
        set_days(r, far, c->today + 1, (date_grain)g);
    else
        set_days(r, c->today + 1, far, (date_grain)g);
}

/* ------------------------------------------------------------------ tokens */

enum { TK_NONE, TK_WORD, TK_NUM, TK_PUNCT };

typedef struct tok {
    int kind;      /* TK_*; TK_NONE past the end of the text */
    int glue;      /* kind of the token touching this one on the left; TK_NONE after a space */
    const char *s; /* its bytes in the text */
    int off, len;  /* byte offset and length */
    char ch;       /* TK_PUNCT: the character, UTF-8 dashes and quotes folded to ASCII */
    int ndig;      /* TK_NUM: how many digits, saturating at 10 */
    int32_t val;   /* TK_NUM: the value, -1 beyond 9 digits */
} tok;

typedef struct lexer {
    const unsigned char *s;
    int pos, len; /* len: bytes before the NUL, at most INT_MAX - 1 */
    int last;     /* kind of the token just read */
} lexer;

/* The length of a UTF-8 no-break space, dash, curly quote or ellipsis at p,
 * which we read as ' ', '-', '"' or '.' (*ch); 0 for anything else. */
static int utf8_fold(const unsigned char *p, int left, char *ch)
{
    unsigned cp;
    int len = left > 0 ? utf8_decode((const char *)p, (size_t)left, &cp) : 0;
    if (len < 2)
        return 0;
    if (cp == 0xa0)
        *ch = ' ';
    else if (cp >= 0x2010 && cp <= 0x201f)
        *ch = cp <= 0x2015 ? '-' : '"';
    else if (cp == 0x2026)
        *ch = '.';
    else
        return 0;
    return len;
}

static int fold_at(const lexer *lx, char *ch)
{
    return utf8_fold(lx->s + lx->pos, lx->len - lx->pos, ch);
}

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static int is_letter(unsigned char c)
{
    return ((c | 32) >= 'a' && (c | 32) <= 'z') || c >= 0x80;
}

/* Skip white space; did we skip any? */
static int skip_space(lexer *lx)
{
    int start = lx->pos, n;
    char ch;
    while (lx->pos < lx->len) {
        unsigned char c = lx->s[lx->pos];
        if (c == ' ' || (c >= '\t' && c <= '\r'))
            lx->pos++;
        else if ((n = fold_at(lx, &ch)) && ch == ' ')
            lx->pos += n;
        else
            break;
    }
    return lx->pos > start;
}

static void lex_number(lexer *lx, tok *t)
{
    int32_t v = 0;
    int nd = 0;
    for (; lx->pos < lx->len && is_digit(lx->s[lx->pos]); lx->pos++) {
        if (nd < 9)
            v = v * 10 + (lx->s[lx->pos] - '0');
        if (nd < 10)
            nd++;
    }
    t->kind = TK_NUM;
    t->ndig = nd;
    t->val = nd > 9 ? -1 : v;
}

static void lex_word(lexer *lx, tok *t)
{
    char ch;
    while (lx->pos < lx->len && is_letter(lx->s[lx->pos]) && !fold_at(lx, &ch))
        lx->pos++;
    t->kind = TK_WORD;
}

/* Read the next token into t; 0 at the end of the text. */
static int lex(lexer *lx, tok *t)
{
    int spaced = skip_space(lx), n;
    char ch;
    if (lx->pos >= lx->len)
        return 0;
    memset(t, 0, sizeof *t);
    t->glue = spaced ? TK_NONE : lx->last;
    t->off = lx->pos;
    t->s = (const char *)lx->s + lx->pos;
    if (is_digit(lx->s[lx->pos])) {
        lex_number(lx, t);
    } else if ((n = fold_at(lx, &ch))) {
        t->kind = TK_PUNCT;
        t->ch = ch;
        lx->pos += n;
    } else if (is_letter(lx->s[lx->pos])) {
        lex_word(lx, t);
    } else {
        t->kind = TK_PUNCT;
        t->ch = (char)lx->s[lx->pos++];
    }
    t->len = lx->pos - t->off;
    lx->last = t->kind;
    return 1;
}

/* A window of tokens from the current position, and the token before it. */
/* The longest form found at a token, at each level of nesting (see
 * form_at()); worked out once per window position. */
enum { LV_BASIC, LV_PART, LV_REL, LV_ALL, LV_N };

typedef struct memo {
    int k; /* tokens of the form, 0: none */
    date_range r;
} memo;

typedef struct win {
    tok t[WIN];
    int n;    /* tokens in t; fewer than WIN only near the end of the text */
    tok prev; /* the token before t[0], TK_NONE at the start */
    lexer lx;
    unsigned done[LV_N]; /* bit i: memo[level][i] is worked out */
    memo memo[LV_N][WIN];
} win;

static void win_init(win *w, const char *text)
{
    memset(w, 0, sizeof *w);
    w->lx.s = (const unsigned char *)text;
    w->lx.len = (int)strnlen(text, INT_MAX - 1);
    while (w->n < WIN && lex(&w->lx, &w->t[w->n]))
        w->n++;
}

/* Move one token on. */
static void win_shift(win *w)
{
    w->prev = w->t[0];
    memmove(w->t, w->t + 1, (size_t)(w->n - 1) * sizeof *w->t);
    w->n--;
    if (lex(&w->lx, &w->t[w->n]))
        w->n++;
    memset(w->done, 0, sizeof w->done);
}

/* Token i of the window: -1 is the one before it, past the end is TK_NONE. */
static const tok *at(const win *w, int i)
{
    static const tok none;
    if (i == -1)
        return &w->prev;
    return i >= 0 && i < w->n ? &w->t[i] : &none;
}

/* ------------------------------------------------------------------ words */

/* If t is, ignoring case, the lower-case word that starts lc and ends at
 * a space or the NUL, that word's length; else 0. */
static int word_match(const tok *t, const char *lc)
{
    int i;
    if (t->kind != TK_WORD)
        return 0;
    for (i = 0; i < t->len; i++) {
        unsigned char c = (unsigned char)t->s[i];
        if (lc[i] == '\0' || (c >= 'A' && c <= 'Z' ? c | 32 : c) != (unsigned char)lc[i])
            return 0;
    }
    return lc[i] == '\0' || lc[i] == ' ' ? i : 0;
}

static int word_is(const tok *t, const char *lc)
{
    return word_match(t, lc) > 0;
}

static int is_punct(const tok *t, char ch)
{
    return t->kind == TK_PUNCT && t->ch == ch;
}

static int num_digits(const tok *t, int lo, int hi)
{
    return t->kind == TK_NUM && t->ndig >= lo && t->ndig <= hi;
}

/* A word with a value, and flags saying how much context it needs. */
typedef struct name {
    const char *word; /* lower case; NULL ends a table */
    int value;
    unsigned flags;
} name;

enum {
    N_ABBR = 1,  /* an abbreviation: needs a number or an introducer */
    N_WORD = 2,  /* also a common word: needs a capital or an introducer */
    N_MODAL = 4, /* "may": lower case only after a strong introducer */
};

static const name months[] = {
    {"january", 1, 0},    {"jan", 1, N_ABBR},    {"february", 2, 0},  {"feb", 2, N_ABBR},
    {"march", 3, N_WORD}, {"mar", 3, N_ABBR},    {"april", 4, 0},     {"apr", 4, N_ABBR},
    {"may", 5, N_MODAL},  {"june", 6, 0},        {"jun", 6, N_ABBR},  {"july", 7, 0},
    {"jul", 7, N_ABBR},   {"august", 8, N_WORD}, {"aug", 8, N_ABBR},  {"september", 9, 0},
    {"sept", 9, N_ABBR},  {"sep", 9, N_ABBR},    {"october", 10, 0},  {"oct", 10, N_ABBR},
    {"november", 11, 0},  {"nov", 11, N_ABBR},   {"december", 12, 0}, {"dec", 12, N_ABBR},
    {NULL, 0, 0},
};

static const name weekdays[] = {
    {"monday", 0, 0},    {"mon", 0, N_ABBR},  {"tuesday", 1, 0},    {"tue", 1, N_ABBR},
    {"tues", 1, N_ABBR}, {"wednesday", 2, 0}, {"wed", 2, N_ABBR},   {"thursday", 3, 0},
    {"thu", 3, N_ABBR},  {"thur", 3, N_ABBR}, {"thurs", 3, N_ABBR}, {"friday", 4, 0},
    {"fri", 4, N_ABBR},  {"saturday", 5, 0},  {"sat", 5, N_ABBR},   {"sunday", 6, 0},
    {"sun", 6, N_ABBR},  {NULL, 0, 0},
};

/* value: the season's first month. */
static const name seasons[] = {
    {"spring", 3, N_WORD}, {"summer", 6, 0},  {"autumn", 9, 0},
    {"fall", 9, N_WORD},   {"winter", 12, 0}, {NULL, 0, 0},
};

static const name units[] = {
    {"day", GRAIN_DAY, 0},
    {"days", GRAIN_DAY, 0},
    {"week", GRAIN_WEEK, 0},
    {"weeks", GRAIN_WEEK, 0},
    {"month", GRAIN_MONTH, 0},
    {"months", GRAIN_MONTH, 0},
    {"year", GRAIN_YEAR, 0},
    {"years", GRAIN_YEAR, 0},
    {"fortnight", GRAIN_WEEK, 2},
    {"fortnights", GRAIN_WEEK, 2},
    {NULL, 0, 0},
};

static const name rel_words[] = {
    {"last", PICK_LAST, 0}, {"previous", PICK_LAST, 0},
    {"this", PICK_THIS, 0}, {"next", PICK_NEXT, 0},
    {NULL, 0, 0},
};

static const name ordinals[] = {
    {"st", 0, 0}, {"nd", 0, 0}, {"rd", 0, 0}, {"th", 0, 0}, {NULL, 0, 0},
};

/* Days of the month as ordinal words ("the first of May", "June tenth");
 * "twenty" and "thirty" combine with first..ninth ("twenty-first"). */
static const name ordinal_words[] = {
    {"first", 1, 0},        {"second", 2, 0},      {"third", 3, 0},       {"fourth", 4, 0},
    {"fifth", 5, 0},        {"sixth", 6, 0},       {"seventh", 7, 0},     {"eighth", 8, 0},
    {"ninth", 9, 0},        {"tenth", 10, 0},      {"eleventh", 11, 0},   {"twelfth", 12, 0},
    {"thirteenth", 13, 0},  {"fourteenth", 14, 0}, {"fifteenth", 15, 0},  {"sixteenth", 16, 0},
    {"seventeenth", 17, 0}, {"eighteenth", 18, 0}, {"nineteenth", 19, 0}, {"twentieth", 20, 0},
    {"thirtieth", 30, 0},   {NULL, 0, 0},
};

static const name tens_words[] = {{"twenty", 20, 0}, {"thirty", 30, 0}, {NULL, 0, 0}};

/* Which one of several in a period: "the first weekend", "the last week". */
static const name positions[] = {
    {"first", 1, 0}, {"second", 2, 0}, {"third", 3, 0},  {"fourth", 4, 0},
    {"fifth", 5, 0}, {"last", -1, 0},  {"final", -1, 0}, {NULL, 0, 0},
};

/* Thirds of a period: early, mid, late, and their "the ... of" forms. */
static const name third_words[] = {
    {"early", 0, 0},
    {"mid", 1, 0},
    {"late", 2, 0},
    {NULL, 0, 0},
};
static const name third_nouns[] = {
    {"beginning", 0, 0}, {"start", 0, 0}, {"middle", 1, 0}, {"end", 2, 0}, {NULL, 0, 0},
};

/* Words before a date word that say it is one. LIC_YEAR: a bare 4-digit
 * number after it is a year; LIC_NAME: a month or season name (and an
 * abbreviation) after it is one; LIC_MODAL: even lower-case "may". */
enum { LIC_YEAR = 1, LIC_NAME = 2, LIC_MODAL = 4 };
#define LIC_ALL (LIC_YEAR | LIC_NAME | LIC_MODAL)

static const name introducers[] = {
    {"in", LIC_ALL, 0},
    {"during", LIC_ALL, 0},
    {"since", LIC_ALL, 0},
    {"until", LIC_ALL, 0},
    {"till", LIC_ALL, 0},
    {"til", LIC_ALL, 0},
    {"before", LIC_ALL, 0},
    {"after", LIC_ALL, 0},
    {"through", LIC_ALL, 0},
    {"throughout", LIC_ALL, 0},
    {"circa", LIC_ALL, 0},
    {"early", LIC_ALL, 0},
    {"mid", LIC_ALL, 0},
    {"late", LIC_ALL, 0},
    {"on", LIC_NAME | LIC_MODAL, 0},
    {"of", LIC_NAME | LIC_MODAL, 0},
    {"by", LIC_NAME | LIC_MODAL, 0},
    {"from", LIC_NAME | LIC_MODAL, 0},
    {"around", LIC_NAME | LIC_MODAL, 0},
    {"last", LIC_NAME | LIC_MODAL, 0},
    {"next", LIC_NAME | LIC_MODAL, 0},
    {"every", LIC_NAME | LIC_MODAL, 0},
    {"each", LIC_NAME | LIC_MODAL, 0},
    {"this", LIC_NAME, 0},
    {"my", LIC_YEAR | LIC_NAME, 0},
    {"our", LIC_YEAR | LIC_NAME, 0},
    {"your", LIC_YEAR | LIC_NAME, 0},
    {"his", LIC_YEAR | LIC_NAME, 0},
    {"her", LIC_NAME, 0}, /* "gave her 2000 dollars" */
    {"their", LIC_YEAR | LIC_NAME, 0},
    {"year", LIC_YEAR, 0},
    {"born", LIC_YEAR, 0},
    {"the", LIC_YEAR, 0},
    {NULL, 0, 0},
};

/* Words before a number that make it a count or a label, not a year. */
static const name year_deny[] = {
    {"room", 0, 0},   {"number", 0, 0}, {"no", 0, 0},      {"page", 0, 0},
    {"flight", 0, 0}, {"route", 0, 0},  {"apt", 0, 0},     {"apartment", 0, 0},
    {"suite", 0, 0},  {"bus", 0, 0},    {"version", 0, 0}, {"model", 0, 0},
    {"code", 0, 0},   {"pin", 0, 0},    {"zip", 0, 0},     {"id", 0, 0},
    {"ticket", 0, 0}, {"exit", 0, 0},   {"channel", 0, 0}, {"account", 0, 0},
    {"about", 0, 0},  {"over", 0, 0},   {"under", 0, 0},   {"nearly", 0, 0},
    {"almost", 0, 0}, {"than", 0, 0},   {"roughly", 0, 0}, {"approximately", 0, 0},
    {NULL, 0, 0},
};

/* Words after a bare number that leave it a year ("2019 was hard"). */
static const name year_followers[] = {
    {"was", 0, 0},  {"is", 0, 0},   {"were", 0, 0}, {"has", 0, 0},     {"had", 0, 0},
    {"and", 0, 0},  {"or", 0, 0},   {"to", 0, 0},   {"through", 0, 0}, {"until", 0, 0},
    {"when", 0, 0}, {"i", 0, 0},    {"we", 0, 0},   {"you", 0, 0},     {"he", 0, 0},
    {"she", 0, 0},  {"they", 0, 0}, {"it", 0, 0},   {"onwards", 0, 0}, {"onward", 0, 0},
    {"now", 0, 0},  {"then", 0, 0}, {"too", 0, 0},  {"again", 0, 0},   {NULL, 0, 0},
};

/* Words that make the next tokens' date part of the span ("in May"). */
static const name wrappers[] = {
    {"in", 0, 0},   {"on", 0, 0},      {"during", 0, 0},  {"over", 0, 0},   {"at", 0, 0},
    {"from", 0, 0}, {"between", 0, 0}, {"towards", 0, 0}, {"toward", 0, 0}, {NULL, 0, 0},
};

/* Words that say "when" for dates_has_expression() without being a date. */
static const name cue_words[] = {
    {"ago", 0, 0},      {"since", 0, 0},     {"weekend", 0, 0},      {"weekends", 0, 0},
    {"mondays", 0, 0},  {"tuesdays", 0, 0},  {"wednesdays", 0, 0},   {"thursdays", 0, 0},
    {"fridays", 0, 0},  {"saturdays", 0, 0}, {"sundays", 0, 0},      {"christmas", 0, 0},
    {"xmas", 0, 0},     {"easter", 0, 0},    {"thanksgiving", 0, 0}, {"halloween", 0, 0},
    {"hanukkah", 0, 0}, {"diwali", 0, 0},    {"ramadan", 0, 0},      {"recently", 0, 0},
    {"lately", 0, 0},   {NULL, 0, 0},
};

/* The first byte of word t as word_match compares it (A-Z lowered); 0 for
 * a token that is not a word. No word of a table can match t unless it
 * begins with that byte: the tables are asked at every token, and most
 * words begin otherwise. */
static unsigned char first_folded(const tok *t)
{
    unsigned char c = t->kind == TK_WORD && t->len > 0 ? (unsigned char)t->s[0] : 0;
    return c >= 'A' && c <= 'Z' ? c | 32 : c;
}

static const name *find_name(const tok *t, const name *table)
{
    unsigned char f = first_folded(t);
    if (!f)
        return NULL;
    for (; table->word; table++)
        if ((unsigned char)table->word[0] == f && word_match(t, table->word))
            return table;
    return NULL;
}

static int intro_flags(const tok *t)
{
    const name *n = find_name(t, introducers);
    return n ? n->value : 0;
}

/* A fixed run of words, and two numbers that go with it. */
typedef struct phrase {
    const char *words; /* lower case, one space between words; NULL ends a table */
    int a, b;
} phrase;

/* N in "N days ago"; longer phrases first. */
static const phrase quantities[] = {
    {"a couple of", 2, 0}, {"a couple", 2, 0}, {"couple of", 2, 0}, {"a few", 3, 0},
    {"few", 3, 0},         {"several", 3, 0},  {"a", 1, 0},         {"an", 1, 0},
    {"one", 1, 0},         {"two", 2, 0},      {"three", 3, 0},     {"four", 4, 0},
    {"five", 5, 0},        {"six", 6, 0},      {"seven", 7, 0},     {"eight", 8, 0},
    {"nine", 9, 0},        {"ten", 10, 0},     {"eleven", 11, 0},   {"twelve", 12, 0},
    {NULL, 0, 0},
};

/* Days named outright: [today + a, today + b). */
static const phrase day_phrases[] = {
    {"the day before yesterday", -2, -1},
    {"the day after tomorrow", 2, 3},
    {"day before yesterday", -2, -1},
    {"day after tomorrow", 2, 3},
    {"today", 0, 1},
    {"tonight", 0, 1},
    {"this morning", 0, 1},
    {"this afternoon", 0, 1},
    {"this evening", 0, 1},
    {"yesterday", -1, 0},
    {"last night", -1, 0},
    {"tomorrow", 1, 2},
    {"recently", -13, 1},
    {"lately", -13, 1},
    {"the other day", -7, 0},
    {"earlier today", 0, 1},
    {"later today", 0, 1},
    {NULL, 0, 0},
};

/* Weekends: a is the Monday-week's offset, or PICK_RECENT. */
static const phrase weekends[] = {
    {"this past weekend", -1, 0}, {"last weekend", -1, 0},         {"this weekend", 0, 0},
    {"next weekend", 1, 0},       {"the weekend", PICK_RECENT, 0}, {NULL, 0, 0},
};

/* How many tokens from i spell the words of p; 0 unless all of them do. */
static int match_words(const win *w, int i, const char *p)
{
    int k = 0, n;
    while (*p) {
        if (!(n = word_match(at(w, i + k), p)))
            return 0;
        k++;
        p += n;
        p += *p == ' ';
    }
    return k;
}

/* The first phrase of table at i, *k its length in tokens; NULL if none. */
static const phrase *find_phrase(const win *w, int i, const phrase *table, int *k)
{
    unsigned char f = first_folded(at(w, i));
    *k = 0;
    for (; f && table->words; table++)
        if ((unsigned char)table->words[0] == f && (*k = match_words(w, i, table->words)))
            return table;
    return NULL;
}

/* ------------------------------------------------------------------ pieces */

/* Does the number starting at i stand alone on its left: no sign, decimal
 * point, digit or letter glued to it? "(2022", "mid-2022" are fine. */
static int clean_left(const win *w, int i)
{
    const tok *t = at(w, i), *p = at(w, i - 1);
    if (t->glue == TK_NONE)
        return 1;
    if (p->kind != TK_PUNCT)
        return 0;
    if (p->ch == '-')
        return p->glue == TK_WORD;
    return strchr("([\"'", p->ch) != NULL;
}

/* Does a number end cleanly before token j: a space, the end, or closing
 * punctuation, but not "2022.5", "10:30", "2022-23", "2022%", "3pm"? */
static int clean_right(const win *w, int j)
{
    const tok *t = at(w, j), *n = at(w, j + 1);
    if (t->kind == TK_NONE || t->glue == TK_NONE)
        return 1;
    if (t->kind != TK_PUNCT)
        return 0;
    if (strchr(".,:", t->ch))
        return !(n->kind == TK_NUM && n->glue != TK_NONE);
    return strchr(")]\"'!?;", t->ch) != NULL;
}

/* Are tokens i+1 .. i+n-1 each glued to the one before? */
static int glued_run(const win *w, int i, int n)
{
    int k;
    for (k = 1; k < n; k++)
        if (at(w, i + k)->glue == TK_NONE)
            return 0;
    return 1;
}

/* Does a sentence start after token p (none, or . ! ? ")? */
static int sentence_start(const tok *p)
{
    return p->kind == TK_NONE || (p->kind == TK_PUNCT && strchr(".!?\"", p->ch));
}

/* May the name n at token i be read as a date without a number next to it? */
static int name_licensed(const win *w, int i, const name *n)
{
    const tok *t = at(w, i), *p = at(w, i - 1);
    int lic = intro_flags(p), cap = t->s[0] >= 'A' && t->s[0] <= 'Z';
    if (n->flags & N_ABBR)
        return (lic & LIC_NAME) != 0;
    if (n->flags & N_MODAL)
        return (lic & LIC_MODAL) || (cap && !sentence_start(p));
    if (n->flags & N_WORD)
        return (lic & LIC_NAME) || cap;
    return 1;
}

/* The month named at i; *k gets its tokens (an abbreviation's '.' too). */
static const name *month_at(const win *w, int i, int *k)
{
    const name *m = find_name(at(w, i), months);
    const tok *dot = at(w, i + 1);
    *k = 1 + (m && (m->flags & N_ABBR) && is_punct(dot, '.') && dot->glue != TK_NONE);
    return m;
}

/* Past a leading weekday and its comma ("Mon, " in "Mon, May 8"); i if none. */
static int skip_weekday(const win *w, int i)
{
    if (!find_name(at(w, i), weekdays))
        return i;
    i++;
    i += is_punct(at(w, i), '.');
    i += is_punct(at(w, i), ',');
    return i;
}

/* A day of the month in words at i ("first", "twenty-first", "twenty
 * first"); returns its tokens, 0 if none. */
static int day_word_at(const win *w, int i, int *day)
{
    const name *tens = find_name(at(w, i), tens_words), *o;
    int k = 0;
    if (tens) {
        k = 1 + (is_punct(at(w, 1 + i), '-') && at(w, i + 1)->glue == TK_WORD);
        o = find_name(at(w, i + k), ordinal_words);
        if (o && o->value <= 9 && (tens->value == 20 || o->value == 1)) {
            *day = tens->value + o->value;
            return k + 1;
        }
        return 0;
    }
    if (!(o = find_name(at(w, i), ordinal_words)))
        return 0;
    *day = o->value;
    return 1;
}

/* A day number at i, one or two digits, maybe with its ordinal ("8th").
 * Returns its tokens (1 or 2), 0 if none; *day may still be out of range. */
static int day_at(const win *w, int i, int *day)
{
    const tok *t = at(w, i), *suffix = at(w, i + 1);
    int k = 1;
    if (t->kind == TK_WORD)
        return day_word_at(w, i, day);
    if (!num_digits(t, 1, 2) || !clean_left(w, i))
        return 0;
    if (suffix->kind == TK_WORD && suffix->glue != TK_NONE) {
        if (!find_name(suffix, ordinals))
            return 0;
        k = 2;
    }
    *day = t->val;
    return k;
}

/* An optional ',' or "of", then a 4-digit year ending cleanly. Returns its
 * tokens, 0 if there is none. */
static int year_after(const win *w, int i, int64_t *y)
{
    int k = is_punct(at(w, i), ',') || word_is(at(w, i), "of");
    const tok *t = at(w, i + k);
    if (!num_digits(t, 4, 4) || !clean_right(w, i + k + 1))
        return 0;
    *y = t->val;
    return k + 1;
}

/* A count at i ("3", "three", "a couple of"); returns its tokens, 0 if none. */
static int quantity(const win *w, int i, int *n)
{
    const tok *t = at(w, i);
    const phrase *p;
    int k;
    if (t->kind == TK_NUM) {
        if (t->val < 1 || t->val > MAX_COUNT || !clean_left(w, i))
            return 0;
        *n = t->val;
        return 1;
    }
    if (!(p = find_phrase(w, i, quantities, &k)))
        return 0;
    *n = p->a;
    return k;
}

/* A unit word at i ("days"); *g gets its grain. */
static int unit_at(const win *w, int i, int *g)
{
    const name *u = find_name(at(w, i), units);
    if (u)
        *g = u->value;
    return u != NULL;
}

/* How many of its grain the unit at i is: 2 for a fortnight, else 1. */
static int unit_factor(const win *w, int i)
{
    const name *u = find_name(at(w, i), units);
    return u && u->flags ? (int)u->flags : 1;
}

/* The end of a day-month form at token j: an optional year, else a clean
 * edge. Sets r and returns the tokens used from i, 0 if it is no date. */
static int finish_date(const ctx *c, const win *w, int i, int j, int mon, int day, date_range *r)
{
    int64_t y;
    int k = year_after(w, j, &y);
    if (k)
        set_ymd(r, y, mon, day);
    else if (clean_right(w, j))
        set_recent_day(c, mon, day, r);
    else
        return 0;
    return j + k - i;
}

/* ------------------------------------------------------------------ recognisers
 * Each tries one form at token i and returns the tokens it spans (0: no
 * match), with r set. */

/* 2023-05-08, 2023/05/08, 2023-5-8; "2023-05-08T10:30" too. */
static int rec_iso_day(const ctx *c, const win *w, int i, date_range *r)
{
    const tok *y = at(w, i), *s1 = at(w, i + 1), *m = at(w, i + 2), *d = at(w, i + 4);
    int time_follows = word_is(at(w, i + 5), "t") && at(w, i + 6)->kind == TK_NUM;
    (void)c;
    if (!num_digits(y, 4, 4) || !num_digits(m, 1, 2) || !num_digits(d, 1, 2))
        return 0;
    if (!(is_punct(s1, '-') || is_punct(s1, '/')) || !is_punct(at(w, i + 3), s1->ch))
        return 0;
    if (!glued_run(w, i, 5) || !clean_left(w, i))
        return 0;
    if (!clean_right(w, i + 5) && !(time_follows && glued_run(w, i + 4, 3)))
        return 0;
    set_ymd(r, y->val, m->val, d->val);
    return 5;
}

/* 2023-05: an ISO month (two-digit month, dash only). */
static int rec_iso_month(const ctx *c, const win *w, int i, date_range *r)
{
    const tok *y = at(w, i), *m = at(w, i + 2);
    (void)c;
    if (!num_digits(y, 4, 4) || y->val < 1 || !is_punct(at(w, i + 1), '-') || !num_digits(m, 2, 2))
        return 0;
    if (m->val < 1 || m->val > 12 || !glued_run(w, i, 3) || !clean_left(w, i) ||
        !clean_right(w, i + 3))
        return 0;
    set_month(r, y->val, m->val);
    return 3;
}

/* 5/8/2023, 5/8/23: month/day/year, or day/month/year when it must be. */
static int rec_numeric(const ctx *c, const win *w, int i, date_range *r)
{
    const tok *a = at(w, i), *b = at(w, i + 2), *yt = at(w, i + 4);
    int64_t mon, day, y;
    (void)c;
    if (!num_digits(a, 1, 2) || !num_digits(b, 1, 2) || !num_digits(yt, 2, 4) || yt->ndig == 3)
        return 0;
    if (!is_punct(at(w, i + 1), '/') || !is_punct(at(w, i + 3), '/') || !glued_run(w, i, 5))
        return 0;
    if (!clean_left(w, i) || !clean_right(w, i + 5))
        return 0;
    mon = a->val;
    day = b->val;
    y = yt->val;
    if (yt->ndig == 2)
        y += y < 70 ? 2000 : 1900;
    if (mon > 12 && day <= 12) {
        mon = b->val;
        day = a->val;
    }
    set_ymd(r, y, mon, day);
    return 5;
}

/* [Mon,] May [the] 8[th][,] [2023] */
static int rec_month_day(const ctx *c, const win *w, int i, date_range *r)
{
    int j = skip_weekday(w, i), k, dk, day;
    const name *m = month_at(w, j, &k);
    if (m && word_is(at(w, j + k), "the") && at(w, j + k + 2)->kind == TK_WORD &&
        at(w, j + k + 1)->kind == TK_NUM)
        k++; /* "April the 30th": only with the ordinal */
    if (!m || !(dk = day_at(w, j + k, &day)))
        return 0;
    return finish_date(c, w, i, j + k + dk, m->value, day, r);
}

/* [Mon,] [the] 8[th] [of] May[,] [2023] */
static int rec_day_month(const ctx *c, const win *w, int i, date_range *r)
{
    int j = skip_weekday(w, i), k, day;
    const name *m;
    j += word_is(at(w, j), "the");
    if (!(k = day_at(w, j, &day)))
        return 0;
    j += k;
    j += word_is(at(w, j), "of");
    if (!(m = month_at(w, j, &k)))
        return 0;
    return finish_date(c, w, i, j + k, m->value, day, r);
}

/* May 2023, May of 2023, Sept. 2022 */
static int rec_month_year(const ctx *c, const win *w, int i, date_range *r)
{
    int k, yk;
    int64_t y;
    const name *m = month_at(w, i, &k);
    (void)c;
    if (!m || !(yk = year_after(w, i + k, &y)))
        return 0;
    if (y < 1)
        set_invalid(r);
    else
        set_month(r, y, m->value);
    return k + yk;
}

/* last|this|next May */
static int rec_month_rel(const ctx *c, const win *w, int i, date_range *r)
{
    const name *rel = find_name(at(w, i), rel_words), *m;
    int k;
    if (!rel || !(m = month_at(w, i + 1, &k)) || !name_licensed(w, i + 1, m))
        return 0;
    set_month_pick(c, m->value, rel->value, r);
    return 1 + k;
}

/* May (in context): the latest May that has begun. */
static int rec_month(const ctx *c, const win *w, int i, date_range *r)
{
    int k;
    const name *m = month_at(w, i, &k);
    if (!m || !name_licensed(w, i, m))
        return 0;
    set_month_pick(c, m->value, PICK_RECENT, r);
    r->no_year = 1;
    return k;
}

/* 2010-2015, 2010 - 2015, 2019-20: whole years, the first to the last. */
static int rec_year_span(const ctx *c, const win *w, int i, date_range *r)
{
    const tok *a = at(w, i), *dash = at(w, i + 1), *b = at(w, i + 2);
    int64_t last;
    (void)c;
    if (!num_digits(a, 4, 4) || a->val < 1900 || a->val > 2099 || !is_punct(dash, '-') ||
        !num_digits(b, 2, 4) || b->ndig == 3)
        return 0;
    if ((dash->glue == TK_NONE) != (b->glue == TK_NONE) || !clean_left(w, i) ||
        !clean_right(w, i + 3))
        return 0;
    last = b->ndig == 4 ? b->val : a->val - a->val % 100 + b->val;
    if (last <= a->val || last > 2099)
        return 0;
    set_days(r, month_start(a->val, 1), month_start(last + 1, 1), GRAIN_YEAR);
    return 3;
}

/* Does the number at i read as a year without a month next to it? */
static int year_licensed(const win *w, int i)
{
    const tok *p = at(w, i - 1), *n = at(w, i + 1);
    if (find_name(p, year_deny))
        return 0;
    if (intro_flags(p) & LIC_YEAR)
        return 1;
    return n->kind != TK_WORD || find_name(n, year_followers) != NULL;
}

/* 2022 (in context) */
static int rec_year(const ctx *c, const win *w, int i, date_range *r)
{
    const tok *t = at(w, i);
    (void)c;
    if (!num_digits(t, 4, 4) || t->val < 1900 || t->val > 2099)
        return 0;
    if (!clean_left(w, i) || !clean_right(w, i + 1) || !year_licensed(w, i))
        return 0;
    set_year(r, t->val);
    return 1;
}

/* today, yesterday, the day after tomorrow, recently... */
static int rec_day_phrase(const ctx *c, const win *w, int i, date_range *r)
{
    int k;
    const phrase *p = find_phrase(w, i, day_phrases, &k);
    const tok *before = at(w, i - 1);
    if (!p)
        return 0;
    if (p->a == -13 && (word_is(before, "more") || word_is(before, "most") ||
                        word_is(before, "less") || word_is(before, "least")))
        return 0; /* "more recently" compares; it names no days */
    set_days(r, c->today + p->a, c->today + p->b, GRAIN_DAY);
    return k;
}

/* last|this|next weekend, this past weekend, the weekend */
static int rec_weekend(const ctx *c, const win *w, int i, date_range *r)
{
    int k, week;
    const phrase *p = find_phrase(w, i, weekends, &k);
    int64_t saturday;
    if (!p)
        return 0;
    week = p->a != PICK_RECENT ? p->a : c->wd >= 5 ? 0 : -1;
    saturday = c->today - c->wd + 5 + 7 * week;
    set_days(r, saturday, saturday + 2, GRAIN_DAY);
    return k;
}

/* N days ago, a couple of weeks ago, 3 days from now */
static int rec_ago(const ctx *c, const win *w, int i, date_range *r)
{
    int n, g, k = quantity(w, i, &n), ahead;
    int64_t d;
    if (!k || !unit_at(w, i + k, &g))
        return 0;
    n *= unit_factor(w, i + k);
    if (word_is(at(w, i + k + 1), "ago")) {
        if (word_is(at(w, i + k + 2), "today")) { /* a week ago today: that very day */
            d = days_on(c, g, -(int64_t)n);
            set_days(r, d, d + 1, GRAIN_DAY);
            return k + 3;
        }
        set_shift(c, g, -(int64_t)n, r);
        return k + 2;
    }
    if (word_is(at(w, i + k + 1), "from") &&
        (word_is(at(w, i + k + 2), "today") || word_is(at(w, i + k + 2), "tomorrow"))) {
        ctx a = ctx_at(c->today + word_is(at(w, i + k + 2), "tomorrow"));
        d = days_on(&a, g, n);
        set_days(r, d, d + 1, GRAIN_DAY);
        return k + 3;
    }
    if (!(ahead = match_words(w, i + k + 1, "from now")))
        return 0;
    set_shift(c, g, n, r);
    return k + 1 + ahead;
}

/* in 3 days, in a couple of weeks */
static int rec_in(const ctx *c, const win *w, int i, date_range *r)
{
    int n, g, k;
    if (!word_is(at(w, i), "in") || !(k = quantity(w, i + 1, &n)) || !unit_at(w, i + 1 + k, &g))
        return 0;
    set_shift(c, g, (int64_t)n * unit_factor(w, i + 1 + k), r);
    return 2 + k;
}

/* last|this|next week|month|year */
static int rec_rel_unit(const ctx *c, const win *w, int i, date_range *r)
{
    const name *rel = find_name(at(w, i), rel_words);
    int g;
    if (!rel || !unit_at(w, i + 1, &g) || g == GRAIN_DAY || unit_factor(w, i + 1) != 1)
        return 0;
    set_shift(c, g, rel->value, r);
    return 2;
}

/* [the] past|last|next [N] days|weeks|months|years: a rolling window.
 * Plain "last week", "next week" are left to rec_rel_unit. */
static int rec_window(const ctx *c, const win *w, int i, date_range *r)
{
    int the = word_is(at(w, i), "the"), n = 1, k, g;
    const tok *p = at(w, i + the);
    int ahead = word_is(p, "next");
    if (!ahead && !word_is(p, "past") && !word_is(p, "last"))
        return 0;
    k = quantity(w, i + the + 1, &n);
    if (!the && !k && !word_is(p, "past"))
        return 0;
    if (!unit_at(w, i + the + 1 + k, &g))
        return 0;
    n *= unit_factor(w, i + the + 1 + k);
    set_window(c, g, ahead ? n : -n, r);
    return the + 2 + k;
}

/* [last|this|next] Monday; abbreviations only after those or "on". */
static int rec_weekday(const ctx *c, const win *w, int i, date_range *r)
{
    const name *rel = find_name(at(w, i), rel_words), *d;
    int k = rel != NULL;
    int64_t day;
    if (!(d = find_name(at(w, i + k), weekdays)))
        return 0;
    if ((d->flags & N_ABBR) && !rel && !word_is(at(w, i - 1), "on"))
        return 0;
    day = pick_weekday(c, d->value, rel ? rel->value : PICK_RECENT);
    set_days(r, day, day + 1, GRAIN_DAY);
    return k + 1;
}

/* last|this|next summer */
static int rec_season_rel(const ctx *c, const win *w, int i, date_range *r)
{
    const name *rel = find_name(at(w, i), rel_words), *s = find_name(at(w, i + 1), seasons);
    if (!rel || !s)
        return 0;
    set_season_pick(c, s->value, rel->value, r);
    return 2;
}

/* [the] summer [of] [2022]; without a year, the latest summer begun, in
 * context ("in the summer", "during spring", "the winter"). */
static int rec_season(const ctx *c, const win *w, int i, date_range *r)
{
    int the = word_is(at(w, i), "the"), yk;
    const name *s = find_name(at(w, i + the), seasons);
    int64_t y;
    if (!s)
        return 0;
    if ((yk = year_after(w, i + the + 1, &y))) {
        set_season(r, y, s->value);
        return the + 1 + yk;
    }
    if (!(intro_flags(at(w, i - 1)) & LIC_NAME) && !(the && !(s->flags & N_WORD)))
        return 0;
    set_season_pick(c, s->value, PICK_RECENT, r);
    r->no_year = 1;
    return the + 1;
}

/* ------------------------------------------------------------------ holidays */

/* A holiday: a fixed day (month, day), the nth weekday of a month (wd, n;
 * n = -1 the last), or Easter Sunday plus day days (month = 0). */
typedef struct holiday {
    const char *words; /* lower case; "'s" is a possessive, also written "s" */
    int month, day, wd, n;
} holiday;

static const holiday holidays[] = {
    {"christmas eve", 12, 24, 0, 0},
    {"christmas day", 12, 25, 0, 0},
    {"christmas", 12, 25, 0, 0},
    {"xmas", 12, 25, 0, 0},
    {"boxing day", 12, 26, 0, 0},
    {"new year's eve", 12, 31, 0, 0},
    {"new year's day", 1, 1, 0, 0},
    {"halloween", 10, 31, 0, 0},
    {"valentine's day", 2, 14, 0, 0},
    {"st patrick's day", 3, 17, 0, 0},
    {"saint patrick's day", 3, 17, 0, 0},
    {"independence day", 7, 4, 0, 0},
    {"thanksgiving day", 11, 0, 3, 4},
    {"thanksgiving", 11, 0, 3, 4},
    {"mother's day", 5, 0, 6, 2},
    {"father's day", 6, 0, 6, 3},
    {"memorial day", 5, 0, 0, -1},
    {"labor day", 9, 0, 0, 1},
    {"labour day", 9, 0, 0, 1},
    {"good friday", 0, -2, 0, 0},
    {"easter sunday", 0, 0, 0, 0},
    {"easter monday", 0, 1, 0, 0},
    {"easter", 0, 0, 0, 0},
    {NULL, 0, 0, 0, 0},
};

/* The day of the nth weekday wd of month m of year y (n = -1: the last),
 * or INT64_MIN when the month has no such day. */
static int64_t nth_weekday(int64_t y, int m, int wd, int n)
{
    int64_t first = month_start(y, m), next = month_start(y, m + 1), d;
    if (n < 0)
        return next - 1 - floor_mod(weekday(next - 1) - wd, 7);
    d = first + floor_mod(wd - weekday(first), 7) + 7 * (int64_t)(n - 1);
    return d < next ? d : INT64_MIN;
}

/* Easter Sunday of year y (the Gregorian computus, anonymous algorithm). */
static int64_t easter_day(int64_t y)
{
    int64_t a = y % 19, b = y / 100, cc = y % 100, d = b / 4, e = b % 4, f = (b + 8) / 25;
    int64_t g = (b - f + 1) / 3, h = (19 * a + b - d - g + 15) % 30, i = cc / 4, k = cc % 4;
    int64_t l = (32 + 2 * e + 2 * i - h - k) % 7, m = (a + 11 * h + 22 * l) / 451;
    int64_t n = h + l - 7 * m + 114;
    return civil_days(y, (unsigned)(n / 31), (unsigned)(n % 31 + 1));
}

static int64_t holiday_day(const holiday *h, int64_t y)
{
    if (y < 1 || y > 9999)
        return INT64_MIN;
    if (h->month == 0)
        return easter_day(y) + h->day;
    if (h->day > 0)
        return civil_days(y, (unsigned)h->month, (unsigned)h->day);
    return nth_weekday(y, h->month, h->wd, h->n);
}

/* How many tokens from i spell the holiday's words; "'s" may be "'s", "’s",
 * "s" glued to the word, or missing; "st" may take a '.'. 0 if they do not. */
static int match_holiday(const win *w, int i, const char *p)
{
    int k = 0;
    while (*p) {
        const char *sp = strchr(p, ' ');
        size_t n = sp ? (size_t)(sp - p) : strlen(p);
        int poss = n > 2 && p[n - 2] == '\'' && p[n - 1] == 's';
        char word[24];
        const tok *t = at(w, i + k);
        if (n >= sizeof word)
            return 0;
        memcpy(word, p, n - 2 * poss);
        word[n - 2 * poss] = 0;
        if (poss && !word_is(t, word)) {
            char plural[26];
            size_t wn = strlen(word);
            memcpy(plural, word, wn); /* "valentines day" */
            plural[wn] = 's';
            plural[wn + 1] = 0;
            if (!word_is(t, plural))
                return 0;
            k++;
        } else if (word_is(t, word)) {
            k++;
            if (poss && (is_punct(at(w, i + k), '\'') || is_punct(at(w, i + k), '"')) &&
                at(w, i + k)->glue == TK_WORD && word_is(at(w, i + k + 1), "s") &&
                at(w, i + k + 1)->glue == TK_PUNCT)
                k += 2;
            else if (strcmp(word, "st") == 0 && is_punct(at(w, i + k), '.'))
                k++;
        } else {
            return 0;
        }
        p += n;
        p += *p == ' ';
    }
    return k;
}

static const holiday *holiday_at(const win *w, int i, int *k)
{
    const holiday *h;
    unsigned char f = first_folded(at(w, i));
    *k = 0;
    for (h = holidays; f && h->words; h++)
        if ((unsigned char)h->words[0] == f && (*k = match_holiday(w, i, h->words)))
            return h;
    return NULL;
}

/* The day of h that mode picks around today: the latest on or before it
 * (PICK_RECENT), the latest before it, this calendar year's, the first
 * after it. */
static int64_t pick_holiday(const ctx *c, const holiday *h, int mode)
{
    int64_t y, d;
    if (mode == PICK_THIS)
        return holiday_day(h, c->y);
    if (mode == PICK_NEXT) {
        for (y = c->y; y <= c->y + 1; y++)
            if ((d = holiday_day(h, y)) != INT64_MIN && d > c->today)
                return d;
        return INT64_MIN;
    }
    for (y = c->y; y >= c->y - 1; y--) {
        d = holiday_day(h, y);
        if (d != INT64_MIN && (d < c->today || (mode == PICK_RECENT && d == c->today)))
            return d;
    }
    return INT64_MIN;
}

/* [last|this|next] Christmas [[,|of] 2022] */
static int rec_holiday(const ctx *c, const win *w, int i, date_range *r)
{
    const name *rel = find_name(at(w, i), rel_words);
    int j = i + (rel != NULL), k, yk;
    const holiday *h = holiday_at(w, j, &k);
    int64_t y, d;
    if (!h || (h->month == 0 && h->day == -2 && at(w, j)->s[0] != 'G'))
        return 0; /* "a good Friday at work" is a Friday, not Good Friday */
    if (!rel && (yk = year_after(w, j + k, &y))) {
        d = holiday_day(h, y);
        k += yk;
    } else {
        d = pick_holiday(c, h, rel ? rel->value : PICK_RECENT);
        r->no_year = !rel;
    }
    if (d == INT64_MIN)
        set_invalid(r);
    else
        set_days(r, d, d + 1, GRAIN_DAY);
    return j + k - i;
}

/* ------------------------------------------------------------------ nesting
 * Forms built on other forms ("the first weekend of June 2023", "the week
 * before Christmas", "from June to August 2023") read the inner form with
 * form_at(), which tries only the recognisers of lower levels: LV_PART
 * builds on LV_BASIC, LV_REL on LV_PART, LV_ALL on LV_REL. The inner form
 * always starts after the outer one's first token, so nothing recurses
 * forever, and each (level, token) is worked out once per position. */

static int form_at(const ctx *c, const win *w, int i, int level, date_range *r);

static int64_t day_of_secs(int64_t secs)
{
    return floor_div(secs, DAY_SECS);
}

/* Does [from, to) start on the first of a month and end on one, and how
 * many months is it? 0 if not. */
static int64_t whole_months(int64_t from, int64_t to)
{
    int y0, y1;
    unsigned m0, d0, m1, d1;
    civil_from_days(from, &y0, &m0, &d0);
    civil_from_days(to, &y1, &m1, &d1);
    if (d0 != 1 || d1 != 1 || to <= from)
        return 0;
    return ((int64_t)y1 - y0) * 12 + (int64_t)m1 - (int64_t)m0;
}

/* Set r to [from, to) if that is non-empty and inside [lo, hi); else invalid. */
static void set_inside(date_range *r, int64_t from, int64_t to, int64_t lo, int64_t hi,
                       date_grain g)
{
    int no_year = r->no_year;
    if (from < lo || to > hi || from >= to)
        set_invalid(r);
    else
        set_days(r, from, to, g);
    r->no_year = no_year;
}

/* Position at i: first..fifth, last, final, or 1st..5th. */
static int position_at(const win *w, int i, int *pos)
{
    const name *p = find_name(at(w, i), positions);
    const tok *t = at(w, i), *sfx = at(w, i + 1);
    if (p) {
        *pos = p->value;
        return 1;
    }
    if (num_digits(t, 1, 1) && t->val >= 1 && t->val <= 5 && sfx->glue == TK_NUM &&
        find_name(sfx, ordinals)) {
        *pos = t->val;
        return 2;
    }
    return 0;
}

/* The part of [s, e) that pos, n and the unit u name: n days or weeks
 * (u = 1 or 7) from the start (pos 1), back from the end (pos -1), or the
 * pos-th one. */
static void set_run_part(date_range *r, int64_t s, int64_t e, int pos, int n, int u)
{
    date_grain g = u == 7 ? GRAIN_WEEK : GRAIN_DAY;
    int64_t len = (int64_t)n * u;
    if (pos < 0)
        set_inside(r, e - len, e, s, e, g);
    else
        set_inside(r, s + len * (pos - 1), s + len * pos, s, e, g);
}

/* The pos-th (or last) n months of [s, e), which must be whole months. */
static void set_month_part(date_range *r, int64_t s, int64_t e, int pos, int n, int per)
{
    int64_t len = (int64_t)n * per;
    if (!whole_months(s, e))
        set_invalid(r);
    else if (pos < 0)
        set_inside(r, add_months(e, -len), e, s, e, GRAIN_MONTH);
    else
        set_inside(r, add_months(s, len * (pos - 1)), add_months(s, len * pos), s, e, GRAIN_MONTH);
}

/* The halves of [s, e): a month splits after the 15th, whole months by
 * months, anything else at its middle day. */
static void set_half(date_range *r, int64_t s, int64_t e, date_grain g, int second)
{
    int64_t nmon = whole_months(s, e), mid;
    if (g == GRAIN_MONTH && nmon == 1)
        mid = s + 15;
    else if (nmon >= 2 && nmon % 2 == 0)
        mid = add_months(s, nmon / 2);
    else
        mid = s + (e - s) / 2;
    set_inside(r, second ? mid : s, second ? e : mid, s, e, nmon >= 2 ? GRAIN_MONTH : GRAIN_DAY);
}

/* The nth weekday wd of [s, e) (n = -1: the last); a weekend is its
 * Saturday and the Sunday after. */
static void set_nth_day(date_range *r, int64_t s, int64_t e, int wd, int n, int weekend)
{
    int64_t d = n < 0 ? e - 1 - floor_mod(weekday(e - 1) - wd, 7)
                      : s + floor_mod(wd - weekday(s), 7) + 7 * (int64_t)(n - 1);
    if (d < s || d >= e)
        set_invalid(r);
    else
        set_days(r, d, d + 1 + weekend, GRAIN_DAY);
}

/* A weekday named in full or abbreviated ("monday", "fri"), or its plural
 * ("mondays") when plural; its number, -1 if none. */
static int weekday_word(const tok *t, int plural)
{
    const name *d;
    tok base = *t;
    if (t->kind != TK_WORD)
        return -1;
    if (plural) {
        if (t->len < 2 || (t->s[t->len - 1] | 32) != 's')
            return -1;
        base.len--;
    }
    d = find_name(&base, weekdays);
    return d && (!plural || !(d->flags & N_ABBR)) ? d->value : -1;
}

/* [the] first|second|...|last [N] day(s)|week(s)|month(s)|quarter|half|
 * weekend|<weekday> of|in P: a part of the period P that follows. */
static int rec_part(const ctx *c, const win *w, int i, date_range *r)
{
    int j = i + word_is(at(w, i), "the"), pos, n = 1, k, wd = -1, u = 0, pk;
    const tok *unit;
    date_range p = {0};
    int64_t s, e;
    if (!(k = position_at(w, j, &pos)))
        return 0;
    j += k;
    if (pos == 1 || pos == -1)
        j += quantity(w, j, &n);
    unit = at(w, j);
    if (word_is(unit, "day") || word_is(unit, "days"))
        u = 1;
    else if (word_is(unit, "week") || word_is(unit, "weeks"))
        u = 7;
    else if (word_is(unit, "month") || word_is(unit, "months"))
        u = 30;
    else if (word_is(unit, "quarter"))
        u = 90;
    else if (word_is(unit, "half"))
        u = 180;
    else if (word_is(unit, "weekend"))
        wd = 5;
    else
        wd = weekday_word(unit, 0);
    if ((!u && wd < 0) || (n != 1 && !u) || (n != 1 && pos != 1 && pos != -1))
        return 0;
    if (!(word_is(at(w, j + 1), "of") || word_is(at(w, j + 1), "in")))
        return 0;
    if (!(pk = form_at(c, w, j + 2, LV_BASIC, &p)))
        return 0;
    s = day_of_secs(p.start);
    e = day_of_secs(p.end);
    r->no_year = p.no_year;
    if (p.end <= p.start)
        set_invalid(r);
    else if (wd >= 0)
        set_nth_day(r, s, e, wd, pos, word_is(unit, "weekend"));
    else if (u <= 7)
        set_run_part(r, s, e, pos, n, u);
    else if (u == 30)
        set_month_part(r, s, e, pos, n, 1);
    else if (u == 90)
        set_month_part(r, s, e, pos < 0 ? 4 : pos, 1, 3);
    else
        set_half(r, s, e, p.grain, pos != 1);
    r->no_year = p.no_year;
    return j + 2 + pk - i;
}

/* Q1..Q4 2023 */
static int rec_quarter(const ctx *c, const win *w, int i, date_range *r)
{
    const tok *n = at(w, i + 1);
    int64_t y;
    int yk;
    (void)c;
    if (!word_is(at(w, i), "q") || !num_digits(n, 1, 1) || n->glue != TK_WORD || n->val < 1 ||
        n->val > 4 || !(yk = year_after(w, i + 2, &y)) || y < 1)
        return 0;
    set_month(r, y, 3 * n->val - 2);
    r->end = month_start(y, 3 * n->val + 1) * DAY_SECS;
    r->grain = GRAIN_SEASON;
    return 2 + yk;
}

/* The third t (0 early, 1 mid, 2 late) of [s, e): a month by days 1-10,
 * 11-20, 21-end; a week Mon-Wed, Tue-Thu, Thu-Sun; whole months by months;
 * anything else by days. A day or two stays itself. */
static void set_third(date_range *r, int64_t s, int64_t e, date_grain g, int t)
{
    int64_t nmon = whole_months(s, e), len = e - s;
    int no_year = r->no_year;
    if (g == GRAIN_MONTH && nmon == 1)
        set_days(r, t == 0 ? s : s + 10 * t, t == 2 ? e : s + 10 * (t + 1), GRAIN_DAY);
    else if (g == GRAIN_WEEK && len == 7)
        set_days(r,
                 s + (t == 0   ? 0
                      : t == 1 ? 1
                               : 3),
                 s + (t == 0   ? 3
                      : t == 1 ? 4
                               : 7),
                 GRAIN_DAY);
    else if (nmon >= 3 && nmon % 3 == 0)
        set_days(r, add_months(s, nmon / 3 * t), add_months(s, nmon / 3 * (t + 1)), GRAIN_MONTH);
    else if (len >= 3)
        set_days(r, s + len / 3 * t, t == 2 ? e : s + len / 3 * (t + 1), GRAIN_DAY);
    else
        set_days(r, s, e, g);
    r->no_year = no_year;
}

/* early|mid|late [-] [in] P, later in P, [the] beginning|start|middle|end of P */
static int rec_third(const ctx *c, const win *w, int i, date_range *r)
{
    const name *t = find_name(at(w, i), third_words);
    int j = i + 1, pk;
    date_range p = {0};
    if (t) {
        if (is_punct(at(w, j), '-') && at(w, j)->glue == TK_WORD)
            j++;
        else if (word_is(at(w, j), "in"))
            j++;
    } else if (word_is(at(w, i), "later") && word_is(at(w, i + 1), "in")) {
        t = &third_words[2];
        j = i + 2;
    } else {
        j = i + word_is(at(w, i), "the");
        if (!(t = find_name(at(w, j), third_nouns)) || !word_is(at(w, j + 1), "of"))
            return 0;
        j += 2;
    }
    if (!(pk = form_at(c, w, j, LV_BASIC, &p)) || p.end <= p.start)
        return 0;
    r->no_year = p.no_year;
    set_third(r, day_of_secs(p.start), day_of_secs(p.end), p.grain, t->value);
    return j + pk - i;
}

/* earlier|later this week|month|year: the part of it up to and with today,
 * or from today on. */
static int rec_earlier(const ctx *c, const win *w, int i, date_range *r)
{
    int later = word_is(at(w, i), "later"), g;
    date_range u = {0};
    if (!(later || word_is(at(w, i), "earlier")) || !word_is(at(w, i + 1), "this") ||
        !unit_at(w, i + 2, &g) || g == GRAIN_DAY)
        return 0;
    set_shift(c, g, 0, &u);
    if (later)
        set_days(r, c->today, day_of_secs(u.end), GRAIN_DAY);
    else
        set_days(r, day_of_secs(u.start), c->today + 1, GRAIN_DAY);
    return 3;
}

/* N Saturdays ago, two weekends ago: the nth before today. */
static int rec_weekday_ago(const ctx *c, const win *w, int i, date_range *r)
{
    int n, k = quantity(w, i, &n), wd;
    const tok *t = at(w, i + k);
    int64_t d;
    if (!k || !word_is(at(w, i + k + 1), "ago"))
        return 0;
    if (word_is(t, "weekends")) {
        d = c->today - c->wd + 5 - 7 * (int64_t)n;
        set_days(r, d, d + 2, GRAIN_DAY);
        return k + 2;
    }
    if ((wd = weekday_word(t, n > 1)) < 0)
        return 0;
    d = pick_weekday(c, wd, PICK_LAST) - 7 * (int64_t)(n - 1);
    set_days(r, d, d + 1, GRAIN_DAY);
    return k + 2;
}

/* the week|month|year|weekend|<weekday>|summer before last */
static void set_before_last(const ctx *c, const tok *u, int g, int wd, date_range *r)
{
    const name *sn = find_name(u, seasons);
    int64_t d;
    if (sn) {
        int y;
        set_season_pick(c, sn->value, PICK_LAST, r);
        civil_from_days(day_of_secs(r->start), &y, NULL, NULL);
        set_season(r, y - 1, sn->value);
    } else if (word_is(u, "weekend")) {
        d = c->today - c->wd + 5 - 14;
        set_days(r, d, d + 2, GRAIN_DAY);
    } else if (wd >= 0) {
        d = pick_weekday(c, wd, PICK_LAST) - 7;
        set_days(r, d, d + 1, GRAIN_DAY);
    } else {
        set_shift(c, g, -2, r);
    }
}

/* The unit u (day, week, month, year; a weekend or weekday wd) just before
 * [xs, xe) starts, or just after it ends. */
static void set_next_to(date_range *r, int g, int weekend, int wd, int after, int64_t xs,
                        int64_t xe)
{
    int64_t d;
    if (weekend) {
        d = after ? xe + floor_mod(5 - weekday(xe), 7) : xs - 2 - floor_mod(weekday(xs - 2) - 5, 7);
        set_days(r, d, d + 2, GRAIN_DAY);
    } else if (wd >= 0) {
        d = after ? xe + floor_mod(wd - weekday(xe), 7)
                  : xs - 1 - floor_mod(weekday(xs - 1) - wd, 7);
        set_days(r, d, d + 1, GRAIN_DAY);
    } else if (g == GRAIN_DAY || g == GRAIN_WEEK) {
        int64_t len = g == GRAIN_DAY ? 1 : 7;
        set_days(r, after ? xe : xs - len, after ? xe + len : xs, (date_grain)g);
    } else {
        int64_t nmon = g == GRAIN_MONTH ? 1 : 12;
        set_days(r, after ? xe : add_months(xs, -nmon), after ? add_months(xe, nmon) : xs,
                 (date_grain)g);
    }
}

/* the day|week|month|year|weekend|<weekday> before|after X; the same
 * "before last"; N days|weeks|... before|after X. X is the anchor: what
 * is counted is counted from it, never from now. */
static int rec_before_after(const ctx *c, const win *w, int i, date_range *r)
{
    int the = word_is(at(w, i), "the"), n = 0, k = 0, g = GRAIN_DAY, wd = -1, after, xk, f;
    const tok *u;
    date_range x = {0};
    if (!the && !(k = quantity(w, i, &n)))
        return 0;
    u = at(w, i + the + k);
    if (!unit_at(w, i + the + k, &g)) {
        wd = weekday_word(u, 0);
        if (!the || (wd < 0 && !word_is(u, "weekend") && !find_name(u, seasons)))
            return 0;
    } else if (the && (u->s[u->len - 1] | 32) == 's') {
        return 0; /* "the days before": no single unit */
    }
    f = unit_factor(w, i + the + k);
    after = word_is(at(w, i + the + k + 1), "after");
    if (!after && !word_is(at(w, i + the + k + 1), "before"))
        return 0;
    xk = form_at(c, w, i + the + k + 2, LV_PART, &x);
    if (the && !after && word_is(at(w, i + the + k + 2), "last") && xk < 2) {
        set_before_last(c, u, g, wd, r);
        return the + k + 3;
    }
    if (find_name(u, seasons) || !xk)
        return 0;
    if (x.end <= x.start) {
        set_invalid(r);
        return the + k + 2 + xk;
    }
    if (the) {
        set_next_to(r, g, word_is(u, "weekend"), wd, after, day_of_secs(x.start),
                    day_of_secs(x.end));
    } else {
        ctx a = ctx_at(after ? day_of_secs(x.end) - 1 : day_of_secs(x.start));
        set_shift(&a, g, after ? (int64_t)n * f : -(int64_t)n * f, r);
    }
    r->no_year = x.no_year;
    return the + k + 2 + xk;
}

/* X to|through|until Y, between X and Y, May 5-12, 5-12 May: from the
 * start of X to the end of Y. An X without a year takes Y's year. */
static void set_run(date_range *r, date_range x, const date_range *y)
{
    if (x.no_year && !y->no_year) {
        int y0, y1, yy;
        unsigned m0, d0, m1, d1;
        int64_t s, e;
        civil_from_days(day_of_secs(x.start), &y0, &m0, &d0);
        civil_from_days(day_of_secs(x.end), &y1, &m1, &d1);
        civil_from_days(day_of_secs(y->end) - 1, &yy, NULL, NULL);
        s = civil_days(yy, m0, d0);
        e = civil_days(yy + (y1 - y0), m1, d1);
        if (s * DAY_SECS >= y->end) {
            s = civil_days(yy - 1, m0, d0);
            e = civil_days(yy - 1 + (y1 - y0), m1, d1);
        }
        x.start = s * DAY_SECS;
        x.end = e * DAY_SECS;
    }
    if (x.start >= y->end) {
        set_invalid(r);
        return;
    }
    r->start = x.start;
    r->end = y->end;
    r->grain = x.grain > y->grain ? x.grain : y->grain;
    r->no_year = x.no_year && y->no_year;
}

/* A word or '-' that joins the two ends of a run; "and" only after
 * "between". */
static int run_joiner(const win *w, int i, int between)
{
    const tok *t = at(w, i);
    if (word_is(t, "to") || word_is(t, "through") || word_is(t, "thru") || word_is(t, "until") ||
        word_is(t, "till"))
        return 1;
    return (between && word_is(t, "and")) || is_punct(t, '-');
}

/* The second day of a run ("12" in "5-12"): a day number, glued or not. */
static int day_num_at(const win *w, int i, int *day)
{
    const tok *t = at(w, i), *sfx = at(w, i + 1);
    if (!num_digits(t, 1, 2))
        return 0;
    *day = t->val;
    return 1 + (sfx->kind == TK_WORD && sfx->glue == TK_NUM && find_name(sfx, ordinals) != NULL);
}

/* D1-D2 May [2023], May D1-D2[,] [2023]: days of one month. */
static int rec_day_run(const ctx *c, const win *w, int i, date_range *r)
{
    int between = word_is(at(w, i - 1), "between"), k1, k2, mk, d1, d2, j;
    const name *m;
    date_range a = {0}, b = {0};
    if ((m = month_at(w, i, &mk))) {
        if (!(k1 = day_at(w, i + mk, &d1)) || !run_joiner(w, i + mk + k1, between) ||
            !(k2 = day_num_at(w, i + mk + k1 + 1, &d2)))
            return 0;
        j = finish_date(c, w, i + mk + k1 + 1, i + mk + k1 + 1 + k2, m->value, d2, &b);
        if (!j)
            return 0;
        j += i + mk + k1 + 1;
    } else {
        if (!(k1 = day_at(w, i, &d1)) || at(w, i)->kind != TK_NUM ||
            !run_joiner(w, i + k1, between))
            return 0;
        if (!(k2 = day_num_at(w, i + k1 + 1, &d2)) || !(m = month_at(w, i + k1 + 1 + k2, &mk)))
            return 0;
        j = finish_date(c, w, i, i + k1 + 1 + k2 + mk, m->value, d2, &b);
        if (!j)
            return 0;
        j += i;
    }
    if (b.end <= b.start || d1 >= d2 || d1 < 1)
        set_invalid(r);
    else {
        a = b;
        a.start = b.start - (int64_t)(d2 - d1) * DAY_SECS;
        set_run(r, a, &b);
        r->grain = GRAIN_DAY;
        r->no_year = b.no_year;
    }
    return j - i;
}

/* X to|through|until Y; between X and Y (X and Y forms of their own). */
static int rec_run(const ctx *c, const win *w, int i, date_range *r)
{
    int between = word_is(at(w, i - 1), "between"), xk, yk;
    date_range x = {0}, y = {0};
    if (!(xk = form_at(c, w, i, LV_REL, &x)) || is_punct(at(w, i + xk), '-') ||
        !run_joiner(w, i + xk, between))
        return 0;
    if (!(yk = form_at(c, w, i + xk + 1, LV_REL, &y)))
        return 0;
    if (x.end <= x.start || y.end <= y.start)
        set_invalid(r);
    else
        set_run(r, x, &y);
    return xk + 1 + yk;
}

/* the 15th, on the 2nd: the latest such day of a month on or before today.
 * Only a number with its ordinal, and only where no noun follows ("the
 * 15th century" is not a date). */
static int rec_nth_day(const ctx *c, const win *w, int i, date_range *r)
{
    const tok *n;
    int k, day, back;
    if (!word_is(at(w, i), "the") || at(w, i + 1)->kind != TK_NUM ||
        (k = day_at(w, i + 1, &day)) != 2 || day < 1 || day > 31)
        return 0;
    n = at(w, i + 1 + k);
    if (n->kind == TK_WORD && !find_name(n, year_followers) && !word_is(n, "at"))
        return 0;
    for (back = 0; back < 12; back++) {
        int64_t m = c->m - back, y = c->y + floor_div(m - 1, 12), mm = floor_mod(m - 1, 12) + 1;
        if (valid_date(y, mm, day) && civil_days(y, (unsigned)mm, (unsigned)day) <= c->today) {
            set_ymd(r, y, mm, day);
            r->no_year = 1;
            return 1 + k;
        }
    }
    set_invalid(r);
    return 1 + k;
}

typedef int (*recogniser)(const ctx *c, const win *w, int i, date_range *r);

/* Every form, with the level of nesting it belongs to (see form_at()). */
static const struct {
    recogniser f;
    int level;
} recognisers[] = {
    {rec_iso_day, LV_BASIC},   {rec_iso_month, LV_BASIC},  {rec_numeric, LV_BASIC},
    {rec_month_day, LV_BASIC}, {rec_day_month, LV_BASIC},  {rec_month_year, LV_BASIC},
    {rec_month_rel, LV_BASIC}, {rec_month, LV_BASIC},      {rec_year_span, LV_BASIC},
    {rec_year, LV_BASIC},      {rec_day_phrase, LV_BASIC}, {rec_weekend, LV_BASIC},
    {rec_ago, LV_BASIC},       {rec_in, LV_BASIC},         {rec_rel_unit, LV_BASIC},
    {rec_window, LV_BASIC},    {rec_weekday, LV_BASIC},    {rec_season_rel, LV_BASIC},
    {rec_season, LV_BASIC},    {rec_holiday, LV_BASIC},    {rec_quarter, LV_BASIC},
    {rec_nth_day, LV_BASIC},   {rec_earlier, LV_BASIC},    {rec_weekday_ago, LV_BASIC},
    {rec_part, LV_PART},       {rec_third, LV_PART},       {rec_before_after, LV_REL},
    {rec_day_run, LV_ALL},     {rec_run, LV_ALL},
};

/* The longest form at token i of a level up to level; its tokens (0: none)
 * and its range in *r. Worked out once per window position: the window is
 * not const to this cache only. */
static int form_at(const ctx *c, const win *w, int i, int level, date_range *r)
{
    win *mw = (win *)w;
    memo *m;
    size_t f;
    if (i < 0 || i >= w->n)
        return 0;
    m = &mw->memo[level][i];
    if (!(w->done[level] & (1u << i))) {
        m->k = level > LV_BASIC ? form_at(c, w, i, level - 1, &m->r) : 0;
        for (f = 0; f < sizeof recognisers / sizeof *recognisers; f++) {
            date_range x = {0};
            int k;
            if (recognisers[f].level != level)
                continue;
            k = recognisers[f].f(c, w, i, &x);
            if (k > m->k) {
                m->k = k;
                m->r = x;
            }
        }
        mw->done[level] |= 1u << i;
    }
    if (m->k)
        *r = m->r;
    return m->k;
}

/* The longest form starting at token i, with its byte span; 0 if none. */
static int longest_at(const ctx *c, const win *w, int i, date_range *best)
{
    int k = form_at(c, w, i, LV_ALL, best);
    if (!k)
        return 0;
    best->start_off = at(w, i)->off;
    best->end_off = at(w, i + k - 1)->off + at(w, i + k - 1)->len;
    return 1;
}

/* The longest form at the window's first token, or after it when that is
 * "in", "on", "during"... which then joins the span. */
static int match_here(const ctx *c, const win *w, date_range *r)
{
    date_range inner;
    int found = longest_at(c, w, 0, r);
    if (!find_name(at(w, 0), wrappers) || !longest_at(c, w, 1, &inner))
        return found;
    if (!found || inner.end_off > r->end_off) {
        *r = inner;
        r->start_off = at(w, 0)->off;
    }
    return 1;
}

/* Where candidates go: they arrive in order of their start, and of those
 * that overlap the longest is kept; empty (impossible) ones are dropped. */
typedef struct sink {
    date_range *out;
    int max, n;
    date_range pending;
    int has_pending;
} sink;

static void sink_flush(sink *k)
{
    if (k->has_pending && k->pending.end > k->pending.start && k->n < k->max)
        k->out[k->n++] = k->pending;
    k->has_pending = 0;
}

static void sink_offer(sink *k, const date_range *r)
{
    if (k->has_pending && r->start_off < k->pending.end_off) {
        if (r->end_off - r->start_off > k->pending.end_off - k->pending.start_off)
            k->pending = *r;
        return;
    }
    sink_flush(k);
    k->pending = *r;
    k->has_pending = 1;
}

/* strncasecmp for ASCII letters, without the locale. */
static int strncasecmp_ascii(const char *a, const char *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
        x = x >= 'A' && x <= 'Z' ? x | 32 : x;
        y = y >= 'A' && y <= 'Z' ? y | 32 : y;
        if (x != y)
            return x - y;
    }
    return 0;
}

/* One reading of text with now as the anchor. */
static int parse_pass(const char *text, int64_t now, date_range *out, int max)
{
    ctx c;
    win w;
    sink k = {out, max, 0, {0, 0, GRAIN_DAY, 0, 0, 0}, 0};
    ctx_init(&c, now);
    for (win_init(&w, text); w.n > 0 && k.n < max; win_shift(&w)) {
        date_range r;
        if (match_here(&c, &w, &r))
            sink_offer(&k, &r);
    }
    sink_flush(&k);
    return k.n;
}

/* The range of a with r's span, if its value is r's; NULL if none. */
static const date_range *same_span(const date_range *a, int n, const date_range *r)
{
    int i;
    for (i = 0; i < n; i++)
        if (a[i].start_off == r->start_off && a[i].end_off == r->end_off)
            return a[i].start == r->start && a[i].end == r->end ? &a[i] : NULL;
    return NULL;
}

/* The day a date the text names outright anchors the rest to: the last day
 * of the first range that reads the same whatever now is (read against two
 * instants millennia apart) and names its year. INT64_MIN if none, or if
 * every range is such a date (nothing to anchor). */
static int64_t named_anchor(const char *text, const date_range *out, int n)
{
    enum { PROBES = 64 };
    date_range a[PROBES], b[PROBES];
    int na = parse_pass(text, civil_days(1200, 6, 15) * DAY_SECS, a, PROBES);
    int nb = parse_pass(text, civil_days(4800, 2, 10) * DAY_SECS, b, PROBES);
    int64_t anchor = INT64_MIN;
    int i, relative = 0;
    for (i = 0; i < n; i++) {
        int fixed = same_span(a, na, &out[i]) && same_span(b, nb, &out[i]) && !out[i].no_year;
        if (fixed && anchor == INT64_MIN)
            anchor = floor_div(out[i].end, DAY_SECS) - 1;
        relative |= !fixed;
    }
    return relative ? anchor : INT64_MIN;
}

/* Is r's span "recently" or "lately" (after a wrapper word)? Next to a
 * named date it says only "shortly before", which the temporal channel's
 * one-sided distance already says; as a window of its own it would widen
 * the named date. */
static int vague_recent(const char *text, const date_range *r)
{
    static const char *const words[] = {"recently", "lately"};
    const char *end = text + r->end_off;
    size_t i;
    for (i = 0; i < 2; i++) {
        size_t n = strlen(words[i]);
        if (r->end_off - r->start_off >= (int)n && strncasecmp_ascii(end - n, words[i], n) == 0)
            return 1;
    }
    return 0;
}

/* Dates the text names outright ("May 2023", "Christmas 2022") are read
 * first; when there is one, whatever is relative ("last week", "the 15th")
 * is read against its last day rather than against now: one anchor per
 * question, never now on top of a named date. */
int dates_parse(const char *text, int64_t now, date_range *out, int max)
{
    int n, i, kept = 0;
    int64_t anchor;
    if (!text || !out || max <= 0)
        return 0;
    n = parse_pass(text, now, out, max);
    if (n < 2 || (anchor = named_anchor(text, out, n)) == INT64_MIN)
        return n; /* one range has nothing else to anchor */
    n = parse_pass(text, anchor * DAY_SECS + DAY_SECS / 2, out, max);
    for (i = 0; i < n; i++)
        if (!vague_recent(text, &out[i]))
            out[kept++] = out[i];
    return kept;
}

/* ------------------------------------------------------------------ cues */

/* A hint of "when" at token i that is not a date (see the top comment). */
static int cue_at(const win *w, int i)
{
    int n, g, k;
    if (find_name(at(w, i), cue_words) || match_words(w, i, "new year"))
        return 1;
    if ((k = quantity(w, i, &n)) && unit_at(w, i + k, &g))
        return 1;
    return word_is(at(w, i), "the") && unit_at(w, i + 1, &g) &&
           (word_is(at(w, i + 2), "before") || word_is(at(w, i + 2), "after"));
}

int dates_has_expression(const char *text)
{
    date_range r;
    win w;
    if (!text)
        return 0;
    if (dates_parse(text, HAS_NOW, &r, 1) > 0)
        return 1;
    for (win_init(&w, text); w.n > 0; win_shift(&w))
        if (cue_at(&w, 0))
            return 1;
    return 0;
}
