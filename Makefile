# godu: build, test, measure.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS := -s -w -X main.version=$(VERSION)
CC      ?= cc
CFLAGS_CHECK := -std=c11 -O2 -Wall -Wextra -Werror -Wshadow -Wconversion -Wno-sign-conversion
PREFIX  ?= /usr/local
# Go's build cache hashes only the C files in a package's own directory,
# not the csrc/ files they include: a digest of csrc/ in CGO_CFLAGS makes
# every edit there rebuild the cgo packages.
CSRC_SUM := $(shell cat csrc/*.[ch] csrc/*/*.[ch] internal/xnu/include/*.h internal/xnu/include/*/*.h 2>/dev/null | cksum | cut -d' ' -f1)
export CGO_CFLAGS := $(or $(CGO_CFLAGS),-O2 -g) -DGODU_CSRC_SUM=$(CSRC_SUM)

.PHONY: all build build-purego install man completions test vet fmt-check cwarn race race-cgo race-purego race-purego-godu alone xnu xnu-godu xnu-lib xnu-purego-lib xnu-purego-godu xnu-symbols portable portable-lib portable-godu unit bench scale doubling startup gobench zig cross cross-all dist fuzz asan clean bin/godu-xnu bin/godu-xnu-purego

all: build

# On Linux the command is linked statically when the C library allows it
# (glibc's libc.a, from libc6-dev or glibc-static): no dynamic loader, no
# libc.so to map at start-up, which is most of what godu's start-up costs
# over a Go program's (make startup). netgo and osusergo keep out the
# resolver and user lookups that would need libc's shared NSS modules;
# godu calls neither. Only a cgo build for the host is linked so; anything
# else (CGO_ENABLED=0, GOOS or GOARCH set, no libc.a), and go install, link
# as any Go program does. Where musl-gcc is installed (musl-tools), the
# static link is musl's: glibc's static start-up asks the CPU for its
# caches' sizes, dozens of cpuid instructions, each a VM exit under a
# hypervisor (a sixth of godu's start-up samples here: 1.9 ms against
# 1.5 ms with musl, hyperfine). A CC given to make or in the environment
# is used instead. Evaluated only when build runs.
HOST_CGO = $(shell set -- $$($(GO) env GOOS GOARCH CGO_ENABLED GOHOSTOS GOHOSTARCH); [ "$$1 $$2 $$3 $$4" = "linux $$5 1 linux" ] && echo yes)
BUILD_CC = $(or $(if $(HOST_CGO),$(if $(filter default file,$(origin CC)),$(shell command -v musl-gcc 2>/dev/null))),$(shell $(GO) env CC))
STATIC_OK = $(if $(HOST_CGO),$(shell printf 'int main(void){return 0;}' | $(BUILD_CC) -static -x c - -o /dev/null 2>/dev/null && echo yes))
comma := ,
BUILD_FLAGS = $(if $(STATIC_OK),-tags netgo$(comma)osusergo -ldflags '$(LDFLAGS) -linkmode external -extldflags -static',-ldflags '$(LDFLAGS)')

build:
	CC='$(BUILD_CC)' $(GO) build -trimpath $(BUILD_FLAGS) -o bin/godu ./cmd/godu

build-purego:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/godu-purego ./cmd/godu

install: build man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 bin/godu $(DESTDIR)$(PREFIX)/bin/godu
	install -m 644 bin/man/godu.1 $(DESTDIR)$(PREFIX)/share/man/man1/godu.1
	bin/godu --completion=bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/godu
	bin/godu --completion=zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_godu
	bin/godu --completion=fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/godu.fish

# The man page, generated from the command's own help (cobra's doc) by a
# build tagged godu_man; the shipped binary leaves the generator out.
man:
	@rm -rf bin/man && mkdir -p bin/man
	$(GO) run -tags godu_man -ldflags '$(LDFLAGS)' ./cmd/godu --generate-man bin/man

