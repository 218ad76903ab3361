/* base-test.c - the base floor every room shares (store/base/): the one
 * UTF-8 decoder, civil-date arithmetic, the monotonic clock and the one word
 * splitter that entity linking uses on the write and the query side. */
#include <string.h>

#include "store/base/civil.h"
#include "store/base/mono.h"
#include "store/base/utf8.h"
#include "store/base/words.h"
#include "tests/tap.h"

static void test_utf8(void)
{
    unsigned cp;
    is_int(utf8_decode("A", 1, &cp), 1, "ASCII is one byte");
    is_int(cp, 'A', "and decodes to itself");
    is_int(utf8_decode("\xc3\xa9", 2, &cp), 2, "é is two bytes");
    is_int(cp, 0xe9, "U+00E9");
    is_int(utf8_decode("\xe2\x80\x99", 3, &cp), 3, "a curly apostrophe is three bytes");
    is_int(cp, 0x2019, "U+2019");
    is_int(utf8_decode("\xf0\x9f\x98\x80", 4, &cp), 4, "an emoji is four bytes");
    is_int(cp, 0x1f600, "U+1F600");
    is_int(utf8_decode("\xc0\x80", 2, &cp), 0, "an overlong NUL is refused");
    is_int(utf8_decode("\xe0\x80\xaf", 3, &cp), 0, "an overlong three-byte form is refused");
    is_int(utf8_decode("\xed\xa0\x80", 3, &cp), 0, "a surrogate is refused");
    is_int(utf8_decode("\xf4\x90\x80\x80", 4, &cp), 0, "beyond U+10FFFF is refused");
    is_int(utf8_decode("\xe2\x80", 2, &cp), 0, "a sequence cut short by n is refused");
    is_int(cp, 0xe2, "and *cp is its first byte");
    is_int(utf8_decode("\x80", 1, &cp), 0, "a stray continuation byte is refused");
    is_int(utf8_decode("", 0, &cp), 0, "nothing to read: 0");
    is_int(utf8_next("\xff"
                     "a",
                     2, &cp),
           1, "utf8_next moves one byte over an invalid one");
    is_int(cp, 0xfffd, "and reads it as U+FFFD");
    is_int(utf8_next("\xe2\x80\x99", 2, &cp), 1, "and never reads past n");
    is_int(utf8_next("x", 0, &cp), 0, "utf8_next with n == 0 is 0");
    is_int(utf8_cp_width('a'), 1, "an ASCII letter is one column");
}

static void test_civil(void)
{
    is_int((int)civil_days(1970, 1, 1), 0, "1970-01-01 is day 0");
    is_int((int)civil_days(2000, 3, 1), 11017, "2000-03-01 is day 11017");
    is_int((int)civil_days(1969, 12, 31), -1, "the day before is -1");
    is_int((int)civil_days(2024, 2, 29) - (int)civil_days(2024, 2, 28), 1,
           "a leap day follows 2024-02-28");
    is_int((int)civil_days(2023, 3, 1) - (int)civil_days(2023, 2, 28), 1, "no leap day in 2023");
    int bad = 0;
    for (int64_t z = -800000; z <= 800000; z += 37) {
        int y;
        unsigned m, d;
        civil_from_days(z, &y, &m, &d);
        bad += civil_days(y, m, d) != z || m < 1 || m > 12 || d < 1 || d > 31;
    }
    is_int(bad, 0, "civil_from_days and civil_days round-trip over +-2190 years");
    int y;
    civil_from_days(INT64_MAX, &y, NULL, NULL);
    ok(y > 1000000000, "a huge day count is clamped to a year that fits (%d)", y);
}

static void test_mono(void)
{
    double a = mono_ms(), b = mono_ms();
    ok(a > 0 && b >= a, "the monotonic clock never goes back (%.3f, %.3f)", a, b);
}

static int words_of(const char *text, words_span *w, char out[][32], size_t cap)
{
    size_t n = words_split(text, strlen(text), w, cap);
    for (size_t i = 0; i < n; i++) {
        int len = w[i].end - w[i].start;
        memcpy(out[i], text + w[i].start, (size_t)len);
        out[i][len] = '\0';
    }
    return (int)n;
}

static void test_words(void)
{
    words_span w[16];
    char s[16][32];
    int n = words_of("What is Caroline's job?", w, s, 16);
    is_int(n, 4, "four words");
    is_str(s[2], "Caroline", "a straight possessive 's is dropped");
    ok(w[2].cap && !w[1].cap, "Caroline is capitalised, is is not");
    ok(w[0].first && !w[2].first, "What starts the sentence");
    n = words_of("What is Caroline\xe2\x80\x99s job?", w, s, 16);
    is_int(n, 4, "four words with a curly apostrophe too");
    is_str(s[2], "Caroline", "a curly possessive \xe2\x80\x99s is dropped the same way");
    n = words_of("Mary-Jane O'Neil, then  Tom. Ann", w, s, 16);
    is_int(n, 5, "hyphen and apostrophe inside a word keep it whole");
    is_str(s[0], "Mary-Jane", "Mary-Jane is one word");
    is_str(s[1], "O'Neil", "O'Neil is one word");
    ok(w[1].joined && !w[2].joined, "a comma breaks a run of words");
    ok(w[3].joined, "only spaces between two words join them, however many");
    ok(w[4].first, "a word after a full stop starts a sentence");
    n = words_of("\xff\xfe Zo\xc3\xab 2023", w, s, 16);
    is_int(n, 3, "malformed bytes are read as U+FFFD and join no word but their own");
    is_str(s[1], "Zo\xc3\xab", "Zoë is one word");
    ok(w[1].cap && !w[2].cap, "Zoë is capitalised; 2023 is a word but not a capital");
    ok(words_is_upper(0xc9) && !words_is_upper(0xe9) && words_is_upper(0x416),
       "É and Ж are capitals, é is not");
}

int main(void)
{
    test_utf8();
    test_civil();
    test_mono();
    test_words();
    return done_testing();
}
