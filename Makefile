# The only build system users need. `make` builds the CLI and the examples; `make test` runs
# every test and ends with "N passed, M failed".
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=c99 -Wall -Wextra -Wpedantic -Werror
PY      := /usr/bin/python3
BUILD   := build
HEADERS := mmdeploy.h mmdeploy_ir.h mmdeploy_ops.h

.PHONY: all test clean

all: $(BUILD)/mmdeploy $(BUILD)/classify

$(BUILD):
	mkdir -p $(BUILD)

# The implementation is compiled once and linked into every program.
$(BUILD)/mmdeploy.o: mmdeploy.c $(HEADERS) $(wildcard wip/*.inc) | $(BUILD)
	$(CC) $(WARN) $(CFLAGS) -I. -c mmdeploy.c -o $@

$(BUILD)/mmdeploy: tools/mmdeploy_cli.c tools/mmd_npy.h $(BUILD)/mmdeploy.o
	$(CC) $(WARN) $(CFLAGS) -I. -Itools tools/mmdeploy_cli.c $(BUILD)/mmdeploy.o -lm -o $@

$(BUILD)/classify: examples/classify.c $(BUILD)/mmdeploy.o
	$(CC) $(WARN) $(CFLAGS) -I. -I/usr/include/stb examples/classify.c $(BUILD)/mmdeploy.o -lm -o $@

clean:
	rm -rf $(BUILD)