# The completion scripts godu embeds (cmd/godu/completions), made anew
# by cobra (internal/cobracmd): after a cobra upgrade. The test that
# rewrites them is the one that fails while they differ.
completions:
	$(GO) test ./cmd/godu -run '^TestCompletionScripts$$' -count=1 -update-completions

# The whole gate: formatting, vet for every variant and for darwin, C
# warnings, the test suite for both variants (the cgo build's under the
# race detector, and the purego reader's), the
# darwin core through the suite over the getattrlistbulk emulation, and
# the portable Unix reader through the walk, library and command tests.
# After the first race pass (the cgo build, on the file system TMPDIR is
# on), the other passes run two at a time, their trees on a tmpfs
# (ON_SHM), and the tests that count context switches last, alone.
test: fmt-check vet cwarn race-cgo bin/godu-xnu
	$(MAKE) --no-print-directory -j2 -O $(LATER)
	$(MAKE) --no-print-directory xnu-symbols alone

# The passes after the first, each go test of theirs a job, the longest
# first: as many jobs as two CPUs keep busy to the end (with xnu's three
# in one, it ran alone on one CPU for the last three minutes).
XNU_JOBS := xnu-godu xnu-purego-godu xnu-lib xnu-purego-lib
LATER := xnu-godu race-purego-godu xnu-purego-godu xnu-lib xnu-purego-lib race-purego portable-godu portable-lib

# Where /dev/shm is a tmpfs whose files can be run (the command's tests
# run the godu they build in their temporary directory), the later passes
# make their trees there: creating and removing the tests' trees is most
# of their time on a disk (the purego walk tests under the race detector,
# 72 s on ext4 against 43 s on tmpfs here). The first pass keeps TMPDIR's
# file system, a disk's directory blocks and order included.
SHM_TMP = $(shell t=$$(mktemp -p /dev/shm godu-XXXXXX 2>/dev/null) && { printf '\043!/bin/sh\n' >"$$t"; chmod +x "$$t"; "$$t" && echo /dev/shm; rm -f "$$t"; })
ON_SHM = $(addprefix TMPDIR=,$(SHM_TMP))

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	$(GO) vet -tags purego ./...
	CGO_ENABLED=0 $(GO) vet ./...
	$(GO) vet -tags godu_portable ./...
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) vet ./...
	$(GO) vet -tags godu_xnu ./...
	$(GO) vet -tags godu_xnu,purego ./...

# The C core must compile without a warning.
cwarn:
	$(CC) $(CFLAGS_CHECK) -fsyntax-only csrc/bulk_linux.c
	! command -v musl-gcc >/dev/null || musl-gcc $(CFLAGS_CHECK) -fsyntax-only csrc/bulk_linux.c
	$(CC) $(CFLAGS_CHECK) -fsyntax-only csrc/attrparse.c
	$(CC) $(CFLAGS_CHECK) -fsyntax-only -Iinternal/xnu/include -include internal/xnu/include/xnu_shim.h csrc/bulk_darwin.c

# The race detector over the cgo build's every package: the command's
# tests on bin/godu as make build links it (GODU_BIN; the other packages'
# test binaries, and the xnu and portable passes' godu, are linked as go
# install links), and on a godu built with -race too. The purego build's
# reader (internal/bulk) under the race detector as well; its library and
# walk without it (their code is the cgo build's, raced in the first pass;
# under the race detector the walk's tests took 49 s of CPU against 17 s,
# on a CI whose two CPUs are busy throughout), then the command's tests with a plain purego godu (a godu built
# with -race runs each of those thousands of command lines several times
# slower, and its walk is the one the first pass ran), but those that
# never reach the reader (PUREGO_SKIP). TestMillionEntries (the -a
# stream's memory on a million files) runs in the first pass only.
PUREGO_PKGS = . $(filter-out %/internal/bulk,$(shell $(GO) list ./internal/...))
race: race-cgo
	$(MAKE) --no-print-directory -j2 -O race-purego-godu race-purego
	$(MAKE) --no-print-directory alone

