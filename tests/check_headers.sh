#!/bin/sh
# check_headers.sh - the headers' layering and stand-alone use (the LAYERS note in mmdeploy.h):
#   - each header includes only the one below it (mmdeploy_ir.h: mmdeploy.h; mmdeploy_ops.h:
#     mmdeploy_ir.h); only mmdeploy.h's session part includes the ones above it;
#   - each header compiles alone, declarations only and with its own implementation macro, as
#     C99 and as C++ (-Wall -Wextra -Wpedantic -Werror);
#   - the three per-header implementation macros, in three files, link into a whole runtime;
#   - MMD_IMPLEMENTATION in a file that includes mmdeploy_ops.h before mmdeploy.h still emits
#     every implementation once;
#   - the lean firmware core (MMD_NO_ONNX, MMD_NO_MALLOC) compiles and links;
#   - MMD_NO_ERROR_STRINGS with MMD_CONV_SMALL compiles as C99 and C++ and keeps the codes;
#   - the SDK layer (mmdeploy_sdk.h) is included by no runtime header, and its declarations
#     compile alone.
# Ends with "N passed, M failed" like the other suites. Usage: tests/check_headers.sh BUILD_DIR
set -u
out=${1:-build}/headers
mkdir -p "$out"
CC=${CC:-cc}
CXX=${CXX:-c++}
WARN="-Wall -Wextra -Wpedantic -Werror"
pass=0 fail=0
check() { # NAME COMMAND...
    name=$1; shift
    if "$@" > "$out/log" 2>&1; then
        pass=$((pass + 1)); echo "ok   $name"
    else
        fail=$((fail + 1)); echo "FAIL $name"; head -n 20 "$out/log"
    fi
}
includes() { # FILE: the project headers it includes, one line
    sed -n 's/^#include "\(mmdeploy[a-z_]*\.h\)".*/\1/p' "$1" | sort -u | tr '\n' ' '
}
check "mmdeploy_ir.h includes only mmdeploy.h" test "$(includes mmdeploy_ir.h)" = "mmdeploy.h "
check "mmdeploy_ops.h includes only mmdeploy_ir.h" test "$(includes mmdeploy_ops.h)" = "mmdeploy_ir.h "
# mmdeploy.h includes the others only in its session part (after the >>session anchor).
check "mmdeploy.h includes the others only in its session part" \
    test "$(sed -n '1,/==== >>session implementation ====/p' mmdeploy.h | grep -c '^#include "mmdeploy')" = 0

# The optional SDK layer sits on top: no runtime header includes it, and its declarations
# compile alone (C99 and C++) without cJSON or stb, which only its implementation needs.
check "no runtime header includes mmdeploy_sdk.h" \
    test "$(cat mmdeploy.h mmdeploy_ir.h mmdeploy_ops.h | grep -c '^#include "mmdeploy_sdk.h"')" = 0
printf '#include "mmdeploy_sdk.h"\n' > "$out/decl_sdk.c"
check "mmdeploy_sdk.h declarations alone, C99" $CC -std=c99 $WARN -I. -Iinclude -fsyntax-only "$out/decl_sdk.c"
check "mmdeploy_sdk.h declarations alone, C++" $CXX -std=c++11 $WARN -I. -Iinclude -fsyntax-only -x c++ "$out/decl_sdk.c"

src() { # FILE LINES...: writes a small source file
    f=$1; shift
    printf '%s\n' "$@" > "$out/$f"
}
for h in mmdeploy.h mmdeploy_ir.h mmdeploy_ops.h; do
    case $h in
        mmdeploy.h) impl=MMD_CORE_IMPLEMENTATION ;;
        mmdeploy_ir.h) impl=MMD_IR_IMPLEMENTATION ;;
        mmdeploy_ops.h) impl=MMD_OPS_IMPLEMENTATION ;;
    esac
    src "decl_$h.c" "#include \"$h\""
    src "impl_$h.c" "#define $impl" "#include \"$h\""
    check "$h alone, C99" $CC -std=c99 $WARN -I. -fsyntax-only "$out/decl_$h.c"
    check "$h alone, C++" $CXX -std=c++11 $WARN -I. -fsyntax-only -x c++ "$out/decl_$h.c"
    check "$h with $impl, C99" $CC -std=c99 $WARN -I. -c "$out/impl_$h.c" -o "$out/impl_$h.o"
    check "$h with $impl, C++" $CXX -std=c++11 $WARN -I. -fsyntax-only -x c++ "$out/impl_$h.c"
