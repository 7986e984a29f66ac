/* mmd_npy.h - v0.1.0 - MIT licence (see end of file)
   Reads and writes NumPy .npy files for the mmdeploy.h tools and tests.

   QUICK START
     In exactly one C file:
         #define MMD_NPY_IMPLEMENTATION
         #include "mmd_npy.h"
     Then, anywhere:
         mmd_npy t; mmd_error err = {0};
         if (mmd_npy_parse(bytes, size, &t, &err) != MMD_OK) puts(err.msg);
         // t.dtype (mmd_dtype), t.rank, t.dims, t.data (inside bytes), t.nbytes
         mmd_npy_write(file, &t, &err);                     // v1.0, header padded to 64 bytes

   WHAT IT DOES NOT DO
     No Fortran order, no structured, object, string or complex dtypes, no byte swapping (a
     file in the other byte order than this host is refused), no .npz archives.
     dtypes: '<f4' '<f8' '<f2' '<i8' '<i4' '<i2' '<u8' '<u4' '<u2' '|u1' '|i1' '|b1'
     ('>' instead of '<' on big-endian hosts).

   CONFIGURATION (define before the implementation include)
     MMD_NPY_IMPLEMENTATION    emit the code in this translation unit
     MMD_NPY_STATIC            make every function static to the including file
     MMD_NPY_NO_STDIO          leave out mmd_npy_write (the only use of FILE)

   MEMORY MODEL
     Nothing is allocated. mmd_npy_parse points t.data into the caller's bytes, which must
     outlive t; the pointer is only as aligned as the buffer plus the header length (numpy pads
     headers to 64 bytes, older writers to 16), so check it before casting to a wider type.

   ERRORS
     The bytes are untrusted: every length is checked against the buffer, the shape product is
     checked for overflow and the data must be exactly product(dims) x itemsize bytes. Failures
     return a status and fill mmd_error with a message that starts "npy: " and names what was
     wrong: MMD_ERR_MALFORMED (not a well-formed .npy), MMD_ERR_UNSUPPORTED (a valid file this
     header does not read), MMD_ERR_LIMIT (rank past MMD_MAX_RANK, size past SIZE_MAX),
     MMD_ERR_INVALID_ARGUMENT (a writer given an inconsistent tensor or a short buffer),
     MMD_ERR_IO (a failed write).

   THREAD SAFETY
     No state: every function is safe to call from any thread on distinct arguments.
*/
#ifndef MMD_NPY_H
#define MMD_NPY_H

#include <stddef.h>
#include <stdint.h>
#ifndef MMD_NPY_NO_STDIO
#include <stdio.h>
#endif

#include "mmdeploy.h"

#ifndef MMD_NPY_API
#ifdef MMD_NPY_STATIC
#define MMD_NPY_API static
#else
#define MMD_NPY_API extern
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A C-order array: what a .npy file holds, or what a writer is asked to store. */
typedef struct mmd_npy {
    int32_t dtype;                   /* mmd_dtype */
    int32_t rank;                    /* 0 for a scalar */
    int64_t dims[MMD_MAX_RANK];
    const void *data;                /* nbytes bytes; may be NULL when nbytes is 0 */
    size_t nbytes;                   /* product(dims) x itemsize */
} mmd_npy;

/* Parses a .npy file held in memory (format 1.0, 2.0 or 3.0) into t, with t->data pointing
   into buf. Allocates nothing, thread safe. Returns MMD_OK or why the bytes were refused. */
MMD_NPY_API mmd_status mmd_npy_parse(const void *buf, size_t size, mmd_npy *t, mmd_error *err);
/* Serialises t as a format 1.0 .npy into buf. With buf NULL it only stores the size the file
   needs in *out_size; otherwise cap must hold it and *out_size gets the bytes written.
   Allocates nothing, thread safe. */
MMD_NPY_API mmd_status mmd_npy_encode(const mmd_npy *t, void *buf, size_t cap, size_t *out_size,
                                      mmd_error *err);
#ifndef MMD_NPY_NO_STDIO
/* Writes t as a format 1.0 .npy to f (opened in binary mode). Allocates nothing; MMD_ERR_IO
   when a write fails. Thread safe on distinct files. */
MMD_NPY_API mmd_status mmd_npy_write(FILE *f, const mmd_npy *t, mmd_error *err);
#endif
/* The .npy descr of a dtype for this host ("<f4", "|u1", ...), NULL when .npy cannot hold it. */
MMD_NPY_API const char *mmd_npy_descr(int32_t dtype);

