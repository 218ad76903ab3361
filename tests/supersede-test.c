/* supersede-test.c - what a question asks and what a memory states, with
 * the supersession detector's cues (store/supersede.c: store_attr_asked,
 * store_states), as the second stage's `states` adjustment reads them. */
#include <string.h>

#include "store/store.h"
#include "tests/tap.h"

/* store_states' callback for the tests: arg is the subject wanted ("" any),
 * and a subject starting with "!" vetoes. */
static int wanted(const char *subject, void *arg)
{
    const char *w = arg;
    if (strcmp(subject, "maya") == 0 && strcmp(w, "!maya") == 0)
        return -1;
    return !*w || strcmp(subject, w) == 0;
}

static void test_asked(void)
{
    int who;
    is_int(store_attr_asked("Where does my sister work now?", &who), STORE_ATTR_EMPLOYER,
           "where ... work asks an employer");
    is_int(who, STORE_WHO_OTHER, "of my sister: someone who is not a speaker");
    is_int(store_attr_asked("Where do I work now?", &who), STORE_ATTR_EMPLOYER, "and for I");
    is_int(who, STORE_WHO_SELF, "of a speaker");
    is_int(store_attr_asked("Who does Ana work for these days?", &who), STORE_ATTR_EMPLOYER,
           "work for asks an employer");
    is_int(store_attr_asked("Where do I live now?", &who), STORE_ATTR_RESIDENCE,
           "where ... live asks a residence");
    is_int(store_attr_asked("What is my address?", &who), STORE_ATTR_RESIDENCE, "so does address");
    is_int(who, STORE_WHO_SELF, "my address is a speaker's");
    is_int(store_attr_asked("Who is my manager now?", &who), STORE_ATTR_MANAGER,
           "manager asks a manager");
    is_int(who, STORE_WHO_SELF, "my manager is a speaker's");
    is_int(store_attr_asked("What is Róisín's role at Halden & Price now?", &who), STORE_ATTR_ROLE,
           "role asks a role, not the employer it names");
    is_int(store_attr_asked("What is Sam allergic to?", &who), STORE_ATTR_ALLERGY,
           "allergic asks an allergy");
    is_int(store_attr_asked("Who is in charge of Kestrel now?", &who), STORE_ATTR_LEAD,
           "who ... in charge of asks a lead");
    is_int(store_attr_asked("What project am I working on now?", &who), -1,
           "working on a project asks none of them");
    is_int(store_attr_asked("How is my knee now?", &who), -1, "nor does a knee");
    is_int(who, STORE_WHO_ANY, "and says whom only with an attribute");
    is_int(store_attr_asked("Where does the bus run now?", &who), -1,
           "runs without who asks no lead");
    is_str(store_attr_name(STORE_ATTR_LEAD), "lead", "the attribute's name");
    is_str(store_attr_name(99), "?", "out of range");
}

static void test_states(void)
{
    char *ents[] = {"maya", "harbour bank"};
    char ph[64];
    ok(store_states("I work at Harbour Bank.", "Maya", ents, 2, STORE_ATTR_EMPLOYER, wanted, "maya",
                    ph, sizeof ph),
       "I work at X states the speaker's employer");
    is_str(ph, "work at Harbour", "with the phrase as written");
    ok(!store_states("I work at Harbour Bank.", "Maya", ents, 2, STORE_ATTR_RESIDENCE, wanted, "",
                     ph, sizeof ph),
       "and no residence");
    ok(!store_states("I work at Harbour Bank.", "Maya", ents, 2, STORE_ATTR_EMPLOYER, wanted,
                     "!maya", ph, sizeof ph),
       "a subject vetoed is not the one asked about");
    is_str(ph, "", "and leaves no phrase");
    ok(!store_states("I worked at Harbour Bank.", "Maya", ents, 2, STORE_ATTR_EMPLOYER, wanted, "",
                     ph, sizeof ph),
       "the past tense states nothing");
    char *sam[] = {"leah", "sam"};
    ok(store_states("You got the Sam thing wrong. He's not allergic to shellfish, it's cashews.",
                    "Leah", sam, 2, STORE_ATTR_ALLERGY, wanted, "sam", ph, sizeof ph),
       "a correction that rejects a value speaks of the attribute too");
    char *leah[] = {"leah"};
    ok(store_states("Please store the new address properly: 12 Wedmore Row, Bristol.", "Leah", leah,
                    1, STORE_ATTR_RESIDENCE, wanted, "leah", ph, sizeof ph),
       "the new address: a residence of the speaker, across the colon");
    is_str(ph, "new address properly: 12", "its value the first word with a digit or capital");
    char *tern[] = {"maya", "tern"};
    ok(store_states("Omar has taken over Tern since Jess left.", "Maya", tern, 2, STORE_ATTR_LEAD,
                    wanted, "tern", ph, sizeof ph),
       "X has taken over Y states Y's lead");
    is_str(ph, "Omar has taken over Tern", "who, from the capital, to what");
    ok(!store_states("Omar has taken over Tern since Jess left.", "Maya", tern, 2, STORE_ATTR_LEAD,
                     wanted, "omar", ph, sizeof ph),
       "of Tern, not of Omar");
    ok(!store_states(NULL, NULL, NULL, 0, STORE_ATTR_LEAD, wanted, "", ph, sizeof ph),
       "no text states nothing");
}

