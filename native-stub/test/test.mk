# test/test.mk - the conformance suite and the sample programs (included by
# ../Makefile, run from native-stub/).
#
#   make                      also builds $(BUILD_DIR)/bin/conformance and the samples
#   make check                runs every case against this flavour (each in its own process and
#                             stub scope, CHECK_JOBS at a time: default the CPU count)
#   make check CASES=ipc_     only the cases whose name contains "ipc_"
#   make FLAVOR=asan check    the same under AddressSanitizer+UBSan (leak checks on)
#   make FLAVOR=tsan check    the same under ThreadSanitizer
#
# The samples are built like CANN sample programs: their sources include
# "acl/acl.h" and nothing of the suite; they need only -I include and
# -lascendcl (plus the flavour's sanitizer flags, which must match the library).

CONFORMANCE_BIN := $(BUILD_DIR)/bin/conformance
# TEST_SRCS: the suite's sources, listed in ../Makefile.
TEST_OBJS := $(patsubst test/%.c,$(BUILD_DIR)/obj/test/%.o,$(TEST_SRCS))
TEST_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -pthread $(CFLAGS_FLAVOR)

SAMPLE_SRCS := $(wildcard samples/*/*.c)
SAMPLE_BINS := $(patsubst samples/%.c,$(BUILD_DIR)/samples/%,$(SAMPLE_SRCS))
SAMPLE_CFLAGS := -Wall -Wextra -Werror $(CFLAGS_FLAVOR)
SAMPLE_LDFLAGS := -L$(BUILD_DIR)/lib64 -lascendcl -Wl,-rpath,'$$ORIGIN/../../lib64' $(LDFLAGS_FLAVOR)

# Sanitizer settings for `check` (harmless in release builds).
CHECK_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
             UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
             TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"

# Programs the tests run as native roles (test/programs/), built as a user's
# program that uses the C API is: the stub's and the harness's headers (as `cann-harness flags`
# prints them), -lascendcl -lcannharness and nothing else.
TEST_PROGRAM_SRCS := $(wildcard test/programs/*.c)
TEST_PROGRAM_BINS := $(patsubst test/programs/%.c,$(BUILD_DIR)/test-programs/%,$(TEST_PROGRAM_SRCS))

.PHONY: conformance samples test-programs
all: conformance samples test-programs
conformance: $(CONFORMANCE_BIN)
samples: $(SAMPLE_BINS)
test-programs: $(TEST_PROGRAM_BINS)

$(CONFORMANCE_BIN): $(TEST_OBJS) $(LIB) $(HOLD_LIB) $(API_LIB)
	@mkdir -p $(dir $@)
	$(SAY) "  LD      $@"
	$(Q)$(CC) -o $@ $(TEST_OBJS) -L$(BUILD_DIR)/lib64 -lascendcl -lcannharness_hold -lcannharness -Wl,-rpath,'$$ORIGIN/../lib64' \
		$(LDFLAGS_FLAVOR) -pthread -ldl

$(BUILD_DIR)/obj/test/%.o: test/%.c
	@mkdir -p $(dir $@)
	$(SAY) "  CC      $<"
	$(Q)$(CC) $(TEST_CFLAGS) $(HARNESS_INCLUDES) -Itest -Iharness/hold -MMD -MP -c $< -o $@

$(BUILD_DIR)/samples/%: samples/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(SAY) "  CC      $@"
	$(Q)$(CC) $(SAMPLE_CFLAGS) -Iinclude -o $@ $< $(SAMPLE_LDFLAGS)

$(BUILD_DIR)/test-programs/%: test/programs/%.c $(LIB) $(API_LIB)
	@mkdir -p $(dir $@)
	$(SAY) "  CC      $@"
	$(Q)$(CC) $(SAMPLE_CFLAGS) $(HARNESS_INCLUDES) -o $@ $< -L$(BUILD_DIR)/lib64 -lascendcl -lcannharness \
		-Wl,-rpath,'$$ORIGIN/../lib64' $(LDFLAGS_FLAVOR)

# Cases run side by side (each in a stub scope of its own): most of a case's time is spent
# waiting on its helpers, gates and timeouts. As many at a time as CPUs: `make -j sanitizers` runs
# two flavours at once, and the sanitizer builds of the timing cases (a gate that opens itself
# after 10 s, 20 s watchdogs) must not starve. (`npm run test:sanitizers` sets 1.5 per CPU: there
# the long cases run one at a time, --all's order, and most cases wait on helpers and gates.)
CHECK_JOBS ?= $(shell nproc)

# Everything a case runs: the runner, samples, test programs, the preloaded library and the
# reclaim tool (the scope and reclaim cases run it, and so does the runner after a failed or
# stopped case), so that `make -j all check` is safe.
check: $(CONFORMANCE_BIN) $(SAMPLE_BINS) $(TEST_PROGRAM_BINS) $(PRELOAD_LIB) $(RECLAIM_BIN)
	@echo "  CHECK   $(FLAVOR): $(CONFORMANCE_BIN) --all --jobs $(CHECK_JOBS) $(CASES)"
	$(Q)$(CHECK_ENV) $(CONFORMANCE_BIN) --all --jobs $(CHECK_JOBS) $(CASES)

-include $(TEST_OBJS:.o=.d)
