#!/usr/bin/env bash
# Sourced by test.sh and bench.sh: start the project's own Neo4j and Redis on the test ports
# (unless NEO4J_URI / REDIS_URL are given) and stop, on exit, only what was started here.
# STACKS=N starts N such pairs side by side, the k-th (from 0) on each port + 1000 x k: one per
# pytest worker (tests/conftest.py moves a worker's ports the same way).
BIN=.venv/bin
export NEO4J_BOLT_PORT="${TEST_NEO4J_BOLT_PORT:-7688}"
export NEO4J_HTTP_PORT="${TEST_NEO4J_HTTP_PORT:-7475}"
export REDIS_PORT="${TEST_REDIS_PORT:-6380}"
export LOG_LEVEL="${LOG_LEVEL:-WARNING}"
STACKS="${STACKS:-1}"

started_list=$(mktemp)
cleanup() {
  while read -r k svc; do
    stack_env "$k" $BIN/storygraph "$svc" stop >/dev/null || true
  done <"$started_list"
  rm -f "$started_list"
}
trap cleanup EXIT

stack_env() {  # run "$@" with the ports of stack $1
  local off=$(( $1 * 1000 ))
  shift
  NEO4J_BOLT_PORT=$(( NEO4J_BOLT_PORT + off )) NEO4J_HTTP_PORT=$(( NEO4J_HTTP_PORT + off )) \
    REDIS_PORT=$(( REDIS_PORT + off )) "$@"
}

start_stack() {  # start what stack $1 lacks; a line "k service" for each started
  local k=$1
  if [ -z "${NEO4J_URI:-}" ] && ! stack_env "$k" $BIN/storygraph neo4j status >/dev/null 2>&1; then
    stack_env "$k" $BIN/storygraph neo4j start || return 1
    echo "$k neo4j" >>"$started_list"
  fi
  if [ -z "${REDIS_URL:-}" ] && ! stack_env "$k" $BIN/storygraph redis status >/dev/null 2>&1; then
    stack_env "$k" $BIN/storygraph redis start || return 1
    echo "$k redis" >>"$started_list"
  fi
}

t0=$(date +%s)
# the first alone: it fetches the server's jars and writes the shared password on a fresh clone
start_stack 0 || exit 1
pids=()
for (( k = 1; k < STACKS; k++ )); do
  start_stack "$k" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || exit 1; done
echo "services ready in $(( $(date +%s) - t0 )) s ($STACKS stack(s))"
