/* civil.h - civil-date arithmetic for every room: the store's ISO 8601
 * times, the date parser's intervals and the temporal channel's windows all
 * count days the same way. */
#ifndef MS_CIVIL_H
#define MS_CIVIL_H

#include <stdint.h>

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (Howard
 * Hinnant's algorithm). Years beyond +-2e9 are clamped; m must be 1..12 and
 * d 1..31 for a meaningful answer (others give a defined but meaningless
 * one). */
int64_t civil_days(int64_t y, unsigned m, unsigned d);

/* The civil date of day z (days from 1970-01-01). Days beyond +-7.3e11 are
 * clamped, so the year always fits in an int. Any pointer may be NULL. */
void civil_from_days(int64_t z, int *y, unsigned *m, unsigned *d);

#endif
