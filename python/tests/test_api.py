"""The package's own promises: DataFrames in, errors with their place, the state through
pickle, the Rater's answers by hand."""

from __future__ import annotations

import math
import pickle
from pathlib import Path

import polars as pl
import pytest

import rate_batch

REPO = Path(__file__).resolve().parents[2]
LEAGUE = REPO / "datasets" / "chess-league.csv"


def test_a_dataframe_is_the_same_data_as_its_csv():
    whole = rate_batch.replay(str(LEAGUE), system="glicko2")
    as_text = pl.read_csv(LEAGUE)
    with_times = pl.read_csv(LEAGUE, try_parse_dates=True)
    assert with_times.schema["time"] == pl.Datetime("us", "UTC")
    for frame in (as_text, with_times, with_times.to_pandas()):
        r = rate_batch.replay(frame, system="glicko2")
        assert r.leaderboard.equals(whole.leaderboard)
        assert r.history.equals(whole.history)
        assert r.metrics["metrics"] == whole.metrics["metrics"]
    # Columns renamed, told through map (and format="games", as for a file).
    renamed = with_times.rename({"a": "home", "b": "away", "time": "date"})
    r = rate_batch.replay(renamed, system="glicko2", format="games",
                          map={"a": "home", "b": "away", "time": "date"})
    assert r.leaderboard.equals(whole.leaderboard)
    with pytest.raises(rate_batch.UsageError):
        rate_batch.replay(renamed, format="pgn")


def test_a_bad_row_raises_with_its_place(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("time,a,b,result\n2024-01-01,x,y,1\n2024-01-02,x,y,banana\n")
    with pytest.raises(rate_batch.InputError) as e:
        rate_batch.replay(str(bad))
    assert (e.value.file, e.value.where, e.value.line, e.value.field) == (
        str(bad), "line", 3, "result")
    assert e.value.exit_code == 1 and "banana" in str(e.value)
    assert isinstance(e.value, ValueError)
    # A DataFrame's row, counted from 1 as a Parquet file's rows are.
    frame = pl.DataFrame({"time": ["2024-01-01", "2024-01-02"], "a": ["x", "x"],
                          "b": ["y", "y"], "result": ["1", "banana"]})
    with pytest.raises(rate_batch.InputError) as e:
        rate_batch.replay(frame)
    assert (e.value.where, e.value.line, e.value.field) == ("row", 2, "result")
    assert e.value.file == "<DataFrame>" and "<DataFrame>, row 2" in str(e.value)
    with pytest.raises(rate_batch.UsageError) as u:
        rate_batch.replay(str(LEAGUE), system="no-such-system")
    assert u.value.exit_code == 2
    with pytest.raises(rate_batch.UsageError):
        rate_batch.replay(str(LEAGUE), system="elo", tau=0.5)


def test_the_state_pickles_and_resumes_byte_for_byte():
    league = pl.read_csv(LEAGUE, try_parse_dates=True)
    half = league.height // 2
    first = rate_batch.replay(league.head(half), system="glicko2", warmup=0)
    state = pickle.loads(pickle.dumps(first.state))
    assert state == first.state and state.data == first.state.data
    resumed = rate_batch.replay(league, system="glicko2", warmup=0, resume=state)
    again = rate_batch.replay(league, system="glicko2", warmup=0, resume=first.state)
    whole = rate_batch.replay(league, system="glicko2", warmup=0)
    assert resumed.state.data == again.state.data
    assert resumed.leaderboard.equals(whole.leaderboard)
    assert pl.concat([first.history, resumed.history]).equals(whole.history)
    assert resumed.metrics["metrics"] == whole.metrics["metrics"]
    assert resumed.metrics["rounds"] == whole.metrics["rounds"]


def test_rater_by_hand():
    r = rate_batch.Rater("elo", k=32)
    r.rate_game("ann", "bob", 1.0)
    assert r.rating("ann") == {"rating": 1516.0, "uncertainty": None, "display": 1516.0}
    e = 1 / (1 + 10 ** ((1484 - 1516) / 400))
    assert math.isclose(r.predict("ann", "bob"), e, rel_tol=1e-12)
    assert r.predict("ann", "newcomer") > 0.5
    assert r.rating("nobody") is None
    with pytest.raises(ValueError):
        r.rate_game("ann", "ann", 1.0)
    with pytest.raises(ValueError):
        r.rate_game("ann", "bob", 2.0)
    with pytest.raises(ValueError):
        rate_batch.Rater("elo", tau=0.5)
    r.rate_contest([("cy", 1), ("ann", 2), ("bob", 2)])
    board = r.leaderboard()
    assert board.columns == ["player", "rating", "uncertainty", "display_rating"]
    assert board["player"][0] == "cy" and board.height == 3
    g = rate_batch.Rater("glicko2")
    g.rate_period([("a", "b", 1.0), ("a", "c", 0.5)])
    assert g.rating("a")["uncertainty"] < 350


def test_systems_and_options():
    assert "elo-mmr" in rate_batch.systems() and "glicko2" in rate_batch.systems()
    r = rate_batch.replay(str(LEAGUE), system="elo", k=24, period="day", history=False,
                          predictions=True)
    assert r.history is None
    assert r.metrics["params"]["k"] == 24
    assert r.predictions.height > 0 and "p_win" in r.predictions.columns