/* Ages and job titles, said without a cue phrase (issue 13, item 3). */
static void test_ages(void)
{
    char *maya[] = {"maya"}, *sam[] = {"maya", "sam"};
    char ph[64];
    int who;
    is_int(store_attr_asked("How old am I now?", &who), STORE_ATTR_AGE, "how old asks an age");
    is_int(who, STORE_WHO_SELF, "of the speaker");
    is_int(store_attr_asked("What is Sam's age?", &who), STORE_ATTR_AGE, "so does age");
    ok(store_states("I'm 33, and I mostly want you to keep track of things.", "Maya", maya, 1,
                    STORE_ATTR_AGE, wanted, "maya", ph, sizeof ph),
       "I'm 33 states the speaker's age");
    is_str(ph, "I'm 33", "with the phrase as written");
    ok(store_states("I'm officially 34. Nobody forgot.", "Maya", maya, 1, STORE_ATTR_AGE, wanted,
                    "maya", ph, sizeof ph),
       "a word such as officially between");
    ok(store_states("Thirty-five as of yesterday. I feel nineteen.", "Maya", maya, 1,
                    STORE_ATTR_AGE, wanted, "maya", ph, sizeof ph),
       "a number word first in its sentence, before as of, is the speaker's age");
    is_str(ph, "Thirty-five as of", "the phrase says as of");
    ok(store_states("Sam turned 40 on Sunday.", "Maya", sam, 2, STORE_ATTR_AGE, wanted, "sam", ph,
                    sizeof ph),
       "X turned 40 is X's age");
    ok(!store_states("Sam turned 40 on Sunday.", "Maya", sam, 2, STORE_ATTR_AGE, wanted, "maya", ph,
                     sizeof ph),
       "not the speaker's");
    ok(!store_states("I'm 5 minutes from the station.", "Maya", maya, 1, STORE_ATTR_AGE, wanted, "",
                     ph, sizeof ph),
       "a number before a unit is no age");
    ok(!store_states("We have 3 dogs as of today.", "Maya", maya, 1, STORE_ATTR_AGE, wanted, "", ph,
                     sizeof ph),
       "nor a count before as of that does not open its sentence");
    ok(!store_states("I'm 150 percent sure.", "Maya", maya, 1, STORE_ATTR_AGE, wanted, "", ph,
                     sizeof ph),
       "nor a number no one is");
    ok(!store_states("I'm 100% sure, it's fine.", "Maya", maya, 1, STORE_ATTR_AGE, wanted, "", ph,
                     sizeof ph),
       "nor a number a sign follows");
}

static void test_titles(void)
{
    char *leah[] = {"leah"}, *ro[] = {"leah", "asked róisín"};
    char ph[64];
    ok(store_states("Senior Data Scientist, £68,000, hybrid, starting in July.", "Leah", leah, 1,
                    STORE_ATTR_ROLE, wanted, "leah", ph, sizeof ph),
       "a title written with capitals, no one else named, is the speaker's role");
    is_str(ph, "Senior Data Scientist", "the title as written");
    ok(store_states("Asked Róisín about it: she got it! She's project lead on the Salford scheme.",
                    "Leah", ro, 2, STORE_ATTR_ROLE, wanted, "asked róisín", ph, sizeof ph),
       "she's project lead: the role of the name the memory holds");
    is_str(ph, "She's project lead", "from the copula");
    ok(store_states("I'm a staff nurse at the Royal.", "Leah", leah, 1, STORE_ATTR_ROLE, wanted,
                    "leah", ph, sizeof ph),
       "I'm a staff nurse");
    ok(!store_states("She left after six years as a scheduling analyst.", "Leah", leah, 1,
                     STORE_ATTR_ROLE, wanted, "", ph, sizeof ph),
       "six years as an analyst is no title held");
    ok(!store_states("I worked as a teacher for a year.", "Leah", leah, 1, STORE_ATTR_ROLE, wanted,
                     "", ph, sizeof ph),
       "nor the past tense");
    ok(!store_states("He's the lead singer in a band.", "Leah", leah, 1, STORE_ATTR_ROLE, wanted,
                     "", ph, sizeof ph),
       "lead singer does not end in lead");
    ok(!store_states("They want her to lead a small team.", "Leah", leah, 1, STORE_ATTR_ROLE,
                     wanted, "", ph, sizeof ph),
       "lead the verb is no title");
    ok(!store_states("Sam is my manager now.", "Leah", leah, 1, STORE_ATTR_ROLE, wanted, "", ph,
                     sizeof ph),
       "is my manager is a manager, not a role");
    ok(!store_states("I'm not a manager.", "Leah", leah, 1, STORE_ATTR_ROLE, wanted, "", ph,
                     sizeof ph),
       "nor a title after not");
}

int main(void)
{
    test_asked();
    test_states();
    test_ages();
    test_titles();
    return done_testing();
}
