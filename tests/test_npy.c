/* tests/test_npy.c - .npy reader and writer (tools/mmd_npy.h): numpy's own bytes, every header
   form the format allows, and malformed files that must be refused with a message naming why. */
#include <stdlib.h>
#include <string.h>

/* One translation unit with the whole runtime (mmd_npy.h reports errors through it). */
#define MMD_IMPLEMENTATION
#include "mmdeploy.h"
#define MMD_NPY_IMPLEMENTATION
#include "mmd_npy.h"
#include "test.h"

/* np.save(f, np.arange(6, dtype='<f4').reshape(2, 3)) with numpy 1.24: 128-byte header. */
static const unsigned char numpy_f4_2x3[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
    "                                                          \n"
    "\x00\x00\x00\x00\x00\x00\x80?\x00\x00\x00@\x00\x00@@\x00\x00\x80@\x00\x00\xa0@";

/* Preamble of format major.0, the dict text as given (no padding) and data: enough to write
   each malformed case as one string literal. Returns the file size. */
static size_t make_npy(unsigned char *out, int major, const char *dict, const void *data,
                       size_t data_len) {
    size_t dict_len = strlen(dict), pre = major == 1 ? 10 : 12;
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (unsigned char)major;
    out[7] = 0;
    out[8] = (unsigned char)(dict_len & 0xff);
    out[9] = (unsigned char)(dict_len >> 8);
    if (major != 1) out[10] = out[11] = 0;
    memcpy(out + pre, dict, dict_len);
    if (data_len) memcpy(out + pre + dict_len, data, data_len);
    return pre + dict_len + data_len;
}

/* Parses a copy of exactly n bytes, so a sanitizer sees any read past the end. */
static mmd_status parse_exact(const unsigned char *b, size_t n, mmd_npy *t, mmd_error *err) {
    unsigned char *copy = (unsigned char *)malloc(n ? n : 1);
    mmd_status st;
    if (n) memcpy(copy, b, n);
    st = mmd_npy_parse(copy, n, t, err);
    t->data = NULL; /* it pointed into the copy */
    free(copy);
    return st;
}

/* 1 when parsing the dict (format 1.0) with data fails with status and a message holding
   needle. */
static int refuses(const char *dict, size_t data_len, mmd_status status, const char *needle) {
    static const unsigned char zeros[64] = {0};
    unsigned char buf[512];
    mmd_npy t;
    mmd_error err;
    size_t n = make_npy(buf, 1, dict, zeros, data_len);
    mmd_status st;
    memset(&err, 0, sizeof err);
    st = parse_exact(buf, n, &t, &err);
    if (st != status || !strstr(err.msg, needle)) {
        fprintf(stderr, "  dict %s: status %d, message '%s' (wanted %d, '%s')\n", dict, (int)st,
                err.msg, (int)status, needle);
        return 0;
    }
    return 1;
}

static void parse_reads_numpy_float32_2x3(void) {
    mmd_npy t;
    mmd_error err = {MMD_OK, 0, "", ""};
    float v[6];
    CHECK(mmd_npy_parse(numpy_f4_2x3, sizeof numpy_f4_2x3 - 1, &t, &err) == MMD_OK);
    CHECK(t.dtype == MMD_DTYPE_FLOAT32 && t.rank == 2 && t.dims[0] == 2 && t.dims[1] == 3);
    CHECK(t.nbytes == 24 && (const unsigned char *)t.data == numpy_f4_2x3 + 128);
    memcpy(v, t.data, sizeof v);
    CHECK(v[0] == 0.0f && v[1] == 1.0f && v[5] == 5.0f);
}

static void parse_reads_format_2_and_3_headers(void) {
    static const float data[3] = {1, 2, 3};
    unsigned char buf[256];
    mmd_npy t;
    mmd_error err;
    int major;
    for (major = 2; major <= 3; ++major) {
        size_t n = make_npy(buf, major, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\n",
                            data, sizeof data);
        CHECK(mmd_npy_parse(buf, n, &t, &err) == MMD_OK);
        CHECK(t.rank == 1 && t.dims[0] == 3 && t.nbytes == 12);
        CHECK((const unsigned char *)t.data == buf + n - 12);
    }
}

static void parse_reads_scalar_empty_and_max_rank_shapes(void) {
    static const unsigned char one = 7;
    unsigned char buf[256];
    mmd_npy t;
    mmd_error err;
    size_t n = make_npy(buf, 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (), }", &one, 1);
    CHECK(mmd_npy_parse(buf, n, &t, &err) == MMD_OK);
    CHECK(t.dtype == MMD_DTYPE_UINT8 && t.rank == 0 && t.nbytes == 1);
    CHECK(*(const unsigned char *)t.data == 7);
    /* A zero dim makes the array empty even when the other dims are huge. */
    n = make_npy(buf, 1,
                 "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4611686018427387904, "
                 "4611686018427387904), }", NULL, 0);
    CHECK(mmd_npy_parse(buf, n, &t, &err) == MMD_OK);
    CHECK(t.rank == 3 && t.dims[0] == 0 && t.nbytes == 0);
    n = make_npy(buf, 1, "{'descr': '|b1', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1), }",
                 &one, 1);
    CHECK(mmd_npy_parse(buf, n, &t, &err) == MMD_OK);
    CHECK(t.dtype == MMD_DTYPE_BOOL && t.rank == MMD_MAX_RANK);
}

static void parse_accepts_any_key_order_double_quotes_and_python2_longs(void) {
    static const int64_t data[2] = {5, -6};
    unsigned char buf[256];
    mmd_npy t;
    mmd_error err;
    size_t n = make_npy(buf, 1, " { \"shape\" : ( 2L , ) , \"fortran_order\":False,'descr':'<i8'}\n",
                        data, sizeof data);
    CHECK(mmd_npy_parse(buf, n, &t, &err) == MMD_OK);
    CHECK(t.dtype == MMD_DTYPE_INT64 && t.rank == 1 && t.dims[0] == 2 && t.nbytes == 16);
}

static void parse_maps_each_descr_to_its_dtype(void) {
    static const struct { const char *descr; int32_t dtype; size_t size; } cases[] = {
        {"<f4", MMD_DTYPE_FLOAT32, 4}, {"<f8", MMD_DTYPE_FLOAT64, 8}, {"<i8", MMD_DTYPE_INT64, 8},
        {"<i4", MMD_DTYPE_INT32, 4},   {"|u1", MMD_DTYPE_UINT8, 1},   {"|i1", MMD_DTYPE_INT8, 1},
        {"|b1", MMD_DTYPE_BOOL, 1},    {"<f2", MMD_DTYPE_FLOAT16, 2}, {"<i2", MMD_DTYPE_INT16, 2},
        {"<u2", MMD_DTYPE_UINT16, 2},  {"<u4", MMD_DTYPE_UINT32, 4},  {"<u8", MMD_DTYPE_UINT64, 8},
        {"<u1", MMD_DTYPE_UINT8, 1},
    };
    static const unsigned char zeros[16] = {0};
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        unsigned char buf[256];
        char dict[128];
        mmd_npy t;
        mmd_error err;
        size_t n;
        sprintf(dict, "{'descr': '%s', 'fortran_order': False, 'shape': (2,), }", cases[i].descr);
        n = make_npy(buf, 1, dict, zeros, 2 * cases[i].size);
        CHECK(mmd_npy_parse(buf, n, &t, &err) == MMD_OK);
        CHECK(t.dtype == cases[i].dtype && t.nbytes == 2 * cases[i].size);
    }
}

