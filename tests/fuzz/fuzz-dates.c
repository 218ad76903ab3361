/* fuzz-dates.c - the query date parser: dates_parse and
 * dates_has_expression on hostile text. "now" is 2023-11-14, or, when the
 * input starts with a NUL byte (which would end the text anyway), the next
 * 8 bytes pick one anywhere from year 0 to 9999 (what --as-of accepts).
 * Checks the ranges it returns: start < end, spans inside the text. */
#include "fuzz.h"

#include "engine/dates.h"

#define FZ_MAX 16

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int64_t lo = -62167219200LL; /* 0000-01-01 */
    static const int64_t hi = 253402300799LL; /* 9999-12-31T23:59:59 */
    int64_t now = 1700000000;                 /* 2023-11-14 */
    if (size >= 9 && data[0] == 0) {
        uint64_t v;
        memcpy(&v, data + 1, 8);
        now = lo + (int64_t)(v % (uint64_t)(hi - lo));
        data += 9;
        size -= 9;
    }
    char *text = fuzz_string(data, size);
    size_t len = strlen(text);
    date_range r[FZ_MAX];
    int n = dates_parse(text, now, r, FZ_MAX);
    FUZZ_CHECK(n >= 0 && n <= FZ_MAX, "count within max");
    for (int i = 0; i < n; i++) {
        FUZZ_CHECK(r[i].start < r[i].end, "a range is not empty");
        FUZZ_CHECK(r[i].start_off >= 0 && r[i].start_off <= r[i].end_off &&
                       (size_t)r[i].end_off <= len,
                   "a span lies inside the text");
    }
    int has = dates_has_expression(text);
    (void)has;
    free(text);
    return 0;
}
