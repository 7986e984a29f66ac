#!/bin/sh
# Installs the Debian 12 packages the build, the example and the tests use. Root runs apt-get
# directly; anyone else goes through sudo. The runtime itself needs only a C99 compiler and libm.
set -e
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
PACKAGES="build-essential libstb-dev python3-numpy python3-onnx python3-torch python3-torchvision python3-sklearn python3-pil python3-opencv python3-pyclipper libcjson-dev libopenblas-dev libdnnl-dev libxnnpack-dev libpthreadpool-dev gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user cmake pkg-config"
# Skip apt entirely when everything is already there (a second run, or a prepared machine).
missing=$(dpkg-query -W -f='${Status} ${Package}\n' $PACKAGES 2>/dev/null | grep -c "install ok installed" || true)
set -- $PACKAGES
if [ "$missing" -ne "$#" ]; then
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends $PACKAGES
fi