#ifdef __cplusplus
}
#endif
#endif /* MMD_NPY_H */

#if defined(MMD_NPY_IMPLEMENTATION) && !defined(MMD_NPY_IMPLEMENTED)
#define MMD_NPY_IMPLEMENTED
/* ==== >>npy implementation ==== */
#include <string.h>

/* Magic, two version bytes and the header length: 10 bytes in 1.0, 12 in 2.0 and 3.0. */
#define MMD__NPY_MAGIC "\x93NUMPY"
#define MMD__NPY_MAGIC_LEN 6
#define MMD__NPY_ALIGN 64
/* The longest header the writer makes: the fixed dict text, MMD_MAX_RANK dims of at most 19
   digits plus ", ", and the padding to MMD__NPY_ALIGN. */
#define MMD__NPY_HEADER_MAX (128 + 21 * MMD_MAX_RANK + MMD__NPY_ALIGN)

/* Every dtype .npy can carry, with its descr in both byte orders. */
static const struct mmd__npy_type {
    int32_t dtype;
    char little[4], big[4];
    size_t itemsize;
} mmd__npy_types[] = {
    {MMD_DTYPE_FLOAT32, "<f4", ">f4", 4}, {MMD_DTYPE_FLOAT64, "<f8", ">f8", 8},
    {MMD_DTYPE_FLOAT16, "<f2", ">f2", 2}, {MMD_DTYPE_INT64, "<i8", ">i8", 8},
    {MMD_DTYPE_INT32, "<i4", ">i4", 4},   {MMD_DTYPE_INT16, "<i2", ">i2", 2},
    {MMD_DTYPE_UINT64, "<u8", ">u8", 8},  {MMD_DTYPE_UINT32, "<u4", ">u4", 4},
    {MMD_DTYPE_UINT16, "<u2", ">u2", 2},  {MMD_DTYPE_UINT8, "|u1", "|u1", 1},
    {MMD_DTYPE_INT8, "|i1", "|i1", 1},    {MMD_DTYPE_BOOL, "|b1", "|b1", 1},
};
#define MMD__NPY_TYPE_COUNT (sizeof mmd__npy_types / sizeof mmd__npy_types[0])

static const struct mmd__npy_type *mmd__npy_type_of(int32_t dtype) {
    size_t i;
    for (i = 0; i < MMD__NPY_TYPE_COUNT; ++i)
        if (mmd__npy_types[i].dtype == dtype) return &mmd__npy_types[i];
    return NULL;
}

/* The byte-order character numpy writes for multi-byte items on this host. */
static char mmd__npy_host_order(void) {
    uint16_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first ? '<' : '>';
}

MMD_NPY_API const char *mmd_npy_descr(int32_t dtype) {
    const struct mmd__npy_type *ty = mmd__npy_type_of(dtype);
    if (!ty) return NULL;
    return mmd__npy_host_order() == '<' ? ty->little : ty->big;
}

/* Copies at most 16 bytes of untrusted header text into a printable, NUL-terminated string
   for an error message. */
static const char *mmd__npy_show(const char *str, size_t len, char out[17]) {
    size_t i;
    if (len > 16) len = 16;
    for (i = 0; i < len; ++i)
        out[i] = ((unsigned char)str[i] < 0x20 || (unsigned char)str[i] > 0x7e) ? '?' : str[i];
    out[len] = '\0';
    return out;
}

/* Checked byte size of a C-order array; shared by the reader and the writer. */
static mmd_status mmd__npy_size(int32_t rank, const int64_t *dims, size_t itemsize, size_t *out,
                                mmd_error *err) {
    uint64_t numel = 1;
    int32_t i;
    for (i = 0; i < rank; ++i) {
        if (dims[i] < 0)
            return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, "",
                                 "npy: dimension %d is negative (%lld)", (int)i, (long long)dims[i]);
        if (dims[i] == 0) numel = 0;
    }
    /* An empty array holds no data whatever its other dims; only a non-empty product can
       overflow. */
    if (numel != 0) {
        for (i = 0; i < rank; ++i) {
            uint64_t d = (uint64_t)dims[i];
            if (numel > UINT64_MAX / d)
                return mmd_error_set(err, MMD_ERR_LIMIT, -1, "",
                                     "npy: shape product overflows at dimension %d (%lld)", (int)i,
                                     (long long)dims[i]);
            numel *= d;
        }
    }
    if (numel > (uint64_t)SIZE_MAX / itemsize)
        return mmd_error_set(err, MMD_ERR_LIMIT, -1, "",
                             "npy: %llu elements of %zu bytes do not fit in memory",
                             (unsigned long long)numel, itemsize);
    *out = (size_t)(numel * itemsize);
    return MMD_OK;
}

