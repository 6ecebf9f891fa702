#!/usr/bin/env bash
# Builds examples/bookmarks against an INSTALLED kioku (SDK headers, library, CMake package)
# and loads it into the installed `kioku` through `plugins.dirs`, then calls its tools.
# Usage: scripts/example-plugin-smoke.sh PREFIX   (PREFIX from `cmake --install … --prefix`)
# Prints the seconds from find_package (configure) to the first tool answer.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s%N)
cmake -S examples/bookmarks -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/build" -j "${KIOKU_JOBS:-2}" >/dev/null
module_dir="$work/build/lib/kioku/plugins"
test -f "$module_dir/kioku-bookmarks.so"
cat > "$work/kioku.yaml" <<YAML
plugins:
  enabled: [bookmarks]
  dirs: [$module_dir]
bookmarks:
  default_tag: docs
YAML
kioku=("$prefix/bin/kioku" --config "$work/kioku.yaml")
export KIOKU_HOME="$work/home" KIOKU_PROJECT_ROOT="$work"
out=$("${kioku[@]}" call bookmark_add '{"url": "https://sqlite.org/wal.html", "title": "WAL mode"}')
end=$(date +%s%N)
grep -q '(docs)' <<<"$out" || { echo "bookmark_add did not use the configured default_tag: $out"; exit 1; }
list=$("${kioku[@]}" call bookmark_list '{}')
grep -q 'WAL mode <https://sqlite.org/wal.html>' <<<"$list" || { echo "bookmark_list: $list"; exit 1; }
"${kioku[@]}" tools | grep -q '^bookmark_add'
echo "example plugin: find_package → built → loaded → tool answered in $(( (end - start) / 1000000 )) ms"