static void parse_refuses_every_truncation_of_a_valid_file(void) {
    size_t n, full = sizeof numpy_f4_2x3 - 1;
    for (n = 0; n < full; ++n) {
        mmd_npy t;
        mmd_error err;
        CHECK(parse_exact(numpy_f4_2x3, n, &t, &err) != MMD_OK);
    }
}

static void parse_refuses_short_preamble_bad_magic_and_version(void) {
    unsigned char buf[sizeof numpy_f4_2x3];
    mmd_npy t;
    mmd_error err;
    CHECK(parse_exact(numpy_f4_2x3, 9, &t, &err) == MMD_ERR_MALFORMED);
    CHECK(strstr(err.msg, "preamble") != NULL);
    memcpy(buf, numpy_f4_2x3, sizeof buf);
    buf[1] = 'n';
    CHECK(mmd_npy_parse(buf, sizeof buf - 1, &t, &err) == MMD_ERR_MALFORMED);
    CHECK(strstr(err.msg, "magic") != NULL);
    memcpy(buf, numpy_f4_2x3, sizeof buf);
    buf[6] = 4;
    CHECK(mmd_npy_parse(buf, sizeof buf - 1, &t, &err) == MMD_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "version 4.0") != NULL);
    buf[6] = 1;
    buf[7] = 1;
    CHECK(mmd_npy_parse(buf, sizeof buf - 1, &t, &err) == MMD_ERR_UNSUPPORTED);
    /* Format 2.0 needs two more length bytes than the file has. */
    memcpy(buf, numpy_f4_2x3, 11);
    buf[6] = 2;
    CHECK(parse_exact(buf, 11, &t, &err) == MMD_ERR_MALFORMED);
    CHECK(strstr(err.msg, "12-byte") != NULL);
}

