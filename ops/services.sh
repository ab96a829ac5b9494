#!/usr/bin/env bash
# Sourced by test.sh and bench.sh: start the project's own Neo4j and Redis on the test ports
# (unless NEO4J_URI / REDIS_URL are given) and stop, on exit, only what was started here.
BIN=.venv/bin
export NEO4J_BOLT_PORT="${TEST_NEO4J_BOLT_PORT:-7688}"
export NEO4J_HTTP_PORT="${TEST_NEO4J_HTTP_PORT:-7475}"
export REDIS_PORT="${TEST_REDIS_PORT:-6380}"
export LOG_LEVEL="${LOG_LEVEL:-WARNING}"

started=()
cleanup() {
  for svc in "${started[@]}"; do $BIN/storygraph "$svc" stop >/dev/null || true; done
}
trap cleanup EXIT

t0=$(date +%s)
if [ -z "${NEO4J_URI:-}" ] && ! $BIN/storygraph neo4j status >/dev/null 2>&1; then
  $BIN/storygraph neo4j start || exit 1
  started+=(neo4j)
fi
if [ -z "${REDIS_URL:-}" ] && ! $BIN/storygraph redis status >/dev/null 2>&1; then
  $BIN/storygraph redis start || exit 1
  started+=(redis)
fi
echo "services ready in $(( $(date +%s) - t0 )) s"