race-cgo: build
	GODU_BIN=$(CURDIR)/bin/godu $(GO) test -race -count=1 -skip '^$(ALONE)$$' ./...

race-purego:
	$(ON_SHM) $(GO) test -race -count=1 -tags purego ./internal/bulk
	$(ON_SHM) $(GO) test -count=1 -tags purego -skip '^$(ALONE)$$' $(PUREGO_PKGS)

race-purego-godu:
	$(ON_SHM) $(GO) test -count=1 -tags purego -skip '$(PUREGO_SKIP)' ./cmd/godu

alone:
	$(GO) test -count=1 -run '^$(ALONE)$$' ./internal/walk
	$(GO) test -count=1 -tags purego -run '^$(ALONE)$$' ./internal/walk

# Tests that count the process's context switches, which other test
# processes on the same CPUs would add to: left out of the parallel passes
# above (beside them the walk made 50 switches with its yields against 71
# without, where alone it makes under half), run with nothing beside them.
ALONE := TestLoneWorkerYields

# When output leaves (strace and a terminal): the same code above every
# reader, run by the first pass alone.
OUTPUT_TIMING := TestFirstLinesLeaveEarly|TestLinesLeaveWhileWalking|TestLinesOnTerminal|TestOutputOnTerminalWithProgress

# The command's tests that never reach the reader (option grammar, numbers,
# times, quoting, completions, output failures: the same code in every
# build), and TestMillionEntries (the -a stream's memory): run by the first
# pass alone, left out of the purego and darwin-core passes.
READER_FREE := TestMillionEntries|TestBashCompletion|TestCommandWordsAreFiles|TestCompletionsAndStats|TestGeneratedOptionSyntax|TestGeneratedNumbers|TestGeneratedTimes|TestGeneratedExclusion|TestEveryAbbreviation|TestUsageErrors|TestHumanFormats|TestGeneratedQuoting|TestOutputFailure|TestGoduOutputFailure|TestClosedInput|$(OUTPUT_TIMING)
PUREGO_SKIP := ^($(READER_FREE))$$

# The command's tests whose outcome depends on the directory reader: the
# differential ones on trees, against du. The darwin purego and portable
# passes run these (their option grammar, times, quoting, terminal and
# output-failure tests are the reader-free ones the other passes ran).
READER_TESTS := ^(TestDifferential.*|TestErrorsInDuOrder|TestOperandFigureInDuOrder|TestFollowEmptyOperandSlash|TestDefaultOperandIsDot|TestMissingOperand|TestDeeperThanPathMax|TestLargeDirectory|TestPermissionDenied|TestShapes|TestRandomShapes|TestGenerated(Operands|HugeSums|Trees)|TestLinksBelowDepthLimit|TestFollowAllPathMax|TestOptionScenarios|TestSymlinkChainsAndSlashes|TestFiles0From|TestMutation|TestOneFileSystem|TestSparse8GB|TestNcduExport.*|TestJSON|TestXnu.*)$$

# --- the darwin core on Linux ---------------------------------------------
# The build tag godu_xnu compiles the darwin core (csrc/bulk_darwin.c with
# cgo, gocore_getattrlistbulk.go with purego) on Linux against the SDK shim
# in internal/xnu/include, over internal/xnu's getattrlistbulk emulation:
# the reader, walk and command tests (the differential ones against du)
# run through it, for both darwin readers. Never in a shipped binary.
# TestDescriptorExhaustion (half a minute of the walk's descriptor budget)
# runs on Linux only, the reader-free tests (READER_FREE) in the first pass
# only; the purego run takes the command's reader tests
# (READER_TESTS) and leaves its longest ones to the cgo run.
XNU_SKIP := ^(TestDescriptorExhaustion|$(READER_FREE))$$
XNU_SKIP_PUREGO := $(XNU_SKIP)|TestFewDescriptors|TestShapes|TestRandomShapes|TestDeeperThanPathMax
# The shipped build must not hold the emulation: its functions' names,
# which stay in a stripped Go binary, are in bin/godu-xnu and not in
# bin/godu.
xnu: build bin/godu-xnu
	$(MAKE) --no-print-directory -j2 -O $(XNU_JOBS)
	$(MAKE) --no-print-directory xnu-symbols