/* ---- reader: a tiny scanner over the header dict literal ---- */
typedef struct mmd__npy_scan {
    const char *p, *end, *begin;
    mmd_error *err;
} mmd__npy_scan;

static void mmd__npy_skip_space(mmd__npy_scan *s) {
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
        ++s->p;
}

static mmd_status mmd__npy_fail(mmd__npy_scan *s, const char *what) {
    char shown[17];
    if (s->p >= s->end)
        return mmd_error_set(s->err, MMD_ERR_MALFORMED, -1, "",
                             "npy: header dict ends early, expected %s", what);
    return mmd_error_set(s->err, MMD_ERR_MALFORMED, -1, "",
                         "npy: header dict has '%s' at offset %zu, expected %s",
                         mmd__npy_show(s->p, 1, shown), (size_t)(s->p - s->begin), what);
}

static mmd_status mmd__npy_expect(mmd__npy_scan *s, char c, const char *what) {
    mmd__npy_skip_space(s);
    if (s->p >= s->end || *s->p != c) return mmd__npy_fail(s, what);
    ++s->p;
    return MMD_OK;
}

/* A Python string literal without escapes (no key or descr this header reads needs one). */
static mmd_status mmd__npy_string(mmd__npy_scan *s, const char **str, size_t *len) {
    char quote;
    const char *start;
    mmd__npy_skip_space(s);
    if (s->p >= s->end || (*s->p != '\'' && *s->p != '"')) return mmd__npy_fail(s, "a string");
    quote = *s->p++;
    start = s->p;
    while (s->p < s->end && *s->p != quote) {
        if (*s->p == '\\' || *s->p == '\n')
            return mmd_error_set(s->err, MMD_ERR_MALFORMED, -1, "",
                                 "npy: escape or newline inside a header string at offset %zu",
                                 (size_t)(s->p - s->begin));
        ++s->p;
    }
    if (s->p >= s->end)
        return mmd_error_set(s->err, MMD_ERR_MALFORMED, -1, "",
                             "npy: unterminated string in header dict");
    *str = start;
    *len = (size_t)(s->p - start);
    ++s->p;
    return MMD_OK;
}

static int mmd__npy_is(const char *str, size_t len, const char *lit) {
    return strlen(lit) == len && memcmp(str, lit, len) == 0;
}

static mmd_status mmd__npy_parse_descr(mmd__npy_scan *s, mmd_npy *t, size_t *itemsize) {
    const char *str;
    char shown[17];
    size_t len, i;
    mmd_status st;
    mmd__npy_skip_space(s);
    if (s->p < s->end && *s->p == '[')
        return mmd_error_set(s->err, MMD_ERR_UNSUPPORTED, -1, "",
                             "npy: structured descr (a list of fields) is not supported");
    if ((st = mmd__npy_string(s, &str, &len)) != MMD_OK) return st;
    for (i = 0; len == 3 && i < MMD__NPY_TYPE_COUNT; ++i) {
        const struct mmd__npy_type *ty = &mmd__npy_types[i];
        if (memcmp(str + 1, ty->little + 1, 2) != 0) continue;
        /* One-byte items have no byte order; numpy writes '|' but '<' and '>' mean the same. */
        if (ty->itemsize == 1 ? (str[0] == '|' || str[0] == '<' || str[0] == '>')
                              : str[0] == mmd__npy_host_order()) {
            t->dtype = ty->dtype;
            *itemsize = ty->itemsize;
            return MMD_OK;
        }
        if (str[0] == '<' || str[0] == '>')
            return mmd_error_set(s->err, MMD_ERR_UNSUPPORTED, -1, "",
                                 "npy: descr '%s' is in the other byte order than this host; "
                                 "byte swapping is not supported", mmd__npy_show(str, len, shown));
        break;
    }
    return mmd_error_set(s->err, MMD_ERR_UNSUPPORTED, -1, "",
                         "npy: descr '%s' is not supported (use <f4 <f8 <f2 <i8 <i4 <i2 <u8 <u4 "
                         "<u2 |u1 |i1 |b1)", mmd__npy_show(str, len, shown));
}

