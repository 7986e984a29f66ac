# arm-none-eabi.cmake - CMake toolchain file for bare-metal Cortex-M4F with Debian's
# gcc-arm-none-eabi and newlib-nano: cmake -DCMAKE_TOOLCHAIN_FILE=examples/cmake/arm-none-eabi.cmake
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
# No program can link before the firmware's own start code is added, so CMake only compiles its
# test program.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_FLAGS_INIT "-mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16 -mthumb -ffunction-sections -fdata-sections")
set(CMAKE_C_FLAGS_RELEASE_INIT "-Os")
set(CMAKE_EXE_LINKER_FLAGS_INIT "--specs=nano.specs")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
