# rtype — see README.md. `make play` and `make test` are the two first commands.
GO        ?= go
BIN       ?= bin
FUZZTIME  ?= 10s
SOAK      ?= 5m
ADDR      ?= 127.0.0.1:4242
STAGE     ?= stage1
XVFB      ?= xvfb-run -a -s "-screen 0 1920x1080x24"
# The version every binary prints with -version (and the server exports as rtype_build_info).
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
BUILDFLAGS = -trimpath -ldflags "-X github.com/rtype/rtype/game/buildinfo.Version=$(VERSION)"

# Debian packages: client build (cgo: X11, GL, ALSA) and headless tests (Xvfb).
DEB_BUILD := gcc pkg-config libx11-dev libxrandr-dev libxcursor-dev libxinerama-dev libxi-dev libxxf86vm-dev libgl-dev libasound2-dev
DEB_TEST  := xvfb xauth libgl1-mesa-dri xdotool qemu-user postgresql
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Packages whose test binaries import ebiten: they need a display (run under Xvfb).
EBITEN_PKGS = $(shell $(GO) list -f '{{.ImportPath}} {{join .Deps " "}}' ./... | grep -E ' github.com/hajimehoshi/ebiten/v2( |$$)' | cut -d' ' -f1)
# Computation-only packages whose tests are 10-15x slower under the race detector and have no
# shared state to race on: the art generator (one goroutine) and the offline balance measurement
# (independent Sims, one per worker). They run without -race; everything else with it.
NORACE_PKGS = github.com/rtype/rtype/assets/gen/sprites github.com/rtype/rtype/game/balance
OTHER_PKGS  = $(filter-out $(EBITEN_PKGS) $(NORACE_PKGS),$(shell $(GO) list ./...))

.PHONY: all deps build server client bot load list play test vet test-go test-ebiten test-arm64 check-deps licenses bench capacity fuzz soak-churn dist clean

all: build

deps:
	@if command -v dpkg >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then \
	  missing=""; for p in $(DEB_BUILD) $(DEB_TEST); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	  if [ -n "$$missing" ]; then echo "installing:$$missing"; \
	    $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	  else echo "deps: all Debian packages present"; fi; \
	else echo "deps: not a Debian/Ubuntu system. The client needs a C compiler and OpenGL/X11 (Linux: X11, Xrandr, Xcursor, Xinerama, Xi, Xxf86vm, GL, ALSA dev headers); tests need Xvfb."; fi

build:
	$(GO) build $(BUILDFLAGS) -o $(BIN)/ ./cmd/...

server:
	CGO_ENABLED=0 $(GO) build $(BUILDFLAGS) -o $(BIN)/rtype-server ./cmd/rtype-server

client:
	$(GO) build $(BUILDFLAGS) -o $(BIN)/rtype-client ./cmd/rtype-client
	./$(BIN)/rtype-client -server $(ADDR)

bot:
	CGO_ENABLED=0 $(GO) build $(BUILDFLAGS) -o $(BIN)/rtype-bot ./cmd/rtype-bot

load:
	CGO_ENABLED=0 $(GO) build $(BUILDFLAGS) -o $(BIN)/rtype-load ./cmd/rtype-load

list:
	CGO_ENABLED=0 $(GO) build $(BUILDFLAGS) -o $(BIN)/rtype-list ./cmd/rtype-list

# play: a server on localhost in the background and one client; closing the client stops the server.
# The game instances (UDP) bind the same host as the lobby (loopback by default).
play: deps
	$(GO) build $(BUILDFLAGS) -o $(BIN)/ ./cmd/rtype-server ./cmd/rtype-client
	@h='$(ADDR)'; h=$${h%:*}; \
	./$(BIN)/rtype-server -addr $(ADDR) -udp-addr "$$h" -stage $(STAGE) & srv=$$!; \
	trap 'kill $$srv 2>/dev/null; wait $$srv 2>/dev/null' EXIT INT TERM; \
	sleep 0.5; kill -0 $$srv 2>/dev/null || { echo "make play: the server did not start (is $(ADDR) in use?)"; exit 1; }; \
	./$(BIN)/rtype-client -server $(ADDR)

