"""Sweeps cut into shards: through the package, and as Ray tasks on a local Ray instance (the
Ray test says that it skipped where Ray is not installed)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import rate_batch

LEAGUE = str(Path(__file__).resolve().parents[2] / "datasets" / "chess-league.csv")
GRID = {"tau": [0.3, 0.6, 0.9, 1.2], "start_rd": [200, 350]}


def test_shards_merge_to_one_run():
    one = rate_batch.tune(LEAGUE, "glicko2", GRID)
    for n in (1, 2, 3, 4):
        files = [rate_batch.tune(LEAGUE, "glicko2", GRID, shard=(k, n)).shard_file
                 for k in range(1, n + 1)]
        merged = rate_batch.tune(LEAGUE, "glicko2", GRID, merge=files)
        assert merged.trials.equals(one.trials), n
        assert merged.best == one.best
    with pytest.raises(rate_batch.UsageError):
        rate_batch.tune(LEAGUE, "glicko2", GRID, merge=files[:1] if n == 1 else files[:-1])


def test_compare_shards_through_the_package():
    whole = rate_batch.compare(LEAGUE, ["elo", "glicko2", "trueskill"])
    part = rate_batch.compare(LEAGUE, ["elo", "glicko2", "trueskill"], shard=(2, 2))
    assert sorted(part.leaderboards) == ["glicko2"]
    assert part.leaderboards["glicko2"].equals(whole.leaderboards["glicko2"])


def test_a_sweep_on_a_local_ray_instance_gives_tunes_result():
    try:
        import ray
    except ImportError:
        print("\nSKIPPED: Ray is not installed (pip install 'ray>=2.9'): the Ray test did not run")
        pytest.skip("Ray is not installed")
    import rate_batch.ray as rb_ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        frame = pl.read_csv(LEAGUE)
        one = rate_batch.tune(LEAGUE, "glicko2", GRID)
        for data in (LEAGUE, frame):
            on_ray = rb_ray.tune(data, "glicko2", GRID, shards=3)
            assert on_ray.trials.equals(one.trials)
            assert on_ray.best == one.best
    finally:
        ray.shutdown()
