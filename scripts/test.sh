#!/usr/bin/env bash
# Builds kioku and runs every test: unit tests and end-to-end tests (official MCP
# TypeScript SDK client against the real binary) in a release build with -Werror, then the
# unit tests again under ASan+UBSan. Installs missing Debian packages first.
# Usage: scripts/test.sh            (KIOKU_SKIP_ASAN=1 skips the sanitizer pass)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${KIOKU_JOBS:-$(nproc)}
# ccache hits across clones in other folders (CI builds a fresh clone).
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1

bash scripts/install-deps.sh

echo "== release build (-Werror)"
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$jobs"

echo "== unit tests"
ctest --preset ci -L unit -j "$jobs"

echo "== end-to-end tests"
ctest --preset ci -L e2e

echo "== install smoke test"
prefix=$(mktemp -d)
cmake --install build/ci --prefix "$prefix" >/dev/null
KIOKU_HOME="$prefix/home" "$prefix/bin/kioku" doctor
echo "== out-of-tree plugin against the installed SDK"
bash scripts/example-plugin-smoke.sh "$prefix"
rm -rf "$prefix"

if [ "${KIOKU_SKIP_ASAN:-0}" != 1 ]; then
  echo "== ASan+UBSan build and unit tests"
  cmake --preset asan >/dev/null
  cmake --build --preset asan -j "$jobs"
  ctest --preset asan -L unit -j "$jobs"
fi
