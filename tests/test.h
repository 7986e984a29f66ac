/* tests/test.h - the one test helper: CHECK macros and a closing "N passed, M failed" line.
   Each test file defines its tests as functions and calls them through TEST_RUN in main. */
#ifndef MMD_TEST_H
#define MMD_TEST_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int test__passed, test__failed, test__cur_failed;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);    \
            test__cur_failed = 1;                                                       \
        }                                                                               \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                           \
    do {                                                                                \
        double test__a = (double)(a), test__b = (double)(b);                            \
        if (!(fabs(test__a - test__b) <= (tol) * (1.0 + fabs(test__b)))) {              \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %g, %s = %g\n", __FILE__,   \
                    __LINE__, #a, test__a, #b, test__b);                                \
            test__cur_failed = 1;                                                       \
        }                                                                               \
    } while (0)

/* A whole file in one malloc block with a spare byte (data NULL when it cannot be opened). */
typedef struct test_bytes { unsigned char *data; size_t size; } test_bytes;

static test_bytes test_read_file(const char *path) {
    test_bytes b = {NULL, 0};
    FILE *f = fopen(path, "rb");
    long n;
    if (!f) { fprintf(stderr, "cannot open %s\n", path); return b; }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b.data = (unsigned char *)malloc((size_t)n + 1);
    b.size = fread(b.data, 1, (size_t)n, f);
    fclose(f);
    return b;
}

/* Runs one test function and counts it. */
#define TEST_RUN(fn)                                                                    \
    do {                                                                                \
        test__cur_failed = 0;                                                           \
        fn();                                                                           \
        if (test__cur_failed) { ++test__failed; printf("FAIL %s\n", #fn); }             \
        else { ++test__passed; printf("ok   %s\n", #fn); }                              \
    } while (0)

/* Prints the closing line and returns the exit status for main. */
static int test_summary(void) {
    (void)test_read_file; /* not every test reads files: this keeps -Wunused-function quiet */
    printf("%d passed, %d failed\n", test__passed, test__failed);
    return test__failed ? 1 : 0;
}
#endif
