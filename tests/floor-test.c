/* floor-test.c - the evidence floor's rules (engine/floor.c) on hand-made
 * numbers: naming the speaker is not evidence; a predicate word, the words
 * of the memories joined to it, the remainder's cosine, the date the query
 * names and a pin each pass, and say so with their numbers; a query with no
 * predicate; a query naming nothing the store knows; a question asking for a
 * name or a number that the memory does not hold; the word the question
 * asks about; the kind of thing it asks which of; the kinds of number (a
 * sum of money, an age). Links only libcore. */
#include <string.h>

#include "engine/engine_int.h"
#include "tests/tap.h"

/* floor_judge on hand-made numbers: each rule, and what it says. */
static void test_floor_rules(void)
{
    char why[160];
    /* Caroline's own turn, with no word of the predicate and a low cosine */
    floor_in in = {.names_subject = 1,
                   .names_known = 1,
                   .n_pred = 2,
                   .pred_coverage = 0,
                   .context_coverage = 0,
                   .lexical_min = 0.23,
                   .rcosine = 0.10,
                   .cosine_min = 0.28,
                   .pred_known = 1};
    ok(floor_judge(&in, why, sizeof why) == NULL &&
           strstr(why, "naming the speaker is not evidence"),
       "spoken by the named speaker, nothing of the predicate: cut (%s)", why);
    in.pred_coverage = in.context_coverage = 0.40;
    is_str(floor_judge(&in, why, sizeof why), "lexical",
           "a predicate word's idf share 0.40 >= 0.23");
    ok(strstr(why, "0.400 >= 0.23") != NULL, "the rule states its numbers (%s)", why);
    in.pred_coverage = 0.10;
    is_str(floor_judge(&in, why, sizeof why), "context",
           "only with its neighbours' words: context");
    in.pred_coverage = in.context_coverage = 0;
    in.rcosine = 0.30;
    is_str(floor_judge(&in, why, sizeof why), "semantic", "remainder cosine 0.30 >= 0.28");
    in.rcosine = 0.10;
    in.has_date = in.on_date = 1;
    is_str(floor_judge(&in, why, sizeof why), "temporal", "on the date the query names");
    in.pred_known = 0;
    is_str(floor_judge(&in, why, sizeof why), "temporal",
           "on the date, a predicate word the store never holds, a speaker it knows: temporal");
    in.focus = "title";
    ok(floor_judge(&in, why, sizeof why) == NULL,
       "the same when the word it never holds is the one asked about: cut");
    in.context_focus = 1;
    is_str(floor_judge(&in, why, sizeof why), "temporal", "with the asked word held: temporal");
    in.focus = NULL;
    in.context_focus = 0;
    in.names_known = 0;
    ok(floor_judge(&in, why, sizeof why) == NULL,
       "on the date, naming nothing the store knows and a word it never holds: cut");
    in.names_known = 1;
    in.pinned = 1;
    is_str(floor_judge(&in, why, sizeof why), "pinned", "pinned passes whatever else");
    floor_in only = {.names_subject = 1,
                     .names_known = 1,
                     .n_pred = 0,
                     .lexical_min = 0.23,
                     .cosine_min = 0.28,
                     .pred_known = 1};
    is_str(floor_judge(&only, why, sizeof why), "subject",
           "a query with no predicate and no date asks only about its subject");
    only.has_date = 1;
    ok(floor_judge(&only, why, sizeof why) == NULL,
       "with a date, the date is the predicate: the subject alone is not enough");
    floor_in ask = {.names_subject = 1,
                    .names_known = 1,
                    .n_pred = 1,
                    .pred_coverage = 1,
                    .context_coverage = 1,
                    .lexical_min = 0.23,
                    .rcosine = 0.5,
                    .cosine_min = 0.28,
                    .pred_known = 1,
                    .asks_name = 1};
    ok(floor_judge(&ask, why, sizeof why) == NULL && strstr(why, "asks for a name"),
       "asks for a name; every word in it, but no name in it or its neighbours: cut (%s)", why);
    ask.holds_name = 1;
    is_str(floor_judge(&ask, why, sizeof why), "lexical", "the same holding a name: lexical");
    ask.asks_name = ask.holds_name = 0;
    ask.asks_number = 1;
    ok(floor_judge(&ask, why, sizeof why) == NULL && strstr(why, "asks for a number"),
       "asks how many, no number: cut");
    ask.pinned = 1;
    is_str(floor_judge(&ask, why, sizeof why), "pinned", "pinned passes even so");
    floor_in off = {.n_pred = 2,
                    .pred_coverage = 0.5,
                    .context_coverage = 0.5,
                    .lexical_min = 0.23,
                    .rcosine = 0.1,
                    .cosine_min = 0.28};
    ok(floor_judge(&off, why, sizeof why) == NULL && strstr(why, "names nothing the store knows"),
       "names nothing the store knows and a word it never holds: overlap is no evidence");
    off.pred_known = 1;
    is_str(floor_judge(&off, why, sizeof why), "lexical",
           "the same with every word known: lexical");
}

