/* tests/fuzz/fuzz_rnn.c - structured libFuzzer harness for the recurrent operators LSTM, GRU
   and RNN.

   The bytes are choices: the operator, its opset (layout exists from 14), sequence length,
   batch, input and hidden sizes (0 now and then), direction, layout; then each input X, W, R, B,
   sequence_lens, initial_h, initial_c and P with the shape the operator expects or, now and
   then, a wrong one or a wrong dtype, as an initializer holding values taken from the bytes
   (sequence lengths negative, zero, past the sequence, at int32's edges; weights infinite or
   NaN) or as a zero-filled graph input; and the attributes hidden_size, clip, activations,
   activation_alpha / activation_beta, linear_before_reset and input_forget, each sometimes
   hostile. Any of the outputs Y, Y_h, Y_c may be left out. The model goes through
   fuzz_node_run on 1 or 3 threads. Built and run by `make fuzz`; see tests/fuzz/fuzz.h
   for what counts as a finding. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static int64_t fuzz__size(fuzz_reader *r) {
    static const int64_t d[8] = {1, 2, 3, 4, 0, 5, 7, 1};
    return d[fuzz_take(r, 8)];
}

/* Adds input `name` with the expected shape (dims), or now and then one dim off, another rank or
   another dtype; absent (an empty name) when the bytes say so and the input is optional. */
static void fuzz__input(fuzz_pb *graph, fuzz_pb *node, fuzz_reader *r, const char *name, int32_t dtype,
                        int32_t rank, const int64_t *expected, int32_t optional) {
    int64_t dims[8];
    int32_t i;
    if (optional && fuzz_take(r, 3) == 0) {
        fuzz_pb_string(node, 1, "");
        return;
    }
    for (i = 0; i < rank; ++i) dims[i] = expected[i];
    switch (fuzz_take(r, 16)) {
    case 0: if (rank) dims[fuzz_take(r, (uint32_t)rank)] = fuzz__size(r); break;
    case 1: rank = (int32_t)fuzz_take(r, 5); for (i = 0; i < rank; ++i) dims[i] = fuzz__size(r); break;
    case 2: dtype = fuzz_take(r, 2) ? MMD_DTYPE_INT64 : MMD_DTYPE_FLOAT64; break;
    default: break;
    }
    fuzz_graph_tensor(graph, r, name, dtype, rank, dims, fuzz_take(r, 4) != 0);
    fuzz_pb_string(node, 1, name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const ops[3] = {"LSTM", "GRU", "RNN"};
    static const char *const dirs[4] = {"forward", "reverse", "bidirectional", "sideways"};
    static const char *const acts[10] = {"Sigmoid", "Tanh", "Relu", "Affine", "LeakyRelu", "ThresholdedRelu",
                                         "ScaledTanh", "HardSigmoid", "Elu", "Softsign"};
    static const int32_t gate_count[3] = {4, 3, 1};
    fuzz_reader r;
    fuzz_pb graph = {0}, node = {0};
    int32_t op, dir, ndirs, gates, layout = 0, threads, i;
    int64_t opset, seq, batch, input, hidden, d[4];
    r.p = data;
    r.n = size;
    op = (int32_t)fuzz_take(&r, 3);
    opset = fuzz_take(&r, 2) ? 14 : 7;
    threads = fuzz_take(&r, 2) ? 1 : 3;
    gates = gate_count[op];
    seq = fuzz__size(&r);
    batch = fuzz__size(&r);
    input = fuzz__size(&r);
    hidden = fuzz__size(&r);
    dir = (int32_t)fuzz_take(&r, 4);
    ndirs = dir == 2 ? 2 : 1;
    if (opset >= 14 && fuzz_take(&r, 2)) {
        layout = (int32_t)fuzz_take(&r, 2);
        fuzz_attr_int(&node, "layout", fuzz_take(&r, 16) ? layout : fuzz_take_int(&r));
    }
    if (dir || fuzz_take(&r, 2)) fuzz_attr_string(&node, "direction", dirs[dir == 3 && fuzz_take(&r, 2) ? 0 : dir]);
    if (fuzz_take(&r, 2)) fuzz_attr_int(&node, "hidden_size", fuzz_take(&r, 8) ? hidden : fuzz_take_int(&r));

    d[0] = layout ? batch : seq, d[1] = layout ? seq : batch, d[2] = input;
    fuzz__input(&graph, &node, &r, "X", MMD_DTYPE_FLOAT32, 3, d, 0);
    d[0] = ndirs, d[1] = gates * hidden, d[2] = input;
    fuzz__input(&graph, &node, &r, "W", MMD_DTYPE_FLOAT32, 3, d, 0);
    d[2] = hidden;
    fuzz__input(&graph, &node, &r, "R", MMD_DTYPE_FLOAT32, 3, d, 0);
    d[1] = 2 * gates * hidden;
    fuzz__input(&graph, &node, &r, "B", MMD_DTYPE_FLOAT32, 2, d, 1);
    fuzz__input(&graph, &node, &r, "sequence_lens", MMD_DTYPE_INT32, 1, &batch, 1);
    d[0] = layout ? batch : ndirs, d[1] = layout ? ndirs : batch, d[2] = hidden;
    fuzz__input(&graph, &node, &r, "initial_h", MMD_DTYPE_FLOAT32, 3, d, 1);
    if (op == 0) {
        fuzz__input(&graph, &node, &r, "initial_c", MMD_DTYPE_FLOAT32, 3, d, 1);
        d[0] = ndirs, d[1] = 3 * hidden;
        fuzz__input(&graph, &node, &r, "P", MMD_DTYPE_FLOAT32, 2, d, 1);
    }

    if (fuzz_take(&r, 4) == 0) fuzz_attr_float(&node, "clip", fuzz_take_float(&r));
    if (fuzz_take(&r, 4) == 0) {
        const char *list[6];
        float alpha[6], beta[6];
        int32_t count = (int32_t)fuzz_take(&r, 7);
        for (i = 0; i < count; ++i) {
            list[i] = acts[fuzz_take(&r, 10)];
            alpha[i] = fuzz_take_float(&r);
            beta[i] = fuzz_take_float(&r);
        }
        fuzz_attr_strings(&node, "activations", list, count);
        if (fuzz_take(&r, 2)) fuzz_attr_floats(&node, "activation_alpha", alpha, (int32_t)fuzz_take(&r, (uint32_t)count + 1));
        if (fuzz_take(&r, 2)) fuzz_attr_floats(&node, "activation_beta", beta, (int32_t)fuzz_take(&r, (uint32_t)count + 1));
    }
    if (op == 1 && fuzz_take(&r, 2)) fuzz_attr_int(&node, "linear_before_reset", fuzz_take(&r, 8) ? (int64_t)fuzz_take(&r, 2) : 2);
    if (op == 0 && fuzz_take(&r, 4) == 0) fuzz_attr_int(&node, "input_forget", fuzz_take(&r, 8) ? (int64_t)fuzz_take(&r, 2) : -1);

    for (i = 0; i < (op == 0 ? 3 : 2); ++i) {
        static const char *const outs[3] = {"Y", "Y_h", "Y_c"};
        fuzz_node_output(&graph, &node, fuzz_take(&r, 3) ? outs[i] : "");
    }
    fuzz_node_run(&graph, &node, ops[op], opset, threads);
    return 0;
}
