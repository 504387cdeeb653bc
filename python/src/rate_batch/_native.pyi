"""Type stubs of ``rate_batch._native``, the package's compiled module (Rust, PyO3)."""

from typing import List, Optional, Tuple

__version__: str

def run(
    args: List[str],
) -> Tuple[int, str, Optional[str], Optional[Tuple[str, str, Optional[int], Optional[str]]]]:
    """Runs one ``rate-batch`` command line (without the program's name) in this process, with
    the GIL released: ``(exit_code, printed, message, place)``; ``message`` is the error (None
    on success) and ``place`` ``(file, where, line_or_row, field)`` for a bad input."""

def systems() -> List[str]:
    """The names of the rating systems."""

class Rater:
    """Rates games and contests one at a time, by player name, with any system."""

    def __init__(self, system: str, **params: float | int | bool | str) -> None: ...
    @property
    def system(self) -> str: ...
    def seed(
        self,
        name: str,
        rating: float,
        uncertainty: Optional[float] = None,
        volatility: Optional[float] = None,
    ) -> None: ...
    def rate_game(self, a: str, b: str, score_a: float) -> None: ...
    def rate_period(self, games: List[Tuple[str, str, float]]) -> None: ...
    def rate_contest(self, standings: List[Tuple[str, int]]) -> None: ...
    def rating(self, name: str) -> Optional[Tuple[float, Optional[float], float]]:
        """``(rating, uncertainty, display)`` of a known player."""
    def predict(self, a: str, b: str) -> Optional[float]: ...
    def leaderboard(self) -> List[Tuple[str, float, Optional[float], float]]: ...
