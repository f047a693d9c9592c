# Everyday targets. `make test` is the command README and .ci/run use.
GO ?= go
PKGS := ./...
FUZZTIME ?= 20s

.PHONY: test lint bench fuzz golden build

# -buildvcs=auto records the commit and its date (pyramid version) in a
# checkout, whatever GOFLAGS says.
build:
	CGO_ENABLED=0 $(GO) build -buildvcs=auto -o bin/pyramid ./cmd/pyramid

# test runs every test with the race detector, which needs a C compiler;
# without one it runs them all the same, without the detector, and says so.
# The end-to-end tests of cmd/pyramid take most of the time, close to go
# test's default 10-minute timeout on a loaded 2-core machine: hence 30m.
test:
	@cc=$$($(GO) env CC); \
	if command -v "$${cc%% *}" >/dev/null 2>&1; then \
	  echo "CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 30m $(PKGS)"; \
	  CGO_ENABLED=1 $(GO) test -race -count=1 -timeout 30m $(PKGS); \
	else \
	  echo "make test: no C compiler ($$cc), so no race detector; install gcc for it"; \
	  echo "CGO_ENABLED=0 $(GO) test -count=1 -timeout 30m $(PKGS)"; \
	  CGO_ENABLED=0 $(GO) test -count=1 -timeout 30m $(PKGS); \
	fi

lint:
	@test -z "$$(gofmt -l .)" || (echo "gofmt needed:"; gofmt -l .; exit 1)
	$(GO) vet $(PKGS)
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 $(PKGS)
	$(GO) mod tidy -diff
	@v=$$($(GO) list -m -f '{{.Version}}' golang.org/x/crypto); \
	  printf '%s\n%s\n' v0.59.0 $$v | sort -C -V || (echo "golang.org/x/crypto $$v is older than v0.59.0"; exit 1)

bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

fuzz:
	@for pkg in $$($(GO) list $(PKGS)); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

golden:
	$(GO) test -count=1 ./engine/ -args -update
	$(GO) test -count=1 ./tui/ -args -update

.PHONY: crash
# crash: SIGKILL the real server mid-game, 40 times per database (PostgreSQL
# too when PYRAMID_TEST_DATABASE_URL is set); more: CRASHFLAGS='-crash.kills=200 -crash.seed=N'
crash:
	$(GO) test -count=1 -run '^TestCrashSafety$$' -v ./cmd/pyramid/ $(CRASHFLAGS)

.PHONY: solver-long bench-solver solver-counts
# solver-long: all 1,500 published deals (verdicts and shortest lengths),
# the six published win rates, 200 double deals and the long brute-force
# checks of both searches, duplicate-card symmetry included (about 10
# minutes on the shared box).
solver-long:
	$(GO) test -count=1 -timeout 60m -run 'TestSolve(MSCAll|WinRates|Double|BruteForce|OptimalMSCAll|OptimalBruteForce|SymmetryBruteForce|OptimalSymmetryBruteForce)$$|Test(CanonEquivalent|StockKingDominates)$$' ./engine/ -args -solver.long
# bench-solver: the plain solve and the shortest lines of the 1,500
# published deals, and the double deals.
bench-solver:
	$(GO) test -run '^$$' -bench 'Solve(MSC|OptimalMSC|Double)$$' -benchtime 1x -timeout 30m ./engine/
# solver-counts: the shortest-line search's figures that do not depend on
# the box's load: positions stored and expanded per published deal and the
# allocations (one line a deal in $(TMPDIR)/solver-counts.tsv), and the
# share of double deals 0-199 whose par is proven within the arcade's par
# budget (1,048,576 positions, 20 s).
TMPDIR ?= /tmp
solver-counts:
	$(GO) test -count=1 -timeout 60m -run '^(TestOptimalStats|TestDoublePar)$$' -v ./engine/ -args -solver.optstats=$(TMPDIR)/solver-counts.tsv -solver.doublepar=200

.PHONY: cluster
# cluster: the documented cluster on loopback: one PostgreSQL (the test
# suite's when PYRAMID_TEST_DATABASE_URL is set, else a throwaway one; a
# fresh database either way), two instances with one host key behind a
# real HAProxy (apt-get installs it when missing): PROXY v2, per-address
# limits on the client's address, /healthz checks, untrusted PROXY headers
# refused; races across the instances (tools/clusterrace) through a kill -9
# of one: a racer moving between them, a race whose racers' instance died
# stored void.
cluster:
	bash deploy/cluster-test.sh
