/* tests/test_limits.c - every MMD_MAX_* limit is checked when the model loads: a model exactly
   at the limit loads and runs, one past it is refused with MMD_ERR_LIMIT and a message naming
   the macro.

   The limits are set small here (the configuration macros are meant to be overridden before the
   implementation include), so that the models stay a few hundred bytes; they are written with
   the little protobuf encoder below rather than kept as files. */
#define MMD_MAX_NODES 4
#define MMD_MAX_TENSORS 6
#define MMD_MAX_NODE_IO 8
#define MMD_MAX_ATTRIBUTES 2
#define MMD_MAX_ATTR_VALUES 4
#define MMD_MAX_OPSETS 2
#define MMD_MAX_STRING 16
#define MMD_MAX_TENSOR_BYTES 4096
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#include "test.h"

#include <string.h>

/* ---- a protobuf encoder, just enough for ModelProto ------------------------------------------ */
typedef struct pb { uint8_t b[2048]; size_t n; } pb;

static void pb_varint(pb *p, uint64_t v) {
    do {
        uint8_t byte = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (p->n < sizeof(p->b)) p->b[p->n++] = (uint8_t)(byte | (v ? 0x80 : 0));
    } while (v);
}
static void pb_int(pb *p, uint32_t field, uint64_t v) { pb_varint(p, (uint64_t)field << 3); pb_varint(p, v); }
static void pb_bytes(pb *p, uint32_t field, const void *data, size_t len) {
    pb_varint(p, (uint64_t)field << 3 | 2);
    pb_varint(p, len);
    if (p->n + len <= sizeof(p->b)) { memcpy(p->b + p->n, data, len); p->n += len; }
}
static void pb_str(pb *p, uint32_t field, const char *s) { pb_bytes(p, field, s, strlen(s)); }
static void pb_msg(pb *p, uint32_t field, const pb *m) { pb_bytes(p, field, m->b, m->n); }

/* ValueInfoProto of a float tensor of shape [dim]. */
static void pb_value_info(pb *graph, uint32_t field, const char *name, int64_t dim) {
    pb vi = {{0}, 0}, type = {{0}, 0}, tensor = {{0}, 0}, shape = {{0}, 0}, d = {{0}, 0};
    pb_int(&d, 1, (uint64_t)dim);
    pb_msg(&shape, 1, &d);
    pb_int(&tensor, 1, MMD_DTYPE_FLOAT32);
    pb_msg(&tensor, 2, &shape);
    pb_msg(&type, 1, &tensor);
    pb_str(&vi, 1, name);
    pb_msg(&vi, 2, &type);
    pb_msg(graph, field, &vi);
}

/* A model around the given graph nodes: input X[x_dim], output named out with the same shape
   (opset 13 and `opsets` - 1 more imports of made-up domains). */
static void pb_model(pb *model, const pb *nodes, int64_t x_dim, const char *out, int32_t opsets) {
    pb graph = {{0}, 0};
    int32_t i;
    memcpy(graph.b, nodes->b, nodes->n);
    graph.n = nodes->n;
    pb_str(&graph, 2, "g");
    pb_value_info(&graph, 11, "X", x_dim);
    pb_value_info(&graph, 12, out, x_dim);
    model->n = 0;
    pb_int(model, 1, 7);
    for (i = 0; i < opsets; ++i) {
        pb op = {{0}, 0};
        char domain[8] = "d0";
        if (i) { domain[1] = (char)('0' + i); pb_str(&op, 1, domain); }
        pb_int(&op, 2, i ? 1 : 13);
        pb_msg(model, 8, &op);
    }
    pb_msg(model, 7, &graph);
}

/* Appends a node; inputs and outputs are NULL-terminated lists. */
static void pb_node(pb *nodes, const char *op_type, const char *name, const char *const *in,
                    const char *const *out, const pb *attrs) {
    pb node = {{0}, 0};
    for (; *in; ++in) pb_str(&node, 1, *in);
    for (; *out; ++out) pb_str(&node, 2, *out);
    if (name) pb_str(&node, 3, name);
    pb_str(&node, 4, op_type);
    if (attrs) { memcpy(node.b + node.n, attrs->b, attrs->n); node.n += attrs->n; }
    pb_msg(nodes, 1, &node);
}

