#!/usr/bin/env bash
# Installs kioku's build and test dependencies from Debian 12 packages.
# Idempotent: installs only what is missing. Works as root or through sudo.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git ca-certificates ccache
  libboost-dev libsqlite3-dev libsqlitecpp-dev nlohmann-json3-dev libyaml-cpp-dev
  libspdlog-dev libfmt-dev libcli11-dev libvalijson-dev libtomlplusplus-dev libicu-dev
  libgtest-dev libgmock-dev libbenchmark-dev libssl-dev libhnswlib-dev libjemalloc-dev
  nodejs npm
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node 20 may come from outside Debian (e.g. /usr/local); accept any node >= 20 with npm.
if command -v node >/dev/null && command -v npm >/dev/null; then
  missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}")
fi
read -r -a missing <<<"${missing[*]}"
[ ${#missing[@]} -eq 0 ] && { echo "install-deps: all packages present"; exit 0; }

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
echo "install-deps: installing ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
