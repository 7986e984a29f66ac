/* tests/fuzz/replay.c - main() for a fuzz harness built without libFuzzer, so that `make test`
   replays the inputs the fuzzers once found (tests/fuzz/regress/<harness>_*) in its ordinary
   build: each file goes once through LLVMFuzzerTestOneInput, which aborts on a finding.
   Usage: replay_<harness> FILE...; ends "N passed, 0 failed" (a finding never gets there). */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
    int i, failed = 0;
    for (i = 1; i < argc; ++i) {
        FILE *f = fopen(argv[i], "rb");
        uint8_t *buf = NULL;
        long n = -1;
        if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
            (buf = (uint8_t *)malloc(n ? (size_t)n : 1)) != NULL && fread(buf, 1, (size_t)n, f) == (size_t)n) {
            LLVMFuzzerTestOneInput(buf, (size_t)n);
            printf("ok %s\n", argv[i]);
        } else {
            printf("FAIL %s: cannot read it\n", argv[i]);
            ++failed;
        }
        free(buf);
        if (f) fclose(f);
    }
    printf("%d passed, %d failed\n", argc - 1 - failed, failed);
    return failed != 0;
}