/* Loads the model and, when that works, runs it on zeros. */
static mmd_status load_and_run(const pb *model, int64_t x_dim, mmd_error *err) {
    static float x[1024];
    mmd_session *s = NULL;
    mmd_status st;
    memset(err, 0, sizeof(*err));
    if ((st = mmd_session_create(model->b, model->n, NULL, &s, err)) != MMD_OK) return st;
    st = mmd_session_set_input(s, 0, MMD_DTYPE_FLOAT32, 1, &x_dim, x, err);
    if (st == MMD_OK) st = mmd_session_prepare(s, err);
    if (st == MMD_OK) st = mmd_session_run(s, err);
    mmd_session_destroy(s);
    return st;
}

static int refused_naming(mmd_status st, const mmd_error *err, const char *macro) {
    if (st == MMD_ERR_LIMIT && err->status == MMD_ERR_LIMIT && strstr(err->msg, macro)) return 1;
    fprintf(stderr, "  got %s: '%s', want a limit naming %s\n", mmd_status_string(st), err->msg, macro);
    return 0;
}

/* A chain of n Relu nodes X -> t1 -> ... -> Y. */
static void relu_chain(pb *model, int32_t n) {
    static const char *const names[] = {"X", "t1", "t2", "t3", "t4", "t5", "Y"};
    pb nodes = {{0}, 0};
    int32_t i;
    for (i = 0; i < n; ++i) {
        const char *in[2], *out[2];
        in[0] = names[i]; in[1] = NULL;
        out[0] = i == n - 1 ? "Y" : names[i + 1]; out[1] = NULL;
        pb_node(&nodes, "Relu", NULL, in, out, NULL);
    }
    pb_model(model, &nodes, 4, "Y", 1);
}

static void node_count_past_max_nodes_is_limit(void) {
    pb model;
    mmd_error err;
    relu_chain(&model, MMD_MAX_NODES);
    CHECK(load_and_run(&model, 4, &err) == MMD_OK);
    relu_chain(&model, MMD_MAX_NODES + 1);
    CHECK(refused_naming(load_and_run(&model, 4, &err), &err, "MMD_MAX_NODES"));
}

/* Split of X[n] into n outputs: 1 + n named values. */
static void split_into(pb *model, int32_t n) {
    static const char *const outs[] = {"Y", "o1", "o2", "o3", "o4", "o5", "o6", "o7", NULL};
    const char *in[2] = {"X", NULL}, *out[9];
    pb nodes = {{0}, 0};
    int32_t i;
    for (i = 0; i < n; ++i) out[i] = outs[i];
    out[n] = NULL;
    pb_node(&nodes, "Split", NULL, in, out, NULL);
    pb_model(model, &nodes, n, "Y", 1);
}

static void named_values_past_max_tensors_is_limit(void) {
    pb model;
    mmd_error err;
    split_into(&model, MMD_MAX_TENSORS - 1);
    CHECK(load_and_run(&model, MMD_MAX_TENSORS - 1, &err) == MMD_OK);
    split_into(&model, MMD_MAX_TENSORS);
    CHECK(refused_naming(load_and_run(&model, MMD_MAX_TENSORS, &err), &err, "MMD_MAX_TENSORS"));
}

/* Concat of n copies of X[1] along axis 0 into Y[n]. */
static void concat_of(pb *model, int32_t n) {
    const char *in[MMD_MAX_NODE_IO + 2], *out[2] = {"Y", NULL};
    pb nodes = {{0}, 0}, attrs = {{0}, 0}, axis = {{0}, 0};
    int32_t i;
    for (i = 0; i < n; ++i) in[i] = "X";
    in[n] = NULL;
    pb_str(&axis, 1, "axis");
    pb_int(&axis, 3, 0);
    pb_int(&axis, 20, MMD_ATTR_INT);
    pb_msg(&attrs, 5, &axis);
    pb_node(&nodes, "Concat", NULL, in, out, &attrs);
    pb_model(model, &nodes, 1, "Y", 1);
}

static void node_inputs_past_max_node_io_is_limit(void) {
    pb model;
    mmd_error err;
    concat_of(&model, MMD_MAX_NODE_IO);
    /* Y is declared [1] but Concat makes [8]: a declared output shape gives way to the plan's. */
    CHECK(load_and_run(&model, 1, &err) == MMD_OK);
    concat_of(&model, MMD_MAX_NODE_IO + 1);
    CHECK(refused_naming(load_and_run(&model, 1, &err), &err, "MMD_MAX_NODE_IO"));
}

