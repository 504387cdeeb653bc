#!/bin/sh
# Cost per placing against contest size: `rate-batch-lab simulate crowd` histories of three
# contests of N entrants (N = 10^3 ... 10^6, the same players in each), replayed by each system
# with --history-format none. Prints, per system and size: wall seconds and CPU seconds (user+sys)
# of the whole process from GNU time, the replay's own wall seconds (metrics.json), and
# microseconds per placing of each. Inputs are generated into DIR (about 200 MB at 10^6).
#
#   cargo build --release        # both programs: rate-batch and rate-batch-lab beside it
#   benches/crowd.sh target/release/rate-batch /tmp/crowd                  # every size
#   SIZES="1000 10000" SYSTEMS="elo-mmr codeforces" benches/crowd.sh ...   # a subset
#
# The lab's program is taken beside RATE_BATCH_BINARY (LAB=path/to/rate-batch-lab to name
# another). BAR with normalise=false (not run here) would sum every pair.
set -eu
BIN=${1:?usage: benches/crowd.sh RATE_BATCH_BINARY DIR}
DIR=${2:?usage: benches/crowd.sh RATE_BATCH_BINARY DIR}
LAB=${LAB:-$(dirname "$BIN")/rate-batch-lab}
SIZES=${SIZES:-1000 10000 100000 1000000}
SYSTEMS=${SYSTEMS:-elo-mmr elo-mmx codeforces trueskill elo yuksel glicko pairwise-glicko topcoder elo-gaussian bar}
mkdir -p "$DIR"
printf '%-16s %9s %9s %9s %9s %12s %12s\n' system entrants wall_s cpu_s replay_s us/placing cpu_us/placing
for n in $SIZES; do
    f="$DIR/crowd$n.csv"
    [ -s "$f" ] || "$LAB" simulate crowd --players "$n" --group "$n" --out "$f" > /dev/null
    cat "$f" > /dev/null
    /usr/bin/time -f "%e" -o "$DIR/.time" cat "$f" > /dev/null
    printf '%-16s %9d %9.2f   (floor: the file in the page cache)\n' cat "$n" "$(cat "$DIR/.time")"
    for s in $SYSTEMS; do
        out="$DIR/out-$s-$n"
        /usr/bin/time -f "%e %U %S" -o "$DIR/.time" \
            "$BIN" replay "$f" --system "$s" --history-format none --out "$out" --quiet
        replay=$(sed -n 's/.*"replay": *\([0-9.e-]*\).*/\1/p' "$out/metrics.json" | head -1)
        awk -v s="$s" -v n="$n" -v r="$replay" '{
            p = 3 * n
            printf "%-16s %9d %9.2f %9.2f %9.3f %12.2f %12.2f\n", s, n, $1, $2 + $3, r, r / p * 1e6, ($2 + $3) / p * 1e6
        }' "$DIR/.time"
        rm -rf "$out"
    done
done
rm -f "$DIR/.time"
