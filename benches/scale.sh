#!/bin/sh
# Whole-process benchmarks at scale, each beside its physical floor measured in the same run:
#   the million-game CSV (dry run, Elo without and with history.csv), streamed and read whole;
#   SCALE=large adds a 100-million-game CSV among a million players (about 5 GB) replayed with
#   Elo and Glicko-2 by week, and a Lichess-like 10-million-game PGN with move text, zstd.
# Inputs are generated (never committed) into DIR. Figures: wall seconds, CPU seconds
# (user+sys) and peak resident memory, from GNU time. The inputs are written by the lab's
# program, `rate-batch-lab simulate pool`, taken beside RATE_BATCH_BINARY (LAB=path to name
# another).
#
#   cargo build --release        # both programs: rate-batch and rate-batch-lab beside it
#   benches/scale.sh target/release/rate-batch /tmp/rb-bench            # about a minute
#   SCALE=large benches/scale.sh target/release/rate-batch /data/bench  # about 15 minutes and 10 GB of inputs
set -eu
BIN=${1:?usage: benches/scale.sh RATE_BATCH_BINARY DIR}
DIR=${2:?usage: benches/scale.sh RATE_BATCH_BINARY DIR}
LAB=${LAB:-$(dirname "$BIN")/rate-batch-lab}
SCALE=${SCALE:-small}
mkdir -p "$DIR"
OUT="$DIR/out"

# One measured command: label, then the command. Prints label, wall, cpu, peak MiB.
run() {
    label=$1
    shift
    /usr/bin/time -f "%e %U %S %M" -o "$DIR/.time" "$@" > /dev/null
    awk -v l="$label" '{ printf "%-58s %8.2f s %8.2f CPU s %7.0f MiB\n", l, $1, $2 + $3, $4 / 1024 }' "$DIR/.time"
}

gen() { # file, then the simulate arguments
    file=$1
    shift
    [ -s "$file" ] || "$LAB" simulate pool "$@" --out "$file" > /dev/null
}

P1M="$DIR/pool1m.csv"
gen "$P1M" --players 10000 --games 1000000
cat "$P1M" > /dev/null
run "cat pool1m.csv (floor)" cat "$P1M"
run "pool1m: replay --dry-run" "$BIN" replay "$P1M" --dry-run --out "$OUT"
run "pool1m: elo, --history-format none" "$BIN" replay "$P1M" --system elo --history-format none --out "$OUT" --quiet
run "pool1m: elo, history.csv" "$BIN" replay "$P1M" --system elo --out "$OUT" --quiet
run "pool1m: elo, --history-format none, --stream on" "$BIN" replay "$P1M" --system elo --history-format none --stream on --out "$OUT" --quiet
run "pool1m: elo, history.csv, --stream on" "$BIN" replay "$P1M" --system elo --stream on --out "$OUT" --quiet

if [ "$SCALE" = large ]; then
    P100M="$DIR/pool100m.csv"
    gen "$P100M" --players 1000000 --games 100000000
    cat "$P100M" > /dev/null
    run "cat pool100m.csv (floor)" cat "$P100M"
    run "pool100m: elo, --history-format none (streamed)" "$BIN" replay "$P100M" --system elo --history-format none --out "$OUT" --quiet
    run "pool100m: glicko2 --period week, none (streamed)" "$BIN" replay "$P100M" --system glicko2 --period week --history-format none --out "$OUT" --quiet
    PGN="$DIR/pool10m.pgn.zst"
    [ -s "$PGN" ] || "$LAB" simulate pool --players 100000 --games 10000000 --out "$PGN" > /dev/null
    run "zstd -dc pool10m.pgn.zst (floor)" zstd -dc "$PGN"
    run "pool10m.pgn.zst: elo, none (streamed)" "$BIN" replay "$PGN" --system elo --history-format none --stream on --out "$OUT" --quiet
fi
rm -rf "$OUT" "$DIR/.time"
