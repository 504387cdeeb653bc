#!/usr/bin/env bash
# Builds liglicko2's own replay of encounters (`research/src/bin/replay_encounters.rs` of
# niklasf/liglicko2, the peer of `--preset lichess` in benches/peers.sh) in WORK, outside the
# project, and prints the binary's path. Its two git dependencies (niklasf's branches of
# compensated-summation and glicko2) are taken from the repositories given instead of the
# network: `fetch github:niklasf/liglicko2` (and the two others) brings each.
#
#   scripts/liglicko2-replay-build.sh LIGLICKO2 COMPENSATED_SUMMATION GLICKO2 WORK
#   LIGLICKO2_REPLAY=$(scripts/liglicko2-replay-build.sh ... /tmp/lig) benches/peers.sh ...
set -euo pipefail
lig=${1:?usage: liglicko2-replay-build.sh LIGLICKO2 COMPENSATED_SUMMATION GLICKO2 WORK}
sums=${2:?}
glicko2=${3:?}
work=${4:?}
mkdir -p "$work"
work=$(cd "$work" && pwd)
rm -rf "$work/liglicko2" "$work/compensated-summation" "$work/glicko2"
git clone -q "$lig" "$work/liglicko2"
git clone -q -b feat/default "$sums" "$work/compensated-summation"
git clone -q -b feat/convergence-error "$glicko2" "$work/glicko2"
research="$work/liglicko2/research"
sed -i \
  -e 's|^compensated-summation = {.*}|compensated-summation = { path = "../../compensated-summation" }|' \
  -e 's|^glicko2 = {.*}|glicko2 = { path = "../../glicko2" }|' \
  "$research/Cargo.toml"
echo "liglicko2 $(git -C "$work/liglicko2" rev-parse --short HEAD)" >&2
(cd "$research" && CARGO_TARGET_DIR="$work/target" cargo build --quiet --release --bin replay_encounters >&2)
echo "$work/target/release/replay_encounters"
