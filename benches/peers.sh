#!/bin/sh
# rate-batch beside the programs written for one job, on the same files, in the same run:
#   - Elo on a million generated games: the naive replay (scripts/naive-replay: the csv crate,
#     a HashMap keyed by name, skillratings' Elo), `cat` the floor;
#   - one Bradley-Terry fit of a million arena battles among 130 models: evalica (Rust core,
#     the whole Python process), against bt's one fit (`--warmup 1 --history-format none`)
#     and its default replay (each battle predicted before it is counted);
#   - the default command on a million Lichess-style games as `.pgn.zst`: `zstd -dc` the floor;
#   - with LIGLICKO2 set (a git repository of niklasf/liglicko2: `fetch github:niklasf/liglicko2`
#     brings one): ENCOUNTERS (default 2,000,000) generated encounters, and the check that
#     `--preset lichess` gives liglicko2's ratings (scripts/liglicko2-compare.sh, before the
#     rounds); with LIGLICKO2_REPLAY set too (liglicko2's own `research` replay_encounters,
#     built by scripts/liglicko2-replay-build.sh), the preset against it in every round.
# The peers are built or installed under DIR, never in the project. Rounds are interleaved
# (ROUNDS, default 3); each line gives the minimum and the median of wall seconds, CPU seconds
# (user+sys) and peak resident MiB, from GNU time.
#
#   cargo build --release --locked
#   benches/peers.sh target/release/rate-batch /tmp/peers                 # about 5 minutes
#   LIGLICKO2=/path/to/liglicko2 LIGLICKO2_REPLAY=/path/to/replay_encounters \
#     ENCOUNTERS=10000000 benches/peers.sh ...                           # and the Glicko-2 peer
set -eu
BIN=$(realpath "${1:?usage: benches/peers.sh RATE_BATCH_BINARY DIR}")
DIR=${2:?usage: benches/peers.sh RATE_BATCH_BINARY DIR}
LAB=${LAB:-$(dirname "$BIN")/rate-batch-lab}
ROUNDS=${ROUNDS:-3}
HERE=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$DIR"
DIR=$(realpath "$DIR")
OUT="$DIR/out"
TIMES="$DIR/times.txt"
: > "$TIMES"

# The peers.
CARGO_TARGET_DIR="$DIR/naive-target" cargo build --quiet --release --locked \
    --manifest-path "$HERE/scripts/naive-replay/Cargo.toml"
NAIVE="$DIR/naive-target/release/naive-replay"
if [ ! -x "$DIR/venv/bin/python" ]; then
    python3 -m venv "$DIR/venv"
    "$DIR/venv/bin/pip" install --quiet evalica pandas
fi
cat > "$DIR/evalica_bt.py" <<'PY'
# One Bradley-Terry fit of a battles CSV (time,a,b,result) with evalica; the top ten printed.
import sys
import evalica
import pandas as pd
df = pd.read_csv(sys.argv[1], dtype={"a": str, "b": str, "result": str})
winner = df["result"].map({"1": evalica.Winner.X, "0": evalica.Winner.Y, "0.5": evalica.Winner.Draw})
fit = evalica.bradley_terry(df["a"], df["b"], winner)
print(fit.scores.sort_values(ascending=False).head(10).to_string())
PY

# The inputs, generated once.
[ -s "$DIR/pool1m.csv" ] || "$LAB" simulate pool --players 10000 --games 1000000 --out "$DIR/pool1m.csv" > /dev/null
[ -s "$DIR/p1m.pgn.zst" ] || "$LAB" simulate pool --players 10000 --games 1000000 --out "$DIR/p1m.pgn.zst" > /dev/null
[ -s "$DIR/arena1m.csv" ] || python3 - "$DIR/arena1m.csv" <<'PY'
# A million battles among 130 models (an LLM arena's shape): strengths on the Elo scale,
# pairs drawn at random, a tenth of the battles tied, one battle every 3 seconds.
import math, random, sys
rng = random.Random(35)
models = 130
strength = [rng.gauss(0, 150) for _ in range(models)]
with open(sys.argv[1], "w") as f:
    f.write("time,a,b,result\n")
    for k in range(1_000_000):
        a, b = rng.sample(range(models), 2)
        p = 1 / (1 + 10 ** (-(strength[a] - strength[b]) / 400))
        u = rng.random()
        r = "0.5" if u < 0.1 else ("1" if u < 0.1 + 0.9 * p else "0")
        t = 1_700_000_000 + 3 * k
        f.write(f"{t},model-{a:03},model-{b:03},{r}\n")