static void parse_refuses_header_length_past_the_end(void) {
    unsigned char buf[sizeof numpy_f4_2x3];
    mmd_npy t;
    mmd_error err;
    memcpy(buf, numpy_f4_2x3, sizeof buf);
    buf[8] = 0xff;
    buf[9] = 0xff;
    CHECK(parse_exact(buf, sizeof buf - 1, &t, &err) == MMD_ERR_MALFORMED);
    CHECK(strstr(err.msg, "runs past the end") != NULL);
    /* A 2.0 length near 4 GiB must not wrap the bound check. */
    memcpy(buf, "\x93NUMPY\x02\x00\xfa\xff\xff\xff{}", 14);
    CHECK(parse_exact(buf, 14, &t, &err) == MMD_ERR_MALFORMED);
    CHECK(strstr(err.msg, "runs past the end") != NULL);
}

static void parse_refuses_unsupported_descr(void) {
    CHECK(refuses("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", 8,
                  MMD_ERR_UNSUPPORTED, "descr '<c8' is not supported"));
    CHECK(refuses("{'descr': '|f4', 'fortran_order': False, 'shape': (1,), }", 4,
                  MMD_ERR_UNSUPPORTED, "descr '|f4'"));
    CHECK(refuses("{'descr': '<f4 ', 'fortran_order': False, 'shape': (1,), }", 4,
                  MMD_ERR_UNSUPPORTED, "descr '<f4 '"));
    CHECK(refuses("{'descr': '\x01\x02', 'fortran_order': False, 'shape': (1,), }", 4,
                  MMD_ERR_UNSUPPORTED, "descr '?\?'"));
    CHECK(refuses("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", 4,
                  MMD_ERR_UNSUPPORTED, "structured"));
    if (mmd_npy_descr(MMD_DTYPE_FLOAT32)[0] == '<')
        CHECK(refuses("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", 4,
                      MMD_ERR_UNSUPPORTED, "byte order"));
}

static void parse_refuses_fortran_order(void) {
    CHECK(refuses("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16,
                  MMD_ERR_UNSUPPORTED, "fortran_order True"));
    CHECK(refuses("{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 2), }", 16,
                  MMD_ERR_MALFORMED, "True or False"));
}

static void parse_refuses_shape_overflow_and_too_many_dims(void) {
    /* 2^62 elements fit in 64 bits, their 2^64 bytes do not. */
    CHECK(refuses("{'descr': '<f4', 'fortran_order': False, 'shape': (2147483648, 2147483648), }",
                  0, MMD_ERR_LIMIT, "do not fit"));
    CHECK(refuses("{'descr': '|u1', 'fortran_order': False, 'shape': (3, 4294967296, 4294967296), }",
                  0, MMD_ERR_LIMIT, "overflows at dimension 2"));
    CHECK(refuses("{'descr': '|u1', 'fortran_order': False, 'shape': (99999999999999999999,), }",
                  0, MMD_ERR_LIMIT, "does not fit in 64 bits"));
    CHECK(refuses("{'descr': '|u1', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", 1,
                  MMD_ERR_LIMIT, "more than 8 dimensions"));
    CHECK(refuses("{'descr': '|u1', 'fortran_order': False, 'shape': (-1,), }", 0,
                  MMD_ERR_MALFORMED, "negative"));
}

static void parse_refuses_data_of_the_wrong_size(void) {
    CHECK(refuses("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 20,
                  MMD_ERR_MALFORMED, "data is 20 bytes but shape and descr need 24 (file truncated)"));
    CHECK(refuses("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 28,
                  MMD_ERR_MALFORMED, "trailing bytes"));
}

