/* tour.c - the demo tour's steps and their captions. */
#include "tui/browser/tour.h"

#include <stdio.h>
#include <string.h>

typedef void (*tour_caption_fn)(view_model *vm, char *out, size_t len);

typedef struct tour_step {
    const char *title;
    const char *query;
    int limit;               /* results for this step */
    tour_caption_fn caption; /* selects the row it talks about, writes the text */
    unsigned disable;        /* channels the step switches off by what-if */
} tour_step;

/* Index of the hit row maximising score (NAN-free, > 0), or -1. */
static int tour_best(const view_model *vm, double (*score)(const recall_hit *h))
{
    int best = -1;
    double top = 0;
    for (size_t i = 0; i < vm->n_rows; i++) {
        if (vm->rows[i].kind != ROW_HIT)
            continue;
        double s = score(vm->rows[i].h);
        if (s > top) {
            top = s;
            best = (int)i;
        }
    }
    return best;
}

static int tour_channels_ranking(const recall_hit *h)
{
    int n = 0;
    for (int c = 0; c < CH_COUNT; c++)
        n += h->ch[c].ranked;
    return n;
}

/* Step 1 asks a question whose answer ranks first on the demo store
 * (m0037, data/DEMO.md; tests/view-test.c checks it); the caption says what
 * the screen shows: the first row, how many channels ranked it, and by how
 * much it leads the second. */
static void tour_confident(view_model *vm, char *out, size_t len)
{
    if (!vm->cur || vm->cur->n_hits == 0) {
        snprintf(out, len,
                 "This query should find its answer in the demo store, but the "
                 "engine returned nothing here: check `memscope health`.");
        return;
    }
    const recall_hit *h = &vm->cur->hits[0];
    vm->sel = 0;
    int n = snprintf(out, len, "%s ranks first with Relevance %.3f; %d of %d channels ranked it.",
                     h->mem.id, h->relevance_score, tour_channels_ranking(h), CH_COUNT);
    if (vm->cur->n_hits > 1 && n > 0 && (size_t)n < len)
        n += snprintf(out + n, len - n, " It leads rank 2 (%s) by %.4f in Ranking.",
                      vm->cur->hits[1].mem.id, h->ranking_score - vm->cur->hits[1].ranking_score);
    if (n > 0 && (size_t)n < len)
        snprintf(out + n, len - n,
                 " The trace below shows each channel's w/(k+rank); their sum is the fused "
                 "score, and Relevance = boosted / the best score possible for this query. "
                 "Trust %.2f and Mem.Conf %.2f are separate columns: they describe the memory, "
                 "not this query.",
                 store_trust_score(&h->mem), h->mem.memory_confidence);
}

static double tour_temporal_score(const recall_hit *h)
{
    return h->ch[CH_TEMPORAL].ranked ? 1.0 / h->ch[CH_TEMPORAL].rank : 0;
}

static void tour_temporal(view_model *vm, char *out, size_t len)
{
    const recall_result *r = vm->cur;
    int i = r ? tour_best(vm, tour_temporal_score) : -1;
    if (i < 0) {
        snprintf(out, len,
                 "A temporal question. The temporal channel found nothing here: "
                 "its row in the status bar says why.");
        return;
    }
    vm->sel = i;
    const recall_hit *h = vm->rows[i].h;
    snprintf(out, len,
             "Query type %s: the query analysis read a date range into it: %s. "
             "The temporal channel ranks memories by how close their event time is to "
             "it: %s is its rank %d, contributing %.6f to the fused %.6f (the temporal row of "
             "the trace).",
             r->query_type, r->n_dates ? r->dates[0] : "none", h->mem.id, h->ch[CH_TEMPORAL].rank,
             h->ch[CH_TEMPORAL].contribution, h->fused);
}

/* Spreading's share of the fused score, doubled when the memory passed the
 * floor only by association (the clearest multi-hop case). */