done

src main.c '#include "mmdeploy.h"' \
    'int main(void) {' \
    '    mmd_session *s = NULL;' \
    '    mmd_error err;' \
    '    /* Empty bytes: the whole path from create to the parser runs and refuses them. */' \
    '    return mmd_session_create("", 0, NULL, &s, &err) == MMD_ERR_MALFORMED ? 0 : 1;' \
    '}'
check "per-header implementations link into a runtime" \
    sh -c "$CC -std=c99 $WARN -I. '$out/main.c' '$out/impl_mmdeploy.h.o' '$out/impl_mmdeploy_ir.h.o' \
           '$out/impl_mmdeploy_ops.h.o' -lm -o '$out/split' && '$out/split'"

src order.c "#define MMD_IMPLEMENTATION" '#include "mmdeploy_ops.h"' '#include "mmdeploy.h"'
check "MMD_IMPLEMENTATION after mmdeploy_ops.h first links" \
    sh -c "$CC -std=c99 $WARN -I. -c '$out/order.c' -o '$out/order.o' && \
           $CC -std=c99 $WARN -I. '$out/main.c' '$out/order.o' -lm -o '$out/order' && '$out/order'"

# The firmware core refuses ONNX bytes with a status naming the option.
src lean.c '#define MMD_NO_ONNX' '#define MMD_NO_MALLOC' '#define MMD_IMPLEMENTATION' '#include "mmdeploy.h"' \
    'static unsigned char arena[4096];' \
    'int main(void) {' \
    '    mmd_session *s = NULL;' \
    '    mmd_error err;' \
    '    mmd_options o = {0};' \
    '    static const unsigned char onnx[2] = {0x08, 0x07}; /* ir_version 7 */' \
    '    o.arena = arena;' \
    '    o.arena_size = sizeof(arena);' \
    '    return mmd_session_create(onnx, sizeof(onnx), &o, &s, &err) == MMD_ERR_UNSUPPORTED ? 0 : 1;' \
    '}'
check "MMD_NO_ONNX MMD_NO_MALLOC core refuses ONNX bytes" \
    sh -c "$CC -std=c99 $WARN -I. '$out/lean.c' -lm -o '$out/lean' && '$out/lean'"

# Without message text (the formats and their arguments not even compiled) the codes stay and
# err.msg is empty; with the firmware's small-scratch setting and no subgraph claims too.
src notext.c '#define MMD_NO_ERROR_STRINGS' '#define MMD_CONV_SMALL' '#define MMD_NO_BACKEND_SETS' '#define MMD_IMPLEMENTATION' \
    '#include "mmdeploy.h"' \
    'int main(void) {' \
    '    mmd_session *s = NULL;' \
    '    mmd_error err;' \
    '    return mmd_session_create("", 0, NULL, &s, &err) == MMD_ERR_MALFORMED && !err.msg[0] ? 0 : 1;' \
    '}'
check "MMD_NO_ERROR_STRINGS MMD_CONV_SMALL gives codes without text, C99" \
    sh -c "$CC -std=c99 $WARN -I. '$out/notext.c' -lm -o '$out/notext' && '$out/notext'"
check "MMD_NO_ERROR_STRINGS MMD_CONV_SMALL, C++" $CXX -std=c++11 $WARN -I. -fsyntax-only -x c++ "$out/notext.c"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
