#!/usr/bin/env python3
"""How often do rate-batch's 95 % intervals cover the truth? (issue 17's coverage figures)

For SEEDS leagues of PLAYERS players (`rate-batch-lab simulate league`: a double round robin with Davidson
ties from known strengths), each system is replayed with `--ci REPLICATES` and the reference
player (the league's first) anchored at its true rating (`--anchor`), so that each player's
bootstrap interval is the interval of its rating difference to the reference, shifted by the
reference's true rating. The coverage is the share of the other players whose interval holds
their true rating. Every player is ranked (`--rank-all`): the leaderboard gives intervals to
ranked players only, and in a small league the strongest and the weakest can still be
provisional by their uncertainty. For `bt` also the Hessian's intervals (the same run without `--ci`: the
standard deviation of each rating less the reference's, from the inverse Hessian).

Usage: scripts/coverage.py BINARY [SEEDS PLAYERS REPLICATES]

BINARY is rate-batch; the leagues come from the lab's program, rate-batch-lab, taken beside it
(the environment variable LAB names another).
"""
import csv
import math
import os
import subprocess
import sys
import tempfile

binary = sys.argv[1]
lab = os.environ.get("LAB") or os.path.join(os.path.dirname(binary), "rate-batch-lab")
seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 150
players = int(sys.argv[3]) if len(sys.argv) > 3 else 40
replicates = sys.argv[4] if len(sys.argv) > 4 else "200"
systems = {
    "bt": ["--system", "bt", "--param", "ties=davidson"],
    "elo": ["--system", "elo"],
    "glicko2": ["--system", "glicko2"],
}
hits = {k: [0, 0] for k in list(systems) + ["bt-hessian"]}
# Per league: every player's difference shares the reference's error, so the leagues, not the
# players, are the independent draws: the standard error is over them.
shares = {k: [] for k in hits}
work = tempfile.mkdtemp()
for seed in range(1, seeds + 1):
    games = os.path.join(work, f"l{seed}.csv")
    truth_file = os.path.join(work, f"t{seed}.csv")
    subprocess.run([lab, "simulate", "league", "--players", str(players), "--seed", str(seed),
                    "--out", games, "--truth", truth_file], check=True, capture_output=True)
    truth = {r["player"]: float(r["true_rating"]) for r in csv.DictReader(open(truth_file))}
    ref = next(iter(truth))
    for name, args in systems.items():
        out = os.path.join(work, f"{name}-{seed}")
        subprocess.run([binary, "replay", games, *args, "--ci", replicates, "--warmup", "0",
                        "--anchor", f"{ref}={truth[ref]}", "--history-format", "none",
                        "--rank-all", "--quiet", "--out", out], check=True)
        rows = list(csv.DictReader(open(os.path.join(out, "leaderboard.csv"))))
        before = list(hits[name])
        for r in rows:
            if r["player"] == ref:
                continue
            t = truth[r["player"]]
            hits[name][0] += float(r["rating_lo"]) <= t <= float(r["rating_hi"])
            hits[name][1] += 1
        shares[name].append((hits[name][0] - before[0]) / (hits[name][1] - before[1]))
        if name == "bt":
            subprocess.run([binary, "replay", games, *args, "--warmup", "0",
                            "--anchor", f"{ref}={truth[ref]}", "--history-format", "none",
                            "--rank-all", "--quiet", "--out", out], check=True)
            before = list(hits["bt-hessian"])
            for r in csv.DictReader(open(os.path.join(out, "leaderboard.csv"))):
                if r["player"] != ref:
                    t = truth[r["player"]]
                    hits["bt-hessian"][0] += float(r["rating_lo"]) <= t <= float(r["rating_hi"])
                    hits["bt-hessian"][1] += 1
            shares["bt-hessian"].append(
                (hits["bt-hessian"][0] - before[0]) / (hits["bt-hessian"][1] - before[1]))
print(f"{seeds} leagues of {players} players, {replicates} replicates, 95 % intervals")
for name, (h, n) in hits.items():
    p = h / n
    s = shares[name]
    m = sum(s) / len(s)
    se = math.sqrt(sum((x - m) ** 2 for x in s) / (len(s) - 1) / len(s))
    print(f"{name:<11} {100 * p:5.1f} % of {n} differences (standard error over the leagues "
          f"{100 * se:.1f})")
