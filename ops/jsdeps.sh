#!/usr/bin/env bash
# The protocols' own npm clients the e2e tests drive (tests/js: graphql-http's audit,
# graphql-sse's client), installed from package-lock.json when missing or out of date.
# Needs Node 20+ with npm; the npm registry is the only network used, and only here.
set -euo pipefail
cd "$(dirname "$0")/../tests/js"
if ! command -v npm >/dev/null 2>&1; then
  echo "storygraph: Node.js 20+ with npm is needed for the protocol tests (tests/js)." >&2
  exit 2
fi
stamp=node_modules/.installed-$(sha1sum package-lock.json | cut -c1-12)
[ -f "$stamp" ] && exit 0
npm ci --no-audit --no-fund --loglevel=error
touch "$stamp"
