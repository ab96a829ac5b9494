#!/usr/bin/env bash
# `make test`: start test instances of Neo4j and Redis on their own ports (unless NEO4J_URI /
# REDIS_URL are given), run the whole suite, and stop what this script started.
set -uo pipefail
cd "$(dirname "$0")/.."
source ops/services.sh

$BIN/pytest "$@"
rc=$?
if [ $rc -eq 5 ]; then echo "pytest collected no tests: failing" >&2; fi
exit $rc
