"""rate-batch from Python: replay whole contest histories through rating systems.

The same engine and the same jobs as the ``rate-batch`` program, called in process (the GIL
released while they run), so every figure is the program's::

    import rate_batch
    result = rate_batch.replay("matches.csv", system="glicko2")
    print(result.leaderboard.head())          # a polars DataFrame

Inputs are paths (any file or folder the program reads: games or standings CSV, contest JSON,
PGN, Parquet, compressed or not) or a polars or pandas DataFrame of games or standings
(handed over as Parquet, an Arrow format: no CSV round trip). Options are keyword arguments:
those of ``rate-batch replay`` (``period="week"``, ``map={"a": "home", ...}``,
``warmup=0.2``, ``advantage="auto"``, ...) and, for anything else, the system's parameters
(``k=24``, ``tau=0.5``). ``args=[...]`` passes command-line flags as they are.

Errors raise :class:`InputError` (a bad input: ``file``, ``line`` or ``row``, ``field``),
:class:`UsageError` (bad options) or :class:`RateBatchError` (anything else; ``exit_code`` as
the program's).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import polars as pl

from . import _native
from ._native import Rater as _NativeRater

__all__ = [
    "replay",
    "compare",
    "tune",
    "Rater",
    "State",
    "Replay",
    "Comparison",
    "Tuning",
    "RateBatchError",
    "InputError",
    "UsageError",
    "systems",
    "run",
]

__version__ = _native.__version__

PathLike = Union[str, "os.PathLike[str]"]
Data = Union[PathLike, Sequence[PathLike], "pl.DataFrame", Any]


class RateBatchError(Exception):
    """A run that failed; ``exit_code`` is the program's (3 input/output, 4 a rating that ran
    away or a partial failure, 5 an output folder in use by another run)."""

    def __init__(self, message: str, exit_code: int = 3):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


class UsageError(RateBatchError, ValueError):
    """Options that cannot be run (exit code 2)."""


class InputError(RateBatchError, ValueError):
    """A bad input (exit code 1): ``file``, ``where`` (``"line"``, ``"row"`` of a Parquet
    file or DataFrame, ``"file"`` or ``"contest NAME"``), ``line`` (the line or row number,
    1-based, or None) and ``field`` (the column, tag or key, or None)."""

    def __init__(
        self,
        message: str,
        file: str,
        where: str,
        line: Optional[int],
        field: Optional[str],
    ):
        super().__init__(message, 1)
        self.file = file
        self.where = where
        self.line = line
        self.field = field


def run(args: Sequence[str], *, names: Optional[Mapping[str, str]] = None) -> str:
    """Runs one ``rate-batch`` command line (without the program's name) in this process and
    returns what it printed; raises as the program would exit. ``names`` renames files in
    error messages (a DataFrame's temporary Parquet file is ``<DataFrame>``)."""
    code, printed, message, place = _native.run([str(a) for a in args])
    if code == 0:
        return printed
    message = message or f"rate-batch exited with {code}"
    for path, shown in (names or {}).items():
        message = message.replace(path, shown)
    if place is not None:
        file, where, line, fld = place
        file = (names or {}).get(file, file)
        raise InputError(message, file, where, line, fld)
    if code == 2:
        raise UsageError(message, 2)
    raise RateBatchError(message, code)


def systems() -> List[str]:
    """The names of the rating systems."""
    return list(_native.systems())


@dataclass(frozen=True)
class State:
    """What a replay carries to the next (``--save-state``): the players' states, the records,
    what was applied. Picklable; give it back with ``replay(new_data, resume=state)``."""

    data: bytes

    def __len__(self) -> int:
        return len(self.data)


@dataclass
class Replay:
    """A replay's outputs: ``leaderboard`` and ``history`` (polars DataFrames, the program's
    ``leaderboard`` and ``history`` files), ``metrics`` (``metrics.json`` as a dict),
    ``state`` (to resume from), and, with ``predictions=True``, ``predictions`` and
    ``contests``."""

    leaderboard: pl.DataFrame
    history: Optional[pl.DataFrame]
    metrics: Dict[str, Any]
    state: State
    printed: str = ""
    predictions: Optional[pl.DataFrame] = None
    contests: Optional[pl.DataFrame] = None


@dataclass
class Comparison:
    """A comparison's outputs: ``table`` (``compare.csv``), and per system its
    ``leaderboards`` and ``metrics``."""

    table: pl.DataFrame
    leaderboards: Dict[str, pl.DataFrame]
    metrics: Dict[str, Dict[str, Any]]
    document: Dict[str, Any] = field(default_factory=dict)
    printed: str = ""


@dataclass
class Tuning:
    """A sweep's outputs: ``trials`` (``tune.csv``, best first), ``best`` (the chosen
    parameters), and ``printed`` (the program's summary, with the held-out scores). A
    ``shard=(k, n)`` run has ``shard_file`` (the bytes of ``tune-shard-K-of-N.json``) instead."""

    trials: Optional[pl.DataFrame]
    best: Dict[str, Any]
    printed: str = ""
    shard_file: Optional[bytes] = None


# Options of `replay`, `compare` and `tune` taken as keyword arguments: name -> flag. A True
# value gives a bare flag, False or None nothing, a list the flag once per item.
_OPTIONS = {
    "format": "--format",
    "period": "--period",
    "warmup": "--warmup",
    "skip_invalid": "--skip-invalid",
    "trim_names": "--trim-names",
    "team_sep": "--team-sep",
    "time_format": "--time-format",
    "initial_ratings": "--initial-ratings",
    "decay_per_day": "--decay-per-day",
    "as_of": "--as-of",
    "growth": "--growth",
    "rating_period": "--rating-period",
    "order": "--order",
    "pool_by": "--pool-by",
    "min_rounds": "--min-rounds",
    "provisional_above": "--provisional-above",
    "provisional_below": "--provisional-below",
    "active_since": "--active-since",
    "active_within": "--active-within",
    "rank_all": "--rank-all",
    "rank_by": "--rank-by",
    "advantage": "--advantage",
    "preset": "--preset",
    "ci": "--ci",
    "ci_level": "--ci-level",
    "ci_seed": "--ci-seed",
    "anchor": "--anchor",
    "aliases": "--aliases",
    "dedupe": "--dedupe",
    "skip_all_tied": "--skip-all-tied",
    "truth": "--truth",
    "seed_from_pgn": "--seed-from-pgn",
    "stream": "--stream",
    "subsample": "--subsample",
    "split_ties": "--split-ties",
    "draws": "--draws",
    "season_gap": "--season-gap",
    "season_regress": "--season-regress",
    "season_mean": "--season-mean",
}


def _flags(options: Mapping[str, Any]) -> List[str]:
    out: List[str] = []
    for name, value in options.items():
        flag = _OPTIONS[name]
        if value is None or value is False:
            continue
        if value is True:
            out.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                out += [flag, str(v)]
        else:
            out += [flag, str(value)]
    return out


def _map_flag(mapping: Union[None, str, Mapping[str, str]]) -> List[str]:
    if mapping is None:
        return []
    if isinstance(mapping, str):
        return ["--map", mapping]
    return ["--map", ",".join(f"{k}={v}" for k, v in mapping.items())]


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _split(kwargs: Dict[str, Any]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """Options of the program, and the system's parameters (the rest)."""
    options = {k: v for k, v in kwargs.items() if k in _OPTIONS}
    params = {k: v for k, v in kwargs.items() if k not in _OPTIONS}
    return options, params


def _is_frame(data: Any) -> bool:
    if isinstance(data, pl.DataFrame):
        return True
    mod = type(data).__module__ or ""
    return mod.startswith("pandas") and type(data).__name__ == "DataFrame"


FRAME_FILE = "input.parquet"


def _frame_names(tmp: Path) -> Dict[str, str]:
    """How errors name a DataFrame given as input."""
    return {str(tmp / FRAME_FILE): "<DataFrame>"}


def _frame_format(data: Data, options: Dict[str, Any]) -> None:
    """A DataFrame is read as the Parquet file it is handed over as: games or standings are
    told by its columns (through ``map``)."""
    if not _is_frame(data):
        return
    given = options.get("format")
    if given not in (None, "games", "standings", "parquet"):
        raise UsageError(f"format={given!r}: a DataFrame holds games or standings", 2)
    options["format"] = "parquet"


def _inputs(data: Data, tmp: Path) -> List[str]:
    """The command line's inputs: paths as they are, a DataFrame as a Parquet file."""
    if _is_frame(data):
        frame = data if isinstance(data, pl.DataFrame) else pl.from_pandas(data)
        # Times as text the readers take (RFC 3339 for instants, YYYY-MM-DD for days): a
        # Parquet timestamp would be printed with a fraction of a second.
        frame = frame.with_columns(
            [
                pl.col(c).dt.strftime("%Y-%m-%dT%H:%M:%S%.fZ")
                if isinstance(t, pl.Datetime)
                else pl.col(c).dt.strftime("%Y-%m-%d")
                for c, t in frame.schema.items()
                if isinstance(t, (pl.Datetime, pl.Date))
            ]
        )
        path = tmp / FRAME_FILE
        frame.write_parquet(path)
        return [str(path)]
    if isinstance(data, (str, os.PathLike)):
        return [os.fspath(data)]
    if isinstance(data, Iterable):
        paths = [os.fspath(p) for p in data]
        if not paths:
            raise UsageError("no input given", 2)
        return paths
    raise TypeError(f"data: a path, a list of paths or a DataFrame, not {type(data).__name__}")


def _params_flags(params: Mapping[str, Any], system: Optional[str] = None) -> List[str]:
    out: List[str] = []
    for k, v in params.items():
        spec = f"{k}={_value(v)}" if system is None else f"{system}:{k}={_value(v)}"
        out += ["--param", spec]
    return out


def _read_frame(folder: Path, stem: str) -> Optional[pl.DataFrame]:
    for ext, read in ((".parquet", pl.read_parquet), (".csv", pl.read_csv)):
        p = folder / f"{stem}{ext}"
        if p.exists():
            return read(p)
    return None


def _temp() -> Path:
    return Path(tempfile.mkdtemp(prefix="rate-batch-"))


def replay(
    data: Data,
    system: str = "elo",
    *,
    resume: Optional[State] = None,
    map: Union[None, str, Mapping[str, str]] = None,
    history: bool = True,
    predictions: bool = False,
    args: Sequence[str] = (),
    **kwargs: Any,
) -> Replay:
    """Replays ``data`` through ``system`` (``rate-batch replay``).

    ``resume=state`` continues from an earlier replay's :class:`State` with the contests of
    ``data`` not applied yet. ``map`` renames columns (``{"a": "home_team", ...}`` or the
    program's ``a=home_team,...``). ``history=False`` skips the rating history. Other keyword
    arguments are the program's options (see the module's documentation) or the system's
    parameters. Returns a :class:`Replay`.
    """
    options, params = _split(kwargs)
    _frame_format(data, options)
    tmp = _temp()
    try:
        out = tmp / "out"
        state_path = tmp / "state.bin"
        argv = ["replay", *_inputs(data, tmp), "--system", system, "--out", str(out)]
        argv += ["--leaderboard-format", "parquet", "--quiet"]
        argv += ["--history-format", "parquet" if history else "none"]
        argv += ["--save-state", str(state_path)]
        if resume is not None:
            resume_path = tmp / "resume.bin"
            resume_path.write_bytes(resume.data)
            argv += ["--resume", str(resume_path)]
        if predictions:
            argv.append("--predictions")
        argv += _map_flag(map) + _flags(options) + _params_flags(params) + list(args)
        printed = run(argv, names=_frame_names(tmp))
        return Replay(
            leaderboard=_read_frame(out, "leaderboard"),
            history=_read_frame(out, "history") if history else None,
            metrics=json.loads((out / "metrics.json").read_text()),
            state=State(state_path.read_bytes()),
            printed=printed,
            predictions=_read_frame(out, "predictions") if predictions else None,
            contests=_read_frame(out, "contests") if predictions else None,
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def compare(
    data: Data,
    systems: Union[str, Sequence[str]] = "all",
    *,
    params: Optional[Mapping[str, Mapping[str, Any]]] = None,
    map: Union[None, str, Mapping[str, str]] = None,
    shard: Optional[Tuple[int, int]] = None,
    args: Sequence[str] = (),
    **kwargs: Any,
) -> Comparison:
    """Replays ``data`` through several systems side by side (``rate-batch compare``).

    ``params={"elo": {"k": 24}}`` gives a system its parameters; other keyword arguments are
    the program's options. Returns a :class:`Comparison`.
    """
    options, rest = _split(kwargs)
    _frame_format(data, options)
    if rest:
        raise UsageError(
            f"unknown options {sorted(rest)}: give a system's parameters as "
            "params={'system': {...}}",
            2,
        )
    names = systems if isinstance(systems, str) else ",".join(systems)
    tmp = _temp()
    try:
        out = tmp / "out"
        argv = ["compare", *_inputs(data, tmp), "--systems", names, "--out", str(out)]
        argv += ["--leaderboard-format", "parquet", "--quiet"]
        for system, ps in (params or {}).items():
            argv += _params_flags(ps, system)
        if shard is not None:
            argv += ["--shard", f"{shard[0]}/{shard[1]}"]
        argv += _map_flag(map) + _flags(options) + list(args)
        printed = run(argv, names=_frame_names(tmp))
        leaderboards: Dict[str, pl.DataFrame] = {}
        metrics: Dict[str, Dict[str, Any]] = {}
        for d in sorted(p for p in out.iterdir() if p.is_dir()):
            frame = _read_frame(d, "leaderboard")
            if frame is not None:
                leaderboards[d.name] = frame
            if (d / "metrics.json").exists():
                metrics[d.name] = json.loads((d / "metrics.json").read_text())
        table_path = out / "compare.csv"
        table = pl.read_csv(table_path) if table_path.exists() else pl.DataFrame()
        document = (
            json.loads((out / "compare.json").read_text())
            if (out / "compare.json").exists()
            else {}
        )
        return Comparison(table, leaderboards, metrics, document, printed)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _grid_text(grid: Union[str, Mapping[str, Sequence[Any]]]) -> str:
    if isinstance(grid, str):
        return grid
    return ";".join(f"{k}={','.join(_value(v) for v in vs)}" for k, vs in grid.items())


def tune(
    data: Data,
    system: str,
    grid: Union[None, str, Mapping[str, Sequence[Any]]] = None,
    *,
    random: Optional[int] = None,
    seed: Optional[int] = None,
    metric: Optional[str] = None,
    fraction: Optional[float] = None,
    map: Union[None, str, Mapping[str, str]] = None,
    shard: Optional[Tuple[int, int]] = None,
    merge: Optional[Sequence[Union[PathLike, bytes]]] = None,
    args: Sequence[str] = (),
    **kwargs: Any,
) -> Tuning:
    """Chooses ``system``'s parameters on the first contests and scores them on the rest
    (``rate-batch tune``).

    ``grid={"k": [16, 24, 32]}`` (or the program's ``"k=16,24,32"``; default: the system's own
    grid), or ``random=N`` draws with ``seed``. ``shard=(k, n)`` scores only shard k of n and
    returns its file's bytes; ``merge=[...]`` (those bytes, or the files) gives the result of
    one run. Returns a :class:`Tuning`.
    """
    options, rest = _split(kwargs)
    _frame_format(data, options)
    if rest:
        raise UsageError(f"unknown options {sorted(rest)}", 2)
    tmp = _temp()
    try:
        out = tmp / "out"
        argv = ["tune", *_inputs(data, tmp), "--system", system, "--out", str(out)]
        if grid is not None:
            argv += ["--grid", _grid_text(grid)]
        for flag, v in (("--random", random), ("--seed", seed), ("--metric", metric),
                        ("--fraction", fraction)):
            if v is not None:
                argv += [flag, str(v)]
        if shard is not None:
            argv += ["--shard", f"{shard[0]}/{shard[1]}"]
        if merge:
            files = []
            for i, m in enumerate(merge):
                if isinstance(m, bytes):
                    p = tmp / f"merge-{i}" / f"tune-shard-{i}.json"
                    p.parent.mkdir()
                    p.write_bytes(m)
                    files.append(str(p))
                else:
                    files.append(os.fspath(m))
            argv += ["--merge", *files]
        argv += _map_flag(map) + _flags(options) + list(args) + ["--quiet"]
        printed = run(argv, names=_frame_names(tmp))
        if shard is not None:
            shard_file = out / f"tune-shard-{shard[0]}-of-{shard[1]}.json"
            return Tuning(None, {}, printed, shard_file.read_bytes())
        trials = pl.read_csv(out / "tune.csv")
        skip = {"rank", "pair_inversion", "rank_deviation", "log_loss", "brier", "accuracy",
                "failed"}
        best = {c: trials[c][0] for c in trials.columns if c not in skip} if len(trials) else {}
        return Tuning(trials, best, printed)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class Rater:
    """Rates games and contests one at a time, by player name, with any system.

    ``Rater("glicko2", tau=0.5)``; ``rate_game("ann", "bob", 1.0)`` (ann's score: 1 a win,
    0.5 a draw, 0 a loss); ``rate_period([(a, b, score), ...])`` (one rating period);
    ``rate_contest([("ann", 1), ("bob", 2), ...])`` (ranks, ties shared); ``rating(name)``;
    ``predict(a, b)`` (the probability that a beats b, a draw counting half); ``leaderboard()``.
    A game rated here is rated as ``replay --period game --growth rounds`` rates it
    (a Rater knows no time). Nor does it know an input's draw rate: TrueSkill's draw margin
    is its own 0.10 here unless ``draw_probability`` is given (the program's default is the
    input's draw rate).
    """

    def __init__(self, system: str = "elo", **params: Any):
        self._inner = _NativeRater(system, **params)

    @property
    def system(self) -> str:
        return self._inner.system

    def seed(self, name: str, rating: float, uncertainty: Optional[float] = None,
             volatility: Optional[float] = None) -> None:
        """Gives a player who has not played a rating from elsewhere."""
        self._inner.seed(name, rating, uncertainty, volatility)

    def rate_game(self, a: str, b: str, score_a: float) -> None:
        """Rates one game; raises ValueError for a bad game (nothing changes then)."""
        self._inner.rate_game(a, b, score_a)

    def rate_period(self, games: Sequence[Tuple[str, str, float]]) -> None:
        """Rates several games as one rating period."""
        self._inner.rate_period(list(games))

    def rate_contest(self, standings: Sequence[Tuple[str, int]]) -> None:
        """Rates a ranking of many (rank 1 best; equal ranks tie)."""
        self._inner.rate_contest([(n, int(r)) for n, r in standings])

    def rating(self, name: str) -> Optional[Dict[str, Optional[float]]]:
        """``{"rating", "uncertainty", "display"}`` of a known player, else None."""
        r = self._inner.rating(name)
        if r is None:
            return None
        return {"rating": r[0], "uncertainty": r[1], "display": r[2]}

    def predict(self, a: str, b: str) -> Optional[float]:
        """The probability that ``a`` beats ``b`` (a draw counting half); an unknown player
        counts as a newcomer; None where the system defines none."""
        return self._inner.predict(a, b)

    def leaderboard(self) -> pl.DataFrame:
        """Every player, best first."""
        rows = self._inner.leaderboard()
        return pl.DataFrame(
            {
                "player": [r[0] for r in rows],
                "rating": [r[1] for r in rows],
                "uncertainty": [r[2] for r in rows],
                "display_rating": [r[3] for r in rows],
            },
            schema={
                "player": pl.String,
                "rating": pl.Float64,
                "uncertainty": pl.Float64,
                "display_rating": pl.Float64,
            },
        )
