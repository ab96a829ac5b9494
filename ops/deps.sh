#!/usr/bin/env bash
# System packages storygraph needs on a fresh Debian machine: Java 17 and Maven (for the local
# Neo4j), redis-server and redis-sentinel. Installs only what is missing; needs root (or sudo) to install.
set -euo pipefail

missing=()
if [ -z "${NEO4J_URI:-}" ] || [ -z "${REDIS_URL:-}" ]; then
  command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
  command -v mvn >/dev/null 2>&1 || missing+=(maven)
  command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ] || missing+=(redis-server)
  # Sentinel for `storygraph up --redis-ha` and the failover tests (docs/operations-redis.md)
  command -v redis-sentinel >/dev/null 2>&1 || [ -x /usr/bin/redis-sentinel ] || missing+=(redis-sentinel)
fi
# `ops/deps.sh browser` (make test): Debian's Chromium for the page tests (Playwright drives it;
# Playwright's own browser download is not used), and a CJK font so the pages' Chinese text
# renders in screenshots instead of empty boxes.
if [ "${1:-}" = "browser" ]; then
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  dpkg-query -W -f='${Status}' fonts-noto-cjk 2>/dev/null | grep -q "install ok installed" \
    || missing+=(fonts-noto-cjk)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing system packages: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; else
    echo "storygraph: ${missing[*]} missing and not root: install them, or set NEO4J_URI and REDIS_URL." >&2
    exit 2
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# Debian starts a system redis on 6379 (and a sentinel on 26379) after installing; the project
# runs its own.
for unit in redis-server redis-sentinel; do
  if command -v systemctl >/dev/null 2>&1; then $SUDO systemctl disable --now "$unit" >/dev/null 2>&1 || true; fi
  if command -v service >/dev/null 2>&1; then $SUDO service "$unit" stop >/dev/null 2>&1 || true; fi
done
