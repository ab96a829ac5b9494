#!/usr/bin/env bash
# `make test`: start test instances of Neo4j and Redis on their own ports (unless NEO4J_URI /
# REDIS_URL are given), run the whole suite, and stop what this script started.
#
# The whole suite runs in TEST_WORKERS pytest processes (default 2), each test file whole in
# one of them and each process on a Neo4j and a Redis of its own (tests/conftest.py). Chosen
# tests (arguments given), or services given by URL, run in one process unless TEST_WORKERS
# says otherwise; services given by URL are never shared between processes.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ -n "${NEO4J_URI:-}${REDIS_URL:-}" ]; then
  STACKS=1
elif [ $# -eq 0 ]; then
  STACKS="${TEST_WORKERS:-2}"
else
  STACKS="${TEST_WORKERS:-1}"
fi
source ops/services.sh

parallel=()
if [ "$STACKS" -gt 1 ]; then parallel=(-n "$STACKS" --dist loadfile); fi
$BIN/pytest "${parallel[@]}" "$@"
rc=$?
if [ $rc -eq 5 ]; then echo "pytest collected no tests: failing" >&2; fi
exit $rc
