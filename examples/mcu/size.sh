#!/bin/sh
# size.sh RUNTIME.o BLOB.mmd OPS.h FIRMWARE.elf - what `make mcu-size` prints: the sections of
# the runtime alone (mmdeploy.c compiled for the target with only the model's kernels), the
# blob, the largest stack frame (-fstack-usage, RUNTIME.su) and the linked firmware; then
# checks that the runtime references no heap, stdio or file function. Exit status 1 if it does.
set -e
obj=$1 blob=$2 ops=$3 elf=$4
sections() { # FILE: .text .rodata .data .bss totals, each name prefix summed
    arm-none-eabi-size -A "$1" | awk '
        $1 ~ /^\.text/ { t += $2 } $1 ~ /^\.rodata/ { r += $2 }
        $1 ~ /^\.data/ { d += $2 } $1 ~ /^\.bss/ { b += $2 }
        END { printf ".text %d  .rodata %d  .data %d  .bss %d\n", t, r, d, b }'
}
kernels=$(sed -n 's/^#define MMD_OP_//p' "$ops" | tr '\n' ' ')
echo "runtime alone ($obj: -Os, MMD_NO_MALLOC, MMD_NO_STDIO, kernels: $kernels)"
echo "  $(sections "$obj")"
echo "model blob ($blob): $(wc -c < "$blob") bytes of flash"
echo "largest stack frames of the runtime (-fstack-usage):"
sort -t "$(printf '\t')" -k2,2nr "${obj%.o}.su" | head -3 | awk -F '\t' '{ printf "  %6d bytes  %s\n", $2, $1 }'
echo "firmware ($elf, runtime + blob + demo + libc/libm parts):"
echo "  $(sections "$elf")"
bad=$(arm-none-eabi-nm -u "$obj" | awk '{ print $2 }' |
      grep -E '^_*(malloc|calloc|realloc|free|[a-z]*printf|[a-z]*scanf|puts|putchar|getchar|fopen|fclose|fread|fwrite|fseek|ftell|fflush|fputs|fputc|fgets|fgetc|open|read|write|close|sbrk|fstat|isatty|lseek|abort|exit|assert_func)(_r)?$' || true)
if [ -n "$bad" ]; then
    echo "FAIL the runtime references: $(echo $bad)"
    exit 1
fi
echo "ok   the runtime references no heap, stdio or file function (arm-none-eabi-nm -u)"
