#!/usr/bin/env bash
# `make bench`: the benchmarks of bench/ against the project's own services (test ports).
# Each prints its figures and a ratio against a baseline measured in the same run.
# STORY_SCALE=1.0 runs the story graph benchmark at the issue's full size (hours here).
set -euo pipefail
cd "$(dirname "$0")/.."
source ops/services.sh

# the peer (@neo4j/graphql, pinned by bench/peer/package-lock.json) for bench.peer_compare
(cd bench/peer && npm ci --no-audit --no-fund --loglevel=error)
$BIN/python -m bench.peer_compare --scale "${PEER_SCALE:-0.05}"
$BIN/python -m bench.page_scale
$BIN/python -m bench.story_profile --scale "${PROFILE_SCALE:-0.1}"
$BIN/python -m bench.story_graph --scale "${STORY_SCALE:-0.1}"
$BIN/python -m bench.concern_scan
$BIN/python -m bench.review_throughput
$BIN/python -m bench.graph_view