static double tour_spread_score(const recall_hit *h)
{
    if (!h->ch[CH_SPREADING].ranked || h->fused <= 0)
        return 0;
    double share = h->ch[CH_SPREADING].contribution / h->fused;
    return h->passed_by && strcmp(h->passed_by, "association") == 0 ? share * 2 : share;
}

static void tour_spreading(view_model *vm, char *out, size_t len)
{
    int i = vm->cur ? tour_best(vm, tour_spread_score) : -1;
    if (i < 0) {
        snprintf(out, len,
                 "A multi-hop question, but spreading activation found nothing "
                 "here: the store may have no edges (see the status bar).");
        return;
    }
    vm->sel = i;
    const recall_hit *h = vm->rows[i].h;
    int assoc = h->passed_by && strcmp(h->passed_by, "association") == 0;
    snprintf(out, len,
             "%s gets spreading rank %d, %.0f%% of its fused score: the answer often sits "
             "next to the turn that matches the words. Spreading activation walks the stored "
             "edges (adjacent turns, shared entities, close dates) from the matching "
             "memories. %s%s%s",
             h->mem.id, h->ch[CH_SPREADING].rank, 100 * h->ch[CH_SPREADING].contribution / h->fused,
             assoc ? "It has no evidence of its own and passes the floor by association via "
                   : "Press Enter for its edges; Enter on an edge follows it.",
             assoc ? h->associated : "", assoc ? "." : "");
}

static double tour_low_trust_score(const recall_hit *h)
{
    double trust = store_trust_score(&h->mem);
    return trust < 0.5 ? h->relevance_score + 1e-9 : 0;
}

static void tour_trust(view_model *vm, char *out, size_t len)
{
    int i = vm->cur ? tour_best(vm, tour_low_trust_score) : -1;
    if (i < 0 || vm->cur->n_hits == 0) {
        snprintf(out, len,
                 "Relevance, Trust and Mem.Conf are separate: no low-trust memory "
                 "came up for this query, but the columns show each.");
        return;
    }
    vm->sel = i;
    const recall_hit *h = vm->rows[i].h, *top = &vm->cur->hits[0];
    snprintf(out, len,
             "%s (rank %d) matches the question with "
             "Relevance %.3f, but its Trust is %.2f (alpha %.0f, beta %.0f) and Mem.Conf %.2f. "
             "%s at rank 1 has Trust %.2f. Relevance says how well a memory matches the "
             "question, never whether it is true; Ranking weighs trust and confidence in, "
             "which is why the trusted one leads.",
             h->mem.id, h->rank_position, h->relevance_score, store_trust_score(&h->mem),
             h->mem.trust_alpha, h->mem.trust_beta, h->mem.memory_confidence, top->mem.id,
             store_trust_score(&top->mem));
}

static void tour_floor(view_model *vm, char *out, size_t len)
{
    const recall_result *r = vm->cur;
    if (!r || !r->abstained) {
        snprintf(out, len,
                 "An off-topic question. The engine did not abstain here (%zu "
                 "results): the floor found some evidence.",
                 r ? r->n_hits : (size_t)0);
        return;
    }
    vm->sel = 0;
    snprintf(out, len,
             "The engine abstains (%s): the channels find %zu faint candidates, but none has "
             "evidence. The store knows nothing about the world: the question names nobody "
             "the store knows, %d of its words never occur in it, and the best cosine is %.3f "
             "against %.2f. So it abstains instead of returning the least-bad guess. The "
             "nearest misses are listed dimmed; select one to see its trace.",
             r->abstention_reason, r->candidates, r->floor_unknown_terms, r->floor_best_value,
             r->floor_threshold);
}

static const char *tour_reason(const recall_result *r)
{
    return r && r->abstention_reason ? r->abstention_reason : "results";
}

/* Step 6 switches the dense channels off by what-if: the baseline (all on)
 * is in vm->base, the changed recall in vm->cur. */
