# The only build system users need.
#   make deps     installs the Debian packages the example and the tests need
#   make          builds the CLI (build/mmdeploy) and the example (build/classify)
#   make demo     classifies the shipped digit images with the shipped model
#   make test     runs every test suite; ends with "N passed, M failed, K skipped"
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=c99 -Wall -Wextra -Wpedantic -Werror
PY      := /usr/bin/python3
BUILD   := build
HEADERS := mmdeploy.h mmdeploy_ir.h mmdeploy_ops.h $(wildcard wip/*.inc)

# C test programs: each is one translation unit that includes the implementation.
C_TESTS := test_core test_npy test_bad_models test_kernels_nn test_kernels_shape \
           test_kernels_elementwise test_kernels_reduce test_kernels_index test_kernels_nn2 \
           test_kernels_detect
NODE_DIR := $(BUILD)/onnx_node_tests

.PHONY: all deps demo test clean

all: $(BUILD)/mmdeploy $(BUILD)/classify

$(BUILD):
	mkdir -p $(BUILD)

# Debian packages for the example and the tests (apt-get as root, else through sudo).
deps:
	tools/install_deps.sh

# The implementation is compiled once and linked into the programs.
$(BUILD)/mmdeploy.o: mmdeploy.c $(HEADERS) | $(BUILD)
	$(CC) $(WARN) $(CFLAGS) -I. -c mmdeploy.c -o $@

$(BUILD)/mmdeploy: tools/mmdeploy_cli.c tools/mmd_npy.h $(HEADERS) $(BUILD)/mmdeploy.o
	$(CC) $(WARN) $(CFLAGS) -I. -Itools tools/mmdeploy_cli.c $(BUILD)/mmdeploy.o -lm -o $@

$(BUILD)/classify: examples/classify.c $(HEADERS) $(BUILD)/mmdeploy.o
	$(CC) $(WARN) $(CFLAGS) -I. examples/classify.c $(BUILD)/mmdeploy.o -lstb -lm -o $@

demo: $(BUILD)/classify
	$(BUILD)/classify examples/models/digits.onnx examples/images/*.png

$(BUILD)/test_%: tests/test_%.c tests/test.h $(HEADERS) tools/mmd_npy.h | $(BUILD)
	$(CC) $(WARN) $(CFLAGS) -I. -Itests -Itools $< -lm -o $@

$(BUILD)/test_node: tests/test_node.c $(HEADERS) tools/mmd_npy.h | $(BUILD)
	$(CC) $(WARN) $(CFLAGS) -I. -Itests -Itools $< -lm -o $@

# The ONNX backend node tests are generated from Debian's python3-onnx, never committed.
$(NODE_DIR)/node: tests/gen_node_tests.py | $(BUILD)
	$(PY) tests/gen_node_tests.py $(NODE_DIR)

test: all $(addprefix $(BUILD)/,$(C_TESTS)) $(BUILD)/test_node $(NODE_DIR)/node
	tests/run_all.sh $(addprefix $(BUILD)/,$(C_TESTS)) \
	    "$(BUILD)/test_node $(NODE_DIR)/node tests/node_expected_fail.txt" \
	    "$(PY) tests/test_models.py" \
	    "$(PY) tests/test_detection_tail.py"

clean:
	rm -rf $(BUILD)