static void parse_refuses_malformed_header_dicts(void) {
    CHECK(refuses("'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", 4, MMD_ERR_MALFORMED,
                  "expected '{'"));
    CHECK(refuses("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), ", 4, MMD_ERR_MALFORMED,
                  "ends early"));
    CHECK(refuses("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x", 4,
                  MMD_ERR_MALFORMED, "only padding"));
    CHECK(refuses("{'descr': '<f4', 'fortran_order': False}", 4, MMD_ERR_MALFORMED,
                  "lacks 'shape'"));
    CHECK(refuses("{'descr': '<f4', 'shape': (1,)}", 4, MMD_ERR_MALFORMED, "lacks 'fortran_order'"));
    CHECK(refuses("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", 4,
                  MMD_ERR_MALFORMED, "repeats key 'descr'"));
    CHECK(refuses("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", 4,
                  MMD_ERR_MALFORMED, "unknown key 'x'"));
    CHECK(refuses("{'descr: '<f4', 'fortran_order': False, 'shape': (1,)}", 4, MMD_ERR_MALFORMED,
                  "expected ':' after a key"));
    CHECK(refuses("{'descr': '<f4, 'fortran_order': False, 'shape': (1,)}", 4, MMD_ERR_UNSUPPORTED,
                  "descr '<f4, '"));
    CHECK(refuses("{'descr': '<f4', 'fortran_order': False, 'shape': (1,}", 4, MMD_ERR_MALFORMED,
                  "a dimension or ')'"));
    CHECK(refuses("{'descr': '<f4', 'fortran_order': False, 'shape': (1 1)}", 4, MMD_ERR_MALFORMED,
                  "',' or ')'"));
    CHECK(refuses("{'descr': '<f4', 'fortran_order': False, 'shape': [1]}", 4, MMD_ERR_MALFORMED,
                  "'(' opening 'shape'"));
    CHECK(refuses("{'descr': '<f4' 'fortran_order': False, 'shape': (1,)}", 4, MMD_ERR_MALFORMED,
                  "',' or '}'"));
    CHECK(refuses("{'descr': '<f\\x34', 'fortran_order': False, 'shape': (1,)}", 4,
                  MMD_ERR_MALFORMED, "escape"));
    CHECK(refuses("{'descr': '<f4", 4, MMD_ERR_MALFORMED, "unterminated string"));
    CHECK(refuses("", 4, MMD_ERR_MALFORMED, "ends early"));
}

static void encode_writes_the_bytes_numpy_writes(void) {
    static const float data[6] = {0, 1, 2, 3, 4, 5};
    mmd_npy t;
    mmd_error err;
    unsigned char buf[sizeof numpy_f4_2x3];
    size_t size = 0;
    memset(&t, 0, sizeof t);
    t.dtype = MMD_DTYPE_FLOAT32;
    t.rank = 2;
    t.dims[0] = 2;
    t.dims[1] = 3;
    t.data = data;
    t.nbytes = sizeof data;
    CHECK(mmd_npy_encode(&t, NULL, 0, &size, &err) == MMD_OK && size == 128 + 24);
    CHECK(mmd_npy_encode(&t, buf, sizeof buf, &size, &err) == MMD_OK && size == 128 + 24);
    /* The literal is little-endian; on a big-endian host only the descr would differ. */
    if (mmd_npy_descr(MMD_DTYPE_FLOAT32)[0] == '<') CHECK(memcmp(buf, numpy_f4_2x3, size) == 0);
    CHECK(mmd_npy_encode(&t, buf, size - 1, &size, &err) == MMD_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err.msg, "too small") != NULL);
}

static void encode_then_parse_round_trips_every_dtype_and_rank(void) {
    static const int32_t dtypes[] = {MMD_DTYPE_FLOAT32, MMD_DTYPE_FLOAT64, MMD_DTYPE_INT64,
                                     MMD_DTYPE_INT32,   MMD_DTYPE_UINT8,   MMD_DTYPE_INT8,
                                     MMD_DTYPE_BOOL,    MMD_DTYPE_FLOAT16, MMD_DTYPE_UINT64};
    static unsigned char data[1024], buf[2048];
    size_t i;
    int32_t rank, d;
    for (i = 0; i < sizeof data; ++i) data[i] = (unsigned char)(i * 7);
    for (i = 0; i < sizeof dtypes / sizeof dtypes[0]; ++i) {
        for (rank = 0; rank <= MMD_MAX_RANK; ++rank) {
            mmd_npy t, back;
            mmd_error err;
            size_t size = 0, numel = 1;
            memset(&t, 0, sizeof t);
            t.dtype = dtypes[i];
            t.rank = rank;
            for (d = 0; d < rank; ++d) numel *= (size_t)(t.dims[d] = d % 3 == 0 ? 2 : 1);
            t.data = data;
            t.nbytes = numel * mmd_dtype_size(dtypes[i]);
            CHECK(mmd_npy_encode(&t, buf, sizeof buf, &size, &err) == MMD_OK);
            CHECK((size - t.nbytes) % 64 == 0);
            CHECK(mmd_npy_parse(buf, size, &back, &err) == MMD_OK);
            CHECK(back.dtype == t.dtype && back.rank == rank && back.nbytes == t.nbytes);
            CHECK(memcmp(back.dims, t.dims, sizeof(int64_t) * (size_t)rank) == 0);
            CHECK(memcmp(back.data, data, t.nbytes) == 0);
            CHECK((size_t)((const unsigned char *)back.data - buf) % 64 == 0);
        }
    }
}

