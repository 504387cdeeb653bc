#!/usr/bin/env python3
"""An arena's battles in lmarena's published shape, and their Bradley-Terry fit by choix.

Generates battles among models of known strengths, written as lmarena publishes them (a
JSON array of objects: `model_a`, `model_b`, `winner` = model_a | model_b | tie |
tie (bothbad), `tstamp` in Unix seconds with a fraction, and metadata that is not read),
then fits them with the `choix` package's `opt_pairwise` (Newton-CG, maximum a posteriori):

  tests/data/arena-battles.json   the battles
  tests/data/arena-choix.csv      model,rating (Elo scale, 1500 + theta * 400 / ln 10)

rate-batch's `bt` counts a tie as half a win and half a loss and puts a normal prior of
sd `prior_sd` points (400: ln 10 in natural-log units) on each rating. choix takes only
wins, so each decisive battle is given to it twice and each tie once each way: its
objective is then twice rate-batch's log-likelihood less alpha * sum(theta^2), which is
twice rate-batch's log posterior when alpha = 1 / ln(10)^2.

Run: python3 -m venv v && v/bin/pip install choix==0.4.1 numpy scipy && v/bin/python scripts/arena_choix.py
"""
import json
import math
import os
import random

import choix

MODELS = 14
BATTLES = 2000
SEED = 20261129
START = 1_722_470_400.0  # 2024-08-01

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "tests", "data")
rng = random.Random(SEED)
names = [f"model-{chr(ord('a') + i)}-{rng.choice(['chat', 'instruct', 'preview'])}" for i in range(MODELS)]
theta = [rng.gauss(0.0, 0.8) for _ in range(MODELS)]
battles = []
t = START
for k in range(BATTLES):
    t += rng.expovariate(1 / 1500.0)
    i, j = rng.sample(range(MODELS), 2)
    d = theta[i] - theta[j]
    # Davidson's ties (nu = 0.8): about a quarter of the battles.
    nu = 0.8
    z = math.exp(d / 2) + math.exp(-d / 2) + nu
    u = rng.random() * z
    if u < math.exp(d / 2):
        winner = "model_a"
    elif u < math.exp(d / 2) + math.exp(-d / 2):
        winner = "model_b"
    else:
        winner = "tie" if rng.random() < 0.6 else "tie (bothbad)"
    battles.append({
        "model_a": names[i],
        "model_b": names[j],
        "winner": winner,
        "judge": f"arena_user_{rng.randrange(10**6):06d}",
        "turn": rng.choice([1, 1, 1, 2, 3]),
        "anony": True,
        "language": rng.choice(["English", "English", "Chinese", "German"]),
        "tstamp": round(t, 4),
        "conv_metadata": {"sum_user_tokens": rng.randrange(5, 400)},
        "is_code": rng.random() < 0.2,
        "dedup_tag": {"high_freq": False, "sampled": True},
    })

with open(os.path.join(out, "arena-battles.json"), "w") as f:
    # One battle per line, as an array.
    f.write("[\n" + ",\n".join(json.dumps(b) for b in battles) + "\n]\n")

index = {n: i for i, n in enumerate(names)}
data = []
for b in battles:
    i, j = index[b["model_a"]], index[b["model_b"]]
    if b["winner"] == "model_a":
        data += [(i, j), (i, j)]
    elif b["winner"] == "model_b":
        data += [(j, i), (j, i)]
    else:
        data += [(i, j), (j, i)]
params = choix.opt_pairwise(MODELS, data, alpha=1 / math.log(10) ** 2, method="Newton-CG", tol=1e-12)
scale = 400.0 / math.log(10.0)
with open(os.path.join(out, "arena-choix.csv"), "w") as f:
    f.write("model,rating\n")
    for i in sorted(range(MODELS), key=lambda i: -params[i]):
        f.write(f"{names[i]},{1500.0 + params[i] * scale:.10f}\n")
print("ties:", sum(b["winner"].startswith("tie") for b in battles), "of", BATTLES)
