/* profile.c - channel weights, the RRF constant and the entity-graph
 * factors per query type, as data.
 *
 * Measured on LoCoMo (docs/QUALITY.md): no query type gained from a profile
 * of its own that held across conversations, so all nine share the default;
 * the table stays so that a type can get one when a measurement earns it.
 * The temporal column is the weight of the date-proximity list; when the
 * temporal channel instead gives its when-question or recency list, it
 * weighs temporal_aux. */
#include "engine_int.h"

#define DEFAULT_PROFILE                                                                            \
    {                                                                                              \
        .w = {[CH_SEMANTIC] = 0.25,                                                                \
              [CH_BM25] = 1.0,                                                                     \
              [CH_TEMPORAL] = 1.0,                                                                 \
              [CH_HOPFIELD] = 0.25,                                                                \
              [CH_SPREADING] = 3.0},                                                               \
        .temporal_aux = 0.5, .eg_speaker = 3.0, .eg_mention = 1.0, .rrf_k = 15                     \
    }

static const weight_profile profiles[QT_COUNT] = {
    [QT_GENERAL] = DEFAULT_PROFILE,   [QT_TEMPORAL] = DEFAULT_PROFILE,
    [QT_MULTI_HOP] = DEFAULT_PROFILE, [QT_ENTITY] = DEFAULT_PROFILE,
    [QT_FACTUAL] = DEFAULT_PROFILE,   [QT_RECENCY] = DEFAULT_PROFILE,
    [QT_OPINION] = DEFAULT_PROFILE,   [QT_AGGREGATION] = DEFAULT_PROFILE,
    [QT_VAGUE] = DEFAULT_PROFILE,
};

const weight_profile *profile_for(query_type t)
{
    return &profiles[(unsigned)t < QT_COUNT ? t : QT_GENERAL];
}