PY

mkdir -p "$DIR/liglicko2-reports"
if [ -n "${LIGLICKO2:-}" ] && [ ! -s "$DIR/encounters.csv" ]; then
    RATE_BATCH="$BIN" "$HERE/scripts/liglicko2-compare.sh" "$LIGLICKO2" --generate "${ENCOUNTERS:-2000000}" \
        --keep "$DIR/encounters.csv"
fi

# One measured command: label, then the command (its output discarded).
run() {
    label=$1
    shift
    /usr/bin/time -f "%e %U %S %M" -o "$DIR/.time" "$@" > /dev/null
    awk -v l="$label" '{ printf "%s\t%.3f\t%.3f\t%.1f\n", l, $1, $2 + $3, $4 / 1024 }' "$DIR/.time" >> "$TIMES"
}

i=0
while [ "$i" -lt "$ROUNDS" ]; do
    i=$((i + 1))
    run "pool1m.csv: cat (floor)" cat "$DIR/pool1m.csv"
    run "pool1m.csv: naive replay (peer)" "$NAIVE" "$DIR/pool1m.csv"
    run "pool1m.csv: elo --history-format none" "$BIN" replay "$DIR/pool1m.csv" --system elo --history-format none --quiet --out "$OUT"
    run "pool1m.csv: elo (history.csv written)" "$BIN" replay "$DIR/pool1m.csv" --system elo --quiet --out "$OUT"
    run "pool1m.csv: --dry-run" "$BIN" replay "$DIR/pool1m.csv" --dry-run --quiet --out "$OUT"
    run "arena1m.csv: cat (floor)" cat "$DIR/arena1m.csv"
    run "arena1m.csv: evalica bradley_terry (peer)" "$DIR/venv/bin/python" "$DIR/evalica_bt.py" "$DIR/arena1m.csv"
    run "arena1m.csv: bt, one fit (--warmup 1, no history)" "$BIN" replay "$DIR/arena1m.csv" --system bt --warmup 1 --history-format none --quiet --out "$OUT"
    run "arena1m.csv: bt (default: weekly refits)" "$BIN" replay "$DIR/arena1m.csv" --system bt --quiet --out "$OUT"
    run "p1m.pgn.zst: zstd -dc (floor)" zstd -dc "$DIR/p1m.pgn.zst"
    run "p1m.pgn.zst: elo (default command)" "$BIN" replay "$DIR/p1m.pgn.zst" --system elo --quiet --out "$OUT"
    if [ -n "${LIGLICKO2_REPLAY:-}" ] && [ -s "$DIR/encounters.csv" ]; then
        # (It writes its report files into the folder it runs in: DIR's own.)
        run "encounters: liglicko2 replay_encounters (peer)" sh -c 'cd "$3" && "$1" < "$2"' - "$LIGLICKO2_REPLAY" "$DIR/encounters.csv" "$DIR/liglicko2-reports"
        run "encounters: --preset lichess (default command)" "$BIN" replay "$DIR/encounters.csv" --format games \
            --map a=white,b=black,time=utc_date_time --preset lichess --quiet --out "$OUT"
        run "encounters: --preset lichess --history-format none" "$BIN" replay "$DIR/encounters.csv" --format games \
            --map a=white,b=black,time=utc_date_time --preset lichess --history-format none --quiet --out "$OUT"
    fi
done

awk -F '\t' '
    function sort(a, n,   i, j, t) {
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    }
    function med(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    !($1 in n) { order[++labels] = $1 }
    { k = ++n[$1]; w[$1, k] = $2; c[$1, k] = $3; m[$1, k] = $4 }
    END {
        printf "%-52s %17s %17s %15s\n", "command", "wall min/median", "CPU min/median", "MiB min/median"
        for (i = 1; i <= labels; i++) {
            l = order[i]; k = n[l]
            for (j = 1; j <= k; j++) { ww[j] = w[l, j]; cc[j] = c[l, j]; mm[j] = m[l, j] }
            sort(ww, k); sort(cc, k); sort(mm, k)
            printf "%-52s %7.2f / %7.2f %7.2f / %7.2f %6.0f / %6.0f\n", l, ww[1], med(ww, k), cc[1], med(cc, k), mm[1], med(mm, k)
        }
    }' "$TIMES"

rm -rf "$OUT" "$DIR/.time"