/* Relu with n INT attributes (Relu reads none), or with one INTS attribute of n values. */
static void relu_with_attributes(pb *model, int32_t n, int32_t as_values) {
    const char *in[2] = {"X", NULL}, *out[2] = {"Y", NULL};
    pb nodes = {{0}, 0}, attrs = {{0}, 0};
    int32_t i;
    for (i = 0; i < (as_values ? 1 : n); ++i) {
        pb a = {{0}, 0};
        char name[3] = "a0";
        name[1] = (char)('0' + i);
        pb_str(&a, 1, name);
        if (as_values) {
            int32_t k;
            for (k = 0; k < n; ++k) pb_int(&a, 8, (uint64_t)k);
            pb_int(&a, 20, MMD_ATTR_INTS);
        } else {
            pb_int(&a, 3, (uint64_t)i);
            pb_int(&a, 20, MMD_ATTR_INT);
        }
        pb_msg(&attrs, 5, &a);
    }
    pb_node(&nodes, "Relu", NULL, in, out, &attrs);
    pb_model(model, &nodes, 4, "Y", 1);
}

static void attributes_past_max_attributes_is_limit(void) {
    pb model;
    mmd_error err;
    relu_with_attributes(&model, MMD_MAX_ATTRIBUTES, 0);
    CHECK(load_and_run(&model, 4, &err) == MMD_OK);
    relu_with_attributes(&model, MMD_MAX_ATTRIBUTES + 1, 0);
    CHECK(refused_naming(load_and_run(&model, 4, &err), &err, "MMD_MAX_ATTRIBUTES"));
}

static void attribute_values_past_max_attr_values_is_limit(void) {
    pb model;
    mmd_error err;
    relu_with_attributes(&model, MMD_MAX_ATTR_VALUES, 1);
    CHECK(load_and_run(&model, 4, &err) == MMD_OK);
    relu_with_attributes(&model, MMD_MAX_ATTR_VALUES + 1, 1);
    CHECK(refused_naming(load_and_run(&model, 4, &err), &err, "MMD_MAX_ATTR_VALUES"));
}

/* One Relu, its name given; opset imports as asked. */
static void relu_named(pb *model, const char *name, int32_t opsets) {
    const char *in[2] = {"X", NULL}, *out[2] = {"Y", NULL};
    pb nodes = {{0}, 0};
    pb_node(&nodes, "Relu", name, in, out, NULL);
    pb_model(model, &nodes, 4, "Y", opsets);
}

static void opset_imports_past_max_opsets_is_limit(void) {
    pb model;
    mmd_error err;
    relu_named(&model, NULL, MMD_MAX_OPSETS);
    CHECK(load_and_run(&model, 4, &err) == MMD_OK);
    relu_named(&model, NULL, MMD_MAX_OPSETS + 1);
    CHECK(refused_naming(load_and_run(&model, 4, &err), &err, "MMD_MAX_OPSETS"));
}

static void string_past_max_string_is_limit(void) {
    pb model;
    mmd_error err;
    relu_named(&model, "sixteen_bytes_ok", 1);
    CHECK(load_and_run(&model, 4, &err) == MMD_OK);
    relu_named(&model, "seventeen_bytes_x", 1);
    CHECK(refused_naming(load_and_run(&model, 4, &err), &err, "MMD_MAX_STRING"));
}

static void input_past_max_tensor_bytes_is_limit(void) {
    pb model, nodes = {{0}, 0};
    mmd_error err;
    const char *in[2] = {"X", NULL}, *out[2] = {"Y", NULL};
    pb_node(&nodes, "Relu", NULL, in, out, NULL);
    /* X[1024] of float32 is 4096 bytes, at the limit; X[1025] is past it. */
    pb_model(&model, &nodes, 1024, "Y", 1);
    CHECK(load_and_run(&model, 1024, &err) == MMD_OK);
    pb_model(&model, &nodes, 1025, "Y", 1);
    CHECK(refused_naming(load_and_run(&model, 1025, &err), &err, "MMD_MAX_TENSOR_BYTES"));
}

int main(void) {
    TEST_RUN(node_count_past_max_nodes_is_limit);
    TEST_RUN(named_values_past_max_tensors_is_limit);
    TEST_RUN(node_inputs_past_max_node_io_is_limit);
    TEST_RUN(attributes_past_max_attributes_is_limit);
    TEST_RUN(attribute_values_past_max_attr_values_is_limit);
    TEST_RUN(opset_imports_past_max_opsets_is_limit);
    TEST_RUN(string_past_max_string_is_limit);
    TEST_RUN(input_past_max_tensor_bytes_is_limit);
    return test_summary();
}
