#!/usr/bin/env bash
# Runs the kioku end-to-end tests (official MCP TypeScript SDK client + raw JSON-RPC).
#   KIOKU_BIN                 the binary under test (default: build/release/bin/kioku)
#   KIOKU_FIXTURE_PLUGIN_DIR  directory with kioku-fixture.so (default: <build>/fixtures/plugins)
# Installs the pinned npm packages with `npm ci` when node_modules is missing or was installed
# from another package-lock.json, then runs `node --test` over *.e2e.test.mjs; exits non-zero
# on failure.
# Arguments: test files to run (default: all), other arguments go to `node --test`
# (e.g. --test-name-pattern=stdio).
set -euo pipefail
cd "$(dirname "$0")"

# node_modules/.kioku-lock.sha256 records the lockfile it was installed from.
stamp=node_modules/.kioku-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [[ ! -d node_modules || ! -f $stamp || "$(cat "$stamp")" != "$want" ]]; then
  echo "e2e: npm ci (installing the pinned MCP SDK)" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
  echo "$want" > "$stamp"
fi

files=()
options=()
for arg in "$@"; do
  if [[ $arg == *.mjs ]]; then files+=("$arg"); else options+=("$arg"); fi
done
(( ${#files[@]} )) || files=(./*.e2e.test.mjs)
# The spec reporter lists failed `todo` tests after its summary; repeat the summary last so
# the output ends with it.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
node --test --test-reporter=spec --test-concurrency=2 "${options[@]}" "${files[@]}" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
echo
grep -E '^ℹ (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) ' "$log" | tail -n 8
exit "$rc"