static mmd_status mmd__npy_parse_fortran(mmd__npy_scan *s) {
    mmd__npy_skip_space(s);
    if ((size_t)(s->end - s->p) >= 5 && memcmp(s->p, "False", 5) == 0) {
        s->p += 5;
        return MMD_OK;
    }
    if ((size_t)(s->end - s->p) >= 4 && memcmp(s->p, "True", 4) == 0)
        return mmd_error_set(s->err, MMD_ERR_UNSUPPORTED, -1, "",
                             "npy: fortran_order True is not supported; save a C-order array "
                             "(numpy.ascontiguousarray)");
    return mmd__npy_fail(s, "True or False for 'fortran_order'");
}

/* A tuple of non-negative integers: "()", "(3,)", "(2, 3)"; Python 2 writers add an 'L'. */
static mmd_status mmd__npy_parse_shape(mmd__npy_scan *s, mmd_npy *t) {
    mmd_status st;
    if ((st = mmd__npy_expect(s, '(', "'(' opening 'shape'")) != MMD_OK) return st;
    t->rank = 0;
    for (;;) {
        int64_t v = 0;
        mmd__npy_skip_space(s);
        if (s->p < s->end && *s->p == ')') break;
        if (s->p < s->end && *s->p == '-')
            return mmd_error_set(s->err, MMD_ERR_MALFORMED, -1, "",
                                 "npy: shape dimension %d is negative", (int)t->rank);
        if (s->p >= s->end || *s->p < '0' || *s->p > '9')
            return mmd__npy_fail(s, "a dimension or ')' in 'shape'");
        while (s->p < s->end && *s->p >= '0' && *s->p <= '9') {
            int64_t digit = *s->p - '0';
            if (v > (INT64_MAX - digit) / 10)
                return mmd_error_set(s->err, MMD_ERR_LIMIT, -1, "",
                                     "npy: shape dimension %d does not fit in 64 bits",
                                     (int)t->rank);
            v = v * 10 + digit;
            ++s->p;
        }
        if (s->p < s->end && *s->p == 'L') ++s->p;
        if (t->rank == MMD_MAX_RANK)
            return mmd_error_set(s->err, MMD_ERR_LIMIT, -1, "",
                                 "npy: shape has more than %d dimensions (MMD_MAX_RANK)",
                                 (int)MMD_MAX_RANK);
        t->dims[t->rank++] = v;
        mmd__npy_skip_space(s);
        if (s->p < s->end && *s->p == ',') {
            ++s->p;
            continue;
        }
        if (s->p < s->end && *s->p == ')') break;
        return mmd__npy_fail(s, "',' or ')' in 'shape'");
    }
    ++s->p;
    return MMD_OK;
}

