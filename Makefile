# sitd — userspace SIT (6in4) and IPIP tunnels.
#
#   make              build build/sitd (-O2)
#   make check        unit tests (plain and ASan+UBSan), fuzzers on the corpus,
#                     then the integration tests (root, network namespaces)
#   make unit         unit tests only;  make fuzz  fuzzers only
#   make CC=clang     any target with clang
#
# V=1 shows the full command lines.

CC ?= cc
CLANG ?= clang
O ?= build
FUZZ_SECONDS ?= 10

WARN := -Wall -Wextra -Werror -Wshadow -Wpointer-arith -Wcast-qual -Wstrict-prototypes \
	-Wmissing-prototypes -Wmissing-declarations -Wold-style-definition -Wformat=2 \
	-Wundef -Wwrite-strings -Wvla -Wimplicit-fallthrough -Wswitch-enum -Wdate-time
CSTD := -std=gnu11
CPPFLAGS += -D_GNU_SOURCE -DSITD_VERSION='"$(VERSION)"' -Isrc
CFLAGS ?= -O2 -g
# One version, debian/changelog's: `sitd --version` and the package agree.
VERSION ?= $(shell sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' debian/changelog)
CFLAGS += $(CSTD) $(WARN) -fno-strict-aliasing -MMD -MP
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

Q := $(if $(V),,@)
say = $(if $(V),,@printf '  %-6s %s\n' $(1) $(2);)

# The layers and which are pure: src/LAYERS, the one list (scripts/lint.sh reads it too).
# The pure ones are what the unit tests and fuzzers link.
LAYERS := $(shell awk '!/^\#/ && NF { print $$1 }' src/LAYERS)
PURE := $(shell awk '!/^\#/ && $$2 == "pure" { print $$1 }' src/LAYERS)
CORE_SRCS := $(foreach l,$(PURE),$(wildcard src/$(l)/*.c))
APP_SRCS := $(foreach l,$(filter-out $(PURE),$(LAYERS)),$(wildcard src/$(l)/*.c))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)

CORE_OBJS := $(CORE_SRCS:%.c=$(O)/%.o)
APP_OBJS := $(APP_SRCS:%.c=$(O)/%.o)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(O)/unit/%)
ASAN_CORE_OBJS := $(CORE_SRCS:%.c=$(O)/asan/%.o)
ASAN_UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(O)/asan/unit/%)
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(O)/fuzz/%)

.PHONY: all install bench-tools integration-plain integration-asan unit unit-asan fuzz fuzz-build integration check clean sitd-asan lint
all: $(O)/sitd
bench-tools: $(O)/blast $(O)/sendpath $(O)/sitd

$(O)/sitd: $(CORE_OBJS) $(APP_OBJS)
	$(call say,LD,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lpthread -lmnl -lcap -lseccomp

$(O)/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# The version is debian/changelog's: a new entry rebuilds what prints it.
$(O)/src/cmd/main.o $(O)/asan/src/cmd/main.o: debian/changelog

$(O)/asan/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC-SAN,$<)$(CC) $(CPPFLAGS) $(CFLAGS) $(SAN) -O1 -c -o $@ $<

# Unit tests: cmocka, one binary per file, linked against the real core.  A test of the
# daemon layer also links the daemon files it tests, named in UNIT_LINK_<test>, and a
# stub (tests/unit/stub_*.c) of what those call below them: sockets, the monitor.
UNIT_LINK_test_qsbr := src/daemon/qsbr.c
UNIT_LINK_test_outer := src/daemon/outer.c tests/unit/stub_outer.c
UNIT_LINK_test_path := src/daemon/path.c src/daemon/qsbr.c tests/unit/stub_path.c
unit_link = $(patsubst %.c,$(2)/%.o,$(UNIT_LINK_$(1)))
.PRECIOUS: $(O)/tests/unit/%.o $(O)/asan/tests/unit/%.o

.SECONDEXPANSION:
$(O)/unit/%: tests/unit/%.c $(CORE_OBJS) tests/unit/pktgen.h $$(call unit_link,$$*,$(O))
	@mkdir -p $(@D)
	$(call say,TEST,$@)$(CC) $(CPPFLAGS) -Itests/unit $(CFLAGS) -o $@ $< \
		$(call unit_link,$*,$(O)) $(CORE_OBJS) -lcmocka -lpthread

$(O)/asan/unit/%: tests/unit/%.c $(ASAN_CORE_OBJS) tests/unit/pktgen.h \
		$$(call unit_link,$$*,$(O)/asan)
	@mkdir -p $(@D)
	$(call say,TEST-SAN,$@)$(CC) $(CPPFLAGS) -Itests/unit $(CFLAGS) $(SAN) -O1 -o $@ $< \
		$(call unit_link,$*,$(O)/asan) $(ASAN_CORE_OBJS) -lcmocka -lpthread

# The daemon under ASan and UBSan, for the integration tests.
sitd-asan: $(O)/asan/sitd
$(O)/asan/sitd: $(ASAN_CORE_OBJS) $(APP_SRCS:%.c=$(O)/asan/%.o)
	$(call say,LD-SAN,$@)$(CC) $(CFLAGS) $(SAN) -o $@ $^ -lpthread -lmnl -lcap -lseccomp

unit: $(UNIT_BINS)
	$(Q)tests/unit/run.sh $(UNIT_BINS)

unit-asan: $(ASAN_UNIT_BINS)
	$(Q)tests/unit/run.sh $(ASAN_UNIT_BINS)

# Fuzzers: libFuzzer (clang), each run for FUZZ_SECONDS on its committed corpus.
FUZZ_FLAGS := $(CSTD) $(WARN) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
$(O)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(CORE_SRCS)
	@mkdir -p $(@D)
	$(call say,FUZZ,$@)$(CLANG) $(CPPFLAGS) -Itests/fuzz $(FUZZ_FLAGS) -o $@ $< $(CORE_SRCS)

fuzz-build: $(FUZZ_BINS)
fuzz: $(FUZZ_BINS)
	$(Q)tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_BINS)

# Every integration test twice: the -O2 daemon, then the ASan+UBSan one.
integration: integration-plain integration-asan
integration-plain: $(O)/sitd
	$(Q)SITD=$(CURDIR)/$(O)/sitd tests/integration/run.sh
integration-asan: $(O)/asan/sitd
	$(Q)SITD=$(CURDIR)/$(O)/asan/sitd tests/integration/run.sh

# The benchmark's raw-socket ceiling (bench/run.sh).
$(O)/blast: bench/blast.c
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $<

# What one outer packet costs each way of sending it (bench/sendpath.sh).
$(O)/sendpath: bench/sendpath.c
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $<

# Its AF_XDP receiver, a probe sitd does not use (bench/run.sh row blast-xdp installs
# libxdp-dev and libbpf-dev first).
$(O)/xskblast: bench/xskblast.c
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -lxdp -lbpf

# Includes run down the layers, and the pure ones do no I/O, print, exit or allocate
# (src/LAYERS, doc/architecture.md); and so do calls, read from the objects (nm): none up
# a layer, no files calling each other in a circle.
lint: $(O)/sitd
	$(Q)CC=$(CC) scripts/lint.sh
	$(Q)python3 scripts/calls.py $(O)

check: lint unit unit-asan fuzz integration

PREFIX ?= /usr/local
install: $(O)/sitd
	install -D -m 0755 $(O)/sitd $(DESTDIR)$(PREFIX)/sbin/sitd
	install -D -m 0644 man/sitd.8 $(DESTDIR)$(PREFIX)/share/man/man8/sitd.8
	install -D -m 0644 man/sitd.conf.5 $(DESTDIR)$(PREFIX)/share/man/man5/sitd.conf.5
	install -D -m 0644 contrib/sitd.service $(DESTDIR)$(PREFIX)/lib/systemd/system/sitd.service

clean:
	rm -rf $(O)

-include $(shell find $(O) -name '*.d' 2>/dev/null)
