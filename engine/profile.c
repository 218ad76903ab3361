/* profile.c - channel weights and the RRF constant per query type, as data.
 *
 * Every number here is justified by `memscope eval` runs in docs/QUALITY.md.
 * Columns: semantic, bm25, temporal, hopfield, spreading; then the entity
 * graph weight and k. */
#include "engine_int.h"

static const weight_profile profiles[QT_COUNT] = {
    /*                    sem  bm25 temp  hop  spread   eg    k */
    [QT_GENERAL] =     {{1.0, 1.0, 0.5, 0.3, 1.0}, 1.0, 15},
    [QT_TEMPORAL] =    {{1.0, 1.0, 1.0, 0.3, 1.0}, 1.0, 15},
    [QT_MULTI_HOP] =   {{1.0, 1.0, 0.5, 0.3, 1.0}, 1.0, 15},
    [QT_ENTITY] =      {{1.0, 1.0, 0.5, 0.3, 1.0}, 1.0, 15},
    [QT_FACTUAL] =     {{1.0, 1.0, 0.5, 0.3, 1.0}, 1.0, 15},
    [QT_RECENCY] =     {{1.0, 1.0, 1.0, 0.3, 1.0}, 1.0, 15},
    [QT_OPINION] =     {{1.0, 1.0, 0.5, 0.3, 1.0}, 1.0, 15},
    [QT_AGGREGATION] = {{1.0, 1.0, 0.5, 0.3, 1.0}, 1.0, 15},
    [QT_VAGUE] =       {{1.0, 1.0, 0.5, 0.3, 1.0}, 1.0, 15},
};

const weight_profile *profile_for(query_type t)
{
    return &profiles[(unsigned)t < QT_COUNT ? t : QT_GENERAL];
}