static void write_to_file_round_trips(void) {
    static const int32_t data[3] = {1, -2, 3};
    unsigned char buf[256];
    mmd_npy t, back;
    mmd_error err;
    size_t n;
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f) return;
    memset(&t, 0, sizeof t);
    t.dtype = MMD_DTYPE_INT32;
    t.rank = 1;
    t.dims[0] = 3;
    t.data = data;
    t.nbytes = sizeof data;
    CHECK(mmd_npy_write(f, &t, &err) == MMD_OK);
    rewind(f);
    n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    CHECK(n == 128 + 12);
    CHECK(mmd_npy_parse(buf, n, &back, &err) == MMD_OK);
    CHECK(back.dtype == MMD_DTYPE_INT32 && back.rank == 1 && back.dims[0] == 3);
    CHECK(memcmp(back.data, data, sizeof data) == 0);
}

static void encode_refuses_inconsistent_tensors(void) {
    static const float data[4] = {0};
    mmd_npy t;
    mmd_error err;
    size_t size;
    memset(&t, 0, sizeof t);
    t.dtype = MMD_DTYPE_FLOAT32;
    t.rank = 1;
    t.dims[0] = 4;
    t.data = data;
    t.nbytes = 12;
    CHECK(mmd_npy_encode(&t, NULL, 0, &size, &err) == MMD_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err.msg, "need 16") != NULL);
    t.nbytes = 16;
    t.dims[0] = -4;
    CHECK(mmd_npy_encode(&t, NULL, 0, &size, &err) == MMD_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err.msg, "negative") != NULL);
    t.dims[0] = 4;
    t.rank = MMD_MAX_RANK + 1;
    CHECK(mmd_npy_encode(&t, NULL, 0, &size, &err) == MMD_ERR_INVALID_ARGUMENT);
    t.rank = 1;
    t.dtype = MMD_DTYPE_BFLOAT16;
    CHECK(mmd_npy_encode(&t, NULL, 0, &size, &err) == MMD_ERR_UNSUPPORTED);
    CHECK(strstr(err.msg, "no .npy descr") != NULL);
    t.dtype = MMD_DTYPE_FLOAT32;
    t.data = NULL;
    CHECK(mmd_npy_encode(&t, NULL, 0, &size, &err) == MMD_ERR_INVALID_ARGUMENT);
    CHECK(mmd_npy_descr(MMD_DTYPE_STRING) == NULL);
}

int main(void) {
    TEST_RUN(parse_reads_numpy_float32_2x3);
    TEST_RUN(parse_reads_format_2_and_3_headers);
    TEST_RUN(parse_reads_scalar_empty_and_max_rank_shapes);
    TEST_RUN(parse_accepts_any_key_order_double_quotes_and_python2_longs);
    TEST_RUN(parse_maps_each_descr_to_its_dtype);
    TEST_RUN(parse_refuses_every_truncation_of_a_valid_file);
    TEST_RUN(parse_refuses_short_preamble_bad_magic_and_version);
    TEST_RUN(parse_refuses_header_length_past_the_end);
    TEST_RUN(parse_refuses_unsupported_descr);
    TEST_RUN(parse_refuses_fortran_order);
    TEST_RUN(parse_refuses_shape_overflow_and_too_many_dims);
    TEST_RUN(parse_refuses_data_of_the_wrong_size);
    TEST_RUN(parse_refuses_malformed_header_dicts);
    TEST_RUN(encode_writes_the_bytes_numpy_writes);
    TEST_RUN(encode_then_parse_round_trips_every_dtype_and_rank);
    TEST_RUN(write_to_file_round_trips);
    TEST_RUN(encode_refuses_inconsistent_tensors);
    return test_summary();
}
