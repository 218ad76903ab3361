/* cli_recall.h - recall options shared by recall, eval and the shell. */
#ifndef MS_CLI_RECALL_H
#define MS_CLI_RECALL_H

#include "tui/cli/cli.h"
#include "engine/engine.h"

enum {
    OPT_LIMIT = OPT_FIRST_OWN,
    OPT_TOP_N,
    OPT_WEIGHTS,
    OPT_RRF_K,
    OPT_DISABLE,
    OPT_REQUIRE,
    OPT_NO_FLOOR,
    OPT_FLOOR,
    OPT_FLOOR_LEXICAL,
    OPT_AS_OF,
    OPT_EMBEDDER,
    OPT_RERANKER,
    OPT_NO_ADAPTIVE,
    OPT_NO_RERANK,
    OPT_SYNONYMS,
    OPT_FIRST_STAGE,
    OPT_RECALL_END, /* commands number their other options from here */
};

/* getopt_long entries for the options above. */
#define RECALL_OPTIONS                                                                             \
    {"limit", required_argument, NULL, OPT_LIMIT}, {"top-n", required_argument, NULL, OPT_TOP_N},  \
        {"weights", required_argument, NULL, OPT_WEIGHTS},                                         \
        {"rrf-k", required_argument, NULL, OPT_RRF_K},                                             \
        {"disable", required_argument, NULL, OPT_DISABLE},                                         \
        {"require-channels", required_argument, NULL, OPT_REQUIRE},                                \
        {"no-floor", no_argument, NULL, OPT_NO_FLOOR},                                             \
        {"floor", required_argument, NULL, OPT_FLOOR},                                             \
        {"floor-lexical", required_argument, NULL, OPT_FLOOR_LEXICAL},                             \
        {"as-of", required_argument, NULL, OPT_AS_OF},                                             \
        {"reranker", required_argument, NULL, OPT_RERANKER},                                       \
        {"no-rerank", no_argument, NULL, OPT_NO_RERANK},                                           \
        {"no-adaptive", no_argument, NULL, OPT_NO_ADAPTIVE},                                       \
        {"synonyms", required_argument, NULL, OPT_SYNONYMS},                                       \
        {"first-stage", required_argument, NULL, OPT_FIRST_STAGE},                                 \
    {                                                                                              \
        "embedder", required_argument, NULL, OPT_EMBEDDER                                          \
    }

/* Apply one recall option to ro (and *embedder): 1 handled, 0 not a recall
 * option, -1 a bad value (usage message printed for cmd). */
int cli_recall_option(const cli_command *cmd, int opt, const char *arg, recall_opts *ro,
                      const char **embedder);

#endif
