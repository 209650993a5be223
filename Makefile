# godu: build, test, measure.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS := -s -w -X main.version=$(VERSION)
CC      ?= cc
CFLAGS_CHECK := -std=c11 -O2 -Wall -Wextra -Werror -Wshadow -Wconversion -Wno-sign-conversion
PREFIX  ?= /usr/local

.PHONY: all build build-purego install test vet fmt-check cwarn race unit bench gobench cross dist fuzz asan clean

all: build

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/godu ./cmd/godu

build-purego:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/godu-purego ./cmd/godu

install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 bin/godu $(DESTDIR)$(PREFIX)/bin/godu

# The whole gate: formatting, vet for both variants and for darwin, C
# warnings, and the test suite under the race detector for both variants.
test: fmt-check vet cwarn race

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...
	$(GO) vet -tags purego ./...
	CGO_ENABLED=0 $(GO) vet ./...

# The C core must compile without a warning.
cwarn:
	$(CC) $(CFLAGS_CHECK) -fsyntax-only csrc/bulk_linux.c

race:
	$(GO) test -race -count=1 ./...
	$(GO) test -race -count=1 -tags purego ./...

unit:
	$(GO) test -count=1 ./...

gobench:
	$(GO) test -run '^$$' -bench . -benchmem ./internal/...

clean:
	rm -rf bin dist

BENCH_DIR ?= $(HOME)/.cache/godu-bench
BENCH_TREES ?= deep,wide,hardlinks,real

bin/floor: csrc/floor/floor.c
	@mkdir -p bin
	$(CC) -O2 -Wall -Wextra -pthread -o $@ $<

# Benchmarks: every tree, every tool, one hyperfine run each (needs
# hyperfine and /usr/bin/time; peers are measured when installed).
bench: build build-purego bin/floor
	@command -v hyperfine >/dev/null || { echo "make bench needs hyperfine (apt-get install hyperfine)"; exit 1; }
	@test -x /usr/bin/time || { echo "make bench needs /usr/bin/time (apt-get install time)"; exit 1; }
	$(GO) run ./cmd/godubench -dir $(BENCH_DIR) -godu bin/godu -purego bin/godu-purego -floor bin/floor -trees $(BENCH_TREES)
