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
$BIN/python -m bench.protocols --scale "${PEER_SCALE:-0.05}"
$BIN/python -m bench.page_scale
$BIN/python -m bench.diff_scale
$BIN/python -m bench.inbox_scale
$BIN/python -m bench.ledger_overhead
$BIN/python -m bench.story_profile --scale "${PROFILE_SCALE:-0.1}"
$BIN/python -m bench.story_graph --scale "${STORY_SCALE:-0.1}"
$BIN/python -m bench.concern_scan
$BIN/python -m bench.signal_decide
$BIN/python -m bench.review_throughput
# what the offline review states on public conversations, against hand labels (precision, recall)
$BIN/python -m bench.review_precision
# the same labelled set through the leaf with a model endpoint: the prompt-grounded stand-in
# (proves the pipeline, not a model)
$BIN/python -m bench.review_precision --standin
# search: recall@10, MRR (cjk against standard; hybrid with the tests' embeddings
# stand-in unless EMBEDDING_BASE_URL is set), p50/p95 next to the floor at 0.1
# and, with SEARCH_FULL=1, at 1.0 (the 1.0 load takes hours here)
$BIN/python -m bench.search_quality --scale 0.1 --compare standard --embeddings standin
if [ "${SEARCH_FULL:-0}" = 1 ]; then $BIN/python -m bench.search_quality --scale 1.0; fi
# search on real conversations (MADial-Bench, English and Chinese): storygraph lexical, BM25,
# dense and hybrid with the local model (EMBEDDINGS=local; LOCAL_EMBEDDINGS_PORT), hit@1/5/10
# and evidence share; speed; recall with 100 other scopes
$BIN/python -m bench.search_conversations --embeddings "${SEARCH_EMBEDDINGS:-local}"
# the backfill of 10,000 conversation lines through the embed run, beside the model alone
$BIN/python -m bench.embed_backfill --lines "${BACKFILL_LINES:-10000}"
$BIN/python -m bench.graph_view