xnu-godu:
	$(ON_SHM) $(GO) test -count=1 -tags godu_xnu -skip '$(XNU_SKIP)' ./cmd/godu

xnu-lib:
	$(ON_SHM) $(GO) test -count=1 -tags godu_xnu -skip '$(XNU_SKIP)' ./internal/bulk ./internal/walk

xnu-purego-lib:
	$(ON_SHM) $(GO) test -count=1 -tags godu_xnu,purego -skip '$(XNU_SKIP_PUREGO)' ./internal/bulk ./internal/walk

xnu-purego-godu:
	$(ON_SHM) $(GO) test -count=1 -tags godu_xnu,purego -skip '$(XNU_SKIP_PUREGO)' -run '$(READER_TESTS)' ./cmd/godu

xnu-symbols:
	@grep -qa -e 'godu/internal/xnu.Getattrlistbulk' bin/godu-xnu || { echo "bin/godu-xnu lacks the emulation's names"; exit 1; }
	@! grep -qa -e 'godu/internal/xnu' -e goduXnu bin/godu || { echo "bin/godu links the emulation"; exit 1; }
	@echo "bin/godu holds no emulation symbol"

# godu with the darwin core over the emulation, for outside differential
# suites (GODU_XNU=... sets the emulation's faults, see internal/xnu).
bin/godu-xnu:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -tags godu_xnu -o $@ ./cmd/godu

bin/godu-xnu-purego:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -tags godu_xnu,purego -o $@ ./cmd/godu

# The portable Unix reader (the BSDs', illumos' and Solaris') on Linux,
# under the tag godu_portable: its own tests against the Linux reader and
# lstat, the walk's, the library's and the command's differential tests
# against GNU du (the command's binary built with the tag too). No -race:
# the walk above the reader is the one race already runs; -short leaves
# out the consumer module's builds, which do not use the tag.
# Of the command's tests, those that depend on the reader (READER_TESTS).
portable:
	$(MAKE) --no-print-directory -j2 -O portable-lib portable-godu

portable-lib:
	$(ON_SHM) $(GO) test -count=1 -short -tags godu_portable . ./internal/bulk ./internal/walk

portable-godu:
	$(ON_SHM) $(GO) test -count=1 -short -tags godu_portable -run '$(READER_TESTS)' ./cmd/godu

unit:
	$(GO) test -count=1 ./...

gobench:
	$(GO) test -run '^$$' -bench . -benchmem ./internal/...

clean:
	rm -rf bin dist

BENCH_DIR ?= $(HOME)/.cache/godu-bench
BENCH_TREES ?= deep,wide,hardlinks,real,chain,longnames,outside,star

bin/floor: csrc/floor/floor.c
	@mkdir -p bin
	$(CC) -O2 -Wall -Wextra -pthread -o $@ $<

# Benchmarks: every tree, every tool, one hyperfine run each (needs
# hyperfine and /usr/bin/time; peers are measured when installed).
bench: build build-purego $(if $(filter Linux,$(shell uname -s)),bin/floor)
	@command -v hyperfine >/dev/null || { echo "make bench needs hyperfine (apt-get install hyperfine; brew install hyperfine)"; exit 1; }
	@test -x /usr/bin/time || { echo "make bench needs /usr/bin/time (apt-get install time)"; exit 1; }
	$(GO) run ./cmd/godubench -dir $(BENCH_DIR) -godu bin/godu -purego bin/godu-purego -floor bin/floor -trees $(BENCH_TREES)

