# memscope - a terminal memory browser with an embedded retrieval engine.
#
#   make            build ./memscope
#   make test       build and run every TAP test with prove
#   make setup      install the Debian packages the build and tests need
#   make demo       set up, write the demo store and open the browser on it
#   make asan|ubsan|valgrind   the test suite under a sanitizer / valgrind
#   make install PREFIX=/usr/local DESTDIR=
#   make bench | eval | fuzz | fuzz-smoke | fuzz-long | format | clean
-include config.mk

VERSION   = 0.1.0
PREFIX   ?= /usr/local
BINDIR    = $(PREFIX)/bin
MANDIR    = $(PREFIX)/share/man/man1
SHAREDIR  = $(PREFIX)/share/memscope
BUILD    ?= build
BIN      ?= memscope
CC       ?= cc
OPT      ?= -O2 -g
SAN      ?=
PKGS      = ncursesw sqlite3 libcjson libedit zlib
DEB_PKGS  = build-essential pkg-config libncurses-dev libsqlite3-dev libcjson-dev \
            libedit-dev zlib1g-dev sqlite3 tmux perl python3 clang clang-format \
            wordnet-base   # also in tools/demo.sh, .ci/run
Q         = $(if $(V),,@)

PKG_CFLAGS := $(filter-out -D_XOPEN_SOURCE=% -D_DEFAULT_SOURCE,\
                $(shell pkg-config --cflags $(PKGS) 2>/dev/null))
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
WARN      = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS_ALL = -std=c11 -pthread $(WARN) $(OPT) $(SAN) -D_DEFAULT_SOURCE -D_XOPEN_SOURCE=700 \
             -DNCURSES_WIDECHAR=1 -DMEMSCOPE_VERSION='"$(VERSION)"' \
             -DMEMSCOPE_SHAREDIR='"$(SHAREDIR)"' -I. $(PKG_CFLAGS) $(CFLAGS)
LDFLAGS_ALL = $(SAN) -pthread $(LDFLAGS)
LIBS_CORE = $(filter -lsqlite3 -lcjson -lz,$(PKG_LIBS)) -lm
LIBS_ALL  = $(PKG_LIBS) -lm
# The binary carries SQLite, the terminal and line-editing libraries and
# zlib itself where their static archives are installed (Debian's -dev
# packages have them): a `memscope recall` is a process of a few tens of
# milliseconds, and loading and relocating those seven shared libraries was
# a tenth of one (docs/PERFORMANCE.md, item 61). libc, libm and cJSON (no
# archive in Debian) stay shared. STATIC_LIBS=0 links every one as shared;
# a binary linked this way takes a library's security fix when rebuilt.
STATIC_LIBS ?= 1
STATIC_SET   = sqlite3 edit ncursesw tinfo bsd md z
ifeq ($(STATIC_LIBS),1)
STATIC_A := $(wildcard $(foreach l,$(STATIC_SET),$(shell $(CC) -print-file-name=lib$(l).a)))
ifeq ($(words $(STATIC_A)),$(words $(STATIC_SET)))
LIBS_ALL = -Wl,-Bstatic $(addprefix -l,$(STATIC_SET)) -Wl,-Bdynamic \
           $(filter -lcjson,$(PKG_LIBS)) -lm -ldl
endif
endif

STORE_SRC  := $(sort $(wildcard store/*.c store/base/*.c))
ENGINE_SRC := $(sort $(wildcard engine/*.c))
TUI_SRC    := $(sort $(wildcard tui/*/*.c))
STORE_OBJ  := $(STORE_SRC:%.c=$(BUILD)/%.o)
ENGINE_OBJ := $(ENGINE_SRC:%.c=$(BUILD)/%.o)
TUI_OBJ    := $(TUI_SRC:%.c=$(BUILD)/%.o) $(BUILD)/demo_data.o
CORE_OBJ   := $(ENGINE_OBJ) $(STORE_OBJ)

