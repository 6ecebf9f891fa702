#!/usr/bin/env bash
# Installs missing Debian packages, builds kioku (release) and starts the server on its
# embedded default config (database under ~/.kioku, or $KIOKU_HOME).
# Usage: scripts/serve.sh [serve options]   e.g. scripts/serve.sh --http 127.0.0.1:7077
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/install-deps.sh" >&2
cd "$root"
cmake --preset release >/dev/null
cmake --build "$root/build/release" -j "$(nproc)" --target kioku >&2
exec "$root/build/release/bin/kioku" serve "$@"