# Start-up: godu -s on an empty directory and on flat ones of 32 to 3,000
# files, the static build (make build) and go install's, against a Go
# program with cgo that prints a line and against du, paired.
STARTUP_ROUNDS ?= 300
startup: build
	$(GO) build -o bin/godu-dynamic ./cmd/godu
	$(GO) build -o bin/hello-cgo ./cmd/godubench/testdata/hello
	$(GO) run ./cmd/godubench -dir $(BENCH_DIR) -godu bin/godu -dynamic bin/godu-dynamic -startup bin/hello-cgo -paired $(STARTUP_ROUNDS)

# Linear growth: godu -s against the floor as entries, depth and name
# length double in turn (five steps each), time and peak RSS per step.
doubling: build bin/floor
	@test -x /usr/bin/time || { echo "make doubling needs /usr/bin/time (apt-get install time)"; exit 1; }
	$(GO) run ./cmd/godubench -dir $(BENCH_DIR) -godu bin/godu -floor bin/floor -doubling

# Memory as trees grow: peak RSS and time of godu -s, -a, -d 3, --json -a
# and the ncdu export against du on trees of 0.4 M and 4 M empty files and
# on one directory of a million (SCALE_TREES=0.4M for the small one alone;
# the big ones take minutes to build, once, and 5 M inodes of the disk).
SCALE_TREES ?= 0.4M,4M,1M-flat
scale: build
	@test -x /usr/bin/time || { echo "make scale needs /usr/bin/time (apt-get install time)"; exit 1; }
	$(GO) run ./cmd/godubench -dir $(BENCH_DIR) -godu bin/godu -scale $(SCALE_TREES)

# --- darwin, proven from Linux -------------------------------------------
# zig (from PyPI) ships the macOS SDK headers and libSystem. It lacks
# libresolv and CoreFoundation, which Go's darwin runtime links by default
# without using a symbol of them in godu: .ci/darwin-sdk holds minimal .tbd
# stubs for the two. A linked Mach-O proves every symbol godu uses resolves
# against the SDK. (-w: no DWARF, else Go runs the host's strip on Mach-O.)
ZIG      ?= python3 -m ziglang
DARWIN_SDK_STUBS := $(CURDIR)/.ci/darwin-sdk
DARWIN_ENV = CGO_ENABLED=1 GOOS=darwin CGO_LDFLAGS="-L$(DARWIN_SDK_STUBS) -F$(DARWIN_SDK_STUBS)"

zig:
	@$(ZIG) version >/dev/null 2>&1 || python3 -m pip install --quiet ziglang

# zig cc turns on UBSan where no -O is given (cgo's own link steps) and
# builds its runtime for it, twice, on an empty zig cache (make cross
# 69 s against 53 s without, one run each). The links prove the symbols.
ZIG_NO_UBSAN := -fno-sanitize=undefined

# Both architectures: the C core compiles without a warning. arm64's cgo
# build links, it builds without cgo too and is vetted both ways; the
# same Go and C files make darwin/amd64's (no file is per architecture),
# type-checked from source (.ci/typecheck, see cross-all) and linked by
# make dist: a cgo link for amd64 here would compile the standard
# library for darwin once more (half a minute on an empty build cache).
cross: zig
	@mkdir -p bin
	$(ZIG) cc -target x86_64-macos $(CFLAGS_CHECK) -c csrc/bulk_darwin.c -o /dev/null
	$(ZIG) cc -target aarch64-macos $(CFLAGS_CHECK) -c csrc/bulk_darwin.c -o /dev/null
	$(DARWIN_ENV) GOARCH=arm64 CC="$(ZIG) cc -target aarch64-macos $(ZIG_NO_UBSAN)" \
		$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/godu-darwin-arm64 ./cmd/godu
	CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 \
		$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/godu-darwin-arm64-purego ./cmd/godu
	$(DARWIN_ENV) GOARCH=arm64 CC="$(ZIG) cc -target aarch64-macos $(ZIG_NO_UBSAN)" $(GO) vet ./...
	CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 $(GO) vet ./...
	$(GO) run ./.ci/typecheck darwin/amd64
	file bin/godu-darwin-*