static void tour_none(view_model *vm, char *out, size_t len)
{
    const recall_result *b = vm->base, *r = vm->cur;
    int sem = b ? (int)b->ch[CH_SEMANTIC].candidates : 0,
        hop = b ? (int)b->ch[CH_HOPFIELD].candidates : 0;
    snprintf(out, len,
             "The what-if switches the dense channels off (keys %d and %d, the WHAT-IF line) "
             "and the engine answers %s. With every channel on it answers %s: no word of this "
             "query occurs in the store, but the dense channels (hashed character n-grams) "
             "find faint neighbours for any text (semantic %d, hopfield %d). Without them no "
             "channel has a candidate%s%s.",
             CH_SEMANTIC + 1, CH_HOPFIELD + 1, tour_reason(r), tour_reason(b), sem, hop,
             r && r->no_candidates_why[0] ? ": " : "", r ? r->no_candidates_why : "");
}

static const tour_step steps[] = {
    {"A confident hit", "What did Biscuit race as?", 10, tour_confident, 0},
    {"A temporal question", "What did I do last May?", 10, tour_temporal, 0},
    {"Multi-hop: spreading activation", "Where does my sister work now?", 10, tour_spreading, 0},
    {"High relevance, low trust", "When is my dentist appointment?", 20, tour_trust, 0},
    {"Off-topic: evidence_floor", "What is the capital of Australia?", 10, tour_floor, 0},
    {"Nothing there: no_candidates", "zebra xylophone quasar", 10, tour_none,
     CH_MASK(CH_SEMANTIC) | CH_MASK(CH_HOPFIELD)},
};
#define TOUR_STEPS ((int)(sizeof steps / sizeof *steps))

int tour_steps(void)
{
    return TOUR_STEPS;
}

const char *tour_query(int step)
{
    return step >= 0 && step < TOUR_STEPS ? steps[step].query : NULL;
}

/* Is this the demo store (its first memory is the demo's first)? The
 * tour's queries and captions are about it. */
static int tour_on_demo(view_model *vm)
{
    store_memory m;
    ms_error err;
    if (store_get(vm->st, "m0001", 0, &m, &err))
        return 0;
    int demo = m.content && strncmp(m.content, "Leah: Right, let's try this properly.", 37) == 0;
    store_memory_clear(&m);
    return demo;
}

int tour_go(view_model *vm, int step)
{
    if (vm->tour < 0 && !tour_on_demo(vm)) {
        view_message(vm, ROLE_message,
                     "the tour needs the demo store: 'memscope demo --tour' writes it and starts "
                     "the tour");
        return VIEW_HANDLED | VIEW_REDRAW;
    }
    step = step < 0 ? 0 : step >= TOUR_STEPS ? TOUR_STEPS - 1 : step;
    const tour_step *s = &steps[step];
    int channel = vm->wi.channel;
    memset(&vm->wi, 0, sizeof vm->wi);
    vm->wi.rrf_k = -1;
    vm->wi.channel = channel;
    vm->wi.disabled = s->disable;
    vm->tour = step;
    vm->limit = s->limit;
    vm->pinned[0] = '\0';
    vm->low_top = 0;
    while (vm->det.open)
        view_detail_close(vm);
    view_set_query(vm, s->query);
    vm->sel = 0;
    view_model_update(vm);
    vm->sel = 0;
    char text[900];
    s->caption(vm, text, sizeof text);
    snprintf(vm->caption, sizeof vm->caption, "Tour %d/%d, %s. %s", step + 1, TOUR_STEPS, s->title,
             text);
    vm->focus = FOCUS_RESULTS;
    view_message(vm, ROLE_message, "tour: n or Space next, N back, Esc ends the tour");
    return VIEW_HANDLED | VIEW_REDRAW | VIEW_FULL;
}

int tour_stop(view_model *vm)
{
    int channel = vm->wi.channel;
    memset(&vm->wi, 0, sizeof vm->wi);
    vm->wi.rrf_k = -1;
    vm->wi.channel = channel;
    vm->tour = -1;
    vm->caption[0] = '\0';
    vm->limit = vm->base_limit;
    view_message(vm, ROLE_message, "tour ended");
    return VIEW_HANDLED | VIEW_REDRAW | VIEW_RECALL;
}
