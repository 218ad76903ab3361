/* fuzz-vector.c - the vector blob decoder (store/vector.c), which reads
 * whatever a store file holds in vectors.vec. The first two bytes of the
 * input choose the dimension (1..STORE_DIM_MAX); the rest is the blob.
 * Checks: a blob that decodes re-encodes to a blob that decodes to the same
 * bits, no longer than the dense form; and the rest of the input read as
 * floats (a vector of any bits) survives encode then decode unchanged. */
#include "fuzz.h"

#include "store/store_int.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static float a[STORE_DIM_MAX], b[STORE_DIM_MAX];
static unsigned char blob[STORE_DIM_MAX * sizeof(float)];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    int dim = 1 + (int)((data[0] | data[1] << 8) % STORE_DIM_MAX);
    const uint8_t *rest = data + 2;
    size_t n = size - 2;
    size_t dense = (size_t)dim * sizeof(float);

    if (store_vec_decode(rest, n, a, dim) == 0) {
        size_t len = store_vec_encode(a, dim, blob);
        FUZZ_CHECK(len <= dense, "an encoded blob is no longer than the dense form");
        FUZZ_CHECK(store_vec_decode(blob, len, b, dim) == 0, "an encoded blob decodes");
        FUZZ_CHECK(memcmp(a, b, dense) == 0, "decode(encode(v)) has v's bits");
    }

    memset(a, 0, dense);
    memcpy(a, rest, n < dense ? n : dense);
    size_t len = store_vec_encode(a, dim, blob);
    FUZZ_CHECK(store_vec_decode(blob, len, b, dim) == 0, "any vector's blob decodes");
    FUZZ_CHECK(memcmp(a, b, dense) == 0, "and gives the same bits back");
    return 0;
}
