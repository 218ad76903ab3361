/* sha256-test.c - SHA-256 against the examples of FIPS 180-4 (NIST's
 * published digests of "abc", the 448- and 896-bit messages and a million
 * "a"s), the empty message, and lengths either side of the padding
 * boundaries (55/56 and 119/120 bytes, one block and a byte more), fed
 * whole and in pieces of every size from 1 to 97 bytes. */
#include <stdlib.h>
#include <string.h>

#include "store/sha256.h"
#include "tests/tap.h"

static const char *hex_of(const void *p, size_t len)
{
    static char hex[SHA256_HEX];
    sha256_hex(p, len, hex);
    return hex;
}

/* The digest of text fed in pieces of step bytes. */
static const char *hex_in_pieces(const char *text, size_t len, size_t step)
{
    static char hex[SHA256_HEX];
    sha256_ctx c;
    unsigned char d[SHA256_BYTES];
    sha256_init(&c);
    for (size_t i = 0; i < len; i += step)
        sha256_update(&c, text + i, len - i < step ? len - i : step);
    sha256_final(&c, d);
    sha256_to_hex(d, hex);
    return hex;
}

static void fips_examples(void)
{
    is_str(hex_of("abc", 3), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
           "FIPS 180-4 example: \"abc\" (one block)");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    is_str(hex_of(m448, strlen(m448)),
           "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
           "FIPS 180-4 example: the 448-bit message (two blocks)");
    const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                       "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    is_str(hex_of(m896, strlen(m896)),
           "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
           "FIPS 180-4 example: the 896-bit message");
    char *million = malloc(1000000);
    memset(million, 'a', 1000000);
    is_str(hex_of(million, 1000000),
           "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
           "FIPS 180-4 example: one million \"a\"");
    is_str(hex_in_pieces(million, 1000000, 4099),
           "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
           "one million \"a\" in pieces of 4099 bytes");
    free(million);
    is_str(hex_of(NULL, 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
           "the empty message");
}

static void boundaries(void)
{
    static const struct {
        size_t n;
        const char *hex;
    } want[] = {
        {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
        {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
        {63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
        {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
        {65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
        {119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
        {120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
    };
    char a[128];
    memset(a, 'a', sizeof a);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        is_str(hex_of(a, want[i].n), want[i].hex, "%zu \"a\"s whole", want[i].n);
        int same = 1;
        for (size_t step = 1; step <= 97; step++)
            same &= strcmp(hex_in_pieces(a, want[i].n, step), want[i].hex) == 0;
        ok(same, "%zu \"a\"s in pieces of 1..97 bytes give the same digest", want[i].n);
    }
}

int main(void)
{
    fips_examples();
    boundaries();
    return done_testing();
}