MMD_NPY_API mmd_status mmd_npy_parse(const void *buf, size_t size, mmd_npy *t, mmd_error *err) {
    const unsigned char *b = (const unsigned char *)buf;
    size_t prefix, header_len, itemsize = 0, need;
    int have_descr = 0, have_fortran = 0, have_shape = 0;
    mmd__npy_scan s;
    mmd_status st;

    if (!t || (!buf && size))
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, "", "npy: NULL argument");
    memset(t, 0, sizeof *t);
    if (size < 10)
        return mmd_error_set(err, MMD_ERR_MALFORMED, -1, "",
                             "npy: file is %zu bytes, shorter than the 10-byte preamble", size);
    if (memcmp(b, MMD__NPY_MAGIC, MMD__NPY_MAGIC_LEN) != 0)
        return mmd_error_set(err, MMD_ERR_MALFORMED, -1, "",
                             "npy: not a .npy file (no \\x93NUMPY magic)");
    if (b[7] != 0 || b[6] < 1 || b[6] > 3)
        return mmd_error_set(err, MMD_ERR_UNSUPPORTED, -1, "",
                             "npy: format version %d.%d is not supported (1.0, 2.0, 3.0 are)",
                             (int)b[6], (int)b[7]);
    if (b[6] == 1) {
        prefix = 10;
        header_len = (size_t)b[8] | (size_t)b[9] << 8;
    } else {
        if (size < 12)
            return mmd_error_set(err, MMD_ERR_MALFORMED, -1, "",
                                 "npy: file is %zu bytes, shorter than the 12-byte preamble of "
                                 "format %d.0", size, (int)b[6]);
        prefix = 12;
        header_len = (size_t)((uint32_t)b[8] | (uint32_t)b[9] << 8 | (uint32_t)b[10] << 16 |
                              (uint32_t)b[11] << 24);
    }
    if (header_len > size - prefix)
        return mmd_error_set(err, MMD_ERR_MALFORMED, -1, "",
                             "npy: header of %zu bytes runs past the end of the %zu-byte file",
                             header_len, size);

    s.begin = s.p = (const char *)b + prefix;
    s.end = s.p + header_len;
    s.err = err;
    if ((st = mmd__npy_expect(&s, '{', "'{' opening the header dict")) != MMD_OK) return st;
    for (;;) {
        const char *key;
        size_t key_len;
        mmd__npy_skip_space(&s);
        if (s.p < s.end && *s.p == '}') break;
        if ((st = mmd__npy_string(&s, &key, &key_len)) != MMD_OK) return st;
        if ((st = mmd__npy_expect(&s, ':', "':' after a key")) != MMD_OK) return st;
        if (mmd__npy_is(key, key_len, "descr") && !have_descr) {
            have_descr = 1;
            st = mmd__npy_parse_descr(&s, t, &itemsize);
        } else if (mmd__npy_is(key, key_len, "fortran_order") && !have_fortran) {
            have_fortran = 1;
            st = mmd__npy_parse_fortran(&s);
        } else if (mmd__npy_is(key, key_len, "shape") && !have_shape) {
            have_shape = 1;
            st = mmd__npy_parse_shape(&s, t);
        } else {
            char shown[17];
            int known = mmd__npy_is(key, key_len, "descr") || mmd__npy_is(key, key_len, "shape") ||
                        mmd__npy_is(key, key_len, "fortran_order");
            return mmd_error_set(err, MMD_ERR_MALFORMED, -1, "",
                                 known ? "npy: header dict repeats key '%s'"
                                       : "npy: header dict has unknown key '%s' (only 'descr', "
                                         "'fortran_order', 'shape' are allowed)",
                                 mmd__npy_show(key, key_len, shown));
        }
        if (st != MMD_OK) return st;
        mmd__npy_skip_space(&s);
        if (s.p < s.end && *s.p == ',') {
            ++s.p;
            continue;
        }
        if (s.p < s.end && *s.p == '}') break;
        return mmd__npy_fail(&s, "',' or '}' in the header dict");
    }
    ++s.p;
    mmd__npy_skip_space(&s);
    if (s.p != s.end) return mmd__npy_fail(&s, "only padding after the header dict");
    if (!have_descr || !have_fortran || !have_shape)
        return mmd_error_set(err, MMD_ERR_MALFORMED, -1, "", "npy: header dict lacks '%s'",
                             !have_descr ? "descr" : !have_fortran ? "fortran_order" : "shape");

    if ((st = mmd__npy_size(t->rank, t->dims, itemsize, &need, err)) != MMD_OK) return st;
    if (size - prefix - header_len != need)
        return mmd_error_set(err, MMD_ERR_MALFORMED, -1, "",
                             "npy: data is %zu bytes but shape and descr need %zu (%s)",
                             size - prefix - header_len, need,
                             size - prefix - header_len < need ? "file truncated"
                                                                : "trailing bytes");
    t->data = b + prefix + header_len;
    t->nbytes = need;
    return MMD_OK;
}

/* ---- writer ---- */
static size_t mmd__npy_put(char *h, size_t len, const char *text) {
    size_t n = strlen(text);
    memcpy(h + len, text, n);
    return len + n;
}

/* Builds the 1.0 preamble and header for t into h (MMD__NPY_HEADER_MAX bytes) after checking t;
   the one layout both mmd_npy_encode and mmd_npy_write use. */
