/* dates.h - dates and times named in a query.
 *
 * Absolute forms ("2023-05-08", "May 8, 2023", "8 May 2023", "May 2023",
 * "in 2022", "5/8/2023", "Christmas 2022", "Q3 2022"), parts of periods
 * ("the last two weeks of August 2023", "the first weekend of June",
 * "mid-July", "early 2023"), forms built on another date ("the week before
 * Christmas", "two days after May 8, 2023", "from June to August 2023")
 * and relative ones ("today", "yesterday", "last week", "3 days ago", "two
 * Saturdays ago", "in May", "last summer", "last Friday", "recently")
 * become ranges [start, end) of Unix seconds. What is relative is resolved
 * against one anchor: a date the text names outright (with its year) when
 * there is one, else `now`. A month, season or holiday without a year
 * means its most recent occurrence that has begun by the anchor. The forms
 * and their conventions are listed in engine/dates.c and tested row by row
 * in tests/data/dates.tsv. */
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

/* Find up to max date expressions in text, in text order, never
 * overlapping (the longest wins). Returns how many. */
int dates_parse(const char *text, int64_t now, date_range *out, int max);

/* Does text contain a time expression (a date, weekday, month, "yesterday",
 * "last week", a year...)? Used to find memories that say when. */
int dates_has_expression(const char *text);

#endif
