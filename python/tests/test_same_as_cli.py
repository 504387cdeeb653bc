"""The Python package gives the program's numbers: replay, compare, tune and Rater on the
shared LoL, ice hockey and Codeforces files, each beside the ``rate-batch`` program run on the
same file (every output compared; only wall times left out)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import rate_batch

LOL = "lol-worlds-2021.csv"
HOCKEY = "icehockey-ncaa-2009-10.csv"


def untimed(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k != "wall_seconds"}


def cli_replay(cli, source, system, out: Path, *extra: str):
    cli(
        "replay", source, "--system", system, "--out", out, "--quiet",
        "--leaderboard-format", "parquet", "--history-format", "parquet", *extra,
    )
    return (
        pl.read_parquet(out / "leaderboard.parquet"),
        pl.read_parquet(out / "history.parquet"),
        json.loads((out / "metrics.json").read_text()),
    )


CASES = [
    (LOL, "trueskill", ["--period", "series"], {"period": "series", "draw_probability": 0}),
    (LOL, "elo", [], {}),
    (HOCKEY, "glicko2", [], {}),
    (HOCKEY, "elo", ["--param", "k=24", "--advantage", "auto"], {"k": 24, "advantage": "auto"}),
    # The winter break (9 days) as a season's end: the regression, the draw policy and the
    # margin multiplier as keyword arguments.
    (HOCKEY, "elo",
     ["--season-gap", "7", "--season-regress", "0.2", "--draws", "ignore",
      "--mov-multiplier", "538"],
     {"season_gap": 7, "season_regress": 0.2, "draws": "ignore", "mov_multiplier": "538"}),
    ("codeforces", "elo-mmr", [], {}),
    ("codeforces", "codeforces", [], {}),
]


@pytest.mark.parametrize("name,system,flags,kwargs", CASES)
def test_replay_equals_the_program(cli, shared, codeforces, tmp_path, name, system, flags, kwargs):
    source = codeforces if name == "codeforces" else shared / name
    flags = list(flags)
    if kwargs.get("draw_probability") == 0:
        flags += ["--param", "draw_probability=0"]
    board, history, metrics = cli_replay(cli, source, system, tmp_path / "cli", *flags)
    r = rate_batch.replay(str(source), system=system, **kwargs)
    assert r.leaderboard.equals(board)
    assert r.history.equals(history)
    assert untimed(r.metrics) == untimed(metrics)
    assert r.leaderboard.height > 10


def test_compare_equals_the_program(cli, shared, codeforces, tmp_path):
    for source, systems in [
        (shared / HOCKEY, ["elo", "glicko", "trueskill", "bt"]),
        (codeforces, ["elo-mmr", "topcoder", "codeforces"]),
    ]:
        out = tmp_path / source.name
        cli("compare", source, "--systems", ",".join(systems), "--out", out, "--quiet",
            "--leaderboard-format", "parquet", "--ci", "20")
        c = rate_batch.compare(str(source), systems, ci=20)
        timing = ["wall_seconds", "rounds_per_second", "peak_rounds_per_second"]
        expected = pl.read_csv(out / "compare.csv").drop(timing)
        assert c.table.drop(timing).equals(expected)
        assert sorted(c.leaderboards) == sorted(systems)
        for s in systems:
            assert c.leaderboards[s].equals(pl.read_parquet(out / s / "leaderboard.parquet"))
            cli_metrics = json.loads((out / s / "metrics.json").read_text())
            assert untimed(c.metrics[s]) == untimed(cli_metrics)


def test_tune_equals_the_program(cli, shared, codeforces, tmp_path):
    for source, system, grid in [
        (shared / LOL, "elo", {"k": [16, 24, 32, 48]}),
        (shared / HOCKEY, "glicko2", {"tau": [0.3, 0.6, 1.2], "start_rd": [200, 350]}),
        (codeforces, "elo-mmr", {"beta": [150, 200], "gamma": [60, 80]}),
    ]:
        out = tmp_path / source.name
        spec = ";".join(f"{k}={','.join(map(str, v))}" for k, v in grid.items())
        done = cli("tune", source, "--system", system, "--grid", spec, "--out", out)
        t = rate_batch.tune(str(source), system, grid)
        expected = pl.read_csv(out / "tune.csv")
        assert t.trials.equals(expected)
        assert set(t.best) == set(grid)
        # The program's summary names the tuned parameters as the best row has them.
        tuned = [l for l in done.stdout.splitlines() if "tuned parameters:" in l][0]
        for k, v in t.best.items():
            assert f"{k.replace('_', '-')}={v:g}" in tuned, (tuned, t.best)


def test_rater_equals_the_program_game_by_game(cli, shared, codeforces, tmp_path):
    # Two-player files: each game rated as it comes.
    lol = pl.read_csv(shared / LOL)
    hockey = pl.read_csv(shared / HOCKEY)
    games = {
        LOL: [(r["a"], r["b"], 1.0 if r["winner"] == r["a"] else 0.0) for r in lol.iter_rows(named=True)],
        HOCKEY: [
            (r["a"], r["b"], 1.0 if r["score_a"] > r["score_b"] else 0.5 if r["score_a"] == r["score_b"] else 0.0)
            for r in hockey.iter_rows(named=True)
        ],
    }
    for name, system in [(LOL, "elo"), (HOCKEY, "glicko2"), (HOCKEY, "trueskill")]:
        rater = rate_batch.Rater(system)
        for a, b, s in games[name]:
            rater.rate_game(a, b, s)
        # (A Rater knows no time: the program counts rounds as it does. Nor does it know the
        # input's draw rate, the program's TrueSkill draw margin: it keeps TrueSkill's 0.10.)
        draw = ["--param", "draw_probability=0.1"] if system == "trueskill" else []
        board, _, _ = cli_replay(
            cli, shared / name, system, tmp_path / f"{system}-{name}", "--growth", "rounds", *draw
        )
        mine = dict(zip(rater.leaderboard()["player"], rater.leaderboard()["rating"]))
        theirs = dict(zip(board["player"], board["rating"]))
        assert mine == theirs, system
    # Standings: each Codeforces contest rated as a ranking (a place range's first rank).
    rater = rate_batch.Rater("elo-mmr")
    for i in range(150):
        c = json.loads((codeforces / f"{i}.json").read_text())
        rater.rate_contest([(h, lo + 1) for h, lo, _ in c["standings"]])
    board, _, _ = cli_replay(cli, codeforces, "elo-mmr", tmp_path / "cf", "--growth", "rounds")
    mine = dict(zip(rater.leaderboard()["player"], rater.leaderboard()["rating"]))
    theirs = dict(zip(board["player"], board["rating"]))
    assert mine == theirs
    assert rater.predict("tourist", "nobody-at-all") > 0.99
