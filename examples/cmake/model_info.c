/* model_info.c - the host program of the CMake example: loads a model (.onnx or .mmd) and prints
   its inputs, outputs and the arena bytes a session takes, with the library found through CMake.

       model_info MODEL   exit status 0 when the model loads */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    FILE *f;
    long size;
    void *bytes;
    size_t arena = 0;
    mmd_session *s;
    mmd_error err = {MMD_OK, -1, "", ""};
    int32_t i;
    if (argc != 2) {
        fprintf(stderr, "usage: model_info MODEL\n");
        return 2;
    }
    if (!(f = fopen(argv[1], "rb")) || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
        !(bytes = malloc((size_t)size + 1)) || fread(bytes, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "model_info: cannot read %s\n", argv[1]);
        return 1;
    }
    fclose(f);
    if (mmd_session_arena_size(bytes, (size_t)size, &arena, &err) != MMD_OK ||
        mmd_session_create(bytes, (size_t)size, NULL, &s, &err) != MMD_OK) {
        fprintf(stderr, "model_info: %s: %s\n", mmd_status_string(err.status), err.msg);
        return 1;
    }
    for (i = 0; i < mmd_session_input_count(s); ++i)
        printf("input  %s %s rank %d\n", mmd_session_input(s, i)->name, mmd_dtype_name(mmd_session_input(s, i)->dtype),
               (int)mmd_session_input(s, i)->rank);
    for (i = 0; i < mmd_session_output_count(s); ++i)
        printf("output %s %s rank %d\n", mmd_session_output(s, i)->name,
               mmd_dtype_name(mmd_session_output(s, i)->dtype), (int)mmd_session_output(s, i)->rank);
    printf("arena  %zu bytes\n", arena);
    mmd_session_destroy(s);
    free(bytes);
    return 0;
}
