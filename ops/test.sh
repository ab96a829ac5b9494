#!/usr/bin/env bash
# `make test`: start test instances of Neo4j and Redis on their own ports (unless NEO4J_URI /
# REDIS_URL are given), run the whole suite, and stop what this script started.
#
# TEST_WORKERS=N runs the suite in N pytest processes (default 1), each test file whole in one
# of them and each process on a Neo4j and a Redis of its own (tests/conftest.py); services
# given by URL are never shared between processes, so such a suite runs in one.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ -n "${NEO4J_URI:-}${REDIS_URL:-}" ]; then
  STACKS=1
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