# Every other GOOS, without cgo. One system of the portable Unix reader's
# family is compiled, linked and vetted (vet type-checks the tests too);
# every system, that one and Windows included, is type-checked from
# source with its tests (.ci/typecheck), which compiles nothing: a go build
# or vet for a system first compiles the standard library for it, half a
# minute per system on an empty build cache (so Windows, which godu's
# releases leave out, is type-checked only). No file of godu's is per
# architecture; linux/arm64 is checked because golang.org/x/sys's types
# differ there from amd64's (Stat_t.Nlink is 32 bits).
CROSS_BUILD := freebsd/amd64
CROSS_ALL := freebsd/amd64 freebsd/arm64 openbsd/amd64 netbsd/amd64 dragonfly/amd64 \
	illumos/amd64 solaris/amd64 windows/amd64 windows/arm64 linux/arm64
cross-all:
	@mkdir -p bin
	for t in $(CROSS_BUILD); do \
		os=$${t%%/*}; arch=$${t##*/}; echo "== $$os/$$arch"; \
		GOOS=$$os GOARCH=$$arch CGO_ENABLED=0 $(GO) build -trimpath -o bin/godu-$$os-$$arch ./cmd/godu || exit 1; \
		GOOS=$$os GOARCH=$$arch CGO_ENABLED=0 $(GO) vet ./... || exit 1; \
	done
	$(GO) run ./.ci/typecheck $(CROSS_ALL)

# Release tarballs with a checksum file.
DIST_TARGETS := darwin-arm64:aarch64-macos darwin-amd64:x86_64-macos linux-amd64:x86_64-linux-gnu linux-arm64:aarch64-linux-gnu
dist: zig
	@rm -rf dist && mkdir -p dist
	for t in $(DIST_TARGETS); do \
		plat=$${t%%:*}; ztarget=$${t##*:}; os=$${plat%%-*}; arch=$${plat##*-}; \
		d=dist/godu-$(VERSION)-$$plat; mkdir -p $$d; \
		CGO_ENABLED=1 GOOS=$$os GOARCH=$$arch CC="$(ZIG) cc -target $$ztarget" \
			CGO_LDFLAGS="-L$(DARWIN_SDK_STUBS) -F$(DARWIN_SDK_STUBS)" \
			$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $$d/godu ./cmd/godu || exit 1; \
		cp README.md $$d/; \
		tar -C dist -czf dist/godu-$(VERSION)-$$plat.tar.gz godu-$(VERSION)-$$plat || exit 1; \
		rm -rf $$d; \
	done
	cd dist && sha256sum *.tar.gz > SHA256SUMS && cat SHA256SUMS

# The getattrlistbulk parsers under AddressSanitizer: the parser tests, the
# darwin core over the emulation (godu_xnu), then FUZZTIME of fuzzing both
# parsers (C and Go) against each other.
FUZZTIME ?= 60s
asan:
	$(GO) test -asan -count=1 -run 'Worked|Corpus|Rejects|Random|Fuzz|Helpers' ./internal/bulk
	$(GO) test -asan -count=1 -run 'Subtree' ./internal/walk
	$(GO) test -asan -count=1 -tags godu_xnu -run 'Xnu' ./internal/bulk
	$(GO) test -asan -run '^$$' -fuzz FuzzAttrParse -fuzztime $(FUZZTIME) ./internal/bulk

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzAttrParse -fuzztime $(FUZZTIME) ./internal/bulk
	$(GO) test -run '^$$' -fuzz FuzzJSONEntry -fuzztime $(FUZZTIME) ./internal/du
	$(GO) test -run '^$$' -fuzz FuzzNcduString -fuzztime $(FUZZTIME) ./internal/du
