#!/usr/bin/env bash
# Replays one file of chess encounters through `rate-batch replay --preset lichess` and
# through niklasf/liglicko2 (the Glicko-2 library Lichess rates with), built here outside the
# project, and prints the largest differences of every player's rating and deviation (after
# his last game, and as of the file's last time), and both programs' times. Exits 1 if a
# difference passes 1e-6.
#
#   scripts/liglicko2-compare.sh LIGLICKO2 ENCOUNTERS.csv
#   scripts/liglicko2-compare.sh LIGLICKO2 --generate N [--keep FILE]
#   (either with --ratings FILE: keep liglicko2's ratings, as tests/data has them)
#
# LIGLICKO2 is a git repository of niklasf/liglicko2 (a clone, or the bare mirror that
# `fetch github:niklasf/liglicko2` brings); LIGLICKO2_REV picks a commit (default HEAD).
# ENCOUNTERS.csv has liglicko2's research header `white,black,result,utc_date_time,
# time_control` (its research/sample-encounters.csv is one); --generate writes N random
# encounters among N/10 players in that form (times out of order as a server's log of
# finished games has them; --keep keeps the file). RATE_BATCH names the program (default:
# the release build under CARGO_TARGET_DIR or target/). The harness (scripts/liglicko2/
# main.rs) is compiled in a temporary folder beside the checkout, with its own target.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$1; shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
input=""; generate=0; keep=""; ratings=""
while [ $# -gt 0 ]; do
  case "$1" in
    --generate) generate=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --ratings) ratings=$2; shift 2 ;;
    *) input=$1; shift ;;
  esac
done
rb=${RATE_BATCH:-${CARGO_TARGET_DIR:-$here/../target}/release/rate-batch}
[ -x "$rb" ] || { echo "no rate-batch at $rb: cargo build --release, or set RATE_BATCH" >&2; exit 2; }

git clone -q "$src" "$work/liglicko2"
git -C "$work/liglicko2" checkout -q "${LIGLICKO2_REV:-HEAD}"
echo "liglicko2 $(git -C "$work/liglicko2" rev-parse --short HEAD)" >&2
mkdir -p "$work/harness/src"
cp "$here/liglicko2/main.rs" "$work/harness/src/main.rs"
cat > "$work/harness/Cargo.toml" <<TOML
[package]
name = "liglicko2-harness"
version = "0.0.0"
edition = "2021"
publish = false
[workspace]
[dependencies]
liglicko2 = { path = "../liglicko2" }
csv = "1"
chrono = { version = "0.4", default-features = false, features = ["alloc"] }
[profile.release]
codegen-units = 1
TOML
CARGO_TARGET_DIR="$work/target" cargo build --quiet --release \
  --manifest-path "$work/harness/Cargo.toml" >&2

if [ "$generate" -gt 0 ]; then
  input=${keep:-$work/encounters.csv}
  python3 - "$generate" "$input" <<'PY'
import math, random, sys
from datetime import datetime, timedelta, timezone
n, out = int(sys.argv[1]), sys.argv[2]
rng = random.Random(2026)
players = max(10, n // 10)
strength = [rng.gauss(0, 350) for _ in range(players)]
controls = ["15+0", "60+0", "120+1", "180+0", "180+2", "300+0", "300+3", "600+0",
            "600+5", "900+10", "1800+0", "-"]
clock = datetime(2024, 1, 1, tzinfo=timezone.utc).timestamp()
pending = []  # (end, line): a server's log lists games as they end
with open(out, "w") as f:
    f.write("white,black,result,utc_date_time,time_control\n")
    for k in range(n):
        clock += rng.expovariate(1 / 30)
        w = int(players * rng.random() ** 2)
        b = int(players * rng.random() ** 2)
        if w == b:
            b = (b + 1) % players
        tc = rng.choice(controls)
        p = 1 / (1 + 10 ** (-(strength[w] - strength[b]) / 400 - 0.02))
        u = rng.random()
        result = "1/2-1/2" if u < 0.07 else ("1-0" if u < 0.07 + 0.93 * p else "0-1")
        start = datetime.fromtimestamp(int(clock), timezone.utc)
        length = 0 if tc == "-" else rng.uniform(0, 2 * (int(tc.split("+")[0]) + 40 * int(tc.split("+")[1])))
        pending.append((clock + length, k, f"p{w},p{b},{result},{start:%Y-%m-%d %H:%M:%S},{tc}\n"))
        if len(pending) > 200 or k == n - 1:
            pending.sort()
            keep_back = pending[100:] if k < n - 1 else []
            for _, _, line in pending[: len(pending) - len(keep_back)]:
                f.write(line)
            pending = keep_back
PY
fi
[ -n "$input" ] || { echo "give an encounters file or --generate N" >&2; exit 2; }

timed() { /usr/bin/time -f "%e s wall, %U+%S s CPU, %M KiB" "$@"; }
echo "liglicko2:" >&2
timed "$work/target/release/liglicko2-harness" "$input" > "$work/liglicko2.csv"
[ -z "$ratings" ] || cp "$work/liglicko2.csv" "$ratings"
echo "rate-batch --preset lichess:" >&2
timed "$rb" replay "$input" --format games --map a=white,b=black,time=utc_date_time \
  --preset lichess --rank-all --quiet --out "$work/rb"
python3 - "$work/liglicko2.csv" "$work/rb" <<'PY'
import csv, sys
theirs = list(csv.DictReader(open(sys.argv[1])))
ours = {(r["player"], r["pool"]): r for r in csv.DictReader(open(sys.argv[2] + "/leaderboard.csv"))}
last = {}
for r in csv.DictReader(open(sys.argv[2] + "/history.csv")):
    last[(r["player"], r["pool"])] = r
worst = {"rating": 0.0, "deviation after the last game": 0.0, "deviation as of the end": 0.0}
for t in theirs:
    k = (t["player"], t["speed"])
    o, h = ours[k], last[k]
    for what, a, b in [("rating", o["rating"], t["rating"]),
                       ("deviation after the last game", h["uncertainty_after"], t["deviation"]),
                       ("deviation as of the end", o["uncertainty"], t["deviation_at_end"])]:
        worst[what] = max(worst[what], abs(float(a) - float(b)))
assert len(ours) == len(theirs), (len(ours), len(theirs))
print(f"{len(theirs)} (player, speed) ratings compared")
for what, d in worst.items():
    print(f"  largest difference of the {what}: {d:.3g}")
sys.exit(0 if max(worst.values()) <= 1e-6 else 1)
PY
