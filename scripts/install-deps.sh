#!/usr/bin/env bash
# Installs the Debian 12 packages Veil needs to build, test and benchmark,
# if any is missing. Everything comes from Debian's archive; nothing else is
# downloaded.
set -euo pipefail

packages=(
  # build
  g++ make cmake pkg-config
  # runtime libraries
  libcaf-dev libssl-dev libeigen3-dev libsodium-dev zlib1g-dev libgmp-dev
  nlohmann-json3-dev libcli11-dev libtoml11-dev libspdlog-dev libfmt-dev
  libedit-dev
  # tests and benchmarks: Boost.Test, Google Benchmark, and XGBoost as the
  # reference Veil is compared against (never linked into Veil)
  libboost-test-dev libbenchmark-dev python3 python3-numpy python3-xgboost
  # veil compare's plots (run as a program, never linked)
  gnuplot-nox
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "veil: installing missing Debian packages: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "veil: not root; run this first, then make again:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
