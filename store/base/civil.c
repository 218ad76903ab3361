/* civil.c - proleptic Gregorian dates as days since 1970-01-01 (civil.h). */
#include "store/base/civil.h"

#define CIVIL_YEAR_LIMIT 2000000000LL
#define CIVIL_DAY_LIMIT 730000000000LL

/* Howard Hinnant's days_from_civil. Years beyond +-2e9 are clamped; m must
 * be 1..12 and d 1..31 for a meaningful answer (others give a defined but
 * meaningless one). */
int64_t civil_days(int64_t y, unsigned m, unsigned d)
{
    int64_t mm = m, era, yoe, doy, doe;
    if (y > CIVIL_YEAR_LIMIT)
        y = CIVIL_YEAR_LIMIT;
    if (y < -CIVIL_YEAR_LIMIT)
        y = -CIVIL_YEAR_LIMIT;
    y -= mm <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400; /* [0, 399] */
    doy = (153 * (mm > 2 ? mm - 3 : mm + 9) + 2) / 5 + (int64_t)d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy; /* [0, 146096] */
    return era * 146097 + doe - 719468;
}

/* Howard Hinnant's civil_from_days. Days beyond +-7.3e11 (years beyond about
 * +-2e9) are clamped, so the year always fits in an int. Any pointer may be
 * NULL. */
void civil_from_days(int64_t z, int *y, unsigned *m, unsigned *d)
{
    int64_t era, doe, yoe, doy, mp;
    unsigned mm;
    if (z > CIVIL_DAY_LIMIT)
        z = CIVIL_DAY_LIMIT;
    if (z < -CIVIL_DAY_LIMIT)
        z = -CIVIL_DAY_LIMIT;
    z += 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = z - era * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    mm = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
    if (y)
        *y = (int)(yoe + era * 400 + (mm <= 2));
    if (m)
        *m = mm;
    if (d)
        *d = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
}