TEST_SRC   := $(sort $(wildcard tests/*-test.c))
TEST_BIN   := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
TEST_SH    := $(sort $(wildcard tests/*.t))
PROVE      ?= prove
# Two test files at a time: the suite took 355 s serially on an idle 2-core
# machine and 222 s this way (load about 2); PROVE_FLAGS= runs them one by one.
PROVE_FLAGS ?= -j2

all: $(BIN)

$(BIN): $(TUI_OBJ) $(CORE_OBJ)
	@echo "  LINK    $@"
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LIBS_ALL)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

# Themes are looked for in the source tree the binary was built from too,
# last (theme.h, theme_dirs): a build outside the tree, not installed, still
# finds themes/; a binary inside the tree looks there before the installs.
$(BUILD)/tui/present/theme.o: CFLAGS_ALL += -DMEMSCOPE_SRCDIR='"$(CURDIR)"'

# The demo memories are compiled into the binary: `memscope demo` needs no files.
$(BUILD)/tools/bin2c: tools/bin2c.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=c11 -O1 -o $@ $<
$(BUILD)/demo_data.c: data/demo.jsonl $(BUILD)/tools/bin2c
	$(Q)$(BUILD)/tools/bin2c demo_jsonl < data/demo.jsonl > $@
$(BUILD)/demo_data.o: $(BUILD)/demo_data.c
	$(Q)$(CC) -std=c11 -c -o $@ $<

# Core tests link against an archive of the store and engine: each pulls in
# only the modules it uses, and never a terminal library.
$(BUILD)/libcore.a: $(CORE_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

# The browser and the present layer as an archive: tests/view-test.c links
# it and pulls in only the terminal-free files it calls (never curses).
BROWSER_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard tui/browser/*.c tui/present/*.c)))
$(BUILD)/libbrowser.a: $(BROWSER_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/tests/view-test: tests/view-test.c $(BUILD)/libbrowser.a $(BUILD)/libcore.a tests/tap.h
	@mkdir -p $(dir $@)
	@echo "  TEST    $@"
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) -MMD -MP -o $@ $< $(BUILD)/libbrowser.a \
	  $(BUILD)/libcore.a $(LIBS_CORE)

$(BUILD)/tests/%: tests/%.c $(BUILD)/libcore.a tests/tap.h
	@mkdir -p $(dir $@)
	@echo "  TEST    $@"
	$(Q)$(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL) -MMD -MP -o $@ $< $(BUILD)/libcore.a $(LIBS_CORE)

# A sixth channel (tests/channel6-test.c): the core rebuilt with one extra
# line in the engine's channel list (-include tests/channel6.h), and the
# channel's file being the test program itself; the browser's key texts
# (keytext.c) rebuilt the same way show the sixth channel.
CH6_OBJ := $(CORE_OBJ:$(BUILD)/%.o=$(BUILD)/ch6/%.o)
$(BUILD)/ch6/%.o: %.c tests/channel6.h
	@mkdir -p $(dir $@)
	@echo "  CC      $< (six channels)"
	$(Q)$(CC) $(CFLAGS_ALL) -include tests/channel6.h -MMD -MP -c -o $@ $<
$(BUILD)/libcore6.a: $(CH6_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^
$(BUILD)/tests/channel6-test: tests/channel6-test.c tests/channel6.h $(BUILD)/libcore6.a tests/tap.h \
  $(BUILD)/ch6/tui/browser/keytext.o
	@mkdir -p $(dir $@)
	@echo "  TEST    $@"
	$(Q)$(CC) $(CFLAGS_ALL) -include tests/channel6.h $(LDFLAGS_ALL) -MMD -MP -o $@ $< \
	  $(BUILD)/ch6/tui/browser/keytext.o $(BUILD)/libcore6.a $(LIBS_CORE)

tests: $(TEST_BIN) $(BIN)

test: tests
	$(Q)MEMSCOPE=$(abspath $(BIN)) MEMSCOPE_TEST_BIN=$(abspath $(BUILD)/tests) \
	  $(PROVE) $(PROVE_FLAGS) --exec '' $(TEST_BIN) $(TEST_SH)

setup:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq $$missing; \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq $$missing; fi; \
	fi

demo:
	$(Q)sh tools/demo.sh

asan:
	$(Q)$(MAKE) --no-print-directory BUILD=build/asan BIN=build/asan/memscope \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" OPT="-O1 -g" test

ubsan:
	$(Q)$(MAKE) --no-print-directory BUILD=build/ubsan BIN=build/ubsan/memscope \
	  SAN="-fsanitize=undefined -fno-sanitize-recover=undefined" OPT="-O1 -g" test

VALGRIND ?= valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \
            --errors-for-leak-kinds=definite,indirect --error-exitcode=99

valgrind: all tests
	$(Q)MEMSCOPE_VALGRIND=1 MEMSCOPE=$(abspath $(BIN)) MEMSCOPE_TEST_BIN=$(abspath $(BUILD)/tests) \
	  $(PROVE) --exec '$(VALGRIND)' $(TEST_BIN)

# libFuzzer targets, tests/fuzz/fuzz-*.c: built with clang only by these
# targets, never by `make` or `make test`. `make fuzz` runs each for
# FUZZ_SECONDS, `make fuzz-smoke` (CI) for FUZZ_SMOKE_SECONDS, `make fuzz-long`
# for FUZZ_LONG_SECONDS (>= 30); new inputs
# collect in build/fuzz/corpus/, crashes in build/fuzz/artifacts/. Needs clang
# and its runtimes (Debian: clang libclang-rt-dev).
FUZZ_SRC      := $(sort $(wildcard tests/fuzz/fuzz-*.c))
FUZZ_NAMES    := $(FUZZ_SRC:tests/fuzz/fuzz-%.c=%)
FUZZ_SECONDS  ?= 60
FUZZ_SMOKE_SECONDS ?= 10
FUZZ_BUILD    := build/fuzz
FUZZ_SAN      := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
                 -fno-omit-frame-pointer
FUZZ_TUI_OBJ   = $(BUILD)/tui/present/theme.o $(BUILD)/tui/browser/config.o $(BUILD)/tui/present/text.o

fuzz-build:
	$(Q)$(MAKE) -s --no-print-directory CC=clang BUILD=$(FUZZ_BUILD) SAN="$(FUZZ_SAN)" \
	  OPT="-O1 -g" $(FUZZ_NAMES:%=$(FUZZ_BUILD)/bin/fuzz-%)

$(BUILD)/bin/fuzz-%: tests/fuzz/fuzz-%.c tests/fuzz/fuzz.h $(BUILD)/libcore.a $(FUZZ_TUI_OBJ)
	@mkdir -p $(dir $@)
	@echo "  FUZZ    $@"
	$(Q)$(CC) $(CFLAGS_ALL) -fsanitize=fuzzer $(LDFLAGS_ALL) -o $@ $< $(FUZZ_TUI_OBJ) \
	  $(BUILD)/libcore.a $(LIBS_CORE)

# fuzz_run SECONDS: run every target from its seed corpus; stop at a finding.
fuzz_run = for t in $(FUZZ_NAMES); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$t $(FUZZ_BUILD)/artifacts; \
	  case $$t in jsonl|locomo|escape|formats) d=json.dict;; dates|query) d=dates.dict;; *) d=;; esac; \
	  echo "  FUZZ    $$t for $(1) s"; \
	  $(FUZZ_BUILD)/bin/fuzz-$$t -max_total_time=$(1) -timeout=20 -rss_limit_mb=2560 \
	    -artifact_prefix=$(abspath $(FUZZ_BUILD))/artifacts/$$t- \
	    $${d:+-dict=tests/fuzz/$$d} $(FUZZ_BUILD)/corpus/$$t tests/fuzz/corpus/$$t \
	    >$(FUZZ_BUILD)/$$t.log 2>&1 \
	    || { tail -n 60 $(FUZZ_BUILD)/$$t.log; echo "fuzz-$$t failed: see $(FUZZ_BUILD)/$$t.log"; exit 1; }; \
	  grep -E '^Done [0-9]+ runs' $(FUZZ_BUILD)/$$t.log | sed 's/^/          /'; \
	done

fuzz: fuzz-build
	$(Q)$(call fuzz_run,$(FUZZ_SECONDS))

fuzz-smoke: fuzz-build
	$(Q)$(call fuzz_run,$(FUZZ_SMOKE_SECONDS))

# Every target for FUZZ_LONG_SECONDS (at least 30 s each; about 4 minutes in
# all): before a release, after a change to a parser (docs/PERFORMANCE.md).
FUZZ_LONG_SECONDS ?= 30
fuzz-long: fuzz-build
	$(Q)if [ "$(FUZZ_LONG_SECONDS)" -lt 30 ]; then \
	  echo "fuzz-long: FUZZ_LONG_SECONDS is at least 30"; exit 2; fi
	$(Q)$(call fuzz_run,$(FUZZ_LONG_SECONDS))

eval: all
	$(Q)MEMSCOPE=$(abspath $(BIN)) tools/eval-locomo.sh

# memscope bench at 1k, 10k and 100k memories into docs/PERFORMANCE.md
bench: all
	$(Q)MEMSCOPE=$(abspath $(BIN)) CC="$(CC)" tools/bench.sh

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(SHAREDIR)/themes
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/memscope
	install -m 644 docs/memscope.1 $(DESTDIR)$(MANDIR)/memscope.1
	install -m 644 themes/* $(DESTDIR)$(SHAREDIR)/themes/

# Every C file the repository holds, formatted by .clang-format; CI runs
# format-check and fails on any difference.
FORMAT_SRC = $(shell git ls-files '*.c' '*.h' 2>/dev/null || find store engine tui tests tools -name '*.[ch]')

format:
	$(Q)clang-format -i $(FORMAT_SRC)

format-check:
	$(Q)clang-format --dry-run --Werror $(FORMAT_SRC)

clean:
	rm -rf build $(BIN) demo.db demo.db-wal demo.db-shm

.PHONY: all test tests setup demo asan ubsan valgrind install format clean eval bench \
        fuzz fuzz-build fuzz-smoke fuzz-long format-check
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