/* The asked word (floor_in.focus): a cut memory says it lacks it; the
 * rules of overlap and meaning need it in the pool, the others do not;
 * the kind of answer asked for is held or not. */
static void test_floor_focus(void)
{
    char why[256];
    floor_in in = {.names_subject = 1,
                   .names_known = 1,
                   .n_pred = 3,
                   .pred_coverage = 0.05,
                   .context_coverage = 0.05,
                   .lexical_min = 0.16,
                   .rcosine = 0.10,
                   .cosine_min = 0.28,
                   .pred_known = 1,
                   .focus = "salary"};
    ok(floor_judge(&in, why, sizeof why) == NULL && strstr(why, "it holds no \"salary\"") &&
           strstr(why, "naming the speaker is not evidence"),
       "a cut memory without the asked word says so, and the rest (%s)", why);
    in.context_focus = 1;
    ok(floor_judge(&in, why, sizeof why) == NULL && !strstr(why, "salary"),
       "with the asked word beside it, the cut does not blame it (%s)", why);
    ok(floor_needs_focus("lexical") && floor_needs_focus("context") &&
           floor_needs_focus("semantic"),
       "overlap and meaning need the asked word");
    ok(!floor_needs_focus("pinned") && !floor_needs_focus("temporal") &&
           !floor_needs_focus("subject") && !floor_needs_focus("association") &&
           !floor_needs_focus(NULL),
       "a pin, the asked date, the subject and an edge do not");
    floor_in ask = {.asks_number = 1};
    ok(!floor_answer_held(&ask), "asks for a number, holds none: the answer's kind is missing");
    ask.on_date = 1;
    ok(floor_answer_held(&ask), "on the asked date it may hold the answer all the same");
    ask.on_date = 0;
    ask.holds_number = 1;
    ok(floor_answer_held(&ask), "holding a number it may");
    floor_in plain = {0};
    ok(floor_answer_held(&plain), "a question asking no kind of answer: held");
    in.context_focus = 0;
    in.focus = NULL;
    in.kind = "city";
    in.kind_which = 1;
    ok(floor_judge(&in, why, sizeof why) == NULL && strstr(why, "it names no particular \"city\""),
       "a cut memory naming no city, asked which, says so (%s)", why);
    in.kind_which = 0;
    ok(floor_judge(&in, why, sizeof why) == NULL && strstr(why, "it names no kind of \"city\""),
       "asked what city: no kind of city (%s)", why);
    in.holds_kind = 1;
    ok(floor_judge(&in, why, sizeof why) == NULL && !strstr(why, "city"),
       "naming one, the cut does not blame the kind (%s)", why);
}

/* The kinds of number: a sum of money, an age; any number otherwise. */
static void test_amounts(void)
{
    static const struct {
        amount_kind kind;
        const char *text;
        int held;
    } cases[] = {
        {AMOUNT_MONEY, "The new bike cost $300 in the sale.", 1},
        {AMOUNT_MONEY, "We paid $ 45 for it.", 1},
        {AMOUNT_MONEY, "It was forty dollars, can you believe it?", 1},
        {AMOUNT_MONEY, "The fund raised 2 million euros.", 1},
        {AMOUNT_MONEY,
         "Tickets were \xc2\xa3"
         "15 each.",
         1},
        {AMOUNT_MONEY, "Dinner came to 30 quid.", 1},
        {AMOUNT_MONEY, "I ran a 5K for the shelter with 40 people.", 0},
        {AMOUNT_MONEY, "The grand opening was packed.", 0},
        {AMOUNT_MONEY, "We raised a lot of money.", 0},
        {AMOUNT_AGE, "Finn is 6 years old now.", 1},
        {AMOUNT_AGE, "Our one-year-old is teething.", 1},
        {AMOUNT_AGE, "She started school aged 5.", 1},
        {AMOUNT_AGE, "He turned forty last week.", 1},
        {AMOUNT_AGE, "We threw her 30th birthday party.", 1},
        {AMOUNT_AGE, "He learned to surf in his twenties.", 1},
        {AMOUNT_AGE, "We met 5 years ago at work.", 0},
        {AMOUNT_AGE, "A 30 minute walk, and an old dog.", 0},
        {AMOUNT_ANY, "nothing countable here", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        ok(floor_holds_amount(cases[i].kind, cases[i].text) == cases[i].held, "%s '%s': %s",
           cases[i].kind == AMOUNT_MONEY ? "money"
           : cases[i].kind == AMOUNT_AGE ? "age"
                                         : "any",
           cases[i].text, cases[i].held ? "held" : "not held");
    char why[256];
    floor_in ask = {.n_pred = 1, .asks_number = 1, .amount = AMOUNT_MONEY};
    ok(floor_judge(&ask, why, sizeof why) == NULL && strstr(why, "asks for a sum of money"),
       "a price question cut for want of one says so (%s)", why);
    ask.amount = AMOUNT_AGE;
    ok(floor_judge(&ask, why, sizeof why) == NULL && strstr(why, "asks for an age"),
       "and an age question (%s)", why);
}

int main(void)
{
    test_floor_rules();
    test_floor_focus();
    test_amounts();
    return done_testing();
}
