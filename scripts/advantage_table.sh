#!/usr/bin/env bash
# Each two-sided system without and with `--advantage auto`, two- and three-outcome
# log-loss, on the international football results, the shared ice hockey season and the
# shared TCEC games (the issue's table). Usage:
#   scripts/advantage_table.sh FOOTBALL_RESULTS.csv [SHARED_DATASETS_DIR]
# FOOTBALL_RESULTS.csv is martj42/international_results' results.csv as published.
set -euo pipefail
football=$1
shared=${2:-../shared/datasets}
bin=${RATE_BATCH:-rate-batch}
systems=elo,elo-gaussian,glicko,glicko2,trueskill,yuksel,bt
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { # name input args...
  local name=$1 input=$2
  shift 2
  "$bin" compare "$input" --systems "$systems" --out "$out/$name-none" --quiet "$@" || true
  "$bin" compare "$input" --systems "$systems" --out "$out/$name-auto" --quiet --advantage auto "$@" || true
  python3 - "$out/$name-none/compare.csv" "$out/$name-auto/compare.csv" "$name" <<'PY'
import csv, sys
none = {r["system"]: r for r in csv.DictReader(open(sys.argv[1]))}
auto = {r["system"]: r for r in csv.DictReader(open(sys.argv[2]))}
f = lambda v: f"{float(v):.4f}" if v else "-"
print(f"\n{sys.argv[3]}\n")
print("| system | log-loss | log-loss 3 | log-loss, advantage | log-loss 3, advantage |")
print("|---|---|---|---|---|")
for s in none:
    a, b = none[s], auto.get(s, {})
    print(f"| {s} | {f(a['log_loss'])} | {f(a['log_loss_3'])} | {f(b.get('log_loss'))} | {f(b.get('log_loss_3'))} |")
PY
}
run football "$football" --format games \
  --map a=home_team,b=away_team,score_a=home_score,score_b=away_score,time=date
run "ice hockey" "$shared/icehockey-ncaa-2009-10.csv"
run TCEC "$shared/tcec/tcec_headers.pgn" --skip-invalid
