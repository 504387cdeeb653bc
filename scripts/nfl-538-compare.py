#!/usr/bin/env python3
"""rate-batch's NFL forecasts beside FiveThirtyEight's published ones.

    rate-batch replay nfl_games.csv ... --warmup 0 --predictions --out OUT   # the README's recipe
    python3 scripts/nfl-538-compare.py nfl_games.csv OUT/predictions.csv

Prints the two-sided log-loss and Brier score of the file's `elo_prob1` and of rate-batch's
`p_a` over the games both forecast (matched in order, teams checked), and how far the two
forecasts are apart: at most, up to the first game where they part by more than 1e-3 (the
first of the hand-set reversions in FiveThirtyEight's forecast.py), and on average.
"""

import csv
import math
import sys


def main(games_path, predictions_path):
    games = [g for g in csv.DictReader(open(games_path)) if g["score1"] != ""]
    preds = list(csv.DictReader(open(predictions_path)))
    if len(games) != len(preds):
        sys.exit(f"{len(games)} played games, {len(preds)} predictions")
    pairs = []
    for g, p in zip(games, preds):
        if (g["team1"], g["team2"]) != (p["a"], p["b"]):
            sys.exit(f"game {g['date']} {g['team1']}-{g['team2']} is {p['a']}-{p['b']} there")
        pairs.append((float(g["result1"]), float(g["elo_prob1"]), float(p["p_a"])))

    def scores(k):
        ll = sum(-(y * math.log(q[k]) + (1 - y) * math.log(1 - q[k])) for y, *q in pairs)
        brier = sum((y - q[k]) ** 2 for y, *q in pairs)
        return ll / len(pairs), brier / len(pairs)

    gaps = [abs(a - b) for _, a, b in pairs]
    parted = next((i for i, d in enumerate(gaps) if d > 1e-3), len(gaps))
    print(f"{len(pairs)} games")
    print("elo_prob1   log-loss %.4f  Brier %.4f" % scores(0))
    print("rate-batch  log-loss %.4f  Brier %.4f" % scores(1))
    print(f"largest difference before game {parted + 1}: {max(gaps[:parted], default=0):.1e}")
    print(f"mean absolute difference: {sum(gaps) / len(gaps):.4f}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
