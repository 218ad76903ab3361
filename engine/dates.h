/* dates.h - dates and times named in a query.
 *
 * Absolute forms ("2023-05-08", "May 8, 2023", "8 May 2023", "May 2023",
 * "in 2022", "5/8/2023") and relative ones ("today", "yesterday", "last
 * week", "3 days ago", "in May", "last summer", "this month", "last
 * Friday", "recently") become ranges [start, end) of Unix seconds, resolved
 * against `now`. A month or season without a year means its most recent
 * occurrence that has begun by now. */
#ifndef MS_DATES_H
#define MS_DATES_H

#include <stdint.h>

typedef enum date_grain { GRAIN_DAY, GRAIN_WEEK, GRAIN_MONTH, GRAIN_SEASON, GRAIN_YEAR } date_grain;

typedef struct date_range {
    int64_t start, end; /* [start, end) */
    date_grain grain;
    int start_off, end_off; /* byte span of the expression in the query */
    int no_year;            /* a day, month or season named without a year ("May 8",
                               "in May", "summer"): resolved to its latest
                               occurrence, but a caller may try other years */
} date_range;

/* Find up to max date expressions in text. Returns how many. */
int dates_parse(const char *text, int64_t now, date_range *out, int max);

/* Does text contain a time expression (a date, weekday, month, "yesterday",
 * "last week", a year...)? Used to find memories that say when. */
int dates_has_expression(const char *text);

/* Days from 1970-01-01 of a civil date, and back. */
int64_t dates_days_from_civil(int64_t y, unsigned m, unsigned d);
void dates_civil_from_days(int64_t z, int *y, unsigned *m, unsigned *d);

#endif