vet:
	$(GO) vet ./...
	$(GO) vet -tags display ./game/client/...

check-deps:
	@if $(GO) list -deps ./cmd/rtype-server ./cmd/rtype-bot | grep -q hajimehoshi/ebiten; then \
	  echo "FAIL: rtype-server or rtype-bot depends on ebiten"; exit 1; fi
	CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/rtype-server
	CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/rtype-bot
	CGO_ENABLED=0 $(GO) build -o /dev/null ./cmd/rtype-list
	@echo "check-deps: server and bot build with CGO_ENABLED=0 and link no ebiten"
	@GO=$(GO) sh .ci/third-party.sh | cmp -s - docs/THIRD_PARTY.md || { echo "FAIL: docs/THIRD_PARTY.md is stale (the modules changed): run make licenses"; exit 1; }
	@echo "check-deps: docs/THIRD_PARTY.md lists every module the binaries link"

# docs/THIRD_PARTY.md: the modules compiled into the binaries, their licences and licence texts.
licenses:
	GO=$(GO) sh .ci/third-party.sh > docs/THIRD_PARTY.md

# The end-to-end tests play in real time (mostly waiting): run more of them at once than cores.
test-go:
	$(GO) test -race -parallel 6 -timeout 20m $(OTHER_PKGS)
	$(GO) test -timeout 20m $(NORACE_PKGS)

test-ebiten:
	@if [ -n "$(strip $(EBITEN_PKGS))" ]; then $(XVFB) $(GO) test -race -tags display $(EBITEN_PKGS); fi

# The golden replay on arm64 (cross-compiled, run under qemu-user): the simulation gives the same
# hashes on both architectures (docs/REPLAY.md).
test-arm64:
	CGO_ENABLED=0 GOARCH=arm64 $(GO) test -count=1 -exec qemu-aarch64 -run Golden ./game/replay

test: deps
	$(MAKE) vet check-deps test-go test-ebiten test-arm64

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime=1s $(OTHER_PKGS) $(NORACE_PKGS)
	cd ecs/arkbench && $(GO) test -run '^$$' -bench . -benchmem

# The server's CPU per datagram against the batched raw-UDP floor's, alternating runs of both at
# 100 and 300 four-player games (server pinned to core 0, load generator to core 1): a few
# minutes, prints the ratio and the absolute figures (.ci/capacity.sh: GAMES, ROUNDS, WINDOW...).
capacity: server load
	BIN=$(BIN) bash .ci/capacity.sh

# The hostile server's churn against the real bot and the real client (under its own Xvfb) for
# SOAK each, on loopback: their peak RSS stays within 100 MB of their baseline (issue 31;
# docs/BENCHMARKS.md, "Memory under a hostile server's churn"). Not part of make test.
soak-churn:
	RTYPE_CHURN_SOAK=$(SOAK) $(GO) test -count=1 -timeout 70m -run '^TestBotChurnSoak$$' -v ./net/bot
	RTYPE_CHURN_SOAK=$(SOAK) $(XVFB) $(GO) test -count=1 -timeout 70m -tags display -run '^TestRealClientChurnSoak$$' -v ./game/client

# Each fuzz target for FUZZTIME.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
	  for t in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/func //'); do \
	    echo "fuzz $$pkg $$t ($(FUZZTIME))"; $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) -parallel 1 $$pkg; \
	  done; done

# Release archives per OS/arch with SHA256SUMS (.ci/dist.sh says what it cannot build here).
dist:
	GO=$(GO) VERSION=$(VERSION) sh .ci/dist.sh

clean:
	rm -rf $(BIN) dist
