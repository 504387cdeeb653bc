#!/usr/bin/env python3
"""Bradley-Terry by an independent implementation, for rate-batch's `bt` test.

Generates a history of two-player games (no ties) from known strengths, fits it with the
`choix` package's `opt_pairwise` (Newton-CG, maximum a posteriori under an isotropic normal
prior of variance 1/alpha on the natural-log strengths), and writes both:

  crates/core/tests/data/bt_choix_games.csv     time,a,b,result (result 1: a won)
  crates/core/tests/data/bt_choix_expected.csv  player,rating   (Elo scale)

The Elo scale: a rating x is 1500 + theta * 400 / ln 10. choix's penalty is
alpha * sum(theta^2) (its code; its docstring says "variance 1/alpha"), a normal prior of
variance 1 / (2 alpha): rate-batch's prior sd in points is 400 / ln 10 / sqrt(2 alpha),
388.4447935154893 for alpha = 0.1 (the test passes that).

Run: python3 -m venv v && v/bin/pip install choix==0.4.1 numpy scipy && v/bin/python scripts/bt_choix.py
"""
import math
import os
import random

import choix
import numpy as np

ALPHA = 0.1
PLAYERS = 40
GAMES = 600
SEED = 20261124

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "crates", "core", "tests", "data")
rng = random.Random(SEED)
theta = [rng.gauss(0.0, 1.0) for _ in range(PLAYERS)]
names = [f"p{i:02d}" for i in range(PLAYERS)]
games = []
for g in range(GAMES):
    a, b = rng.sample(range(PLAYERS - 1), 2)  # the last player plays once, below
    p = 1.0 / (1.0 + math.exp(theta[b] - theta[a]))
    games.append((a, b, 1 if rng.random() < p else 0))
# A player met once, who won: its maximum-likelihood strength is infinite, the prior keeps
# it finite.
games.append((PLAYERS - 1, 0, 1))

with open(os.path.join(out, "bt_choix_games.csv"), "w") as f:
    f.write("time,a,b,result\n")
    for k, (a, b, r) in enumerate(games):
        day = 1 + k // 100
        f.write(f"2024-01-{day:02d}T00:{k % 60:02d}:00Z,{names[a]},{names[b]},{r}\n")

data = [(a, b) if r == 1 else (b, a) for a, b, r in games]
params = choix.opt_pairwise(PLAYERS, data, alpha=ALPHA, method="Newton-CG", tol=1e-12)
scale = 400.0 / math.log(10.0)
with open(os.path.join(out, "bt_choix_expected.csv"), "w") as f:
    f.write("player,rating\n")
    for i in range(PLAYERS):
        f.write(f"{names[i]},{1500.0 + params[i] * scale:.10f}\n")
print("prior sd in points:", scale / math.sqrt(2 * ALPHA))
print("mean theta:", float(np.mean(params)))