static mmd_status mmd__npy_header(const mmd_npy *t, char *h, size_t *out_len, mmd_error *err) {
    const char *descr;
    size_t len, need, total;
    int32_t i;
    mmd_status st;
    if (!t) return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, "", "npy: NULL tensor");
    if (!(descr = mmd_npy_descr(t->dtype)))
        return mmd_error_set(err, MMD_ERR_UNSUPPORTED, -1, "",
                             "npy: dtype %s (%d) has no .npy descr", mmd_dtype_name(t->dtype),
                             (int)t->dtype);
    if (t->rank < 0 || t->rank > MMD_MAX_RANK)
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, "",
                             "npy: rank %d is outside 0..%d", (int)t->rank, (int)MMD_MAX_RANK);
    if ((st = mmd__npy_size(t->rank, t->dims, mmd__npy_type_of(t->dtype)->itemsize, &need,
                            err)) != MMD_OK)
        return st;
    if (need != t->nbytes || (need && !t->data))
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, "",
                             "npy: tensor says %zu bytes%s but its shape and dtype need %zu",
                             t->nbytes, t->data ? "" : " (data NULL)", need);

    memcpy(h, MMD__NPY_MAGIC "\x01\x00", 8);
    len = 10;
    len = mmd__npy_put(h, len, "{'descr': '");
    len = mmd__npy_put(h, len, descr);
    len = mmd__npy_put(h, len, "', 'fortran_order': False, 'shape': (");
    for (i = 0; i < t->rank; ++i) {
        /* Digits of a non-negative dim, written backwards then reversed into place. */
        char digits[20];
        int32_t n = 0;
        uint64_t v = (uint64_t)t->dims[i];
        if (i) len = mmd__npy_put(h, len, ", ");
        do {
            digits[n++] = (char)('0' + v % 10);
            v /= 10;
        } while (v);
        while (n) h[len++] = digits[--n];
    }
    len = mmd__npy_put(h, len, t->rank == 1 ? ",), }" : "), }");
    /* Spaces and a final newline bring the preamble plus header to a multiple of 64, so the
       data that follows is aligned for every dtype when the file is loaded to aligned memory. */
    total = (len + 1 + MMD__NPY_ALIGN - 1) / MMD__NPY_ALIGN * MMD__NPY_ALIGN;
    memset(h + len, ' ', total - 1 - len);
    h[total - 1] = '\n';
    h[8] = (char)((total - 10) & 0xff);
    h[9] = (char)((total - 10) >> 8);
    *out_len = total;
    return MMD_OK;
}

MMD_NPY_API mmd_status mmd_npy_encode(const mmd_npy *t, void *buf, size_t cap, size_t *out_size,
                                      mmd_error *err) {
    char h[MMD__NPY_HEADER_MAX];
    size_t len;
    mmd_status st;
    if (!out_size) return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, "", "npy: NULL out_size");
    if ((st = mmd__npy_header(t, h, &len, err)) != MMD_OK) return st;
    /* The header is at most a few hundred bytes and nbytes fits size_t, so only the sum can
       overflow. */
    if (t->nbytes > SIZE_MAX - len)
        return mmd_error_set(err, MMD_ERR_LIMIT, -1, "", "npy: file size overflows size_t");
    if (!buf) {
        *out_size = len + t->nbytes;
        return MMD_OK;
    }
    if (cap < len + t->nbytes)
        return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, "",
                             "npy: buffer of %zu bytes is too small, the file needs %zu", cap,
                             len + t->nbytes);
    memcpy(buf, h, len);
    if (t->nbytes) memcpy((unsigned char *)buf + len, t->data, t->nbytes);
    *out_size = len + t->nbytes;
    return MMD_OK;
}

#ifndef MMD_NPY_NO_STDIO
MMD_NPY_API mmd_status mmd_npy_write(FILE *f, const mmd_npy *t, mmd_error *err) {
    char h[MMD__NPY_HEADER_MAX];
    size_t len;
    mmd_status st;
    if (!f) return mmd_error_set(err, MMD_ERR_INVALID_ARGUMENT, -1, "", "npy: NULL file");
    if ((st = mmd__npy_header(t, h, &len, err)) != MMD_OK) return st;
    if (fwrite(h, 1, len, f) != len || (t->nbytes && fwrite(t->data, 1, t->nbytes, f) != t->nbytes))
        return mmd_error_set(err, MMD_ERR_IO, -1, "", "npy: write failed after %zu bytes",
                             len + t->nbytes);
    return MMD_OK;
}
#endif

#endif /* MMD_NPY_IMPLEMENTATION */

/*
MIT License

Copyright (c) 2025 mmdeploy.h contributors

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and
associated documentation files (the "Software"), to deal in the Software without restriction,
including without limitation the rights to use, copy, modify, merge, publish, distribute,
sublicense, and/or sell copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or
substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT
NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND
NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT
OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
*/
