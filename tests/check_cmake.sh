#!/bin/sh
# check_cmake.sh BUILD - the CMake package (CMakeLists.txt) as firmware and host projects use it,
# through the example in examples/cmake:
#   - host build with add_subdirectory, run on the ONNX model;
#   - `cmake --install`, then find_package from the installed prefix, run on the .mmd blob;
#   - the installed pkg-config file, used to compile the same program;
#   - Cortex-M4F firmware with the toolchain file, run under QEMU and compared with the host.
# Needs cmake, pkg-config and what `make mcu-test` needs; `make cmake-test` generates the model
# files first. Ends with "N passed, M failed".
set -u
b=$1/cmake
mcu=$1/mcu
rm -rf "$b"
mkdir -p "$b"
pass=0 fail=0
check() { # NAME COMMAND...: runs COMMAND, its output in $b/NAME.log
    name=$1; shift
    log="$b/$(echo "$name" | tr ' /' '__').log"
    if "$@" > "$log" 2>&1; then
        pass=$((pass + 1)); echo "ok   $name"
    else
        fail=$((fail + 1)); echo "FAIL $name (log: $log)"; tail -n 20 "$log"
    fi
}
check "host, add_subdirectory" sh -c "cmake -S examples/cmake -B '$b/host' && cmake --build '$b/host' && \
    '$b/host/model_info' examples/models/digits.onnx"
check "cmake --install" sh -c "cmake -S . -B '$b/lib' -DCMAKE_INSTALL_PREFIX='$PWD/$b/prefix' && \
    cmake --build '$b/lib' && cmake --install '$b/lib'"
check "host, find_package from the installed prefix" sh -c "cmake -S examples/cmake -B '$b/package' \
    -DMMDEPLOY_FROM=package -DCMAKE_PREFIX_PATH='$PWD/$b/prefix' && cmake --build '$b/package' && \
    '$b/package/model_info' '$mcu/digits.mmd'"
check "host, pkg-config" sh -c "flags=\$(PKG_CONFIG_PATH='$b/prefix/share/pkgconfig' pkg-config --cflags --libs mmdeploy) && \
    cc -std=c99 -Wall -Wextra -Wpedantic -Werror examples/cmake/model_info.c \$flags -o '$b/model_info_pc' && \
    '$b/model_info_pc' '$mcu/digits.mmd'"
check "Cortex-M4F firmware, toolchain file" sh -c "cmake -S examples/cmake -B '$b/m4' \
    -DCMAKE_TOOLCHAIN_FILE='$PWD/examples/cmake/arm-none-eabi.cmake' -DCMAKE_BUILD_TYPE=Release \
    -DMCU_GEN_DIR='$PWD/$mcu' && cmake --build '$b/m4'"
check "Cortex-M4F firmware under QEMU matches the host" sh -c "timeout 60 qemu-system-arm -M mps2-an386 \
    -semihosting-config enable=on,target=native -nographic -kernel '$b/m4/firmware.elf' > '$b/fw.txt' 2>&1; \
    '$mcu/mcu_host' compare '$mcu/host.txt' '$b/fw.txt' | tail -n 1 | grep -q '^16 passed, 0 failed'"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
